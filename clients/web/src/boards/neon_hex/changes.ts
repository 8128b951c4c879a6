/**
 * What changed between two views, for the animation and the log: the hexes claimed (by
 * whom), a new Risk roll, a new turn, the end. The board shows each change in order.
 */

import type { NeonHexView, Roll } from "./view";

export interface Step {
  /** Newly claimed hexes by seat. */
  claims: Map<number, number[]>;
  /** A Risk roll that happened in this step, or null. */
  roll: Roll | null;
  /** The faction to move changed (a turn ended and another began). */
  turnChanged: boolean;
  /** The game ended in this step. */
  over: boolean;
}

function sameRoll(a: Roll | null, b: Roll | null): boolean {
  if (!a || !b) return a === b;
  return a.seat === b.seat && a.target === b.target && a.success === b.success && a.dice.join() === b.dice.join();
}

export function diff(before: NeonHexView, after: NeonHexView): Step {
  const claims = new Map<number, number[]>();
  after.owners.forEach((owner, hex) => {
    if (owner !== null && before.owners[hex] !== owner) claims.set(owner, [...(claims.get(owner) ?? []), hex]);
  });
  let roll: Roll | null = null;
  const last = after.last_roll;
  if (last) {
    if (!sameRoll(before.last_roll, last)) roll = last;
    else if (!last.success && after.turn === before.turn) {
      // The same failed roll again on the same target: only the 2 Energy spent tell it.
      const was = before.factions[last.seat];
      const now = after.factions[last.seat];
      if (was && now && was.energy - now.energy >= 2 && was.hexes === now.hexes) roll = last;
    }
  }
  return {
    claims,
    roll,
    turnChanged: after.current !== before.current || after.turn !== before.turn,
    over: Boolean(after.outcome) && !before.outcome,
  };
}

/** The number of hexes a step claimed. */
export function claimedCount(step: Step): number {
  let n = 0;
  for (const hexes of step.claims.values()) n += hexes.length;
  return n;
}
