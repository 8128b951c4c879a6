/**
 * The Neon Hex view as the engine sends it (`engine/neon_hex/rules.py`, `NeonHex.view`;
 * docs/rules/neon-hex.md, "Views"). Nothing is hidden: every viewer sees the same table.
 */

export interface Faction {
  seat: number;
  name: string;
  role: string;
  colour: string;
  corner: number;
  /** The faction's corner hex id. */
  home: number;
  energy: number;
  hexes: number;
  /** What its next turn would produce. */
  income: number;
}

export interface Roll {
  seat: number;
  target: number;
  dice: number[];
  total: number;
  success: boolean;
}

export interface Outcome {
  ranks: number[];
  scores: number[];
  winners?: number[];
  reason: string;
  details?: { turns?: number; rounds?: number };
}

export interface NeonHexView {
  game: "neon_hex";
  you: number | null;
  board: { radius: number; hexes: [number, number][] };
  /** Seat or null (neutral) per hex id. */
  owners: (number | null)[];
  factions: Faction[];
  /** The faction to move; null once over. */
  current: number | null;
  turn: number;
  claimed_this_turn: boolean;
  quiet_turns: number;
  last_roll: Roll | null;
  win_hexes: number;
  risk_odds: [number, number];
  outcome?: Outcome;
}

export function isNeonHexView(view: unknown): view is NeonHexView {
  if (typeof view !== "object" || view === null) return false;
  const v = view as Partial<NeonHexView>;
  return Array.isArray(v.owners) && Array.isArray(v.factions) && Array.isArray(v.board?.hexes);
}

/** The winners of an outcome (rank 1). */
export function winnersOf(outcome: Outcome): number[] {
  return outcome.winners ?? outcome.ranks.flatMap((rank, seat) => (rank === 1 ? [seat] : []));
}
