/**
 * Test helpers for the Neon Flip board's unit tests (jsdom): the engine-made fixtures
 * (`fixtures.json`, written by `fixtures.py`) and the board mounted on the shared fake context
 * (`../testkit.ts`, which also has `settle` and `press`).
 */

import { type FakeContext, type FakeContextOptions, fakeContext } from "../testkit";
import type { Board, LegalEntry } from "../types";
import raw from "./fixtures.json";
import { makeBoard } from "./index";
import type { NeonFlipView } from "./view";

export interface Fixture {
  view: NeonFlipView;
  legal: LegalEntry[];
}

const FIXTURES = raw as unknown as Record<string, Fixture>;

/** A fixture by name, deep-copied so a test may change it. */
export function fixture(name: string): Fixture {
  const found = FIXTURES[name];
  if (!found) throw new Error(`no fixture ${name}`);
  return structuredClone(found);
}

export function fixtureNames(): string[] {
  return Object.keys(FIXTURES);
}

export interface Harness extends FakeContext {
  root: HTMLElement;
  board: Board;
  show(fixture: Fixture, previous?: unknown): void;
  destroy(): void;
}

export interface HarnessOptions extends FakeContextOptions {
  stepMs?: number;
}

/** A board mounted in the document with a fake context. */
export function mount(options: HarnessOptions = {}): Harness {
  const root = document.createElement("div");
  document.body.append(root);
  const fake = fakeContext({ names: ["Ada", "Bob", "Cy", "Di"], ...options, readOnly: options.readOnly ?? false });
  const board = makeBoard(root, fake.context, { stepMs: options.stepMs ?? 0 });
  return {
    ...fake,
    root,
    board,
    show(f: Fixture, previous: unknown = null) {
      board.update(f.view, f.legal, previous);
    },
    destroy() {
      board.destroy();
      root.remove();
    },
  };
}

export { press, settle } from "../testkit";

export function tile(root: HTMLElement, slot: number): HTMLButtonElement {
  return root.querySelector<HTMLButtonElement>(`.nf-tile[data-slot="${slot}"]`)!;
}

export function lit(root: HTMLElement): number[] {
  return [...root.querySelectorAll<HTMLElement>(".nf-tile.lit")].map((t) => Number(t.dataset.slot));
}

export function card(root: HTMLElement, id: string, where = ".nf-hand"): HTMLButtonElement {
  return root.querySelector<HTMLButtonElement>(`${where} .nf-card[data-card="${id}"]`)!;
}
