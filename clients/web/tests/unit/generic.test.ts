// @vitest-environment jsdom
/** The generic board: one button per expanded legal command, sending exactly that command. */
import { describe, expect, it, vi } from "vitest";

import createBoard from "../../src/boards/generic";
import type { Command } from "../../src/boards/types";

describe("the generic board", () => {
  it("offers every expanded legal command and nothing else", async () => {
    const root = document.createElement("div");
    const sent: Command[] = [];
    const board = createBoard(root, {
      seat: 0,
      readOnly: false,
      act: vi.fn(async (command: Command) => void sent.push(command)),
      sound: vi.fn(),
      serverNow: () => 0,
      seatNames: ["Ada", "Bot"],
    });
    board.update({ energy: 3 }, [{ type: "expand", kind: "risk", target: 4, cost: 2, odds: [10, 36], choose: { bonus: [[1, 2], [2, 3]] } }, { type: "end_turn" }], null);
    const buttons = [...root.querySelectorAll<HTMLButtonElement>("button.command")];
    expect(buttons.map((b) => b.textContent)).toEqual(["expand kind=risk target=4 bonus=[1,2]", "expand kind=risk target=4 bonus=[2,3]", "end_turn"]);
    expect(root.querySelector("pre")!.textContent).toContain('"energy": 3');
    buttons[1]!.click();
    await Promise.resolve();
    expect(sent).toEqual([{ type: "expand", kind: "risk", target: 4, bonus: [2, 3] }]);
    board.update({ energy: 1 }, [], { energy: 3 });
    expect(root.querySelectorAll("button.command")).toHaveLength(0);
    expect(root.textContent).toContain("Nothing to do right now.");
    board.destroy();
  });

  it("sends nothing when read-only", () => {
    const root = document.createElement("div");
    const board = createBoard(root, { seat: null, readOnly: true, act: vi.fn(), sound: vi.fn(), serverNow: () => 0, seatNames: [] });
    board.update({}, [{ type: "end_turn" }], null);
    expect(root.querySelectorAll("button.command")).toHaveLength(0);
    board.destroy();
  });
});
