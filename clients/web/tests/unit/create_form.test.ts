/** The create-room form's pure parts against the server's real catalogue (catalog.json). */
import { describe, expect, it } from "vitest";

import { applies, buildCreateRoom, initialPlan, planProblem, resizeSeats, seatRange } from "../../src/app/create_form";
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

describe("options that apply (version 6's OptionInfo.when)", () => {
  const shown = (id: string, options: Record<string, unknown>, seats: number) =>
    game(id)
      .options.filter((option) => applies(option, game(id), options, seats))
      .map((option) => option.name);

  it("shows Neon Flip's options for the chosen mode and seat count only", () => {
    expect(shown("neon_flip", {}, 2)).toEqual(["mode", "obstacles", "rounds"]);
    expect(shown("neon_flip", {}, 4)).toEqual(["mode", "teams", "rounds"]);
    expect(shown("neon_flip", { mode: "overdrive" }, 3)).toEqual(["mode", "rounds", "clock"]);
    expect(shown("neon_flip", { mode: "solo" }, 1)).toEqual(["mode", "proto_zero"]);
  });

  it("shows Flash 8's race options in a race and the solo clock in solo", () => {
    expect(shown("flash8", { mode: "solo" }, 1)).toEqual(["mode", "lockout", "countdown", "hints", "solo_seconds"]);
    expect(shown("flash8", {}, 2)).toEqual(["mode", "lockout", "time_limit", "countdown", "same_start", "credit_cap", "hints"]);
    const handicap = game("flash8").seat_options[0]!;
    expect(applies(handicap, game("flash8"), { mode: "solo" }, 1)).toBe(false);
  });

  it("never sends an option the form hides, so the server never refuses it", () => {
    const plan = initialPlan(game("neon_flip"));
    plan.options.mode = "solo";
    plan.options.proto_zero = "overclocked";
    plan.options.mode = "classic"; // back to a table: PROTO-ZERO's level no longer applies
    expect(planProblem(plan)).toBeNull();
    expect(buildCreateRoom(plan)).toMatchObject({ options: {} });
    const solo = initialPlan(game("flash8"));
    solo.options.mode = "solo";
    resizeSeats(solo, 1);
    solo.seats[0]!.choices.handicap = true;
    solo.options.time_limit = 30;
    expect(buildCreateRoom(solo)).toMatchObject({ options: { mode: "solo" }, seats: [{}] });
  });

  it("treats an option from an older server, without when, as always applying", () => {
    const old = { ...game("neon_flip").options.find((o) => o.name === "proto_zero")!, when: {} };
    expect(applies(old, game("neon_flip"), { mode: "classic" }, 2)).toBe(true);
  });
});
