/**
 * The Flash 8 solo board (docs/rules/flash8.md, "Solo mode").
 *
 * Layout: a status bar (the clock counting down the solo time, the reserve's size as the score
 * so far and its rank), the 3 x 3 grid of solo cards (each an electron inside its shape, with
 * how many cards lie there) with a claim button beside every row and under every column, the
 * reminder token standing by the line last claimed, the reserve (its size and top card's face),
 * the player's large tablet, and at the end the score, rank and report with the server's high
 * score list (`GET /highscores`).
 *
 * Input (only what `legal` offers): slides as in the race; a line's claim button, or the keys
 * 1-6 (rows top to bottom, then columns left to right), opens the shape choice listing the
 * shapes legal offers for that line with how many of the line's cards show each; a shape is
 * picked by click or by the keys 1-4 (or C, X, S, Q), Escape closes the choice. Hovering or
 * choosing a line rings its colours on the tablet's cells, where they must stand.
 */

import type { BoardContext, Command, LegalEntry } from "../types";
import { soloCard } from "./cards";
import { clock, CommandQueue, glued, h, tenths } from "./dom";
import { touchScreen } from "../../app/dom";
import { COLOUR_NAMES, legend, shapeIcon } from "./electrons";
import { Legal } from "./legal";
import { logOf, logPanel, seatNamer, showLog } from "../movelog";
import { Countdown, directionOf, Keys, Toasts } from "./parts";
import { TabletView } from "./tablet";
import type { HighScore, LineView, Shape, SoloView } from "./view";

/** The rulebook's rank descriptions (rulebook "Solo End of game"). */
const RANK_WORDS: Record<string, string> = {
  TACHYON: "Not yet detected!!",
  PHOTON: "You react at the speed of light!",
  NEUTRINO: "You've mastered the subatomic world!",
  ELECTRON: "Your rotation's accelerating!",
  QUARK: "You've grasped the fundamental basics!",
  GLUON: "Don't stay glued to the spot! Play another game immediately!",
};

const REASONS: Record<string, string> = {
  time_up: "Time is up",
  reserve_empty: "The reserve is empty",
  dead_end: "No line can be reproduced any more",
};

/** The letter keys of the shapes in the choice. */
const SHAPE_KEYS: Record<string, Shape> = { c: "circle", x: "cross", s: "star", q: "square" };

interface Memory {
  phase: SoloView["phase"];
  tablet: string;
  claims: number;
  misses: number;
  grid: string[];
  hintAt: number | null;
}

/** Fetches the high score list; replaced in tests. */
export type HighScoreLoader = () => Promise<HighScore[]>;

/** `GET /highscores` on the page's own server: `{"high_scores": [...]}`, best first. */
export const loadHighScores: HighScoreLoader = async () => {
  const response = await fetch("/highscores", { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`high scores: HTTP ${response.status}`);
  const body = (await response.json()) as { high_scores?: HighScore[] };
  return Array.isArray(body.high_scores) ? body.high_scores : [];
};

export class SoloBoard {
  readonly element: HTMLElement;
  private readonly context: BoardContext;
  private readonly moveLog = logPanel("f8-log");
  private readonly loader: HighScoreLoader;
  private readonly queue: CommandQueue;
  private readonly keys: Keys | null;
  private readonly countdown: Countdown;
  private readonly toasts = new Toasts();
  private readonly clockText = h("span", { class: "f8-clock", role: "timer" });
  private readonly phaseText = h("span", { class: "f8-phase" });
  private readonly scoreText = h("span", { class: "f8-solo-score" });
  private readonly grid = h("div", { class: "f8-grid", role: "group", "aria-label": "The card grid" });
  private readonly gridCells: HTMLElement[] = [];
  private readonly lineButtons: HTMLButtonElement[] = [];
  private readonly reserve = h("div", { class: "f8-reserve", "aria-label": "Reserve" });
  private readonly chooser = h("div", { class: "f8-chooser", hidden: true, role: "dialog", "aria-label": "Choose a shape" });
  private readonly hintText = h("p", { class: "f8-hint-text", "aria-live": "polite" });
  private readonly hintButton: HTMLButtonElement;
  private readonly result = h("section", { class: "f8-result", hidden: true, "aria-label": "Result" });
  private readonly highScores = h("div", { class: "f8-highscores" });
  private readonly tablet: TabletView;
  private view: SoloView | null = null;
  private legal = new Legal([]);
  private memory: Memory | null = null;
  /** The line whose shape is being chosen. */
  private choosing: number | null = null;
  /** The line whose colours are ringed on the tablet (hover or choice). */
  private previewLine: number | null = null;
  /** The tablet, grid and token when the last hint arrived: the hint is shown while they stay. */
  private hintBasis: string | null = null;
  private resultKey = "";
  private destroyed = false;
  private scoreTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(context: BoardContext, loader: HighScoreLoader = loadHighScores) {
    this.context = context;
    this.loader = loader;
    this.queue = new CommandQueue((command) => context.act(command));
    this.countdown = new Countdown(context);
    const interactive = !context.readOnly;
    // A replay seen from the seat names its player, never "you" (the visitor did not play).
    const player = context.seenAs ? (context.seatNames[context.seat ?? 0]?.trim() || "The player") : null;
    this.tablet = new TabletView({
      size: "large",
      label: player ? `${player}'s tablet` : "Your tablet",
      onGesture: interactive
        ? (resolve) =>
            this.queue.push(() => {
              const move = resolve();
              return move ? { type: "slide", src: move.src, dst: move.dst } : null;
            })
        : undefined,
    });
    this.buildGrid();
    this.hintButton = h("button", { type: "button", class: "f8-hint-button", "aria-keyshortcuts": "H", hidden: true }, "Hint") as HTMLButtonElement;
    this.hintButton.addEventListener("click", () => this.queue.push(() => (this.legal.has("hint") ? { type: "hint" } : null)));
    const help = h(
      "details",
      { class: "f8-help" },
      h("summary", { text: "Keys and symbols" }),
      h(
        "ul",
        { class: "f8-keys" },
        h("li", {}, h("kbd", { text: "← ↑ → ↓" }), " the electron on that side of the free space slides into it"),
        h("li", {}, h("kbd", { text: "1-3" }), " claim a row (top to bottom), ", h("kbd", { text: "4-6" }), " a column (left to right)"),
        h("li", {}, "then ", h("kbd", { text: "1-4" }), " or ", h("kbd", { text: "C X S Q" }), " pick circle, cross, star, square; ", h("kbd", { text: "Esc" }), " cancels"),
        h("li", {}, h("kbd", { text: "H" }), " hint (when the room allows)"),
        h("li", { text: "A line is reproduced in place: its colours on the same cells of your tablet." }),
      ),
      legend(),
    );
    const side = h(
      "div",
      { class: "f8-solo-side" },
      this.reserve,
      h("div", { class: "f8-mine" }, this.tablet.element, h("div", { class: "f8-controls" }, this.hintButton), this.hintText, help),
      this.moveLog.panel,
    );
    this.element = h(
      "div",
      { class: "f8-solo" },
      h("header", { class: "f8-status" }, h("span", { class: "f8-title", text: "FLASH 8 · SOLO" }), this.phaseText, this.clockText, this.scoreText),
      this.result,
      h("div", { class: "f8-solo-table" }, h("div", { class: "f8-grid-wrap" }, this.grid, this.chooser), side),
      this.countdown.element,
      this.toasts.element,
    );
    this.keys = interactive ? new Keys((event) => this.key(event)) : null;
  }

  /** Draw `view` with its `legal` commands; `animate` is false for a first view. */
  update(view: SoloView, entries: readonly LegalEntry[], animate: boolean): void {
    const before = animate ? this.memory : null;
    this.view = view;
    this.legal = new Legal(this.context.readOnly ? [] : entries);
    const seat = view.seats[0];
    const hint = seat?.hint ?? null;
    if (hint && hint.at !== (this.memory?.hintAt ?? null)) this.hintBasis = hintBasis(view);
    if (before) this.announce(before, view);
    if (this.choosing !== null && this.legal.lineShapes(this.choosing).length === 0) this.closeChooser();
    this.element.dataset.phase = view.phase;
    this.phaseText.textContent =
      view.phase === "waiting" ? "Waiting for the start" :
      view.phase === "countdown" ? "Starting" :
      view.phase === "running" ? "Empty the reserve" :
      `Game over${view.outcome ? `: ${REASONS[view.outcome.reason] ?? view.outcome.reason}` : ""}`;
    this.scoreText.textContent = `Reserve ${view.score} · ${view.rank}`;
    this.drawGrid(view, before);
    this.drawReserve(view, before);
    this.drawTablet(view);
    this.drawResult(view);
    showLog(this.moveLog.list, "flash8", logOf(view), { seat: seatNamer(this.context) });
    this.memory = remember(view);
    this.tick(!before);
  }

  /** Redraw what depends on the clock (countdown, solo clock, lockout); every 100 ms. */
  tick(silent = false): void {
    const view = this.view;
    if (!view) return;
    const now = this.context.serverNow();
    this.countdown.update(view, now, silent);
    let text = "";
    if (view.phase === "running" && view.ends_at !== null) {
      const left = view.ends_at - now;
      text = clock(left);
      const whole = Math.ceil(left);
      if (!silent && left > 0 && left <= 10 && this.clockText.dataset.second !== String(whole)) this.context.sound("tick");
      this.clockText.dataset.second = String(whole);
      this.clockText.classList.toggle("f8-urgent", left < 30);
    } else if (view.phase === "countdown" && view.starts_at !== null) {
      text = `Starts in ${clock(view.starts_at - now)}`;
    } else if (view.phase === "over") {
      // The time that was left when the game ended (0:00 when the clock ran out).
      const left = view.ends_at !== null && view.ended_at !== null ? view.ends_at - view.ended_at : 0;
      text = left > 0.5 ? `ended with ${clock(left)} left` : "0:00";
      this.clockText.classList.remove("f8-urgent");
    }
    this.clockText.textContent = text;
    const locked = view.seats[0]?.locked_until ?? null;
    this.tablet.setLock(locked === null ? null : locked - now, view.lockout);
  }

  destroy(): void {
    this.destroyed = true;
    clearTimeout(this.scoreTimer);
    this.queue.close();
    this.keys?.destroy();
    this.toasts.destroy();
    this.tablet.destroy();
  }

  // --- input ----------------------------------------------------------------------------------

  private key(event: KeyboardEvent): boolean {
    if (!this.element.isConnected || this.view?.phase === "over") return false;
    if (this.choosing !== null) {
      if (event.key === "Escape") {
        this.closeChooser();
        return true;
      }
      const shapes = this.legal.lineShapes(this.choosing);
      const byDigit = /^[1-4]$/.test(event.key) ? shapes[Number(event.key) - 1] : undefined;
      const byLetter = SHAPE_KEYS[event.key.toLowerCase()];
      const shape = byDigit ?? (byLetter && shapes.includes(byLetter) ? byLetter : undefined);
      if (shape) {
        this.claim(this.choosing, shape);
        return true;
      }
    }
    const direction = directionOf(event.key);
    if (direction) {
      this.queue.push(() => {
        const move = this.tablet.slideFor(direction);
        return move ? { type: "slide", src: move.src, dst: move.dst } : null;
      });
      return true;
    }
    if (/^[1-6]$/.test(event.key)) {
      this.openChooser(Number(event.key) - 1);
      return true;
    }
    if (event.key === "h" || event.key === "H") {
      this.queue.push(() => (this.legal.has("hint") ? { type: "hint" } : null));
      return true;
    }
    if (event.key === "z" || event.key === "Z") {
      this.tablet.switchActive();
      return true;
    }
    return false;
  }

  /** Open the shape choice for `line` when legal lets it be claimed. */
  private openChooser(line: number): void {
    const view = this.view;
    const shapes = this.legal.lineShapes(line);
    if (!view || shapes.length === 0) return;
    this.choosing = line;
    this.previewLine = line;
    const info = view.lines[line];
    const buttons = shapes.map((shape, index) => {
      const showing = (info?.cells ?? []).filter((cell) => view.grid[cell]?.shape === shape).length;
      const button = h(
        "button",
        { type: "button", class: "f8-shape-choice", "data-shape": shape, "aria-keyshortcuts": String(index + 1) },
        shapeIcon(shape as Shape),
        h("span", { class: "f8-shape-name", text: shape }),
        h("span", { class: "f8-shape-count", text: showing ? `covers ${showing}` : "covers none" }),
        h("kbd", { text: String(index + 1) }),
      );
      button.addEventListener("click", () => this.claim(line, shape));
      return button;
    });
    const cancel = h("button", { type: "button", class: "f8-shape-cancel", text: touchScreen() ? "Cancel" : "Cancel (Esc)" });
    cancel.addEventListener("click", () => this.closeChooser());
    this.chooser.replaceChildren(
      h("p", { class: "f8-chooser-title", text: `Claim the ${info?.name ?? `line ${line + 1}`}: cover which shape?` }),
      h("div", { class: "f8-shape-choices" }, ...buttons),
      cancel,
    );
    this.chooser.hidden = false;
    this.lineButtons.forEach((button, index) => button.classList.toggle("f8-choosing", index === line));
    this.drawTabletOnly();
    buttons[0]?.focus({ preventScroll: true });
  }

  private closeChooser(): void {
    this.choosing = null;
    this.previewLine = null;
    this.chooser.hidden = true;
    this.chooser.replaceChildren();
    this.lineButtons.forEach((button) => button.classList.remove("f8-choosing"));
    this.drawTabletOnly();
  }

  private claim(line: number, shape: string): void {
    this.closeChooser();
    this.queue.push(() => {
      const command: Command = { type: "claim_line", line, shape };
      return this.legal.allows(command) ? command : null;
    });
  }

  // --- changes ----------------------------------------------------------------------------------

  private announce(before: Memory, view: SoloView): void {
    const seat = view.seats[0];
    if (seat && seat.tablet !== before.tablet) this.context.sound("slide");
    for (const claim of view.claims.slice(before.claims)) {
      this.context.sound("claim");
      const line = view.lines[claim.line]?.name ?? `line ${claim.line + 1}`;
      const covered = claim.covered.length;
      this.toasts.show(`${line} claimed: ${covered} card${covered === 1 ? "" : "s"} covered (${claim.shape})`, "good");
    }
    if (seat && seat.misses > before.misses) {
      this.context.sound("fail");
      this.toasts.show(`That line is not on your tablet: locked out for ${glued(tenths(view.lockout))}`, "bad");
    }
  }

  // --- drawing ----------------------------------------------------------------------------------

  private buildGrid(): void {
    // A 4 x 4 layout: 3 x 3 cards, a claim button right of each row, one under each column.
    for (let row = 0; row < 4; row++) {
      for (let col = 0; col < 4; col++) {
        if (row < 3 && col < 3) {
          const cell = h("div", { class: "f8-grid-cell", "data-cell": row * 3 + col });
          this.gridCells.push(cell);
          this.grid.append(cell);
        } else if (row < 3 || col < 3) {
          const line = row < 3 ? row : 3 + col;
          const button = h("button", { type: "button", class: `f8-line ${row < 3 ? "f8-line-row" : "f8-line-col"}`, "data-line": line, "aria-keyshortcuts": String(line + 1) }) as HTMLButtonElement;
          button.addEventListener("click", () => (this.choosing === line ? this.closeChooser() : this.openChooser(line)));
          button.addEventListener("pointerenter", () => this.preview(line));
          button.addEventListener("pointerleave", () => this.preview(null));
          button.addEventListener("focus", () => this.preview(line));
          button.addEventListener("blur", () => this.preview(null));
          this.lineButtons[line] = button;
          this.grid.append(button);
        } else {
          this.grid.append(h("span", { class: "f8-grid-corner", "aria-hidden": "true" }));
        }
      }
    }
  }

  /** Ring `line`'s colours on the tablet (null: the line being chosen, if any). */
  private preview(line: number | null): void {
    this.previewLine = line ?? this.choosing;
    this.drawTabletOnly();
  }

  private drawGrid(view: SoloView, before: Memory | null): void {
    for (const card of view.grid) {
      const cell = this.gridCells[card.cell];
      if (!cell || cell.dataset.drawn === `${card.card}/${card.depth}`) continue;
      cell.dataset.drawn = `${card.card}/${card.depth}`;
      const face = soloCard(card.colour, card.shape, card.depth, card.card);
      if (before && before.grid[card.cell] !== undefined && before.grid[card.cell] !== card.card) face.classList.add("f8-covered");
      cell.replaceChildren(face);
      cell.setAttribute("aria-label", `${COLOUR_NAMES[card.colour]} in a ${card.shape}${card.depth > 1 ? `, ${card.depth} cards` : ""}`);
    }
    const hint = this.visibleHint(view);
    for (const line of view.lines) this.drawLine(view, line, hint?.target === line.line);
  }

  private drawLine(view: SoloView, line: LineView, hinted: boolean): void {
    const button = this.lineButtons[line.line];
    if (!button) return;
    const token = view.token === line.line;
    const shapes = this.legal.lineShapes(line.line);
    button.disabled = shapes.length === 0;
    button.classList.toggle("f8-token-line", token);
    button.classList.toggle("f8-impossible", !line.possible);
    button.classList.toggle("f8-hinted", hinted);
    const arrow = line.line < 3 ? "◀" : "▲";
    button.replaceChildren(
      token ? h("span", { class: "f8-token", title: "Reminder token: not this line next", "aria-hidden": "true" }) : h("span", { class: "f8-line-arrow", "aria-hidden": "true", text: arrow }),
      h("span", { class: "f8-line-key", "aria-hidden": "true", text: String(line.line + 1) }),
    );
    const state = token ? "reminder token here, cannot be claimed next" : !line.possible ? "can never be reproduced" : shapes.length ? "claim" : "";
    button.setAttribute(
      "aria-label",
      `${line.name}: ${[...line.colours].map((c) => COLOUR_NAMES[c as keyof typeof COLOUR_NAMES] ?? c).join(", ")}${state ? `; ${state}` : ""}`,
    );
    button.title = token ? "Reminder token: this line may not be claimed next" : !line.possible ? "This line needs more electrons of a colour than a tablet holds" : `Claim the ${line.name} (${line.line + 1})`;
  }

  private drawReserve(view: SoloView, before: Memory | null): void {
    const top = view.reserve.top;
    const changed = before !== null && before.claims !== view.claims.length;
    this.reserve.replaceChildren(
      h("span", { class: "f8-reserve-label", text: "Reserve" }),
      h("span", { class: `f8-reserve-size${changed ? " f8-pulse" : ""}`, text: String(view.reserve.size) }),
      top ? soloCard(top.colour, top.shape, 1, top.card) : h("div", { class: "f8-solo-card f8-card-empty", text: "empty" }),
      h("span", { class: "f8-reserve-note", text: top ? `next: ${COLOUR_NAMES[top.colour]} ${top.shape}` : "no card left" }),
    );
  }

  private visibleHint(view: SoloView): SoloView["seats"][number]["hint"] {
    const seat = view.seats[0];
    const hint = seat?.hint ?? null;
    return hint && seat && view.phase === "running" && this.hintBasis === hintBasis(view) ? hint : null;
  }

  private drawTablet(view: SoloView): void {
    this.hintButton.hidden = this.context.readOnly || view.phase === "over" || !view.hints;
    this.hintButton.disabled = !this.legal.has("hint");
    const hint = this.visibleHint(view);
    if (hint) {
      const name = view.lines[hint.target]?.name ?? `line ${hint.target + 1}`;
      this.hintText.textContent =
        hint.slides === 0 ? `Hint: the ${name} is on your tablet: claim it!` : `Hint: the ${name} is ${hint.slides} slide${hint.slides === 1 ? "" : "s"} away; follow the arrow.`;
    } else {
      this.hintText.textContent = "";
    }
    this.drawTabletOnly();
  }

  private drawTabletOnly(): void {
    const view = this.view;
    const seat = view?.seats[0];
    if (!view || !seat) return;
    const hint = this.visibleHint(view);
    let ghost: string | null = null;
    const line = this.previewLine !== null ? view.lines[this.previewLine] : undefined;
    if (line) {
      const cells = Array.from({ length: 9 }, () => "-");
      line.cells.forEach((cell, index) => (cells[cell] = line.colours[index] ?? "-"));
      ghost = cells.join("");
    }
    this.tablet.render(seat.tablet, this.context.readOnly ? null : this.legal, {
      hint: hint && hint.src !== null && hint.dst !== null ? { src: hint.src, dst: hint.dst } : null,
      ghost,
    });
  }

  private drawResult(view: SoloView): void {
    const outcome = view.outcome;
    if (!outcome) {
      this.result.hidden = true;
      this.resultKey = "";
      return;
    }
    const key = JSON.stringify(outcome);
    if (key === this.resultKey) return;
    this.resultKey = key;
    this.result.hidden = false;
    const details = outcome.details ?? {};
    const score = typeof details.score === "number" ? details.score : view.score;
    const rank = typeof details.rank === "string" ? details.rank : view.rank;
    const stat = (label: string, value: unknown): HTMLElement =>
      h("div", { class: "f8-stat" }, h("dt", { text: label }), h("dd", { text: String(value ?? "–") }));
    this.result.replaceChildren(
      h("h2", { class: "f8-result-rank", "data-rank": rank }, h("span", { class: "f8-result-score", text: String(score) }), h("span", { text: rank })),
      h("p", { class: "f8-result-words", text: RANK_WORDS[rank] ?? "" }),
      h("p", { class: "f8-report-reason", text: `${REASONS[outcome.reason] ?? outcome.reason}. ${this.context.seenAs ? `${this.context.seatNames[0]?.trim() || "The player"}'s` : "Your"} score is the cards left in the reserve: lower is better.` }),
      h(
        "dl",
        { class: "f8-stats" },
        stat("Lines claimed", details.claims),
        stat("Cards covered", details.covered),
        stat("Slides", details.slides),
        stat("Slides on lines", details.slides_on_lines),
        stat("Optimal", details.optimal_on_lines),
        stat("Misses", details.misses),
        stat("Hints", details.hints),
      ),
      this.highScores,
    );
    this.highScores.replaceChildren(h("p", { class: "f8-muted", text: "Loading high scores…" }));
    // The server records the score as the game ends, just after this last view: ask a moment
    // later, and once more if this game's score is not in the list yet.
    clearTimeout(this.scoreTimer);
    this.scoreTimer = setTimeout(() => void this.fetchScores(score, true), 400);
  }

  private async fetchScores(score: number, retry: boolean): Promise<void> {
    let rows: HighScore[];
    try {
      rows = await this.loader();
    } catch {
      if (!this.destroyed) this.highScores.replaceChildren(h("p", { class: "f8-muted", text: "High scores are not available." }));
      return;
    }
    if (this.destroyed) return;
    const player = this.context.seatNames[0] ?? "";
    const mine = rows.findIndex((row) => row.player === player && row.score === score);
    if (mine < 0 && retry && rows.length < 10) {
      this.scoreTimer = setTimeout(() => void this.fetchScores(score, false), 1500);
    }
    const list = h(
      "ol",
      { class: "f8-highscore-list" },
      ...rows.map((row, index) =>
        h(
          "li",
          { class: index === mine ? "f8-me" : null },
          h("span", { class: "f8-hs-place", text: `${index + 1}.` }),
          h("span", { class: "f8-hs-score", text: String(row.score) }),
          h("span", { class: "f8-hs-rank", text: row.rank }),
          h("span", { class: "f8-hs-player", text: row.player }),
          h("time", { class: "f8-hs-date", datetime: new Date(row.at * 1000).toISOString(), text: new Date(row.at * 1000).toLocaleDateString() }),
        ),
      ),
    );
    this.highScores.replaceChildren(
      h("h3", { text: "High scores" }),
      rows.length ? list : h("p", { class: "f8-muted", text: "No high scores yet." }),
    );
  }
}

/** What a hint was computed from: the tablet, the grid and the token. */
function hintBasis(view: SoloView): string {
  return [view.seats[0]?.tablet ?? "", view.token ?? "-", ...view.grid.map((card) => card.card)].join("|");
}

function remember(view: SoloView): Memory {
  return {
    phase: view.phase,
    tablet: view.seats[0]?.tablet ?? "",
    claims: view.claims.length,
    misses: view.seats[0]?.misses ?? 0,
    grid: view.grid.map((card) => card.card),
    hintAt: view.seats[0]?.hint?.at ?? null,
  };
}
