/**
 * Hex geometry for drawing and keyboard moves (docs/rules/neon-hex.md, "The board"): axial
 * `(q, r)` per hex id as the view lists them, pointy-top hexes, and the fixed direction order
 * east, north-east, north-west, west, south-west, south-east.
 */

export const DIRECTIONS: readonly (readonly [number, number])[] = [
  [1, 0],
  [1, -1],
  [0, -1],
  [-1, 0],
  [-1, 1],
  [0, 1],
];
export const DIRECTION_NAMES = ["east", "north-east", "north-west", "west", "south-west", "south-east"] as const;

/** The hex size (centre to corner) in SVG units. */
export const SIZE = 10;
const ROOT3 = Math.sqrt(3);

export interface Point {
  x: number;
  y: number;
}

export interface Layout {
  hexes: readonly (readonly [number, number])[];
  centres: Point[];
  /** Neighbours of each hex in direction order (-1 where off the board). */
  neighbours: number[][];
  /** Human names: row letter (top row A) and place in the row from the left, e.g. "C4". */
  names: string[];
  viewBox: string;
}

export function buildLayout(hexes: readonly (readonly [number, number])[]): Layout {
  const index = new Map(hexes.map(([q, r], id) => [`${q},${r}`, id]));
  const centres = hexes.map(([q, r]) => ({ x: SIZE * ROOT3 * (q + r / 2), y: SIZE * 1.5 * r }));
  const neighbours = hexes.map(([q, r]) => DIRECTIONS.map(([dq, dr]) => index.get(`${q + dq},${r + dr}`) ?? -1));
  const rows = [...new Set(hexes.map(([, r]) => r))].sort((a, b) => a - b);
  const names = hexes.map(([q, r]) => {
    const place = hexes.filter(([q2, r2]) => r2 === r && q2 <= q).length;
    return `${String.fromCharCode(65 + rows.indexOf(r))}${place}`;
  });
  const xs = centres.map((c) => c.x);
  const ys = centres.map((c) => c.y);
  const pad = SIZE * 1.4;
  const minX = Math.min(...xs) - pad;
  const minY = Math.min(...ys) - pad;
  const width = Math.max(...xs) - Math.min(...xs) + 2 * pad;
  const height = Math.max(...ys) - Math.min(...ys) + 2 * pad;
  return { hexes, centres, neighbours, names, viewBox: `${r2(minX)} ${r2(minY)} ${r2(width)} ${r2(height)}` };
}

function r2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** The corners of a pointy-top hex around a centre, as an SVG `points` list. */
export function hexPoints(centre: Point, size = SIZE): string {
  const out: string[] = [];
  for (let k = 0; k < 6; k++) {
    const angle = (Math.PI / 180) * (60 * k - 30);
    out.push(`${r2(centre.x + size * Math.cos(angle))},${r2(centre.y + size * Math.sin(angle))}`);
  }
  return out.join(" ");
}

/** The direction (0-5) from hex `from` to its neighbour `to`, or -1. */
export function directionOf(layout: Layout, from: number, to: number): number {
  return layout.neighbours[from]?.indexOf(to) ?? -1;
}

/**
 * The hex an arrow key moves to from `from`, or null at the edge: left / right along the row,
 * up to the north-west neighbour (else north-east), down to the south-east (else south-west),
 * so up then down comes back.
 */
export function arrowStep(layout: Layout, from: number, key: string): number | null {
  const n = layout.neighbours[from];
  if (!n) return null;
  const pick = (...dirs: number[]) => {
    for (const d of dirs) if (n[d]! >= 0) return n[d]!;
    return null;
  };
  switch (key) {
    case "ArrowRight":
      return pick(0);
    case "ArrowLeft":
      return pick(3);
    case "ArrowUp":
      return pick(2, 1);
    case "ArrowDown":
      return pick(5, 4);
    default:
      return null;
  }
}
