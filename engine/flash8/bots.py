"""Flash 8 bots: solver-driven players that slide at a set pace, and the random floor.

The solver bot reads only its own view. In a race it aims at the stack top fewest slides away
(ties to the lower stack), slides one step along an optimal path every ``1 / pace`` seconds and
calls FLASH, naming the stack, the moment its tablet matches a top. In solo it aims at the
nearest line it may claim (ties to the line covering more cards), and names the shape that
minimises the expected reserve: each card covered is one fewer, but a cover that leaves no line
to play (decisions 15) ends the game with the rest of the reserve as the score. The first
covering card is the reserve's visible top; the colours of later ones are weighed by the cards
it has not seen yet (the deck's faces are printed data, and it remembers every card it saw).
Its moments depend only on its own last accepted action, so they stay put however often it is
asked (engine.match.play_out asks after every event).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from engine.bots import RandomBot
from engine.core import Action, Bot, BotFactory, Command, Game
from engine.flash8.board import matches
from engine.flash8.cards import CARDS, SHAPES
from engine.flash8.messages import ClaimLine, Flash, Slide
from engine.flash8.solo import LINES, dead_end, line_pattern
from engine.flash8.solver import UNREACHABLE, distance, next_slide

__all__ = [
    "BOTS",
    "HUMAN_PACE",
    "RANDOM_DELAY",
    "SolverBot",
    "paced",
    "random_racer",
]

#: Slides per second of the default bot: a quick human.
HUMAN_PACE = 3.0
#: Seconds the random bot waits before each move, so a simulated clock moves on.
RANDOM_DELAY = 0.25


class SolverBot:
    """See the module docstring."""

    def __init__(self, seat: int, pace: float) -> None:
        self.seat = seat
        self.seen: set[str] = set()
        self.interval = 1.0 / pace
        #: The seat's counters when last seen, and when they last changed: the bot's own
        #: last action, which it paces from (views carry no per-seat action times).
        self.progress: tuple[Any, ...] | None = None
        self.last_action = 0.0

    def act(self, view: Mapping[str, Any], options: Sequence[Command], now: float) -> Action | None:
        if view["phase"] != "running" or not options:
            return None
        me = view["seats"][self.seat]
        progress = (
            me["slides"],
            me["misses"],
            me.get("late"),
            len(me.get("cards", ())),
            len(view.get("claims", ())),
        )
        if progress != self.progress:
            # Bots are asked after every change, so this is right after its own move landed;
            # the first time, the race's start stands for its last action.
            self.last_action = view["started_at"] if self.progress is None else now
            self.progress = progress
        at = max(now, self.last_action + self.interval)
        command = self.race(view, me["tablet"]) if view["mode"] == "race" else self.solo(view)
        return None if command is None else Action(at, command)

    def race(self, view: Mapping[str, Any], tablet: str) -> Command | None:
        """FLASH a matching top, or slide toward the nearest one."""
        best: tuple[int, str] | None = None
        best_distance = UNREACHABLE + 1
        for stack in view["stacks"]:
            top = stack["top"]
            if top is None:
                continue
            if matches(tablet, top["pattern"]):
                return Flash(stack["stack"])
            far = distance(tablet, top["pattern"])
            if far < best_distance:
                best, best_distance = (stack["stack"], top["pattern"]), far
        if best is None:
            return None
        step = next_slide(tablet, best[1])
        return None if step is None else Slide(*step)

    def solo(self, view: Mapping[str, Any]) -> Command | None:
        """Claim a matching line, or slide toward the nearest claimable one."""
        tablet = view["seats"][0]["tablet"]
        colours = "".join(cell["colour"] for cell in view["grid"])
        token = view["token"]
        candidates = [
            line["line"] for line in view["lines"] if line["possible"] and line["line"] != token
        ]
        claims = []
        for line in candidates:
            if matches(tablet, line_pattern(colours, line)):
                cost, shape = self.shape_for(view, colours, line)
                claims.append((cost, line, shape))
        if claims:
            _, line, shape = min(claims)
            return ClaimLine(line, shape)
        size = view["reserve"]["size"]
        best: tuple[int, int, int] | None = None
        for line in candidates:
            shapes = Counter(view["grid"][cell]["shape"] for cell in LINES[line])
            covers = min(size, max(shapes.values()))
            key = (distance(tablet, line_pattern(colours, line)), -covers, line)
            if best is None or key < best:
                best = key
        if best is None:
            return None
        step = next_slide(tablet, line_pattern(colours, best[2]))
        return None if step is None else Slide(*step)

    def shape_for(self, view: Mapping[str, Any], colours: str, line: int) -> tuple[float, str]:
        """The shape with the lowest expected change of the reserve after claiming ``line``
        (first in shape order on a tie), with that expected change."""
        grid = view["grid"]
        top = view["reserve"]["top"]
        size = view["reserve"]["size"]
        self.seen.update(cell["card"] for cell in grid)
        if top is not None:
            self.seen.add(top["card"])
        pool = Counter(card.colour for card in CARDS if card.id not in self.seen)
        best: tuple[float, str] | None = None
        for shape in SHAPES:
            cells = [cell for cell in LINES[line] if grid[cell]["shape"] == shape][:size]
            left = size - len(cells)
            risk = 0.0
            if left > 0:
                risk = self._dead_end_chance(colours, line, cells, top, pool)
            cost = risk * left - len(cells)
            if best is None or cost < best[0] - 1e-12:
                best = (cost, shape)
        assert best is not None
        return best

    @staticmethod
    def _dead_end_chance(
        colours: str,
        line: int,
        cells: list[int],
        top: Mapping[str, Any] | None,
        pool: Counter[str],
    ) -> float:
        """The chance that covering ``cells`` leaves no line but ``line`` to play: the first
        cover is the visible top, later ones are drawn from the unseen ``pool``."""
        after = list(colours)
        rest = list(cells)
        if rest and top is not None:
            after[rest.pop(0)] = top["colour"]
        unseen = sum(pool.values())

        def chance(cells_left: list[int], counts: Counter[str], total: int) -> float:
            if not cells_left:
                return 1.0 if dead_end("".join(after), line) else 0.0
            if total <= 0:
                return 0.0
            cell, out = cells_left[0], 0.0
            for colour, count in counts.items():
                if count:
                    before = after[cell]
                    after[cell] = colour
                    counts[colour] -= 1
                    out += count / total * chance(cells_left[1:], counts, total - 1)
                    counts[colour] += 1
                    after[cell] = before
            return out

        return chance(rest, Counter(pool), unseen)


def paced(pace: float) -> BotFactory:
    """A factory of solver bots sliding ``pace`` times a second."""

    def factory(game: Game, seat: int, rng: random.Random) -> Bot:
        return SolverBot(seat, pace)

    factory.__doc__ = f"The solver bot at {pace:g} slides per second."
    return factory


def random_racer(game: Game, seat: int, rng: random.Random) -> Bot:
    """The random player, one move every :data:`RANDOM_DELAY` seconds."""
    return RandomBot(rng, delay=RANDOM_DELAY)


BOTS: dict[str, BotFactory] = {
    "bot": paced(HUMAN_PACE),
    "fast": paced(10.0),
    "random": random_racer,
}
