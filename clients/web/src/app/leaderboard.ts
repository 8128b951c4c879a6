/**
 * The players' pages over the server's JSON (docs/protocol.md, "Leaderboards and history over
 * HTTP"): a game's leaderboard per rating pool (`GET /leaderboard?game=G&pool=P`), and one
 * player's ratings and recent games (`GET /ratings?user=U`, `GET /history?user=U`), each game
 * linked to its replay.
 */

import { h, replace } from "./dom";
import type { Page } from "./page";
import { changeText, ratingText } from "./rating";
import type { HighScore } from "../boards/flash8/view";
import { agoWords } from "./results";
import { routeHash } from "./router";
import type { AppState } from "./state";

/** Each game's rating pools, in the server's order (the first is the leaderboard's default),
 *  with what players call them. */
export const POOLS: Readonly<Record<string, readonly { id: string; name: string }[]>> = {
  flip_over_frog: [{ id: "standard", name: "Standard" }],
  flash8: [{ id: "race", name: "Race" }],
  neon_flip: [
    { id: "classic", name: "Classic" },
    { id: "overdrive", name: "Overdrive" },
    { id: "classic-teams", name: "Classic teams" },
    { id: "overdrive-teams", name: "Overdrive teams" },
  ],
  neon_hex: [
    { id: "2p", name: "2 players" },
    { id: "3p", name: "3 players" },
    { id: "4p", name: "4 players" },
    { id: "5p", name: "5 players" },
  ],
};

export interface LeaderboardEntry {
  name: string;
  user: string;
  rating: number;
  games: number;
  rank: number;
}

export interface HistoryEntry {
  room: string;
  game: string;
  pool: string | null;
  seat: number;
  name: string;
  rank: number;
  forfeit: boolean;
  finished: number;
  rated: boolean;
  before: number | null;
  after: number | null;
  replay: string;
}

export interface RatingEntry {
  game: string;
  pool: string;
  rating: number;
  games: number;
}

/** A pool's name for players ("Overdrive"), or its id when unknown. */
export function poolName(game: string, pool: string | null): string {
  return POOLS[game]?.find((p) => p.id === pool)?.name ?? pool ?? "";
}

/** GET a JSON answer of the server's; a refusal becomes an error with the server's sentence. */
async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { Accept: "application/json" } });
  const body = (await response.json().catch(() => null)) as (T & { error?: string }) | null;
  if (!response.ok || body === null) throw new Error(body?.error ? `The server refused: ${body.error}.` : `The server answered ${response.status}.`);
  return body;
}

/** How one finished game ended for the player, in words. */
export function resultSentence(entry: HistoryEntry, gameName: string): string {
  const place = entry.forfeit ? "left early (counted last)" : entry.rank === 1 ? "won" : `finished ${ordinal(entry.rank)}`;
  const rating = entry.rated && entry.before !== null && entry.after !== null ? `; rating ${ratingText(entry.before)} → ${ratingText(entry.after)} (${changeText(entry.before, entry.after)})` : entry.rated ? "" : "; not rated";
  return `${gameName}: ${entry.name} ${place}${rating}`;
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th";
  return `${n}${suffix}`;
}

function when(seconds: number): string {
  return new Date(seconds * 1000).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export class LeaderboardPage implements Page {
  readonly element = h("main.page.leaderboard", { "data-page": "leaderboard" });
  private readonly table = h("div.leaderboard-table", { "aria-live": "polite" });
  private readonly solo = h("div.high-scores", { "aria-live": "polite", "data-testid": "high-scores" });

  constructor(
    private readonly app: AppState,
    private readonly game: string,
    private readonly pool: string | null,
  ) {
    const games = Object.keys(POOLS);
    const pools = POOLS[game] ?? [];
    const chosen = pool ?? pools[0]?.id ?? null;
    this.element.append(
      h(
        "section.panel",
        { "aria-labelledby": "board-title" },
        h("h2#board-title", null, "Leaderboards"),
        h(
          "nav.tabs",
          { "aria-label": "Games" },
          games.map((id) => h(`a.tab${id === game ? ".current" : ""}`, { href: routeHash({ page: "leaderboard", game: id, pool: null }), "aria-current": id === game ? "page" : null }, app.gameName(id))),
        ),
        pools.length > 1
          ? h(
              "nav.tabs.pools",
              { "aria-label": "Pools" },
              pools.map((p) => h(`a.tab${p.id === chosen ? ".current" : ""}`, { href: routeHash({ page: "leaderboard", game, pool: p.id }), "aria-current": p.id === chosen ? "page" : null }, p.name)),
            )
          : null,
        h("p.muted", null, "Players with at least the server's minimum of rated games, best first. A rating starts at 0 and rises as wins make it surer."),
        this.table,
      ),
    );
    this.load();
    if (game === "flash8") {
      this.element.append(h("section.panel", { "aria-labelledby": "solo-title" }, h("h2#solo-title", null, "Flash 8 solo: high scores"), h("p.muted", null, "The fewest cards left in the reserve when the solo clock stopped; lower is better."), this.solo));
      loadHighScores(this.solo, "highscores", this.app);
    }
  }

  destroy(): void {}

  private load(): void {
    replace(this.table, h("p.muted", null, "Loading…"));
    const query = `game=${encodeURIComponent(this.game)}${this.pool ? `&pool=${encodeURIComponent(this.pool)}` : ""}`;
    getJson<{ pool: string; players: LeaderboardEntry[] }>(`leaderboard?${query}`).then(
      (answer) => {
        if (!answer.players.length) {
          replace(this.table, h("p.muted.empty", { "data-testid": "leaderboard-empty" }, `No one is on the ${this.app.gameName(this.game)} leaderboard yet.`));
          return;
        }
        replace(
          this.table,
          h(
            "table.ranks",
            { "data-testid": "leaderboard" },
            h("thead", null, h("tr", null, h("th", null, "Rank"), h("th", null, "Player"), h("th", null, "Rating"), h("th", null, "Rated games"))),
            h(
              "tbody",
              null,
              answer.players.map((entry) =>
                h(
                  `tr${entry.user === this.app.session.user ? ".me" : ""}`,
                  { "data-user": entry.user },
                  h("td", null, String(entry.rank)),
                  h("td", null, h("a", { href: routeHash({ page: "player", user: entry.user }) }, entry.name)),
                  h("td.score", null, ratingText(entry.rating)),
                  h("td.score", null, String(entry.games)),
                ),
              ),
            ),
          ),
        );
      },
      (error: unknown) => replace(this.table, h("p.error-line", { role: "alert" }, `The leaderboard is unavailable. ${error instanceof Error ? error.message : String(error)}`)),
    );
  }
}

/** `GET /highscores` (everyone's, or one account's with `?user=`) drawn into `area` as a
 *  table: place, player (linked to their page), cards left, the rank's name, when, replay. */
function loadHighScores(area: HTMLElement, path: string, app: AppState, mine = false): void {
  replace(area, h("p.muted", null, "Loading…"));
  getJson<{ high_scores: HighScore[] }>(path).then(
    (answer) => {
      if (!answer.high_scores.length) {
        replace(area, h("p.muted.empty", { "data-testid": "high-scores-empty" }, mine ? "No Flash 8 solo games yet." : "No Flash 8 solo high scores yet."));
        return;
      }
      const now = app.session.serverNow();
      replace(
        area,
        h(
          "table.ranks",
          { "data-testid": "high-score-table" },
          h("thead", null, h("tr", null, h("th", null, "#"), h("th", null, "Player"), h("th", null, "Cards left"), h("th", null, "Rank"), h("th", null, "When"), h("th", null, "Replay"))),
          h(
            "tbody",
            null,
            answer.high_scores.map((entry, index) =>
              h(
                `tr${entry.player_id && entry.player_id === app.session.user ? ".me" : ""}`,
                { "data-room": entry.room },
                h("td", null, String(index + 1)),
                h("td", null, entry.player_id ? h("a", { href: routeHash({ page: "player", user: entry.player_id }) }, entry.player) : entry.player),
                h("td.score", null, String(entry.score)),
                h("td", null, entry.rank),
                h("td.muted", null, agoWords(entry.at, now)),
                h("td", null, h("a.button.small", { href: routeHash({ page: "replay", room: entry.room, viewer: 0 }) }, "Replay")),
              ),
            ),
          ),
        ),
      );
    },
    (error: unknown) => replace(area, h("p.error-line", { role: "alert" }, `The high scores are unavailable. ${error instanceof Error ? error.message : String(error)}`)),
  );
}

export class PlayerPage implements Page {
  readonly element = h("main.page.player", { "data-page": "player" });
  private readonly ratingsArea = h("div.player-ratings");
  private readonly games = h("div.player-games", { "aria-live": "polite" });
  private readonly title = h("h2#player-title", null, "A player");
  private readonly solo = h("div.high-scores", { "aria-live": "polite", "data-testid": "player-high-scores" });

  constructor(
    private readonly app: AppState,
    private readonly user: string,
  ) {
    this.element.append(
      h("section.panel", { "aria-labelledby": "player-title" }, this.title, this.ratingsArea, h("h3", null, "Recent games"), this.games, h("h3", null, "Flash 8 solo: best scores"), this.solo),
    );
    this.load();
    loadHighScores(this.solo, `highscores?user=${encodeURIComponent(this.user)}`, this.app, true);
  }

  destroy(): void {}

  private load(): void {
    const user = encodeURIComponent(this.user);
    replace(this.games, h("p.muted", null, "Loading…"));
    getJson<{ ratings: RatingEntry[] }>(`ratings?user=${user}`).then(
      (answer) =>
        replace(
          this.ratingsArea,
          answer.ratings.length
            ? h(
                "ul.player-rating-list",
                { "data-testid": "player-ratings" },
                answer.ratings.map((r) => h("li", null, `${this.app.gameName(r.game)}${POOLS[r.game]?.length === 1 ? "" : ` (${poolName(r.game, r.pool)})`}: rating ${ratingText(r.rating)} after ${r.games} rated game${r.games === 1 ? "" : "s"}`)),
              )
            : h("p.muted", null, "No rated games yet."),
        ),
      () => replace(this.ratingsArea, h("p.muted", null, "The ratings are unavailable.")),
    );
    getJson<{ games: HistoryEntry[] }>(`history?user=${user}`).then(
      (answer) => {
        const latest = answer.games[0];
        const mine = this.user === this.app.session.user;
        this.title.textContent = mine ? "Your games" : latest ? `${latest.name}'s games` : "A player's games";
        replace(
          this.games,
          answer.games.length
            ? h(
                "ul.history",
                { "data-testid": "history" },
                answer.games.map((entry) =>
                  h(
                    "li",
                    { "data-room": entry.room },
                    h("span", null, resultSentence(entry, this.app.gameName(entry.game))),
                    h("span.muted", null, ` · ${when(entry.finished)} `),
                    h("a.button.small", { href: routeHash({ page: "replay", room: entry.room, viewer: entry.seat }) }, "Replay"),
                  ),
                ),
              )
            : h("p.muted.empty", null, "No finished games yet."),
        );
      },
      (error: unknown) => replace(this.games, h("p.error-line", { role: "alert" }, `The games are unavailable. ${error instanceof Error ? error.message : String(error)}`)),
    );
  }
}
