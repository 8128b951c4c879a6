/**
 * Test helpers for the Neon Flip board's unit tests (jsdom): the engine-made fixtures
 * (`fixtures.json`, written by `fixtures.py`), a fake board context recording commands and
 * sounds, and key presses.
 */

import { vi } from "vitest";
import type { Board, BoardContext, Command, LegalEntry, SoundName } from "../types";
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

export interface Harness {
  root: HTMLElement;
  board: Board;
  acts: Command[];
  sounds: SoundName[];
  /** How many times the board said it had caught up (`context.settled`). */
  settled: { count: number };
  setNow(seconds: number): void;
  show(fixture: Fixture, previous?: unknown): void;
  destroy(): void;
}

export interface HarnessOptions {
  seat?: number | null;
  readOnly?: boolean;
  now?: number;
  stepMs?: number;
  reject?: boolean;
}

/** A board mounted in the document with a fake context. */
export function mount(options: HarnessOptions = {}): Harness {
  const root = document.createElement("div");
  document.body.append(root);
  const acts: Command[] = [];
  const sounds: SoundName[] = [];
  const settled = { count: 0 };
  let now = options.now ?? 0;
  const context: BoardContext = {
    seat: options.seat === undefined ? 0 : options.seat,
    readOnly: options.readOnly ?? false,
    act: vi.fn(async (command: Command) => {
      acts.push(command);
      if (options.reject) throw new Error("rejected");
    }),
    sound: (name: SoundName) => sounds.push(name),
    serverNow: () => now,
    seatNames: ["Ada", "Bob", "Cy", "Di"],
    settled: () => {
      settled.count += 1;
    },
  };
  const board = makeBoard(root, context, { stepMs: options.stepMs ?? 0 });
  return {
    root,
    board,
    acts,
    sounds,
    settled,
    setNow(seconds: number) {
      now = seconds;
    },
    show(f: Fixture, previous: unknown = null) {
      board.update(f.view, f.legal, previous);
    },
    destroy() {
      board.destroy();
      root.remove();
    },
  };
}

/** Let pending promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 6; i++) await Promise.resolve();
}

/** Press a key on the document (as a player would, with no text field focused). */
export function press(key: string, target: EventTarget = document.body): KeyboardEvent {
  const down = new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true });
  target.dispatchEvent(down);
  return down;
}

export function tile(root: HTMLElement, slot: number): HTMLButtonElement {
  return root.querySelector<HTMLButtonElement>(`.nf-tile[data-slot="${slot}"]`)!;
}

export function lit(root: HTMLElement): number[] {
  return [...root.querySelectorAll<HTMLElement>(".nf-tile.lit")].map((t) => Number(t.dataset.slot));
}

export function card(root: HTMLElement, id: string, where = ".nf-hand"): HTMLButtonElement {
  return root.querySelector<HTMLButtonElement>(`${where} .nf-card[data-card="${id}"]`)!;
}
