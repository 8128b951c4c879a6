/**
 * What changed between two Flip Over Frog boards, for animation, and the player's memory of
 * backs (rulebook decisions 12: every tile was face up once, so anyone may remember what lies
 * under a back; the board offers the player that memory).
 *
 * A space where a tile was played grows by one (`placed`); a snake strike shrinks it
 * (`struck`); any other space whose top changed at the same height was flipped (`flipped`).
 */

import type { Face } from "./tiles";

export interface Space {
  height: number;
  top: Face | null;
}

export interface BoardChanges {
  placed: Set<number>;
  flipped: Set<number>;
  struck: Set<number>;
}

function sameFace(a: Face | null, b: Face | null): boolean {
  if (a === null || b === null) return a === b;
  return a.kind === b.kind && a.id === b.id;
}

export function diffBoards(before: readonly Space[], after: readonly Space[]): BoardChanges {
  const changes: BoardChanges = { placed: new Set(), flipped: new Set(), struck: new Set() };
  after.forEach((space, index) => {
    const old = before[index];
    if (!old) return;
    if (space.height > old.height) changes.placed.add(index);
    else if (space.height < old.height) changes.struck.add(index);
    else if (space.height > 0 && !sameFace(old.top, space.top)) changes.flipped.add(index);
  });
  return changes;
}

/**
 * The face ids the player knows lie face down on each space, after a change. Only the bottom
 * tile of a stack is ever face down (a frog lands face up, and only on an empty space or a
 * back), so one id per space is enough.
 */
export function updateMemory(memory: ReadonlyMap<number, string>, before: readonly Space[], after: readonly Space[], changes: BoardChanges): Map<number, string> {
  const next = new Map(memory);
  after.forEach((space, index) => {
    const old = before[index];
    if (space.height === 0 || (space.height === 1 && space.top?.kind !== "back")) {
      next.delete(index);
      return;
    }
    if (!old || !changes.flipped.has(index)) return; // placed on a back, or struck: the bottom stays
    // A flip turns the stack over: the old top is now the face-down bottom.
    if (old.top && old.top.kind !== "back" && old.top.id) next.set(index, old.top.id);
    else next.delete(index);
  });
  return next;
}
