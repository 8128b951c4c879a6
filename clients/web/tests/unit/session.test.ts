/**
 * The session (I/O layer) over a fake socket: requests resolve with their answers and reject
 * with the server's refusals, views are reported with the copy before, and a dropped socket
 * reconnects with backoff, says hello with the stored token and resumes every held room.
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
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;

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
    socketFactory: () => {
      const socket = new FakeSocket();
      sockets.push(socket);
      return socket;
    },
  });
}

function welcome(socket: FakeSocket, token = "tk1"): void {
  const hello = socket.last("hello");
  socket.serve({ type: "welcome", ref: hello.id, version: 1, token, user: "u1", name: "Ada", server_time: 1000, max_frame: 65536 });
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
    expect(socket.sent[0]).toMatchObject({ versions: [1, 2], name: "Ada", token: "old" });
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
    await expect(session.request({ type: "act", room: "r1", command: { type: "play" } })).rejects.toMatchObject({ code: "disconnected" });
    first.drop(); // the late close event changes nothing
    vi.advanceTimersByTime(700);
    expect(sockets).toHaveLength(2);
    const second = sockets[1]!;
    second.open();
    welcome(second);
    expect(session.status).toBe("open");
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
