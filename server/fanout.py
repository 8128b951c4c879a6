"""The view fan-out: every viewer's view of a room, kept current, and the delta each is sent.

A viewer is a seat, or ``None`` for the public view every spectator shares. Each committed
batch of steps becomes one delta per watched viewer: the patches the game knows for the steps
(``engine.core.ViewPatcher``), else the diff of the viewer's view before the batch and after.
Viewers given the same operations and no new legal commands share one encoded frame. Every
seat's legal commands are tracked (bots and the stale rule need them), with the ``seq`` they
last changed at. The last batches' frames are kept for ``resume`` (:mod:`server.resume`).

Pure: no connection is touched; the room sends the frames this makes.
"""

from __future__ import annotations

import collections
from collections.abc import Collection, Sequence
from typing import Any

from engine.core import Game, ViewPatcher
from protocol.codec import encode_delta
from protocol.delta import diff, op_to_wire
from server.batch import Step

__all__ = ["Fanout", "Viewer"]

#: A seat, or ``None`` for the public view.
Viewer = int | None


class Fanout:
    """The views of one room (see the module docstring)."""

    def __init__(self, room: str, game: Game, patcher: ViewPatcher | None, history: int) -> None:
        self.room = room
        self.game = game
        self.patcher = patcher
        #: Cached views; a viewer's is dropped when a batch is sent as patches, and built
        #: again when someone needs it.
        self.views: dict[Viewer, Any] = {}
        #: Viewers whose current view has been sent: they get deltas.
        self.viewers: set[Viewer] = set()
        #: Every seat's legal commands now, and the seq they last changed at.
        self.legal: dict[int, list[dict[str, Any]]] = {}
        self.legal_since: dict[int, int] = {}
        #: The room time (seconds since the epoch) each seat's legal commands last changed at:
        #: the time of that step as logged, so a turn clock keeps its deadline when the room
        #: is rebuilt elsewhere.
        self.legal_at: dict[int, float] = {}
        #: Recent batches: (base, seq, each viewer's frame), one entry per committed batch.
        self.history: collections.deque[tuple[int, int, dict[Viewer, bytes]]] = collections.deque(
            maxlen=history
        )
        #: Viewers nobody watches now, with the ``time.monotonic()`` the last one left.
        self.left: dict[Viewer, float] = {}

    def gone(self, viewer: Viewer, now: float) -> None:
        """The last connection watching as ``viewer`` left at ``now``."""
        self.left[viewer] = now

    def recently_left(self, since: float) -> set[Viewer]:
        """The viewers whose last connection left after ``since``: their deltas are still
        made, so a quick reconnect resumes with deltas; the others are forgotten here."""
        if not self.left:
            return set()
        for viewer in [v for v, at in self.left.items() if at < since]:
            del self.left[viewer]
        return set(self.left)

    def view_for(self, state: Any, viewer: Viewer) -> Any:
        """The current view of ``viewer`` (built now unless cached); from here on the viewer
        gets deltas."""
        self.viewers.add(viewer)
        view = self.views.get(viewer)
        if view is None:
            view = self.views[viewer] = self.game.view(state, viewer)
        return view

    def refresh(
        self,
        state: Any,
        seq: int,
        seats: int,
        watched: Collection[Viewer],
        steps: Sequence[Step] = (),
        changed: Collection[int] | None = None,
        at: float = 0.0,
    ) -> dict[Viewer, bytes]:
        """Bring views and legal commands up to date with ``state`` at ``seq``; after
        ``steps`` (the batch just committed, already applied), the delta frame of each viewer
        in ``watched`` that has been sent its view (a watched viewer without one needs a
        snapshot). Only the ``changed`` seats (all when ``None``) are asked for their legal
        commands again; viewers not watched are forgotten. ``at`` is the room time of the
        state (its last step's, as logged)."""
        base = seq - len(steps)
        frames: dict[Viewer, bytes] = {}
        patcher = self.patcher if steps else None
        shared: list[tuple[list[Any], bytes]] = []  # frames without legal, by their operations
        for viewer in (None, *range(seats)):
            legal: list[dict[str, Any]] | None = None
            if viewer is not None and (changed is None or viewer in changed):
                fresh = self.game.legal(state, viewer)
                if fresh != self.legal.get(viewer):
                    self.legal[viewer] = fresh
                    self.legal_since[viewer] = seq
                    self.legal_at[viewer] = at
                    legal = fresh
            if viewer not in watched:
                self.viewers.discard(viewer)
                self.views.pop(viewer, None)
                continue
            delta = bool(steps) and viewer in self.viewers
            self.viewers.add(viewer)
            ops: list[Any] | None = None
            if patcher is not None and delta:
                ops = _patches(patcher, steps, viewer)
            if ops is not None:
                self.views.pop(viewer, None)
            else:
                view = self.game.view(state, viewer)
                ops = []
                if delta:
                    old = self.views.get(viewer)
                    if old is None:
                        old = self.game.view(steps[0].before, viewer)
                    ops = [op_to_wire(op) for op in diff(old, view)]
                self.views[viewer] = view
            if not delta:
                continue
            frame = None
            if legal is None:
                frame = next((made for same, made in shared if same == ops), None)
            if frame is None:
                frame = encode_delta(self.room, base, seq, ops, legal)
                if legal is None:
                    shared.append((ops, frame))
            frames[viewer] = frame
        if steps:
            self.history.append((base, seq, frames))
        return frames


def _patches(patcher: ViewPatcher, steps: Sequence[Step], viewer: Viewer) -> list[Any] | None:
    """The patches the game knows for ``steps`` seen by ``viewer``, in order; ``None`` when it
    does not know one of them."""
    if len(steps) == 1:
        step = steps[0]
        return patcher.view_patch(step.before, step.after, step.events, viewer)
    ops: list[Any] = []
    for step in steps:
        patch = patcher.view_patch(step.before, step.after, step.events, viewer)
        if patch is None:
            return None
        ops.extend(patch)
    return ops
