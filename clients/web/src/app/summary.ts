/**
 * The end-of-game summary: every seat's rank and score, why the game ended, the rule that
 * broke a tie, the game's details (team scores, Flash 8's solver report...), and the fair
 * randomness reveal: seed, salt and the commitment published at creation, checked here
 * (SHA-256 of salt ‖ seed, docs/protocol.md "Fair randomness") when the browser allows it.
 *
 * The reveal comes in `game_over`. A page that arrives after the end (a reload, a late
 * spectator) did not get it; it then reads the finished game's log (`/rooms/<id>/log`).
 */

import type { Data, GameOver, OutcomeInfo, RatingChange, RoomSummary } from "../protocol/messages";
import { h } from "./dom";
import { fetchLog, type LogAccess } from "./logs";
import { seatGlyph } from "./lobby";
import { changeText, ratingText } from "./rating";
import { seatLabel } from "./state";

export interface Reveal {
  seed: string;
  salt: string;
  commitment: string;
}

/** Milliseconds a summary drawn without `game_over` waits for it before reading the log. */
export const REVEAL_WAIT_MS = 1500;

/** The reveal of a finished game, from `game_over` or the downloadable log. */
export async function fetchReveal(room: string, access: LogAccess): Promise<Reveal | null> {
  try {
    const response = await fetchLog(room, access);
    if (!response.ok) return null;
    const log = (await response.json()) as Record<string, unknown>;
    if (typeof log.seed !== "string" || typeof log.salt !== "string" || typeof log.commitment !== "string") return null;
    return { seed: log.seed, salt: log.salt, commitment: log.commitment };
  } catch {
    return null;
  }
}

/** Whether sha256(salt ‖ seed) is the commitment; null when the browser cannot hash here. */
export async function verifyReveal(reveal: Reveal): Promise<boolean | null> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  const bytes = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
  const salt = bytes(reveal.salt);
  const seed = bytes(reveal.seed);
  const joined = new Uint8Array(salt.length + seed.length);
  joined.set(salt);
  joined.set(seed, salt.length);
  const digest = new Uint8Array(await subtle.digest("SHA-256", joined));
  const hex = Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return hex === reveal.commitment.toLowerCase();
}

/** The outcome a view carries once over (games put it under `outcome`), if any. */
export function outcomeFromView(view: Data | null): OutcomeInfo | null {
  const outcome = view?.outcome as Partial<OutcomeInfo> | undefined;
  if (!outcome || !Array.isArray(outcome.ranks) || !Array.isArray(outcome.scores)) return null;
  return {
    ranks: outcome.ranks,
    scores: outcome.scores,
    winners: outcome.winners ?? outcome.ranks.flatMap((rank, seat) => (rank === 1 ? [seat] : [])),
    reason: outcome.reason ?? "over",
    tiebreak: outcome.tiebreak ?? null,
    details: outcome.details ?? {},
  };
}

/** Words for a snake_case code: `board_full` → "board full". */
export function words(code: string): string {
  return code.replace(/_/g, " ");
}

/** How a game ended, in a sentence, by the outcome's `reason` (the protocol's id). */
const ENDINGS: Record<string, string> = {
  board_full: "The board is full.",
  tiles_exhausted: "No tiles are left to play.",
  twelve_hexes: "A faction reached 12 hexes.",
  stalled: "A full round passed without a claim.",
  stacks_empty: "Every stack is empty.",
  time_up: "Time is up.",
  reserve_empty: "The reserve is empty.",
  dead_end: "No line can be reproduced any more.",
  rounds: "The last checkpoint was counted.",
  fifty: "A side reached 50 VP at a checkpoint.",
  overdrive: "A side held two thirds of the grid.",
  clock: "The game clock ran out.",
  wiped: "PROTO-ZERO was wiped from the grid.",
  ai_deck_spent: "PROTO-ZERO's deck is spent.",
};

/** The sentence for an outcome's `reason`; an unknown id in words, as a sentence. */
export function endingSentence(reason: string): string {
  const known = ENDINGS[reason];
  if (known) return known;
  const text = words(reason);
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** Keys whose numbers are moments (server time, seconds since the epoch). */
const MOMENT_KEYS = /^(at|started|finished|ended|revealed)$|_at$/;
/** Keys whose numbers are lengths of time in seconds. */
const DURATION_KEYS = /^(took|duration|seconds|behind|elapsed|lockout|time_limit|countdown)$|_seconds$/;

/** Seconds as a length of time in words: "0.8 s", "42 s", "3 min 20 s", "1 h 5 min". */
export function durationWords(seconds: number): string {
  if (!Number.isFinite(seconds)) return "—";
  const s = Math.max(0, seconds);
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 60) return `${Math.round(s)} s`;
  const whole = Math.round(s);
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = whole % 60;
  if (hours) return minutes ? `${hours} h ${minutes} min` : `${hours} h`;
  return rest ? `${minutes} min ${rest} s` : `${minutes} min`;
}

/** A moment (seconds since the epoch) as a clock time: "14:03:12". */
export function clockWords(moment: number): string {
  return new Date(moment * 1000).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

/** A number of `details` in words by what its key says it is: a moment as a clock time, a
 *  length of time as a duration, anything else as it is (two decimals at most). */
function numberWords(value: number, key: string | null): string {
  if (key !== null && MOMENT_KEYS.test(key) && value > 1e8) return clockWords(value);
  if (key !== null && DURATION_KEYS.test(key)) return durationWords(value);
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

/** Any JSON-like value as nested definition lists / lists (for `details`); numbers under a
 *  key that names a moment or a length of time are said as clock times and durations, never
 *  as raw epoch seconds. */
export function renderData(value: unknown, depth = 0, key: string | null = null): HTMLElement | string {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) {
    if (value.every((item) => item === null || typeof item !== "object")) return value.map((item) => (item === null ? "—" : typeof item === "number" ? numberWords(item, key) : String(item))).join(", ");
    if (depth > 4) return JSON.stringify(value);
    return h("ol.data-list", null, value.map((item) => h("li", null, renderData(item, depth + 1, key))));
  }
  if (typeof value === "object") {
    if (depth > 4) return JSON.stringify(value);
    return h(
      "dl.data-map",
      null,
      Object.entries(value as Data).map(([name, item]) => [h("dt", null, words(name)), h("dd", null, renderData(item, depth + 1, name))]),
    );
  }
  if (typeof value === "number") return numberWords(value, key);
  return String(value);
}

/** The summary panel; the reveal check fills in when it completes. */
export function renderSummary(outcome: OutcomeInfo, summary: RoomSummary | null, over: GameOver | null, mySeat: number | null, room: string, access: LogAccess): HTMLElement {
  const seats = outcome.ranks.map((rank, seat) => ({ seat, rank, score: outcome.scores[seat] ?? 0 }));
  seats.sort((a, b) => a.rank - b.rank || a.seat - b.seat);
  const name = (seat: number) => {
    const info = summary?.seats[seat];
    return info ? seatLabel(seat, info.name, info.kind, info.bot) : `Seat ${seat + 1}`;
  };
  const headline =
    mySeat === null
      ? `${outcome.winners.map(name).join(" and ")} ${outcome.winners.length > 1 ? "share the victory" : "wins"}`
      : outcome.winners.includes(mySeat)
        ? outcome.winners.length > 1
          ? "You share the victory!"
          : "You win!"
        : `You finish ${ordinal(outcome.ranks[mySeat] ?? 0)}`;
  const fairness = h("section.fairness", { "aria-label": "Fair randomness" }, h("h4", null, "Seed reveal"), h("p.muted", null, "Loading the reveal…"));
  const fill = (reveal: Reveal | null) => {
    fairness.replaceChildren(h("h4", null, "Seed reveal"));
    if (!reveal) {
      fairness.append(h("p.muted", null, "The reveal is not available for this game."));
      return;
    }
    const verdict = h("p.verdict", { "data-testid": "verdict" }, "Checking the commitment…");
    fairness.append(
      h(
        "dl.reveal",
        null,
        h("dt", null, "seed"),
        h("dd", null, h("code", null, reveal.seed)),
        h("dt", null, "salt"),
        h("dd", null, h("code", null, reveal.salt)),
        h("dt", null, "commitment"),
        h("dd", null, h("code", null, reveal.commitment)),
      ),
      verdict,
    );
    verifyReveal(reveal)
      .then((ok) => {
        verdict.textContent =
          ok === null
            ? "This page cannot hash here (not a secure context); check with `lumin verify`."
            : ok
              ? "✓ sha256(salt ‖ seed) matches the commitment published when the room was created."
              : "✗ The seed does NOT match the commitment.";
        verdict.className = `verdict ${ok === false ? "bad" : ok ? "good" : ""}`;
      })
      .catch(() => (verdict.textContent = "The check failed to run."));
  };
  if (over) fill({ seed: over.seed, salt: over.salt, commitment: over.commitment });
  else
    // A live page drew this from the final view: `game_over`, with the reveal, is on its way
    // and redraws the summary. Ask the log only if it has not come by then (a page opened
    // after the end), so the request never reaches a store that has not the game as finished.
    setTimeout(() => {
      if (fairness.isConnected) fetchReveal(room, access).then(fill, () => fill(null));
    }, REVEAL_WAIT_MS);

  // The game's raw figures are for the curious: folded (a board draws its own report).
  const details = outcome.details && Object.keys(outcome.details).length ? h("details.details", null, h("summary", null, "All the figures"), renderData(outcome.details)) : null;
  return h(
    "section.panel.summary",
    { "data-testid": "summary", "aria-labelledby": "summary-title" },
    h("h3#summary-title", null, "Game over — ", headline),
    h(
      "table.ranks",
      null,
      h("thead", null, h("tr", null, h("th", null, "Rank"), h("th", null, "Player"), h("th", null, "Score"))),
      h(
        "tbody",
        null,
        seats.map((row) =>
          h(
            `tr.rank-${row.rank}${row.seat === mySeat ? ".me" : ""}`,
            { "data-seat": row.seat },
            h("td", null, row.rank === 1 ? "♛ 1" : String(row.rank)),
            h("td", null, `${seatGlyph(row.seat)} ${name(row.seat)}${row.seat === mySeat ? " (you)" : ""}`),
            h("td.score", null, renderData(row.score)),
          ),
        ),
      ),
    ),
    h("p", { "data-testid": "ending" }, endingSentence(outcome.reason), outcome.tiebreak ? [h("br"), h("strong", null, "Tie broken by: "), words(outcome.tiebreak)] : null),
    details,
    fairness,
  );
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th";
  return `${n}${suffix}`;
}

/** A rated game's rating changes (`ratings_changed`): each player's old and new rating and
 *  the change, the viewer's own first. */
export function renderRatings(changes: readonly RatingChange[], mySeat: number | null): HTMLElement {
  const mine = changes.find((change) => change.seat === mySeat);
  const rows = [...changes].sort((a, b) => Number(b.seat === mySeat) - Number(a.seat === mySeat) || a.seat - b.seat);
  return h(
    "section.panel.ratings",
    { "data-testid": "ratings", "aria-labelledby": "ratings-title" },
    h("h3#ratings-title", null, "Ratings"),
    h(
      "ul.rating-changes",
      null,
      rows.map((change) => {
        const delta = change.after - change.before;
        const own = change === mine;
        return h(
          `li${own ? ".me" : ""}`,
          { "data-seat": change.seat, "data-testid": own ? "my-rating" : "rating-change" },
          `${seatGlyph(change.seat)} ${own ? "Your rating" : change.name}: ${ratingText(change.before)} → ${ratingText(change.after)} `,
          h(`span.rating-change.${delta > 0.05 ? "up" : delta < -0.05 ? "down" : "same"}`, null, `(${changeText(change.before, change.after)})`),
          h("span.muted", null, ` after ${change.games} rated game${change.games === 1 ? "" : "s"}`),
        );
      }),
    ),
    mine ? h("a.help-link", { href: `#/player/${encodeURIComponent(mine.user)}`, "data-testid": "my-games" }, "Your recent games") : null,
  );
}
