/**
 * Shared by the boards' unit tests (jsdom): a fake {@link BoardContext} that records what a
 * board does (commands, sounds, "caught up" calls) and fakes the server clock, plus a
 * microtask flush and key presses. Each board's own `testkit.ts` adds its fixtures and
 * mounting on top.
 */

import { vi } from "vitest";
import type { BoardContext, Command, SoundName } from "./types";

export interface FakeContextOptions {
  /** The seat seen from; null for a spectator (default 0). */
  seat?: number | null;
  readOnly?: boolean;
  /** A replay seen from `seat`: the board names the seat, never "you". */
  seenAs?: boolean;
  /** The fake server clock's start (room seconds, default 0). */
  now?: number;
  names?: string[];
  /** Every `act` rejects, as the server would refuse it. */
  reject?: boolean;
}

export interface FakeContext {
  context: BoardContext;
  /** Commands sent, in order. */
  acts: Command[];
  sounds: SoundName[];
  /** How many times the board said it had caught up (`context.settled`). */
  settled: { count: number };
  /** Set the fake server clock (room seconds). */
  setNow(seconds: number): void;
  /** From now on, `act` calls stay unanswered until `release()` (to test queued gestures). */
  hold(): void;
  /** Answer the `act` calls waiting now. */
  release(): Promise<void>;
}

export function fakeContext(options: FakeContextOptions = {}): FakeContext {
  const acts: Command[] = [];
  const sounds: SoundName[] = [];
  const settled = { count: 0 };
  const pending: Array<() => void> = [];
  let now = options.now ?? 0;
  let holding = false;
  const seat = options.seat === undefined ? 0 : options.seat;
  const context: BoardContext = {
    seat,
    readOnly: options.readOnly ?? seat === null,
    seenAs: options.seenAs ?? false,
    act: vi.fn(async (command: Command) => {
      acts.push(command);
      if (holding) await new Promise<void>((resolve) => pending.push(resolve));
      if (options.reject) throw new Error("rejected");
    }),
    sound: (name: SoundName) => sounds.push(name),
    serverNow: () => now,
    seatNames: options.names ?? ["Ada", "Bob", "Cy", "Di", "Eve"],
    settled: () => {
      settled.count += 1;
    },
  };
  return {
    context,
    acts,
    sounds,
    settled,
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
  };
}

/** Let pending promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 6; i++) await Promise.resolve();
}

/** Press a key on the document (as a player would, with no text field focused): keydown,
 *  then keyup. Returns the keydown event (to check `defaultPrevented`). */
export function press(key: string, target: EventTarget = document.body): KeyboardEvent {
  const down = new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true });
  target.dispatchEvent(down);
  target.dispatchEvent(new KeyboardEvent("keyup", { key, bubbles: true, cancelable: true }));
  return down;
}
