// @vitest-environment jsdom
/**
 * The race board against views the engine made (fixtures.json): what is drawn, and that only
 * legal gestures become `act` calls, by keyboard and by click.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { drawn, mount, myCells, press, race, settle, step, type Harness } from "./testkit";

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

describe("before the start", () => {
  it("shows READY while waiting and takes no command", async () => {
    harness = mount({ now: 0 });
    harness.show(race("race_waiting"));
    expect($(".f8-countdown")?.hidden).toBe(false);
    expect($(".f8-countdown-number")?.textContent).toBe("READY");
    expect(($(".f8-flash") as HTMLButtonElement).disabled).toBe(true);
    press(" ");
    press("ArrowUp");
    myCells(harness.root)[5]!.click();
    await settle();
    expect(harness.acts).toEqual([]);
  });

  it("counts down from starts_at on the server clock, ticking each second", () => {
    const fixture = race("race_countdown");
    expect(fixture.view.starts_at).toBe(3);
    harness = mount({ now: 0.4 });
    harness.show(fixture);
    expect($(".f8-countdown-number")?.textContent).toBe("3");
    expect($(".f8-clock")?.textContent).toBe("Starts in 0:03");
    harness.setNow(1.2);
    vi.advanceTimersByTime(100);
    expect($(".f8-countdown-number")?.textContent).toBe("2");
    harness.setNow(2.5);
    vi.advanceTimersByTime(100);
    expect($(".f8-countdown-number")?.textContent).toBe("1");
    harness.setNow(3.05);
    vi.advanceTimersByTime(100);
    expect($(".f8-countdown-number")?.textContent).toBe("GO!");
    expect(harness.sounds).toEqual(["tick", "tick"]);
    // A countdown long past (a replay on today's clock) shows nothing.
    harness.setNow(100);
    vi.advanceTimersByTime(100);
    expect($(".f8-countdown")?.hidden).toBe(true);
  });

  it("hides the countdown once the race has run a moment", () => {
    harness = mount({ now: 5 });
    harness.show(race("race_running"));
    expect($(".f8-countdown")?.hidden).toBe(true);
  });
});

describe("a running race, seen from the south seat", () => {
  beforeEach(() => {
    harness = mount({ now: 4 });
    harness.show(race("race_running"));
  });

  it("draws every tablet, in its owner's frame, and the stack tops as the view gives them", () => {
    const fixture = race("race_running");
    expect(drawn(myCells(harness.root))).toBe(fixture.view.seats[0]!.tablet);
    const small = $$(".f8-seat .f8-cell");
    expect(drawn(small)).toBe(fixture.view.seats[1]!.tablet);
    for (const stack of fixture.view.stacks) {
      const cells = $$(`.f8-stack[data-stack="${stack.stack}"] .f8-card-cell`);
      expect(drawn(cells).replace(/\./g, "-")).toBe(stack.top!.pattern);
      expect($(`.f8-stack[data-stack="${stack.stack}"] .f8-stack-size`)?.textContent).toBe(`${stack.size} left`);
    }
    expect($(".f8-frame")?.textContent).toContain("south");
  });

  it("gives every electron a symbol as well as a colour", () => {
    for (const disc of $$(".f8-tablet-large .f8-electron")) {
      expect(disc.querySelector("svg.f8-glyph")).not.toBeNull();
    }
    const labels = myCells(harness.root).map((cell) => cell.getAttribute("aria-label"));
    expect(labels[0]).toBe("row 1, column 1: red");
    expect(labels[8]).toBe("row 3, column 3: free space");
  });

  it("slides the electron on the pressed side of the free space (arrow keys)", async () => {
    // Free space at 8: up is cell 5, left is cell 7; down and right are off the tablet.
    press("ArrowUp");
    await settle();
    press("ArrowLeft");
    await settle();
    press("ArrowDown");
    press("ArrowRight");
    await settle();
    expect(harness.acts).toEqual([
      { type: "slide", src: step(8, "up"), dst: 8 },
      { type: "slide", src: step(8, "left"), dst: 8 },
    ]);
  });

  it("prevents the page from scrolling on used keys only", () => {
    expect(press("ArrowUp").defaultPrevented).toBe(true);
    expect(press("ArrowDown").defaultPrevented).toBe(true);
    expect(press("a").defaultPrevented).toBe(false);
  });

  it("leaves keys alone while the player types in a text field", async () => {
    const input = document.createElement("input");
    document.body.append(input);
    press(" ", input);
    press("ArrowUp", input);
    await settle();
    expect(harness.acts).toEqual([]);
    input.remove();
  });

  it("slides a clicked electron into the free space next to it, and nothing else", async () => {
    const cells = myCells(harness.root);
    cells[0]!.click(); // not next to the free space
    cells[8]!.click(); // the free space itself
    await settle();
    expect(harness.acts).toEqual([]);
    cells[7]!.click();
    await settle();
    expect(harness.acts).toEqual([{ type: "slide", src: 7, dst: 8 }]);
  });

  it("marks the electrons that may move", () => {
    const movable = myCells(harness.root).filter((cell) => cell.classList.contains("f8-movable"));
    expect(movable.map((cell) => Number(cell.dataset.cell))).toEqual([5, 7]);
  });

  it("calls FLASH by the button and the space bar, and on a stack by click or its number", async () => {
    ($(".f8-flash") as HTMLButtonElement).click();
    await settle();
    press(" ");
    await settle();
    press("2");
    await settle();
    ($('.f8-stack[data-stack="0"]') as HTMLButtonElement).click();
    await settle();
    press("4"); // there is no stack 4 in a two-player race
    await settle();
    expect(harness.acts).toEqual([
      { type: "flash" },
      { type: "flash" },
      { type: "flash", stack: 1 },
      { type: "flash", stack: 0 },
    ]);
  });

  it("asks for a hint by button and H when the room allows", async () => {
    const button = $(".f8-hint-button") as HTMLButtonElement;
    expect(button.hidden).toBe(false);
    button.click();
    await settle();
    press("h");
    await settle();
    expect(harness.acts).toEqual([{ type: "hint" }, { type: "hint" }]);
  });

  it("shows the time left under a time limit", () => {
    // ends_at 303: at room time 4, 299 s are left.
    expect($(".f8-clock")?.textContent).toBe("4:59 left");
  });

  it("sends quick gestures one at a time, each against the legal commands of its turn", async () => {
    harness.hold();
    press("ArrowUp"); // 5 -> 8
    press("ArrowUp"); // waits: after the first slide the free space is 5, so 2 -> 5
    press(" "); // waits too
    await settle();
    expect(harness.acts).toEqual([{ type: "slide", src: 5, dst: 8 }]);
    // The server's answer: the view after the slide, then `accepted`.
    harness.show(race("race_after_slide"), race("race_running").view);
    await harness.release();
    expect(harness.acts).toEqual([
      { type: "slide", src: 5, dst: 8 },
      { type: "slide", src: 2, dst: 5 },
    ]);
    await harness.release();
    expect(harness.acts.at(-1)).toEqual({ type: "flash" });
  });
});

describe("changes between views", () => {
  it("animates a slide and plays the slide sound", () => {
    harness = mount({ now: 4 });
    const before = race("race_running");
    harness.show(before);
    harness.show(race("race_after_slide"), before.view);
    const moved = myCells(harness.root)[8]!.querySelector(".f8-electron");
    expect(moved?.classList.contains("f8-sliding")).toBe(true);
    expect(harness.sounds).toContain("slide");
  });

  it("announces cards taken: claim for mine, flip for others, and updates the scores", () => {
    harness = mount({ now: 10 });
    const before = race("race_running");
    harness.show(before);
    const after = race("race_middle");
    harness.show(after, before.view);
    // race_middle: seat 1 took two cards, seat 0 one.
    expect(harness.sounds.filter((s) => s === "flip")).toHaveLength(2);
    expect(harness.sounds.filter((s) => s === "claim")).toHaveLength(1);
    const toasts = $$(".f8-toast").map((t) => t.textContent);
    expect(toasts.some((t) => t?.startsWith("FLASH! You took F8-09"))).toBe(true);
    expect(toasts.some((t) => t?.startsWith("Bob took F8-17 (+2 points)"))).toBe(true);
    const points = $$(".f8-score-points").map((p) => p.textContent);
    expect(points).toEqual(["1", "3"]);
    expect($$(".f8-flying").length).toBeGreaterThan(0);
    expect($$(".f8-card.f8-reveal").length).toBe(2);
  });

  it("draws the last hint: an arrow on the tablet and the target stack ringed", () => {
    harness = mount({ now: 10 });
    harness.show(race("race_middle"));
    const hint = race("race_middle").view.seats[0]!.hint!;
    const cells = myCells(harness.root);
    expect(cells[hint.src!]!.classList.contains("f8-hint-src")).toBe(true);
    expect(cells[hint.dst!]!.classList.contains("f8-hint-dst")).toBe(true);
    expect($(`.f8-stack[data-stack="${hint.target}"]`)?.classList.contains("f8-hinted")).toBe(true);
    expect($(".f8-hint-text")?.textContent).toContain(`${hint.slides} slides away`);
  });
});

describe("hints going stale", () => {
  it("hides the hint once a stack top changes or the tablet moves", () => {
    harness = mount({ now: 10 });
    const fixture = race("race_middle");
    harness.show(fixture);
    expect($(".f8-hint-text")?.textContent).not.toBe("");
    // Another player takes the top of stack 1: the hint was computed for the old tops.
    const taken = race("race_middle");
    taken.view.stacks[1]!.top = { card: "F8-01", pattern: "B--------", points: 1, electrons: 1 };
    harness.show(taken, fixture.view);
    expect($(".f8-hint-text")?.textContent).toBe("");
    expect($$(".f8-tablet-large .f8-hint-src")).toHaveLength(0);
    expect($$(".f8-stack.f8-hinted")).toHaveLength(0);
  });
});

describe("lockouts", () => {
  it("locks the player's tablet with a countdown and refuses every gesture", async () => {
    const fixture = race("race_locked");
    const until = fixture.view.seats[0]!.locked_until!;
    harness = mount({ now: until - 1.3 });
    harness.show(race("race_middle"));
    harness.show(fixture, race("race_middle").view);
    expect(harness.sounds).toContain("fail");
    const lock = $(".f8-tablet-large .f8-lock")!;
    expect(lock.hidden).toBe(false);
    expect(lock.textContent).toContain("1.3 s");
    expect($(".f8-flash")?.textContent).toBe("LOCKED");
    expect(($(".f8-flash") as HTMLButtonElement).disabled).toBe(true);
    harness.setNow(until - 0.4);
    vi.advanceTimersByTime(100);
    expect(lock.textContent).toContain("0.4 s");
    press(" ");
    press("ArrowUp");
    myCells(harness.root)[3]!.click();
    await settle();
    expect(harness.acts).toEqual([]);
    // The server ends the lockout: the overlay goes.
    harness.show(race("race_middle"), fixture.view);
    expect(lock.hidden).toBe(true);
  });

  it("shows another player's lockout on their small tablet", () => {
    const fixture = race("race_locked_other");
    harness = mount({ seat: 1, now: fixture.view.seats[0]!.locked_until! - 1 });
    harness.show(fixture);
    const lock = $('.f8-seat[data-seat="0"] .f8-lock')!;
    expect(lock.hidden).toBe(false);
    expect(lock.textContent).toContain("1.0 s");
    expect($(".f8-tablet-large .f8-lock")?.hidden).toBe(true);
  });
});

describe("other seats and frames", () => {
  it("draws the north player's stacks turned to their side", () => {
    const fixture = race("race_running_north");
    harness = mount({ seat: 1, now: 4 });
    harness.show(fixture);
    expect($(".f8-frame")?.textContent).toContain("north");
    for (const stack of fixture.view.stacks) {
      const cells = $$(`.f8-stack[data-stack="${stack.stack}"] .f8-card-cell`);
      expect(drawn(cells).replace(/\./g, "-")).toBe(stack.top!.pattern);
    }
    expect(drawn(myCells(harness.root))).toBe(fixture.view.seats[1]!.tablet);
  });

  it("lets a handicapped player choose between two free spaces", async () => {
    const fixture = race("race4_west_handicap"); // seat 1: two free spaces, 6 and 8
    harness = mount({ seat: 1, now: 4 });
    harness.show(fixture);
    expect($$(".f8-seat")).toHaveLength(3);
    expect($(".f8-seat .f8-badge")).toBeNull(); // only the player's own header has the badge
    expect($(".f8-mine .f8-badge")?.textContent).toBe("handicap");
    // Cell 7 sits between both free spaces: a click selects it, a click on a free cell moves it.
    const cells = myCells(harness.root);
    cells[7]!.click();
    await settle();
    expect(harness.acts).toEqual([]);
    expect(cells[7]!.classList.contains("f8-selected")).toBe(true);
    expect(cells[6]!.classList.contains("f8-target")).toBe(true);
    expect(cells[8]!.classList.contains("f8-target")).toBe(true);
    cells[8]!.click();
    await settle();
    expect(harness.acts).toEqual([{ type: "slide", src: 7, dst: 8 }]);
    // Arrow keys use the active free space (6 first); Z switches to the other (8).
    press("ArrowUp");
    await settle();
    press("z");
    press("ArrowUp");
    await settle();
    expect(harness.acts.slice(1)).toEqual([
      { type: "slide", src: 3, dst: 6 },
      { type: "slide", src: 5, dst: 8 },
    ]);
  });

  it("shows spectators every tablet small and takes no input", async () => {
    harness = mount({ seat: null, readOnly: true, now: 4 });
    harness.show(race("race_running_spectator"));
    expect($(".f8-mine")?.hidden).toBe(true);
    expect($$(".f8-seat")).toHaveLength(2);
    expect($(".f8-frame")?.textContent).toContain("as printed");
    press(" ");
    press("ArrowUp");
    $$(".f8-stack").forEach((b) => b.click());
    await settle();
    expect(harness.acts).toEqual([]);
  });

  it("takes no input in a replay (read-only), even from a seat's view", async () => {
    harness = mount({ readOnly: true, now: 4 });
    const fixture = race("race_running");
    harness.show(fixture);
    expect(($(".f8-flash") as HTMLButtonElement).hidden).toBe(true);
    press(" ");
    press("ArrowUp");
    myCells(harness.root)[7]!.click();
    await settle();
    expect(harness.acts).toEqual([]);
  });
});

describe("the end of the race", () => {
  it("shows the solver's report from the outcome and the final scores", () => {
    harness = mount({ now: 60 });
    const fixture = race("race_finished");
    const before = race("race_middle");
    harness.show(before);
    harness.show(fixture, before.view);
    const report = $(".f8-report")!;
    expect(report.hidden).toBe(false);
    expect(report.querySelector(".f8-report-title")?.textContent).toBe("You finish 2nd");
    expect(report.querySelector(".f8-report-reason")?.textContent).toContain("Every stack is empty");
    const details = fixture.view.outcome!.details as { players: Array<Record<string, number>>; cards: unknown[] };
    const rows = [...report.querySelectorAll(".f8-report-players tbody tr")];
    expect(rows).toHaveLength(2);
    const first = [...rows[0]!.querySelectorAll("td")].map((td) => Number(td.textContent));
    const p = details.players[0]!;
    expect(first).toEqual([p.points, p.cards, p.slides, p.slides_on_cards, p.optimal_on_cards, p.extra_slides, p.misses, p.late, p.hints]);
    expect(report.querySelectorAll(".f8-report-cards tbody tr")).toHaveLength(details.cards.length);
    expect($(".f8-phase")?.textContent).toContain("Race over");
    // Nothing more to do.
    press(" ");
    expect(harness.acts).toEqual([]);
  });
});

describe("a replay seen from a seat", () => {
  it("names the seat everywhere the live board says you", () => {
    harness = mount({ now: 60, seenAs: true });
    const fixture = race("race_finished");
    const before = race("race_middle");
    harness.show(before);
    harness.show(fixture, before.view);
    const text = harness.root.textContent ?? "";
    expect($(".f8-report-title")?.textContent).toBe("Ada finishes 2nd");
    expect($(".f8-mine")?.getAttribute("aria-label")).toBe("Ada's tablet");
    expect($(".f8-mine .f8-seat-name")?.textContent).toBe("Ada");
    expect($(".f8-score.f8-me .f8-score-name")?.textContent).toBe("Ada");
    expect(text).not.toMatch(/\b(you|your)\b/i);
  });
});

describe("the board's life", () => {
  it("stops its timers and listeners when destroyed", async () => {
    harness = mount({ now: 4 });
    harness.show(race("race_running"));
    harness.destroy();
    press(" ");
    await settle();
    expect(harness.acts).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
    harness = mount({ now: 4 }); // for afterEach
  });

  it("shows a waiting line for an empty view", () => {
    harness = mount();
    harness.board.update(null, [], null);
    expect($(".f8-waiting")).not.toBeNull();
  });
});
