/**
 * The contract between the room page (the shell) and a game's board.
 *
 * The shell owns the connection, the room's view and legal commands (kept current by applying
 * deltas), the error line, chat, the seat list, the end-of-game summary and replays. A board
 * only draws the view it is given and turns the player's gestures into commands from `legal`.
 * It holds no rules: what is allowed is exactly what `legal` offers (docs/protocol.md, "Legal
 * commands"; compact entries with `choose` are expanded by `expandLegal`).
 */

/** One legal-command entry as the server sends it (maybe compact, with `choose`). */
export type LegalEntry = Record<string, unknown>;

/** A command to send in an `act` message (its `type` and fields). */
export type Command = { type: string } & Record<string, unknown>;

/** Named sound effects every board may ask for; the shell maps them to Web Audio sounds. */
export type SoundName =
  | "move"
  | "flip"
  | "slide"
  | "claim"
  | "dice"
  | "success"
  | "fail"
  | "alert"
  | "tick"
  | "win"
  | "lose";

export interface BoardContext {
  /** The seat whose view this is; null for a spectator's public view. */
  readonly seat: number | null;
  /** True in a replay (nothing can be sent) and for spectators. */
  readonly readOnly: boolean;
  /** True when `seat` is whose eyes the board looks through, not the person at the screen (a
   *  replay seen from a seat): the board then names that seat, never "you". */
  readonly seenAs?: boolean;
  /** Send a command. Resolves when the server accepts it, rejects with the server's error
   *  (the shell already shows rejections in the error line). */
  act(command: Command): Promise<void>;
  /** Play a named sound effect (no-op when muted). */
  sound(name: SoundName): void;
  /** The server's clock now, in seconds since the epoch (from the ping clock sync). */
  serverNow(): number;
  /** Display names of the room's seats, by seat index. */
  readonly seatNames: readonly string[];
  /** A board that plays changes out one after another (see `Board.busy`) calls this when it
   *  has caught up with the last view, so the shell's "Your turn" follows the board. */
  settled?(): void;
}

export interface Board {
  /** Draw the new view; `legal` is the viewer's legal commands now ([] when none). Called for
   *  the first snapshot and after every delta; `previous` is the view before (null at first),
   *  so the board can animate what changed. */
  update(view: unknown, legal: readonly LegalEntry[], previous: unknown | null): void;
  /** Remove listeners and timers; the shell empties the root afterwards. */
  destroy(): void;
  /** True when the board sounds the turn alert itself (when its animations reach the
   *  player's turn, or never, for a race); the shell then only marks the tab title. */
  readonly playsTurnAlert?: boolean;
  /** True when the board says whose turn it is (and what to do) in its own words: the shell's
   *  turn line then stays empty during play, so the player reads it once. */
  readonly saysTurn?: boolean;
  /** True while the board is still playing out earlier changes (an AI's moves, dice): the
   *  shell then holds back "Your turn" until `context.settled()`. */
  busy?(): boolean;
}

/** Every board module exports `createBoard` of this type as its default export. */
export type BoardFactory = (root: HTMLElement, context: BoardContext) => Board;
