/**
 * Test helpers for the Neon Hex board's unit tests (jsdom): the engine-made fixtures
 * (`fixtures.json`, written by `fixtures.py`) and a board mounted with a fake context that
 * records commands and sounds.
 */

import { vi } from "vitest";
import type { Board, BoardContext, Command, LegalEntry, SoundName } from "../types";
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

export interface Harness {
  root: HTMLElement;
  board: Board;
  acts: Command[];
  sounds: SoundName[];
  /** How many times the board said it had caught up (`context.settled`). */
  settled: { count: number };
  show(fixture: Fixture, previous?: Fixture | null): void;
  destroy(): void;
}

export function mount(options: { seat?: number | null; readOnly?: boolean; names?: string[]; reject?: boolean } = {}): Harness {
  const root = document.createElement("div");
  document.body.append(root);
  const acts: Command[] = [];
  const sounds: SoundName[] = [];
  const settled = { count: 0 };
  const seat = options.seat === undefined ? 0 : options.seat;
  const context: BoardContext = {
    seat,
    readOnly: options.readOnly ?? seat === null,
    act: vi.fn(async (command: Command) => {
      acts.push(command);
      if (options.reject) throw new Error("rejected");
    }),
    sound: (name: SoundName) => sounds.push(name),
    serverNow: () => 0,
    seatNames: options.names ?? ["Ada", "Bob", "Cy", "Di", "Eve"],
    settled: () => {
      settled.count += 1;
    },
  };
  const board = makeBoard(root, context, TEST_TIMING);
  return {
    root,
    board,
    acts,
    sounds,
    settled,
    show(next: Fixture, previous: Fixture | null = null) {
      board.update(next.view, next.legal, previous ? previous.view : null);
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

export function press(key: string, target: EventTarget = document.body): KeyboardEvent {
  const down = new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true });
  target.dispatchEvent(down);
  return down;
}

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
