/** A finished game's lobby line (protocol version 6's `RoomSummary.result`): who won by name,
 *  the scores in seat order and how long ago, never ids. */
import { describe, expect, it } from "vitest";

import { agoWords, resultLine } from "../../src/app/results";
import type { ResultInfo, RoomSummary, SeatInfo } from "../../src/protocol/messages";

function seat(n: number, name: string | null, kind: SeatInfo["kind"] = "human", bot: string | null = null): SeatInfo {
  return { seat: n, kind, name, user: kind === "human" ? `u${n}` : null, bot, choices: {}, ready: true, connected: false, rating: null };
}

function finished(game: string, seats: SeatInfo[], result: ResultInfo | null): RoomSummary {
  return { room: "r1", game, options: {}, seats, state: "finished", host: "u0", spectators: 0, private: false, commitment: "", turn_clock: null, created: 0, result };
}

const NOW = 1_800_000_000;

describe("a finished game's lobby line", () => {
  it("names the winner, gives the scores in seat order and says when", () => {
    const room = finished("neon_hex", [seat(0, "Ada"), seat(1, "Bo")], { finished: NOW - 2 * 3600 - 5, winners: [0], scores: [34, 28], reason: "twelve" });
    expect(resultLine(room, NOW)).toBe("Ada won · 34–28 · 2 h ago");
  });

  it("says a shared win and a tie, with bots by name and seat", () => {
    const three = [seat(0, "Ada"), seat(1, "bot bot", "bot", "bot"), seat(2, "Cy")];
    expect(resultLine(finished("flip_over_frog", three, { finished: NOW - 30, winners: [0, 2], scores: [5, 3, 5], reason: "no_moves" }), NOW)).toBe("Ada and Cy shared the win · 5–3–5 · just now");
    expect(resultLine(finished("flip_over_frog", three, { finished: NOW - 600, winners: [0, 1, 2], scores: [4, 4, 4], reason: "no_moves" }), NOW)).toBe("Ada, Bot 2 and Cy tied · 4–4–4 · 10 min ago");
  });

  it("says a solo game in the game's own terms", () => {
    const lost = finished("neon_flip", [seat(0, "Ada")], { finished: NOW - 86400 - 1, winners: [], scores: [31], reason: "ai_fifty" });
    expect(resultLine(lost, NOW)).toBe("PROTO-ZERO beat Ada · 31 · yesterday");
    const flash = finished("flash8", [seat(0, "Ada")], { finished: NOW - 3 * 86400, winners: [0], scores: [12], reason: "time_up" });
    expect(resultLine(flash, NOW)).toBe("Ada finished with 12 left · 3 days ago");
  });

  it("is absent without a result (an older server, or a game finished before results were kept)", () => {
    expect(resultLine(finished("neon_hex", [seat(0, "Ada"), seat(1, "Bo")], null), NOW)).toBeNull();
  });

  it("never says a time in the future", () => {
    expect(agoWords(NOW + 5, NOW)).toBe("just now");
    expect(agoWords(NOW - 59 * 60, NOW)).toBe("59 min ago");
  });
});
