// @vitest-environment jsdom
/**
 * The solo board against views the engine made (fixtures.json): the grid, lines, reminder
 * token, reserve, clock and result, and that line claims send exactly legal commands.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { HighScore } from "./view";
import { drawn, mount, myCells, press, settle, solo, type Harness } from "./testkit";

let harness: Harness;

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  harness?.destroy();
  vi.useRealTimers();
});

function $(selector: string): HTMLElement | null {
  return harness.root.querySelector<HTMLElement>(selector);
}

function $$(selector: string): HTMLElement[] {
  return [...harness.root.querySelectorAll<HTMLElement>(selector)];
}

function lineButton(line: number): HTMLButtonElement {
  return $(`.f8-line[data-line="${line}"]`) as HTMLButtonElement;
}

describe("a running solo game", () => {
  beforeEach(() => {
    harness = mount({ now: 3.5 });
    harness.show(solo("solo_running"));
  });

  it("draws the grid: each card's colour in its shape", () => {
    const view = solo("solo_running").view;
    const faces = $$(".f8-grid-cell .f8-solo-card");
    expect(faces).toHaveLength(9);
    faces.forEach((face, cell) => {
      expect(face.dataset.colour).toBe(view.grid[cell]!.colour);
      expect(face.dataset.shape).toBe(view.grid[cell]!.shape);
      expect(face.querySelector(`svg.f8-shape-${view.grid[cell]!.shape}`)).not.toBeNull();
      expect(face.querySelector(".f8-electron svg.f8-glyph")).not.toBeNull();
    });
  });

  it("draws the tablet, the reserve with its top face, the score and the clock", () => {
    const view = solo("solo_running").view;
    expect(drawn(myCells(harness.root))).toBe(view.seats[0]!.tablet);
    expect($(".f8-reserve-size")?.textContent).toBe("43");
    expect($(".f8-reserve .f8-solo-card")?.dataset.shape).toBe(view.reserve.top!.shape);
    expect($(".f8-solo-score")?.textContent).toBe("Reserve 43 · GLUON");
    // ends_at 243: at room time 3.5, 239.5 s are left.
    expect($(".f8-clock")?.textContent).toBe("4:00");
    harness.setNow(233.2);
    vi.advanceTimersByTime(100);
    expect($(".f8-clock")?.textContent).toBe("0:10");
    expect($(".f8-clock")?.classList.contains("f8-urgent")).toBe(true);
    expect(harness.sounds).toContain("tick");
  });

  it("marks lines that can never be reproduced", () => {
    // solo_running: the top row (GGY) and the right column (YYY) are impossible.
    expect(lineButton(0).classList.contains("f8-impossible")).toBe(true);
    expect(lineButton(5).classList.contains("f8-impossible")).toBe(true);
    expect(lineButton(1).classList.contains("f8-impossible")).toBe(false);
  });

  it("claims a line with the chosen shape by click", async () => {
    lineButton(3).click();
    const chooser = $(".f8-chooser")!;
    expect(chooser.hidden).toBe(false);
    const choices = [...chooser.querySelectorAll<HTMLButtonElement>(".f8-shape-choice")];
    expect(choices.map((c) => c.dataset.shape)).toEqual(["circle", "cross", "star", "square"]);
    // The left column (cells 0, 3, 6) shows a cross, a circle and a square.
    expect(choices.map((c) => c.querySelector(".f8-shape-count")?.textContent)).toEqual([
      "covers 1",
      "covers 1",
      "covers none",
      "covers 1",
    ]);
    choices[3]!.click();
    await settle();
    expect(chooser.hidden).toBe(true);
    expect(harness.acts).toEqual([{ type: "claim_line", line: 3, shape: "square" }]);
  });

  it("claims by keys: a line 1-6, then a shape 1-4 or its letter; Escape cancels", async () => {
    press("2");
    press("Escape");
    expect($(".f8-chooser")?.hidden).toBe(true);
    press("2");
    press("3");
    await settle();
    press("5");
    press("x");
    await settle();
    expect(harness.acts).toEqual([
      { type: "claim_line", line: 1, shape: "star" },
      { type: "claim_line", line: 4, shape: "cross" },
    ]);
  });

  it("rings a line's colours on the tablet while it is considered", () => {
    lineButton(2).dispatchEvent(new Event("pointerenter"));
    const cells = myCells(harness.root);
    const ringed = cells.filter((c) => c.classList.contains("f8-ghost")).map((c) => Number(c.dataset.cell));
    expect(ringed).toEqual([6, 7, 8]);
    expect(cells[6]!.classList.contains("f8-ghost-B")).toBe(true);
    lineButton(2).dispatchEvent(new Event("pointerleave"));
    expect(myCells(harness.root).some((c) => c.classList.contains("f8-ghost"))).toBe(false);
  });

  it("slides by arrow keys as in the race", async () => {
    // Free space at 2: left is cell 1, down is cell 5.
    press("ArrowLeft");
    await settle();
    press("ArrowDown");
    await settle();
    press("ArrowUp");
    await settle();
    expect(harness.acts).toEqual([
      { type: "slide", src: 1, dst: 2 },
      { type: "slide", src: 5, dst: 2 },
    ]);
  });
});

describe("the reminder token", () => {
  it("stands by the line last claimed, which may not be claimed next", async () => {
    harness = mount({ now: 4.5 });
    const before = solo("solo_running");
    harness.show(before);
    const fixture = solo("solo_claimed");
    harness.show(fixture, before.view);
    expect(harness.sounds).toContain("claim");
    const token = fixture.view.token!;
    expect(lineButton(token).disabled).toBe(true);
    expect(lineButton(token).querySelector(".f8-token")).not.toBeNull();
    expect($$(".f8-token")).toHaveLength(1);
    press(String(token + 1));
    expect($(".f8-chooser")?.hidden).toBe(true);
    lineButton(token).click();
    await settle();
    expect(harness.acts).toEqual([]);
    // The covered cell shows its new card, two deep.
    const covered = fixture.view.claims[0]!.covered[0]!;
    const face = $(`.f8-grid-cell[data-cell="${covered}"] .f8-solo-card`)!;
    expect(face.classList.contains("f8-covered")).toBe(true);
    expect(face.querySelector(".f8-depth")?.textContent).toBe("×2");
    expect($(".f8-reserve-size")?.textContent).toBe("42");
  });
});

describe("a wrong claim", () => {
  it("locks the tablet with a countdown and refuses claims", async () => {
    const fixture = solo("solo_locked");
    const until = fixture.view.seats[0]!.locked_until!;
    harness = mount({ now: until - 1.5 });
    const before = solo("solo_claimed");
    harness.show(before);
    harness.show(fixture, before.view);
    expect(harness.sounds).toContain("fail");
    expect($(".f8-lock")?.hidden).toBe(false);
    expect($(".f8-lock")?.textContent).toContain("1.5 s");
    expect($$(".f8-line").every((b) => (b as HTMLButtonElement).disabled)).toBe(true);
    press("2");
    press("1");
    press("ArrowUp");
    await settle();
    expect(harness.acts).toEqual([]);
  });
});

describe("the end of a solo game", () => {
  const scores: HighScore[] = [
    { player: "Zed", score: 0, rank: "TACHYON", room: "r-1", at: 1_700_000_000 },
    { player: "Ada", score: 0, rank: "TACHYON", room: "r-2", at: 1_700_000_100 },
    { player: "Bob", score: 12, rank: "NEUTRINO", room: "r-3", at: 1_700_000_200 },
  ];

  it("shows the score, rank, report and the high scores, the player's own marked", async () => {
    const loader = vi.fn(async () => scores);
    harness = mount({ now: 60, loader, names: ["Ada"] });
    const before = solo("solo_claimed");
    harness.show(before);
    const fixture = solo("solo_finished");
    harness.show(fixture, before.view);
    const result = $(".f8-result")!;
    expect(result.hidden).toBe(false);
    expect(result.querySelector(".f8-result-score")?.textContent).toBe("0");
    expect(result.querySelector(".f8-result-rank")?.textContent).toContain("TACHYON");
    expect(result.querySelector(".f8-result-words")?.textContent).toBe("Not yet detected!!");
    expect(result.querySelector(".f8-report-reason")?.textContent).toContain("The reserve is empty");
    const details = fixture.view.outcome!.details as Record<string, number>;
    const stats = Object.fromEntries(
      [...result.querySelectorAll(".f8-stat")].map((s) => [s.querySelector("dt")?.textContent, s.querySelector("dd")?.textContent]),
    );
    expect(stats["Lines claimed"]).toBe(String(details.claims));
    expect(stats["Cards covered"]).toBe(String(details.covered));
    expect(stats["Slides"]).toBe(String(details.slides));
    // The list is fetched a moment after the end (the server records the score first).
    expect(loader).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(500);
    expect(loader).toHaveBeenCalledTimes(1);
    const rows = [...result.querySelectorAll(".f8-highscore-list li")];
    expect(rows.map((r) => r.querySelector(".f8-hs-player")?.textContent)).toEqual(["Zed", "Ada", "Bob"]);
    expect(rows.map((r) => r.classList.contains("f8-me"))).toEqual([false, true, false]);
    await vi.advanceTimersByTimeAsync(3000);
    expect(loader).toHaveBeenCalledTimes(1); // found: no second request
  });

  it("asks again once when its score is not listed yet, and copes with no server", async () => {
    const loader = vi.fn(async (): Promise<HighScore[]> => []);
    harness = mount({ now: 60, loader, names: ["Ada"] });
    harness.show(solo("solo_time_up"));
    expect($(".f8-result-rank")?.textContent).toContain("GLUON");
    expect($(".f8-report-reason")?.textContent).toContain("Time is up");
    await vi.advanceTimersByTimeAsync(500);
    expect($(".f8-highscores")?.textContent).toContain("No high scores yet.");
    await vi.advanceTimersByTimeAsync(2000);
    expect(loader).toHaveBeenCalledTimes(2);
    harness.destroy();
    const failing = vi.fn(async (): Promise<HighScore[]> => {
      throw new Error("offline");
    });
    harness = mount({ now: 60, loader: failing });
    harness.show(solo("solo_time_up"));
    await vi.advanceTimersByTimeAsync(500);
    expect($(".f8-highscores")?.textContent).toContain("not available");
  });
});

describe("before the start", () => {
  it("counts down and takes nothing", async () => {
    harness = mount({ now: 1.5 });
    harness.show(solo("solo_countdown"));
    expect($(".f8-countdown-number")?.textContent).toBe("2");
    press("1");
    press("ArrowLeft");
    await settle();
    expect(harness.acts).toEqual([]);
    expect($(".f8-chooser")?.hidden).toBe(true);
  });
});
