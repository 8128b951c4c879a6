/** Legal expansion against protocol's expand_legal on real games (scripts/make_vectors.py). */
import { describe, expect, it } from "vitest";

import { canonical, expandLegal, expandOptions, sameCommand } from "../../src/protocol/legal";
import vectors from "../vectors/legal.json";

type List = { game: string; entries: Record<string, unknown>[]; commands: Record<string, unknown>[] };
const defaults = vectors.defaults as Record<string, Record<string, unknown>>;

describe("expandLegal matches the engine's expand_legal", () => {
  const lists = vectors.lists as List[];
  const games = new Set(lists.map((list) => list.game));
  it("covers every game", () => {
    expect([...games].sort()).toEqual(["flash8", "flip_over_frog", "neon_flip", "neon_hex"]);
  });
  lists.forEach((list, n) => {
    it(`${list.game} list ${n}`, () => {
      const ours = expandLegal(list.entries);
      expect(ours).toHaveLength(list.commands.length);
      ours.forEach((command, i) => {
        const theirs = list.commands[i]!;
        const fieldDefaults = defaults[`${list.game}:${theirs.type}`] ?? {};
        // Every field we send is one of the command's, with the engine's value...
        for (const [key, value] of Object.entries(command)) {
          expect(theirs).toHaveProperty(key);
          expect(canonical(value)).toBe(canonical(theirs[key]));
        }
        // ...and every field we leave out takes its default.
        for (const [key, value] of Object.entries(theirs)) {
          if (!(key in command)) {
            expect(fieldDefaults).toHaveProperty(key);
            expect(canonical(value)).toBe(canonical(fieldDefaults[key]));
          }
        }
      });
    });
  });
});

describe("expandOptions", () => {
  it("keeps the entry and the choice index", () => {
    const entry = { type: "play", tile: "R1", choose: { space: [3, 7] }, preview: [[2], []] };
    const options = expandOptions([entry, { type: "end_turn" }]);
    expect(options.map((o) => o.command)).toEqual([
      { type: "play", tile: "R1", space: 3 },
      { type: "play", tile: "R1", space: 7 },
      { type: "end_turn" },
    ]);
    expect(options[1]!.choice).toBe(1);
    expect(options[1]!.field).toBe("space");
    expect(options[2]!.choice).toBeNull();
    expect(sameCommand({ b: 1, a: [1] }, { a: [1], b: 1 })).toBe(true);
  });
});
