/** The codec against frames from protocol/codec.py (scripts/make_vectors.py). */
import { describe, expect, it } from "vitest";

import { decodeMessage, encodeMessage, encodeValue, SERVER_FRAME_LIMITS } from "../../src/protocol/codec";
import { type FieldSpec, type Schema, SERVER_MESSAGES, STRUCTURES } from "../../src/protocol/messages";
import { ProtocolError } from "../../src/protocol/errors";
import { Decoder } from "@msgpack/msgpack";
import vectors from "../vectors/codec.json";

function bytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ProtocolError) return error.code;
    throw error;
  }
  return "decoded";
}

describe("decoding the Python encoder's frames", () => {
  for (const { hex, message } of vectors.good) {
    it(`${message.type}`, () => {
      expect(decodeMessage(bytes(hex))).toEqual(message);
    });
  }
});

/** A schema as the vectors give Python's: each field required, or its default. */
function asPython(schema: Schema): Record<string, { required: true } | { default: unknown }> {
  return Object.fromEntries(
    Object.entries(schema).map(([name, spec]: [string, FieldSpec]) => [name, spec.length === 1 ? { required: true } : { default: spec[1] }]),
  );
}

describe("the schema matches protocol/messages.py field for field", () => {
  const python = vectors.schema as {
    messages: Record<string, Record<string, unknown>>;
    structures: Record<string, Record<string, unknown>>;
  };
  it("knows exactly the messages the server may send", () => {
    expect(Object.keys(SERVER_MESSAGES).sort()).toEqual(Object.keys(python.messages).sort());
  });
  for (const [type, fields] of Object.entries(python.messages)) {
    it(`${type}: every field, required or with Python's default`, () => {
      expect(asPython(SERVER_MESSAGES[type as keyof typeof SERVER_MESSAGES] ?? {})).toEqual(fields);
    });
  }
  for (const [name, fields] of Object.entries(python.structures)) {
    it(`structure ${name}`, () => {
      expect(asPython(STRUCTURES[name] ?? {})).toEqual(fields);
    });
  }
});

describe("version 3: the operator's words", () => {
  it("decodes room_closed and kicked with and without message", () => {
    expect(decodeMessage(encodeValue({ type: "kicked", room: "r1", seat: 1 }))).toEqual({ type: "kicked", room: "r1", seat: 1, message: "" });
    const closed = { type: "room_closed", room: "r1", reason: "closed_by_operator", message: "The server's operator closed this room: maintenance." };
    expect(decodeMessage(encodeValue(closed))).toEqual(closed);
    expect(decodeMessage(encodeValue({ type: "room_closed", room: "r1", reason: "expired" }))).toEqual({ type: "room_closed", room: "r1", reason: "expired", message: "" });
    expect(codeOf(() => decodeMessage(encodeValue({ type: "kicked", room: "r1", seat: 1, message: 5 })))).toBe("bad_field");
  });
});

describe("refusing bad frames with Python's codes", () => {
  for (const { name, hex, code } of vectors.bad) {
    it(name, () => {
      expect(codeOf(() => decodeMessage(bytes(hex)))).toBe(code);
    });
  }

  it("refuses frames over the limits", () => {
    const frame = encodeMessage({ type: "chat_send", room: "r", text: "x".repeat(100) });
    expect(codeOf(() => decodeMessage(frame, { ...SERVER_FRAME_LIMITS, maxFrame: 10 }))).toBe("too_large");
    const long = bytes("82a474797065a26f6ba4726f6f6dda0100" + "61".repeat(256));
    expect(codeOf(() => decodeMessage(long, { ...SERVER_FRAME_LIMITS, maxStr: 100 }))).toBe("too_large");
  });
});

describe("version 2's moved", () => {
  it("decodes with ref and room defaulting to nil, and needs url", () => {
    const frame = encodeValue({ type: "moved", url: "wss://h/node/2/ws" });
    expect(decodeMessage(frame)).toEqual({ type: "moved", ref: null, room: null, url: "wss://h/node/2/ws" });
    const full = encodeValue({ type: "moved", ref: 4, room: "r1", url: "ws://b:8700/ws" });
    expect(decodeMessage(full)).toEqual({ type: "moved", ref: 4, room: "r1", url: "ws://b:8700/ws" });
    expect(codeOf(() => decodeMessage(encodeValue({ type: "moved", ref: 4, room: "r1" })))).toBe("missing_field");
  });
});

describe("encoding", () => {
  it("leaves nil fields out and keeps integers integers", () => {
    const frame = encodeMessage({ type: "act", room: "r", command: { type: "play", tile: "R1", space: 5 }, seq: 0, id: 3 });
    const map = new Decoder().decode(frame);
    expect(map).toEqual({ type: "act", room: "r", command: { type: "play", tile: "R1", space: 5 }, seq: 0, id: 3 });
    const hello = new Decoder().decode(encodeMessage({ type: "hello", versions: [1], name: "Ada", token: null }));
    expect(hello).toEqual({ type: "hello", versions: [1], name: "Ada" });
    // 0xcb = float64; a seq must never travel as a float.
    expect(Array.from(frame)).not.toContain(0xcb);
  });
});
