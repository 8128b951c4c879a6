import { describe, expect, it } from "vitest";

import { parseJoin, parseRoute, routeHash } from "../../src/app/router";

describe("routes", () => {
  it("round-trips every page", () => {
    for (const route of [
      { page: "lobby" },
      { page: "room", room: "r1a2b3c4d5", code: null },
      { page: "room", room: "r1a2b3c4d5", code: "ABC234" },
      { page: "replay", room: "r9", viewer: null },
      { page: "replay", room: "r9", viewer: 2 },
      { page: "howto", game: "flash8" },
      { page: "leaderboard", game: "neon_hex", pool: null },
      { page: "leaderboard", game: "neon_flip", pool: "overdrive-teams" },
      { page: "player", user: "u-5kq2/x" },
    ] as const) {
      expect(parseRoute(routeHash(route))).toEqual(route);
    }
    expect(parseRoute("#/nowhere")).toEqual({ page: "lobby" });
    expect(parseRoute("")).toEqual({ page: "lobby" });
    expect(parseRoute("#/leaderboard")).toEqual({ page: "leaderboard", game: "flip_over_frog", pool: null });
  });

  it("reads what people paste to join", () => {
    expect(parseJoin("http://host:8700/#/room/r12ab?code=XYZ234")).toEqual({ room: "r12ab", code: "XYZ234" });
    expect(parseJoin("  r12ab xyz234 ")).toEqual({ room: "r12ab", code: "XYZ234" });
    expect(parseJoin("r12ab")).toEqual({ room: "r12ab", code: null });
    expect(parseJoin("http://host/#/howto/flash8")).toBeNull();
    expect(parseJoin("")).toBeNull();
  });
});
