/** The create-room form's pure parts against the server's real catalogue (catalog.json). */
import { describe, expect, it } from "vitest";

import { buildCreateRoom, initialPlan, planProblem, resizeSeats, seatRange } from "../../src/app/create_form";
import type { GameInfo } from "../../src/protocol/messages";
import catalogue from "../vectors/catalog.json";

const games = catalogue as unknown as GameInfo[];
const game = (id: string) => games.find((g) => g.id === id)!;

describe("seat ranges from the catalogue's rules", () => {
  it("covers every game", () => {
    expect(games.map((g) => g.id).sort()).toEqual(["flash8", "flip_over_frog", "neon_flip", "neon_hex"]);
  });

  it("follows the options", () => {
    expect(seatRange(game("flip_over_frog"), {})).toEqual({ min: 2, max: 4 });
    expect(seatRange(game("flash8"), { mode: "solo" })).toEqual({ min: 1, max: 1 });
    expect(seatRange(game("flash8"), { mode: "race" })).toEqual({ min: 2, max: 4 });
    expect(seatRange(game("neon_flip"), { teams: true })).toEqual({ min: 4, max: 4 });
    expect(seatRange(game("neon_flip"), { obstacles: true })).toEqual({ min: 2, max: 2 });
    expect(seatRange(game("neon_flip"), { mode: "solo" })).toEqual({ min: 1, max: 1 });
    // No table has both teams and obstacles.
    expect(seatRange(game("neon_flip"), { teams: true, obstacles: true })).toBeNull();
    expect(seatRange(game("neon_hex"), {})).toEqual({ min: 2, max: 5 });
  });
});

describe("the create_room request", () => {
  it("seats me first and the default bot elsewhere, leaving defaults out", () => {
    const plan = initialPlan(game("neon_hex"));
    resizeSeats(plan, 3);
    plan.seats[1]!.plan = { who: "bot", bot: "hard" };
    plan.seats[2]!.choices.colour = "lime";
    plan.seats[0]!.choices.role = "merchant";
    expect(planProblem(plan)).toBeNull();
    expect(buildCreateRoom(plan)).toEqual({
      type: "create_room",
      game: "neon_hex",
      options: {},
      seats: [{ choices: { role: "merchant" } }, { kind: "bot", bot: "hard" }, { kind: "bot", bot: "medium", choices: { colour: "lime" } }],
      private: undefined,
      sit: 0,
      turn_clock: null,
    });
  });

  it("carries changed options, open seats, privacy and the turn clock", () => {
    const plan = initialPlan(game("flash8"));
    plan.options.lockout = 0.5;
    plan.seats[0]!.plan = { who: "open" };
    plan.seats[1]!.plan = { who: "me" };
    plan.seats[1]!.choices.handicap = true;
    plan.private = true;
    plan.turnClock = 30;
    const request = buildCreateRoom(plan);
    expect(request).toMatchObject({ options: { lockout: 0.5 }, seats: [{}, { choices: { handicap: true } }], private: true, sit: 1, turn_clock: 30 });
  });

  it("names what the server would refuse", () => {
    const plan = initialPlan(game("flash8"));
    plan.options.mode = "solo";
    expect(planProblem(plan)).toMatch(/exactly 1 seat/);
    resizeSeats(plan, 1);
    expect(planProblem(plan)).toBeNull();
    plan.options.lockout = 99;
    expect(planProblem(plan)).toMatch(/at most 60/);
    const teams = initialPlan(game("neon_flip"));
    teams.options.teams = true;
    teams.options.obstacles = true;
    expect(planProblem(teams)).toMatch(/no table/);
  });
});
