/**
 * The Neon Flip board (docs/rules/neon-flip.md, "Views" and "legal()").
 *
 * Draws the 6 × 6 grid (each colour with its symbol and pattern, locks with their seat, the
 * border glowing in the active player's colour), the player's hand with costs, the market,
 * Energy, the VP track, the secret objective, team mode, Overdrive's clock, PROTO-ZERO's
 * plays in solo, and the final tally. Picking an action (a card, Manual Flip, Lock) lights the
 * targets `legal` offers; pointing at or focusing a target shows its `preview` (and a Cascade
 * Surge's first cascade choices); a pending cascade lights its choices one flip at a time.
 *
 * Changes are played out in sequence: every view is a frame shown for a moment (PROTO-ZERO's
 * turn in three: its card, its pattern, then any overcharge), tiles that changed flip.
 *
 * Keys: 1–9 pick a card in hand, arrows move on the grid, Enter or Space chooses the focused
 * tile or control, Escape steps back (a picked tile, then the action).
 */

import "./neon_flip.css";

import { h, replace, svg, touchScreen } from "../../app/dom";
import { expandOptions, type Option } from "../../protocol/legal";
import { typingInto } from "../keys";
import { logOf, logPanel, seatNamer, showLog } from "../movelog";
import type { Board, BoardContext, BoardFactory, LegalEntry } from "../types";
import { actionOf, confirmOnly, costOf, edgeLabel, nextSteps, previewOf, type Side, type Step, type Target, targetKey } from "./actions";
import {
  aiCardSlots,
  type AiCard,
  type Card,
  CELLS,
  changedSlots,
  colourName,
  columnOf,
  describeAiCard,
  isNeonFlipView,
  KINDS,
  type NeonFlipView,
  OBJECTIVE_TEXT,
  REASONS,
  rowOf,
  seatMark,
  SIZE,
  slotAt,
  symbolOf,
} from "./view";

/** How long each frame of a sequence stays before the next is drawn, in milliseconds. */
export const STEP_MS = 320;
/** At most this many frames wait; older ones are skipped when changes pile up. */
const MAX_QUEUE = 4;
const VP_GOAL = 50;

interface Frame {
  view: NeonFlipView;
  legal: readonly LegalEntry[];
  /** PROTO-ZERO's card being played in this frame, its pattern outlined. */
  ai: AiCard | null;
  /** The tiles this frame flips are PROTO-ZERO's doing. */
  byAi?: boolean;
}

export interface BoardOptions {
  /** Frame duration; 0 draws every change at once (no sequence). */
  stepMs?: number;
}

export function makeBoard(root: HTMLElement, context: BoardContext, settings: BoardOptions = {}): Board {
  const stepMs = settings.stepMs ?? STEP_MS;
  const names = (seat: number): string => (seat < 0 ? "PROTO-ZERO" : (context.seatNames[seat] ?? `Seat ${seat + 1}`));

  let shown: NeonFlipView | null = null;
  let options: Option[] = [];
  let action: string | null = null;
  let picked: Target[] = [];
  let busy = false;
  let focusSlot = 15;
  let aiNow: AiCard | null = null;
  let byAi = false;
  const queue: Frame[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;

  // --- the DOM ------------------------------------------------------------------------------
  const element = h("div.nf-board", { "data-testid": "nf-board" });
  const status = h("p.nf-status", { "aria-live": "polite", "data-testid": "nf-status" });
  const badges = h("div.nf-badges");
  const clock = h("div.nf-clock", { hidden: true, "data-testid": "nf-clock", role: "timer" });
  const aiBanner = h("div.nf-ai-banner", { hidden: true, "aria-live": "polite", "data-testid": "nf-ai" });
  const grid = h("div.nf-grid", { role: "grid", "aria-label": "The Lumin Grid, 6 by 6" });
  const frame = h("div.nf-grid-frame", null, grid);
  const hint = h("p.nf-hint", { "aria-live": "polite", "data-testid": "nf-hint" });
  const actionBar = h("div.nf-actionbar", { "data-testid": "nf-actionbar" });
  const you = h("section.nf-you", { "aria-label": "You" });
  const hand = h("div.nf-hand", { role: "group", "aria-label": "Your hand", "data-testid": "nf-hand" });
  const controls = h("div.nf-controls");
  const offers = h("section.nf-offers", { hidden: true, "data-testid": "nf-offers" });
  const market = h("div.nf-market", { role: "group", "aria-label": "Market", "data-testid": "nf-market" });
  const players = h("ol.nf-players", { "aria-label": "Players and the VP track", "data-testid": "nf-players" });
  const proto = h("section.nf-proto", { hidden: true, "data-testid": "nf-proto" });
  const tally = h("section.nf-tally", { hidden: true, "data-testid": "nf-tally" });
  const moveLog = logPanel("nf-log");
  const logNamer = { seat: seatNamer(context) };
  const piles = h("p.nf-piles");

  const tiles: HTMLButtonElement[] = [];
  const edges: Record<Side, HTMLButtonElement[]> = { left: [], right: [], top: [], bottom: [] };
  const edgeButton = (side: Side, index: number): HTMLButtonElement => {
    const button = h("button.nf-edge", { type: "button", "data-side": side, "data-index": index, tabindex: -1 });
    button.onclick = () => activate({ kind: "edge", side, index });
    button.onmouseenter = button.onfocus = () => hover({ kind: "edge", side, index });
    button.onmouseleave = () => hover(null);
    edges[side].push(button);
    return button;
  };
  const cornerCell = () => h("span.nf-corner", { "aria-hidden": "true" });
  grid.append(cornerCell());
  for (let c = 1; c <= SIZE; c++) grid.append(edgeButton("top", c));
  grid.append(cornerCell());
  for (let r = 1; r <= SIZE; r++) {
    grid.append(edgeButton("left", r));
    for (let c = 1; c <= SIZE; c++) {
      const slot = slotAt(r, c)!;
      const tile = h("button.nf-tile", { type: "button", role: "gridcell", "data-slot": slot, tabindex: slot === focusSlot ? 0 : -1 });
      tile.onclick = () => activate({ kind: "tile", slot });
      tile.onmouseenter = () => hover({ kind: "tile", slot });
      tile.onfocus = () => {
        focusSlot = slot;
        hover({ kind: "tile", slot });
      };
      tile.onmouseleave = () => hover(null);
      tiles.push(tile);
      grid.append(tile);
    }
    grid.append(edgeButton("right", r));
  }
  grid.append(cornerCell());
  for (let c = 1; c <= SIZE; c++) grid.append(edgeButton("bottom", c));
  grid.append(cornerCell());
  grid.addEventListener("keydown", (event) => {
    const moves: Record<string, [number, number]> = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const move = moves[event.key];
    if (!move || !(event.target as HTMLElement).classList.contains("nf-tile")) return;
    event.preventDefault();
    const row = Math.min(SIZE, Math.max(1, rowOf(focusSlot) + move[0]));
    const column = Math.min(SIZE, Math.max(1, columnOf(focusSlot) + move[1]));
    moveFocus(slotAt(row, column)!);
  });

  element.append(
    h("header.nf-head", null, status, badges, clock),
    h(
      "div.nf-layout",
      null,
      h("div.nf-main", null, aiBanner, frame, hint, actionBar),
      h(
        "div.nf-side",
        null,
        offers,
        tally,
        context.seat !== null ? you : h("section.nf-you", null, h("p.muted", null, "The public view: hands and objectives stay hidden until the end.")),
        h("section.nf-market-box", null, h("h4", null, "Market"), market, piles),
        proto,
        h("section.nf-players-box", null, h("h4", null, "Players · VP track"), players),
        moveLog.panel,
      ),
    ),
  );
  root.append(element);

  const onKey = (event: KeyboardEvent): void => {
    if (typingInto(event.target)) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "Escape") {
      if (picked.length) {
        picked = picked.slice(0, -1);
        redraw();
        event.preventDefault();
      } else if (action && action !== "cascade") {
        select(null);
        event.preventDefault();
      }
      return;
    }
    if (/^[1-9]$/.test(event.key) && shown?.you) {
      const card = shown.you.hand[Number(event.key) - 1];
      if (!card) return;
      if (shown.phase === "discard") {
        const discard = options.find((o) => o.command.type === "discard" && o.command.card === card.id);
        if (discard) send(discard);
      } else if (actionOptions(card.id).length) select(card.id);
      event.preventDefault();
    }
  };
  window.addEventListener("keydown", onKey);

  const ticker = setInterval(drawClock, 250);

  // --- choosing -----------------------------------------------------------------------------
  function actionOptions(key: string | null): Option[] {
    return key === null ? [] : options.filter((o) => actionOf(o) === key);
  }

  function steps(): Map<string, Step> {
    return nextSteps(actionOptions(action), picked, names);
  }

  function select(key: string | null): void {
    action = key;
    picked = [];
    if (key) context.sound("tick");
    redraw();
    if (key) restoreFocus("");
  }

  function activate(target: Target): void {
    if (context.readOnly || busy || !shown) return;
    const step = steps().get(targetKey(target));
    if (!step) {
      if (!action && target.kind === "tile" && options.length) hint.textContent = "Pick a card, Manual Flip or Lock first; then a lit tile.";
      return;
    }
    if (step.complete) {
      send(step.complete);
      return;
    }
    picked = [...picked, target];
    context.sound("tick");
    redraw();
  }

  function send(option: Option): void {
    if (busy || context.readOnly) return;
    busy = true;
    element.classList.add("nf-busy");
    context
      .act(option.command)
      .then(() => {
        if (action !== "cascade") {
          action = null;
          picked = [];
        }
      })
      .catch(() => context.sound("fail"))
      .finally(() => {
        busy = false;
        element.classList.remove("nf-busy");
        redraw();
      });
  }

  function moveFocus(slot: number): void {
    tiles[focusSlot - 1]!.tabIndex = -1;
    focusSlot = slot;
    tiles[slot - 1]!.tabIndex = 0;
    tiles[slot - 1]!.focus();
  }

  /** Outline what a target would change, and say it in the hint line. */
  function hover(target: Target | null): void {
    for (const tile of tiles) tile.classList.remove("nf-preview", "nf-cascade-next");
    if (!target || !shown) return;
    const step = steps().get(targetKey(target));
    if (!step) return;
    if (!step.complete) {
      hint.textContent = `${describeTarget(target)}: then pick the next target.`;
      return;
    }
    const { slots, cascade } = previewOf(step.complete);
    for (const slot of slots) tiles[slot - 1]?.classList.add("nf-preview");
    for (const slot of cascade) tiles[slot - 1]?.classList.add("nf-cascade-next");
    const cost = costOf(step.complete);
    const what =
      step.complete.command.type === "cascade"
        ? `Cascade into slot ${slots[0] ?? "?"}`
        : slots.length
          ? `${describeTarget(target)}: changes ${slots.length} tile${slots.length === 1 ? "" : "s"} (${slots.join(", ")})`
          : cascade.length
            ? `${describeTarget(target)}: a cascade may start into ${cascade.join(", ")}`
            : describeTarget(target);
    hint.textContent = touchScreen()
      ? `${shortTarget(target)}: ${slots.length ? `changes ${slots.length} tile${slots.length === 1 ? "" : "s"}` : cascade.length ? "may start a cascade" : "plays it"}${cost !== null ? ` · ${cost}⚡` : ""}. Tap to play.`
      : `${what}${cost !== null ? ` · ${cost} Energy` : ""}. Enter or click to play.`;
  }

  /** A target in a few words, for a phone's one-line hint. */
  function shortTarget(target: Target): string {
    if (target.kind === "tile") return `Slot ${target.slot}`;
    if (target.kind === "edge") return edgeLabel(target.side, target.index, isShift());
    return target.label;
  }

  function describeTarget(target: Target): string {
    if (target.kind === "tile") {
      const colour = shown?.board[target.slot - 1] ?? "";
      return `Slot ${target.slot} (row ${rowOf(target.slot)}, column ${columnOf(target.slot)}, ${colourName(colour)})`;
    }
    if (target.kind === "edge") return edgeLabel(target.side, target.index, isShift());
    return target.label;
  }

  function isShift(): boolean {
    return actionOptions(action).some((o) => typeof o.command.step === "number");
  }

  // --- frames -------------------------------------------------------------------------------
  /** The frames leading from `before` to `after`: PROTO-ZERO's card first, then its
   *  pattern's flips, then the rest. */
  function framesFor(before: NeonFlipView, after: NeonFlipView, legal: readonly LegalEntry[]): Frame[] {
    const was = before.proto_zero?.played.length ?? 0;
    const played = after.proto_zero?.played ?? [];
    if (played.length <= was || !played.length) return [{ view: after, legal, ai: null }];
    const card = played[played.length - 1]!;
    const pattern = new Set(aiCardSlots(card));
    const mixed = before.board.map((colour, i) => (pattern.has(i + 1) ? after.board[i]! : colour));
    const base: NeonFlipView = { ...after, outcome: undefined, phase: after.phase === "over" ? "main" : after.phase };
    const announce: Frame = { view: { ...base, board: [...before.board] }, legal: [], ai: card };
    // Nothing but the pattern changed (no overcharge): its flips are the last frame.
    if (changedSlots(mixed, after.board).length === 0) return [announce, { view: after, legal, ai: null, byAi: true }];
    return [announce, { view: { ...base, board: mixed }, legal: [], ai: card, byAi: true }, { view: after, legal, ai: null, byAi: true }];
  }

  function pump(): void {
    const next = queue.shift();
    if (!next) return;
    draw(next, true);
    if (queue.length === 0) context.settled?.();
    // The next frame waits its turn, whether it is queued already or comes later.
    timer = setTimeout(() => {
      timer = null;
      pump();
    }, stepMs);
  }

  let frames = 0;

  function draw(next: Frame, animate: boolean): void {
    const before = shown;
    element.dataset.frame = String(++frames);
    shown = next.view;
    aiNow = next.ai;
    byAi = next.byAi === true;
    options = context.readOnly ? [] : expandOptions(next.legal as Record<string, unknown>[]);
    // A pending cascade is the only action; otherwise keep the pick while it is still legal.
    if (options.some((o) => o.command.type === "cascade")) {
      if (action !== "cascade") picked = [];
      action = "cascade";
    } else if (action && !actionOptions(action).length) {
      action = null;
      picked = [];
    } else if (action && picked.length && !steps().size) picked = [];
    const changed = before && animate ? changedSlots(before.board, shown.board) : [];
    drawGrid(changed);
    redraw();
    if (before && animate) sounds(before, shown, changed);
    alertTurn(shown, before !== null && animate);
  }

  function sounds(before: NeonFlipView, after: NeonFlipView, changed: number[]): void {
    const me = after.you?.colour;
    if (after.outcome && !before.outcome) {
      const mine = context.seat;
      context.sound(mine !== null && after.outcome.ranks[mine] === 1 ? "win" : mine !== null ? "lose" : "success");
      return;
    }
    if (changed.length) {
      const claimed = me && after.turn === context.seat && changed.some((slot) => after.board[slot - 1] === me);
      context.sound(claimed && (before.pending_cascade || after.pending_cascade) ? "claim" : "flip");
    }
    if (after.checkpoints > before.checkpoints) context.sound("success");
  }

  /** "alert" once per turn of ours, when it becomes playable (PROTO-ZERO's frames first). */
  let alerted = -1;
  function alertTurn(view: NeonFlipView, animate: boolean): void {
    if (!myTurn(view) || options.length === 0 || view.turns === alerted) return;
    alerted = view.turns;
    if (animate) context.sound("alert");
  }

  function myTurn(view: NeonFlipView): boolean {
    return context.seat !== null && view.turn === context.seat && (view.phase === "main" || view.phase === "discard");
  }

  // --- drawing ------------------------------------------------------------------------------
  function redraw(): void {
    if (!shown) return;
    const active = document.activeElement as HTMLElement | null;
    const had = active !== null && element.contains(active) ? focusSelector(active) : null;
    drawTargets();
    drawHead();
    drawActionBar();
    drawYou();
    drawOffers();
    drawMarket();
    drawPlayers();
    drawProto();
    drawTally();
    drawClock();
    showLog(moveLog.list, "neon_flip", logOf(shown), logNamer);
    if (had !== null && !element.contains(document.activeElement)) restoreFocus(had);
  }

  /** A selector finding the same control after a redraw rebuilt it. */
  function focusSelector(active: HTMLElement): string {
    for (const key of ["card", "testid", "objective", "key"]) {
      const value = active.dataset[key];
      if (value) return `[data-${key}="${value}"]`;
    }
    return "";
  }

  function restoreFocus(selector: string): void {
    const candidates = [selector, ".nf-confirm", ".nf-choice", ".nf-tile.lit", ".nf-edge.lit", ".nf-stop", ".nf-card.playable", ".nf-card.discardable", ".nf-objective-offer:not([disabled])", ".nf-end"];
    for (const candidate of candidates) {
      const found = candidate ? element.querySelector<HTMLElement>(`${candidate}:not([disabled])`) : null;
      if (found) {
        if (found.classList.contains("nf-tile")) moveFocus(Number(found.dataset.slot));
        else found.focus();
        return;
      }
    }
  }

  function drawGrid(changed: number[]): void {
    const view = shown!;
    const locks = new Map(view.locks.map((lock) => [lock.slot, lock.seat]));
    const pattern = new Set(aiNow ? aiCardSlots(aiNow) : []);
    const flipped = new Set(changed);
    view.board.forEach((colour, i) => {
      const slot = i + 1;
      const tile = tiles[i]!;
      const lock = locks.get(slot);
      tile.className = `nf-tile c-${colour}`;
      tile.dataset.colour = colour;
      replace(
        tile,
        h("span.nf-symbol", { "aria-hidden": "true" }, symbolOf(colour)),
        lock !== undefined ? h("span.nf-lock", { "aria-hidden": "true", title: `Locked by ${names(lock)}` }, padlock(), seatMark(lock)) : null,
      );
      tile.classList.toggle("nf-locked", lock !== undefined);
      tile.classList.toggle("nf-ai-pattern", pattern.has(slot));
      tile.classList.toggle("nf-corner-slot", slot === 1 || slot === SIZE || slot === CELLS - SIZE + 1 || slot === CELLS);
      if (flipped.has(slot)) {
        void tile.offsetWidth; // restart the animation
        tile.classList.add("nf-flip");
        if (byAi) tile.classList.add("nf-by-ai");
      }
      tile.setAttribute("aria-label", `Slot ${slot}, row ${rowOf(slot)}, column ${columnOf(slot)}: ${colourName(colour)} ${symbolOf(colour)}${lock !== undefined ? `, locked by ${names(lock)}` : ""}`);
    });
    const active = aiNow ? view.proto_zero?.colour : view.turn !== null && view.phase !== "over" ? view.players[view.turn]?.colour : undefined;
    frame.dataset.active = active ?? "";
    frame.className = `nf-grid-frame${active ? ` glow-${active}` : ""}`;
  }

  function drawTargets(): void {
    const view = shown!;
    const next = steps();
    const pending = view.pending_cascade;
    const from = new Set(pending?.from ?? []);
    const pickedSlots = new Set(picked.filter((t) => t.kind === "tile").map((t) => (t as { slot: number }).slot));
    tiles.forEach((tile, i) => {
      const slot = i + 1;
      const step = next.get(`tile:${slot}`);
      tile.classList.toggle("lit", step !== undefined);
      tile.classList.toggle("nf-picked", pickedSlots.has(slot));
      tile.classList.toggle("nf-cascade-from", from.has(slot));
      tile.classList.remove("nf-preview", "nf-cascade-next");
      const label = tile.getAttribute("aria-label")?.replace(/\. Choose\.$/, "") ?? "";
      tile.setAttribute("aria-label", step ? `${label}. Choose.` : label);
    });
    const shift = isShift();
    for (const side of ["left", "right", "top", "bottom"] as const) {
      edges[side].forEach((button, i) => {
        const step = next.get(`edge:${side}:${i + 1}`);
        button.classList.toggle("lit", step !== undefined);
        button.tabIndex = step ? 0 : -1;
        button.disabled = !step;
        const arrow = shift ? { left: "◀", right: "▶", top: "▲", bottom: "▼" }[side] : side === "left" || side === "right" ? "↔" : "↕";
        button.textContent = step ? arrow : "";
        button.setAttribute("aria-label", edgeLabel(side, i + 1, shift));
      });
    }
  }

  function drawHead(): void {
    const view = shown!;
    const mine = myTurn(view) && options.length > 0;
    element.dataset.phase = view.phase;
    element.dataset.mode = view.mode;
    element.classList.toggle("nf-my-turn", mine);
    root.classList.toggle("my-turn", mine);
    const whose = view.turn !== null ? names(view.turn) : "";
    // The person at the screen is addressed only when the board is theirs (not a replay seen
    // from a seat: that seat is named like any other).
    const me = (seat: number | null) => seat !== null && seat === context.seat && !context.seenAs;
    let text: string;
    if (view.phase === "over") text = "Game over.";
    else if (view.phase === "objectives")
      text = view.you && !view.you.objective ? (context.seenAs ? `${names(view.you.seat)} chooses a secret objective.` : "Choose your secret objective.") : "Waiting for everyone to choose an objective…";
    else if (aiNow) text = `PROTO-ZERO plays ${describeAiCard(aiNow)}.`;
    else if (view.pending_cascade) text = me(view.pending_cascade.seat) ? "Cascade! Pick the next flip, or stop." : `${names(view.pending_cascade.seat)} is cascading…`;
    else if (view.phase === "discard") text = me(view.turn) ? "Discard down to 6 cards." : `${whose} discards down to 6.`;
    else if (me(view.turn)) text = "Your turn.";
    else text = `${whose}'s turn.`;
    status.textContent = text;
    const threshold = view.threshold ?? "?";
    const mode = view.mode === "solo" ? badge("Cyber-Solitaire vs PROTO-ZERO", "Solo vs PROTO-ZERO") : view.mode === "overdrive" ? badge(`Neon Overdrive · ${threshold} tiles win`, `Overdrive · ${threshold} to win`) : badge("Classic Battle", "Classic");
    const round = view.mode === "solo" ? `AI cards ${view.proto_zero?.played.length ?? 0}/24` : `Checkpoint ${view.checkpoints}/${view.rounds}`;
    replace(
      badges,
      h("span.nf-badge", { "data-testid": "nf-mode" }, mode),
      view.teams ? h("span.nf-badge.nf-teams", { "data-testid": "nf-teams-badge" }, badge("Teams: ◆ Cyan + ▲ Green vs ● Pink + ★ Yellow", "Teams ◆▲ vs ●★")) : null,
      view.obstacles ? h("span.nf-badge", null, badge("Obstacles: ▲ ★ count for no one", "Obstacles ▲★")) : null,
      h("span.nf-badge", null, round),
      view.surcharge ? h("span.nf-badge.nf-warn", null, badge(`Drained: +${view.surcharge} per play`, `Drained +${view.surcharge}`)) : null,
      view.round_over ? h("span.nf-badge.nf-warn", null, badge("Round over: checkpoint at turn end", "Last turn of the round")) : null,
    );
  }

  function drawClock(): void {
    const view = shown;
    const c = view?.clock;
    clock.hidden = !c;
    if (!view || !c) return;
    let text: string;
    if (c.expired) text = "◷ Time's up: last turn";
    else if (c.deadline === null) text = `◷ ${c.minutes}:00 (starts with the first turn)`;
    else {
      const left = Math.max(0, c.deadline - context.serverNow());
      const minutes = Math.floor(left / 60);
      const seconds = Math.floor(left % 60);
      text = `◷ ${minutes}:${String(seconds).padStart(2, "0")}`;
      clock.classList.toggle("nf-low", left < 60);
    }
    if (view.phase === "over") text = "◷ stopped";
    if (clock.textContent !== text) clock.textContent = text;
  }

  function drawActionBar(): void {
    const view = shown!;
    const parts: (HTMLElement | string | null)[] = [];
    const next = steps();
    if (action === "cascade" && view.pending_cascade) {
      const p = view.pending_cascade;
      parts.push(h("span.nf-action-name", null, touchScreen() ? `Cascade ${p.made + 1} of ${p.limit}: tap a lit tile` : `Cascade ${p.made + 1} of up to ${p.limit}: pick a lit tile`));
      const stop = options.find((o) => o.command.type === "stop_cascade");
      if (stop) parts.push(h("button.nf-stop", { type: "button", "data-testid": "nf-stop-cascade", onclick: () => send(stop) }, touchScreen() ? "Stop" : "Stop cascade"));
      const next = `${p.choices.length} tile${p.choices.length === 1 ? "" : "s"} can flip next`;
      hint.textContent = touchScreen() ? `Cascade: ${next}; ${p.made} made so far.` : `Cascade: ${next} (${p.choices.join(", ")}); ${p.made} made so far.`;
    } else if (action) {
      const opts = actionOptions(action);
      const card = view.you?.hand.find((c) => c.id === action);
      const title = card ? card.name : action === "manual_flip" ? "Manual Flip" : "Lock";
      const cost = opts.length ? costOf(opts[0]!) : null;
      parts.push(h("span.nf-action-name", null, `${title}${cost !== null ? ` (${cost}⚡)` : ""}`));
      const confirm = confirmOnly(opts, names);
      if (confirm) {
        parts.push(h("button.nf-confirm.primary", { type: "button", "data-testid": "nf-confirm", onclick: () => send(confirm) }, `Play ${title}`));
        hint.textContent = `${card ? (KINDS[card.kind]?.text ?? "") : ""} ${touchScreen() ? `Tap Play ${title} or Cancel.` : "Press Enter to play, Escape to cancel."}`;
      } else {
        for (const step of next.values()) {
          if (step.target.kind !== "button") continue;
          const target = step.target;
          const label = target.key.startsWith("colour:") ? `${symbolOf(target.label)} ${colourName(target.label)}` : target.label;
          parts.push(h("button.nf-choice", { type: "button", "data-key": target.key, onclick: () => activate(target) }, label));
        }
        const kinds = new Set([...next.values()].map((s) => s.target.kind));
        hint.textContent = kinds.has("button")
          ? "Choose one above."
          : kinds.has("edge")
            ? "Pick a lit arrow at the grid's edge (a row or column)."
            : picked.length
              ? "Now pick the second tile."
              : touchScreen()
                ? "Tap a lit tile."
                : "Pick a lit tile; hover or focus one to see what it changes.";
      }
      parts.push(h("button.nf-cancel", { type: "button", onclick: () => select(null) }, touchScreen() ? "Cancel" : "Cancel (Esc)"));
    } else if (view.phase === "over") {
      hint.textContent = "The game is over: see the final tally.";
    } else if (myTurn(view) && view.phase === "discard") {
      hint.textContent = touchScreen() ? "Too many cards: tap one to discard." : "Too many cards: pick one to discard (1–9).";
    } else if (myTurn(view) && options.length) {
      hint.textContent = touchScreen() ? "Tap a card, flip or lock, buy, or End turn." : "Play a card (1–9), flip or lock, buy from the market, or end your turn.";
    } else if (view.phase !== "objectives") {
      hint.textContent = context.readOnly ? "" : "Waiting…";
    } else hint.textContent = "";
    replace(actionBar, parts);
    actionBar.hidden = parts.length === 0;
  }

  function cardElement(card: Card, extra: Record<string, unknown>, classes: string, key?: number): HTMLElement {
    const kind = KINDS[card.kind];
    return h(
      `button.nf-card${classes}`,
      { type: "button", "data-card": card.id, "data-kind": card.kind, title: kind?.text ?? card.name, ...extra },
      h("span.nf-cost", { "aria-label": `cost ${card.cost} Energy` }, `${card.cost}⚡`),
      h("span.nf-glyph", { "aria-hidden": "true" }, kind?.glyph ?? "?"),
      h("span.nf-name", null, card.name),
      key !== undefined ? h("kbd", null, String(key)) : null,
    );
  }

  function drawYou(): void {
    const view = shown!;
    if (context.seat === null || !view.you) return;
    const me = view.players[view.you.seat];
    const discarding = view.phase === "discard" && view.turn === context.seat;
    replace(
      hand,
      view.you.hand.length
        ? view.you.hand.map((card, i) => {
            const discard = discarding ? options.find((o) => o.command.type === "discard" && o.command.card === card.id) : undefined;
            const playable = actionOptions(card.id).length > 0;
            const classes = `${playable ? ".playable" : ""}${action === card.id ? ".selected" : ""}${discard ? ".discardable" : ""}`;
            return cardElement(
              card,
              {
                "aria-pressed": String(action === card.id),
                "aria-label": `${i + 1}: ${card.name}, ${card.cost} Energy. ${KINDS[card.kind]?.text ?? ""}${discard ? " Discard it." : playable ? "" : " Not playable now."}`,
                disabled: context.readOnly || (!playable && !discard),
                onclick: () => (discard ? send(discard) : select(action === card.id ? null : card.id)),
              },
              classes,
              i < 9 ? i + 1 : undefined,
            );
          })
        : h("p.muted", null, context.seenAs ? `${names(view.you.seat)}'s hand is empty.` : "Your hand is empty."),
    );
    const flip = actionOptions("manual_flip");
    const lock = actionOptions("lock");
    const end = options.find((o) => o.command.type === "end_turn");
    // During the player's turn Manual flip and Lock keep their place when they cannot be
    // afforded (disabled, saying why), so the controls never jump under the thumb.
    const turn = end !== undefined;
    replace(
      controls,
      flip.length
        ? h(`button.nf-manual${action === "manual_flip" ? ".selected" : ""}`, { type: "button", "data-testid": "nf-manual-flip", onclick: () => select(action === "manual_flip" ? null : "manual_flip") }, `Manual flip (${costOf(flip[0]!)}⚡, ${view.manual_flips_left} left)`)
        : turn
          ? h("button.nf-manual", { type: "button", disabled: true, "data-testid": "nf-manual-flip", title: view.manual_flips_left > 0 ? "Not enough Energy for a manual flip now." : "No manual flip left this game." }, view.manual_flips_left > 0 ? "Manual flip (not enough ⚡)" : "Manual flip (none left)")
          : null,
      lock.length
        ? h(`button.nf-lock-button${action === "lock" ? ".selected" : ""}`, { type: "button", "data-testid": "nf-lock", onclick: () => select(action === "lock" ? null : "lock") }, `Lock a tile (${costOf(lock[0]!)}⚡)`)
        : turn
          ? h("button.nf-lock-button", { type: "button", disabled: true, "data-testid": "nf-lock", title: "No tile can be locked with the Energy you have now." }, "Lock a tile (not now)")
          : null,
      end ? h("button.nf-end.primary", { type: "button", "data-testid": "nf-end-turn", onclick: () => send(end) }, "End turn") : null,
    );
    const objective = view.you.objective;
    replace(
      you,
      h("h4", null, context.seenAs ? names(view.you.seat) : "You"),
      h(
        "div.nf-me",
        null,
        h(`span.nf-chip.c-${view.you.colour}`, null, `${symbolOf(view.you.colour)} ${colourName(view.you.colour)}`),
        h("span.nf-energy", { "data-testid": "nf-energy", title: "Energy" }, `⚡ ${me?.energy ?? 0}`),
        h("span.nf-vp", { "data-testid": "nf-my-vp" }, `${me?.vp ?? 0} VP`),
      ),
      h("p.nf-objective", { "data-testid": "nf-objective", title: objective ? (OBJECTIVE_TEXT[objective.id] ?? "") : "" }, "Objective: ", objective ? h("strong", null, objective.name) : h("span.muted", null, "not chosen yet")),
      h("h4", null, `Hand (${view.you.hand.length})`),
      hand,
      controls,
    );
  }

  function drawOffers(): void {
    const view = shown!;
    const choices = options.filter((o) => o.command.type === "choose_objective");
    offers.hidden = view.phase !== "objectives" || !view.you;
    if (offers.hidden) return;
    replace(
      offers,
      h("h4", null, context.seenAs && view.you ? `${names(view.you.seat)}'s secret objective` : "Your secret objective"),
      choices.length
        ? h(
            "div.nf-offer-list",
            null,
            (view.you?.offers ?? []).map((offer) => {
              const option = choices.find((o) => o.command.objective === offer.id);
              return h(
                "button.nf-objective-offer",
                { type: "button", "data-objective": offer.id, disabled: !option, onclick: () => option && send(option) },
                h("strong.nf-objective-name", null, offer.name),
                OBJECTIVE_TEXT[offer.id] ? h("span.nf-objective-text", null, OBJECTIVE_TEXT[offer.id]) : null,
              );
            }),
          )
        : h("p.muted", null, view.you?.objective ? `${context.seenAs ? `${names(view.you.seat)} keeps` : "You keep"} ${view.you.objective.name}.` : "Waiting…"),
    );
  }

  function drawMarket(): void {
    const view = shown!;
    replace(
      market,
      view.market.map((card) => {
        if (!card) return h("span.nf-card.nf-empty", null, "empty");
        const buy = options.find((o) => o.command.type === "buy_card" && o.command.card === card.id);
        return cardElement(card, { "aria-label": `Market: ${card.name}, ${card.cost} Energy to play${buy ? `; buy for ${costOf(buy)} Energy` : ""}`, disabled: !buy || context.readOnly, onclick: () => buy && send(buy) }, buy ? ".buyable" : "");
      }),
    );
    replace(piles, `Draw pile ${view.draw_pile} · discards ${view.discard.length}${options.some((o) => o.command.type === "buy_card") ? " · buying costs 1⚡" : ""}`);
  }

  function drawPlayers(): void {
    const view = shown!;
    const row = (p: NeonFlipView["players"][number]): HTMLElement => {
      const turn = p.seat === view.turn && view.phase !== "over";
      const line = h(
        "div.nf-player-line",
        null,
        h("span.nf-turn-mark", { "aria-hidden": "true" }, turn ? "▶" : ""),
        h("span.nf-seat", null, `${seatMark(p.seat)} ${names(p.seat)}${p.seat === context.seat && !context.seenAs ? " (you)" : ""}`),
        h(`span.nf-chip.c-${p.colour}`, null, `${symbolOf(p.colour)} ${colourName(p.colour)}`),
      );
      const track = h(
        "div.nf-track",
        { role: "meter", "aria-valuemin": 0, "aria-valuemax": VP_GOAL, "aria-valuenow": p.vp, "aria-label": `${names(p.seat)}: ${p.vp} VP` },
        h("span.nf-track-fill", { style: { width: `${Math.min(100, (p.vp / VP_GOAL) * 100)}%` } }),
        h("span.nf-track-text", null, `${p.vp} VP`),
      );
      const stats = h(
        "div.nf-stats.muted",
        null,
        `⚡${p.energy} · ${p.tiles} tiles · ${p.hand} cards · locks ${p.locks.length}/2 · chain ${p.longest_chain}`,
        p.drain_next ? h("span.nf-warn", null, ` · drained +${p.drain_next}`) : null,
        view.phase === "objectives" ? ` · ${p.objective_chosen ? "objective kept" : "choosing…"}` : null,
      );
      return h(`li.nf-player.c-${p.colour}${turn ? ".turn" : ""}${p.seat === context.seat ? ".me" : ""}`, { "data-seat": p.seat }, line, track, stats);
    };
    if (view.teams) {
      const teams = [0, 1].map((team) => view.players.filter((p) => p.team === team));
      replace(
        players,
        teams.map((members, team) =>
          h(
            "li.nf-team",
            { "data-team": team },
            h("div.nf-team-head", null, `Team ${members.map((p) => `${symbolOf(p.colour)} ${colourName(p.colour)}`).join(" + ")}: ${members.reduce((sum, p) => sum + p.vp, 0)} VP`),
            h("ol", null, members.map(row)),
          ),
        ),
      );
    } else replace(players, view.players.map(row));
  }

  function drawProto(): void {
    const view = shown!;
    const ai = view.proto_zero;
    proto.hidden = !ai;
    const shownCard = aiNow ?? ai?.played[ai.played.length - 1] ?? null;
    aiBanner.hidden = !shownCard;
    aiBanner.classList.toggle("nf-live", aiNow !== null);
    if (shownCard) replace(aiBanner, h("strong", null, "PROTO-ZERO"), `${aiNow ? " plays" : " played"} ${describeAiCard(shownCard)}`);
    if (!ai) return;
    const last = ai.played.slice(-5).reverse();
    replace(
      proto,
      h("h4", null, `${symbolOf(ai.colour)} PROTO-ZERO`),
      h("p", null, `⚡ ${ai.energy}/4 (at 4: overcharge a 3 × 3 block) · ${ai.cards_left} cards left${ai.drained ? ` · drained ×${ai.drained}` : ""}`),
      h("p.muted", null, "A checkpoint counts your Cyan tiles after every 6th AI card; win with 50 VP or by wiping Pink out."),
      last.length ? h("ol.nf-ai-played", { "aria-label": "PROTO-ZERO's last cards" }, last.map((card) => h("li", null, describeAiCard(card)))) : null,
    );
  }

  function drawTally(): void {
    const view = shown!;
    const outcome = view.outcome;
    tally.hidden = !outcome;
    if (!outcome) return;
    const reason = REASONS[outcome.reason] ?? outcome.reason;
    // "You" only on the player's own board; a replay seen from a seat names it.
    const player = context.seat !== null && context.seenAs ? names(context.seat) : null;
    if (view.mode === "solo") {
      const won = outcome.details.winner === "human";
      const who = player ?? (context.seat === null ? names(0) : null);
      replace(
        tally,
        h("h3", null, won ? `${who ?? "You"} beat PROTO-ZERO!` : "PROTO-ZERO wins"),
        h("p", null, reason),
        h("p", { "data-testid": "nf-final-vp" }, `${who ? `${who}'s` : "Your"} VP: ${outcome.scores[0] ?? 0} · AI cards played ${outcome.details.ai_cards_played ?? 0} · Pink tiles left ${outcome.details.pink_left ?? 0}`),
      );
      return;
    }
    const tallies = [...(outcome.details.tallies ?? [])].sort((a, b) => (outcome.ranks[a.seat] ?? 9) - (outcome.ranks[b.seat] ?? 9));
    const mine = context.seat !== null ? outcome.ranks[context.seat] : undefined;
    const place = (rank: number) => (rank === 2 ? "2nd" : rank === 3 ? "3rd" : `${rank}th`);
    const title =
      mine === undefined
        ? "Final tally"
        : player !== null
          ? mine === 1
            ? outcome.winners.length > 1 && !view.teams
              ? `${player} shares the victory`
              : `${player} wins`
            : `${player} finishes ${place(mine)}`
          : mine === 1
            ? outcome.winners.length > 1 && !view.teams
              ? "You share the victory!"
              : "You win!"
            : `You finish ${place(mine)}`;
    replace(
      tally,
      h("h3", null, title),
      h("p", null, reason, outcome.tiebreak ? ` Tie broken by ${outcome.tiebreak.replace("_", " ")}.` : ""),
      outcome.details.team_scores ? h("p.nf-team-scores", null, `Team totals: ◆+▲ ${outcome.details.team_scores[0]} · ●+★ ${outcome.details.team_scores[1]}`) : null,
      h(
        "table.nf-tally-table",
        null,
        h("thead", null, h("tr", null, ["#", "Player", "VP", "Circuits", "Objective", "Surplus", "Total"].map((t) => h("th", { scope: "col" }, t)))),
        h(
          "tbody",
          null,
          tallies.map((t) => {
            const p = view.players[t.seat];
            return h(
              `tr${outcome.winners.includes(t.seat) ? ".winner" : ""}`,
              { "data-seat": t.seat },
              h("td", null, String(outcome.ranks[t.seat] ?? "")),
              h("td", null, `${seatMark(t.seat)} ${names(t.seat)} ${p ? symbolOf(p.colour) : ""}`),
              h("td", null, String(t.vp)),
              h("td", null, String(t.circuits)),
              h("td", null, `${t.objective.replace(/_/g, " ")} ${t.objective_met ? "✓ +5" : "✗"}`),
              h("td", null, String(t.surplus)),
              h("td.nf-total", null, String(t.total)),
            );
          }),
        ),
      ),
    );
  }

  return {
    playsTurnAlert: true,
    saysTurn: true,
    busy: () => queue.length > 0,
    update(view: unknown, legal: readonly LegalEntry[], previous: unknown | null): void {
      if (!isNeonFlipView(view)) {
        replace(status, "Waiting for the game to start…");
        return;
      }
      if (previous === null || !shown || stepMs <= 0) {
        queue.length = 0;
        if (timer) clearTimeout(timer);
        timer = null;
        const animate = previous !== null && shown !== null;
        const frames = animate && shown ? framesFor(shown, view, legal) : [];
        if (frames.length > 1 && stepMs <= 0) {
          // No sequence: still flip from what was drawn, with PROTO-ZERO's card named.
          draw({ ...frames[frames.length - 1]!, ai: frames[0]!.ai }, animate);
          return;
        }
        draw({ view, legal, ai: null }, animate);
        return;
      }
      const base = queue.length ? queue[queue.length - 1]!.view : shown;
      queue.push(...framesFor(base, view, legal));
      while (queue.length > MAX_QUEUE) queue.shift();
      if (!timer) pump();
    },
    destroy(): void {
      window.removeEventListener("keydown", onKey);
      clearInterval(ticker);
      if (timer) clearTimeout(timer);
      element.remove();
    },
  };
}

/** A padlock, drawn (no emoji font needed), in the text's colour. */
function padlock(): SVGElement {
  return svg(
    "svg",
    { class: "nf-padlock", viewBox: "0 0 10 12", width: 9, height: 11, "aria-hidden": "true", focusable: "false" },
    svg("path", { d: "M2.5 5.5V3.6a2.5 2.5 0 0 1 5 0v1.9", fill: "none", stroke: "currentColor", "stroke-width": 1.4 }),
    svg("rect", { x: 1, y: 5.5, width: 8, height: 6, rx: 1, fill: "currentColor" }),
  );
}

/** A badge's words: the whole sentence, and the short form a phone shows (and reads out)
 *  instead (neon_flip.css shows one of the two). */
function badge(long: string, short: string): HTMLElement[] {
  return [h("span.nf-long", null, long), h("span.nf-short", null, short)];
}

/** The Neon Flip board factory (registered by the shell as `neon_flip`). */
const createBoard: BoardFactory = (root, context) => makeBoard(root, context);

export default createBoard;
