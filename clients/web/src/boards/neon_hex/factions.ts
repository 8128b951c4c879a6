/**
 * Faction looks. Colour is never the only signal: each seat also has its own symbol and fill
 * pattern (two seats may pick the same colour, docs/rules/neon-hex.md "Room options and
 * seats"), and its number.
 */

import type { Faction } from "./view";

/** The engine's colour names (engine/neon_hex/rules.py COLOURS) as neon screen colours. */
export const COLOURS: Record<string, string> = {
  cyan: "#29f0ff",
  magenta: "#ff3df2",
  lime: "#8dff6b",
  amber: "#ffb347",
  violet: "#a77bff",
  red: "#ff4d5e",
  blue: "#4d8bff",
  white: "#f4f1ff",
};

/** By seat: a symbol, its name and a fill pattern. */
export const SYMBOLS = ["◆", "●", "▲", "★", "■"] as const;
export const SYMBOL_NAMES = ["diamond", "circle", "triangle", "star", "square"] as const;
export const PATTERNS = ["stripes", "dots", "crosshatch", "bars", "checks"] as const;

export const SEAT_NUMBERS = ["①", "②", "③", "④", "⑤"] as const;

export function colourOf(faction: Faction | undefined): string {
  return (faction && COLOURS[faction.colour]) ?? "#cccccc";
}

export function symbolOf(seat: number): string {
  return SYMBOLS[seat % SYMBOLS.length]!;
}

export function capital(word: string): string {
  return word ? word[0]!.toUpperCase() + word.slice(1) : word;
}

/** A faction's display name: the room's seat name, else the engine's. */
export function nameOf(seat: number, factions: readonly Faction[], seatNames: readonly string[]): string {
  return seatNames[seat] || factions[seat]?.name || `Faction ${seat + 1}`;
}
