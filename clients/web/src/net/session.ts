/**
 * The I/O layer: one websocket to the server around a sans-I/O {@link ClientConnection}.
 *
 * - {@link Session.request} sends a request and resolves with the message that answers it (the
 *   first one carrying its id as `ref`), or rejects with a {@link ServerError} for an `error`
 *   or `rejected` answer, a dropped connection (`disconnected`) or no answer in time
 *   (`timeout`, counted over the whole request: retries and moves included).
 * - Every room copy the connection keeps is reported through the `view` event when it changes
 *   (snapshot or applied delta), with the copy before; every `error` and `rejected` the server
 *   sends, and every bad frame or delta misfit, through the `problem` event.
 * - When the socket drops, requests waiting on it fail with `disconnected` and it reconnects to
 *   the first URL it was given (in a cluster, any node) with exponential backoff (0.5 s
 *   doubling to 10 s, with jitter; from 0.5 s again once a connection settles, below), says
 *   `hello` with the stored token and `resume`s every room it holds a copy of (private rooms
 *   with their code), so a player lands back where they were.
 * - `moved` (protocol version 2: the room lives on another node of the cluster) is followed at
 *   once and quietly: the session closes its socket, connects to `moved.url`, says `hello` and
 *   resumes every room as after a drop, then sends the request `moved` answered again, so the
 *   caller's promise resolves with the new node's answer. An `act` goes again only if the
 *   identical command is among its room's fresh `legal` once the resume is answered; otherwise
 *   it fails with `game_changed`. Other requests waiting on the node left fail with
 *   `disconnected`, as on a drop. At most {@link MAX_MOVES} `moved` are followed before the
 *   session settles on a node (a connection settles once welcomed and its resumes and resent
 *   requests are answered otherwise than by `moved`); the next one fails its request with
 *   `too_many_moves`, or, when it answers none of the caller's, reconnects with backoff.
 * - An `act` made while the session is not connected (between a drop and the next welcome) is
 *   held, not refused: once the room's `resume` is answered on the new connection it is sent
 *   if the identical command is among the fresh `legal`, else it fails with `not_sent`
 *   ({@link holding} counts the held ones, so a page can say so meanwhile).
 * - An `error` with code `try_again` is not reported: the request goes again after about 1 s,
 *   at most {@link MAX_RETRIES} times; the next `try_again` rejects it.
 * - Ping clock sync: three pings after `welcome`, then one every 5 s; {@link serverNow} is
 *   the estimated server clock, {@link rtt} the last round trip.
 * - Refused for good: a fatal `error` `banned` (the `hello` of a banned identity) or
 *   `unsupported_version`, or a `bye` with code `banned` (the server's operator banned an open
 *   connection), ends the session instead of reconnecting: {@link ended} holds the server's
 *   sentence and the `ended` event reports it. (A banned address's connection is let in so
 *   that its `hello` gets that fatal `error`, which a browser can read.)
 */

import { ServerError, ProtocolError } from "../protocol/errors";
import type { Account, ClientMessage, Moved, ServerMessage, ServerType, Welcome } from "../protocol/messages";
import { ClientConnection, NAME_VERSION, SUPPORTED_VERSIONS } from "../protocol/connection";
import { SERVER_FRAME_LIMITS } from "../protocol/codec";
import { expandLegal, sameCommand } from "../protocol/legal";
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
  /** The first URL: connected to first and after every drop (in a cluster, any node). */
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
  /** The server refused this client for good (`banned`, `unsupported_version`): no reconnect. */
  ended: (reason: ServerError) => void;
}

type ResumeMessage = Extract<ClientMessage, { type: "resume" }>;
type ActMessage = Extract<ClientMessage, { type: "act" }>;

/** `moved` followed in a row before the session settles on a node. */
const MAX_MOVES = 3;
/** Times a request refused with `try_again` is sent again. */
const MAX_RETRIES = 3;
/** Seconds before a `try_again` request goes again (± 25 % jitter). */
const RETRY_DELAY = 1;
/** Codes after which reconnecting cannot help: the session ends. */
const FINAL_CODES: ReadonlySet<string> = new Set(["banned", "unsupported_version"]);

/** A request until it is settled: it may be sent again (`try_again`) or on another connection (`moved`). */
interface Pending {
  /** As it was asked for (an offline act's `seq` brought up to date); each sending without an
   *  `id` gets a fresh one. */
  message: ClientMessage;
  readonly resolve: (answer: ServerMessage) => void;
  readonly reject: (error: ServerError) => void;
  /** The connection a session's own `resume` belongs to (each connection sends its own, so it
   *  never goes on to another); null for a caller's request. */
  readonly own: ClientConnection | null;
  /** The deadline of the whole request. */
  readonly timer: ReturnType<typeof setTimeout>;
  /** Its id on the current connection while it waits there for an answer. */
  id: number | null;
  /** `try_again` answers it was sent again after. */
  retries: number;
  done: boolean;
  /** An `act` made while the session was not connected: held for the next connection. */
  offline: boolean;
}

const OPEN = 1;

/** A performance mark, once per page (the first connection's milestones, for timing). */
function mark(name: string): void {
  if (typeof performance !== "undefined" && performance.getEntriesByName?.(name).length === 0) performance.mark(name);
}

/** `seconds` ± 25 %, in milliseconds: clients that lost the same node do not all come back at once. */
function jittered(seconds: number): number {
  return seconds * (0.75 + Math.random() * 0.5) * 1000;
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
  /** Why the server refused this client for good, once it has (the session then stays closed). */
  ended: ServerError | null = null;

  /** Where the current (or next) connection goes: the first URL, or where `moved` sent it. */
  private url: string;
  private socket: SocketLike | null = null;
  /** Requests waiting for their answer on the current connection, by id. */
  private readonly answers = new Map<number, Pending>();
  /** Acts carried to this connection after `moved`, by room, until the room's resume is answered. */
  private readonly heldActs = new Map<string, Pending[]>();
  /** Acts made while no socket was there, for the next connection. */
  private readonly offline: Pending[] = [];
  /** The own resumes and carried requests the current connection has not settled yet. */
  private settling = new Set<Pending>();
  /** `moved` followed since the session last settled on a node. */
  private hops = 0;
  private readonly pings = new Map<number, number>();
  private readonly listeners = new Map<string, Set<(...args: never[]) => void>>();
  private readonly lastSeen = new Map<string, RoomView>();
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private stopped = false;
  /** The code and sentence of the last fatal `error` (or `bye` `banned`) the server sent, if any. */
  private fatal: ServerError | null = null;

  constructor(private readonly options: SessionOptions) {
    this.name = options.name;
    this.token = options.token;
    this.url = options.url;
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

  /** Send a request; resolves with its answer (see the module docs). While a socket is being
   *  opened, the request waits for it; between a drop and the next attempt it fails at once. */
  request<T extends ServerMessage = ServerMessage>(message: ClientMessage): Promise<T> {
    if (message.type === "act" && !this.stopped && this.ended === null && this.status !== "open") {
      return new Promise<T>((resolve, reject) => {
        this.holdOffline(this.track(message, resolve as (answer: ServerMessage) => void, reject, null));
      });
    }
    if (this.stopped || this.socket === null) {
      return Promise.reject(new ServerError("disconnected", "Not connected to the server; reconnecting…"));
    }
    return new Promise<T>((resolve, reject) => {
      this.send(this.track(message, resolve as (answer: ServerMessage) => void, reject, null));
    });
  }

  /** How many `act`s are held until the connection is back ({@link request}). */
  get holding(): number {
    return this.offline.length + [...this.heldActs.values()].flat().filter((pending) => pending.offline).length;
  }

  /** Hold an `act` made while not connected: for the next connection's resume of its room
   *  (see {@link releaseActs}), or, while a connection is greeting, for that one's. */
  private holdOffline(pending: Pending): void {
    pending.offline = true;
    const room = (pending.message as ActMessage).room;
    if (this.socket === null) {
      this.offline.push(pending);
      return;
    }
    const held = this.heldActs.get(room);
    if (held === undefined) this.finish(pending, notSent());
    else {
      held.push(pending);
      this.settling.add(pending);
    }
  }

  /** Change the name played under. With a version 4 server it is `set_name` on the open
   *  connection (no reconnect: requests in flight carry on); with an older one, or while not
   *  connected, the next `hello` carries it (an older server's session reconnects for it, with
   *  the same token, so seats are kept). Resolves once the name is in force. */
  rename(name: string): Promise<void> {
    this.name = name;
    if (this.status === "open" && (this.conn.version ?? 0) >= NAME_VERSION) {
      return this.request({ type: "set_name", name }).then(() => undefined);
    }
    if (this.status === "open") this.restart();
    return Promise.resolve();
  }

  /** Claim `name` with `password` for this identity (`claim_name`), or sign in to the account
   *  of `name` (`sign_in`), protocol version 5. The account's session token replaces the
   *  guest token (told to `onToken`, so it is stored); a sign-in then reconnects with it, so
   *  the connection, its seats and its rooms are the account's. */
  async signIn(kind: "claim_name" | "sign_in", name: string, password: string): Promise<Account> {
    const account = await this.request<Account>({ type: kind, name, password });
    this.token = account.token;
    this.options.onToken?.(account.token);
    this.name = account.name;
    if (kind === "sign_in") this.restart();
    else if (this.welcome) this.welcome = { ...this.welcome, name: account.name, token: account.token };
    return account;
  }

  /** Sign out: revoke this connection's session (`session`, from its `account`) and play on as
   *  a new guest (the next `hello` carries no token). */
  async signOut(session: string | null): Promise<void> {
    const revoke = session !== null && this.status === "open" ? this.request({ type: "revoke_session", session }).catch(() => undefined) : Promise.resolve();
    this.token = null;
    await revoke;
    // The server closes a revoked session's connections; reconnect at once either way.
    if (this.socket !== null) this.restart();
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
    for (const pending of this.offline.splice(0)) this.finish(pending, notSent());
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

  /** A request with its deadline, not sent yet. */
  private track(
    message: ClientMessage,
    resolve: (answer: ServerMessage) => void,
    reject: (error: ServerError) => void,
    own: ClientConnection | null,
  ): Pending {
    const timeout = this.options.requestTimeout ?? 20000;
    const pending: Pending = {
      message,
      resolve,
      reject,
      own,
      timer: setTimeout(() => {
        this.finish(pending, new ServerError("timeout", `The server did not answer '${message.type}' in time.`));
      }, timeout),
      id: null,
      retries: 0,
      done: false,
      offline: false,
    };
    return pending;
  }

  /** Send a request on the current connection and wait there for its answer. */
  private send(pending: Pending): void {
    if (pending.done) return;
    let sent: ClientMessage;
    try {
      sent = this.conn.send(pending.message);
    } catch (error) {
      this.finish(pending, new ServerError("disconnected", String(error)));
      return;
    }
    this.waitFor(pending, (sent as { id: number }).id);
    this.flush();
  }

  private waitFor(pending: Pending, id: number): void {
    pending.id = id;
    this.answers.set(id, pending);
  }

  /** Settle a request for good with its answer or failure (once; later outcomes are ignored). */
  private finish(pending: Pending, outcome: ServerMessage | ServerError): void {
    if (pending.done) return;
    pending.done = true;
    clearTimeout(pending.timer);
    if (pending.id !== null && this.answers.get(pending.id) === pending) this.answers.delete(pending.id);
    pending.id = null;
    if (outcome instanceof ServerError) pending.reject(outcome);
    else pending.resolve(outcome);
    if (this.settling.delete(pending)) this.checkSettled();
  }

  /** A request's answer other than `moved`: a `try_again` goes again later, else it settles. */
  private answered(pending: Pending, message: ServerMessage): void {
    this.answers.delete(pending.id!);
    pending.id = null;
    if (this.willRetry(message, pending)) {
      pending.retries += 1;
      setTimeout(() => this.retry(pending), jittered(RETRY_DELAY));
      return;
    }
    if (message.type === "error" || message.type === "rejected") {
      this.finish(pending, new ServerError(message.code, message.message));
      return;
    }
    if (pending.message.type === "leave" && message.type === "ok" && message.room) {
      this.lastSeen.delete(message.room);
      this.codes.delete(message.room);
    }
    this.finish(pending, message);
  }

  /** Whether `message` is a `try_again` refusal of `pending` that it is sent again after. */
  private willRetry(message: ServerMessage, pending: Pending | undefined): boolean {
    return message.type === "error" && message.code === "try_again" && pending !== undefined && pending.retries < MAX_RETRIES;
  }

  /** Send a `try_again` request again, on whichever connection is there (an own resume only on
   *  its own: a later connection resumed the room itself). */
  private retry(pending: Pending): void {
    const gone = this.stopped || this.socket === null || (pending.own !== null && pending.own !== this.conn);
    if (gone) this.finish(pending, new ServerError("disconnected", `The connection dropped before '${pending.message.type}' was answered.`));
    else this.send(pending);
  }

  // --- moving between nodes -------------------------------------------------------------------

  /** Follow `moved` at once: to its URL, carrying the caller's request it answers (if any) and
   *  the acts held for a resume; past {@link MAX_MOVES} in a row, give up instead. */
  private follow(moved: Moved, pending: Pending | undefined): void {
    const request = pending !== undefined && pending.own === null ? pending : null;
    if (this.hops >= MAX_MOVES) {
      this.movedTooOften(request);
      return;
    }
    this.hops += 1;
    const carried = [...this.heldActs.values()].flat();
    this.heldActs.clear();
    if (request) {
      this.answers.delete(request.id!);
      request.id = null;
      carried.push(request);
    }
    const socket = this.socket;
    this.socket = null;
    this.letGo();
    socket?.close(1000, "moved");
    this.url = moved.url;
    this.connect(carried);
  }

  /** The {@link MAX_MOVES} guard: the caller's request fails; without one, the session starts
   *  over from its first URL with backoff. The count starts again either way. */
  private movedTooOften(request: Pending | null): void {
    this.hops = 0;
    if (request) {
      const sentence = `The servers passed '${request.message.type}' on to one another ${MAX_MOVES} times without answering it; please try again in a moment.`;
      this.finish(request, new ServerError("too_many_moves", sentence));
      return;
    }
    this.emit("problem", new ServerError("too_many_moves", "The rooms kept moving between servers; reconnecting."), null);
    this.restart();
  }

  /** Send a request carried from the node left, or hold an `act` until its room's resume is
   *  answered (an act for a room not held cannot be checked, so it fails). */
  private carryOn(pending: Pending): void {
    this.settling.add(pending);
    if (pending.message.type !== "act") {
      this.send(pending);
      return;
    }
    const held = this.heldActs.get(pending.message.room);
    if (held) held.push(pending);
    else this.finish(pending, pending.offline ? notSent() : gameChanged());
  }

  /** Wait for the session's own `resume` of a room on this connection: its answer releases the
   *  acts held for the room. */
  private awaitResume(sent: ResumeMessage): void {
    const conn = this.conn;
    const release = (resumed: boolean) => {
      if (this.conn === conn) this.releaseActs(sent.room, resumed);
    };
    const pending = this.track(sent, () => release(true), () => release(false), conn);
    this.heldActs.set(sent.room, []);
    this.settling.add(pending);
    this.waitFor(pending, sent.id!);
  }

  /** Send each act held for `room` whose command is among the room's fresh `legal`; the
   *  others (all, when the resume failed) fail with `game_changed`. */
  private releaseActs(room: string, resumed: boolean): void {
    const acts = this.heldActs.get(room) ?? [];
    this.heldActs.delete(room);
    const legal = resumed ? expandLegal(this.view(room)?.legal ?? []) : [];
    for (const act of acts) {
      const command = (act.message as ActMessage).command;
      if (legal.some((option) => sameCommand(option, command))) {
        // Made offline against an older copy, checked against this one: sent as of this one.
        if (act.offline) act.message = { ...(act.message as ActMessage), seq: this.view(room)?.seq ?? null };
        this.send(act);
      } else this.finish(act, act.offline ? notSent() : gameChanged());
    }
  }

  /** A connection settles on its node once welcomed with every own resume and carried request
   *  answered (otherwise than by `moved`): moves and backoff count from zero again. */
  private checkSettled(): void {
    if (this.conn.state !== "open" || this.settling.size > 0) return;
    this.hops = 0;
    this.attempt = 0;
  }

  // --- the socket -----------------------------------------------------------------------------

  private setStatus(status: SessionStatus): void {
    if (this.status === status) return;
    this.status = status;
    this.emit("status", status);
  }

  /** Connect to the current URL: `hello`, a `resume` of every room held, then `carried`. */
  private connect(carried: readonly Pending[] = []): void {
    this.retryTimer = null;
    this.conn = new ClientConnection(SUPPORTED_VERSIONS, SERVER_FRAME_LIMITS, this.conn.views);
    this.conn.hello(this.name, this.token, this.options.client ?? "lumin-web/0.1");
    this.settling = new Set();
    for (const sent of this.conn.resumeAll(this.codes)) this.awaitResume(sent as ResumeMessage);
    for (const pending of [...carried, ...this.offline.splice(0)]) this.carryOn(pending);
    this.setStatus(this.welcome === null && this.attempt === 0 ? "connecting" : "reconnecting");
    const factory = this.options.socketFactory ?? ((url: string) => new WebSocket(url) as unknown as SocketLike);
    let socket: SocketLike;
    try {
      socket = factory(this.url);
    } catch (error) {
      this.emit("problem", new ServerError("disconnected", `Cannot open ${this.url}: ${error}`), null);
      this.dropped();
      return;
    }
    this.socket = socket;
    socket.binaryType = "arraybuffer";
    socket.onopen = () => {
      mark("lumin:socket-open");
      this.flush();
    };
    // A socket let go of (after `moved`) may still deliver a frame: it is no longer ours.
    socket.onmessage = (event) => {
      if (this.socket === socket) this.receive(event.data);
    };
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
    const pending = ref !== null ? this.answers.get(ref) : undefined;
    const asked = pending?.message;
    if (message.type === "error" && message.code === "no_such_room" && asked?.type === "resume" && this.lastSeen.has(asked.room)) {
      // A room this page held is gone from the server (a restore from an older backup, say):
      // it ends for the page as a closed room does, in the server's words.
      this.dispatch({ type: "room_closed", room: asked.room, reason: "gone", message: `This room is no longer on the server: ${message.message}` });
    }
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
    if (message.type === "error" && message.fatal) this.fatal = new ServerError(message.code, message.message);
    if (message.type === "bye" && message.code === "banned") this.fatal = new ServerError("banned", message.message);
    if ((message.type === "error" || message.type === "rejected") && !this.willRetry(message, pending)) {
      const room = message.type === "rejected" ? message.room : null;
      this.emit("problem", new ServerError(message.code, message.message), room);
    }
    this.emit("message", message);
    this.emit(`msg:${message.type}`, message);
    if (message.type === "moved") this.follow(message, pending);
    else if (pending) this.answered(pending, message);
  }

  private welcomed(welcome: Welcome): void {
    mark("lumin:welcome");
    this.welcome = welcome;
    this.name = welcome.name;
    if (welcome.token !== this.token) {
      this.token = welcome.token;
      this.options.onToken?.(welcome.token);
    }
    this.clock.seed(clientNow(), welcome.server_time);
    this.setStatus("open");
    this.checkSettled();
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

  /** Stop the current connection's pings and fail every request waiting on it (answers and
   *  held acts) with `disconnected`. */
  private letGo(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
    this.pings.clear();
    this.settling = new Set();
    const waiting = [...this.answers.values(), ...[...this.heldActs.values()].flat()];
    this.answers.clear();
    this.heldActs.clear();
    for (const pending of waiting) {
      // An act made while offline and held for a resume waits for the next connection.
      if (pending.offline && pending.id === null) this.offline.push(pending);
      else this.finish(pending, new ServerError("disconnected", `The connection dropped before '${pending.message.type}' was answered.`));
    }
  }

  /** The socket is gone: reconnect with backoff to the first URL (any node of a cluster, which
   *  sends the session on with `moved` if need be; the node `moved` named may be the one that
   *  died). */
  private dropped(): void {
    this.letGo();
    if (this.stopped || this.ended) return;
    if (this.fatal && FINAL_CODES.has(this.fatal.code)) {
      this.end(this.fatal); // retrying cannot help: banned, or no version of ours
      return;
    }
    this.url = this.options.url;
    this.scheduleRetry();
  }

  /** Stop for good with the server's refusal: no more reconnects. */
  private end(reason: ServerError): void {
    this.ended = reason;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.setStatus("closed");
    this.emit("ended", reason);
  }

  private scheduleRetry(): void {
    this.setStatus("reconnecting");
    const delay = Math.min(10, 0.5 * 2 ** this.attempt);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), jittered(delay));
  }
}

/** The failure of an `act` made while offline that is no longer legal once the session is back. */
function notSent(): ServerError {
  return new ServerError("not_sent", "Your move was not sent: the game changed while you were offline.");
}

/** The failure of an `act` that `moved` answered and that is no longer legal on the new node. */
function gameChanged(): ServerError {
  return new ServerError("game_changed", "The move was not sent because the game changed while its room moved to another server.");
}
