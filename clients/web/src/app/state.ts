/**
 * What the pages share: the session, the game catalogue, and what the server told us about
 * rooms (summaries, chat lines, game ends, rematches), kept from the session's messages so a
 * page opened later (or again) finds it.
 */

import { ServerError } from "../protocol/errors";
import type { Chat, GameInfo, GameOver, Games, RatingChange, RoomSummary } from "../protocol/messages";
import type { Session } from "../net/session";
import type { QuickTicket } from "./quickplay";
import type { SoundBoard } from "./sound";
import { storage } from "./storage";

/** Display names used before the catalogue arrives (and for games a server no longer hosts). */
const KNOWN_NAMES: Record<string, string> = {
  flip_over_frog: "Flip Over Frog",
  neon_hex: "Neon Hex Strategy",
  flash8: "Flash 8",
  neon_flip: "Neon Flip",
};

/** Chat lines kept per room. */
const CHAT_KEEP = 200;

export class AppState {
  /** The latest summary of every room we heard of (lobby, room updates). */
  readonly summaries = new Map<string, RoomSummary>();
  readonly chats = new Map<string, Chat[]>();
  readonly overs = new Map<string, GameOver>();
  /** A rated game's rating changes (`ratings_changed`), by room. */
  readonly ratings = new Map<string, RatingChange[]>();
  /** Finished room → its rematch room, once every seated human asked. */
  readonly rematches = new Map<string, string>();
  /** Rooms this connection entered (created, joined, watched, resumed) and has not left. */
  readonly entered = new Set<string>();
  /** Users whose chat lines the server stops sending us. */
  readonly muted: Set<string>;
  /** What to do once a room page opens: take the first open seat. */
  readonly joinOnOpen = new Set<string>();
  /** What quick play is looking for on this connection (null: not queued). */
  quick: QuickTicket | null = null;
  private readonly quickListeners = new Set<() => void>();
  private catalogue: Promise<GameInfo[]> | null = null;
  private gameNames = new Map<string, string>();
  private infos = new Map<string, GameInfo>();

  constructor(
    readonly session: Session,
    readonly sound: SoundBoard,
  ) {
    this.muted = new Set(storage.json<string[]>("muted", []));
    session.on("msg:room_update", (message) => this.summaries.set(message.info.room, message.info));
    session.on("msg:room_list", (message) => message.rooms.forEach((room) => this.summaries.set(room.room, room)));
    session.on("msg:lobby_update", (message) => message.rooms.forEach((room) => this.summaries.set(room.room, room)));
    session.on("msg:chat", (message) => {
      const lines = this.chats.get(message.room) ?? [];
      lines.push(message);
      if (lines.length > CHAT_KEEP) lines.splice(0, lines.length - CHAT_KEEP);
      this.chats.set(message.room, lines);
    });
    session.on("msg:game_over", (message) => this.overs.set(message.room, message));
    session.on("msg:ratings_changed", (message) => this.ratings.set(message.room, message.changes));
    session.on("msg:matched", (message) => {
      this.entered.add(message.room);
      this.setQuick(null);
    });
    session.on("msg:rematch_created", (message) => this.rematches.set(message.room, message.new_room));
    session.on("msg:room_created", (message) => {
      this.entered.add(message.room);
      if (message.code) this.rememberCode(message.room, message.code);
    });
    session.on("msg:room_closed", (message) => this.entered.delete(message.room));
    session.on("welcome", () => {
      // A new identity (bad token) or a server restart: the catalogue may have changed too.
      this.catalogue = null;
      // The queue forgets a connection that closed.
      this.setQuick(null);
    });
    for (const [room, code] of Object.entries(storage.json<Record<string, string>>("codes", {}))) {
      session.codes.set(room, code);
    }
  }

  /** The games the server hosts (`list_games`), fetched once per connection. */
  games(): Promise<GameInfo[]> {
    if (this.catalogue === null) {
      this.catalogue = this.session
        .request<Games>({ type: "list_games" })
        .then((answer) => {
          for (const game of answer.games) {
            this.gameNames.set(game.id, game.name);
            this.infos.set(game.id, game);
          }
          return answer.games;
        })
        .catch((error: unknown) => {
          this.catalogue = null;
          throw error instanceof ServerError ? error : new ServerError("internal", String(error));
        });
    }
    return this.catalogue;
  }

  /** Queue for quick play, or leave the queue (null); the lobby's panel follows. */
  setQuick(ticket: QuickTicket | null): void {
    if (ticket === this.quick) return;
    this.quick = ticket;
    for (const listener of [...this.quickListeners]) listener();
  }

  /** Call `listener` whenever {@link quick} changes; returns the unsubscribe. */
  onQuickChange(listener: () => void): () => void {
    this.quickListeners.add(listener);
    return () => this.quickListeners.delete(listener);
  }

  /** A game's catalogue entry, once {@link games} has answered (else null). */
  gameInfo(id: string): GameInfo | null {
    return this.infos.get(id) ?? null;
  }

  /** A game's display name. */
  gameName(id: string): string {
    return this.gameNames.get(id) ?? KNOWN_NAMES[id] ?? id;
  }

  /** Remember a private room's code (for resume and for sharing), across reloads. */
  rememberCode(room: string, code: string): void {
    this.session.codes.set(room, code);
    const codes = storage.json<Record<string, string>>("codes", {});
    codes[room] = code;
    const entries = Object.entries(codes).slice(-30); // keep the newest few
    storage.setJson("codes", Object.fromEntries(entries));
  }

  /** Forget a private room's code the server refused (a wrong one), so it is not sent again. */
  forgetCode(room: string): void {
    this.session.codes.delete(room);
    const codes = storage.json<Record<string, string>>("codes", {});
    delete codes[room];
    storage.setJson("codes", codes);
  }

  /** Mute or unmute a user's chat lines (the server stops or resumes sending them). */
  async setMuted(user: string, muted: boolean): Promise<void> {
    await this.session.request({ type: "mute", user, muted });
    if (muted) this.muted.add(user);
    else this.muted.delete(user);
    storage.setJson("muted", [...this.muted]);
  }

  /** My seat in a room, from its summary (null when not seated). */
  mySeat(room: string): number | null {
    const summary = this.summaries.get(room);
    const user = this.session.user;
    if (!summary || !user) return null;
    return summary.seats.find((seat) => seat.user === user && seat.kind === "human")?.seat ?? null;
  }

  /** Display names of a room's seats, by seat index. */
  seatNames(room: string): string[] {
    const summary = this.summaries.get(room);
    return (summary?.seats ?? []).map((seat) => seatLabel(seat.seat, seat.name, seat.kind, seat.bot));
  }
}

/** How a seat is named on screen. */
export function seatLabel(seat: number, name: string | null, kind: string, bot: string | null): string {
  if (kind === "open") return `Seat ${seat + 1} (open)`;
  // A bot the server named after its kind alone ("bot bot", "easy bot") gets its seat's
  // number, so two of one kind read apart: "Bot 2", "Easy bot 3".
  if (kind === "bot") {
    const plain = `${bot ?? "bot"} bot`;
    if (name !== null && name !== plain) return name;
    const kindName = bot === null || bot === "bot" ? "Bot" : `${bot.charAt(0).toUpperCase()}${bot.slice(1)} bot`;
    return `${kindName} ${seat + 1}`;
  }
  return name ?? `Seat ${seat + 1}`;
}
