/**
 * Drawing Flip Over Frog tiles. Every colour has a symbol and a pattern as well as its hue
 * (◆ red, ● blue, ▲ green, ★ yellow), so tiles read without colour; arrows are drawn on the
 * edges (orthogonal frogs) or the corners (diagonal frogs); a snake is a drawn snake; a back
 * is plain, as at the table.
 */

import { h, svg } from "../../app/dom";

/** The board is SIZE × SIZE spaces, numbered row by row from the top left. */
export const SIZE = 4;

/** A visible face as views give it: a frog, a snake, or a plain back. */
export interface Face {
  id?: string;
  kind: "frog" | "snake" | "back";
  colour?: string;
  arrows?: "orthogonal" | "diagonal";
}

export const COLOURS: Record<string, { symbol: string; name: string }> = {
  red: { symbol: "◆", name: "Red" },
  blue: { symbol: "●", name: "Blue" },
  green: { symbol: "▲", name: "Green" },
  yellow: { symbol: "★", name: "Yellow" },
};

export function colourName(colour: string): string {
  return COLOURS[colour]?.name ?? colour;
}

/** Words for a face, for screen readers and titles. */
export function describeTile(face: Face): string {
  if (face.kind === "back") return "a face-down tile";
  if (face.kind === "snake") return `snake ${face.id ?? ""}`.trim();
  return `${colourName(face.colour ?? "")} frog ${face.id ?? ""} with ${face.arrows === "diagonal" ? "diagonal" : "straight"} arrows`;
}

const ORTHOGONAL = ["up", "right", "down", "left"];
const DIAGONAL = ["up-left", "up-right", "down-right", "down-left"];

function frogArt(): SVGElement {
  return svg(
    "svg",
    { viewBox: "0 0 40 32", class: "fof-frog-art", "aria-hidden": "true" },
    svg("ellipse", { cx: 20, cy: 20, rx: 15, ry: 10 }),
    svg("circle", { cx: 11, cy: 10, r: 5 }),
    svg("circle", { cx: 29, cy: 10, r: 5 }),
    svg("circle", { cx: 11, cy: 10, r: 2, class: "pupil" }),
    svg("circle", { cx: 29, cy: 10, r: 2, class: "pupil" }),
    svg("path", { d: "M12 22 Q20 28 28 22", class: "mouth" }),
  );
}

function snakeArt(): SVGElement {
  return svg(
    "svg",
    { viewBox: "0 0 40 32", class: "fof-snake-art", "aria-hidden": "true" },
    svg("path", { d: "M4 24 C10 10, 16 30, 22 16 S 32 6, 34 12", class: "body" }),
    svg("circle", { cx: 34, cy: 12, r: 3.2, class: "head" }),
    svg("path", { d: "M37 12 l3 -1.5 M37 12 l3 1.5", class: "tongue" }),
  );
}

/** One tile; `remembered` is the face id a back is known to hide; `mini` for the discards. */
export function tileElement(face: Face, remembered?: string, mini = false): HTMLElement {
  const size = mini ? ".mini" : "";
  if (face.kind === "back") {
    return h(`span.fof-tile.back${size}`, { title: remembered ? `Face down (you saw ${remembered})` : "Face down" }, remembered ? h("span.fof-memory", null, remembered) : null);
  }
  if (face.kind === "snake") {
    return h(`span.fof-tile.snake${size}`, { title: describeTile(face) }, snakeArt(), h("span.fof-id", null, face.id ?? ""));
  }
  const colour = face.colour ?? "";
  const arrows = face.arrows === "diagonal" ? DIAGONAL : ORTHOGONAL;
  return h(
    `span.fof-tile.frog.c-${colour}.arrows-${face.arrows ?? "orthogonal"}${size}`,
    { title: describeTile(face), "data-tile": face.id },
    frogArt(),
    h("span.fof-symbol", { "aria-hidden": "true" }, COLOURS[colour]?.symbol ?? ""),
    h("span.fof-id", null, face.id ?? ""),
    mini ? null : arrows.map((direction) => h(`span.fof-arrow.to-${direction}`, { "aria-hidden": "true" })),
  );
}
