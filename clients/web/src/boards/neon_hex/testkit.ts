/**
 * Test helpers for the Neon Hex board's unit tests (jsdom): the engine-made fixtures
 * (`fixtures.json`, written by `fixtures.py`) and the board mounted on the shared fake context
 * (`../testkit.ts`, which also has `settle` and `press`).
 */

import { type FakeContext, type FakeContextOptions, fakeContext } from "../testkit";
import type { Board, LegalEntry } from "../types";
import raw from "./fixtures.json";
import { makeBoard, type Timing } from "./index";
import type { NeonHexView } from "./view";

export interface Fixture {
  view: NeonHexView;
  legal: LegalEntry[];
}

const FIXTURES = raw as unknown as Record<string, Fixture | Fixture[]>;

/** A fixture by name, deep-copied so a test may change it. */
export function fixture(name: string): Fixture {
  const found = FIXTURES[name];
  if (!found || Array.isArray(found)) throw new Error(`no fixture ${name}`);
  return structuredClone(found);
}

/** A list of fixtures (a bot turn, view by view). */
export function frames(name: string): Fixture[] {
  const found = FIXTURES[name];
  if (!Array.isArray(found)) throw new Error(`no fixture list ${name}`);
  return structuredClone(found);
}

export const TEST_TIMING: Timing = { roll: 1000, claim: 400, turn: 300 };

export interface Harness extends FakeContext {
  root: HTMLElement;
  board: Board;
  show(fixture: Fixture, previous?: Fixture | null): void;
  destroy(): void;
}

export function mount(options: FakeContextOptions = {}): Harness {
  const root = document.createElement("div");
  document.body.append(root);
  const fake = fakeContext(options);
  const board = makeBoard(root, fake.context, TEST_TIMING);
  return {
    ...fake,
    root,
    board,
    show(next: Fixture, previous: Fixture | null = null) {
      board.update(next.view, next.legal, previous ? previous.view : null);
    },
    destroy() {
      board.destroy();
      root.remove();
    },
  };
}

export { press, settle } from "../testkit";

export function hexEl(root: HTMLElement, id: number): SVGGElement {
  const found = root.querySelector<SVGGElement>(`.nh-hex[data-hex="${id}"]`);
  if (!found) throw new Error(`no hex ${id}`);
  return found;
}

/** Ids of the hexes drawn with a class. */
export function marked(root: HTMLElement, cls: string): number[] {
  return [...root.querySelectorAll(`.nh-hex.${cls}`)].map((el) => Number(el.getAttribute("data-hex")));
}

export function click(element: Element): void {
  element.dispatchEvent(new MouseEvent("click", { bubbles: true }));
}
