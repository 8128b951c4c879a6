/**
 * How Flash 8's five electron colours and four solo shapes are drawn. Every colour also has its
 * own glyph, so no information rests on colour alone (colour-blind-safe): blue three bars,
 * yellow a triangle, red a diamond, violet a hexagon ring, green a zigzag. The glyphs avoid the
 * solo shapes (circle, cross, star, square), which are drawn as a card's outline instead.
 */

import { h, svg } from "./dom";
import type { Colour, Shape } from "./view";

export const COLOURS: readonly Colour[] = ["B", "Y", "R", "V", "G"];

export const COLOUR_NAMES: Record<Colour, string> = {
  B: "blue",
  Y: "yellow",
  R: "red",
  V: "violet",
  G: "green",
};

/** Names of the glyphs, for the legend. */
export const GLYPH_NAMES: Record<Colour, string> = {
  B: "bars",
  Y: "triangle",
  R: "diamond",
  V: "hexagon",
  G: "zigzag",
};

export const SHAPES: readonly Shape[] = ["circle", "cross", "star", "square"];

export function isColour(value: string): value is Colour {
  return (COLOURS as readonly string[]).includes(value);
}

/** The glyph of a colour: an SVG in a 100 x 100 box, drawn in the electron's dark ink. */
export function glyph(colour: Colour): SVGElement {
  const box = svg("svg", { viewBox: "0 0 100 100", class: "f8-glyph", "aria-hidden": "true" });
  const stroke = { fill: "none", stroke: "currentColor", "stroke-width": 9, "stroke-linecap": "round", "stroke-linejoin": "round" };
  switch (colour) {
    case "B":
      box.append(svg("path", { d: "M27 34 H73 M27 50 H73 M27 66 H73", ...stroke }));
      break;
    case "Y":
      box.append(svg("polygon", { points: "50,25 76,70 24,70", fill: "currentColor" }));
      break;
    case "R":
      box.append(svg("polygon", { points: "50,22 78,50 50,78 22,50", fill: "currentColor" }));
      break;
    case "V":
      box.append(svg("polygon", { points: "50,24 73,37 73,63 50,76 27,63 27,37", ...stroke }));
      break;
    case "G":
      box.append(svg("path", { d: "M22 60 L36 40 L50 60 L64 40 L78 60", ...stroke }));
      break;
  }
  return box;
}

/** An electron: a glowing disc of its colour with its glyph, labelled for screen readers
 *  unless `label` is false (when its container carries the label). */
export function electron(colour: Colour, label = true): HTMLElement {
  const disc = h("span", {
    class: `f8-electron f8-c-${colour}`,
    "data-colour": colour,
    role: label ? "img" : null,
    "aria-label": label ? `${COLOUR_NAMES[colour]} electron` : null,
  });
  disc.append(glyph(colour));
  return disc;
}

/** A solo card's shape as an outline in a 100 x 100 box (drawn around the electron). */
export function shapeOutline(shape: Shape): SVGElement {
  const box = svg("svg", { viewBox: "0 0 100 100", class: `f8-shape f8-shape-${shape}`, "aria-hidden": "true" });
  const line = { fill: "none", stroke: "currentColor", "stroke-width": 5, "stroke-linejoin": "round" };
  switch (shape) {
    case "circle":
      box.append(svg("circle", { cx: 50, cy: 50, r: 42, ...line }));
      break;
    case "square":
      box.append(svg("rect", { x: 9, y: 9, width: 82, height: 82, rx: 4, ...line }));
      break;
    case "cross":
      box.append(
        svg("polygon", {
          points: "33,6 67,6 67,33 94,33 94,67 67,67 67,94 33,94 33,67 6,67 6,33 33,33",
          ...line,
        }),
      );
      break;
    case "star":
      box.append(svg("polygon", { points: starPoints(50, 52, 47, 21), ...line }));
      break;
  }
  return box;
}

function starPoints(cx: number, cy: number, outer: number, inner: number): string {
  const points: string[] = [];
  for (let i = 0; i < 10; i++) {
    const radius = i % 2 === 0 ? outer : inner;
    const angle = -Math.PI / 2 + (i * Math.PI) / 5;
    points.push(`${(cx + radius * Math.cos(angle)).toFixed(1)},${(cy + radius * Math.sin(angle)).toFixed(1)}`);
  }
  return points.join(" ");
}

/** A small icon of a shape (for buttons and lists). */
export function shapeIcon(shape: Shape): HTMLElement {
  const icon = h("span", { class: "f8-shape-icon", "aria-hidden": "true" });
  icon.append(shapeOutline(shape));
  return icon;
}

/** The legend: each colour's disc, name and glyph name. */
export function legend(): HTMLElement {
  const list = h("ul", { class: "f8-legend", "aria-label": "Electron colours and their symbols" });
  for (const colour of COLOURS) {
    list.append(
      h("li", {}, electron(colour, false), h("span", { text: `${COLOUR_NAMES[colour]} · ${GLYPH_NAMES[colour]}` })),
    );
  }
  return list;
}
