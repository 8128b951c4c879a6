/**
 * Quick play in the lobby (protocol version 5): "Play now" for a game and seat count, with
 * how long the player would wait before bots fill the empty seats (10 s unless the player
 * chooses 30 s or only people, so a lone newcomer plays at once). While the server looks for
 * players the panel says so, and what happens when, with a Cancel button; `matched` (handled by
 * the app, on any page) lands the player in the room. A game with modes (Neon Flip's classic
 * and overdrive, Flash 8's race) offers those a table of people can play (`play_now`'s
 * `options`); its other options are the defaults.
 */

import { ServerError } from "../protocol/errors";
import type { GameInfo } from "../protocol/messages";
import { choiceLabel, seatRange } from "./create_form";
import { h, replace } from "./dom";
import type { AppState } from "./state";

/** The first protocol version whose server takes `play_now`. */
export const QUICK_PLAY_VERSION = 5;

/** The bot waits a player may choose, in seconds (null: never); the first is the default. */
export const BOT_WAITS: readonly { seconds: number | null; text: string }[] = [
  { seconds: 10, text: "Bots after 10 s" },
  { seconds: 30, text: "Bots after 30 s" },
  { seconds: null, text: "Only people" },
];

/** What the player is queued for, while the server looks for players. */
export interface QuickTicket {
  game: string;
  /** The game's mode, for a game with modes (null: the game has none). */
  mode: string | null;
  seats: number;
  botWait: number | null;
  /** When the wait began (`Date.now()`). */
  since: number;
}

/** The sentence a waiting player reads. */
export function waitingSentence(ticket: QuickTicket, gameName: string, now: number): string {
  const waited = Math.max(0, Math.floor((now - ticket.since) / 1000));
  const bots = ticket.botWait === null ? " Only people: the game starts when someone else presses Play now for this table (cancel and choose bots to play sooner)." : waited >= ticket.botWait ? " Bots are taking the empty seats…" : ` Bots fill the empty seats in ${ticket.botWait - waited} s.`;
  const mode = ticket.mode ? ` (${modeName(ticket.mode)})` : "";
  return `Looking for players for ${gameName}${mode} with ${ticket.seats} seats… (${waited} s)${bots}`;
}

export class QuickPlayPanel {
  readonly element = h("section.panel.quick-panel", { "aria-labelledby": "quick-title", "data-testid": "quick-play" });
  private readonly body = h("div.quick-body");
  private readonly problem = h("p.error-line", { role: "alert", "data-testid": "quick-problem" });
  private games: GameInfo[] = [];
  private game: GameInfo | null = null;
  private seats = 2;
  private mode: string | null = null;
  private botWait: number | null = BOT_WAITS[0]!.seconds;
  private timer: number | null = null;
  private readonly offs: (() => void)[] = [];

  constructor(private readonly app: AppState) {
    this.element.append(h("h2#quick-title", null, "Play now"), this.body, this.problem);
    this.offs.push(
      app.onQuickChange(() => this.draw()),
      app.session.on("welcome", () => this.draw()),
    );
    this.draw();
  }

  /** The games to offer, once the catalogue answered. */
  setGames(games: GameInfo[]): void {
    this.games = games.filter((game) => range(game) !== null);
    if (!this.game || !this.games.some((game) => game.id === this.game!.id)) this.choose(this.games[0] ?? null);
    this.draw();
  }

  destroy(): void {
    for (const off of this.offs) off();
    this.stopTimer();
  }

  private choose(game: GameInfo | null, mode: string | null = null): void {
    this.game = game;
    const modes = game ? quickModes(game) : [];
    this.mode = mode !== null && modes.includes(mode) ? mode : (modes[0] ?? null);
    const seats = game ? range(game, this.mode) : null;
    if (seats) this.seats = Math.min(seats.max, Math.max(seats.min, this.seats));
  }

  private draw(): void {
    const version = this.app.session.conn.version;
    this.element.hidden = version !== null && version < QUICK_PLAY_VERSION;
    const ticket = this.app.quick;
    this.stopTimer();
    if (ticket) {
      const line = h("p.quick-waiting", { role: "status", "data-testid": "quick-waiting" });
      const tick = () => (line.textContent = waitingSentence(ticket, this.app.gameName(ticket.game), Date.now()));
      tick();
      this.timer = window.setInterval(tick, 1000);
      replace(this.body, line, h("button", { type: "button", "data-testid": "quick-cancel", onclick: () => this.cancel() }, "Cancel"));
      return;
    }
    const game = this.game;
    if (!game) {
      replace(this.body, h("p.muted", null, this.games.length ? "" : "Loading the games…"));
      return;
    }
    const seats = range(game, this.mode)!;
    const modes = quickModes(game);
    const modeSelect = h(
      "select#quick-mode",
      { "data-testid": "quick-mode" },
      modes.map((mode) => h("option", { value: mode, selected: mode === this.mode }, modeName(mode))),
    );
    modeSelect.onchange = () => {
      this.choose(game, modeSelect.value);
      this.draw();
      document.getElementById("quick-mode")?.focus();
    };
    const gameSelect = h(
      "select#quick-game",
      { "data-testid": "quick-game" },
      this.games.map((g) => h("option", { value: g.id, selected: g.id === game.id }, g.name)),
    );
    gameSelect.onchange = () => {
      this.choose(this.games.find((g) => g.id === gameSelect.value) ?? null);
      this.draw();
      document.getElementById("quick-game")?.focus();
    };
    const count = h(
      "select#quick-seats",
      { "data-testid": "quick-seats" },
      Array.from({ length: seats.max - seats.min + 1 }, (_, i) => seats.min + i).map((n) => h("option", { value: String(n), selected: n === this.seats }, `${n} players`)),
    );
    count.onchange = () => (this.seats = Number(count.value));
    const wait = h(
      "select#quick-bots",
      { "data-testid": "quick-bots" },
      BOT_WAITS.map((choice, i) => h("option", { value: String(i), selected: choice.seconds === this.botWait }, choice.text)),
    );
    wait.onchange = () => (this.botWait = BOT_WAITS[Number(wait.value)]?.seconds ?? null);
    replace(
      this.body,
      h(
        "form.quick-form",
        {
          onsubmit: (event: Event) => {
            event.preventDefault();
            this.play();
          },
        },
        h("div.field", null, h("label", { for: "quick-game" }, "Game"), gameSelect),
        modes.length ? h("div.field", null, h("label", { for: "quick-mode" }, "Mode"), modeSelect) : null,
        h("div.field", null, h("label", { for: "quick-seats" }, "Table"), count),
        h("div.field", null, h("label", { for: "quick-bots" }, "Waiting"), wait),
        h("button.primary", { type: "submit", "data-testid": "quick-play-now" }, "Play now"),
      ),
    );
  }

  private play(): void {
    const game = this.game;
    if (!game) return;
    this.problem.textContent = "";
    const ticket: QuickTicket = { game: game.id, mode: this.mode, seats: this.seats, botWait: this.botWait, since: Date.now() };
    this.app.setQuick(ticket);
    const options = this.mode === null ? {} : { mode: this.mode };
    this.app.session.request({ type: "play_now", game: game.id, seats: this.seats, options, bot_wait: this.botWait }).catch((error: unknown) => {
      if (this.app.quick === ticket) this.app.setQuick(null);
      this.problem.textContent = error instanceof ServerError ? error.message : String(error);
    });
  }

  private cancel(): void {
    this.app.setQuick(null);
    this.app.session.request({ type: "cancel_play_now" }).catch((error: unknown) => {
      this.problem.textContent = error instanceof ServerError ? error.message : String(error);
    });
  }

  private stopTimer(): void {
    if (this.timer !== null) window.clearInterval(this.timer);
    this.timer = null;
  }
}

/** The seat counts a game allows in `mode` (its default options otherwise), when it is played
 *  by more than one. */
function range(game: GameInfo, mode: string | null = null): { min: number; max: number } | null {
  const seats = seatRange(game, mode === null ? {} : { mode });
  return seats && seats.max >= 2 ? { min: Math.max(2, seats.min), max: seats.max } : null;
}

/** The modes of a game (its `mode` choice option) that a table of people can play: Neon
 *  Flip's classic and overdrive, Flash 8's race (solo games are for one). */
export function quickModes(game: GameInfo): string[] {
  const option = game.options.find((o) => o.name === "mode" && o.kind === "choice");
  if (!option) return [];
  return option.choices.map(String).filter((mode) => range(game, mode) !== null);
}

/** A mode's name for players: "overdrive" → "Overdrive". */
export function modeName(mode: string): string {
  return choiceLabel(mode);
}
