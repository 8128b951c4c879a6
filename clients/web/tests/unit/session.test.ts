/**
 * The session (I/O layer) over a fake socket: requests resolve with their answers and reject
 * with the server's refusals, views are reported with the copy before, a dropped socket
 * reconnects with backoff, says hello with the stored token and resumes every held room, and
 * (protocol version 2) `moved` takes the session to another node at once and `try_again`
 * requests go again; (version 5) claiming a name or signing in adopts the account's session
 * token, and signing out revokes the session and comes back as a new guest.
 */
import { Decoder } from "@msgpack/msgpack";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { ClockSync } from "../../src/net/clock";
import { Session, type SocketLike } from "../../src/net/session";
import { encodeValue } from "../../src/protocol/codec";
import { ServerError } from "../../src/protocol/errors";

const decoder = new Decoder();

class FakeSocket implements SocketLike {
  binaryType = "blob";
  readyState = 0;
  sent: Record<string, unknown>[] = [];
  closeCode: number | null = null;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;

  constructor(readonly url: string) {}

  send(data: Uint8Array): void {
    this.sent.push(decoder.decode(data) as Record<string, unknown>);
  }
  close(code = 1000): void {
    this.drop(code);
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  drop(code = 1006): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.closeCode = code;
    this.onclose?.({ code });
  }
  serve(message: Record<string, unknown>): void {
    this.onmessage?.({ data: encodeValue(message).slice().buffer });
  }
  last(type: string): Record<string, unknown> {
    const found = [...this.sent].reverse().find((m) => m.type === type);
    if (!found) throw new Error(`no ${type} sent: ${JSON.stringify(this.sent)}`);
    return found;
  }
}

let sockets: FakeSocket[] = [];
const tokens: string[] = [];

function connect(token: string | null = null): Session {
  return new Session({
    url: "ws://test/ws",
    name: "Ada",
    token,
    onToken: (t) => tokens.push(t),
    pingInterval: 0,
    socketFactory: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
  });
}

function welcome(socket: FakeSocket, token = "tk1", version = 1): void {
  const hello = socket.last("hello");
  socket.serve({ type: "welcome", ref: hello.id, version, token, user: "u1", name: "Ada", server_time: 1000, max_frame: 65536 });
}

beforeEach(() => {
  vi.useFakeTimers();
  sockets = [];
  tokens.length = 0;
});

afterEach(() => vi.useRealTimers());

describe("requests", () => {
  it("queues until the socket opens, then resolves by ref", async () => {
    const session = connect("old");
    const socket = sockets[0]!;
    const lobby = session.request({ type: "watch_lobby" });
    expect(socket.sent).toEqual([]);
    socket.open();
    expect(socket.sent.map((m) => m.type)).toEqual(["hello", "watch_lobby"]);
    expect(socket.sent[0]).toMatchObject({ versions: [1, 2, 3, 4, 5, 6], name: "Ada", token: "old" });
    welcome(socket);
    expect(session.status).toBe("open");
    expect(tokens).toEqual(["tk1"]);
    socket.serve({ type: "room_list", ref: socket.last("watch_lobby").id, rooms: [] });
    await expect(lobby).resolves.toMatchObject({ type: "room_list", rooms: [] });
  });

  it("rejects with the server's code on error and rejected, and reports both", async () => {
    const session = connect();
    const socket = sockets[0]!;
    socket.open();
    welcome(socket);
    const problems: string[] = [];
    session.on("problem", (problem, room) => problems.push(`${problem.code}@${room}`));
    const join = session.request({ type: "join_seat", room: "r1", seat: 9 });
    socket.serve({ type: "error", ref: socket.last("join_seat").id, code: "no_such_seat", message: "No seat 9." });
    await expect(join).rejects.toMatchObject({ code: "no_such_seat", message: "No seat 9." });
    const act = session.request({ type: "act", room: "r1", command: { type: "play" } });
    socket.serve({ type: "rejected", ref: socket.last("act").id, room: "r1", code: "not_your_turn", message: "Wait." });
    await expect(act).rejects.toBeInstanceOf(ServerError);
    expect(problems).toEqual(["no_such_seat@null", "not_your_turn@r1"]);
  });

  it("times out a request the server never answers", async () => {
    const session = connect();
    sockets[0]!.open();
    welcome(sockets[0]!);
    const answer = session.request({ type: "list_games" });
    vi.advanceTimersByTime(21_000);
    await expect(answer).rejects.toMatchObject({ code: "timeout" });
  });
});

describe("views", () => {
  it("reports each change with the copy before", () => {
    const session = connect();
    const socket = sockets[0]!;
    socket.open();
    welcome(socket);
    const seen: [number | undefined, number | undefined][] = [];
    session.on("view", (_room, copy, previous) => seen.push([copy?.seq, previous?.seq]));
    socket.serve({ type: "snapshot", room: "r1", epoch: "e", seq: 3, seat: 0, view: { n: 1 }, legal: [] });
    socket.serve({ type: "delta", room: "r1", base: 3, seq: 4, ops: [["replace", "/n", 2]] });
    expect(seen).toEqual([
      [3, undefined],
      [4, 3],
    ]);
    expect(session.view("r1")?.view).toEqual({ n: 2 });
  });
});

describe("reconnecting", () => {
  it("retries with backoff, says hello with the token and resumes every room", async () => {
    const session = connect();
    const first = sockets[0]!;
    first.open();
    welcome(first, "tk-secret");
    session.codes.set("priv", "ABC234");
    first.serve({ type: "snapshot", room: "pub", epoch: "e1", seq: 7, seat: 0, view: { x: 1 }, legal: [] });
    first.serve({ type: "snapshot", room: "priv", epoch: "e1", seq: 2, seat: null, view: { y: 1 }, legal: [] });
    const pending = session.request({ type: "list_games" });
    const statuses: string[] = [];
    session.on("status", (status) => statuses.push(status));

    first.drop();
    await expect(pending).rejects.toMatchObject({ code: "disconnected" });
    expect(session.status).toBe("reconnecting");
    await expect(session.request({ type: "ping" })).rejects.toMatchObject({ code: "disconnected" });
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(700); // the first retry comes after 0.5 s (± 25 %)
    expect(sockets).toHaveLength(2);
    const second = sockets[1]!;
    second.open();
    expect(second.sent).toEqual([
      expect.objectContaining({ type: "hello", token: "tk-secret", name: "Ada" }),
      expect.objectContaining({ type: "resume", room: "pub", seq: 7, epoch: "e1" }),
      expect.objectContaining({ type: "resume", room: "priv", seq: 2, epoch: "e1", code: "ABC234" }),
    ]);
    welcome(second, "tk-secret");
    expect(statuses).toEqual(["reconnecting", "open"]);
    // The resume's deltas apply to the old copies.
    second.serve({ type: "delta", room: "pub", base: 7, seq: 8, ops: [["replace", "/x", 2]] });
    expect(session.view("pub")).toMatchObject({ seq: 8, view: { x: 2 } });
  });

  it("a room the server no longer has after a reconnect ends as a closed room, in its words", async () => {
    const session = connect();
    const first = sockets[0]!;
    first.open();
    welcome(first);
    first.serve({ type: "snapshot", room: "gone", epoch: "e1", seq: 4, seat: 0, view: { x: 1 }, legal: [] });
    const closed: unknown[] = [];
    const views: unknown[] = [];
    session.on("msg:room_closed", (message) => closed.push(message));
    session.on("view", (room, copy) => views.push([room, copy]));
    first.drop();
    vi.advanceTimersByTime(700);
    const second = sockets[1]!;
    second.open();
    welcome(second);
    // A restore from an older backup: the server holds no such room any more.
    second.serve({ type: "error", ref: second.last("resume").id, code: "no_such_room", message: "There is no live room 'gone'." });
    expect(closed).toEqual([
      { type: "room_closed", room: "gone", reason: "gone", message: "This room is no longer on the server: There is no live room 'gone'." },
    ]);
    expect(views).toEqual([["gone", null]]);
    expect(session.view("gone")).toBeNull();
  });

  it("restart lets go of the socket at once: nothing is queued on a connection going away", async () => {
    const session = connect();
    const first = sockets[0]!;
    first.open();
    welcome(first);
    // A browser's close() only starts the closing handshake; onclose comes later.
    first.close = () => {
      first.readyState = 2;
    };
    session.restart();
    expect(session.status).toBe("reconnecting");
    await expect(session.request({ type: "list_games" })).rejects.toMatchObject({ code: "disconnected" });
    // A move waits for the next connection, which holds no copy of its room: not sent.
    const early = session.request({ type: "act", room: "r1", command: { type: "play" } });
    first.drop(); // the late close event changes nothing
    vi.advanceTimersByTime(700);
    expect(sockets).toHaveLength(2);
    const second = sockets[1]!;
    second.open();
    welcome(second);
    expect(session.status).toBe("open");
    await expect(early).rejects.toMatchObject({ code: "not_sent" });
    const act = session.request({ type: "act", room: "r1", command: { type: "play" } });
    expect(second.last("act")).toMatchObject({ room: "r1" });
    second.serve({ type: "ok", ref: second.last("act").id });
    await expect(act).resolves.toMatchObject({ type: "ok" });
    expect(first.sent.filter((m) => m.type === "act")).toEqual([]);
  });

  it("backs off longer after each failure, up to 10 s", () => {
    connect();
    for (let n = 0; n < 8; n++) sockets[sockets.length - 1]!.drop();
    // Drops before any timer fired do not multiply sockets.
    expect(sockets).toHaveLength(1);
    const delays: number[] = [];
    for (let n = 0; n < 6; n++) {
      const count = sockets.length;
      let waited = 0;
      while (sockets.length === count) {
        vi.advanceTimersByTime(100);
        waited += 100;
      }
      delays.push(waited);
      sockets[sockets.length - 1]!.drop();
    }
    expect(delays[0]).toBeLessThanOrEqual(700);
    expect(delays[5]).toBeGreaterThanOrEqual(7500);
    expect(Math.max(...delays)).toBeLessThanOrEqual(12_600);
  });
});

/** A session welcomed in version 2 on its first socket, holding room r1 (seq 5) with `legal`. */
function inRoom(legal: Record<string, unknown>[] = []): { session: Session; first: FakeSocket; problems: string[] } {
  const session = connect("tk1");
  const first = sockets[0]!;
  first.open();
  welcome(first, "tk1", 2);
  first.serve({ type: "snapshot", room: "r1", epoch: "e1", seq: 5, seat: 0, view: { n: 5 }, legal });
  const problems: string[] = [];
  session.on("problem", (problem) => problems.push(problem.code));
  return { session, first, problems };
}

/** Answer the last `type` request on `socket` with `moved` to `url`. */
function move(socket: FakeSocket, type: string, url: string, room: string | null = "r1"): void {
  socket.serve({ type: "moved", ref: socket.last(type).id, room, url });
}

describe("renaming", () => {
  it("with a version 4 server: set_name on the open connection, no reconnect", async () => {
    const session = connect();
    const socket = sockets[0]!;
    socket.open();
    welcome(socket, "tk1", 4);
    const lobby = session.request({ type: "watch_lobby" });
    const renamed = session.rename("Ada Lovelace");
    expect(socket.last("set_name")).toMatchObject({ name: "Ada Lovelace" });
    socket.serve({ type: "ok", ref: socket.last("set_name").id });
    await expect(renamed).resolves.toBeUndefined();
    // The request in flight carries on: nothing was dropped, no new socket.
    socket.serve({ type: "room_list", ref: socket.last("watch_lobby").id, rooms: [] });
    await expect(lobby).resolves.toMatchObject({ type: "room_list" });
    expect(sockets).toHaveLength(1);
    expect(session.status).toBe("open");
  });

  it("with an older server: reconnects and says hello with the new name", () => {
    const session = connect();
    sockets[0]!.open();
    welcome(sockets[0]!, "tk1", 3);
    void session.rename("Bea");
    vi.advanceTimersByTime(700);
    expect(sockets).toHaveLength(2);
    sockets[1]!.open();
    expect(sockets[1]!.last("hello")).toMatchObject({ name: "Bea", token: "tk1" });
  });
});

describe("a move made while offline", () => {
  it("is held, then sent after the resume when the identical command is among the fresh legal", async () => {
    const { session, first } = inRoom([{ type: "play", choose: { space: [1, 2] } }]);
    first.drop();
    const act = session.request({ type: "act", room: "r1", command: { type: "play", space: 2 }, seq: 5 });
    expect(session.holding).toBe(1);
    vi.advanceTimersByTime(700);
    const second = sockets[1]!;
    second.open();
    welcome(second, "tk1", 2);
    expect(second.sent.filter((m) => m.type === "act")).toEqual([]); // it waits for the resume
    second.serve({ type: "delta", room: "r1", base: 5, seq: 6, ops: [], legal: [{ type: "play", choose: { space: [2, 3] } }] });
    second.serve({ type: "ok", ref: second.last("resume").id, room: "r1" });
    // Checked against the fresh legal, so sent as of the fresh copy.
    expect(second.last("act")).toMatchObject({ room: "r1", command: { type: "play", space: 2 }, seq: 6 });
    expect(session.holding).toBe(0);
    second.serve({ type: "accepted", ref: second.last("act").id, room: "r1", seq: 7 });
    await expect(act).resolves.toMatchObject({ type: "accepted", seq: 7 });
  });

  it("waits through a failed reconnect attempt", async () => {
    const { session, first } = inRoom([{ type: "pass" }]);
    first.drop();
    const act = session.request({ type: "act", room: "r1", command: { type: "pass" }, seq: 5 });
    vi.advanceTimersByTime(700);
    sockets[1]!.drop(); // the first attempt fails before its welcome
    expect(session.holding).toBe(1);
    vi.advanceTimersByTime(1500);
    const third = sockets[2]!;
    third.open();
    welcome(third, "tk1", 2);
    third.serve({ type: "ok", ref: third.last("resume").id, room: "r1" });
    third.serve({ type: "accepted", ref: third.last("act").id, room: "r1", seq: 6 });
    await expect(act).resolves.toMatchObject({ type: "accepted" });
  });

  it("is not sent when it is no longer legal after the resume, and says so", async () => {
    const { session, first } = inRoom([{ type: "play", choose: { space: [1, 2] } }]);
    first.drop();
    const act = session.request({ type: "act", room: "r1", command: { type: "play", space: 2 }, seq: 5 });
    vi.advanceTimersByTime(700);
    const second = sockets[1]!;
    second.open();
    welcome(second, "tk1", 2);
    second.serve({ type: "snapshot", ref: second.last("resume").id, room: "r1", epoch: "e1", seq: 9, seat: 0, view: { n: 9 }, legal: [{ type: "pass" }] });
    const error = await act.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "not_sent" });
    expect((error as ServerError).message).toBe("Your move was not sent: the game changed while you were offline.");
    expect(second.sent.filter((m) => m.type === "act")).toEqual([]);
  });
});

describe("moved (protocol version 2)", () => {
  it("offers versions 1 to 6 and speaks the one welcome picks", () => {
    const session = connect();
    sockets[0]!.open();
    expect(sockets[0]!.last("hello")).toMatchObject({ versions: [1, 2, 3, 4, 5, 6] });
    welcome(sockets[0]!, "tk1", 2);
    expect(session.conn.version).toBe(2);
  });

  it("answering join_seat: reconnects to its url at once with the token, resumes, sends join_seat again", async () => {
    const { session, first, problems } = inRoom();
    const join = session.request({ type: "join_seat", room: "r1", seat: 1 });
    move(first, "join_seat", "ws://node2:8700/ws");
    expect(first.closeCode).toBe(1000);
    expect(sockets).toHaveLength(2); // at once: no timer ran
    const second = sockets[1]!;
    expect(second.url).toBe("ws://node2:8700/ws");
    second.open();
    expect(second.sent).toEqual([
      expect.objectContaining({ type: "hello", token: "tk1", versions: [1, 2, 3, 4, 5, 6] }),
      expect.objectContaining({ type: "resume", room: "r1", seq: 5, epoch: "e1" }),
      expect.objectContaining({ type: "join_seat", room: "r1", seat: 1 }),
    ]);
    welcome(second, "tk1", 2);
    second.serve({ type: "ok", ref: second.last("resume").id, room: "r1" });
    second.serve({ type: "ok", ref: second.last("join_seat").id, room: "r1" });
    await expect(join).resolves.toMatchObject({ type: "ok", room: "r1" });
    expect(session.status).toBe("open");
    expect(problems).toEqual([]);
  });

  it("answering create_room: the same create_room goes to the new node", async () => {
    const session = connect("tk1");
    const first = sockets[0]!;
    first.open();
    welcome(first, "tk1", 2);
    const created = session.request({ type: "create_room", game: "flip_over_frog", seats: [{ kind: "human" }, { kind: "bot", bot: "bot" }], sit: 0 });
    move(first, "create_room", "wss://lumin.example/node/3/ws", null);
    const second = sockets[1]!;
    expect(second.url).toBe("wss://lumin.example/node/3/ws");
    second.open();
    const asked = first.last("create_room");
    expect(second.last("create_room")).toEqual({ ...asked, id: expect.any(Number) });
    expect(asked).toMatchObject({ game: "flip_over_frog", seats: [{ kind: "human" }, { kind: "bot", bot: "bot" }], sit: 0 });
    welcome(second, "tk1", 2);
    second.serve({ type: "room_created", ref: second.last("create_room").id, room: "r9", commitment: "c" });
    await expect(created).resolves.toMatchObject({ type: "room_created", room: "r9" });
  });

  it("answering an act still legal after the resume: the act goes again", async () => {
    const { session, first } = inRoom([{ type: "play", choose: { space: [1, 2] } }]);
    const act = session.request({ type: "act", room: "r1", command: { type: "play", space: 2 }, seq: 5 });
    move(first, "act", "ws://node2/ws");
    const second = sockets[1]!;
    second.open();
    welcome(second, "tk1", 2);
    expect(second.sent.filter((m) => m.type === "act")).toEqual([]); // the act waits for the resume
    second.serve({ type: "delta", room: "r1", base: 5, seq: 6, ops: [], legal: [{ type: "play", choose: { space: [2, 3] } }] });
    second.serve({ type: "ok", ref: second.last("resume").id, room: "r1" });
    expect(second.last("act")).toMatchObject({ room: "r1", command: { type: "play", space: 2 }, seq: 5 });
    second.serve({ type: "accepted", ref: second.last("act").id, room: "r1", seq: 7 });
    await expect(act).resolves.toMatchObject({ type: "accepted", seq: 7 });
  });

  it("answering an act no longer legal after the resume: it fails with a sentence and is not sent", async () => {
    const { session, first } = inRoom([{ type: "play", choose: { space: [1, 2] } }]);
    const act = session.request({ type: "act", room: "r1", command: { type: "play", space: 2 }, seq: 5 });
    move(first, "act", "ws://node2/ws");
    const second = sockets[1]!;
    second.open();
    welcome(second, "tk1", 2);
    const resume = second.last("resume");
    second.serve({ type: "snapshot", ref: resume.id, room: "r1", epoch: "e2", seq: 8, seat: 0, view: { n: 8 }, legal: [{ type: "pass" }] });
    const error = await act.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ code: "game_changed" });
    expect((error as ServerError).message).toMatch(/^The move was not sent because the game changed\b.*\.$/);
    expect(second.sent.filter((m) => m.type === "act")).toEqual([]);
  });

  it("with ref nil (the room moved away): reconnects to its url at once and resumes", () => {
    const { session, first, problems } = inRoom();
    const statuses: string[] = [];
    session.on("status", (status) => statuses.push(status));
    first.serve({ type: "moved", ref: null, room: "r1", url: "ws://node2/ws" });
    expect(sockets).toHaveLength(2);
    const second = sockets[1]!;
    expect(second.url).toBe("ws://node2/ws");
    second.open();
    expect(second.sent).toEqual([
      expect.objectContaining({ type: "hello", token: "tk1" }),
      expect.objectContaining({ type: "resume", room: "r1", seq: 5, epoch: "e1" }),
    ]);
    welcome(second, "tk1", 2);
    second.serve({ type: "delta", room: "r1", base: 5, seq: 6, ops: [["replace", "/n", 6]] });
    second.serve({ type: "ok", ref: second.last("resume").id, room: "r1" });
    expect(session.view("r1")).toMatchObject({ seq: 6, view: { n: 6 } });
    expect(statuses).toEqual(["reconnecting", "open"]);
    expect(problems).toEqual([]);
  });

  it("follows at most 3 moved in a row, then fails the request", async () => {
    const { session, first } = inRoom();
    const join = session.request({ type: "join_seat", room: "r1", seat: 1 });
    move(first, "join_seat", "ws://node2/ws");
    for (const url of ["ws://node3/ws", "ws://node2/ws", "ws://node3/ws"]) {
      const socket = sockets[sockets.length - 1]!;
      socket.open();
      welcome(socket, "tk1", 2);
      socket.serve({ type: "ok", ref: socket.last("resume").id, room: "r1" }); // the held room lives here
      move(socket, "join_seat", url);
    }
    expect(sockets.map((s) => s.url)).toEqual(["ws://test/ws", "ws://node2/ws", "ws://node3/ws", "ws://node2/ws"]);
    const error = await join.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ code: "too_many_moves" });
    expect((error as ServerError).message).toContain("join_seat");
    expect(session.status).toBe("open"); // it stays where it is
    // The count starts again: the next request may follow moved once more.
    session.request({ type: "join_seat", room: "r1", seat: 1 }).catch(() => undefined);
    move(sockets[3]!, "join_seat", "ws://node4/ws");
    expect(sockets.map((s) => s.url).at(-1)).toBe("ws://node4/ws");
  });

  it("falls back to the first URL when the node moved to cannot be reached", async () => {
    const { session, first } = inRoom();
    const join = session.request({ type: "join_seat", room: "r1", seat: 1 });
    move(first, "join_seat", "ws://dead-node/ws");
    sockets[1]!.drop(); // refused: the node is gone
    await expect(join).rejects.toMatchObject({ code: "disconnected" });
    expect(session.status).toBe("reconnecting");
    vi.advanceTimersByTime(700);
    expect(sockets).toHaveLength(3);
    const third = sockets[2]!;
    expect(third.url).toBe("ws://test/ws");
    third.open();
    expect(third.sent.map((m) => m.type)).toEqual(["hello", "resume"]);
  });

  it("after a move, bye going_away and close 1001 reconnect with backoff to the first URL", () => {
    const { first } = inRoom();
    first.serve({ type: "moved", ref: null, room: "r1", url: "ws://node2/ws" });
    const second = sockets[1]!;
    second.open();
    welcome(second, "tk1", 2);
    second.serve({ type: "bye", code: "going_away", message: "Room r1 moved to another server; reconnect." });
    second.drop(1001);
    expect(sockets).toHaveLength(2); // not at once: with backoff
    vi.advanceTimersByTime(700);
    expect(sockets[2]!.url).toBe("ws://test/ws");
  });
});

describe("try_again", () => {
  it("sends the request again after about a second, unreported, until it is answered", async () => {
    const { session, first, problems } = inRoom();
    const join = session.request({ type: "join_seat", room: "r1", seat: 1 });
    for (let n = 0; n < 2; n++) {
      const asked = first.last("join_seat");
      first.serve({ type: "error", ref: asked.id, code: "try_again", message: "Room r1 is changing server." });
      vi.advanceTimersByTime(700);
      expect(first.last("join_seat").id).toBe(asked.id); // not yet
      vi.advanceTimersByTime(600);
      expect(first.last("join_seat").id).not.toBe(asked.id);
    }
    expect(first.sent.filter((m) => m.type === "join_seat")).toHaveLength(3);
    first.serve({ type: "ok", ref: first.last("join_seat").id, room: "r1" });
    await expect(join).resolves.toMatchObject({ type: "ok" });
    expect(problems).toEqual([]);
  });

  it("gives up after 3 retries with the server's message", async () => {
    const { session, first } = inRoom();
    const join = session.request({ type: "join_seat", room: "r1", seat: 1 });
    for (let n = 0; n < 4; n++) {
      first.serve({ type: "error", ref: first.last("join_seat").id, code: "try_again", message: `Busy (${n}).` });
      vi.advanceTimersByTime(1300);
    }
    await expect(join).rejects.toMatchObject({ code: "try_again", message: "Busy (3)." });
    expect(first.sent.filter((m) => m.type === "join_seat")).toHaveLength(4);
  });
});

describe("refused for good (protocol version 3: banned)", () => {
  function banned(): Session {
    return new Session({
      url: "ws://test/ws",
      name: "Ada",
      token: "tk1",
      pingInterval: 0,
      socketFactory: (url) => {
        const socket = new FakeSocket(url);
        sockets.push(socket);
        return socket;
      },
    });
  }

  it("a fatal error banned at hello ends the session: no reconnect, the sentence kept", () => {
    const session = banned();
    const ended: string[] = [];
    session.on("ended", (reason) => ended.push(`${reason.code}: ${reason.message}`));
    sockets[0]!.open();
    const hello = sockets[0]!.last("hello");
    sockets[0]!.serve({ type: "error", ref: hello.id, code: "banned", message: "The server's operator banned this identity: cheating.", fatal: true });
    sockets[0]!.drop(1008);
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
    expect(session.status).toBe("closed");
    expect(ended).toEqual(["banned: The server's operator banned this identity: cheating."]);
    expect(session.ended?.code).toBe("banned");
  });

  it("bye banned on an open connection ends it too, and requests fail at once", async () => {
    const session = banned();
    sockets[0]!.open();
    welcome(sockets[0]!, "tk1", 3);
    expect(session.status).toBe("open");
    sockets[0]!.serve({ type: "bye", code: "banned", message: "The server's operator banned this address." });
    sockets[0]!.drop(1008);
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
    expect(session.status).toBe("closed");
    expect(session.ended?.message).toBe("The server's operator banned this address.");
    await expect(session.request({ type: "list_games" })).rejects.toMatchObject({ code: "disconnected" });
  });

  it("bye going_away still reconnects", () => {
    const session = banned();
    sockets[0]!.open();
    welcome(sockets[0]!);
    sockets[0]!.serve({ type: "bye", code: "going_away", message: "The server is shutting down." });
    sockets[0]!.drop(1001);
    vi.advanceTimersByTime(700);
    expect(sockets).toHaveLength(2);
    expect(session.ended).toBeNull();
  });
});

describe("clock sync", () => {
  it("uses the sample with the smallest round trip", () => {
    const clock = new ClockSync();
    clock.seed(100, 150);
    expect(clock.offset).toBe(50);
    clock.add(100, 100.4, 160.0); // rtt 0.4: offset 160.2 - 100.4 = 59.8
    clock.add(200, 200.02, 260.0); // rtt 0.02: offset 260.01 - 200.02 = 59.99
    clock.add(300, 301, 360.0); // slow
    expect(clock.offset).toBeCloseTo(59.99, 6);
    expect(clock.lastRtt).toBeCloseTo(1, 6);
    expect(clock.serverTime(1000)).toBeCloseTo(1059.99, 6);
  });
});

describe("accounts (protocol version 5)", () => {
  function signedIn(): { session: Session; socket: FakeSocket } {
    const session = connect("guest-token");
    const socket = sockets[0]!;
    socket.open();
    welcome(socket, "guest-token", 5);
    return { session, socket };
  }

  it("claiming a name keeps the connection and stores the account's session token", async () => {
    const { session, socket } = signedIn();
    const claim = session.signIn("claim_name", "Ada", "correct horse");
    expect(socket.last("claim_name")).toMatchObject({ name: "Ada", password: "correct horse" });
    socket.serve({ type: "account", ref: socket.last("claim_name").id, user: "u1", name: "Ada", token: "session-token", session: "s1" });
    await expect(claim).resolves.toMatchObject({ session: "s1" });
    expect(tokens).toEqual(["session-token"]);
    expect(sockets).toHaveLength(1);
    expect(session.token).toBe("session-token");
  });

  it("signing in reconnects with the account's token, so the connection is the account's", async () => {
    const { session, socket } = signedIn();
    const signIn = session.signIn("sign_in", "Bo", "pw");
    socket.serve({ type: "account", ref: socket.last("sign_in").id, user: "u9", name: "Bo", token: "bo-token", session: "s2" });
    await signIn;
    vi.advanceTimersByTime(1000);
    const next = sockets[1]!;
    next.open();
    expect(next.last("hello")).toMatchObject({ token: "bo-token", name: "Bo" });
  });

  it("a refused sign-in keeps the guest and says why", async () => {
    const { session, socket } = signedIn();
    const signIn = session.signIn("sign_in", "Bo", "wrong");
    socket.serve({ type: "error", ref: socket.last("sign_in").id, code: "bad_credentials", message: "That name and password do not match an account." });
    await expect(signIn).rejects.toMatchObject({ code: "bad_credentials" });
    expect(session.token).toBe("guest-token");
    expect(sockets).toHaveLength(1);
  });

  it("signing out revokes this session and comes back as a new guest", async () => {
    const { session, socket } = signedIn();
    const out = session.signOut("s1");
    expect(socket.last("revoke_session")).toMatchObject({ session: "s1" });
    socket.serve({ type: "ok", ref: socket.last("revoke_session").id });
    await out;
    vi.advanceTimersByTime(1000);
    const next = sockets[1]!;
    next.open();
    expect(next.last("hello").token).toBeUndefined();
  });
});
