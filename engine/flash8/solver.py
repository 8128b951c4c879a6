"""The exact Flash 8 solver: fewest slides from any tablet to any target pattern.

A full tablet has 9!/(3!·2!) = 30,240 arrangements and a handicapped one 9!/(2!·2!·2!) = 45,360
(decisions 1). A :class:`Space` enumerates one kind once, with each arrangement's neighbours
(one slide away, decisions 2). The distance table of a target pattern (a card in a seat's frame,
or a solo line) is one breadth-first search from every arrangement matching it; slides are
reversible, so the search distance is the fewest slides *to* the target. Tables are bytes, built
lazily per pattern and cached, and a query is a dictionary look-up and an index.
"""

from __future__ import annotations

import functools

from engine.flash8.board import BLANK, FREE, FULL_SET, HANDICAP_SET, NEIGHBOURS, fits

__all__ = [
    "UNREACHABLE",
    "Space",
    "distance",
    "next_slide",
    "space_for",
    "table",
]

#: Table value for an arrangement that can never match (a pattern the tablet cannot hold).
UNREACHABLE = 255


def _arrangements(electrons: str) -> list[str]:
    """Every distinct arrangement of the multiset ``electrons``, in sorted order."""
    counts: dict[str, int] = {}
    for item in electrons:
        counts[item] = counts.get(item, 0) + 1
    symbols = sorted(counts)
    out: list[str] = []
    prefix: list[str] = []

    def build(left: int) -> None:
        if left == 0:
            out.append("".join(prefix))
            return
        for symbol in symbols:
            if counts[symbol]:
                counts[symbol] -= 1
                prefix.append(symbol)
                build(left - 1)
                prefix.pop()
                counts[symbol] += 1

    build(len(electrons))
    return out


class Space:
    """All arrangements of one electron set, indexed, with their one-slide neighbours."""

    def __init__(self, electrons: str) -> None:
        self.electrons = electrons
        self.states: list[str] = _arrangements(electrons)
        self.index: dict[str, int] = {state: n for n, state in enumerate(self.states)}
        index = self.index
        edges: list[tuple[int, ...]] = []
        for state in self.states:
            around: list[int] = []
            cells = list(state)
            for dst, here in enumerate(state):
                if here != FREE:
                    continue
                for src in NEIGHBOURS[dst]:
                    if cells[src] == FREE:
                        continue
                    cells[dst], cells[src] = cells[src], FREE
                    around.append(index["".join(cells)])
                    cells[src], cells[dst] = cells[dst], FREE
            edges.append(tuple(around))
        self.edges = edges

    def __len__(self) -> int:
        return len(self.states)

    def goals(self, pattern: str) -> list[int]:
        """Indices of the arrangements that match ``pattern``."""
        if not fits(pattern, self.electrons):
            return []
        rest = list(self.electrons)
        for item in pattern:
            if item != BLANK:
                rest.remove(item)
        blanks = [cell for cell, item in enumerate(pattern) if item == BLANK]
        cells = list(pattern)
        out: list[int] = []
        for fill in _fillings("".join(sorted(rest))):
            for cell, item in zip(blanks, fill, strict=True):
                cells[cell] = item
            out.append(self.index["".join(cells)])
        return out

    def bfs(self, pattern: str) -> bytes:
        """The distance table of ``pattern``: entry ``n`` is the fewest slides from arrangement
        ``n`` to any arrangement matching it (:data:`UNREACHABLE` if none can)."""
        dist = bytearray([UNREACHABLE]) * len(self.states)
        frontier = self.goals(pattern)
        for n in frontier:
            dist[n] = 0
        edges = self.edges
        level = 0
        while frontier:
            level += 1
            following: list[int] = []
            for n in frontier:
                for m in edges[n]:
                    if dist[m] == UNREACHABLE:
                        dist[m] = level
                        following.append(m)
            frontier = following
        return bytes(dist)


@functools.lru_cache(maxsize=256)
def _fillings(electrons: str) -> list[str]:
    return _arrangements(electrons)


@functools.cache
def _space(electrons: str) -> Space:
    return Space(electrons)


def space_for(tablet: str) -> Space:
    """The space a tablet lives in: full (one free space) or handicapped (two)."""
    return _space(HANDICAP_SET if tablet.count(FREE) == 2 else FULL_SET)


@functools.lru_cache(maxsize=1024)
def table(electrons: str, pattern: str) -> bytes:
    """The (cached) distance table of ``pattern`` over the arrangements of ``electrons``."""
    return _space(electrons).bfs(pattern)


def distance(tablet: str, pattern: str) -> int:
    """Fewest slides from ``tablet`` to a tablet matching ``pattern``; :data:`UNREACHABLE`
    when no arrangement of its electrons matches."""
    space = space_for(tablet)
    return table(space.electrons, pattern)[space.index[tablet]]


def next_slide(tablet: str, pattern: str) -> tuple[int, int] | None:
    """A slide ``(src, dst)`` that brings ``tablet`` one step closer to ``pattern`` (the first
    such by destination, then source), or ``None`` when it already matches or never can."""
    space = space_for(tablet)
    dist = table(space.electrons, pattern)
    here = dist[space.index[tablet]]
    if here == 0 or here == UNREACHABLE:
        return None
    cells = list(tablet)
    for dst, item in enumerate(tablet):
        if item != FREE:
            continue
        for src in NEIGHBOURS[dst]:
            if cells[src] == FREE:
                continue
            cells[dst], cells[src] = cells[src], FREE
            after = "".join(cells)
            cells[src], cells[dst] = cells[dst], FREE
            if dist[space.index[after]] == here - 1:
                return (src, dst)
    raise AssertionError("a breadth-first table always has a step down")
