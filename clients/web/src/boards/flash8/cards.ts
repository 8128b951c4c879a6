/**
 * Drawing Flash 8 cards: a race card's multiplayer face (a 3 x 3 pattern, already turned to the
 * viewer's side by the server) and a solo card's face (one electron inside a shape).
 */

import { h } from "./dom";
import { COLOUR_NAMES, electron, isColour, shapeOutline } from "./electrons";
import type { Colour, Shape, TopCard } from "./view";

/** A sentence describing a pattern row by row, for screen readers. */
export function describePattern(pattern: string): string {
  const rows: string[] = [];
  for (let row = 0; row < 3; row++) {
    const cells: string[] = [];
    for (let col = 0; col < 3; col++) {
      const item = pattern[row * 3 + col] ?? "-";
      cells.push(isColour(item) ? COLOUR_NAMES[item] : "any");
    }
    rows.push(`row ${row + 1}: ${cells.join(", ")}`);
  }
  return rows.join("; ");
}

/** A race card's face: its pattern (blank cells dimmed), id and stars (two for 2 points). */
export function raceCard(top: TopCard): HTMLElement {
  const grid = h("div", { class: "f8-card-grid", "aria-hidden": "true" });
  for (let cell = 0; cell < 9; cell++) {
    const item = top.pattern[cell] ?? "-";
    grid.append(
      h("span", { class: isColour(item) ? "f8-card-cell" : "f8-card-cell f8-blank" }, isColour(item) ? electron(item, false) : null),
    );
  }
  return h(
    "div",
    { class: `f8-card${top.points > 1 ? " f8-two-star" : ""}`, "data-card": top.card },
    grid,
    h(
      "div",
      { class: "f8-card-meta" },
      h("span", { class: "f8-card-id", text: top.card }),
      h("span", { class: "f8-card-stars", "aria-label": `${top.points} point${top.points === 1 ? "" : "s"}`, text: "★".repeat(Math.max(1, top.points)) }),
    ),
  );
}

/** A solo card's face: the electron's colour inside the card's shape, and how many cards lie
 *  in the cell when more than one. */
export function soloCard(colour: Colour, shape: Shape, depth = 1, card = ""): HTMLElement {
  const face = h(
    "div",
    { class: `f8-solo-card f8-c-${colour}`, "data-card": card || null, "data-shape": shape, "data-colour": colour },
    shapeOutline(shape),
    electron(colour, false),
  );
  if (depth > 1) face.append(h("span", { class: "f8-depth", text: `×${depth}`, title: `${depth} cards stacked here` }));
  return face;
}
