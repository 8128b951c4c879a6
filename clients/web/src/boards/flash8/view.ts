/**
 * The shapes of Flash 8's views, as `engine/flash8/race.py` and `engine/flash8/solo.py` build
 * them (`view()`), plus the `outcome` that `engine/flash8/rules.py` adds once the game is over.
 * See docs/rules/flash8.md, "Views". Times are room seconds on the server's clock.
 *
 * Cells are 0-8, `row * 3 + column`, row 0 the owner's far edge, column 0 their left. A tablet
 * is a 9-character string (`B Y R V G` electrons, `.` a free space); a card pattern the same
 * with `-` for a blank cell that may hold anything.
 */

/** An electron colour letter. */
export type Colour = "B" | "Y" | "R" | "V" | "G";
/** A solo card's shape. */
export type Shape = "circle" | "cross" | "star" | "square";

/** The viewer's last hint (race: `target` is a stack; solo: a line). */
export interface HintInfo {
  target: number;
  slides: number;
  src: number | null;
  dst: number | null;
  at: number;
}

/** One seat, in both modes; the race adds points, cards and late claims. */
export interface SeatView {
  seat: number;
  side: string;
  tablet: string;
  handicap: boolean;
  slides: number;
  misses: number;
  locked_until: number | null;
  hint: HintInfo | null;
  points?: number;
  cards?: string[];
  late?: number;
}

/** How a finished game ended (`outcome_to_wire`); `details` is the mode's report. */
export interface OutcomeView {
  ranks: number[];
  scores: number[];
  winners: number[];
  reason: string;
  tiebreak: string | null;
  details: Record<string, unknown>;
}

/** Fields both modes share. */
export interface BaseView {
  game: "flash8";
  seat: number | null;
  frame: { side: string } & Record<string, string>;
  phase: "waiting" | "countdown" | "running" | "over";
  starts_at: number | null;
  started_at: number | null;
  ends_at: number | null;
  ended_at: number | null;
  lockout: number;
  hints: boolean;
  seats: SeatView[];
  outcome?: OutcomeView;
}

/** A stack's visible top card, its pattern already turned to the viewer's side. */
export interface TopCard {
  card: string;
  pattern: string;
  points: number;
  electrons: number;
}

export interface StackView {
  stack: number;
  size: number;
  top: TopCard | null;
  revealed_at: number | null;
}

export interface TakeView {
  card: string;
  seat: number;
  stack: number;
  at: number;
  took: number;
  slides: number;
  optimal: number;
  points: number;
}

export interface RaceView extends BaseView {
  mode: "race";
  same_start: boolean;
  stacks: StackView[];
  takes: TakeView[];
}

/** The race report in `outcome.details.players`. */
export interface RacePlayerReport {
  seat: number;
  side: string;
  points: number;
  cards: number;
  slides: number;
  slides_on_cards: number;
  optimal_on_cards: number;
  extra_slides: number;
  misses: number;
  late: number;
  hints: number;
}

/** One take in `outcome.details.cards`. */
export interface RaceCardReport {
  card: string;
  seat: number;
  stack: number;
  at: number;
  took: number;
  slides: number;
  optimal: number;
}

export interface GridCard {
  cell: number;
  card: string;
  colour: Colour;
  shape: Shape;
  depth: number;
}

export interface LineView {
  line: number;
  name: string;
  cells: number[];
  colours: string;
  possible: boolean;
}

export interface ClaimView {
  line: number;
  shape: Shape;
  covered: number[];
  at: number;
  took: number;
  slides: number;
  optimal: number;
}

export interface SoloView extends BaseView {
  mode: "solo";
  grid: GridCard[];
  lines: LineView[];
  token: number | null;
  reserve: { size: number; top: { card: string; colour: Colour; shape: Shape } | null };
  claims: ClaimView[];
  score: number;
  rank: string;
}

export type Flash8View = RaceView | SoloView;

/** One row of `GET /highscores` (`server/store.py`, `high_scores`). */
export interface HighScore {
  player: string;
  score: number;
  rank: string;
  room: string;
  at: number;
  /** The user id of the player who scored it (an account's, or a guest's). */
  player_id?: string | null;
}
