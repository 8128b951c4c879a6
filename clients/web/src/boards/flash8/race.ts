/**
 * The Flash 8 race board (docs/rules/flash8.md, "Race mode").
 *
 * Layout: a status bar (countdown, clock or time left, whose frame the cards are drawn in), the
 * other players' small live tablets with their points, cards and lockouts, the stacks (each
 * top card drawn as the view gives it: turned to the viewer's side; its size and stars), the
 * viewer's large tablet with the FLASH and hint buttons and the key guide, the scores, and once
 * the race is over the solver's post-race report from `outcome.details`.
 *
 * Input (only what `legal` offers): slides on the tablet (click, drag, arrow keys: see
 * `TabletView`); FLASH by its button or the space bar (the plain `flash`: the server checks every
 * stack in order); a click on a stack, or the keys 1-4, FLASH that stack when legal names it;
 * the hint button or H. Spectators and replays (`readOnly`) get no input.
 *
 * Changes between updates are drawn and heard: a slide moves its electron, a taken card flies
 * off its stack toward its taker while the next top flips in, a wrong claim locks the tablet
 * with a countdown, and the sounds `slide`, `claim`, `flip`, `fail` and `tick` play (the shell
 * sounds the start and the end itself).
 */

import { touchScreen } from "../../app/dom";
import type { BoardContext, Command, LegalEntry } from "../types";
import { describePattern, raceCard } from "./cards";
import { clock, CommandQueue, elapsed, fill, glued, h, ordinal, tenths } from "./dom";
import { legend } from "./electrons";
import { Legal } from "./legal";
import { logOf, logPanel, seatNamer, showLog } from "../movelog";
import { Countdown, directionOf, Keys, seatName, Toasts } from "./parts";
import { TabletView } from "./tablet";
import type { RaceCardReport, RacePlayerReport, RaceView, SeatView } from "./view";

/** What the board remembers of the view it drew last, to see what changed. */
interface Memory {
  phase: RaceView["phase"];
  tablets: string[];
  takes: number;
  misses: number[];
  late: number[];
  tops: (string | null)[];
  hintAt: number | null;
}

interface SeatPanel {
  element: HTMLElement;
  tablet: TabletView;
  header: HTMLElement;
}

const REASONS: Record<string, string> = {
  stacks_empty: "Every stack is empty",
  time_up: "Time is up",
};

export class RaceBoard {
  readonly element: HTMLElement;
  private readonly context: BoardContext;
  private readonly moveLog = logPanel("f8-log");
  private readonly queue: CommandQueue;
  private readonly keys: Keys | null;
  private readonly countdown: Countdown;
  private readonly toasts = new Toasts();
  private readonly clockText = h("span", { class: "f8-clock", role: "timer" });
  private readonly phaseText = h("span", { class: "f8-phase" });
  private readonly frameText = h("span", { class: "f8-frame" });
  private readonly others = h("section", { class: "f8-others", "aria-label": "Other players" });
  private readonly stacks = h("section", { class: "f8-stacks", "aria-label": "Stacks" });
  private readonly scores = h("ol", { class: "f8-scores", "aria-label": "Scores" });
  private readonly mine = h("section", { class: "f8-mine" });
  private readonly mineHeader = h("div", { class: "f8-seat-header" });
  private readonly hintText = h("p", { class: "f8-hint-text", "aria-live": "polite" });
  private readonly flashButton: HTMLButtonElement;
  private readonly hintButton: HTMLButtonElement;
  private readonly report = h("section", { class: "f8-report", hidden: true, "aria-label": "Race report" });
  private readonly myTablet: TabletView;
  private readonly panels = new Map<number, SeatPanel>();
  private readonly stackButtons = new Map<number, HTMLButtonElement>();
  /** What each stack button was last drawn from. */
  private readonly stackKeys = new Map<number, string>();
  private view: RaceView | null = null;
  private legal = new Legal([]);
  private memory: Memory | null = null;
  /** The viewer's tablet and the stack tops when their last hint arrived: the hint is shown
   *  while both stay as they were (a slide or a taken card makes it stale). */
  private hintBasis: string | null = null;
  private reportKey = "";

  constructor(context: BoardContext) {
    this.context = context;
    this.queue = new CommandQueue((command) => context.act(command));
    this.countdown = new Countdown(context);
    const interactive = !context.readOnly;
    const seen = context.seenAs && context.seat !== null ? `${seatName(context, context.seat, `seat ${context.seat + 1}`)}'s tablet` : "Your tablet";
    this.mine.setAttribute("aria-label", seen);
    this.myTablet = new TabletView({
      size: "large",
      label: seen,
      onGesture: interactive ? (resolve) => this.queue.push(() => slideCommand(resolve())) : undefined,
    });
    this.flashButton = h("button", { type: "button", class: "f8-flash", "aria-keyshortcuts": "Space" }, "FLASH") as HTMLButtonElement;
    this.flashButton.addEventListener("click", () => this.flash(null));
    this.hintButton = h("button", { type: "button", class: "f8-hint-button", "aria-keyshortcuts": "H", hidden: true }, "Hint") as HTMLButtonElement;
    this.hintButton.addEventListener("click", () => this.hint());
    const controls = h(
      "div",
      { class: "f8-controls" },
      this.flashButton,
      this.hintButton,
    );
    // Beside the table (under the tablet it would push FLASH down), shown where there are
    // keys to press, folded on a touch screen.
    const touch = touchScreen();
    const help = h(
      touch ? "details" : "section",
      { class: "f8-help" },
      h(touch ? "summary" : "h4", { text: "Keys and symbols" }),
      h(
        "ul",
        { class: "f8-keys" },
        h("li", {}, h("kbd", { text: "← ↑ → ↓" }), " the electron on that side of the free space slides into it"),
        h("li", {}, h("kbd", { text: "Space" }), " FLASH (checks every stack)"),
        h("li", {}, h("kbd", { text: "1-4" }), " FLASH one stack"),
        h("li", {}, h("kbd", { text: "H" }), " hint (when the room allows)"),
        h("li", {}, h("kbd", { text: "Z" }), " switch the free space (two free spaces)"),
        h("li", { text: "Mouse or touch: click an electron next to a free space, or drag it there." }),
      ),
      legend(),
    );
    this.mine.append(this.mineHeader, this.myTablet.element, controls, this.hintText);
    this.element = h(
      "div",
      { class: "f8-race" },
      h("header", { class: "f8-status" }, h("span", { class: "f8-title", text: "FLASH 8" }), this.phaseText, this.clockText, this.frameText),
      this.report,
      h("div", { class: "f8-table" }, this.stacks, this.mine, h("div", { class: "f8-side" }, this.others, this.scores, this.moveLog.panel, help)),
      this.countdown.element,
      this.toasts.element,
    );
    this.keys = interactive ? new Keys((event) => this.key(event)) : null;
  }

  /** Draw `view` with the viewer's `legal` commands; `animate` is false for a first view. */
  update(view: RaceView, entries: readonly LegalEntry[], animate: boolean): void {
    const before = animate ? this.memory : null;
    this.view = view;
    this.legal = new Legal(this.context.readOnly ? [] : entries);
    const me = this.mySeat();
    if (me !== null) {
      const hint = view.seats[me]?.hint ?? null;
      if (hint && hint.at !== (this.memory?.hintAt ?? null)) this.hintBasis = hintBasis(view, me);
    }
    if (before) this.announce(before, view);
    this.drawFrame(view);
    this.drawOthers(view);
    this.drawStacks(view, before);
    this.drawMine(view);
    this.drawScores(view, before);
    this.drawReport(view);
    showLog(this.moveLog.list, "flash8", logOf(view), { seat: seatNamer(this.context) });
    this.memory = remember(view);
    this.tick(!before);
  }

  /** Redraw what depends on the clock (countdown, time, lockouts); called every 100 ms. */
  tick(silent = false): void {
    const view = this.view;
    if (!view) return;
    const now = this.context.serverNow();
    this.countdown.update(view, now, silent);
    this.clockText.textContent = clockLine(view, now);
    this.clockText.classList.toggle("f8-urgent", view.phase === "running" && view.ends_at !== null && view.ends_at - now < 15);
    const me = this.mySeat();
    for (const seat of view.seats) {
      const tablet = seat.seat === me ? this.myTablet : this.panels.get(seat.seat)?.tablet;
      if (!tablet) continue;
      tablet.setLock(seat.locked_until === null ? null : seat.locked_until - now, view.lockout);
    }
    const locked = me !== null && view.seats[me]?.locked_until != null;
    this.flashButton.textContent = locked ? "LOCKED" : "FLASH";
  }

  destroy(): void {
    this.queue.close();
    this.keys?.destroy();
    this.toasts.destroy();
    this.myTablet.destroy();
    for (const panel of this.panels.values()) panel.tablet.destroy();
  }

  // --- input ----------------------------------------------------------------------------------

  /** The seat whose tablet is drawn large: the viewer's, none for the public view. */
  private mySeat(): number | null {
    const seat = this.view?.seat;
    return typeof seat === "number" && this.view?.seats[seat] ? seat : null;
  }

  /** How the board names the seat it looks through: "You", or in a replay seen from a seat,
   *  that seat's name (never "you" to a visitor). */
  private me(): string {
    const seat = this.mySeat() ?? this.context.seat;
    if (!this.context.seenAs || seat === null) return "You";
    return seatName(this.context, seat, this.view?.seats[seat]?.side ?? `seat ${seat + 1}`);
  }

  /** FLASH: plain (`stack` null) or naming a stack, when legal offers it. */
  private flash(stack: number | null): void {
    this.queue.push(() => {
      if (stack === null) return this.legal.has("flash") ? { type: "flash" } : null;
      return this.legal.flashStacks().includes(stack) ? { type: "flash", stack } : null;
    });
  }

  private hint(): void {
    this.queue.push(() => (this.legal.has("hint") ? { type: "hint" } : null));
  }

  private key(event: KeyboardEvent): boolean {
    if (!this.element.isConnected || this.view?.phase === "over") return false;
    const direction = directionOf(event.key);
    if (direction) {
      this.queue.push(() => slideCommand(this.myTablet.slideFor(direction)));
      return true;
    }
    if (event.key === " " || event.key === "Spacebar") {
      if (event.repeat) return true;
      this.flash(null);
      return true;
    }
    if (/^[1-4]$/.test(event.key)) {
      const stack = Number(event.key) - 1;
      if (!this.view?.stacks[stack]) return false;
      this.flash(stack);
      return true;
    }
    if (event.key === "h" || event.key === "H") {
      this.hint();
      return true;
    }
    if (event.key === "z" || event.key === "Z") {
      this.myTablet.switchActive();
      return true;
    }
    return false;
  }

  // --- changes ----------------------------------------------------------------------------------

  /** Sounds and messages for what changed since the last view. */
  private announce(before: Memory, view: RaceView): void {
    const me = this.mySeat();
    const name = (seat: number): string =>
      seat === me ? this.me() : seatName(this.context, seat, view.seats[seat]?.side ?? "");
    if (me !== null && before.tablets[me] !== undefined && before.tablets[me] !== view.seats[me]?.tablet) {
      this.context.sound("slide");
    }
    for (const take of view.takes.slice(before.takes)) {
      const points = `+${take.points} point${take.points === 1 ? "" : "s"}`;
      if (take.seat === me) {
        this.context.sound("claim");
        this.toasts.show(`FLASH! ${this.me()} took ${take.card} (${points})`, "good");
      } else {
        this.context.sound("flip");
        this.toasts.show(`${name(take.seat)} took ${take.card} (${points})`, "info");
      }
    }
    for (const seat of view.seats) {
      const missed = seat.misses > (before.misses[seat.seat] ?? seat.misses);
      const late = (seat.late ?? 0) > (before.late[seat.seat] ?? seat.late ?? 0);
      if (seat.seat === me) {
        if (missed) {
          this.context.sound("fail");
          this.toasts.show(`No match: locked out for ${glued(tenths(view.lockout))}`, "bad");
        }
        if (late) {
          this.context.sound("fail");
          this.toasts.show("Too late: that card was just taken", "bad");
        }
      } else if (missed) {
        this.toasts.show(`${name(seat.seat)}: wrong FLASH, locked out`, "info", 1800);
      }
    }
  }

  // --- drawing ----------------------------------------------------------------------------------

  private drawFrame(view: RaceView): void {
    const me = this.mySeat();
    this.element.classList.toggle("f8-spectating", me === null);
    this.element.dataset.phase = view.phase;
    const side = view.frame?.side ?? "south";
    this.frameText.textContent =
      me === null ? `Cards as printed (from the ${side} side)` : this.context.seenAs ? `Cards drawn as seen from ${this.me()}'s side (${side})` : `Cards drawn as seen from your side (${side})`;
    this.phaseText.textContent =
      view.phase === "waiting" ? "Waiting for the start" :
      view.phase === "countdown" ? "Starting" :
      view.phase === "running" ? "Race on" :
      `Race over${view.outcome ? `: ${REASONS[view.outcome.reason] ?? view.outcome.reason}` : ""}`;
  }

  private drawOthers(view: RaceView): void {
    const me = this.mySeat();
    this.mine.hidden = me === null;
    for (const seat of view.seats) {
      if (seat.seat === me) continue;
      let panel = this.panels.get(seat.seat);
      if (!panel) {
        const name = seatName(this.context, seat.seat, seat.side);
        const tablet = new TabletView({ size: "small", label: `${name}'s tablet (${seat.side})` });
        const header = h("div", { class: "f8-seat-header" });
        const element = h("article", { class: "f8-seat", "data-seat": seat.seat }, header, tablet.element);
        panel = { element, tablet, header };
        this.panels.set(seat.seat, panel);
        this.others.append(element);
      }
      this.drawHeader(panel.header, seat, false);
      panel.tablet.render(seat.tablet, null);
    }
  }

  private drawHeader(header: HTMLElement, seat: SeatView, mine: boolean): void {
    const name = mine ? this.me() : seatName(this.context, seat.seat, seat.side);
    const cards = seat.cards?.length ?? 0;
    fill(
      header,
      h("span", { class: "f8-seat-name", text: name }),
      h("span", { class: "f8-seat-side", text: seat.side }),
      seat.handicap ? h("span", { class: "f8-badge", text: "handicap", title: "One blue fewer, two free spaces" }) : null,
      h("span", { class: "f8-seat-points", "data-points": seat.points ?? 0, text: `${seat.points ?? 0} pt` }),
      h("span", { class: "f8-seat-cards", text: `${cards} card${cards === 1 ? "" : "s"}` }),
    );
  }

  private drawStacks(view: RaceView, before: Memory | null): void {
    const named = new Set(this.legal.flashStacks());
    const me = this.mySeat();
    const hint = me !== null ? this.visibleHint(view, me) : null;
    for (const stack of view.stacks) {
      let button = this.stackButtons.get(stack.stack);
      if (!button) {
        button = h("button", { type: "button", class: "f8-stack", "data-stack": stack.stack }) as HTMLButtonElement;
        const index = stack.stack;
        button.addEventListener("click", () => this.flash(index));
        this.stackButtons.set(stack.stack, button);
        this.stacks.append(button);
      }
      const top = stack.top;
      const previous = before?.tops[stack.stack];
      const changed = before !== null && previous !== undefined && previous !== (top?.card ?? null);
      const canFlash = named.has(stack.stack);
      const hinted = hint?.target === stack.stack;
      const key = JSON.stringify([top, stack.size, canFlash, hinted]);
      if (key === this.stackKeys.get(stack.stack)) continue;
      this.stackKeys.set(stack.stack, key);
      // The old top flies toward whoever took it.
      let flyer: HTMLElement | null = null;
      if (changed) {
        const old = button.querySelector<HTMLElement>(".f8-card");
        const take = [...view.takes].reverse().find((t) => t.card === previous);
        if (old && take) {
          flyer = old.cloneNode(true) as HTMLElement;
          flyer.classList.add("f8-flying", take.seat === me ? "f8-fly-me" : "f8-fly-away");
          flyer.setAttribute("aria-hidden", "true");
          setTimeout(() => flyer?.remove(), 700);
        }
      }
      button.disabled = !canFlash;
      button.classList.toggle("f8-empty", top === null);
      button.classList.toggle("f8-hinted", hinted);
      const label = h(
        "span",
        { class: "f8-stack-label" },
        h("span", { text: `Stack ${stack.stack + 1}` }),
        canFlash ? h("kbd", { text: String(stack.stack + 1) }) : null,
      );
      const size = h("span", { class: "f8-stack-size", text: `${stack.size} left` });
      const face = top ? raceCard(top) : h("div", { class: "f8-card f8-card-empty", text: "empty" });
      if (changed && top) face.classList.add("f8-reveal");
      button.replaceChildren(label, face, size);
      if (flyer) button.append(flyer);
      button.setAttribute(
        "aria-label",
        top
          ? `Stack ${stack.stack + 1}, ${stack.size} cards: ${top.card}, ${top.points} point${top.points === 1 ? "" : "s"}; ${describePattern(top.pattern)}${canFlash ? ". Press to FLASH this stack" : ""}`
          : `Stack ${stack.stack + 1}: empty`,
      );
    }
  }

  /** The viewer's hint while their tablet has not moved since it came. */
  private visibleHint(view: RaceView, me: number): SeatView["hint"] {
    const hint = view.seats[me]?.hint ?? null;
    return hint && view.phase === "running" && this.hintBasis === hintBasis(view, me) ? hint : null;
  }

  private drawMine(view: RaceView): void {
    const me = this.mySeat();
    if (me === null) return;
    const seat = view.seats[me]!;
    this.drawHeader(this.mineHeader, seat, true);
    const hint = this.visibleHint(view, me);
    const suggested = hint && hint.src !== null && hint.dst !== null ? { src: hint.src, dst: hint.dst } : null;
    this.myTablet.render(seat.tablet, this.context.readOnly ? null : this.legal, { hint: suggested });
    const over = view.phase === "over";
    this.flashButton.hidden = this.context.readOnly || over;
    this.flashButton.disabled = !this.legal.has("flash");
    this.hintButton.hidden = this.context.readOnly || over || !view.hints;
    this.hintButton.disabled = !this.legal.has("hint");
    if (hint) {
      const steps = `${hint.slides} slide${hint.slides === 1 ? "" : "s"}`;
      this.hintText.textContent =
        hint.slides === 0 ? `Hint: stack ${hint.target + 1} matches now: FLASH!` : `Hint: stack ${hint.target + 1} is ${steps} away; follow the arrow.`;
    } else {
      this.hintText.textContent = "";
    }
  }

  private drawScores(view: RaceView, before: Memory | null): void {
    const me = this.mySeat();
    const leader = Math.max(0, ...view.seats.map((s) => s.points ?? 0));
    const gained = new Set(before ? view.takes.slice(before.takes).map((t) => t.seat) : []);
    this.scores.replaceChildren(
      ...view.seats.map((seat) => {
        const cards = seat.cards?.length ?? 0;
        const row = h(
          "li",
          {
            class: `f8-score${seat.seat === me ? " f8-me" : ""}${(seat.points ?? 0) === leader && leader > 0 ? " f8-leader" : ""}${gained.has(seat.seat) ? " f8-pulse" : ""}`,
            "data-seat": seat.seat,
          },
          h("span", { class: "f8-score-name", text: seat.seat === me ? this.me() : seatName(this.context, seat.seat, seat.side) }),
          h("span", { class: "f8-score-points", text: String(seat.points ?? 0) }),
          h("span", { class: "f8-score-detail", text: `${cards} card${cards === 1 ? "" : "s"} · ${seat.misses} miss${seat.misses === 1 ? "" : "es"}` }),
        );
        return row;
      }),
    );
  }

  /** The post-race report (once the view holds the outcome). */
  private drawReport(view: RaceView): void {
    const outcome = view.outcome;
    if (!outcome) {
      this.report.hidden = true;
      this.reportKey = "";
      return;
    }
    const key = JSON.stringify(outcome);
    if (key === this.reportKey) return;
    this.reportKey = key;
    this.report.hidden = false;
    const me = this.mySeat();
    const details = outcome.details ?? {};
    const players = Array.isArray(details.players) ? (details.players as RacePlayerReport[]) : [];
    const cards = Array.isArray(details.cards) ? (details.cards as RaceCardReport[]) : [];
    const name = (seat: number): string =>
      seat === me ? this.me() : seatName(this.context, seat, view.seats[seat]?.side ?? `seat ${seat + 1}`);
    let headline: string;
    if (me !== null && outcome.ranks[me] !== undefined && this.context.seenAs) {
      const rank = outcome.ranks[me]!;
      headline = rank === 1 ? (outcome.winners.length > 1 ? `${this.me()} shares the victory` : `${this.me()} wins`) : `${this.me()} finishes ${ordinal(rank)}`;
    } else if (me !== null && outcome.ranks[me] !== undefined) {
      const rank = outcome.ranks[me]!;
      headline = rank === 1 ? (outcome.winners.length > 1 ? "You share the victory!" : "You win!") : `You finish ${ordinal(rank)}`;
    } else {
      headline = `${outcome.winners.map(name).join(" and ")} ${outcome.winners.length > 1 ? "share the victory" : "wins"}`;
    }
    const duration = typeof details.duration === "number" ? ` in ${elapsed(details.duration)}` : "";
    const table = h(
      "table",
      { class: "f8-report-players" },
      h("caption", { text: "Slides against the solver's optimum" }),
      h(
        "thead",
        {},
        h("tr", {}, ...["Player", "Points", "Cards", "Slides", "On cards", "Optimal", "Extra", "Misses", "Late", "Hints"].map((t) => h("th", { scope: "col", text: t }))),
      ),
      h(
        "tbody",
        {},
        ...players.map((p) =>
          h(
            "tr",
            { class: p.seat === me ? "f8-me" : null, "data-seat": p.seat },
            h("th", { scope: "row", text: `${name(p.seat)} (${ordinal(outcome.ranks[p.seat] ?? 0)})` }),
            ...[p.points, p.cards, p.slides, p.slides_on_cards, p.optimal_on_cards, p.extra_slides, p.misses, p.late, p.hints].map((v) =>
              h("td", { text: String(v ?? "") }),
            ),
          ),
        ),
      ),
    );
    const takes = h(
      "table",
      { class: "f8-report-cards" },
      h("caption", { text: "Every card taken" }),
      h("thead", {}, h("tr", {}, ...["Card", "Taken by", "Stack", "Time", "Slides", "Optimal"].map((t) => h("th", { scope: "col", text: t })))),
      h(
        "tbody",
        {},
        ...cards.map((c) =>
          h(
            "tr",
            { class: c.slides > c.optimal ? "f8-wasted" : null },
            h("th", { scope: "row", text: c.card }),
            h("td", { text: name(c.seat) }),
            h("td", { text: String(c.stack + 1) }),
            h("td", { text: tenths(c.took) }),
            h("td", { text: String(c.slides) }),
            h("td", { text: String(c.optimal) }),
          ),
        ),
      ),
    );
    fill(
      this.report,
      h("h2", { class: "f8-report-title", text: headline }),
      h("p", { class: "f8-report-reason", text: `${REASONS[outcome.reason] ?? outcome.reason}${duration}. Final scores: ${view.seats.map((s) => `${name(s.seat)} ${outcome.scores[s.seat] ?? 0}`).join(", ")}.` }),
      players.length ? table : null,
      cards.length ? h("details", { class: "f8-report-more" }, h("summary", { text: `${cards.length} cards taken` }), takes) : null,
    );
  }
}

function slideCommand(move: { src: number; dst: number } | null): Command | null {
  return move ? { type: "slide", src: move.src, dst: move.dst } : null;
}

/** What a hint was computed from: the viewer's tablet and every stack top. */
function hintBasis(view: RaceView, me: number): string {
  return [view.seats[me]?.tablet ?? "", ...view.stacks.map((s) => s.top?.card ?? "-")].join("|");
}

function remember(view: RaceView): Memory {
  const me = view.seat;
  return {
    phase: view.phase,
    tablets: view.seats.map((s) => s.tablet),
    takes: view.takes.length,
    misses: view.seats.map((s) => s.misses),
    late: view.seats.map((s) => s.late ?? 0),
    tops: view.stacks.map((s) => s.top?.card ?? null),
    hintAt: me !== null ? (view.seats[me]?.hint?.at ?? null) : null,
  };
}

/** The status bar's clock: the countdown, the time left (time limit) or elapsed, the end. */
function clockLine(view: RaceView, now: number): string {
  switch (view.phase) {
    case "waiting":
      return "";
    case "countdown":
      return view.starts_at === null ? "" : `Starts in ${clock(view.starts_at - now)}`;
    case "running":
      if (view.ends_at !== null) return `${clock(view.ends_at - now)} left`;
      // Elapsed time; hours past the start (a replay on today's clock) it means nothing.
      if (view.started_at === null || now - view.started_at > 4 * 3600) return "";
      return elapsed(now - view.started_at);
    case "over":
      return view.started_at !== null && view.ended_at !== null ? `Raced ${elapsed(view.ended_at - view.started_at)}` : "";
  }
}
