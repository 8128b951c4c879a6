/**
 * The Neon Flip view as the engine sends it (engine/neon_flip/rules.py `view`, docs/rules/
 * neon-flip.md "Views"), the colours with their symbols, the card kinds in words, and the
 * grid's geometry (slots 1-36 row by row from the top left).
 */

export type Colour = "cyan" | "pink" | "green" | "yellow";

export interface Card {
  id: string;
  kind: string;
  name: string;
  cost: number;
}

export interface Objective {
  id: string;
  name: string;
}

export interface PlayerView {
  seat: number;
  colour: Colour;
  team: number;
  energy: number;
  vp: number;
  tiles: number;
  hand: number;
  locks: number[];
  longest_chain: number;
  drain_next: number;
  objective_chosen: boolean;
  objective?: string;
}

export interface PendingCascade {
  seat: number;
  from: number[];
  made: number;
  limit: number;
  choices: number[];
}

export interface AiCard {
  id: string;
  pattern: string;
  target: number;
}

export interface Tally {
  seat: number;
  vp: number;
  circuits: number;
  objective: string;
  objective_met: boolean;
  objective_points: number;
  surplus: number;
  total: number;
}

export interface Outcome {
  ranks: number[];
  scores: number[];
  winners: number[];
  reason: string;
  tiebreak: string | null;
  details: {
    turns?: number;
    checkpoints?: number;
    tallies?: Tally[];
    team_scores?: number[];
    winner?: string;
    ai_cards_played?: number;
    pink_left?: number;
  };
}

export interface NeonFlipView {
  mode: "classic" | "overdrive" | "solo";
  teams: boolean;
  obstacles: boolean;
  rounds: number;
  seats: number;
  board: Colour[];
  locks: { slot: number; seat: number }[];
  players: PlayerView[];
  phase: "objectives" | "main" | "discard" | "over";
  turn: number | null;
  turns: number;
  surcharge: number;
  manual_flips_left: number;
  market: (Card | null)[];
  discard: Card[];
  draw_pile: number;
  round_over: boolean;
  checkpoints: number;
  threshold: number | null;
  pending_cascade: PendingCascade | null;
  clock?: { minutes: number; started: number | null; deadline: number | null; expired: boolean };
  proto_zero?: { colour: Colour; energy: number; drained: number; cards_left: number; played: AiCard[] };
  you?: { seat: number; colour: Colour; hand: Card[]; objective: Objective | null; offers: Objective[] };
  outcome?: Outcome;
}

export function isNeonFlipView(view: unknown): view is NeonFlipView {
  if (typeof view !== "object" || view === null) return false;
  const v = view as Partial<NeonFlipView>;
  return Array.isArray(v.board) && v.board.length === CELLS && Array.isArray(v.players);
}

export const SIZE = 6;
export const CELLS = SIZE * SIZE;

/** Each colour's name, symbol and the pattern class drawn on its tiles (never colour alone). */
export const COLOURS: Record<Colour, { name: string; symbol: string }> = {
  cyan: { name: "Cyber Cyan", symbol: "◆" },
  pink: { name: "Electric Pink", symbol: "●" },
  green: { name: "Laser Green", symbol: "▲" },
  yellow: { name: "Solar Yellow", symbol: "★" },
};

export function colourName(colour: string): string {
  return COLOURS[colour as Colour]?.name ?? colour;
}

export function symbolOf(colour: string): string {
  return COLOURS[colour as Colour]?.symbol ?? "?";
}

/** Seat numbers as drawn everywhere (①②③④). */
export function seatMark(seat: number): string {
  return seat >= 0 && seat < 10 ? String.fromCodePoint(0x2460 + seat) : `#${seat + 1}`;
}

/** The card kinds in words (docs/rules/neon-flip.md, the Protocol deck) and a glyph each. */
export const KINDS: Record<string, { glyph: string; text: string }> = {
  single_flip: { glyph: "▪", text: "Flip one tile." },
  cross_flip: { glyph: "✚", text: "Flip a tile and its orthogonal neighbours." },
  diagonal_x: { glyph: "✖", text: "Flip a tile and its diagonal neighbours." },
  linear_sweep: { glyph: "☰", text: "Flip a whole row or column." },
  perimeter_ring: { glyph: "▢", text: "Flip the tiles around a target, not the target." },
  node_swap: { glyph: "⇄", text: "Swap two tiles; nothing flips." },
  node_shift: { glyph: "⇉", text: "Slide a row or column one slot, wrapping; nothing flips." },
  cascade_surge: { glyph: "↯", text: "Start a cascade from a tile of your colour." },
  power_surge: { glyph: "⚡", text: "Gain 2 Energy." },
  overclock: { glyph: "⟳", text: "Draw 2 cards." },
  system_drain: { glyph: "⊘", text: "An opponent's next turn costs 1 more per play." },
  grid_overcharge: { glyph: "▦", text: "Flip a whole 3 × 3 block." },
  overcharge_loop: { glyph: "◎", text: "Flip the 3 × 3 block around a tile, wrapping around the edges." },
  chain_reactor: { glyph: "☢", text: "A Cross Flip whose cascade may run to 6 flips." },
  mainframe_hijack: { glyph: "⊕", text: "Flip an opponent colour's tiles in a row and a column." },
};

export function rowOf(slot: number): number {
  return Math.floor((slot - 1) / SIZE) + 1;
}

export function columnOf(slot: number): number {
  return ((slot - 1) % SIZE) + 1;
}

export function slotAt(row: number, column: number): number | null {
  return row >= 1 && row <= SIZE && column >= 1 && column <= SIZE ? (row - 1) * SIZE + column : null;
}

/** The slots a PROTO-ZERO card covers (cross, diagonal, ring around `target`; row or column
 *  `target`), for drawing its play; the server's board says what actually changed. */
export function aiCardSlots(card: AiCard): number[] {
  if (card.pattern === "row" || card.pattern === "column") {
    const out: number[] = [];
    for (let i = 1; i <= SIZE; i++) out.push(card.pattern === "row" ? slotAt(card.target, i)! : slotAt(i, card.target)!);
    return out;
  }
  const row = rowOf(card.target);
  const column = columnOf(card.target);
  const offsets: [number, number][] =
    card.pattern === "cross"
      ? [[0, 0], [-1, 0], [1, 0], [0, -1], [0, 1]]
      : card.pattern === "diagonal"
        ? [[0, 0], [-1, -1], [-1, 1], [1, -1], [1, 1]]
        : [[-1, -1], [-1, 0], [-1, 1], [0, -1], [0, 1], [1, -1], [1, 0], [1, 1]];
  const out: number[] = [];
  for (const [dr, dc] of offsets) {
    const slot = slotAt(row + dr, column + dc);
    if (slot !== null) out.push(slot);
  }
  return out.sort((a, b) => a - b);
}

/** Words for a PROTO-ZERO card. */
export function describeAiCard(card: AiCard): string {
  if (card.pattern === "row" || card.pattern === "column") return `${card.pattern} ${card.target} sweep`;
  const name = card.pattern === "diagonal" ? "Diagonal X" : card.pattern === "ring" ? "Perimeter Ring" : "Cross";
  return `${name} on slot ${card.target}`;
}

/** The slots whose colour differs between two boards. */
export function changedSlots(before: readonly string[], after: readonly string[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < CELLS; i++) if (before[i] !== after[i]) out.push(i + 1);
  return out;
}

export const REASONS: Record<string, string> = {
  rounds: "The last checkpoint was counted.",
  fifty: "A side reached 50 VP at a checkpoint.",
  overdrive: "A side held two thirds of the grid (Overdrive).",
  clock: "Overdrive's clock ran out.",
  wiped: "No Pink tile is left: PROTO-ZERO is wiped from the grid.",
  ai_deck_spent: "PROTO-ZERO's deck is spent.",
};

/** What each secret objective asks, in a sentence (decisions 10), by its id. */
export const OBJECTIVE_TEXT: Record<string, string> = {
  corner_control: "All four corners in your colour.",
  diagonal_link: "A diagonal line of 4 or more tiles of your colour.",
  core_access: "The four centre tiles in your colour.",
  full_row: "A whole row in your colour.",
  full_column: "A whole column in your colour.",
  perimeter_hold: "At least 12 of the 20 edge tiles in your colour.",
  twin_circuits: "Two straight lines of 4 of your colour that share no tile.",
  sector_lord: "A 3 × 3 block all in your colour.",
  spread_network: "At least 3 of your tiles in every row (2 with 3 or 4 players).",
  pillar_network: "At least 3 of your tiles in every column (2 with 3 or 4 players).",
  quadrant_sweep: "More tiles of your colour than of any other in each 3 × 3 quarter.",
  anchor_pair: "Both corners and the two middle tiles of one edge in your colour.",
};
