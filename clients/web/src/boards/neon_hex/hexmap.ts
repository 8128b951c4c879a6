/**
 * The 37-hex map as SVG on a starfield: one focusable `<g>` per hex (polygon, faction pattern,
 * symbol), keyboard moves between hexes (arrows; Tab walks the lit hexes), Enter / Space or a
 * click / tap chooses a hex. It draws what it is told; the board decides what is lit.
 */

import { svg } from "../../app/dom";
import { colourOf, PATTERNS, SYMBOL_NAMES, symbolOf, capital, nameOf } from "./factions";
import { arrowStep, buildLayout, hexPoints, SIZE, type Layout } from "./geometry";
import type { NeonHexView } from "./view";

let boards = 0;

export interface MapMarks {
  /** Hexes `legal` offers as targets now. */
  targets: ReadonlySet<number>;
  selected: number | null;
  /** Bonus hexes in view: the selected Risk's candidates, or the pair being pointed at. */
  bonus: ReadonlySet<number>;
  /** Hexes just claimed (animated). */
  fresh: ReadonlySet<number>;
  /** The target of a roll in progress. */
  rolling: number | null;
}

const NO_MARKS: MapMarks = { targets: new Set(), selected: null, bonus: new Set(), fresh: new Set(), rolling: null };

/** The SVG fill patterns, one per seat (dark strokes over the faction colour). */
function patternDefs(prefix: string): SVGElement {
  const stroke = { stroke: "rgba(8, 2, 28, 0.55)", "stroke-width": 1.1, fill: "none" };
  const dot = { fill: "rgba(8, 2, 28, 0.55)" };
  const make = (name: string, size: number, ...children: SVGElement[]) =>
    svg("pattern", { id: `${prefix}-${name}`, patternUnits: "userSpaceOnUse", width: size, height: size }, ...children);
  return svg(
    "defs",
    {},
    make("stripes", 4, svg("path", { d: "M-1,1 l2,-2 M0,4 l4,-4 M3,5 l2,-2", ...stroke })),
    make("dots", 4, svg("circle", { cx: 2, cy: 2, r: 0.95, ...dot })),
    make("crosshatch", 4, svg("path", { d: "M0,0 L4,4 M4,0 L0,4", ...stroke, "stroke-width": 0.7 })),
    make("bars", 4, svg("path", { d: "M0,2 H4", ...stroke })),
    make("checks", 6, svg("rect", { x: 0, y: 0, width: 3, height: 3, ...dot }), svg("rect", { x: 3, y: 3, width: 3, height: 3, ...dot })),
    svg(
      "radialGradient",
      { id: `${prefix}-glow` },
      svg("stop", { offset: "0%", "stop-color": "#ffffff", "stop-opacity": 0.35 }),
      svg("stop", { offset: "100%", "stop-color": "#ffffff", "stop-opacity": 0 }),
    ),
  );
}

/** A deterministic starfield over the map's box. */
function stars(layout: Layout): SVGElement {
  const [x, y, w, h] = layout.viewBox.split(" ").map(Number) as [number, number, number, number];
  let seed = 7;
  const rand = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  const group = svg("g", { class: "nh-stars", "aria-hidden": "true" });
  for (let n = 0; n < 90; n++) {
    group.append(
      svg("circle", {
        cx: (x + rand() * w).toFixed(1),
        cy: (y + rand() * h).toFixed(1),
        r: (0.15 + rand() * 0.45).toFixed(2),
        class: n % 5 === 0 ? "nh-star twinkle" : "nh-star",
        style: `animation-delay: ${(rand() * 4).toFixed(2)}s`,
      }),
    );
  }
  return group;
}

/** The fill pattern id of a seat. */
export function patternId(prefix: string, seat: number): string {
  return `${prefix}-${PATTERNS[seat % PATTERNS.length]}`;
}

export class HexMap {
  readonly element: SVGSVGElement;
  readonly layout: Layout;
  readonly prefix = `nh${++boards}`;
  private readonly hexes: SVGGElement[] = [];
  private focusHex = 0;
  private view: NeonHexView | null = null;
  private names: readonly string[] = [];

  constructor(
    hexes: readonly (readonly [number, number])[],
    private readonly onChoose: (hex: number) => void,
    private readonly onPoint: (hex: number | null) => void,
  ) {
    this.layout = buildLayout(hexes);
    this.element = svg("svg", {
      class: "nh-map",
      viewBox: this.layout.viewBox,
      role: "group",
      "aria-label": "The board: 37 hexes. Arrow keys move, Enter chooses.",
      "data-testid": "nh-map",
    }) as SVGSVGElement;
    this.element.append(patternDefs(this.prefix), stars(this.layout));
    const grid = svg("g", { class: "nh-hexes" });
    this.layout.centres.forEach((centre, id) => {
      const points = hexPoints(centre, SIZE * 0.94);
      const g = svg(
        "g",
        { class: "nh-hex", "data-hex": id, role: "button", tabindex: id === 0 ? 0 : -1 },
        svg("polygon", { class: "nh-hex-base", points }),
        svg("polygon", { class: "nh-hex-pattern", points }),
        svg("polygon", { class: "nh-hex-ring", points: hexPoints(centre, SIZE * 0.78) }),
        svg("text", { class: "nh-hex-symbol", x: centre.x.toFixed(2), y: (centre.y + 0.4).toFixed(2), "text-anchor": "middle", "dominant-baseline": "middle" }),
      ) as SVGGElement;
      g.addEventListener("click", () => {
        this.setFocus(id, false);
        this.onChoose(id);
      });
      g.addEventListener("focus", () => {
        this.focusHex = id;
        this.onPoint(id);
      });
      g.addEventListener("mouseenter", () => this.onPoint(id));
      g.addEventListener("mouseleave", () => this.onPoint(null));
      this.hexes.push(g);
      grid.append(g);
    });
    this.element.append(grid);
    this.element.addEventListener("keydown", (event) => this.key(event));
  }

  private key(event: KeyboardEvent): void {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      this.onChoose(this.focusHex);
      return;
    }
    const to = arrowStep(this.layout, this.focusHex, event.key);
    if (event.key.startsWith("Arrow")) event.preventDefault();
    if (to !== null) this.setFocus(to, true);
  }

  /** Move the roving focus to a hex (and focus it when `focus`). */
  setFocus(hex: number, focus: boolean): void {
    this.focusHex = hex;
    this.hexes.forEach((g, id) => {
      if (!g.classList.contains("nh-target")) g.setAttribute("tabindex", id === hex ? "0" : "-1");
    });
    if (focus) this.hexes[hex]?.focus();
  }

  get focused(): number {
    return this.focusHex;
  }

  hex(id: number): SVGGElement | undefined {
    return this.hexes[id];
  }

  /** Draw the owners of `view` with the given marks. */
  draw(view: NeonHexView, names: readonly string[], marks: MapMarks = NO_MARKS): void {
    this.view = view;
    this.names = names;
    view.owners.forEach((owner, id) => {
      const g = this.hexes[id];
      if (!g) return;
      const faction = owner === null ? undefined : view.factions[owner];
      const [base, pattern, , text] = [...g.children] as SVGElement[];
      const home = view.factions.find((f) => f.home === id);
      g.setAttribute("class", "nh-hex");
      const cls = (name: string, on: boolean) => g.classList.toggle(name, on);
      cls("nh-owned", owner !== null);
      cls("nh-neutral", owner === null);
      cls("nh-target", marks.targets.has(id));
      cls("nh-selected", marks.selected === id);
      cls("nh-bonus", marks.bonus.has(id));
      cls("nh-fresh", marks.fresh.has(id));
      cls("nh-rolling", marks.rolling === id);
      cls("nh-home", home !== undefined);
      if (owner !== null) g.dataset.owner = String(owner);
      else delete g.dataset.owner;
      base!.style.fill = faction ? colourOf(faction) : "";
      base!.style.stroke = faction ? colourOf(faction) : "";
      pattern!.setAttribute("fill", owner === null ? "none" : `url(#${patternId(this.prefix, owner)})`);
      text!.textContent = owner === null ? "" : symbolOf(owner);
      const tabbable = marks.targets.has(id) || id === this.focusHex;
      g.setAttribute("tabindex", tabbable ? "0" : "-1");
      g.setAttribute("aria-label", this.describe(id, marks));
      g.setAttribute("aria-pressed", String(marks.selected === id));
    });
  }

  /** A hex in words, for screen readers and tooltips. */
  describe(id: number, marks: MapMarks = NO_MARKS): string {
    const view = this.view;
    const where = `Hex ${this.layout.names[id]}`;
    if (!view) return where;
    const owner = view.owners[id];
    const who =
      owner === null || owner === undefined
        ? "neutral"
        : `${nameOf(owner, view.factions, this.names)}'s (${SYMBOL_NAMES[owner % SYMBOL_NAMES.length]}, ${capital(view.factions[owner]?.colour ?? "")})`;
    const home = view.factions.find((f) => f.home === id);
    const extra = [home ? `home of ${nameOf(home.seat, view.factions, this.names)}` : "", marks.targets.has(id) ? "you can expand here" : "", marks.bonus.has(id) ? "bonus hex" : ""].filter(Boolean);
    return [`${where}: ${who}`, ...extra].join(", ");
  }
}
