/**
 * The I/O layer: one websocket to the server around a sans-I/O {@link ClientConnection}.
 *
 * - {@link Session.request} sends a request and resolves with the message that answers it (the
 *   first one carrying its id as `ref`), or rejects with a {@link ServerError} for an `error`
 *   or `rejected` answer, a dropped connection (`disconnected`) or no answer in time
 *   (`timeout`).
 * - Every room copy the connection keeps is reported through the `view` event when it changes
 *   (snapshot or applied delta), with the copy before; every `error` and `rejected` the server
 *   sends, and every bad frame or delta misfit, through the `problem` event.
 * - When the socket drops, it reconnects with exponential backoff (0.5 s doubling to 10 s,
 *   with jitter), says `hello` with the stored token and `resume`s every room it holds a copy
 *   of (private rooms with their code), so a player lands back where they were.
 * - Ping clock sync: three pings after `welcome`, then one every 5 s; {@link serverNow} is
 *   the estimated server clock, {@link rtt} the last round trip.
 */

import { ServerError, ProtocolError } from "../protocol/errors";
import type { ClientMessage, ServerMessage, ServerType, Welcome } from "../protocol/messages";
import { ClientConnection, SUPPORTED_VERSIONS } from "../protocol/connection";
import { SERVER_FRAME_LIMITS } from "../protocol/codec";
import type { RoomView } from "../protocol/roomview";
import { ClockSync, clientNow } from "./clock";

/** The part of the browser WebSocket a session uses (a fake one in unit tests). */
export interface SocketLike {
  binaryType: string;
  readonly readyState: number;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason?: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export type SessionStatus = "connecting" | "open" | "reconnecting" | "closed";

export interface SessionOptions {
  url: string;
  name: string;
  token: string | null;
  /** Told every token a `welcome` hands out, to store it. */
  onToken?: (token: string) => void;
  client?: string;
  socketFactory?: (url: string) => SocketLike;
  /** Milliseconds a request waits for its answer. */
  requestTimeout?: number;
  /** Milliseconds between clock pings once synced; 0 turns periodic pings off. */
  pingInterval?: number;
}

type MessageOf<T extends ServerType> = Extract<ServerMessage, { type: T }>;

interface SessionEvents {
  status: (status: SessionStatus) => void;
  welcome: (welcome: Welcome) => void;
  view: (room: string, copy: RoomView | null, previous: RoomView | null) => void;
  problem: (problem: ProtocolError | ServerError, room: string | null) => void;
  clock: (rtt: number | null) => void;
  message: (message: ServerMessage) => void;
}

interface Waiting {
  resolve: (message: ServerMessage) => void;
  reject: (error: ServerError) => void;
  timer: ReturnType<typeof setTimeout>;
  type: string;
}

const OPEN = 1;

/** A performance mark, once per page (the first connection's milestones, for timing). */
function mark(name: string): void {
  if (typeof performance !== "undefined" && performance.getEntriesByName?.(name).length === 0) performance.mark(name);
}

export class Session {
  status: SessionStatus = "connecting";
  conn: ClientConnection;
  readonly clock = new ClockSync();
  /** Private rooms' codes, for `resume` after a reconnect. */
  readonly codes = new Map<string, string>();
  name: string;
  token: string | null;
  welcome: Welcome | null = null;

  private socket: SocketLike | null = null;
  private readonly answers = new Map<number, Waiting>();
  private readonly pings = new Map<number, number>();
  private readonly listeners = new Map<string, Set<(...args: never[]) => void>>();
  private readonly lastSeen = new Map<string, RoomView>();
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private stopped = false;
  /** The code of the last fatal `error` the server sent, if any. */
  private fatal: string | null = null;

  constructor(private readonly options: SessionOptions) {
    this.name = options.name;
    this.token = options.token;
    this.conn = new ClientConnection();
    this.connect();
  }

  /** The user id others see, once welcomed. */
  get user(): string | null {
    return this.welcome?.user ?? null;
  }

  /** The estimated server clock now (seconds since the epoch). */
  serverNow(): number {
    return this.clock.serverTime(clientNow());
  }

  /** The last measured round trip in seconds, or null. */
  get rtt(): number | null {
    return this.clock.lastRtt;
  }

  /** The live copy of a room, if this connection holds one. */
  view(room: string): RoomView | null {
    return this.conn.views.get(room) ?? null;
  }

  // --- events ---------------------------------------------------------------------------------

  /** Listen to a session event or to every server message of one type; returns `off`. */
  on<K extends keyof SessionEvents>(event: K, handler: SessionEvents[K]): () => void;
  on<T extends ServerType>(event: `msg:${T}`, handler: (message: MessageOf<T>) => void): () => void;
  on(event: string, handler: (...args: never[]) => void): () => void {
    let set = this.listeners.get(event);
    if (set === undefined) this.listeners.set(event, (set = new Set()));
    set.add(handler);
    return () => set!.delete(handler);
  }

  private emit(event: string, ...args: unknown[]): void {
    for (const handler of [...(this.listeners.get(event) ?? [])]) {
      try {
        (handler as (...a: unknown[]) => void)(...args);
      } catch (error) {
        console.error(`lumin: a '${event}' listener failed`, error);
      }
    }
  }

  // --- requests -------------------------------------------------------------------------------

  /** Send a request; resolves with its answer (see the module docs). */
  request<T extends ServerMessage = ServerMessage>(message: ClientMessage): Promise<T> {
    if (this.status !== "open" && this.status !== "connecting") {
      return Promise.reject(new ServerError("disconnected", "Not connected to the server; reconnecting…"));
    }
    let sent: ClientMessage;
    try {
      sent = this.conn.send(message);
    } catch (error) {
      return Promise.reject(new ServerError("disconnected", String(error)));
    }
    const id = (sent as { id?: number }).id!;
    const promise = new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.answers.delete(id);
        reject(new ServerError("timeout", `The server did not answer '${message.type}' in time.`));
      }, this.options.requestTimeout ?? 20000);
      this.answers.set(id, { resolve: resolve as (m: ServerMessage) => void, reject, timer, type: message.type });
    });
    this.flush();
    return promise;
  }

  /** Change the name played under: reconnects with the same token (seats are kept). */
  rename(name: string): void {
    this.name = name;
    this.restart();
  }

  /** Drop the socket as a network failure would (tests, and a manual "reconnect").
   *
   *  The session lets go of the socket at once rather than when its close completes: a
   *  request made in between would otherwise be queued on a connection that is going away
   *  and never sent. Waiting answers fail with `disconnected`, and the reconnect begins. */
  restart(): void {
    const socket = this.socket;
    if (socket === null) return;
    this.socket = null;
    socket.close(4000, "reconnect");
    this.dropped();
  }

  /** Close for good. */
  close(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.pingTimer) clearInterval(this.pingTimer);
    try {
      if (this.conn.state !== "closed") this.conn.send({ type: "bye", message: "Closing the page." });
    } catch {
      /* closed already */
    }
    this.flush();
    this.socket?.close(1000, "bye");
    this.setStatus("closed");
  }

  // --- the socket -----------------------------------------------------------------------------

  private setStatus(status: SessionStatus): void {
    if (this.status === status) return;
    this.status = status;
    this.emit("status", status);
  }

  private connect(): void {
    this.retryTimer = null;
    this.conn = new ClientConnection(SUPPORTED_VERSIONS, SERVER_FRAME_LIMITS, this.conn.views);
    this.conn.hello(this.name, this.token, this.options.client ?? "lumin-web/0.1");
    this.conn.resumeAll(this.codes);
    this.setStatus(this.welcome === null && this.attempt === 0 ? "connecting" : "reconnecting");
    const factory = this.options.socketFactory ?? ((url: string) => new WebSocket(url) as unknown as SocketLike);
    let socket: SocketLike;
    try {
      socket = factory(this.options.url);
    } catch (error) {
      this.emit("problem", new ServerError("disconnected", `Cannot open ${this.options.url}: ${error}`), null);
      this.scheduleRetry();
      return;
    }
    this.socket = socket;
    socket.binaryType = "arraybuffer";
    socket.onopen = () => {
      mark("lumin:socket-open");
      this.flush();
    };
    socket.onmessage = (event) => this.receive(event.data);
    socket.onerror = () => undefined; // a close follows
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.dropped();
    };
  }

  private flush(): void {
    if (this.socket === null || this.socket.readyState !== OPEN) return;
    for (const frame of this.conn.dataToSend()) this.socket.send(frame);
  }

  private receive(data: unknown): void {
    if (typeof data === "string") return; // the server never sends text
    const frame = data instanceof Uint8Array ? data : new Uint8Array(data as ArrayBuffer);
    this.conn.receiveData(frame);
    for (const event of this.conn.eventsReceived()) {
      if (event instanceof ProtocolError) {
        this.emit("problem", event, null);
        continue;
      }
      this.dispatch(event);
    }
    this.flush();
  }

  private dispatch(message: ServerMessage): void {
    const ref = "ref" in message ? message.ref : null;
    if (message.type === "welcome") this.welcomed(message);
    if (message.type === "pong") this.ponged(message.client_time, message.server_time, ref);
    if (message.type === "snapshot" || message.type === "delta") {
      const copy = this.conn.views.get(message.room) ?? null;
      const previous = this.lastSeen.get(message.room) ?? null;
      if (copy) this.lastSeen.set(message.room, copy);
      this.emit("view", message.room, copy, message.type === "snapshot" ? null : previous);
    }
    if (message.type === "room_closed" || message.type === "kicked") {
      this.lastSeen.delete(message.room);
      this.emit("view", message.room, null, null);
    }
    if (message.type === "error" && message.fatal) this.fatal = message.code;
    if (message.type === "error" || message.type === "rejected") {
      const room = message.type === "rejected" ? message.room : null;
      this.emit("problem", new ServerError(message.code, message.message), room);
    }
    this.emit("message", message);
    this.emit(`msg:${message.type}`, message);
    if (ref !== null) {
      const waiting = this.answers.get(ref);
      if (waiting) {
        this.answers.delete(ref);
        clearTimeout(waiting.timer);
        if (message.type === "error" || message.type === "rejected") {
          waiting.reject(new ServerError(message.code, message.message));
        } else {
          if (waiting.type === "leave" && message.type === "ok" && message.room) {
            this.lastSeen.delete(message.room);
            this.codes.delete(message.room);
          }
          waiting.resolve(message);
        }
      }
    }
  }

  private welcomed(welcome: Welcome): void {
    mark("lumin:welcome");
    this.welcome = welcome;
    this.attempt = 0;
    this.name = welcome.name;
    if (welcome.token !== this.token) {
      this.token = welcome.token;
      this.options.onToken?.(welcome.token);
    }
    this.clock.seed(clientNow(), welcome.server_time);
    this.setStatus("open");
    this.emit("welcome", welcome);
    this.ping();
    setTimeout(() => this.ping(), 300);
    setTimeout(() => this.ping(), 700);
    if (this.pingTimer) clearInterval(this.pingTimer);
    const every = this.options.pingInterval ?? 5000;
    if (every > 0) this.pingTimer = setInterval(() => this.ping(), every);
  }

  private ping(): void {
    if (this.status !== "open" || this.conn.state !== "open") return;
    const sent = clientNow();
    const message = this.conn.send({ type: "ping", client_time: sent });
    this.pings.set((message as { id: number }).id, sent);
    this.flush();
  }

  private ponged(clientTime: number | null, serverTime: number, ref: number | null): void {
    const sent = ref !== null ? this.pings.get(ref) : undefined;
    if (ref !== null) this.pings.delete(ref);
    const start = sent ?? clientTime;
    if (start === null || start === undefined) return;
    this.clock.add(start, clientNow(), serverTime);
    this.emit("clock", this.clock.lastRtt);
  }

  private dropped(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
    this.pings.clear();
    for (const [id, waiting] of this.answers) {
      clearTimeout(waiting.timer);
      waiting.reject(new ServerError("disconnected", `The connection dropped before '${waiting.type}' was answered.`));
      this.answers.delete(id);
    }
    if (this.stopped) return;
    if (this.fatal === "unsupported_version") {
      this.setStatus("closed"); // retrying cannot help: the server speaks no version of ours
      return;
    }
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    this.setStatus("reconnecting");
    const delay = Math.min(10, 0.5 * 2 ** this.attempt) * (0.75 + Math.random() * 0.5);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), delay * 1000);
  }
}
