/**
 * A finished game's result as the lobby lists it (protocol version 6's `RoomSummary.result`),
 * in words: "Ada won · 34–28 · 2 h ago". Names come from the summary's seats (never ids), the
 * scores in seat order, and the time is said relative to the server clock.
 */

import type { RoomSummary } from "../protocol/messages";
import { seatLabel } from "./state";

/** How long ago `then` was at `now` (server seconds), in a few words. */
export function agoWords(then: number, now: number): string {
  const seconds = Math.max(0, now - then);
  if (seconds < 60) return "just now";
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  return days === 1 ? "yesterday" : `${days} days ago`;
}

/** "Ada", "Ada and Bo", "Ada, Bo and Cy". */
function listWords(names: string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

function scoreText(score: number): string {
  return Number.isInteger(score) ? String(score) : score.toFixed(1);
}

/**
 * Who won, the scores and when, e.g. "Ada won · 34–28 · 2 h ago"; "Ada and Bo shared the win";
 * a lost Neon Flip solo "PROTO-ZERO won"; a Flash 8 solo "Ada finished with 12 left". Null for
 * a summary without a result (a server older than version 6, or a game finished before the
 * server kept results).
 */
export function resultLine(room: RoomSummary, now: number): string | null {
  const result = room.result;
  if (!result) return null;
  const name = (seat: number): string => {
    const info = room.seats[seat];
    return info ? seatLabel(seat, info.name, info.kind, info.bot) : `Seat ${seat + 1}`;
  };
  const solo = room.seats.length === 1;
  let who: string;
  if (solo && room.game === "flash8") who = `${name(0)} finished${result.scores.length ? ` with ${scoreText(result.scores[0]!)} left` : ""}`;
  else if (result.winners.length === 0) who = solo && room.game === "neon_flip" ? `PROTO-ZERO beat ${name(0)}` : `${listWords(room.seats.map((_, n) => name(n)))} lost`;
  else if (result.winners.length === 1) who = `${name(result.winners[0]!)} won`;
  else if (result.winners.length === room.seats.length) who = `${listWords(result.winners.map(name))} tied`;
  else who = `${listWords(result.winners.map(name))} shared the win`;
  const parts = [who];
  if (result.scores.length && !(solo && room.game === "flash8")) parts.push(result.scores.map(scoreText).join("–"));
  parts.push(agoWords(result.finished, now));
  return parts.join(" · ");
}
