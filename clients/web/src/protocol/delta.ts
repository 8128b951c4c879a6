/**
 * Applying view deltas: RFC 6902 `add` / `remove` / `replace` with RFC 6901 pointers, exactly
 * as `protocol/delta.py`'s `apply` does (docs/protocol.md, "The delta format").
 *
 * Operations travel as arrays (`["add", path, value]`, `["remove", path]`,
 * `["replace", path, value]`); {@link opFromWire} checks one and gives its RFC 6902 map.
 * {@link applyOps} never mutates its input: containers on the written paths are copied once
 * per call and the rest is shared, so treat documents as immutable.
 *
 * Errors, as in Python: `bad_field` for a malformed operation or pointer (an unknown op, a wrong
 * length, a path not starting with `/`, a `~` not followed by `0` or `1`); `bad_patch` when the
 * path does not fit the document (a missing member, an index out of range or with a leading
 * zero, a path through a scalar, removing the whole document).
 */

import { ProtocolError } from "./errors";

/** One RFC 6902 operation in its JSON form. */
export type PatchOp =
  | { op: "add"; path: string; value: unknown }
  | { op: "remove"; path: string }
  | { op: "replace"; path: string; value: unknown };

/** RFC 6901 §3: `~` is `~0`, `/` is `~1`. */
export function escapeToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** RFC 6901 §4: `~1` first, then `~0`; a `~` not followed by `0` or `1` is `bad_field`. */
export function unescapeToken(token: string): string {
  if (/~(?![01])/.test(token)) {
    throw new ProtocolError("bad_field", `Pointer token ${JSON.stringify(token)} has a bad ~ escape.`);
  }
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** The unescaped tokens of a pointer; `""` (the whole document) has none. */
export function splitPointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) {
    throw new ProtocolError("bad_field", `Pointer ${JSON.stringify(pointer)} does not start with '/'.`);
  }
  return pointer.slice(1).split("/").map(unescapeToken);
}

/** The pointer made of these tokens. */
export function joinPointer(tokens: readonly (string | number)[]): string {
  return tokens.map((token) => "/" + escapeToken(String(token))).join("");
}

/** The RFC 6902 operation a wire array describes; `bad_field` when it is malformed. */
export function opFromWire(data: unknown): PatchOp {
  if (!Array.isArray(data) || data.length === 0) {
    throw new ProtocolError("bad_field", "A patch operation is an array [op, path, ...].");
  }
  const [kind, path] = data;
  if (kind !== "add" && kind !== "remove" && kind !== "replace") {
    throw new ProtocolError("bad_field", `Patch operation ${JSON.stringify(kind)} is not used by Lumin.`);
  }
  const expected = kind === "remove" ? 2 : 3;
  if (data.length !== expected) {
    throw new ProtocolError("bad_field", `A '${kind}' operation is an array of ${expected} items.`);
  }
  if (typeof path !== "string") {
    throw new ProtocolError("bad_field", "A patch operation's path is a string.");
  }
  splitPointer(path);
  return kind === "remove" ? { op: kind, path } : { op: kind, path, value: data[2] };
}

type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
  return typeof value === "object" && value !== null && !(value instanceof Uint8Array);
}

function has(map: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(map, key);
}

/** Set a member as an own data property (a key such as `__proto__` stays plain data). */
function setMember(map: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(map, key, { value, writable: true, enumerable: true, configurable: true });
}

/** An array index from a token (RFC 6901 §4: decimal, no sign, no leading zeros). */
function index(token: string, length: number, allowEnd: boolean, pointer: string): number {
  if (token === "-" && allowEnd) return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) {
    throw new ProtocolError("bad_patch", `'${pointer}': '${token}' is not an array index.`);
  }
  const value = Number(token);
  if (value > (allowEnd ? length : length - 1)) {
    throw new ProtocolError("bad_patch", `'${pointer}': index ${value} is out of range.`);
  }
  return value;
}

/** Copy-on-write access to a document: each container is copied at most once per call. */
class Writer {
  doc: unknown;
  private readonly owned = new WeakSet<object>();

  constructor(doc: unknown) {
    this.doc = doc;
  }

  private own(container: Container): Container {
    if (this.owned.has(container)) return container;
    const copy: Container = Array.isArray(container) ? container.slice() : { ...container };
    this.owned.add(copy);
    return copy;
  }

  /** The writable container holding the last token's target. */
  parent(tokens: readonly string[], pointer: string): Container {
    if (!isContainer(this.doc)) {
      throw new ProtocolError("bad_patch", `'${pointer}': the document is a scalar.`);
    }
    let current = this.own(this.doc);
    this.doc = current;
    for (const token of tokens.slice(0, -1)) {
      let child: unknown;
      if (Array.isArray(current)) {
        const at = index(token, current.length, false, pointer);
        child = current[at];
        if (!isContainer(child)) {
          throw new ProtocolError("bad_patch", `'${pointer}': '${token}' is not a map or an array.`);
        }
        const next = this.own(child);
        current[at] = next;
        current = next;
      } else {
        if (!has(current, token)) {
          throw new ProtocolError("bad_patch", `'${pointer}': no member '${token}'.`);
        }
        child = current[token];
        if (!isContainer(child)) {
          throw new ProtocolError("bad_patch", `'${pointer}': '${token}' is not a map or an array.`);
        }
        const next = this.own(child);
        setMember(current, token, next);
        current = next;
      }
    }
    return current;
  }
}

/** The document after applying RFC 6902 operations in order (see the module docs). */
export function applyPatch(doc: unknown, ops: readonly PatchOp[]): unknown {
  let writer = new Writer(doc);
  for (const op of ops) {
    const tokens = splitPointer(op.path);
    if (tokens.length === 0) {
      if (op.op === "remove") {
        throw new ProtocolError("bad_patch", "The whole document cannot be removed.");
      }
      writer = new Writer(op.value);
      continue;
    }
    const parent = writer.parent(tokens, op.path);
    const last = tokens[tokens.length - 1]!;
    if (!Array.isArray(parent)) {
      if (op.op !== "add" && !has(parent, last)) {
        throw new ProtocolError("bad_patch", `'${op.path}': no member '${last}'.`);
      }
      if (op.op === "remove") delete parent[last];
      else setMember(parent, last, op.value);
      continue;
    }
    const at = index(last, parent.length, op.op === "add", op.path);
    if (op.op === "add") parent.splice(at, 0, op.value);
    else if (op.op === "remove") parent.splice(at, 1);
    else parent[at] = op.value;
  }
  return writer.doc;
}

/** The document after applying wire operations (each checked with {@link opFromWire}). */
export function applyOps(doc: unknown, ops: readonly unknown[]): unknown {
  return applyPatch(doc, ops.map(opFromWire));
}
