/**
 * The how-to pages' board diagrams: for each game a "before" and an "after" of its key move,
 * drawn as static SVG in the boards' colours, every colour also named by a letter or symbol
 * (nothing rests on colour alone). Flip Over Frog: a frog lands and flips the stacks it points
 * at; Neon Hex: a safe expansion claims a neutral hex; Flash 8: an electron slides into the
 * free space; Neon Flip: a card turns tiles Cyan and one cascades. Each panel is 260 units
 * square and drawn at most 260 px wide, so two sit side by side at 1280 px and stack on a
 * phone, with their text at 14 px or more.
 */

import { h, svg } from "./dom";

const INK = "#efe9ff";
const DIM = "#3a2a6e";
const EDGE = "#9b5cff";
const COLOURS: Record<string, string> = { R: "#ff4d6d", B: "#3da5ff", G: "#4dff88", Y: "#ffd23f", C: "#29f0ff", P: "#ff3df2", V: "#b47cff" };

type Panel = { caption: string; draw: () => SVGElement };
type Diagram = { title: string; panels: [Panel, Panel] };

function panel(...children: SVGElement[]): SVGElement {
  return svg("svg", { viewBox: "0 0 260 260", role: "img", class: "howto-svg" }, ...children);
}

function label(x: number, y: number, text: string, size = 18, fill = "#0b0420"): SVGElement {
  return svg("text", { x, y, "text-anchor": "middle", "dominant-baseline": "central", "font-size": size, "font-weight": 700, fill }, text);
}

function arrow(x1: number, y1: number, x2: number, y2: number, colour = INK): SVGElement {
  const angle = Math.atan2(y2 - y1, x2 - x1);
  const head = (turn: number) => `${x2 - 10 * Math.cos(angle + turn)},${y2 - 10 * Math.sin(angle + turn)}`;
  return svg(
    "g",
    { stroke: colour, "stroke-width": 4, fill: "none", "stroke-linecap": "round" },
    svg("line", { x1, y1, x2, y2 }),
    svg("polyline", { points: `${head(0.5)} ${x2},${y2} ${head(-0.5)}` }),
  );
}

// --- Flip Over Frog -----------------------------------------------------------------------------

/** A 4 x 4 board; `cells` maps "row,col" to a tile: a colour letter (face up), "?" (face down). */
function frogBoard(cells: Record<string, string>, extra: SVGElement[] = []): SVGElement {
  const parts: SVGElement[] = [];
  const size = 58;
  for (let row = 0; row < 4; row++) {
    for (let col = 0; col < 4; col++) {
      const x = 14 + col * size;
      const y = 14 + row * size;
      const tile = cells[`${row},${col}`];
      const fill = tile === undefined ? "rgba(8,3,28,0.6)" : tile === "?" ? DIM : (COLOURS[tile] ?? DIM);
      parts.push(svg("rect", { x: x + 2, y: y + 2, width: size - 4, height: size - 4, rx: 8, fill, stroke: EDGE, "stroke-width": 1.5 }));
      if (tile !== undefined) parts.push(label(x + size / 2, y + size / 2, tile === "?" ? "?" : tile, tile === "?" ? 24 : 22, tile === "?" ? INK : "#0b0420"));
    }
  }
  return panel(...parts, ...extra);
}

const FROG: Diagram = {
  title: "A frog lands and flips what it points at",
  panels: [
    {
      caption: "Your red frog (R) goes on an empty space; its arrows point up and right, at two face-down tiles (?).",
      draw: () => frogBoard({ "0,1": "?", "1,1": "R", "1,2": "?", "2,3": "B", "3,0": "Y" }, [arrow(101, 80, 101, 52), arrow(122, 101, 150, 101)]),
    },
    {
      caption: "Both stacks it points at turn over: a green (G) and a red (R) frog now show. Count your colour's face-up frogs.",
      draw: () => frogBoard({ "0,1": "G", "1,1": "R", "1,2": "R", "2,3": "B", "3,0": "Y" }),
    },
  ],
};

// --- Neon Hex -----------------------------------------------------------------------------------

/** Seven hexes (a centre and its ring); `owners` by index: "C" yours, "P" a rival, "" neutral. */
function hexFlower(owners: string[], target: number | null): SVGElement {
  const r = 40;
  const centres = [[130, 130], ...[0, 1, 2, 3, 4, 5].map((k) => [130 + Math.sqrt(3) * r * Math.cos((Math.PI / 3) * k), 130 + Math.sqrt(3) * r * Math.sin((Math.PI / 3) * k)])];
  const parts = centres.map(([cx, cy], index) => {
    const points = [0, 1, 2, 3, 4, 5].map((k) => `${cx! + (r - 2) * Math.cos((Math.PI / 3) * k + Math.PI / 6)},${cy! + (r - 2) * Math.sin((Math.PI / 3) * k + Math.PI / 6)}`).join(" ");
    const owner = owners[index] ?? "";
    const mark = owner === "C" ? "You" : owner === "P" ? "Rival" : index === target ? "+" : "";
    return svg(
      "g",
      {},
      svg("polygon", { points, fill: owner ? COLOURS[owner]! : "rgba(8,3,28,0.6)", stroke: index === target ? INK : EDGE, "stroke-width": index === target ? 4 : 1.5, "stroke-dasharray": index === target && !owner ? "6 4" : "none" }),
      label(cx!, cy!, mark, mark === "+" ? 28 : 15, owner ? "#0b0420" : INK),
    );
  });
  return panel(...parts);
}

const HEX: Diagram = {
  title: "A safe expansion claims a neutral hex",
  panels: [
    {
      caption: "Your territory (You) borders the dashed neutral hex (+). A safe expansion costs 1 Energy.",
      draw: () => hexFlower(["C", "", "", "P", "C", "", ""], 2),
    },
    {
      caption: "The hex is yours: no dice, no risk. The first faction to 12 hexes wins.",
      draw: () => hexFlower(["C", "", "C", "P", "C", "", ""], null),
    },
  ],
};

// --- Flash 8 ------------------------------------------------------------------------------------

/** A 3 x 3 tablet; `cells` are colour letters, "" the free space. */
function tablet(cells: string[], extra: SVGElement[] = []): SVGElement {
  const size = 76;
  const parts: SVGElement[] = [svg("rect", { x: 12, y: 12, width: 236, height: 236, rx: 16, fill: "rgba(8,3,28,0.6)", stroke: EDGE, "stroke-width": 2 })];
  cells.forEach((cell, index) => {
    const cx = 16 + (index % 3) * size + size / 2;
    const cy = 16 + Math.floor(index / 3) * size + size / 2;
    if (!cell) {
      parts.push(svg("rect", { x: cx - 30, y: cy - 30, width: 60, height: 60, rx: 10, fill: "none", stroke: INK, "stroke-width": 2, "stroke-dasharray": "6 5" }), label(cx, cy, "free", 14, INK));
      return;
    }
    parts.push(svg("circle", { cx, cy, r: 30, fill: COLOURS[cell] ?? DIM }), label(cx, cy, cell, 22));
  });
  return panel(...parts, ...extra);
}

const FLASH8: Diagram = {
  title: "Slide an electron into the free space",
  panels: [
    {
      caption: "Blue (B), yellow (Y), red (R), violet (V) and green (G) electrons; the red one beside the free space slides into it.",
      draw: () => tablet(["B", "Y", "B", "R", "", "G", "Y", "V", "B"], [arrow(84, 130, 112, 130)]),
    },
    {
      caption: "Now the free space is where the red was. When your tablet shows a card's pattern, press FLASH to take the card.",
      draw: () => tablet(["B", "Y", "B", "", "R", "G", "Y", "V", "B"]),
    },
  ],
};

// --- Neon Flip ----------------------------------------------------------------------------------

/** A 4 x 4 corner of the grid; `cells` are "C" (Cyan, you) or "P" (Pink), row by row. */
function grid(cells: string, ring: number[] = [], extra: SVGElement[] = []): SVGElement {
  const size = 58;
  const parts: SVGElement[] = [];
  [...cells].forEach((cell, index) => {
    const x = 14 + (index % 4) * size;
    const y = 14 + Math.floor(index / 4) * size;
    parts.push(svg("rect", { x: x + 3, y: y + 3, width: size - 6, height: size - 6, rx: 6, fill: COLOURS[cell] ?? DIM, stroke: ring.includes(index) ? INK : "none", "stroke-width": 4 }));
    parts.push(label(x + size / 2, y + size / 2, cell === "C" ? "◆" : "●", 22, "#0b0420"));
  });
  return panel(...parts, ...extra);
}

const NEON_FLIP: Diagram = {
  title: "A card flips tiles, then a cascade",
  panels: [
    {
      caption: "Your card turned the ringed row Cyan (◆). A tile just turned may cascade into an adjacent Pink tile (●).",
      draw: () => grid("PPPPCCCPPPPPPCPP", [4, 5, 6], [arrow(101, 115, 101, 160)]),
    },
    {
      caption: "The cascade flips it Cyan too; up to 3 cascade flips an action, and you may stop early.",
      draw: () => grid("PPPPCCCPPCPPPCPP", [9]),
    },
  ],
};

const DIAGRAMS: Record<string, Diagram> = { flip_over_frog: FROG, neon_hex: HEX, flash8: FLASH8, neon_flip: NEON_FLIP };

/** The game's diagram as a figure (before, then after), or null for a game without one. */
export function howToDiagram(game: string): HTMLElement | null {
  const diagram = DIAGRAMS[game];
  if (!diagram) return null;
  const [before, after] = diagram.panels;
  const part = (which: string, item: Panel) => {
    const drawn = item.draw();
    drawn.setAttribute("aria-label", `${which}: ${item.caption}`);
    return h("div.howto-step", null, drawn, h("p.howto-caption", null, h("strong", null, `${which}. `), item.caption));
  };
  return h(
    "figure.howto-diagram",
    { "data-testid": "howto-diagram" },
    h("figcaption", null, diagram.title),
    h("div.howto-steps", null, part("Before", before), h("span.howto-then", { "aria-hidden": "true" }, "→"), part("After", after)),
  );
}
