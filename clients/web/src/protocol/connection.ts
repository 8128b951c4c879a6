/**
 * The client's end of a Lumin connection as a sans-I/O state machine, mirroring
 * `protocol.connection.ClientConnection`.
 *
 * It never touches a socket. The I/O layer (src/net/session.ts) feeds every binary frame to
 * {@link ClientConnection.receiveData}, handles {@link ClientConnection.eventsReceived}
 * (messages, and {@link ProtocolError}s for frames that were not valid or deltas that did not
 * fit) and writes every frame {@link ClientConnection.dataToSend} returns.
 *
 * - `hello` goes first (more requests may follow at once); `welcome` must pick an offered
 *   version, else the connection closes with `unsupported_version`.
 * - Requests without an `id` get the next number and stay in {@link pending} until a message
 *   carries it as `ref`.
 * - It keeps a {@link RoomView} of every room it receives views of: a snapshot replaces the
 *   copy; a delta applies only when `base == seq`. When a delta does not fit, the error is
 *   reported and one `resume` is queued; further misfits are dropped until the answer (a
 *   snapshot, or `ok`/`error`/`moved` to the resume). `leave`'s `ok`, `kicked` and
 *   `room_closed` drop the copy. A `delta` event means the copy moved.
 * - `bye` from either side or a fatal `error` closes it: later frames are ignored and sending
 *   throws.
 */

import { decodeMessage, encodeMessage, type Limits, SERVER_FRAME_LIMITS } from "./codec";
import { ProtocolError } from "./errors";
import type { ClientMessage, Delta, ServerMessage, Welcome } from "./messages";
import { applyDelta, fromSnapshot, type RoomView } from "./roomview";

/** The protocol versions this client speaks (2 adds `moved` and `try_again`; 3 adds the
 *  operator's `message` to `room_closed` and `kicked`; 4 adds `set_name`; 5 adds accounts,
 *  ratings and quick play; 6 adds finished games' results in the lobby and when an option
 *  applies). */
export const SUPPORTED_VERSIONS: readonly number[] = [1, 2, 3, 4, 5, 6];
/** The first version whose server takes `set_name` (renaming without reconnecting). */
export const NAME_VERSION = 4;

export type ConnectionState = "awaiting_hello" | "negotiating" | "open" | "closed";

/** What {@link ClientConnection.eventsReceived} yields. */
export type ConnectionEvent = ServerMessage | ProtocolError;

/** Sending after close, before hello, or hello twice. */
export class InvalidState extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidState";
  }
}

export class ClientConnection {
  state: ConnectionState = "awaiting_hello";
  version: number | null = null;
  welcome: Welcome | null = null;
  /** Requests sent and not answered yet, by id. */
  readonly pending = new Map<number, ClientMessage>();
  /** The live copy of every room this connection receives views of. */
  readonly views: Map<string, RoomView>;
  /** Rooms whose copy missed a delta; a `resume` is on its way for each. */
  readonly resyncing = new Set<string>();

  private nextId = 1;
  private events: ConnectionEvent[] = [];
  private output: Uint8Array[] = [];

  /** `views` are the copies an earlier connection kept, to {@link resumeAll} after a reconnect. */
  constructor(
    readonly versions: readonly number[] = SUPPORTED_VERSIONS,
    readonly limits: Limits = SERVER_FRAME_LIMITS,
    views?: ReadonlyMap<string, RoomView>,
  ) {
    this.views = new Map(views ?? []);
  }

  /** The messages and errors received since the last call, in order. */
  eventsReceived(): ConnectionEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  /** The frames to write since the last call, in order. */
  dataToSend(): Uint8Array[] {
    const output = this.output;
    this.output = [];
    return output;
  }

  /** Send `hello` offering every version; returns it as sent. */
  hello(name: string, token: string | null = null, client: string | null = null): ClientMessage {
    return this.send({ type: "hello", versions: [...this.versions], name, token, client });
  }

  /** Queue a message and return it as sent (requests get an `id` and wait in {@link pending}). */
  send(message: ClientMessage): ClientMessage {
    if (this.state === "closed") throw new InvalidState("the connection is closed");
    if (this.state === "awaiting_hello" && message.type !== "hello" && message.type !== "bye") {
      throw new InvalidState(`send 'hello' before '${message.type}'`);
    }
    if (this.state !== "awaiting_hello" && message.type === "hello") {
      throw new InvalidState("'hello' is sent once");
    }
    if (message.type !== "bye") {
      let id = message.id;
      if (id === undefined || id === null) {
        id = this.nextId;
        message = { ...message, id };
      }
      this.nextId = Math.max(this.nextId, id + 1);
      this.pending.set(id, message);
    }
    this.output.push(encodeMessage(message));
    if (message.type === "bye") this.state = "closed";
    else if (message.type === "hello") this.state = "negotiating";
    return message;
  }

  /** Send `resume` for every room held (after a reconnect); `codes` are private rooms' codes. */
  resumeAll(codes: ReadonlyMap<string, string> = new Map()): ClientMessage[] {
    const sent: ClientMessage[] = [];
    for (const copy of this.views.values()) {
      sent.push(
        this.send({ type: "resume", room: copy.room, seq: copy.seq, epoch: copy.epoch, code: codes.get(copy.room) ?? null }),
      );
      this.resyncing.add(copy.room);
    }
    return sent;
  }

  /** Take one frame from the server. */
  receiveData(frame: Uint8Array): void {
    if (this.state === "closed") return;
    let message: ServerMessage;
    try {
      message = decodeMessage(frame, this.limits);
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      this.events.push(error);
      return;
    }
    let request: ClientMessage | undefined;
    const ref = "ref" in message ? message.ref : null;
    if (ref !== null) {
      request = this.pending.get(ref);
      this.pending.delete(ref);
    }
    switch (message.type) {
      case "welcome":
        if (this.state !== "negotiating" || !this.versions.includes(message.version)) {
          this.events.push(
            new ProtocolError("unsupported_version", `The server chose version ${message.version}, which was not offered.`),
          );
          this.state = "closed";
          return;
        }
        this.welcome = message;
        this.version = message.version;
        this.state = "open";
        break;
      case "bye":
        this.state = "closed";
        break;
      case "error":
        if (message.fatal) this.state = "closed";
        else if (request?.type === "resume" && message.code === "no_such_room") this.forget(request.room);
        else if (request?.type === "resume") this.resyncing.delete(request.room);
        break;
      case "snapshot":
        this.views.set(message.room, fromSnapshot(message));
        this.resyncing.delete(message.room);
        break;
      case "delta":
        if (!this.apply(message)) return;
        break;
      case "room_closed":
      case "kicked":
        this.forget(message.room);
        break;
      case "ok":
        if (request?.type === "leave") this.forget(request.room);
        else if (request?.type === "resume") this.resyncing.delete(request.room);
        break;
      case "moved":
        if (request?.type === "resume") this.resyncing.delete(request.room);
        break;
      default:
        break;
    }
    this.events.push(message);
  }

  private forget(room: string): void {
    this.views.delete(room);
    this.resyncing.delete(room);
  }

  /** Apply a delta to its room's copy; on a misfit, report it and resume once. */
  private apply(delta: Delta): boolean {
    const copy = this.views.get(delta.room);
    if (copy === undefined) {
      this.events.push(new ProtocolError("out_of_sync", `A delta for '${delta.room}', unknown here.`));
      return false;
    }
    try {
      this.views.set(delta.room, applyDelta(copy, delta));
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      if (this.resyncing.has(delta.room)) return false; // the resume's answer supersedes it
      this.events.push(error);
      this.resyncing.add(delta.room);
      this.send({ type: "resume", room: copy.room, seq: copy.seq, epoch: copy.epoch });
      return false;
    }
    return true;
  }
}
