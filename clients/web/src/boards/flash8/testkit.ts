/**
 * Test helpers for the Flash 8 board's unit tests (jsdom): the engine-made fixtures
 * (`fixtures.json`, written by `fixtures.py`) and the board mounted on the shared fake context
 * (`../testkit.ts`, which also has `settle` and `press`).
 */

import { type FakeContext, type FakeContextOptions, fakeContext } from "../testkit";
import type { Board, LegalEntry } from "../types";
import raw from "./fixtures.json";
import { makeBoard } from "./index";
import type { HighScoreLoader } from "./solo";
import type { RaceView, SoloView } from "./view";

export interface Fixture<V> {
  view: V;
  legal: LegalEntry[];
}

const FIXTURES = raw as unknown as Record<string, Fixture<unknown>>;

/** A fixture by name, deep-copied so a test may change it. */
export function race(name: string): Fixture<RaceView> {
  return structuredClone(FIXTURES[name] as Fixture<RaceView>);
}

export function solo(name: string): Fixture<SoloView> {
  return structuredClone(FIXTURES[name] as Fixture<SoloView>);
}

export interface Harness extends FakeContext {
  root: HTMLElement;
  board: Board;
  /** Draw a fixture (first view: no previous). */
  show<V>(fixture: Fixture<V>, previous?: unknown): void;
  destroy(): void;
}

export interface HarnessOptions extends FakeContextOptions {
  loader?: HighScoreLoader;
}

/** A board mounted in the document with a fake context. */
export function mount(options: HarnessOptions = {}): Harness {
  const root = document.createElement("div");
  document.body.append(root);
  const fake = fakeContext({ names: ["Ada", "Bob", "Cy", "Di"], ...options, readOnly: options.readOnly ?? options.seenAs ?? false });
  const board = makeBoard(root, fake.context, options.loader ?? (async () => []));
  return {
    ...fake,
    root,
    board,
    show<V>(fixture: Fixture<V>, previous: unknown = null) {
      board.update(fixture.view, fixture.legal, previous);
    },
    destroy() {
      board.destroy();
      root.remove();
    },
  };
}

export { press, settle } from "../testkit";

/** The cell buttons of the large tablet. */
export function myCells(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(".f8-tablet-large .f8-cell")];
}

/** The colours drawn in a set of cells ("." for a cell without an electron). */
export function drawn(cells: HTMLElement[]): string {
  return cells.map((cell) => cell.querySelector(".f8-electron")?.getAttribute("data-colour") ?? ".").join("");
}

/** The cell one step from `cell` ("up": the row above), or null. */
export function step(cell: number, direction: "up" | "down" | "left" | "right"): number | null {
  const row = Math.floor(cell / 3) + (direction === "up" ? -1 : direction === "down" ? 1 : 0);
  const col = (cell % 3) + (direction === "left" ? -1 : direction === "right" ? 1 : 0);
  return row >= 0 && row < 3 && col >= 0 && col < 3 ? row * 3 + col : null;
}
