/**
 * Test helpers for the Flash 8 board's unit tests (jsdom): the engine-made fixtures
 * (`fixtures.json`, written by `fixtures.py`), a fake board context that records commands and
 * sounds and fakes the server clock, and key presses.
 */

import { vi } from "vitest";
import type { Board, BoardContext, Command, LegalEntry, SoundName } from "../types";
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

export interface Harness {
  root: HTMLElement;
  board: Board;
  context: BoardContext;
  /** Commands sent, in order. */
  acts: Command[];
  sounds: SoundName[];
  /** Set the fake server clock (room seconds). */
  setNow(seconds: number): void;
  /** From now on, `act` calls stay unanswered until `release()` (to test queued gestures). */
  hold(): void;
  /** Answer the `act` calls waiting now. */
  release(): Promise<void>;
  /** Draw a fixture (first view: no previous). */
  show<V>(fixture: Fixture<V>, previous?: unknown): void;
  destroy(): void;
}

export interface HarnessOptions {
  seat?: number | null;
  readOnly?: boolean;
  now?: number;
  names?: string[];
  loader?: HighScoreLoader;
}

/** A board mounted in the document with a fake context. */
export function mount(options: HarnessOptions = {}): Harness {
  const root = document.createElement("div");
  document.body.append(root);
  const acts: Command[] = [];
  const sounds: SoundName[] = [];
  let now = options.now ?? 0;
  let holding = false;
  const pending: Array<() => void> = [];
  const context: BoardContext = {
    seat: options.seat === undefined ? 0 : options.seat,
    readOnly: options.readOnly ?? false,
    act: vi.fn(async (command: Command) => {
      acts.push(command);
      if (holding) await new Promise<void>((resolve) => pending.push(resolve));
    }),
    sound: (name: SoundName) => sounds.push(name),
    serverNow: () => now,
    seatNames: options.names ?? ["Ada", "Bob", "Cy", "Di"],
  };
  const board = makeBoard(root, context, options.loader ?? (async () => []));
  return {
    root,
    board,
    context,
    acts,
    sounds,
    setNow(seconds: number) {
      now = seconds;
    },
    hold() {
      holding = true;
    },
    async release() {
      for (const resolve of pending.splice(0)) resolve();
      await settle();
    },
    show<V>(fixture: Fixture<V>, previous: unknown = null) {
      board.update(fixture.view, fixture.legal, previous);
    },
    destroy() {
      board.destroy();
      root.remove();
    },
  };
}

/** Let pending promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

/** Press a key on the document (as a player would, with no text field focused). */
export function press(key: string, target: EventTarget = document.body): KeyboardEvent {
  const down = new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true });
  target.dispatchEvent(down);
  target.dispatchEvent(new KeyboardEvent("keyup", { key, bubbles: true, cancelable: true }));
  return down;
}

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
