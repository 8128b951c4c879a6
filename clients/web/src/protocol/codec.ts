/**
 * The msgpack codec: client messages to frames, server frames to checked messages.
 *
 * Decoding follows the receiver rules of docs/protocol.md ("Frames"), each failure a
 * {@link ProtocolError} with the stable code the Python `protocol.codec` uses:
 *
 * - `too_large`: the frame, or a string, binary, array or map in it, over the {@link Limits}
 *   (msgpack checks the lengths while unpacking, before anything big is built);
 * - `not_msgpack`: not exactly one msgpack value (truncated, trailing bytes), or an extension
 *   type;
 * - `too_deep`: maps and arrays nested deeper than `maxDepth` (the top-level map is depth 1);
 * - `not_a_map`, `unknown_type`; `missing_field`, `bad_field` against {@link SERVER_MESSAGES}:
 *   an int is an integer, a float any number, a string a string, every map key a string.
 *
 * One deliberate difference from the Python client: a field this client does not know is
 * ignored rather than refused, so an older page keeps working against a newer server.
 */

import { Decoder, Encoder } from "@msgpack/msgpack";

import { ProtocolError } from "./errors";
import {
  type ClientMessage,
  type FieldKind,
  type Schema,
  SERVER_MESSAGES,
  STRUCTURES,
  type ServerMessage,
} from "./messages";

/** What a receiver accepts (docs/protocol.md, the limits table). */
export interface Limits {
  maxFrame: number;
  maxDepth: number;
  maxStr: number;
  maxBin: number;
  maxArray: number;
  maxMap: number;
}

/** The protocol's defaults for what a client accepts from the server (views can be large). */
export const SERVER_FRAME_LIMITS: Limits = {
  maxFrame: 16 * 1024 * 1024,
  maxDepth: 64,
  maxStr: 1024 * 1024,
  maxBin: 1024 * 1024,
  maxArray: 1024 * 1024,
  maxMap: 1024 * 1024,
};

const encoder = new Encoder({ ignoreUndefined: true });
const decoders = new WeakMap<Limits, Decoder>();

function decoderFor(limits: Limits): Decoder {
  let decoder = decoders.get(limits);
  if (decoder === undefined) {
    decoder = new Decoder({
      maxStrLength: limits.maxStr,
      maxBinLength: limits.maxBin,
      maxArrayLength: limits.maxArray,
      maxMapLength: limits.maxMap,
      maxExtLength: limits.maxBin, // extension values are refused after decoding
      mapKeyConverter: (key: unknown) => {
        if (typeof key !== "string") {
          throw new ProtocolError("bad_field", "Map keys are strings.");
        }
        return key;
      },
    });
    decoders.set(limits, decoder);
  }
  return decoder;
}

/** One client message as a frame; fields set to `null` or `undefined` are left out (their
 *  default is nil, so the server fills them back in). */
export function encodeMessage(message: ClientMessage): Uint8Array {
  const map: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(message)) {
    if (value !== null && value !== undefined) map[key] = value;
  }
  return encoder.encode(map);
}

/** Any value as msgpack (tests and tools). */
export function encodeValue(value: unknown): Uint8Array {
  return encoder.encode(value);
}

/** A server frame as a checked message with its defaults filled in; see the module docs. */
export function decodeMessage(
  frame: Uint8Array,
  limits: Limits = SERVER_FRAME_LIMITS,
): ServerMessage {
  if (frame.byteLength > limits.maxFrame) {
    throw new ProtocolError("too_large", `The frame has ${frame.byteLength} bytes; the limit is ${limits.maxFrame}.`);
  }
  let value: unknown;
  try {
    value = decoderFor(limits).decode(frame);
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    const text = error instanceof Error ? error.message : String(error);
    if (/max.*length|exceeds/i.test(text)) throw new ProtocolError("too_large", `Frame: ${text}`);
    throw new ProtocolError("not_msgpack", `The frame is not one msgpack value: ${text}`);
  }
  checkPlain(value, 1, limits.maxDepth);
  if (!isMap(value)) throw new ProtocolError("not_a_map", "A frame is a msgpack map.");
  const kind = value.type;
  if (typeof kind !== "string" || !(kind in SERVER_MESSAGES)) {
    throw new ProtocolError(
      "unknown_type",
      typeof kind === "string" ? `The server does not send ${JSON.stringify(kind)}.` : "A frame has a string 'type'.",
      refOf(value),
    );
  }
  const schema = SERVER_MESSAGES[kind as ServerMessage["type"]];
  return { type: kind, ...structure(value, schema, kind, refOf(value)) } as unknown as ServerMessage;
}

/** A plain map (msgpack map), not an array or null. */
export function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function refOf(map: Record<string, unknown>): number | null {
  return Number.isInteger(map.ref) ? (map.ref as number) : null;
}

/** Reject extension values and nesting past the limit. */
function checkPlain(value: unknown, depth: number, maxDepth: number): void {
  if (typeof value !== "object" || value === null || value instanceof Uint8Array) return;
  if (depth > maxDepth) throw new ProtocolError("too_deep", `The frame nests deeper than ${maxDepth}.`);
  if (Array.isArray(value)) {
    for (const item of value) checkPlain(item, depth + 1, maxDepth);
    return;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) {
    throw new ProtocolError("not_msgpack", "The frame holds a msgpack extension type.");
  }
  for (const item of Object.values(value)) checkPlain(item, depth + 1, maxDepth);
}

function structure(
  map: Record<string, unknown>,
  schema: Schema,
  where: string,
  ref: number | null,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(schema)) {
    const present = Object.prototype.hasOwnProperty.call(map, name);
    if (!present) {
      if (spec.length === 1) {
        throw new ProtocolError("missing_field", `${where}.${name} is missing.`, ref);
      }
      out[name] = structuredClone(spec[1]);
      continue;
    }
    out[name] = check(map[name], spec[0], `${where}.${name}`, ref);
  }
  return out;
}

function check(value: unknown, kind: FieldKind, where: string, ref: number | null): unknown {
  if (kind.endsWith("?")) {
    if (value === null) return null;
    kind = kind.slice(0, -1);
  }
  const bad = (expected: string): never => {
    throw new ProtocolError("bad_field", `${where}: expected ${expected}, got ${describe(value)}.`, ref);
  };
  if (kind.startsWith("list<")) {
    if (!Array.isArray(value)) return bad("an array");
    const inner = kind.slice(5, -1);
    return value.map((item, index) => check(item, inner, `${where}[${index}]`, ref));
  }
  switch (kind) {
    case "any":
      return value;
    case "int":
      return Number.isInteger(value) ? value : bad("an integer");
    case "float":
      return typeof value === "number" ? value : bad("a number");
    case "str":
      return typeof value === "string" ? value : bad("a string");
    case "bool":
      return typeof value === "boolean" ? value : bad("true or false");
    case "map":
      return isMap(value) ? value : bad("a map");
    case "list":
      return Array.isArray(value) ? value : bad("an array");
    default: {
      const schema = STRUCTURES[kind];
      if (schema === undefined) throw new Error(`unknown field kind ${kind}`);
      if (!isMap(value)) return bad(`a ${kind} map`);
      return structure(value, schema, where, ref);
    }
  }
}

function describe(value: unknown): string {
  if (value === null) return "nil";
  if (Array.isArray(value)) return "an array";
  if (value instanceof Uint8Array) return "binary";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a float";
  return typeof value === "object" ? "a map" : `a ${typeof value}`;
}
