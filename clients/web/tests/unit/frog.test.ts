// @vitest-environment jsdom
/** The Flip Over Frog board: what changed between views, the memory of backs, and that the
 *  board only ever sends the legal commands it was given. */
import { afterEach, describe, expect, it, vi } from "vitest";

import createBoard from "../../src/boards/flip_over_frog/index";
import { diffBoards, type Space, updateMemory } from "../../src/boards/flip_over_frog/changes";
import type { BoardContext, Command } from "../../src/boards/types";

const empty = (): Space[] => Array.from({ length: 16 }, () => ({ height: 0, top: null }));
const frog = (id: string) => ({ id, kind: "frog" as const, colour: "red", arrows: "orthogonal" as const });
const back = { kind: "back" as const };

describe("changes between boards", () => {
  it("tells placed, flipped and struck spaces apart", () => {
    const before = empty();
    before[0] = { height: 1, top: frog("R1") };
    before[1] = { height: 2, top: frog("R2") };
    before[2] = { height: 1, top: frog("R3") };
    const after = structuredClone(before);
    after[5] = { height: 1, top: frog("R4") }; // placed
    after[0] = { height: 1, top: back }; // flipped face down
    after[1] = { height: 1, top: back }; // a snake took the top frog
    const changes = diffBoards(before, after);
    expect([...changes.placed]).toEqual([5]);
    expect([...changes.flipped]).toEqual([0]);
    expect([...changes.struck]).toEqual([1]);
    const memory = updateMemory(new Map([[1, "B8"]]), before, after, changes);
    expect(memory.get(0)).toBe("R1"); // seen before it went face down
    expect(memory.get(1)).toBe("B8"); // the strike leaves the bottom tile
  });

  it("remembers the old top as the bottom when a two-tile stack turns over", () => {
    const before = empty();
    before[3] = { height: 2, top: frog("G5") };
    const after = empty();
    after[3] = { height: 2, top: frog("Y2") };
    const memory = updateMemory(new Map([[3, "Y2"]]), before, after, diffBoards(before, after));
    expect(memory.get(3)).toBe("G5");
  });
});

function view(turn: number) {
  const board = empty();
  board[6] = { height: 1, top: back };
  return {
    board,
    discards: [],
    stack_size: 20,
    frogs_face_up: { red: 0, blue: 0, green: 0, yellow: 0 },
    players: [
      { seat: 0, hand_size: 3, colour: "red" },
      { seat: 1, hand_size: 3 },
    ],
    turn,
    plays: 1,
    colour: "red",
    hand: [frog("R1"), { id: "S1", kind: "snake" }, frog("R2")],
  };
}

function context(acted: Command[]): BoardContext {
  return {
    seat: 0,
    readOnly: false,
    act: vi.fn(async (command: Command) => {
      acted.push(command);
    }),
    sound: vi.fn(),
    serverNow: () => 0,
    seatNames: ["Ada", "Bot"],
  };
}

describe("the board", () => {
  afterEach(() => document.body.replaceChildren());

  it("lights only the legal spaces and sends the expanded legal command", async () => {
    const root = document.createElement("div");
    document.body.append(root);
    const acted: Command[] = [];
    const board = createBoard(root, context(acted));
    const legal = [{ type: "play", tile: "R1", choose: { space: [6, 9] }, preview: [[], [10]] }];
    board.update(view(0), legal, null);
    expect(root.querySelectorAll(".fof-space.lit")).toHaveLength(0);
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "1" }));
    const lit = [...root.querySelectorAll<HTMLElement>(".fof-space.lit")].map((el) => el.dataset.space);
    expect(lit).toEqual(["6", "9"]);
    // Pointing at a lit space previews its flips.
    root.querySelector<HTMLElement>("[data-space='9']")!.dispatchEvent(new MouseEvent("mouseenter"));
    expect(root.querySelector("[data-space='10']")!.classList.contains("will-flip")).toBe(true);
    // A space that is not lit sends nothing.
    root.querySelector<HTMLElement>("[data-space='0']")!.click();
    expect(acted).toEqual([]);
    root.querySelector<HTMLElement>("[data-space='9']")!.click();
    await Promise.resolve();
    expect(acted).toEqual([{ type: "play", tile: "R1", space: 9 }]);
    board.destroy();
  });

  it("offers nothing when it is not the player's turn", () => {
    const root = document.createElement("div");
    const acted: Command[] = [];
    const board = createBoard(root, context(acted));
    board.update(view(1), [], null);
    root.querySelector<HTMLButtonElement>(".fof-hand-tile")!.click();
    expect(root.querySelectorAll(".fof-space.lit")).toHaveLength(0);
    root.querySelector<HTMLElement>("[data-space='6']")!.click();
    expect(acted).toEqual([]);
    expect(root.textContent).toContain("Waiting for Bot");
    board.destroy();
  });

  it("seen as a seat in a replay, names that seat and never says 'you'", () => {
    const root = document.createElement("div");
    const board = createBoard(root, { ...context([]), readOnly: true, seenAs: true });
    board.update(view(0), [], null);
    expect(root.textContent).not.toContain("(you)");
    expect(root.textContent).not.toContain("Your hand");
    expect(root.textContent).toContain("Ada's hand");
    board.destroy();
  });

  it("at the player's own seat says 'you' and 'Your hand'", () => {
    const root = document.createElement("div");
    const board = createBoard(root, context([]));
    board.update(view(0), [], null);
    expect(root.textContent).toContain("Ada (you)");
    expect(root.textContent).toContain("Your hand");
    board.destroy();
  });
});
