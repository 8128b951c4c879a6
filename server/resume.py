"""The resume decision: what a viewer that last saw ``seen`` is sent to catch up.

Pure, so the rule ``docs/protocol.md`` states ("Resume and epochs") is the one tested: the
deltas the room still keeps from exactly ``seen`` on, or a snapshot.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["History", "plan_resume"]

#: A room's recent batches: ``(base, seq, each viewer's delta frame)``, oldest first.
History = Iterable[tuple[int, int, Mapping[int | None, bytes]]]


def plan_resume(
    history: History, seen: int, seq: int, viewer: int | None, same_epoch: bool
) -> list[bytes] | None:
    """The delta frames that bring ``viewer`` from ``seen`` to the room's ``seq``, in order,
    or ``None`` when it needs a snapshot: another epoch, ``seen`` 0 (it names both the view
    before the start and the first view) or past ``seq``, a ``seen`` inside a batch's delta
    (no client ever held it), or deltas no longer kept or never made for this viewer."""
    if not same_epoch or seen == 0 or seen > seq:
        return None
    kept = [(base, frames) for base, last, frames in history if last > seen]
    if not kept:
        return [] if seen == seq else None
    if kept[0][0] != seen or any(viewer not in frames for _, frames in kept):
        return None
    return [frames[viewer] for _, frames in kept]
