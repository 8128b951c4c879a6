/**
 * The move log every board shows: the view's `log` (the recent happenings the engine noted,
 * oldest first; docs/rules/<game>.md, "Views"), put in words, newest at the top. The words
 * are made here from the entries' data only: no board guesses what happened from diffs.
 * Places are numbered as the boards number them (Flip Over Frog spaces and Flash 8 stacks
 * from 1, Neon Flip slots as they are, 1-36; Neon Hex hexes by the map's names).
 */

import { h, replace } from "../app/dom";

/** One happening: always `n`, `seat` (null for the table) and `what`, then its fields. */
export type LogEntry = { n: number; seat: number | null; what: string } & Record<string, unknown>;

/** How a board names things in its sentences. */
export interface Namer {
  /** A seat's name ("Bot 2", "You"). */
  seat(seat: number): string;
  /** A Neon Hex hex's name (its id by default). */
  hex?(id: number): string;
}

const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;
const num = (value: unknown) => (typeof value === "number" ? value : 0);
const list = (value: unknown): number[] => (Array.isArray(value) ? value.filter((v): v is number => typeof v === "number") : []);
const seconds = (value: unknown) => `${num(value).toFixed(2)} s`;

/** The entries of a view, or none when it has no log (a server before the move log). */
export function logOf(view: unknown): LogEntry[] {
  const log = (view as { log?: unknown } | null)?.log;
  return Array.isArray(log) ? (log as LogEntry[]) : [];
}

function frog(entry: LogEntry, who: string): string {
  switch (entry.what) {
    case "frog": {
      const flipped = list(entry.flipped);
      const turned = flipped.length ? `, flipping ${plural(flipped.length, "tile")} (${flipped.map((s) => s + 1).join(", ")})` : ", flipping nothing";
      return `${who} played ${entry.colour} Frog ${entry.tile} on space ${num(entry.space) + 1}${turned}.`;
    }
    case "snake":
      return `${who} played Snake ${entry.tile} on space ${num(entry.space) + 1}, taking ${entry.colour} Frog ${entry.frog} off the board.`;
    case "discard":
      return `${who} discarded Snake ${entry.tile}: no Frog was face up.`;
    case "draw":
      return typeof entry.tile === "string" ? `${who} drew ${entry.tile}.` : `${who} drew a tile.`;
    default:
      return "";
  }
}

const HEX_ENDS: Record<string, string> = {
  ended: "ended the turn",
  no_expansion: "had no hex to expand into; the turn ended",
};

function neonHex(entry: LogEntry, who: string, namer: Namer): string {
  const hex = (id: unknown) => namer.hex?.(num(id)) ?? String(num(id));
  switch (entry.what) {
    case "turn":
      return `Turn ${num(entry.turn)}: ${who} to play, +${num(entry.income)} ⚡.`;
    case "safe":
      return `${who} claimed ${hex(entry.target)} (Safe, ${num(entry.cost)} ⚡).`;
    case "risk": {
      const dice = list(entry.dice);
      const total = dice.reduce((a, b) => a + b, 0);
      const claimed = list(entry.claimed);
      if (entry.success) return `${who} rolled ${dice.join(" + ")} = ${total}: breakthrough on ${hex(entry.target)}, ${plural(claimed.length, "hex", "hexes")} claimed (${claimed.map(hex).join(", ")}), ${num(entry.refund)} ⚡ back.`;
      return `${who} rolled ${dice.join(" + ")} = ${total}: the Risk on ${hex(entry.target)} failed, ${num(entry.cost)} ⚡ spent.`;
    }
    case "end_turn":
      return `${who} ${HEX_ENDS[String(entry.reason)] ?? "ended the turn"}.`;
    default:
      return "";
  }
}

function flash8(entry: LogEntry, who: string, namer: Namer): string {
  switch (entry.what) {
    case "start":
      return "The race started.";
    case "take":
      return `${who} took ${entry.card} from stack ${num(entry.stack) + 1} for ${plural(num(entry.points), "point")} (${seconds(entry.took)}, ${plural(num(entry.slides), "slide")}; ${num(entry.optimal)} would do).`;
    case "claim":
      return `${who} claimed the ${entry.name} line as ${entry.shape}, covering ${plural(num(entry.covered), "card")} (${plural(num(entry.slides), "slide")}).`;
    case "miss":
      return typeof entry.stack === "number"
        ? `${who} called FLASH on stack ${entry.stack + 1}, which did not match: locked out.`
        : typeof entry.line === "number"
          ? `${who}'s claim did not match: locked out.`
          : `${who} called FLASH with nothing matching: locked out.`;
    case "late":
      return num(entry.behind) >= 0
        ? `${who} called FLASH on ${entry.card} ${seconds(entry.behind)} after ${namer.seat(num(entry.by))} took it.`
        : `${who} called FLASH on ${entry.card}, but ${namer.seat(num(entry.by))} took it.`;
    case "tie":
      return `A tie on ${entry.card} (${list(entry.seats).map((s) => namer.seat(s)).join(", ")}): chance gave it to ${who}.`;
    case "limit":
      return "Time is up: claims already made are judged.";
    default:
      return "";
  }
}

function neonFlip(entry: LogEntry, who: string): string {
  const slots = list(entry.slots);
  switch (entry.what) {
    case "objective":
      return typeof entry.objective === "string" ? `${who} kept the objective ${entry.objective}.` : `${who} kept an objective.`;
    case "turn":
      return `Turn ${num(entry.turn)}: ${who} to play, +${num(entry.income)} ⚡${num(entry.surcharge) ? ` (drained: actions cost ${num(entry.surcharge)} more)` : ""}.`;
    case "card": {
      const on = entry.slot ? ` on slot ${num(entry.slot)}` : entry.line ? ` on ${entry.line} ${num(entry.index)}` : "";
      return `${who} played ${entry.name}${on} (${num(entry.cost)} ⚡).`;
    }
    case "flip":
      return `${who} flipped slot ${num(entry.slot)} (${num(entry.cost)} ⚡).`;
    case "buy":
      return `${who} bought ${entry.name} from the market.`;
    case "lock":
      return `${who} locked slot ${num(entry.slot)}.`;
    case "cascade":
      return `${who} cascaded through ${plural(slots.length, "slot")} (${slots.join(", ")}).`;
    case "cascade_stop":
      return `${who} stopped the cascade.`;
    case "end_turn":
      return `${who} ended the turn.`;
    case "discard":
      return `${who} discarded ${entry.name}.`;
    case "draw":
      if (entry.owed) return `${who} could not draw: the pile is empty.`;
      return typeof entry.name === "string" ? `${who} drew ${entry.name}.` : `${who} drew a card.`;
    case "reshuffle":
      return `The discards were shuffled under the pile (${plural(num(entry.cards), "card")}).`;
    case "checkpoint":
      return `Checkpoint ${num(entry.number)}: Grid Dominance scored.`;
    case "ai_card":
      return `PROTO-ZERO played a card: ${plural(slots.length, "slot")} turned Pink (${slots.join(", ")}).`;
    case "ai_overcharge":
      return `PROTO-ZERO overcharged: ${plural(slots.length, "slot")} turned Pink.`;
    case "dominance":
      return "Grid Dominance was counted.";
    case "clock":
      return "The Overdrive clock ran out: this is the last turn.";
    default:
      return "";
  }
}

/** One entry of `game`'s log in words ("Bot 2 played red Frog R3 on space 4, flipping 2
 *  tiles (5, 8)."); the table's own happenings (the end) need no seat. */
export function sentence(game: string, entry: LogEntry, namer: Namer): string {
  const who = entry.seat === null ? "" : entry.seat < 0 ? "PROTO-ZERO" : namer.seat(entry.seat);
  if (entry.what === "end") return "The game is over.";
  const words =
    game === "flip_over_frog" ? frog(entry, who)
    : game === "neon_hex" ? neonHex(entry, who, namer)
    : game === "flash8" ? flash8(entry, who, namer)
    : game === "neon_flip" ? neonFlip(entry, who)
    : "";
  return words || `${who || "The table"}: ${entry.what.replace(/_/g, " ")}.`;
}

/** A tone for an entry's line: `good` and `bad` outcomes, a new `turn`, the `end`. */
export function toneOf(entry: LogEntry): string {
  if (entry.what === "end") return "end";
  if (entry.what === "turn" || entry.what === "start") return "turn";
  if (entry.what === "risk") return entry.success ? "good" : "bad";
  if (entry.what === "take" || entry.what === "snake") return "good";
  if (entry.what === "miss" || entry.what === "late") return "bad";
  return "";
}

/** Write `entries` into `list` (an `<ol>`), newest first, one `<li>` a sentence. */
export function showLog(list: HTMLElement, game: string, entries: readonly LogEntry[], namer: Namer): void {
  const items = [...entries].reverse().map((entry) => {
    const tone = toneOf(entry);
    return h(`li${tone ? `.${tone}` : ""}`, { "data-seat": entry.seat ?? undefined, "data-n": entry.n, "data-what": entry.what }, sentence(game, entry, namer));
  });
  if (!items.length) items.push(h("li.muted", null, "Nothing has happened yet."));
  replace(list, ...items);
}

/** A titled log panel: its `<ol>` carries `data-testid="move-log"` for tests. */
export function logPanel(className: string): { panel: HTMLElement; list: HTMLElement } {
  const list = h("ol.move-log", { "aria-label": "What happened", "aria-live": "polite", "data-testid": "move-log" });
  return { panel: h(`section.${className}`, null, h("h4", null, "What happened"), list), list };
}

/** Seat names as a board's context gives them: "You" for the viewer's own seat (never in a
 *  replay seen from a seat), the seat's name, else "Seat n" counted from 1. */
export function seatNamer(context: { readonly seat: number | null; readonly seenAs?: boolean; readonly readOnly?: boolean; readonly seatNames: readonly string[] }): (seat: number) => string {
  return (seat) => {
    if (seat === context.seat && !context.seenAs && !context.readOnly) return "You";
    return context.seatNames[seat]?.trim() || `Seat ${seat + 1}`;
  };
}
