// @vitest-environment jsdom
/** The move log's sentences (boards/movelog.ts): each game's entries in players' words, places
 *  numbered as the boards number them, what one seat alone saw only when the entry holds it. */
import { describe, expect, it } from "vitest";

import { type LogEntry, seatNamer, sentence, showLog } from "../../src/boards/movelog";

const names = { seat: (seat: number) => `Bot ${seat + 1}`, hex: (id: number) => `H${id}` };
const entry = (what: string, seat: number | null, fields: Record<string, unknown> = {}): LogEntry => ({ n: 1, seat, what, ...fields });

describe("move log sentences", () => {
  it("says a Frog play with the spaces it flipped, counted from 1", () => {
    const played = entry("frog", 1, { tile: "R7", colour: "red", space: 3, flipped: [4, 7] });
    expect(sentence("flip_over_frog", played, names)).toBe("Bot 2 played red Frog R7 on space 4, flipping 2 tiles (5, 8).");
  });

  it("leaves a trace of the Frog a Snake took", () => {
    const snake = entry("snake", 0, { tile: "S2", space: 0, frog: "G4", colour: "green" });
    expect(sentence("flip_over_frog", snake, names)).toBe("Bot 1 played Snake S2 on space 1, taking green Frog G4 off the board.");
  });

  it("names a drawn tile only when the entry holds it (the drawer's own view)", () => {
    expect(sentence("flip_over_frog", entry("draw", 0), names)).toBe("Bot 1 drew a tile.");
    expect(sentence("flip_over_frog", entry("draw", 0, { tile: "B3" }), names)).toBe("Bot 1 drew B3.");
    expect(sentence("neon_flip", entry("draw", 2, { owed: false }), names)).toBe("Bot 3 drew a card.");
    expect(sentence("neon_flip", entry("objective", 2), names)).toBe("Bot 3 kept an objective.");
  });

  it("tells a Neon Hex roll with its dice and hexes by name", () => {
    const won = entry("risk", 2, { target: 5, dice: [4, 6], success: true, claimed: [5, 6], cost: 2, refund: 1 });
    expect(sentence("neon_hex", won, names)).toBe("Bot 3 rolled 4 + 6 = 10: breakthrough on H5, 2 hexes claimed (H5, H6), 1 ⚡ back.");
    const lost = entry("risk", 0, { target: 9, dice: [1, 2], success: false, claimed: [], cost: 2, refund: 0 });
    expect(sentence("neon_hex", lost, names)).toBe("Bot 1 rolled 1 + 2 = 3: the Risk on H9 failed, 2 ⚡ spent.");
  });

  it("tells a Flash 8 take, a miss and a late claim", () => {
    const take = entry("take", 1, { stack: 0, card: "L2", points: 3, took: 4.5, slides: 6, optimal: 5 });
    expect(sentence("flash8", take, names)).toBe("Bot 2 took L2 from stack 1 for 3 points (4.50 s, 6 slides; 5 would do).");
    expect(sentence("flash8", entry("miss", 0, { stack: 2, until: 9 }), names)).toBe("Bot 1 called FLASH on stack 3, which did not match: locked out.");
    expect(sentence("flash8", entry("late", 0, { card: "L2", by: 1, behind: 0.25 }), names)).toBe("Bot 1 called FLASH on L2 0.25 s after Bot 2 took it.");
  });

  it("tells Neon Flip cards, cascades and PROTO-ZERO's moves", () => {
    const card = entry("card", 0, { kind: "single_flip", name: "Single Flip", cost: 1, slot: 14, target: -1 });
    expect(sentence("neon_flip", card, names)).toBe("Bot 1 played Single Flip on slot 14 (1 ⚡).");
    expect(sentence("neon_flip", entry("cascade", 1, { slots: [3, 4, 10] }), names)).toBe("Bot 2 cascaded through 3 slots (3, 4, 10).");
    expect(sentence("neon_flip", entry("ai_card", -1, { card: "a1", slots: [1, 2], energy: 1 }), names)).toBe("PROTO-ZERO played a card: 2 slots turned Pink (1, 2).");
  });

  it("says the end for every game, and words for a kind it does not know", () => {
    expect(sentence("neon_hex", entry("end", null, { reason: "board_full" }), names)).toBe("The game is over.");
    expect(sentence("neon_hex", entry("new_thing", 0), names)).toBe("Bot 1: new thing.");
  });

  it("calls the viewer's own seat You, but never in a replay", () => {
    const own = seatNamer({ seat: 1, seatNames: ["Ann", "Bob"] });
    expect([own(0), own(1)]).toEqual(["Ann", "You"]);
    expect(seatNamer({ seat: 1, seenAs: true, seatNames: ["Ann", "Bob"] })(1)).toBe("Bob");
  });

  it("lists the newest first, one line each", () => {
    const list = document.createElement("ol");
    showLog(list, "neon_hex", [entry("safe", 0, { target: 1, cost: 1 }), { ...entry("end_turn", 0, { reason: "ended" }), n: 2 }], names);
    expect([...list.children].map((li) => li.textContent)).toEqual(["Bot 1 ended the turn.", "Bot 1 claimed H1 (Safe, 1 ⚡)."]);
    expect((list.children[0] as HTMLElement).dataset.n).toBe("2");
  });
});
