/**
 * A client's live copy of one room: `(epoch, seq, view, legal)` plus the seat and the room
 * clock's origin (the TypeScript `protocol.views.RoomView`).
 *
 * A snapshot replaces the copy; a delta applies only when its `base` equals the copy's `seq`
 * and moves it to the delta's `seq`. Anything else is `out_of_sync`; operations that do not fit
 * are `bad_patch`. Copies are immutable: {@link applyDelta} returns a new one.
 */

import { applyOps } from "./delta";
import { ProtocolError } from "./errors";
import type { Data, Delta, Snapshot } from "./messages";

export interface RoomView {
  readonly room: string;
  readonly epoch: string;
  readonly seq: number;
  readonly seat: number | null;
  readonly view: Data | null;
  readonly legal: readonly Data[];
  readonly clockOrigin: number;
}

/** The copy a snapshot describes. */
export function fromSnapshot(snapshot: Snapshot): RoomView {
  return {
    room: snapshot.room,
    epoch: snapshot.epoch,
    seq: snapshot.seq,
    seat: snapshot.seat,
    view: snapshot.view,
    legal: snapshot.legal,
    clockOrigin: snapshot.clock_origin,
  };
}

/** The copy after `delta`; throws `out_of_sync` or `bad_patch` (see the module docs). */
export function applyDelta(copy: RoomView, delta: Delta): RoomView {
  if (delta.room !== copy.room) {
    throw new ProtocolError("out_of_sync", `A delta of room '${delta.room}' is not for '${copy.room}'.`);
  }
  if (delta.base !== copy.seq) {
    throw new ProtocolError(
      "out_of_sync",
      `Room '${copy.room}': the delta starts at ${delta.base}, the copy is at ${copy.seq}.`,
    );
  }
  const view = applyOps(copy.view, delta.ops) as Data | null;
  return { ...copy, seq: delta.seq, view, legal: delta.legal ?? copy.legal };
}

/** The room clock (the clock of the view's deadlines) at a server time. */
export function roomTime(copy: RoomView, serverTime: number): number {
  return serverTime - copy.clockOrigin;
}
