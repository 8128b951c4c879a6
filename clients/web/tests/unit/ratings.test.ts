// @vitest-environment jsdom
/** Ratings and quick play as players read them: the rating tag beside a name, the end-of-game
 *  changes, and the waiting sentence of quick play. */
import { describe, expect, it } from "vitest";

import { type HistoryEntry, POOLS, poolName, resultSentence } from "../../src/app/leaderboard";
import { quickModes, waitingSentence } from "../../src/app/quickplay";
import { changeText, ratingTag, ratingText } from "../../src/app/rating";
import { renderRatings } from "../../src/app/summary";
import type { GameInfo, RatingChange } from "../../src/protocol/messages";
import catalogue from "../vectors/catalog.json";
import serverPools from "../vectors/pools.json";

describe("a shown rating", () => {
  it("has one decimal and never a negative zero", () => {
    expect(ratingText(12.345)).toBe("12.3");
    expect(ratingText(-1e-12)).toBe("0.0");
    expect(ratingText(-0.04)).toBe("0.0");
    expect(ratingText(-3.25)).toBe("−3.3");
  });

  it("says a change with its sign", () => {
    expect(changeText(0, 2.5)).toBe("+2.5");
    expect(changeText(1.25, -0.75)).toBe("−2.0");
    expect(changeText(4, 4.01)).toBe("±0.0");
  });

  it("is shown beside a name only when the seat has one", () => {
    expect(ratingTag(null)).toBeNull();
    expect(ratingTag(undefined)).toBeNull();
    expect(ratingTag(21.75)?.textContent).toBe("★ 21.8");
  });
});

describe("the rating changes at a game's end", () => {
  const changes: RatingChange[] = [
    { seat: 0, user: "u1", name: "Ada", pool: "standard", before: 0, after: 2.5, games: 1 },
    { seat: 1, user: "u2", name: "Bo", pool: "standard", before: 1.25, after: -0.75, games: 6 },
  ];

  it("puts the viewer's own first, in words", () => {
    const panel = renderRatings(changes, 1);
    const rows = [...panel.querySelectorAll("li")].map((li) => li.textContent);
    expect(rows).toEqual(["② Your rating: 1.3 → −0.8 (−2.0) after 6 rated games", "① Ada: 0.0 → 2.5 (+2.5) after 1 rated game"]);
    expect(panel.querySelector(".me .rating-change.down")).not.toBeNull();
  });

  it("names everyone for a spectator", () => {
    const rows = [...renderRatings(changes, null).querySelectorAll("li")].map((li) => li.textContent);
    expect(rows[0]).toMatch(/^① Ada: 0\.0 → 2\.5 \(\+2\.5\)/);
    expect(rows[1]).toMatch(/^② Bo: /);
  });
});

describe("quick play's waiting sentence", () => {
  const since = 1_000_000;
  it("counts the wait and the bots' arrival", () => {
    expect(waitingSentence({ game: "flip_over_frog", mode: null, seats: 2, botWait: null, since }, "Flip Over Frog", since + 4_200)).toBe(
      "Looking for players for Flip Over Frog with 2 seats… (4 s) Only people: the game starts when someone else presses Play now for this table (cancel and choose bots to play sooner).",
    );
    expect(waitingSentence({ game: "neon_hex", mode: null, seats: 3, botWait: 10, since }, "Neon Hex Strategy", since + 3_000)).toBe(
      "Looking for players for Neon Hex Strategy with 3 seats… (3 s) Bots fill the empty seats in 7 s.",
    );
    expect(waitingSentence({ game: "neon_hex", mode: null, seats: 3, botWait: 10, since }, "Neon Hex Strategy", since + 12_000)).toMatch(/Bots are taking the empty seats/);
    expect(waitingSentence({ game: "neon_flip", mode: "overdrive", seats: 2, botWait: 30, since }, "Neon Flip", since)).toBe("Looking for players for Neon Flip (Overdrive) with 2 seats… (0 s) Bots fill the empty seats in 30 s.");
  });

  it("offers the modes a table of people can play", () => {
    const games = catalogue as unknown as GameInfo[];
    const game = (id: string) => games.find((g) => g.id === id)!;
    expect(quickModes(game("neon_flip"))).toEqual(["classic", "overdrive"]);
    expect(quickModes(game("flash8"))).toEqual(["race"]);
    expect(quickModes(game("neon_hex"))).toEqual([]);
  });
});

describe("a player's recent games", () => {
  const entry: HistoryEntry = { room: "r1", game: "neon_flip", pool: "overdrive", seat: 1, name: "Ada", rank: 1, forfeit: false, finished: 1764428400, rated: true, before: 2, after: 4.25, replay: "/rooms/r1/log" };

  it("says each game's end in a sentence", () => {
    expect(resultSentence(entry, "Neon Flip")).toBe("Neon Flip: Ada won; rating 2.0 → 4.3 (+2.3)");
    expect(resultSentence({ ...entry, rank: 3, rated: false, before: null, after: null }, "Neon Flip")).toBe("Neon Flip: Ada finished 3rd; not rated");
    expect(resultSentence({ ...entry, rank: 4, forfeit: true, before: 4, after: 1 }, "Neon Flip")).toBe("Neon Flip: Ada left early (counted last); rating 4.0 → 1.0 (−3.0)");
  });

  it("names the pools as players do", () => {
    expect(poolName("neon_flip", "overdrive-teams")).toBe("Overdrive teams");
    expect(poolName("neon_hex", "3p")).toBe("3 players");
    expect(poolName("neon_hex", "9p")).toBe("9p");
  });
});

describe("the leaderboard's pools", () => {
  it("are the server's, in its order", () => {
    expect(Object.fromEntries(Object.entries(POOLS).map(([game, pools]) => [game, pools.map((p) => p.id)]))).toEqual(serverPools);
  });
});
