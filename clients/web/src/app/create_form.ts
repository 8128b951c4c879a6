/**
 * The create-room form, built entirely from the server's game catalogue (`list_games`): every
 * room option of the chosen game, the number of seats its options allow, and per seat who sits
 * there (me, an open seat for a person, or a bot of any kind the game offers) with the game's
 * per-seat choices. The pure parts ({@link seatRange}, {@link buildCreateRoom}) are unit-tested.
 */

import type { ClientMessage, Data, GameInfo, OptionInfo, SeatChoice } from "../protocol/messages";
import { h } from "./dom";
import { playerDoc } from "./sentences";

/** Who sits at a seat being created. */
export type SeatPlan = { who: "me" } | { who: "open" } | { who: "bot"; bot: string };

export interface CreatePlan {
  game: GameInfo;
  options: Data;
  seats: { plan: SeatPlan; choices: Data }[];
  private: boolean;
  /** Seconds; null for no turn clock. */
  turnClock: number | null;
}

/** The seat counts a game allows with these options: the first `seats` rule whose `when`
 *  matches; null when none does (these options allow no room). */
export function seatRange(game: GameInfo, options: Data): { min: number; max: number } | null {
  const values = { ...defaults(game.options), ...options };
  for (const rule of game.seats) {
    const when = (rule.when ?? {}) as Data;
    if (Object.entries(when).every(([name, value]) => values[name] === value)) {
      return { min: rule.min, max: rule.max };
    }
  }
  return game.seats.length === 0 ? { min: 1, max: 8 } : null;
}

/**
 * Whether an option means anything in a room with these options and seat count (version 6's
 * `OptionInfo.when`: each key an other option, or `seats`, with the values under which it
 * applies; all must hold). An option from an older server, without `when`, always applies.
 */
export function applies(option: OptionInfo, game: GameInfo, options: Data, seats: number): boolean {
  const values = { ...defaults(game.options), ...options };
  return Object.entries(option.when ?? {}).every(([name, allowed]) => {
    const list = Array.isArray(allowed) ? (allowed as unknown[]) : [];
    return list.includes(name === "seats" ? seats : values[name]);
  });
}

/** Every option's default. */
export function defaults(options: readonly OptionInfo[]): Data {
  return Object.fromEntries(options.map((option) => [option.name, option.default]));
}

/** A first plan for a game: defaults, me in seat 0, the default bot elsewhere, the smallest
 *  allowed table (at least two seats when allowed). */
export function initialPlan(game: GameInfo): CreatePlan {
  const options = defaults(game.options);
  const range = seatRange(game, options) ?? { min: 1, max: 1 };
  const count = Math.min(range.max, Math.max(range.min, 2));
  const plan: CreatePlan = { game, options, seats: [], private: false, turnClock: null };
  resizeSeats(plan, count);
  return plan;
}

/** Grow or shrink the seat list to `count` seats (new seats are default bots). */
export function resizeSeats(plan: CreatePlan, count: number): void {
  while (plan.seats.length < count) {
    const first = plan.seats.length === 0;
    plan.seats.push({
      plan: first ? { who: "me" } : { who: "bot", bot: plan.game.default_bot },
      choices: defaults(plan.game.seat_options),
    });
  }
  plan.seats.length = count;
}

/** The `create_room` request a plan describes; options equal to their default, and those that
 *  do not apply to the plan's mode and seat count (hidden in the form), are left out. */
export function buildCreateRoom(plan: CreatePlan): ClientMessage {
  const options: Data = {};
  const count = plan.seats.length;
  for (const option of plan.game.options) {
    const value = plan.options[option.name];
    if (value !== undefined && value !== option.default && applies(option, plan.game, plan.options, count)) options[option.name] = value;
  }
  let sit: number | null = null;
  const seats: SeatChoice[] = plan.seats.map(({ plan: who, choices }, index) => {
    const seatChoices: Data = {};
    for (const option of plan.game.seat_options) {
      const value = choices[option.name];
      if (value !== undefined && value !== option.default && applies(option, plan.game, plan.options, count)) seatChoices[option.name] = value;
    }
    const choice: SeatChoice = {};
    if (who.who === "bot") {
      choice.kind = "bot";
      choice.bot = who.bot;
    } else if (who.who === "me" && sit === null) {
      sit = index;
    }
    if (Object.keys(seatChoices).length > 0) choice.choices = seatChoices;
    return choice;
  });
  return {
    type: "create_room",
    game: plan.game.id,
    options,
    seats,
    private: plan.private || undefined,
    sit,
    turn_clock: plan.turnClock,
  };
}

/** A problem with the plan that the server would refuse, in words; null when fine. */
export function planProblem(plan: CreatePlan): string | null {
  const range = seatRange(plan.game, plan.options);
  if (range === null) return "These options allow no table: change one of them.";
  if (plan.seats.length < range.min || plan.seats.length > range.max) {
    return range.min === range.max ? `This table has exactly ${range.min} seat${range.min === 1 ? "" : "s"}.` : `This table has ${range.min} to ${range.max} seats.`;
  }
  if (plan.seats.filter((seat) => seat.plan.who === "me").length > 1) return "You can sit in one seat only.";
  for (const option of plan.game.options) {
    if (!applies(option, plan.game, plan.options, plan.seats.length)) continue; // hidden, not sent
    const problem = optionProblem(option, plan.options[option.name]);
    if (problem) return problem;
  }
  return null;
}

/** Whether a value suits an option (bounds, integer, choice); a sentence when not. */
export function optionProblem(option: OptionInfo, value: unknown): string | null {
  if (option.kind === "int" || option.kind === "float") {
    if (typeof value !== "number" || Number.isNaN(value)) return `${label(option)} takes a number.`;
    if (option.kind === "int" && !Number.isInteger(value)) return `${label(option)} takes a whole number.`;
    if (option.minimum !== null && value < option.minimum) return `${label(option)} is at least ${option.minimum}.`;
    if (option.maximum !== null && value > option.maximum) return `${label(option)} is at most ${option.maximum}.`;
  }
  return null;
}

/** An option's name for people: `same_start` → "Same start". */
export function label(option: OptionInfo): string {
  const text = option.name.replace(/_/g, " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A choice's value in words: `overdrive` → "Overdrive", `standard_deck` → "Standard deck". */
export function choiceLabel(choice: unknown): string {
  const text = String(choice).replace(/_/g, " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** One form control for an option; `onChange` receives the parsed value. A choice shows its
 *  values in words (the value sent stays the protocol's). */
export function optionControl(option: OptionInfo, value: unknown, idPrefix: string, onChange: (value: unknown) => void): HTMLElement {
  const id = `${idPrefix}-${option.name}`;
  const help = h("small.help", { id: `${id}-help` }, playerDoc(option.doc));
  let control: HTMLElement;
  if (option.kind === "bool") {
    const box = h("input", { type: "checkbox", id, checked: value === true, "aria-describedby": `${id}-help`, "data-option": option.name });
    box.onchange = () => onChange(box.checked);
    return h("div.field.check", null, box, h("label", { for: id }, label(option)), help);
  }
  if (option.kind === "choice") {
    const select = h(
      "select",
      { id, "aria-describedby": `${id}-help`, "data-option": option.name },
      option.choices.map((choice) => h("option", { value: String(choice), selected: choice === value }, choiceLabel(choice))),
    );
    select.onchange = () => onChange(option.choices.find((choice) => String(choice) === select.value));
    control = select;
  } else {
    const input = h("input", {
      type: "number",
      id,
      value: String(value ?? ""),
      step: option.kind === "int" ? "1" : "any",
      min: option.minimum ?? undefined,
      max: option.maximum ?? undefined,
      inputMode: option.kind === "int" ? "numeric" : "decimal",
      "aria-describedby": `${id}-help`,
      "data-option": option.name,
    });
    input.oninput = () => onChange(input.value === "" ? Number.NaN : Number(input.value));
    control = input;
  }
  return h("div.field", null, h("label", { for: id }, label(option)), control, help);
}
