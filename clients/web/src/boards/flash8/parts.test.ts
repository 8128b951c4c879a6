// @vitest-environment jsdom
/**
 * The pieces under the boards: reading `legal`, the tablet's arrow-key mapping, the command
 * queue, and the glyphs that make colours readable without colour.
 */

import { describe, expect, it, vi } from "vitest";
import { CommandQueue, clock } from "./dom";
import { COLOURS, glyph, SHAPES, shapeOutline } from "./electrons";
import { Legal } from "./legal";
import { neighbour, TabletView } from "./tablet";
import { race, settle, solo } from "./testkit";

describe("Legal", () => {
  it("expands the race's compact FLASH entry into one command per stack", () => {
    const legal = new Legal(race("race_running").legal);
    expect(legal.slides()).toEqual([
      { src: 5, dst: 8 },
      { src: 7, dst: 8 },
    ]);
    expect(legal.has("flash")).toBe(true);
    expect(legal.flashStacks()).toEqual([0, 1]);
    expect(legal.has("hint")).toBe(true);
    expect(legal.slideTargets(7)).toEqual([8]);
    expect(legal.canSlide(4, 8)).toBe(false);
  });

  it("offers every shape on every line but the token's in solo", () => {
    const fixture = solo("solo_claimed");
    const legal = new Legal(fixture.legal);
    for (let line = 0; line < 6; line++) {
      expect(legal.lineShapes(line)).toEqual(line === fixture.view.token ? [] : SHAPES);
    }
    expect(legal.allows({ type: "claim_line", line: 0, shape: "star" })).toBe(true);
    expect(legal.allows({ type: "claim_line", line: fixture.view.token!, shape: "star" })).toBe(false);
    expect(legal.has("flash")).toBe(false);
  });

  it("is empty before the start and during a lockout", () => {
    expect(new Legal(race("race_countdown").legal).any).toBe(false);
    expect(new Legal(race("race_locked").legal).any).toBe(false);
  });
});

describe("TabletView", () => {
  const legal = new Legal(race("race_running").legal); // tablet RBYGVBYB. : free space 8

  it("maps an arrow key to the electron on that side of the free space", () => {
    const tablet = new TabletView({ size: "large", label: "t", onGesture: () => {} });
    tablet.render("RBYGVBYB.", legal);
    expect(tablet.slideFor("up")).toEqual({ src: 5, dst: 8 });
    expect(tablet.slideFor("left")).toEqual({ src: 7, dst: 8 });
    expect(tablet.slideFor("down")).toBeNull();
    expect(tablet.slideFor("right")).toBeNull();
  });

  it("produces no slide when legal offers none (locked, not started)", () => {
    const tablet = new TabletView({ size: "large", label: "t", onGesture: () => {} });
    tablet.render("RBYGVBYB.", new Legal([]));
    expect(tablet.slideFor("up")).toBeNull();
  });

  it("knows its neighbours", () => {
    expect(neighbour(4, "up")).toBe(1);
    expect(neighbour(4, "left")).toBe(3);
    expect(neighbour(2, "right")).toBeNull();
    expect(neighbour(7, "down")).toBeNull();
  });

  it("draws a small tablet without buttons", () => {
    const tablet = new TabletView({ size: "small", label: "North" });
    tablet.render("B.BVBYYGR", null);
    expect(tablet.element.querySelectorAll("button")).toHaveLength(0);
    expect(tablet.element.querySelectorAll(".f8-electron")).toHaveLength(8);
    expect(tablet.element.querySelectorAll(".f8-free")).toHaveLength(1);
  });
});

describe("glyphs", () => {
  it("gives each colour a different symbol, none of them a solo shape", () => {
    const marks = COLOURS.map((c) => glyph(c).innerHTML);
    expect(new Set(marks).size).toBe(COLOURS.length);
    const shapes = SHAPES.map((s) => shapeOutline(s).innerHTML);
    for (const mark of marks) expect(shapes).not.toContain(mark);
  });
});

describe("CommandQueue", () => {
  it("sends one command at a time and drops a gesture with nothing legal left", async () => {
    const answers: Array<() => void> = [];
    const send = vi.fn(() => new Promise<void>((resolve) => answers.push(resolve)));
    const queue = new CommandQueue(send);
    queue.push(() => ({ type: "slide", src: 1, dst: 2 }));
    queue.push(() => null);
    queue.push(() => ({ type: "flash" }));
    expect(send).toHaveBeenCalledTimes(1);
    answers.shift()!();
    await settle();
    expect(send).toHaveBeenCalledTimes(2);
    expect(send.mock.calls[1]).toEqual([{ type: "flash" }]);
  });

  it("forgets waiting gestures when a command is refused", async () => {
    const send = vi.fn(async () => {
      throw new Error("rejected");
    });
    const queue = new CommandQueue(send);
    queue.push(() => ({ type: "flash" }));
    queue.push(() => ({ type: "flash" }));
    await settle();
    expect(send).toHaveBeenCalledTimes(1);
  });
});

describe("clock", () => {
  it("rounds up to the second", () => {
    expect(clock(239.5)).toBe("4:00");
    expect(clock(59.01)).toBe("1:00");
    expect(clock(0.2)).toBe("0:01");
    expect(clock(0)).toBe("0:00");
    expect(clock(-3)).toBe("0:00");
  });
});
