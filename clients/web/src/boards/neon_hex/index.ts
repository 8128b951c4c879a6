/**
 * The Neon Hex Strategy board (docs/rules/neon-hex.md): the 37-hex map on a starfield, the
 * factions with their Energy, income and territory, the Safe and Risk choices with their odds,
 * the dice, a log, and the final result.
 *
 * Changes are played out in order: every update is queued and shown one after another (a Risk
 * roll spins the dice before its result lands, claims glow in), so a bot's quick turn is seen
 * move by move instead of jumping; a long queue plays faster to catch up. Commands can be sent
 * only once the queue is empty, from the `legal` list of the last view (never anything else:
 * every command is one of `expandOptions(legal)`).
 *
 * Keys: arrows move between hexes (Tab walks the lit ones), Enter or Space chooses a hex,
 * S = Safe, R = Risk (then 1-9 picks the bonus pair when that is a choice), E = end the turn,
 * Escape goes back.
 */

import "./neon_hex.css";

import { h, replace, svg, touchScreen } from "../../app/dom";
import type { Option } from "../../protocol/legal";
import { typingInto } from "../keys";
import { logOf, showLog } from "../movelog";
import type { Board, BoardContext, BoardFactory, LegalEntry } from "../types";
import { claimedCount, diff, type Step } from "./changes";
import { dieElement, setFace, spin } from "./dice";
import { capital, colourOf, nameOf, SEAT_NUMBERS, SYMBOL_NAMES, symbolOf } from "./factions";
import { DIRECTION_NAMES, directionOf, hexPoints } from "./geometry";
import { HexMap, patternId } from "./hexmap";
import { bonusOf, oddsText, readOffers, type Offers, type TargetOffer } from "./legal";
import { isNeonHexView, winnersOf, type NeonHexView, type Roll } from "./view";

/** How long each kind of change stays on screen before the next, in milliseconds. */
export interface Timing {
  /** The dice spin before a roll's result shows. */
  roll: number;
  /** A claim glows in. */
  claim: number;
  /** A new turn. */
  turn: number;
}

export const TIMING: Timing = { roll: 1000, claim: 420, turn: 320 };

interface Frame {
  view: NeonHexView;
  legal: readonly LegalEntry[];
}

/** Milliseconds a roll's result stays over the map before the dice hide (they cover hexes). */
export const DICE_SHOWN_MS = 3500;
const EMPTY: Offers = { targets: new Map(), endTurn: null, count: 0 };

const REASONS: Record<string, string> = {
  twelve_hexes: "reached 12 hexes",
  board_full: "Every hex is claimed: the largest territory wins.",
  stalled: "A full round passed without a claim: the largest territory wins.",
};

function ordinal(n: number): string {
  return n === 1 ? "1st" : n === 2 ? "2nd" : n === 3 ? "3rd" : `${n}th`;
}

function reducedMotion(): boolean {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** The board with explicit timings (tests pass short ones). */
export function makeBoard(root: HTMLElement, context: BoardContext, timing: Timing = TIMING): Board {
  const element = h("div.nh-board", { "data-testid": "nh-board" });
  const waiting = h("p.nh-waiting", null, "Waiting for the game to start…");
  element.append(waiting);
  root.append(element);

  let map: HexMap | null = null;
  let shown: NeonHexView | null = null;
  let offers: Offers = EMPTY;
  const queue: Frame[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopDice: (() => void) | null = null;
  let rolling: Roll | null = null;
  let diceTimer: ReturnType<typeof setTimeout> | null = null;
  let fresh = new Set<number>();
  let selected: number | null = null;
  let picking = false;
  let pointedPair: number[] | null = null;
  let busy = false;
  let wasMine = false;
  let destroyed = false;
  let steps = 0;

  // --- the page -------------------------------------------------------------------------------
  const frame = h("div.nh-frame");
  const diceBox = h("div.nh-dice", { "data-testid": "nh-dice", hidden: true, "aria-live": "polite" });
  const diceTitle = h("div.nh-dice-title");
  const dice = [dieElement(), dieElement()];
  const diceTotal = h("div.nh-dice-total", { "data-testid": "nh-dice-total" });
  diceBox.append(diceTitle, h("div.nh-dice-pair", null, dice), diceTotal);
  const hint = h("p.nh-hint", { "aria-live": "polite", "data-testid": "nh-hint" });
  const result = h("section.nh-result", { "data-testid": "nh-result", hidden: true });
  const banner = h("div.nh-banner", { "data-testid": "nh-banner" });
  const actions = h("section.nh-actions", { "aria-label": "Your move", "data-testid": "nh-actions" });
  const factions = h("ol.nh-factions", { "aria-label": "Factions", "data-testid": "nh-factions" });
  const logList = h("ol.nh-log.move-log", { "aria-label": "What happened", "data-testid": "nh-log" });
  const layout = h(
    "div.nh-layout",
    null,
    h("div.nh-main", null, frame, hint),
    h(
      "div.nh-side",
      null,
      result,
      banner,
      actions,
      h("section.nh-panel", null, h("h4", null, "Factions"), factions),
      h("section.nh-panel", null, h("h4", null, "What happened"), logList),
    ),
  );

  // --- helpers --------------------------------------------------------------------------------
  const names = () => context.seatNames;
  const who = (seat: number) => (shown ? nameOf(seat, shown.factions, names()) : `Faction ${seat + 1}`);
  const hexName = (id: number) => map?.layout.names[id] ?? String(id);
  const animating = () => queue.length > 0 || rolling !== null;
  const mine = () => !context.readOnly && context.seat !== null && shown !== null && !shown.outcome && shown.current === context.seat && offers.count > 0;
  const interactive = () => mine() && !animating() && !busy;

  function setHint(text: string): void {
    hint.textContent = text;
  }

  // --- drawing --------------------------------------------------------------------------------
  function ensureMap(view: NeonHexView): HexMap {
    if (map) return map;
    map = new HexMap(view.board.hexes, choose, point);
    frame.append(map.element, diceBox);
    element.replaceChildren(layout);
    return map;
  }

  function marks() {
    const offer = selected !== null ? offers.targets.get(selected) : undefined;
    const usable = interactive();
    let bonus = new Set<number>();
    if (usable && pointedPair) bonus = new Set(pointedPair);
    else if (usable && offer?.risk) bonus = new Set(offer.risk.bonusHexes);
    return {
      targets: usable ? new Set(offers.targets.keys()) : new Set<number>(),
      selected: usable ? selected : null,
      bonus,
      fresh,
      rolling: rolling?.target ?? null,
    };
  }

  function draw(): void {
    if (!shown || !map) return;
    map.draw(shown, names(), marks());
    element.classList.toggle("nh-over", Boolean(shown.outcome));
    root.classList.toggle("my-turn", interactive());
    drawFactions();
    drawBanner();
    drawActions();
    drawResult();
  }

  function drawFactions(): void {
    const view = shown!;
    replace(
      factions,
      view.factions.map((f) => {
        const current = view.current === f.seat;
        const me = f.seat === context.seat;
        const share = Math.min(1, f.hexes / view.win_hexes);
        const winner = view.outcome ? winnersOf(view.outcome).includes(f.seat) : false;
        return h(
          `li.nh-faction${current ? ".current" : ""}${me ? ".me" : ""}${winner ? ".winner" : ""}`,
          {
            "data-seat": f.seat,
            style: { "--faction": colourOf(f) },
            "aria-label": `${who(f.seat)}${me && !context.seenAs ? " (you)" : ""}: ${capital(f.role)}, ${f.colour}, ${SYMBOL_NAMES[f.seat % 5]}; ${f.energy} Energy, ${f.hexes} of ${view.win_hexes} hexes, +${f.income} Energy a turn${current ? "; playing now" : ""}`,
          },
          swatch(f.seat),
          h(
            "div.nh-faction-body",
            null,
            h(
              "div.nh-faction-name",
              null,
              h("span.nh-seat-number", { "aria-hidden": "true" }, SEAT_NUMBERS[f.seat] ?? ""),
              " ",
              who(f.seat),
              me && !context.seenAs ? h("span.nh-you", null, " (you)") : null,
              current ? h("span.nh-playing", null, " ▶ playing") : null,
              winner ? h("span.nh-crown", { "aria-hidden": "true" }, " ♛") : null,
            ),
            h("div.nh-faction-role.muted", null, `${capital(f.role)} · ${f.colour}`),
            h(
              "div.nh-stats",
              null,
              h("span.nh-energy", { title: "Energy", "data-testid": `nh-energy-${f.seat}` }, `⚡ ${f.energy}`),
              h("span.nh-hexcount", { title: "Hexes controlled", "data-testid": `nh-hexes-${f.seat}` }, `⬢ ${f.hexes}/${view.win_hexes}`),
              h("span.nh-income", { title: "Energy produced at the start of its next turn" }, `+${f.income}/turn`),
            ),
            h("div.nh-progress", { "aria-hidden": "true" }, h("span", { style: { width: `${(share * 100).toFixed(1)}%` } })),
          ),
        );
      }),
    );
  }

  /** A small hex in the faction's colour, pattern and symbol. */
  function swatch(seat: number): SVGElement {
    const colour = colourOf(shown!.factions[seat]);
    const centre = { x: 12, y: 12 };
    return svg(
      "svg",
      { class: "nh-swatch", viewBox: "0 0 24 24", "aria-hidden": "true" },
      svg("polygon", { points: hexPoints(centre, 11), fill: colour, "fill-opacity": 0.55, stroke: colour, "stroke-width": 1.2 }),
      svg("polygon", { points: hexPoints(centre, 11), fill: `url(#${patternId(map!.prefix, seat)})` }),
      svg("text", { x: 12, y: 12.5, "text-anchor": "middle", "dominant-baseline": "middle", class: "nh-swatch-symbol" }, symbolOf(seat)),
    );
  }

  function drawBanner(): void {
    const view = shown!;
    let text: string;
    if (view.outcome) text = "The game is over.";
    else if (view.current === null) text = "";
    else if (mine()) text = "▶ Your turn";
    else text = `${who(view.current)} ${context.readOnly || context.seat === null ? "to play" : "is playing…"}`;
    banner.textContent = text;
    banner.classList.toggle("mine", mine() && !animating());
    banner.style.setProperty("--faction", view.current !== null ? colourOf(view.factions[view.current]) : "");
  }

  function drawActions(): void {
    const view = shown!;
    if (view.outcome) {
      replace(actions);
      actions.hidden = true;
      return;
    }
    actions.hidden = false;
    if (context.readOnly || context.seat === null) {
      replace(actions, h("p.muted", null, "Watching: nothing to send."));
      return;
    }
    if (!mine()) {
      replace(actions, h("p.muted", null, view.current !== null ? `Waiting for ${who(view.current)}…` : ""));
      return;
    }
    const me = view.factions[context.seat];
    const usable = interactive();
    const offer = selected !== null ? offers.targets.get(selected) : undefined;
    const parts: (HTMLElement | null)[] = [h("p.nh-purse", null, `You have ⚡ ${me?.energy ?? 0} Energy.`)];
    if (offer) {
      parts.push(h("h4.nh-target-name", null, `Hex ${hexName(offer.target)}`));
      if (picking && offer.risk) parts.push(...pairButtons(offer, usable));
      else parts.push(...kindButtons(offer, usable));
    } else if (offers.targets.size) {
      parts.push(h("p.muted", null, touchScreen() ? "Tap a lit hex beside your territory." : "Pick a lit hex beside your territory: click it, or use the arrow keys (or Tab) and Enter."));
    } else {
      parts.push(h("p.muted", null, "No expansion you can pay for: end your turn."));
    }
    if (offers.endTurn) {
      const end = offers.endTurn;
      parts.push(
        h("button.nh-end.ghost", { type: "button", disabled: !usable, "data-testid": "nh-end-turn", onclick: () => send(end) }, "End turn ", h("kbd", null, "E")),
      );
    }
    replace(actions, parts);
  }

  function kindButtons(offer: TargetOffer, usable: boolean): HTMLElement[] {
    const out: HTMLElement[] = [];
    const safe = offer.safe;
    if (safe) {
      out.push(
        h(
          "button.nh-kind.nh-safe",
          { type: "button", disabled: !usable, "data-testid": "nh-safe", onclick: () => send(safe.option) },
          h("strong", null, "Safe ", h("kbd", null, "S")),
          h("span", null, `${safe.cost} ⚡ · claims this hex · sure`),
        ),
      );
    }
    const risk = offer.risk;
    if (risk) {
      const extra = Math.min(2, risk.bonusHexes.length);
      out.push(
        h(
          "button.nh-kind.nh-risk",
          { type: "button", disabled: !usable, "data-testid": "nh-risk", onclick: () => chooseRisk() },
          h("strong", null, "Risk ", h("kbd", null, "R")),
          h("span", null, `${risk.cost} ⚡ · 2d6, 9+ wins: ${oddsText(risk.odds)}`),
          h("span", null, `Win: this hex${extra ? ` + ${extra} bonus` : ""}, ${risk.refund} ⚡ back · lose: nothing`),
        ),
      );
    }
    if (!safe && !risk) out.push(h("p.muted", null, "Nothing you can pay for here."));
    return out;
  }

  function pairButtons(offer: TargetOffer, usable: boolean): HTMLElement[] {
    const risk = offer.risk!;
    const layoutNames = (hex: number) => `${DIRECTION_NAMES[directionOf(map!.layout, offer.target, hex)] ?? ""} ${hexName(hex)}`.trim();
    return [
      h("p.nh-pick", null, `Risk on ${hexName(offer.target)}: choose the two bonus hexes a 9+ claims.`),
      h(
        "div.nh-pairs",
        { role: "group", "aria-label": "Bonus hexes" },
        risk.options.map((option, n) => {
          const pair = bonusOf(option);
          return h(
            "button.nh-pair",
            {
              type: "button",
              disabled: !usable,
              "data-testid": `nh-pair-${n}`,
              onclick: () => send(option),
              onmouseenter: () => pointPair(pair),
              onfocus: () => pointPair(pair),
              onmouseleave: () => pointPair(null),
            },
            n < 9 ? h("kbd", null, String(n + 1)) : null,
            ` ${pair.map(layoutNames).join(" + ")}`,
          );
        }),
      ),
      h("button.ghost.nh-back", { type: "button", onclick: () => back() }, "Back ", h("kbd", null, "Esc")),
    ];
  }

  function drawResult(): void {
    const view = shown!;
    const outcome = view.outcome;
    result.hidden = !outcome;
    if (!outcome) return;
    const winners = winnersOf(outcome);
    const seat = context.seat;
    let title: string;
    // "You" only on the player's own board; a replay seen from a seat names that seat.
    if (seat !== null && context.seenAs) {
      const place = winners.includes(seat) ? (winners.length > 1 ? "shares the victory" : "wins") : `finishes ${ordinal(outcome.ranks[seat] ?? view.factions.length)}`;
      title = `${who(seat)} ${place}`;
    } else if (seat !== null && winners.includes(seat)) title = winners.length > 1 ? "You share the victory!" : "You win!";
    else if (seat !== null) title = `You finish ${ordinal(outcome.ranks[seat] ?? view.factions.length)}`;
    else title = winners.length > 1 ? `Shared victory: ${winners.map(who).join(" & ")}` : `${who(winners[0] ?? 0)} wins`;
    const reason = outcome.reason === "twelve_hexes" ? `${winners.map(who).join(" & ")} ${REASONS.twelve_hexes}.` : (REASONS[outcome.reason] ?? outcome.reason.replace(/_/g, " "));
    const order = view.factions.map((f) => f.seat).sort((a, b) => (outcome.ranks[a] ?? 9) - (outcome.ranks[b] ?? 9) || a - b);
    replace(
      result,
      h("h3.nh-result-title", { "data-testid": "nh-result-title" }, title),
      h("p.nh-result-reason", null, reason),
      h(
        "ol.nh-standings",
        null,
        order.map((s) =>
          h(
            `li${winners.includes(s) ? ".winner" : ""}`,
            { "data-seat": s, style: { "--faction": colourOf(view.factions[s]) } },
            h("span.nh-rank", null, ordinal(outcome.ranks[s] ?? 0)),
            h("span.nh-symbol", { "aria-hidden": "true" }, symbolOf(s)),
            h("span.nh-standing-name", null, who(s)),
            h("span.nh-standing-hexes", null, `${view.factions[s]?.hexes ?? outcome.scores[s] ?? 0} hexes`),
          ),
        ),
      ),
      outcome.details?.rounds ? h("p.muted", null, `${outcome.details.rounds} round${outcome.details.rounds === 1 ? "" : "s"}, ${outcome.details.turns ?? 0} turns.`) : null,
    );
  }

  function showRoll(roll: Roll, spinning: boolean): void {
    // The dice sit over the map: once the result has been read they give the hexes back.
    if (diceTimer) clearTimeout(diceTimer);
    diceTimer = spinning ? null : setTimeout(() => (diceBox.hidden = true), DICE_SHOWN_MS);
    diceBox.hidden = false;
    diceBox.dataset.state = spinning ? "rolling" : roll.success ? "success" : "fail";
    diceBox.style.setProperty("--faction", colourOf(shown?.factions[roll.seat]));
    diceTitle.textContent = `${who(roll.seat)} · Risk on ${hexName(roll.target)}`;
    if (spinning) {
      diceTotal.textContent = "Rolling… 9+ wins";
      return;
    }
    roll.dice.forEach((value, n) => dice[n] && setFace(dice[n]!, value));
    diceTotal.textContent = `${roll.dice.join(" + ")} = ${roll.total} · ${roll.success ? "Breakthrough!" : "Failed"}`;
  }

  // --- playing changes out in order -----------------------------------------------------------
  function apply(next: Frame, step: Step | null): void {
    steps += 1;
    element.dataset.steps = String(steps); // how many views have been shown (for tests)
    shown = next.view;
    offers = readOffers(next.legal);
    fresh = new Set(step ? [...step.claims.values()].flat() : []);
    if (selected !== null && !offers.targets.has(selected)) {
      selected = null;
      picking = false;
    }
    if (picking && !(selected !== null && offers.targets.get(selected)?.risk?.choose)) picking = false;
    pointedPair = null;
    showLog(logList, "neon_hex", logOf(next.view), { seat: who, hex: hexName });
    if (!step && shown.last_roll) showRoll(shown.last_roll, false);
    draw();
  }

  /** Show the next queued change, then wait as long as it deserves. */
  function playNext(): void {
    timer = null;
    if (destroyed) return;
    const next = queue.shift();
    if (!next) {
      settle();
      return;
    }
    const step = diff(shown!, next.view);
    const pace = (queue.length >= 3 ? 0.35 : queue.length >= 1 ? 0.7 : 1) * (reducedMotion() ? 0.3 : 1);
    if (step.roll) {
      const roll = step.roll;
      rolling = roll;
      showRoll(roll, true);
      stopDice = spin(dice);
      context.sound("dice");
      draw();
      timer = setTimeout(() => {
        stopDice?.();
        stopDice = null;
        rolling = null;
        showRoll(roll, false);
        context.sound(roll.success ? "success" : "fail");
        apply(next, step);
        if (roll.success) context.sound("claim");
        after(roll.success ? timing.claim * pace : timing.turn * pace);
      }, timing.roll * pace);
      return;
    }
    apply(next, step);
    const claimed = claimedCount(step) > 0;
    if (claimed) context.sound("claim");
    after((claimed ? timing.claim : step.turnChanged ? timing.turn : 0) * pace);
  }

  function after(wait: number): void {
    if (queue.length === 0) settle();
    timer = setTimeout(playNext, wait);
  }

  /** Nothing left to show: the controls follow the last view's `legal`. */
  function settle(): void {
    if (!shown) return;
    context.settled?.();
    const now = mine();
    if (now && !wasMine) context.sound("alert");
    wasMine = now;
    if (shown.outcome) setHint("The game is over.");
    else if (now && selected !== null) setHint(`Hex ${hexName(selected)}: Safe (S) or Risk (R)?`);
    else if (now) setHint(offers.targets.size ? "Your turn: pick a lit hex, then Safe (S) or Risk (R); E ends the turn." : "No expansion you can pay for: end your turn (E).");
    else if (shown.current !== null) setHint(context.seat === null ? `${who(shown.current)} to play.` : `Waiting for ${who(shown.current)}…`);
    draw();
  }

  // --- gestures -------------------------------------------------------------------------------
  function choose(hex: number): void {
    if (!shown) return;
    if (!interactive()) {
      if (!context.readOnly && context.seat !== null && !shown.outcome) setHint(busy || animating() ? "One moment…" : "It is not your turn.");
      return;
    }
    if (offers.targets.has(hex)) {
      selected = hex;
      picking = false;
      context.sound("tick");
      setHint(`Hex ${hexName(hex)}: Safe (S) or Risk (R)?`);
      draw();
      map?.setFocus(hex, document.activeElement?.closest?.(".nh-map") !== null);
      return;
    }
    const owner = shown.owners[hex];
    setHint(owner === context.seat ? `Hex ${hexName(hex)} is yours: pick a lit neutral hex beside your territory.` : `Hex ${hexName(hex)} is not a hex you can expand into now.`);
  }

  function point(hex: number | null): void {
    if (hex === null || !map || !shown) return;
    map.element.setAttribute("aria-description", map.describe(hex));
  }

  function pointPair(pair: number[] | null): void {
    pointedPair = pair;
    if (map && shown) map.draw(shown, names(), marks());
  }

  function chooseRisk(): void {
    const offer = selected !== null ? offers.targets.get(selected) : undefined;
    if (!offer?.risk || !interactive()) return;
    if (offer.risk.choose) {
      picking = true;
      draw();
      actions.querySelector<HTMLButtonElement>(".nh-pair")?.focus();
      setHint("Choose the bonus pair (1-9), or Escape to go back.");
    } else send(offer.risk.options[0]!);
  }

  function back(): void {
    if (picking) picking = false;
    else selected = null;
    pointedPair = null;
    draw();
    if (selected !== null) map?.setFocus(selected, true);
  }

  function send(option: Option): void {
    if (!interactive()) return;
    busy = true;
    setHint("");
    draw();
    context
      .act(option.command)
      .then(() => {
        picking = false;
      })
      .catch(() => context.sound("fail"))
      .finally(() => {
        busy = false;
        if (!destroyed && !animating()) settle();
      });
  }

  const onKey = (event: KeyboardEvent) => {
    if (typingInto(event.target)) return;
    if (event.altKey || event.ctrlKey || event.metaKey || !interactive()) return;
    const key = event.key.toLowerCase();
    const offer = selected !== null ? offers.targets.get(selected) : undefined;
    if (key === "s" && offer?.safe && !picking) send(offer.safe.option);
    else if (key === "r" && offer?.risk && !picking) chooseRisk();
    else if (key === "e" && offers.endTurn) send(offers.endTurn);
    else if (key === "escape" && selected !== null) back();
    else if (picking && /^[1-9]$/.test(key) && offer?.risk) {
      const option = offer.risk.options[Number(key) - 1];
      if (option) send(option);
      else return;
    } else return;
    event.preventDefault();
  };
  window.addEventListener("keydown", onKey);

  return {
    playsTurnAlert: true,
    saysTurn: true,
    busy: animating,
    update(view: unknown, legal: readonly LegalEntry[], previous: unknown | null): void {
      if (destroyed) return;
      if (!isNeonHexView(view)) {
        element.replaceChildren(waiting);
        map = null;
        shown = null;
        return;
      }
      ensureMap(view);
      if (!shown || previous === null || previous === undefined) {
        // A first view, or a fresh snapshot: draw it at once, dropping anything queued.
        queue.length = 0;
        if (timer) clearTimeout(timer);
        timer = null;
        stopDice?.();
        stopDice = null;
        rolling = null;
        const first = !shown;
        apply({ view, legal }, null);
        if (first) wasMine = mine();
        settle();
        return;
      }
      queue.push({ view, legal });
      if (timer === null && rolling === null) playNext();
      else draw(); // the controls wait for the queue
    },
    destroy(): void {
      destroyed = true;
      if (timer) clearTimeout(timer);
      if (diceTimer) clearTimeout(diceTimer);
      stopDice?.();
      window.removeEventListener("keydown", onKey);
      root.classList.remove("my-turn");
      element.remove();
    },
  };
}

/** The Neon Hex board factory (registered by the shell as `neon_hex`). */
const createBoard: BoardFactory = (root, context) => makeBoard(root, context);

export default createBoard;
