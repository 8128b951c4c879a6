// @vitest-environment jsdom
/**
 * What players see of the server's operator (protocol version 3): the sentences made for a
 * closed room, a taken seat, a ban and a mute, and the room page over a fake socket saying
 * them where the player looks (the notice above the board, the closed room's panel with its
 * way back, the chat's own line), never as raw codes in the error line.
 */
import { Decoder } from "@msgpack/msgpack";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { RoomPage } from "../../src/app/room";
import { seatLabel } from "../../src/app/state";
import { bannedSentence, closedSentence, kickedSentence, mutedSentence, optionsSentence, playerDoc } from "../../src/app/sentences";
import type { SoundBoard } from "../../src/app/sound";
import { AppState } from "../../src/app/state";
import { Session, type SocketLike } from "../../src/net/session";
import { encodeValue } from "../../src/protocol/codec";

describe("sentences", () => {
  it("a closed room: the server's message, else one per reason", () => {
    expect(closedSentence({ reason: "closed_by_operator", message: "The server's operator closed this room: maintenance" })).toBe(
      "The server's operator closed this room: maintenance",
    );
    expect(closedSentence({ reason: "closed_by_operator", message: "" })).toBe("The server's operator closed this room.");
    expect(closedSentence({ reason: "expired", message: "" })).toBe("The room expired: nobody was in it.");
    expect(closedSentence({ reason: "abandoned", message: "" })).toMatch(/stopped/);
    expect(closedSentence({ reason: "internal_error", message: "" })).toMatch(/failed/);
    expect(closedSentence({ reason: "something_new", message: "" })).toBe("The room was closed.");
  });

  it("a taken seat says the player watches now, and that a bot plays on during a game", () => {
    const operator = "The server's operator removed you from seat 1: spamming. A bot plays on.";
    expect(kickedSentence({ seat: 1, message: operator }, true)).toBe(`${operator} You are watching now.`);
    // Seat 1 of the protocol is the second seat: players count from 1.
    expect(kickedSentence({ seat: 1, message: "" }, true)).toBe("The server's operator removed you from seat 2. A bot plays on. You are watching now.");
    expect(kickedSentence({ seat: 1, message: "" }, false)).toBe("The host freed your seat. You are watching now.");
    expect(kickedSentence({ seat: 0, message: "You are watching now: bye." }, false)).toBe("You are watching now: bye.");
  });

  it("bans and mutes: the server's sentence, else a plain one", () => {
    expect(bannedSentence("The server's operator banned this identity: cheating")).toBe("The server's operator banned this identity: cheating");
    expect(bannedSentence("")).toMatch(/banned/);
    expect(mutedSentence("")).toBe("The server's operator muted you in this room's chat.");
    expect(mutedSentence("Muted.")).toBe("Muted.");
  });
});

// --- the room page over a fake socket ---------------------------------------------------------

const decoder = new Decoder();

class FakeSocket implements SocketLike {
  binaryType = "blob";
  readyState = 0;
  sent: Record<string, unknown>[] = [];
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  send(data: Uint8Array): void {
    this.sent.push(decoder.decode(data) as Record<string, unknown>);
  }
  close(): void {
    this.readyState = 3;
  }
  serve(message: Record<string, unknown>): void {
    this.onmessage?.({ data: encodeValue(message).slice().buffer });
  }
  last(type: string): Record<string, unknown> {
    const found = [...this.sent].reverse().find((m) => m.type === type);
    if (!found) throw new Error(`no ${type} sent`);
    return found;
  }
}

const quiet = { play: () => undefined } as unknown as SoundBoard;

function summary(state: string, seat1: Record<string, unknown>) {
  return {
    room: "r1",
    game: "flip_over_frog",
    state,
    host: "u0",
    seats: [{ seat: 0, kind: "human", name: "Ada", user: "u0", connected: true, ready: true }, { seat: 1, ...seat1 }],
  };
}

let socket: FakeSocket;
let page: RoomPage;

function openRoom(): { app: AppState; session: Session } {
  const session = new Session({
    url: "ws://test/ws",
    name: "Bob",
    token: null,
    pingInterval: 0,
    socketFactory: () => (socket = new FakeSocket()),
  });
  socket.readyState = 1;
  socket.onopen?.({});
  socket.serve({ type: "welcome", ref: socket.last("hello").id, version: 3, token: "t", user: "u1", name: "Bob", server_time: 1, max_frame: 65536 });
  const app = new AppState(session, quiet);
  page = new RoomPage(app, "r1", null);
  document.body.replaceChildren(page.element);
  socket.serve({ type: "room_update", info: summary("playing", { kind: "human", name: "Bob", user: "u1", connected: true, ready: true }) });
  socket.serve({ type: "snapshot", ref: socket.last("resume").id, room: "r1", epoch: "e", seq: 3, seat: 1, view: { turn: 0 }, legal: [] });
  return { app, session };
}

const byTestId = (id: string) => page.element.querySelector<HTMLElement>(`[data-testid="${id}"]`);

beforeEach(() => document.body.replaceChildren());
afterEach(() => page?.destroy());

describe("the room page", () => {
  it("kicked by the operator during a game: the sentence above the board, a spectator's seat list", () => {
    const { app } = openRoom();
    expect(byTestId("room-notice")!.hidden).toBe(true);
    socket.serve({ type: "kicked", room: "r1", seat: 1, message: "The server's operator removed you from seat 1: spamming. A bot plays on." });
    socket.serve({ type: "snapshot", room: "r1", epoch: "e", seq: 3, seat: null, view: { turn: 0 }, legal: [] });
    socket.serve({ type: "room_update", info: summary("playing", { kind: "bot", name: "Bob", bot: "bot", ready: true }) });
    const notice = byTestId("room-notice")!;
    expect(notice.hidden).toBe(false);
    expect(notice.textContent).toBe("The server's operator removed you from seat 1: spamming. A bot plays on. You are watching now.");
    expect(app.mySeat("r1")).toBeNull();
    expect(app.session.view("r1")?.seat).toBeNull();
    expect(byTestId("error-line")!.hidden).toBe(true);
  });

  it("closed by the operator: the sentence, no board, a way back to the lobby", () => {
    openRoom();
    socket.serve({ type: "room_closed", room: "r1", reason: "closed_by_operator", message: "The server's operator closed this room: maintenance" });
    expect(byTestId("room-notice")!.hidden).toBe(true); // said once, where the board was
    expect(byTestId("closed-sentence")!.textContent).toBe("The server's operator closed this room: maintenance");
    expect(byTestId("back-to-lobby")!.getAttribute("href")).toBe("#/");
    expect(page.element.querySelector(".board-root")).toBeNull();
    expect(byTestId("error-line")!.hidden).toBe(true);
    expect(page.element.querySelector("[data-testid=leave]")).toBeNull();
    expect(page.element.querySelector<HTMLInputElement>(".chat-input")!.disabled).toBe(true);
    expect(page.element.querySelectorAll(".seat-list button")).toHaveLength(0);
  });

  it("closed by a version 2 server (no message): a sentence made from the reason", () => {
    openRoom();
    socket.serve({ type: "room_closed", room: "r1", reason: "expired" });
    expect(byTestId("closed-sentence")!.textContent).toBe("The room expired: nobody was in it.");
  });

  it("muted: the chat says why in a sentence; the error line stays quiet", async () => {
    openRoom();
    const input = page.element.querySelector<HTMLInputElement>(".chat-input")!;
    input.value = "hello?";
    page.element.querySelector<HTMLFormElement>(".chat-form")!.requestSubmit();
    const sent = socket.last("chat_send");
    expect(sent).toMatchObject({ room: "r1", text: "hello?" });
    socket.serve({ type: "error", ref: sent.id, code: "muted", message: "The server's operator muted you in this room's chat." });
    await Promise.resolve();
    await Promise.resolve();
    const notice = page.element.querySelector<HTMLElement>("[data-testid=chat-notice]")!;
    expect(notice.hidden).toBe(false);
    expect(notice.textContent).toBe("The server's operator muted you in this room's chat.");
    expect(byTestId("error-line")!.hidden).toBe(true);
    expect(input.value).toBe("hello?"); // kept: nothing was said
  });

  it("banned at an open connection: bye banned ends the session with the sentence", () => {
    const { session } = openRoom();
    const ended: string[] = [];
    session.on("ended", (reason) => ended.push(reason.message));
    socket.serve({ type: "bye", code: "banned", message: "The server's operator banned this identity: cheating" });
    socket.onclose?.({ code: 1008 });
    expect(ended).toEqual(["The server's operator banned this identity: cheating"]);
    expect(session.status).toBe("closed");
  });
});

describe("what players read of the catalogue", () => {
  it("option sentences leave the rule citations out", () => {
    expect(playerDoc("seconds a wrong claim locks its player out (decisions 7)")).toBe("seconds a wrong claim locks its player out");
    expect(playerDoc("classic: Classic Battle (2-4 seats); overdrive: Neon Overdrive (2-4 seats, rulebook 2.5.2); solo: Cyber-Solitaire, one seat against PROTO-ZERO (2.5.3)")).toBe(
      "classic: Classic Battle (2-4 seats); overdrive: Neon Overdrive (2-4 seats); solo: Cyber-Solitaire, one seat against PROTO-ZERO",
    );
    expect(playerDoc("Checkpoints before the game ends (decisions 12); 2 reproduces rulebook 2.6.")).toBe("Checkpoints before the game ends.");
    expect(playerDoc("race (2-4 players) or solo (1 player)")).toBe("race (2-4 players) or solo (1 player)");
  });

  it("two bots of one kind read apart: their seat's number", () => {
    expect(seatLabel(1, "bot bot", "bot", "bot")).toBe("Bot 2");
    expect(seatLabel(2, "easy bot", "bot", "easy")).toBe("Easy bot 3");
    expect(seatLabel(1, "Frogbert", "bot", "bot")).toBe("Frogbert");
  });

  it("a room's options in words: only what differs from the defaults", () => {
    const game = { id: "g", name: "G", default_bot: "bot", options: [{ name: "rounds", kind: "int", default: 4, doc: "" }, { name: "teams", kind: "bool", default: false, doc: "" }, { name: "mode", kind: "choice", default: "classic", doc: "" }] } as never;
    expect(optionsSentence({ rounds: 1, teams: true, mode: "classic" }, game, 30)).toBe("rounds 1 · teams · turn clock 30 s");
    expect(optionsSentence({ rounds: 4, teams: false }, game, null)).toBe("");
  });
});
