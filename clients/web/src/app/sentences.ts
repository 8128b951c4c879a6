/**
 * What a player is told when the server's operator (or the server itself) takes something
 * away: a room closed, a seat taken, a ban, a muted chat. Players read sentences, never codes:
 * the server's own sentence (protocol version 3's `message`, an `error`'s or `bye`'s
 * `message`) when it sent one, else one made here from the code, as a version 1 or 2 server
 * sends none.
 */

import type { Data, GameInfo, Kicked, RoomClosed } from "../protocol/messages";

/** Why a room closed, for reasons sent without a `message`. */
const CLOSED: Record<string, string> = {
  expired: "The room expired: nobody was in it.",
  abandoned: "The game was stopped: nobody was playing it any more.",
  internal_error: "The room failed on the server and closed.",
  closed_by_operator: "The server's operator closed this room.",
  gone: "This room is no longer on the server.",
};

/** Why the room closed, in a sentence. */
export function closedSentence(message: Pick<RoomClosed, "reason" | "message">): string {
  if (message.message.trim()) return message.message.trim();
  return CLOSED[message.reason] ?? "The room was closed.";
}

/**
 * Why the player lost their seat, in a sentence that says they watch now (and, during a game,
 * that a bot plays on). `playing` is whether the game had started: only the server's operator
 * can take a seat then, and a bot takes it over.
 */
export function kickedSentence(message: Pick<Kicked, "seat" | "message">, playing: boolean): string {
  const said = message.message.trim();
  const watching = "You are watching now.";
  if (said) return /watching/i.test(said) ? said : `${said} ${watching}`;
  // Seats are counted from 1 for players (seat 0 of the protocol is "seat 1").
  if (playing) return `The server's operator removed you from seat ${message.seat + 1}. A bot plays on. ${watching}`;
  return `The host freed your seat. ${watching}`;
}

/** Why the server will not let this identity or address in (the `banned` code). */
export function bannedSentence(message: string): string {
  return message.trim() || "The server's operator banned this identity or address.";
}

/** Why a chat line was refused (the `muted` code). */
export function mutedSentence(message: string): string {
  return message.trim() || "The server's operator muted you in this room's chat.";
}

/**
 * A room's options in words for its header: only those that differ from the game's defaults
 * (all of them before the catalogue is known), as "rounds 1 · teams · turn clock 30 s"; a
 * switched-off yes/no option is left out. Empty when nothing differs.
 */
export function optionsSentence(options: Data, game: GameInfo | null, turnClock: number | null): string {
  const defaults = new Map((game?.options ?? []).map((option) => [option.name, option.default]));
  const words: string[] = [];
  for (const [name, value] of Object.entries(options)) {
    if (defaults.has(name) && defaults.get(name) === value) continue;
    if (value === false) continue;
    const label = name.replace(/_/g, " ");
    words.push(value === true ? label : `${label} ${String(value).replace(/_/g, " ")}`);
  }
  if (turnClock) words.push(`turn clock ${turnClock} s`);
  return words.join(" · ");
}

/**
 * An option's sentence as the catalogue gives it, for players: the rule citations that serve
 * the rules' readers ("(decisions 7)", "rulebook 2.5.2", "(2.5.3)", "2 reproduces rulebook
 * 2.6") are left out.
 */
export function playerDoc(doc: string): string {
  return doc
    .replace(/;\s*\d+ reproduces rulebook \d+(?:\.\d+)*/gi, "")
    .replace(/\s*\((?:decisions|rulebook)\s[^)]*\)/gi, "")
    .replace(/,\s*rulebook\s\d+(?:\.\d+)*(?=\))/gi, "")
    .replace(/\s*\(\d+(?:\.\d+)+[a-z]?\)/g, "")
    .replace(/\s+([.;,])/g, "$1")
    .trim();
}
