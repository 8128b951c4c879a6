/**
 * The Lumin protocol's messages (docs/protocol.md, "Message reference") as TypeScript types,
 * and the field schema the codec checks every server frame against.
 *
 * Field names are the wire names (snake_case), so a decoded frame is used as it is. A field
 * whose value equals its default may be absent on the wire; decoding fills defaults in, so the
 * types below describe a frame *after* decoding. Client messages leave `null` fields out.
 */

/** Free-form Lumin data: views, options, commands. */
export type Data = Record<string, unknown>;

// --- structures -----------------------------------------------------------------------------

export interface SeatChoice {
  kind?: "human" | "bot";
  bot?: string | null;
  name?: string | null;
  choices?: Data;
}

export interface SeatInfo {
  seat: number;
  kind: "open" | "human" | "bot";
  name: string | null;
  user: string | null;
  bot: string | null;
  choices: Data;
  ready: boolean;
  connected: boolean;
  /** The human's rating in the room's pool, as shown (version 5; null when unrated). */
  rating: number | null;
}

export type RoomState = "waiting" | "playing" | "finished";

export interface RoomSummary {
  room: string;
  game: string;
  options: Data;
  seats: SeatInfo[];
  state: RoomState;
  host: string | null;
  spectators: number;
  private: boolean;
  commitment: string;
  turn_clock: number | null;
  created: number;
  /** Version 6: a finished game's result (null while it plays, and from older servers). */
  result: ResultInfo | null;
}

/** Version 6: a finished game's result as the lobby lists it (docs/protocol.md `ResultInfo`). */
export interface ResultInfo {
  /** Server time the game ended, seconds since the epoch. */
  finished: number;
  winners: number[];
  scores: number[];
  reason: string;
}

export interface OutcomeInfo {
  ranks: number[];
  scores: number[];
  winners: number[];
  reason: string;
  tiebreak: string | null;
  details: Data;
}

/** The limits the server enforces on each person (`welcome.limits`, docs/protocol.md "Limits"). */
export interface LimitsInfo {
  rate: number;
  burst: number;
  address_rate: number;
  address_burst: number;
  chat_length: number;
  chat_rate: number;
  rooms: number;
  replays: number;
  lobby_page: number;
}

/** A room option or per-seat choice a game offers (`games`). */
export interface OptionInfo {
  name: string;
  kind: "int" | "float" | "bool" | "choice";
  default: unknown;
  doc: string;
  choices: unknown[];
  minimum: number | null;
  maximum: number | null;
  /** Version 6: when it applies, `{option or "seats": allowed values}`; `{}` (and from older
   *  servers): always. */
  when: Data;
}

/** Seat counts allowed when the room's options match `when` (first match wins). */
export interface SeatRule {
  when: Data;
  min: number;
  max: number;
}

/** A game the server hosts (`games`, answering `list_games`). */
export interface GameInfo {
  id: string;
  name: string;
  options: OptionInfo[];
  seat_options: OptionInfo[];
  bots: string[];
  default_bot: string;
  seats: SeatRule[];
  /** Each command type's field names (a legal entry's other keys are information). */
  commands: Record<string, string[]>;
}

/** One signed-in session of an account (`sessions`, version 5). */
export interface SessionInfo {
  session: string;
  created: number;
  last_seen: number;
  client: string;
  current: boolean;
}

/** How a finished rated game moved one seat's shown rating in `pool` (version 5). */
export interface RatingChange {
  seat: number;
  user: string;
  name: string;
  pool: string;
  before: number;
  after: number;
  games: number;
}

// --- client to server -----------------------------------------------------------------------

/** Every message this client sends; `id` is filled in by the connection. */
export type ClientMessage =
  | {
      type: "hello";
      versions: number[];
      name: string;
      token?: string | null;
      client?: string | null;
      jwt?: string | null;
      id?: number;
    }
  | { type: "ping"; client_time?: number | null; id?: number }
  | { type: "watch_lobby"; id?: number }
  | { type: "unwatch_lobby"; id?: number }
  | { type: "list_games"; id?: number }
  | { type: "list_rooms"; game?: string | null; offset?: number; limit?: number | null; id?: number }
  | {
      type: "create_room";
      game: string;
      options?: Data;
      seats: SeatChoice[];
      private?: boolean;
      sit?: number | null;
      turn_clock?: number | null;
      rated?: boolean | null;
      id?: number;
    }
  | { type: "join_seat"; room: string; seat: number; code?: string | null; id?: number }
  | { type: "watch_room"; room: string; code?: string | null; id?: number }
  | { type: "ready"; room: string; ready?: boolean; id?: number }
  | { type: "leave"; room: string; id?: number }
  | { type: "start"; room: string; id?: number }
  | { type: "kick"; room: string; seat: number; id?: number }
  | { type: "rematch"; room: string; id?: number }
  | { type: "act"; room: string; command: Data; seq?: number | null; id?: number }
  | { type: "resume"; room: string; seq: number; epoch: string; code?: string | null; id?: number }
  | { type: "get_snapshot"; room: string; id?: number }
  | { type: "chat_send"; room: string; text: string; id?: number }
  | { type: "mute"; user: string; muted?: boolean; id?: number }
  | { type: "set_name"; name: string; id?: number }
  | { type: "open_replay"; room: string; viewer?: number | null; code?: string | null; id?: number }
  | { type: "replay_step"; replay: string; steps?: number; id?: number }
  | { type: "replay_seek"; replay: string; position: number; id?: number }
  | { type: "replay_viewer"; replay: string; viewer?: number | null; id?: number }
  | { type: "close_replay"; replay: string; id?: number }
  | { type: "claim_name"; name: string; password: string; id?: number }
  | { type: "sign_in"; name: string; password: string; id?: number }
  | { type: "list_sessions"; id?: number }
  | { type: "revoke_session"; session?: string | null; id?: number }
  | { type: "play_now"; game: string; seats: number; options?: Data; bot_wait?: number | null; id?: number }
  | { type: "cancel_play_now"; id?: number }
  | { type: "bye"; code?: string; message?: string };

export type ClientType = ClientMessage["type"];

// --- server to client -----------------------------------------------------------------------

/** One delta operation as it travels: `[op, path]` or `[op, path, value]`. */
export type WireOp = [string, string] | [string, string, unknown];

export interface Welcome { type: "welcome"; ref: number | null; version: number; token: string; user: string; name: string; server_time: number; rooms: string[]; max_frame: number; limits: LimitsInfo | null }
export interface ErrorMessage { type: "error"; code: string; message: string; ref: number | null; fatal: boolean }
export interface Pong { type: "pong"; ref: number | null; client_time: number | null; server_time: number }
export interface Ok { type: "ok"; ref: number | null; room: string | null }
export interface Bye { type: "bye"; code: string; message: string }
export interface RoomList { type: "room_list"; ref: number | null; rooms: RoomSummary[]; total: number; next: number | null }
export interface Games { type: "games"; ref: number | null; games: GameInfo[] }
export interface LobbyUpdate { type: "lobby_update"; rooms: RoomSummary[]; removed: string[] }
export interface RoomCreated { type: "room_created"; ref: number | null; room: string; code: string | null; commitment: string }
export interface RematchCreated { type: "rematch_created"; room: string; new_room: string }
/** `message` (version 3, else ""): the sentence for the person, e.g. the operator's reason. */
export interface Kicked { type: "kicked"; room: string; seat: number; message: string }
export interface RoomUpdate { type: "room_update"; info: RoomSummary; seat: number | null }
/** `reason`: `expired`, `abandoned`, `internal_error` or `closed_by_operator`; `message`
 *  (version 3, else ""): why, in a sentence for the person. */
export interface RoomClosed { type: "room_closed"; room: string; reason: string; message: string }
export interface Accepted { type: "accepted"; ref: number | null; room: string; seq: number }
export interface Rejected { type: "rejected"; ref: number | null; room: string; code: string; message: string }
export interface Snapshot { type: "snapshot"; ref: number | null; room: string; epoch: string; seq: number; seat: number | null; view: Data | null; legal: Data[]; clock_origin: number }
export interface Delta { type: "delta"; room: string; base: number; seq: number; ops: WireOp[]; legal: Data[] | null }
export interface GameOver { type: "game_over"; room: string; outcome: OutcomeInfo; seed: string; salt: string; commitment: string }
export interface Chat { type: "chat"; room: string; channel: "players" | "spectators"; user: string; name: string; seat: number | null; text: string; server_time: number }
/**
 * Version 2: the request `ref` answers (or, with `ref` null, a room this connection was in) is
 * served by the cluster node at `url`; `room` is null when it answers `create_room`.
 */
export interface Moved { type: "moved"; ref: number | null; room: string | null; url: string }
/** Version 5: the account this connection is signed in to (answers `claim_name`, `sign_in`). */
export interface Account { type: "account"; ref: number | null; user: string; name: string; token: string; session: string; rooms: string[] }
export interface Sessions { type: "sessions"; ref: number | null; sessions: SessionInfo[] }
/** Version 5: a rated game in `room` ended (after `game_over`). */
export interface RatingsChanged { type: "ratings_changed"; room: string; changes: RatingChange[] }
/** Version 5: quick play made `room`, where the recipient holds `seat`. */
export interface Matched { type: "matched"; room: string; seat: number; rated: boolean }
export interface ReplayState { type: "replay_state"; ref: number | null; replay: string; room: string; position: number; length: number; viewer: number | null; view: Data; at: number | null }

export type ServerMessage =
  | Welcome
  | ErrorMessage
  | Pong
  | Ok
  | Bye
  | RoomList
  | Games
  | LobbyUpdate
  | RoomCreated
  | RematchCreated
  | Kicked
  | RoomUpdate
  | RoomClosed
  | Accepted
  | Rejected
  | Snapshot
  | Delta
  | GameOver
  | Chat
  | ReplayState
  | Moved
  | Account
  | Sessions
  | RatingsChanged
  | Matched;

export type ServerType = ServerMessage["type"];

// --- the schema -----------------------------------------------------------------------------

/**
 * A field's kind: `int`, `float`, `str`, `bool`, `map`, `list`, `any`, a structure name, or
 * `list<Kind>`; a trailing `?` admits nil.
 */
export type FieldKind = string;

/** `[kind]` is required; `[kind, default]` may be absent and then takes the default. */
export type FieldSpec = readonly [FieldKind] | readonly [FieldKind, unknown];

export type Schema = Readonly<Record<string, FieldSpec>>;

const REF: FieldSpec = ["int?", null];

/** The structures nested in server messages. */
export const STRUCTURES: Readonly<Record<string, Schema>> = {
  LimitsInfo: {
    rate: ["float"],
    burst: ["int"],
    address_rate: ["float"],
    address_burst: ["int"],
    chat_length: ["int"],
    chat_rate: ["int"],
    rooms: ["int"],
    replays: ["int"],
    lobby_page: ["int"],
  },
  SeatInfo: {
    seat: ["int"],
    kind: ["str"],
    name: ["str?", null],
    user: ["str?", null],
    bot: ["str?", null],
    choices: ["map", {}],
    ready: ["bool", false],
    connected: ["bool", false],
    rating: ["float?", null],
  },
  RoomSummary: {
    room: ["str"],
    game: ["str"],
    options: ["map", {}],
    seats: ["list<SeatInfo>", []],
    state: ["str", "waiting"],
    host: ["str?", null],
    spectators: ["int", 0],
    private: ["bool", false],
    commitment: ["str", ""],
    turn_clock: ["float?", null],
    created: ["float", 0],
    result: ["ResultInfo?", null],
  },
  ResultInfo: {
    finished: ["float"],
    winners: ["list<int>", []],
    scores: ["list<float>", []],
    reason: ["str", ""],
  },
  OutcomeInfo: {
    ranks: ["list<int>"],
    scores: ["list<float>"],
    winners: ["list<int>"],
    reason: ["str"],
    tiebreak: ["str?", null],
    details: ["map", {}],
  },
  OptionInfo: {
    name: ["str"],
    kind: ["str"],
    default: ["any"],
    doc: ["str"],
    choices: ["list", []],
    minimum: ["float?", null],
    maximum: ["float?", null],
    when: ["map", {}],
  },
  SessionInfo: {
    session: ["str"],
    created: ["float"],
    last_seen: ["float"],
    client: ["str", ""],
    current: ["bool", false],
  },
  RatingChange: {
    seat: ["int"],
    user: ["str"],
    name: ["str"],
    pool: ["str"],
    before: ["float"],
    after: ["float"],
    games: ["int"],
  },
  GameInfo: {
    id: ["str"],
    name: ["str"],
    options: ["list<OptionInfo>", []],
    seat_options: ["list<OptionInfo>", []],
    bots: ["list<str>", []],
    default_bot: ["str"],
    seats: ["list<map>", []],
    commands: ["map", {}],
  },
};

/** Every message the server may send, with its fields. */
export const SERVER_MESSAGES: Readonly<Record<ServerType, Schema>> = {
  welcome: {
    ref: REF,
    version: ["int"],
    token: ["str"],
    user: ["str"],
    name: ["str"],
    server_time: ["float"],
    rooms: ["list<str>", []],
    max_frame: ["int"],
    limits: ["LimitsInfo?", null],
  },
  error: { code: ["str"], message: ["str"], ref: REF, fatal: ["bool", false] },
  pong: { ref: REF, client_time: ["float?", null], server_time: ["float"] },
  ok: { ref: REF, room: ["str?", null] },
  bye: { code: ["str", "normal"], message: ["str", ""] },
  room_list: { ref: REF, rooms: ["list<RoomSummary>", []], total: ["int", 0], next: ["int?", null] },
  games: { ref: REF, games: ["list<GameInfo>", []] },
  lobby_update: { rooms: ["list<RoomSummary>", []], removed: ["list<str>", []] },
  room_created: { ref: REF, room: ["str"], code: ["str?", null], commitment: ["str"] },
  rematch_created: { room: ["str"], new_room: ["str"] },
  kicked: { room: ["str"], seat: ["int"], message: ["str", ""] },
  room_update: { info: ["RoomSummary"], seat: ["int?", null] },
  room_closed: { room: ["str"], reason: ["str"], message: ["str", ""] },
  accepted: { ref: REF, room: ["str"], seq: ["int"] },
  rejected: { ref: REF, room: ["str"], code: ["str"], message: ["str"] },
  snapshot: {
    ref: REF,
    room: ["str"],
    epoch: ["str"],
    seq: ["int"],
    seat: ["int?", null],
    view: ["map?"],
    legal: ["list<map>", []],
    clock_origin: ["float", 0],
  },
  delta: {
    room: ["str"],
    base: ["int"],
    seq: ["int"],
    ops: ["list<list>", []],
    legal: ["list<map>?", null],
  },
  game_over: {
    room: ["str"],
    outcome: ["OutcomeInfo"],
    seed: ["str"],
    salt: ["str"],
    commitment: ["str"],
  },
  chat: {
    room: ["str"],
    channel: ["str"],
    user: ["str"],
    name: ["str"],
    seat: ["int?", null],
    text: ["str"],
    server_time: ["float"],
  },
  replay_state: {
    ref: REF,
    replay: ["str"],
    room: ["str"],
    position: ["int"],
    length: ["int"],
    viewer: ["int?", null],
    view: ["map"],
    at: ["float?", null],
  },
  moved: { ref: REF, room: ["str?", null], url: ["str"] },
  account: {
    ref: REF,
    user: ["str"],
    name: ["str"],
    token: ["str"],
    session: ["str"],
    rooms: ["list<str>", []],
  },
  sessions: { ref: REF, sessions: ["list<SessionInfo>", []] },
  ratings_changed: { room: ["str"], changes: ["list<RatingChange>", []] },
  matched: { room: ["str"], seat: ["int"], rated: ["bool", false] },
};

/** Requests: every client message but `bye` carries an optional `id` answered by `ref`. */
export function isRequest(message: ClientMessage): boolean {
  return message.type !== "bye";
}
