/**
 * Questions about the `legal` list, the only source of what the board may send.
 *
 * Every expanded option (`expandOptions`) belongs to an *action* the player first picks: a
 * card in hand (its id), `manual_flip`, `lock` or a pending `cascade`. Each option is then
 * reached by a short path of *targets*: tiles of the grid, the arrows at its edges (a row or
 * column for a sweep or a shift), or buttons (a System Drain's opponent, a Hijack's colour).
 * A Node Swap's path is two tiles; a Power Surge's path is empty (played by a confirm).
 * Buying, ending the turn, stopping a cascade, discarding and choosing an objective are
 * direct: one option per control.
 */

import { type Option } from "../../protocol/legal";

export type Side = "left" | "right" | "top" | "bottom";

export type Target =
  | { kind: "tile"; slot: number }
  | { kind: "edge"; side: Side; index: number }
  | { kind: "button"; key: string; label: string };

export function targetKey(target: Target): string {
  if (target.kind === "tile") return `tile:${target.slot}`;
  if (target.kind === "edge") return `edge:${target.side}:${target.index}`;
  return `button:${target.key}`;
}

/** The action an option belongs to (null for the direct ones). */
export function actionOf(option: Option): string | null {
  const command = option.command;
  switch (command.type) {
    case "play_card":
      return String(command.card);
    case "manual_flip":
    case "lock":
    case "cascade":
      return command.type;
    default:
      return null;
  }
}

/** How a target is named in words, for buttons at an edge and screen readers. */
export function edgeLabel(side: Side, index: number, shift: boolean): string {
  const line = side === "left" || side === "right" ? "row" : "column";
  if (!shift) return `${line} ${index}`;
  const way = side === "left" ? "left" : side === "right" ? "right" : side === "top" ? "up" : "down";
  return `shift ${line} ${index} ${way}`;
}

/**
 * The path of targets to an option. `names` labels seats (System Drain), -1 being
 * PROTO-ZERO.
 */
export function pathOf(option: Option, names: (seat: number) => string): Target[] {
  const c = option.command;
  if (c.type !== "play_card") return typeof c.slot === "number" ? [{ kind: "tile", slot: c.slot }] : [];
  if (typeof c.other === "number" && typeof c.slot === "number") {
    return [
      { kind: "tile", slot: c.slot },
      { kind: "tile", slot: c.other },
    ];
  }
  if (typeof c.colour === "string" && typeof c.slot === "number") {
    return [
      { kind: "button", key: `colour:${c.colour}`, label: c.colour },
      { kind: "tile", slot: c.slot },
    ];
  }
  if (typeof c.target === "number") return [{ kind: "button", key: `target:${c.target}`, label: names(c.target) }];
  if (typeof c.line === "string" && typeof c.index === "number") {
    const row = c.line === "row";
    const step = typeof c.step === "number" ? c.step : 0;
    const side: Side = row ? (step > 0 ? "right" : "left") : step > 0 ? "bottom" : "top";
    return [{ kind: "edge", side, index: c.index }];
  }
  if (typeof c.slot === "number") return [{ kind: "tile", slot: c.slot }];
  return [];
}

/** What a complete option would change: `preview` slots, and a Cascade Surge's first
 *  cascade choices (`cascade`). */
export function previewOf(option: Option): { slots: number[]; cascade: number[] } {
  const pick = (key: string): number[] => {
    const value = option.entry[key];
    if (!Array.isArray(value)) return [];
    const item = option.choice === null ? value : value[option.choice];
    return Array.isArray(item) ? item.filter((x): x is number => typeof x === "number") : [];
  };
  return { slots: pick("preview"), cascade: pick("cascade") };
}

export interface Step {
  target: Target;
  /** The option this target completes, when it completes exactly one. */
  complete: Option | null;
  /** Options still reachable through this target. */
  through: Option[];
}

/** The next targets for an action's options after the targets picked so far, by key. */
export function nextSteps(options: readonly Option[], picked: readonly Target[], names: (seat: number) => string): Map<string, Step> {
  const out = new Map<string, Step>();
  const prefix = picked.map(targetKey);
  for (const option of options) {
    const path = pathOf(option, names);
    if (path.length <= prefix.length) continue;
    if (!prefix.every((key, i) => targetKey(path[i]!) === key)) continue;
    const target = path[prefix.length]!;
    const key = targetKey(target);
    let step = out.get(key);
    if (!step) {
      step = { target, complete: null, through: [] };
      out.set(key, step);
    }
    step.through.push(option);
    if (path.length === prefix.length + 1) step.complete = option;
  }
  // A target that leads on to several options completes none of them alone.
  for (const step of out.values()) if (step.through.length > 1) step.complete = null;
  return out;
}

/** Whether the options of an action need no target (Power Surge, Overclock). */
export function confirmOnly(options: readonly Option[], names: (seat: number) => string): Option | null {
  return options.length === 1 && pathOf(options[0]!, names).length === 0 ? options[0]! : null;
}

/** A description of a card play's fields, for the hint line. */
export function costOf(option: Option): number | null {
  const cost = option.entry.cost;
  return typeof cost === "number" ? cost : null;
}
