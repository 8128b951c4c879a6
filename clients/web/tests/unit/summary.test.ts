// @vitest-environment jsdom
/** The end-of-game summary's raw figures ("All the figures") say times as people read them:
 *  a Flash 8 race's moments as clock times and its lengths of time as durations, never epoch
 *  seconds. */
import { describe, expect, it } from "vitest";

import { clockWords, durationWords, renderData } from "../../src/app/summary";

const START = 1_764_428_400;

describe("times in a game's figures", () => {
  it("says lengths of time in words", () => {
    expect(durationWords(0.84)).toBe("0.8 s");
    expect(durationWords(42.4)).toBe("42 s");
    expect(durationWords(200)).toBe("3 min 20 s");
    expect(durationWords(180)).toBe("3 min");
    expect(durationWords(3900)).toBe("1 h 5 min");
  });

  it("shows a Flash 8 race's report without an epoch time", () => {
    const details = {
      slides: 31,
      duration: 200.5,
      players: [{ seat: 0, points: 5, misses: 1 }],
      cards: [
        { card: "C07", seat: 0, stack: 2, at: START + 12.25, took: 3.21, slides: 4, optimal: 3 },
        { card: "C11", seat: 1, stack: 0, at: START + 75.5, took: 61, slides: 6, optimal: 6 },
      ],
    };
    const text = (renderData(details) as HTMLElement).textContent ?? "";
    expect(text).not.toMatch(/\d{9,}/);
    expect(text).toContain("3 min 21 s");
    expect(text).toContain("3.2 s");
    expect(text).toContain("1 min 1 s");
    expect(text).toContain(clockWords(START + 12.25));
    expect(clockWords(START + 12.25)).toMatch(/\d{1,2}:\d{2}:\d{2}/);
    expect(text).toContain("31"); // plain counts stay as they are
  });
});
