/**
 * A Flash 8 tablet: 3 x 3 cells holding coloured electrons and one or two free spaces.
 *
 * The large, interactive tablet turns gestures into slides: a click (or tap, or Enter on a
 * focused cell) on an electron slides it when the legal list offers exactly one free cell for
 * it, or selects it when it offers two (then a click on the free cell finishes the slide); a
 * drag moves the electron with the pointer toward a free cell it may enter and slides it when
 * released past a third of the way; an arrow key slides the electron standing on that side of
 * the free space into it (with two free spaces, the ringed "active" one; a click on a free cell
 * or the Z key chooses it). Only slides present in `legal` are ever produced.
 *
 * Every render compares the tablet with the one drawn before: when exactly one electron moved
 * into an adjacent cell, it is drawn sliding there (a CSS transform from the old cell).
 */

import { h } from "./dom";
import { COLOUR_NAMES, electron, isColour } from "./electrons";
import type { Legal, SlideMove } from "./legal";

/** An arrow key's direction. */
export type Direction = "up" | "down" | "left" | "right";

const STEP: Record<Direction, [number, number]> = {
  up: [-1, 0],
  down: [1, 0],
  left: [0, -1],
  right: [0, 1],
};

/** The cell one step from `cell` in `direction`, or null off the tablet. */
export function neighbour(cell: number, direction: Direction): number | null {
  const [dr, dc] = STEP[direction];
  const row = Math.floor(cell / 3) + dr;
  const col = (cell % 3) + dc;
  return row >= 0 && row < 3 && col >= 0 && col < 3 ? row * 3 + col : null;
}

/** The arrow drawn on a hinted electron, pointing from `src` toward `dst`. */
function arrowFor(src: number, dst: number): string {
  const d = dst - src;
  return d === -3 ? "↑" : d === 3 ? "↓" : d === -1 ? "←" : d === 1 ? "→" : "•";
}

export interface TabletOptions {
  /** `large` is the player's own tablet (interactive); `small` the others'. */
  size: "large" | "small";
  /** The tablet's accessible name ("Your tablet", "North's tablet"). */
  label: string;
  /** Called with a gesture to resolve against the legal commands current when it is sent;
   *  omitted for tablets that take no input. */
  onGesture?: (resolve: () => SlideMove | null) => void;
}

/** What else a render may show on top of the electrons. */
export interface TabletExtras {
  /** A slide to suggest (the last hint), drawn as an arrow. */
  hint?: SlideMove | null;
  /** A 9-cell pattern drawn as coloured rings (a solo line being considered). */
  ghost?: string | null;
}

export class TabletView {
  readonly element: HTMLElement;
  private readonly grid: HTMLElement;
  private readonly cells: HTMLElement[] = [];
  private readonly lock: HTMLElement;
  private readonly lockText: HTMLElement;
  private readonly lockBar: HTMLElement;
  private readonly options: TabletOptions;
  private tablet = "";
  /** Everything the last render drew from, to skip redrawing what did not change. */
  private drawnKey = "";
  private extras: TabletExtras = {};
  private legal: Legal | null = null;
  /** The electron chosen by a click when it could go two ways. */
  private selected: number | null = null;
  /** The free cell arrow keys slide into. */
  private active: number | null = null;
  private drag: {
    cell: number;
    pointer: number;
    x: number;
    y: number;
    moved: boolean;
    target: number | null;
    fraction: number;
  } | null = null;
  /** A slide released by a drag, to start its animation where the finger let go. */
  private released: { src: number; dst: number; fraction: number } | null = null;
  private suppressClick = false;
  private resetTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: TabletOptions) {
    this.options = options;
    const interactive = options.onGesture !== undefined;
    this.element = h("div", {
      class: `f8-tablet f8-tablet-${options.size}${interactive ? " f8-interactive" : ""}`,
    });
    this.grid = h("div", { class: "f8-tablet-grid", role: "grid", "aria-label": options.label });
    for (let row = 0; row < 3; row++) {
      const line = h("div", { class: "f8-tablet-row", role: "row" });
      for (let col = 0; col < 3; col++) {
        const cell = row * 3 + col;
        const element = interactive
          ? h("button", { type: "button", class: "f8-cell", role: "gridcell", "data-cell": cell })
          : h("div", { class: "f8-cell", role: "gridcell", "data-cell": cell });
        this.cells.push(element);
        line.append(element);
      }
      this.grid.append(line);
    }
    this.lockText = h("span", { class: "f8-lock-text" });
    this.lockBar = h("span", { class: "f8-lock-bar" });
    this.lock = h(
      "div",
      { class: "f8-lock", hidden: true, role: "status" },
      h("span", { class: "f8-lock-title", text: "LOCKED" }),
      this.lockText,
      h("span", { class: "f8-lock-track" }, this.lockBar),
    );
    this.element.append(this.grid, this.lock);
    if (interactive) this.listen();
  }

  /** The tablet drawn now. */
  get current(): string {
    return this.tablet;
  }

  /** Draw `tablet` with what `legal` allows (null: no input now). */
  render(tablet: string, legal: Legal | null, extras: TabletExtras = {}): void {
    const before = this.tablet;
    this.tablet = tablet;
    this.legal = legal;
    this.extras = extras;
    this.element.dataset.tablet = tablet;
    this.followActive(before, tablet);
    if (this.selected !== null && (legal === null || legal.slideTargets(this.selected).length < 2)) {
      this.selected = null;
    }
    const slides = legal?.slides() ?? [];
    const key = JSON.stringify([tablet, slides, this.selected, this.active, extras.hint ?? null, extras.ghost ?? null]);
    if (key === this.drawnKey) return;
    this.drawnKey = key;
    const movable = new Set(slides.map((s) => s.src));
    for (let cell = 0; cell < 9; cell++) {
      const element = this.cells[cell]!;
      const here = tablet[cell] ?? ".";
      element.replaceChildren();
      element.className = "f8-cell";
      const where = `row ${Math.floor(cell / 3) + 1}, column ${(cell % 3) + 1}`;
      if (isColour(here)) {
        element.append(electron(here, false));
        element.setAttribute("aria-label", `${where}: ${COLOUR_NAMES[here]}`);
        if (movable.has(cell)) element.classList.add("f8-movable");
      } else {
        element.classList.add("f8-free");
        element.setAttribute("aria-label", `${where}: free space`);
        if (cell === this.active && this.freeCells().length > 1) element.classList.add("f8-active");
      }
      if (cell === this.selected) element.classList.add("f8-selected");
      const ghost = extras.ghost?.[cell];
      if (ghost && isColour(ghost)) {
        element.classList.add("f8-ghost", `f8-ghost-${ghost}`);
        element.append(h("span", { class: `f8-ghost-ring f8-c-${ghost}`, "aria-hidden": "true" }));
      }
    }
    if (this.selected !== null) {
      for (const dst of legal?.slideTargets(this.selected) ?? []) this.cells[dst]!.classList.add("f8-target");
    }
    const hint = extras.hint;
    if (hint && legal?.canSlide(hint.src, hint.dst)) {
      this.cells[hint.src]!.classList.add("f8-hint-src");
      this.cells[hint.dst]!.classList.add("f8-hint-dst");
      this.cells[hint.src]!.append(
        h("span", { class: "f8-hint-arrow", "aria-hidden": "true", text: arrowFor(hint.src, hint.dst) }),
      );
    }
    this.element.classList.toggle("f8-can-move", movable.size > 0);
    this.animate(before, tablet);
  }

  /** Show the lockout overlay with `left` seconds of `total`, or hide it (null). */
  setLock(left: number | null, total: number): void {
    if (left === null) {
      this.lock.hidden = true;
      this.element.classList.remove("f8-locked");
      return;
    }
    this.lock.hidden = false;
    this.element.classList.add("f8-locked");
    // Long past its end (a replay drawn on today's clock) a lockout has no countdown to show.
    this.lockText.textContent = left > -0.5 ? `${Math.max(0, left).toFixed(1)} s` : "";
    const share = total > 0 ? Math.min(1, Math.max(0, left / total)) : 0;
    this.lockBar.style.width = `${(share * 100).toFixed(1)}%`;
  }

  /** The slide an arrow key asks for now: the electron on that side of the active free space
   *  (or of the other free space when only it allows one), if legal offers it. */
  slideFor(direction: Direction): SlideMove | null {
    const legal = this.legal;
    if (legal === null) return null;
    const frees = this.freeCells();
    const order = this.active !== null && frees.includes(this.active)
      ? [this.active, ...frees.filter((f) => f !== this.active)]
      : frees;
    for (const dst of order) {
      const src = neighbour(dst, direction);
      if (src !== null && legal.canSlide(src, dst)) return { src, dst };
    }
    return null;
  }

  /** Make the next free space the active one (two free spaces only). */
  switchActive(): void {
    const frees = this.freeCells();
    if (frees.length < 2) return;
    const at = this.active === null ? -1 : frees.indexOf(this.active);
    this.active = frees[(at + 1) % frees.length]!;
    this.render(this.tablet, this.legal, this.extras);
  }

  /** Remove timers (the element goes with the board). */
  destroy(): void {
    clearTimeout(this.resetTimer);
  }

  private freeCells(): number[] {
    const out: number[] = [];
    for (let cell = 0; cell < 9; cell++) if (this.tablet[cell] === ".") out.push(cell);
    return out;
  }

  /** Keep the active free space on the free space it became after a slide. */
  private followActive(before: string, after: string): void {
    const frees: number[] = [];
    for (let cell = 0; cell < 9; cell++) if (after[cell] === ".") frees.push(cell);
    if (this.active !== null && frees.includes(this.active)) return;
    const opened = frees.filter((cell) => before[cell] !== undefined && before[cell] !== ".");
    this.active = opened[0] ?? frees[0] ?? null;
  }

  /** Draw one adjacent slide since the last render as a movement (FLIP). */
  private animate(before: string, after: string): void {
    if (before.length !== 9 || after.length !== 9 || before === after) return;
    const released = this.released;
    this.released = null;
    clearTimeout(this.resetTimer);
    const gone: number[] = [];
    const came: number[] = [];
    for (let cell = 0; cell < 9; cell++) {
      if (before[cell] !== "." && after[cell] === ".") gone.push(cell);
      else if (before[cell] === "." && after[cell] !== ".") came.push(cell);
      else if (before[cell] !== after[cell]) return;
    }
    if (gone.length !== 1 || came.length !== 1) return;
    const src = gone[0]!;
    const dst = came[0]!;
    if (before[src] !== after[dst]) return;
    const moved = this.cells[dst]!.querySelector<HTMLElement>(".f8-electron");
    if (!moved) return;
    const from = this.cells[src]!.getBoundingClientRect();
    const to = this.cells[dst]!.getBoundingClientRect();
    let share = 1;
    if (released && released.src === src && released.dst === dst) share = 1 - released.fraction;
    const dx = (from.left - to.left) * share;
    const dy = (from.top - to.top) * share;
    moved.classList.add("f8-sliding");
    moved.style.transition = "none";
    moved.style.transform = `translate(${dx}px, ${dy}px)`;
    void moved.getBoundingClientRect(); // commit the start position before transitioning
    moved.style.transition = "";
    moved.style.transform = "";
  }

  // --- input ----------------------------------------------------------------------------------

  private listen(): void {
    const gesture = this.options.onGesture!;
    this.grid.addEventListener("click", (event) => {
      const cell = this.cellOf(event.target);
      if (cell === null) return;
      if (this.suppressClick) {
        this.suppressClick = false;
        return;
      }
      gesture(() => this.clickSlide(cell));
    });
    this.grid.addEventListener("pointerdown", (event) => this.pointerDown(event));
    this.grid.addEventListener("pointermove", (event) => this.pointerMove(event));
    this.grid.addEventListener("pointerup", (event) => this.pointerUp(event));
    this.grid.addEventListener("pointercancel", () => this.cancelDrag());
  }

  private cellOf(target: EventTarget | null): number | null {
    const element = (target as HTMLElement | null)?.closest?.("[data-cell]");
    if (!element || !this.grid.contains(element)) return null;
    return Number(element.getAttribute("data-cell"));
  }

  /** A click on `cell`, resolved against the legal commands current now. */
  private clickSlide(cell: number): SlideMove | null {
    const legal = this.legal;
    if (legal === null) return null;
    if (this.tablet[cell] === ".") {
      // A free cell: finish the selected electron's slide, or make it the active free space.
      if (this.selected !== null && legal.canSlide(this.selected, cell)) {
        const move = { src: this.selected, dst: cell };
        this.selected = null;
        return move;
      }
      this.selected = null;
      this.active = cell;
      this.render(this.tablet, legal, this.extras);
      return null;
    }
    const targets = legal.slideTargets(cell);
    if (targets.length === 1) {
      this.selected = null;
      return { src: cell, dst: targets[0]! };
    }
    if (targets.length > 1) {
      this.selected = this.selected === cell ? null : cell;
      this.render(this.tablet, legal, this.extras);
      return null;
    }
    this.nudge(cell);
    return null;
  }

  /** A short shake: this electron cannot move now. */
  private nudge(cell: number): void {
    const element = this.cells[cell]!;
    element.classList.remove("f8-nudge");
    void element.offsetWidth;
    element.classList.add("f8-nudge");
  }

  private pointerDown(event: PointerEvent): void {
    if (event.button !== 0 || this.legal === null) return;
    const cell = this.cellOf(event.target);
    if (cell === null || this.tablet[cell] === "." || this.legal.slideTargets(cell).length === 0) return;
    this.drag = { cell, pointer: event.pointerId, x: event.clientX, y: event.clientY, moved: false, target: null, fraction: 0 };
    // Capture on the cell itself: a tap's click then still targets the cell.
    this.cells[cell]!.setPointerCapture?.(event.pointerId);
  }

  private pointerMove(event: PointerEvent): void {
    const drag = this.drag;
    if (!drag || event.pointerId !== drag.pointer || this.legal === null) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 6) return;
    drag.moved = true;
    const from = this.cells[drag.cell]!.getBoundingClientRect();
    let best: { dst: number; along: number; ux: number; uy: number; step: number } | null = null;
    for (const dst of this.legal.slideTargets(drag.cell)) {
      const to = this.cells[dst]!.getBoundingClientRect();
      const vx = to.left - from.left;
      const vy = to.top - from.top;
      const step = Math.hypot(vx, vy) || 1;
      const ux = vx / step;
      const uy = vy / step;
      const along = dx * ux + dy * uy;
      if (best === null || along > best.along) best = { dst, along, ux, uy, step };
    }
    const electronElement = this.cells[drag.cell]!.querySelector<HTMLElement>(".f8-electron");
    if (!best || !electronElement) return;
    const travel = Math.min(best.step, Math.max(0, best.along));
    drag.target = best.dst;
    drag.fraction = travel / best.step;
    electronElement.classList.add("f8-dragging");
    electronElement.style.transition = "none";
    electronElement.style.transform = `translate(${best.ux * travel}px, ${best.uy * travel}px)`;
  }

  private pointerUp(event: PointerEvent): void {
    const drag = this.drag;
    if (!drag || event.pointerId !== drag.pointer) return;
    this.drag = null;
    if (!drag.moved) return; // a tap: the click handler slides it
    this.suppressClick = true;
    setTimeout(() => (this.suppressClick = false), 0);
    if (drag.target !== null && drag.fraction >= 0.35) {
      const move = { src: drag.cell, dst: drag.target };
      this.released = { ...move, fraction: drag.fraction };
      this.options.onGesture!(() => (this.legal?.canSlide(move.src, move.dst) ? move : null));
      // If no new tablet arrives (refused, or nothing legal any more), spring back.
      clearTimeout(this.resetTimer);
      this.resetTimer = setTimeout(() => this.springBack(drag.cell), 1200);
    } else {
      this.springBack(drag.cell);
    }
  }

  private cancelDrag(): void {
    if (this.drag) this.springBack(this.drag.cell);
    this.drag = null;
  }

  private springBack(cell: number): void {
    const element = this.cells[cell]?.querySelector<HTMLElement>(".f8-electron");
    if (!element) return;
    element.classList.remove("f8-dragging");
    element.style.transition = "";
    element.style.transform = "";
  }
}
