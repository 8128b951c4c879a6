// @vitest-environment jsdom
/** Geometry, the legal-list reading and the change diff, on engine-made fixtures. */

import { describe, expect, it } from "vitest";
import { expandLegal } from "../../protocol/legal";
import { claimedCount, diff } from "./changes";
import { arrowStep, buildLayout, directionOf } from "./geometry";
import { bonusOf, oddsText, readOffers } from "./legal";
import { fixture, frames } from "./testkit";

describe("geometry", () => {
  const layout = buildLayout(fixture("start").view.board.hexes);

  it("has 37 hexes, named by row from the top", () => {
    expect(layout.centres).toHaveLength(37);
    expect(layout.names[0]).toBe("A1");
    expect(layout.names[3]).toBe("A4");
    expect(layout.names[4]).toBe("B1");
    expect(layout.names[18]).toBe("D4"); // the centre (0, 0)
    expect(layout.names[36]).toBe("G4");
    expect(new Set(layout.names).size).toBe(37);
  });

  it("knows neighbours in the engine's direction order", () => {
    // The centre touches six hexes; a corner three.
    expect(layout.neighbours[18]!.filter((n) => n >= 0)).toHaveLength(6);
    expect(layout.neighbours[0]!.filter((n) => n >= 0)).toHaveLength(3);
    expect(directionOf(layout, 18, 19)).toBe(0); // east
    expect(directionOf(layout, 18, 17)).toBe(3); // west
    expect(directionOf(layout, 18, 0)).toBe(-1);
  });

  it("moves by arrow keys, and up then down comes back", () => {
    expect(arrowStep(layout, 18, "ArrowRight")).toBe(19);
    expect(arrowStep(layout, 18, "ArrowLeft")).toBe(17);
    for (let hex = 0; hex < 37; hex++) {
      const up = arrowStep(layout, hex, "ArrowUp");
      if (up !== null && layout.neighbours[hex]![2]! >= 0) expect(arrowStep(layout, up, "ArrowDown")).toBe(hex);
    }
    expect(arrowStep(layout, 0, "ArrowUp")).toBeNull();
    expect(arrowStep(layout, 36, "ArrowDown")).toBeNull();
    expect(arrowStep(layout, 3, "ArrowRight")).toBeNull();
  });
});

describe("reading legal", () => {
  it("groups Safe and Risk offers by target, keeping every expanded command", () => {
    const { legal } = fixture("start");
    const offers = readOffers(legal);
    const all = [...offers.targets.values()].flatMap((t) => [t.safe?.option.command, ...(t.risk?.options.map((o) => o.command) ?? [])]).filter(Boolean);
    expect([...all, offers.endTurn!.command]).toEqual(expandLegal(legal as Record<string, unknown>[]));
    expect(offers.count).toBe(expandLegal(legal as Record<string, unknown>[]).length);
    for (const offer of offers.targets.values()) {
      expect(offer.safe?.cost).toBe(1);
      expect(offer.risk?.cost).toBe(2);
      expect(offer.risk?.refund).toBe(1);
      expect(offer.risk?.odds).toEqual([10, 36]);
    }
  });

  it("knows when the bonus pair is a choice", () => {
    const offers = readOffers(fixture("start").legal);
    const choosing = [...offers.targets.values()].filter((t) => t.risk?.choose);
    expect(choosing.length).toBeGreaterThan(0);
    for (const offer of choosing) {
      const n = offer.risk!.bonusHexes.length;
      expect(offer.risk!.options).toHaveLength((n * (n - 1)) / 2);
      for (const option of offer.risk!.options) expect(bonusOf(option).every((hex) => offer.risk!.bonusHexes.includes(hex))).toBe(true);
    }
    const forced = [...offers.targets.values()].filter((t) => t.risk && !t.risk.choose);
    for (const offer of forced) {
      expect(offer.risk!.options).toHaveLength(1);
      expect(offer.risk!.options[0]!.command).not.toHaveProperty("bonus");
    }
  });

  it("offers only Safe with 1 Energy, only the end of the turn with none", () => {
    const low = readOffers(fixture("low_energy").legal);
    expect(low.targets.size).toBeGreaterThan(0);
    for (const offer of low.targets.values()) {
      expect(offer.safe).not.toBeNull();
      expect(offer.risk).toBeNull();
    }
    const none = readOffers(fixture("no_energy").legal);
    expect(none.targets.size).toBe(0);
    expect(none.endTurn?.command).toEqual({ type: "end_turn" });
    expect(readOffers([]).count).toBe(0);
  });

  it("writes odds", () => {
    expect(oddsText([10, 36])).toBe("10/36 (28%)");
  });
});

describe("changes", () => {
  const start = fixture("start").view;

  it("sees a Safe claim", () => {
    const step = diff(start, fixture("safe_after").view);
    expect(step.roll).toBeNull();
    expect(claimedCount(step)).toBe(1);
    expect([...step.claims.keys()]).toEqual([0]);
    expect(step.turnChanged).toBe(false);
  });

  it("sees a breakthrough and its three hexes", () => {
    const after = fixture("risk_success").view;
    const step = diff(start, after);
    expect(step.roll).toEqual(after.last_roll);
    expect(step.roll!.success).toBe(true);
    expect(step.claims.get(0)).toHaveLength(3);
    expect(step.claims.get(0)).toContain(after.last_roll!.target);
  });

  it("sees a failed roll, even the same failure twice", () => {
    const after = fixture("risk_fail").view;
    const step = diff(start, after);
    expect(step.roll?.success).toBe(false);
    expect(claimedCount(step)).toBe(0);
    const again = structuredClone(after);
    again.factions[0]!.energy -= 2;
    expect(diff(after, again).roll).toEqual(after.last_roll);
    expect(diff(after, structuredClone(after)).roll).toBeNull();
  });

  it("sees the turn pass and the end", () => {
    const turn = frames("bot_turn");
    expect(diff(turn[turn.length - 2]!.view, turn[turn.length - 1]!.view).turnChanged).toBe(true);
    expect(diff(start, fixture("over").view).over).toBe(true);
  });
});
