// @vitest-environment jsdom
/** A board's keys work from anywhere on the room page (a button, a checkbox, the share link's
 *  read-only field, the page itself) and only a text field or a list keeps its own keys. */
import { afterEach, describe, expect, it, vi } from "vitest";

import createBoard from "../../src/boards/flip_over_frog/index";
import { typingInto } from "../../src/boards/keys";
import type { BoardContext } from "../../src/boards/types";

function element(html: string): HTMLElement {
  const holder = document.createElement("div");
  holder.innerHTML = html;
  document.body.append(holder);
  return holder.firstElementChild as HTMLElement;
}

afterEach(() => document.body.replaceChildren());

describe("whose keys a key press is", () => {
  it("is the text field's or the list's while the player types or picks", () => {
    expect(typingInto(element('<input type="text">'))).toBe(true);
    expect(typingInto(element("<input>"))).toBe(true);
    expect(typingInto(element('<input type="password">'))).toBe(true);
    expect(typingInto(element("<textarea></textarea>"))).toBe(true);
    expect(typingInto(element("<select><option>a</option></select>"))).toBe(true);
    expect(typingInto(element('<div contenteditable="true"><span>x</span></div>').firstElementChild)).toBe(true);
  });

  it("is the board's anywhere else", () => {
    expect(typingInto(element('<input type="text" readonly>'))).toBe(false);
    expect(typingInto(element('<input type="checkbox">'))).toBe(false);
    expect(typingInto(element("<button>Start game</button>"))).toBe(false);
    expect(typingInto(document.body)).toBe(false);
    expect(typingInto(null)).toBe(false);
  });
});

describe("Flip Over Frog's 1, 2 or 3", () => {
  const back = { kind: "back" };
  const view = {
    board: Array.from({ length: 16 }, (_, n) => (n === 6 ? { height: 1, top: back } : { height: 0, top: null })),
    discards: [],
    stack_size: 20,
    frogs_face_up: { red: 0, blue: 0, green: 0, yellow: 0 },
    players: [
      { seat: 0, hand_size: 3, colour: "red" },
      { seat: 1, hand_size: 3 },
    ],
    turn: 0,
    plays: 1,
    colour: "red",
    hand: [{ id: "R1", kind: "frog", colour: "red" }, { id: "S1", kind: "snake" }, { id: "R2", kind: "frog", colour: "red" }],
  };
  const context: BoardContext = { seat: 0, readOnly: false, act: vi.fn(async () => undefined), sound: vi.fn(), serverNow: () => 0, seatNames: ["Ada", "Bot"] };

  it.each([
    ["the share link's read-only field", '<input type="text" readonly value="https://lumin/#/room/r1">'],
    ["a checkbox", '<input type="checkbox">'],
    ["a button outside the board", "<button>Ready</button>"],
  ])("pick a tile with focus on %s", (_where, html) => {
    const root = document.createElement("div");
    document.body.append(root);
    const board = createBoard(root, context);
    board.update(view, [{ type: "play", tile: "R1", choose: { space: [6, 9] }, preview: [[], [10]] }], null);
    const focus = element(html);
    focus.focus();
    focus.dispatchEvent(new KeyboardEvent("keydown", { key: "1", bubbles: true, cancelable: true }));
    expect([...root.querySelectorAll<HTMLElement>(".fof-space.lit")].map((el) => el.dataset.space)).toEqual(["6", "9"]);
    board.destroy();
  });

  it("leaves the chat's keys alone", () => {
    const root = document.createElement("div");
    document.body.append(root);
    const board = createBoard(root, context);
    board.update(view, [{ type: "play", tile: "R1", choose: { space: [6, 9] }, preview: [[], [10]] }], null);
    const chat = element('<input type="text" aria-label="Chat message">');
    chat.dispatchEvent(new KeyboardEvent("keydown", { key: "1", bubbles: true, cancelable: true }));
    expect(root.querySelectorAll(".fof-space.lit")).toHaveLength(0);
    board.destroy();
  });
});
