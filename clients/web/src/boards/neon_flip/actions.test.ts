// @vitest-environment jsdom
/**
 * The legal-list logic on the engine's own legal lists: every concrete option is reached by
 * exactly one path of targets, and nothing else is offered.
 */
import { describe, expect, it } from "vitest";
import { canonical, expandOptions, type Option } from "../../protocol/legal";
import { actionOf, confirmOnly, nextSteps, pathOf, previewOf, type Target, targetKey } from "./actions";
import { fixture, fixtureNames } from "./testkit";
import { aiCardSlots, changedSlots } from "./view";

const names = (seat: number) => (seat < 0 ? "PROTO-ZERO" : `Seat ${seat + 1}`);

function optionsOf(name: string): Option[] {
  return expandOptions(fixture(name).legal as Record<string, unknown>[]);
}

/** Walk an option's path through `nextSteps` as a player would; the option it completes. */
function walk(all: Option[], option: Option): Option | null {
  const action = actionOf(option);
  const mine = all.filter((o) => actionOf(o) === action);
  const picked: Target[] = [];
  for (const target of pathOf(option, names)) {
    const step = nextSteps(mine, picked, names).get(targetKey(target));
    if (!step) return null;
    if (step.complete) return step.complete;
    picked.push(target);
  }
  return confirmOnly(mine, names);
}

describe("targets from legal", () => {
  it("reach every expanded option of every fixture, and only those", () => {
    let checked = 0;
    for (const name of fixtureNames()) {
      const all = optionsOf(name);
      for (const option of all) {
        if (actionOf(option) === null) continue;
        const reached = walk(all, option);
        expect(reached, `${name}: ${canonical(option.command)}`).not.toBeNull();
        expect(canonical(reached!.command)).toBe(canonical(option.command));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(500);
  });

  it("a Node Swap takes two tiles, the second from the first's choices", () => {
    const all = optionsOf("node_swap").filter((o) => String(o.command.card).startsWith("node_swap"));
    const first = nextSteps(all, [], names);
    expect([...first.values()].every((s) => s.target.kind === "tile" && s.complete === null)).toBe(true);
    const entry = fixture("node_swap").legal.find((e) => String(e.card).startsWith("node_swap"))!;
    const second = nextSteps(all, [{ kind: "tile", slot: entry.slot as number }], names);
    expect([...second.keys()].sort()).toEqual(((entry.choose as { other: number[] }).other).map((s) => `tile:${s}`).sort());
    const step = second.values().next().value!;
    expect(previewOf(step.complete!).slots).toHaveLength(2);
  });

  it("a Node Shift and a Linear Sweep use the grid's edges", () => {
    const shifts = optionsOf("obstacles").filter((o) => String(o.command.card).startsWith("node_shift"));
    const sides = new Set([...nextSteps(shifts, [], names).values()].map((s) => (s.target.kind === "edge" ? s.target.side : "?")));
    expect([...sides].sort()).toEqual(["bottom", "left", "right", "top"]);
    const sweeps = optionsOf("obstacles").filter((o) => String(o.command.card).startsWith("linear_sweep"));
    const sweepSides = new Set([...nextSteps(sweeps, [], names).values()].map((s) => (s.target.kind === "edge" ? s.target.side : "?")));
    expect([...sweepSides].sort()).toEqual(["left", "top"]);
  });

  it("a System Drain names an opponent; a Hijack a colour, then a tile", () => {
    const drain = optionsOf("system_drain").filter((o) => String(o.command.card).startsWith("system_drain"));
    const steps = [...nextSteps(drain, [], names).values()];
    expect(steps.map((s) => s.target)).toEqual([{ kind: "button", key: "target:1", label: "Seat 2" }]);
    const hijack = optionsOf("overdrive").filter((o) => String(o.command.card).startsWith("mainframe_hijack"));
    const colours = [...nextSteps(hijack, [], names).values()];
    expect(colours.map((s) => s.target.kind)).toEqual(["button"]);
    expect(colours[0]!.target).toMatchObject({ key: "colour:pink" });
  });

  it("a Cascade Surge previews the first cascade choices; a Power Surge needs no target", () => {
    const surge = optionsOf("main").find((o) => String(o.command.card).startsWith("cascade_surge"))!;
    const preview = previewOf(surge);
    expect(preview.slots).toEqual([]);
    expect(preview.cascade.length).toBeGreaterThan(0);
    const power = optionsOf("teams").filter((o) => o.command.type === "play_card" && String(o.command.card).startsWith("power_surge"));
    expect(confirmOnly(power, names)?.command).toEqual({ type: "play_card", card: power[0]!.command.card });
  });
});

describe("geometry", () => {
  it("PROTO-ZERO's patterns cut off at the edges", () => {
    expect(aiCardSlots({ id: "a", pattern: "cross", target: 1 })).toEqual([1, 2, 7]);
    expect(aiCardSlots({ id: "a", pattern: "diagonal", target: 8 })).toEqual([1, 3, 8, 13, 15]);
    expect(aiCardSlots({ id: "a", pattern: "ring", target: 36 })).toEqual([29, 30, 35]);
    expect(aiCardSlots({ id: "a", pattern: "row", target: 2 })).toEqual([7, 8, 9, 10, 11, 12]);
    expect(aiCardSlots({ id: "a", pattern: "column", target: 6 })).toEqual([6, 12, 18, 24, 30, 36]);
  });

  it("the AI card's tiles in the solo fixture are the ones that turned Pink", () => {
    const before = fixture("solo_before_ai").view;
    const after = fixture("solo_after_ai").view;
    const card = after.proto_zero!.played.at(-1)!;
    const pattern = new Set(aiCardSlots(card));
    const changed = changedSlots(before.board, after.board);
    expect(changed.length).toBeGreaterThan(0);
    for (const slot of changed) if (pattern.has(slot)) expect(after.board[slot - 1]).toBe("pink");
  });
});
