/** The TypeScript delta apply against vectors from protocol/delta.py (scripts/make_vectors.py). */
import { describe, expect, it } from "vitest";

import { applyOps, joinPointer, splitPointer } from "../../src/protocol/delta";
import { ProtocolError } from "../../src/protocol/errors";
import vectors from "../vectors/delta.json";

type Case = { name: string; doc: unknown; ops: unknown[]; result?: unknown; error?: string };
type Chain = { first: unknown; steps: { ops: unknown[]; view?: unknown }[] };

describe("delta edge cases (RFC 6902 / 6901, as protocol/delta.py)", () => {
  for (const c of vectors.cases as Case[]) {
    it(c.name, () => {
      const before = structuredClone(c.doc);
      if (c.error !== undefined) {
        let caught: unknown;
        try {
          applyOps(c.doc, c.ops);
        } catch (error) {
          caught = error;
        }
        expect(caught).toBeInstanceOf(ProtocolError);
        expect((caught as ProtocolError).code).toBe(c.error);
      } else {
        expect(applyOps(c.doc, c.ops)).toEqual(c.result);
      }
      expect(c.doc).toEqual(before); // the input is never mutated
    });
  }
});

describe("delta chains of recorded games", () => {
  const games = vectors.games as Record<string, Record<string, Chain>>;
  for (const [game, viewers] of Object.entries(games)) {
    for (const [viewer, chain] of Object.entries(viewers)) {
      it(`${game} as ${viewer}`, () => {
        expect(chain.steps.length).toBeGreaterThan(5);
        let view = chain.first;
        let checked = 0;
        for (const step of chain.steps) {
          const frozen = JSON.stringify(view);
          const next = applyOps(view, step.ops);
          expect(JSON.stringify(view)).toBe(frozen);
          view = next;
          if (step.view !== undefined) {
            expect(view).toEqual(step.view);
            checked += 1;
          }
        }
        expect(checked).toBeGreaterThan(0);
      });
    }
  }
});

describe("pointers", () => {
  it("round-trips escaped tokens", () => {
    const tokens = ["a/b", "m~n", "", "0", "~1"];
    expect(splitPointer(joinPointer(tokens))).toEqual(tokens);
    expect(joinPointer(["a/b", 3])).toBe("/a~1b/3");
  });

  it("keeps a __proto__ key as plain data", () => {
    const result = applyOps({}, [["add", "/__proto__", { polluted: true }]]) as Record<string, unknown>;
    expect(Object.keys(result)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });
});
