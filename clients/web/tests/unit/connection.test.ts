/**
 * ClientConnection bookkeeping: the example session of docs/protocol.md replayed line by line
 * (as the Python suite does), then misfits, resumes, ids and the handshake.
 */
import { readFileSync } from "node:fs";

import { Decoder } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";

import { encodeValue } from "../../src/protocol/codec";
import { ClientConnection, InvalidState } from "../../src/protocol/connection";
import { ProtocolError } from "../../src/protocol/errors";
import type { ClientMessage } from "../../src/protocol/messages";

const decoder = new Decoder();

function serverFrame(value: Record<string, unknown>): Uint8Array {
  return encodeValue(value);
}

function sent(conn: ClientConnection): Record<string, unknown>[] {
  return conn.dataToSend().map((frame) => decoder.decode(frame) as Record<string, unknown>);
}

function open(conn = new ClientConnection()): ClientConnection {
  conn.hello("Ada");
  conn.receiveData(serverFrame({ type: "welcome", ref: 1, version: 1, token: "t", user: "u", name: "Ada", server_time: 1, max_frame: 65536 }));
  conn.dataToSend();
  conn.eventsReceived();
  return conn;
}

function snapshot(room: string, seq: number, view: unknown, extra: Record<string, unknown> = {}) {
  return serverFrame({ type: "snapshot", room, epoch: "e1", seq, seat: 0, view, legal: [{ type: "go" }], ...extra });
}

describe("the example session of docs/protocol.md", () => {
  const doc = readFileSync(new URL("../../../../docs/protocol.md", import.meta.url), "utf8");
  const block = doc.split("## Example session")[1]!.split("```text")[1]!.split("```")[0]!;
  const lines = block.split("\n").filter((line) => line.startsWith("C: ") || line.startsWith("S: "));

  it("has both sides of the conversation", () => {
    expect(lines.length).toBeGreaterThan(20);
  });

  it("replays through the client connection", () => {
    const conn = new ClientConnection();
    let room: string | null = null;
    let deltas = 0;
    for (const line of lines) {
      const value = JSON.parse(line.slice(3)) as Record<string, unknown>;
      if (line.startsWith("C: ")) {
        const message = value as unknown as ClientMessage;
        conn.send(message);
        const [frame] = sent(conn);
        expect(frame).toEqual(Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)));
        continue;
      }
      conn.receiveData(serverFrame(value));
      const events = conn.eventsReceived();
      expect(events).toHaveLength(1);
      const event = events[0]!;
      expect(event).not.toBeInstanceOf(ProtocolError);
      expect((event as { type: string }).type).toBe(value.type);
      expect(conn.dataToSend()).toEqual([]); // nothing is resumed: every delta fits
      if (value.type === "room_created") room = value.room as string;
      if (value.type === "delta") {
        expect(conn.views.get(value.room as string)?.seq).toBe(value.seq); // every delta applied
        deltas += 1;
      }
    }
    expect(room).not.toBeNull();
    expect(deltas).toBeGreaterThanOrEqual(4);
    expect(conn.views.has(room!)).toBe(false); // leave dropped the copy
    expect(conn.state).toBe("closed"); // after bye
    expect(conn.pending.size).toBe(0);
  });
});

describe("view bookkeeping", () => {
  it("applies a delta only when base equals seq, then resumes once", () => {
    const conn = open();
    conn.receiveData(snapshot("r", 4, { n: 1 }));
    conn.receiveData(serverFrame({ type: "delta", room: "r", base: 4, seq: 5, ops: [["replace", "/n", 2]] }));
    expect(conn.views.get("r")).toMatchObject({ seq: 5, view: { n: 2 }, legal: [{ type: "go" }] });
    conn.eventsReceived();

    conn.receiveData(serverFrame({ type: "delta", room: "r", base: 7, seq: 8, ops: [] }));
    const [error] = conn.eventsReceived();
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe("out_of_sync");
    expect(sent(conn)).toEqual([{ type: "resume", room: "r", seq: 5, epoch: "e1", id: 2 }]);
    expect(conn.resyncing.has("r")).toBe(true);

    // Further misfits wait for the resume's answer silently.
    conn.receiveData(serverFrame({ type: "delta", room: "r", base: 8, seq: 9, ops: [] }));
    expect(conn.eventsReceived()).toEqual([]);
    expect(conn.dataToSend()).toEqual([]);

    conn.receiveData(snapshot("r", 9, { n: 9 }, { ref: 2 }));
    expect(conn.resyncing.has("r")).toBe(false);
    expect(conn.views.get("r")).toMatchObject({ seq: 9, view: { n: 9 } });
    expect(conn.pending.size).toBe(0);
  });

  it("reports operations that do not fit as bad_patch and resumes", () => {
    const conn = open();
    conn.receiveData(snapshot("r", 1, { n: 1 }));
    conn.eventsReceived();
    conn.receiveData(serverFrame({ type: "delta", room: "r", base: 1, seq: 2, ops: [["remove", "/missing"]] }));
    const [error] = conn.eventsReceived();
    expect((error as ProtocolError).code).toBe("bad_patch");
    expect(conn.views.get("r")!.seq).toBe(1);
    expect(sent(conn)[0]).toMatchObject({ type: "resume", room: "r", seq: 1 });
    // The resume's ok (deltas caught up) ends the resync.
    conn.receiveData(serverFrame({ type: "ok", ref: 2, room: "r" }));
    expect(conn.resyncing.size).toBe(0);
  });

  it("replaces legal only when a delta carries it; [] means nothing legal", () => {
    const conn = open();
    conn.receiveData(snapshot("r", 0, { n: 0 }));
    conn.receiveData(serverFrame({ type: "delta", room: "r", base: 0, seq: 1, ops: [], legal: [] }));
    expect(conn.views.get("r")!.legal).toEqual([]);
  });

  it("forgets a room on leave's ok, kicked and room_closed", () => {
    const conn = open();
    for (const room of ["a", "b", "c"]) conn.receiveData(snapshot(room, 0, null));
    conn.send({ type: "leave", room: "a" });
    conn.receiveData(serverFrame({ type: "ok", ref: 2, room: "a" }));
    conn.receiveData(serverFrame({ type: "kicked", room: "b", seat: 0 }));
    conn.receiveData(serverFrame({ type: "room_closed", room: "c", reason: "expired" }));
    expect([...conn.views.keys()]).toEqual([]);
  });

  it("resumes every copy after a reconnect, private rooms with their code", () => {
    const old = open();
    old.receiveData(snapshot("pub", 3, { x: 1 }));
    old.receiveData(snapshot("priv", 0, null));
    const conn = new ClientConnection(undefined, undefined, old.views);
    conn.hello("Ada", "t");
    conn.resumeAll(new Map([["priv", "ABCDEF"]]));
    expect(sent(conn)).toEqual([
      { type: "hello", versions: [1, 2, 3, 4, 5, 6], name: "Ada", token: "t", id: 1 },
      { type: "resume", room: "pub", seq: 3, epoch: "e1", id: 2 },
      { type: "resume", room: "priv", seq: 0, epoch: "e1", code: "ABCDEF", id: 3 },
    ]);
    expect([...conn.resyncing].sort()).toEqual(["priv", "pub"]);
  });
});

describe("handshake and requests", () => {
  it("numbers requests and remembers them until answered", () => {
    const conn = open();
    const a = conn.send({ type: "watch_lobby" }) as { id: number };
    const b = conn.send({ type: "ping", id: 10 }) as { id: number };
    const c = conn.send({ type: "list_games" }) as { id: number };
    expect([a.id, b.id, c.id]).toEqual([2, 10, 11]);
    conn.receiveData(serverFrame({ type: "pong", ref: 10, server_time: 5 }));
    expect([...conn.pending.keys()]).toEqual([2, 11]);
  });

  it("refuses to send before hello, hello twice, or after close", () => {
    const conn = new ClientConnection();
    expect(() => conn.send({ type: "watch_lobby" })).toThrow(InvalidState);
    conn.hello("Ada");
    expect(() => conn.hello("Ada")).toThrow(InvalidState);
    conn.send({ type: "bye" });
    expect(conn.state).toBe("closed");
    expect(() => conn.send({ type: "ping" })).toThrow(InvalidState);
  });

  it("closes when welcome names a version it did not offer", () => {
    const conn = new ClientConnection();
    conn.hello("Ada");
    conn.receiveData(serverFrame({ type: "welcome", ref: 1, version: 7, token: "t", user: "u", name: "A", server_time: 1, max_frame: 1 }));
    const [error] = conn.eventsReceived();
    expect((error as ProtocolError).code).toBe("unsupported_version");
    expect(conn.state).toBe("closed");
  });

  it("closes on a fatal error and reports bad frames without answering", () => {
    const conn = open();
    conn.receiveData(Uint8Array.of(0xc1));
    expect((conn.eventsReceived()[0] as ProtocolError).code).toBe("not_msgpack");
    expect(conn.dataToSend()).toEqual([]);
    conn.receiveData(serverFrame({ type: "error", code: "unsupported_version", message: "no", fatal: true }));
    expect(conn.state).toBe("closed");
  });
});
