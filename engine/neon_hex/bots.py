"""Neon Hex bots: the shared random player and the AI factions Easy, Medium and Hard
(neon-hex.decisions 8), in :data:`BOTS`.

Every level reads only its own seat's view (which, in Neon Hex, shows the whole table), rebuilds
a :class:`Position` from it and answers with one of the commands its seat is offered, so it
follows exactly the rules a human follows. Levels differ in two judgements:

- **which hex** to expand into: Easy picks any frontier hex; Medium prefers open hexes (many
  neutral neighbours, good Risk targets); Hard projects every faction's final territory (each
  neutral hex goes to the faction that can reach it first) and claims the hex that gains it the
  most against its strongest rival, so contested hexes go before its safe backyard.
- **when to take a Risk**: Easy rolls on a whim (a fixed chance whenever it can pay); Medium
  plays Safe until a rival is one turn from 12 hexes and then throws its Energy at Risk rolls;
  Hard takes the action with the best exact chance of winning the race to 12 against its most
  dangerous rival (:class:`RaceModel`: 9+ on 2d6 is 10/36, solved exhaustively over the next
  rounds), modelling that rival by the Risk rate it has shown so far. With more than two
  factions only rivals whose projected territory still reaches 12 count as racing.

Thinking is bounded by counted work, never by the clock: every decision is a function of the
view and the bot's seeded generator.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from engine.bots import random_bot
from engine.core import Action, Bot, BotFactory, Command, Game
from engine.neon_hex.board import NEIGHBOURS, SIZE
from engine.neon_hex.messages import EndTurn, Expand
from engine.neon_hex.rules import bonus_candidates, frontier, risk_claim
from engine.neon_hex.state import (
    NEUTRAL,
    RISK_BONUS,
    RISK_COST,
    RISK_ODDS,
    RISK_REFUND,
    SAFE_COST,
    START_ENERGY,
    WIN_HEXES,
    income,
)

__all__ = [
    "BOTS",
    "HORIZON",
    "P_RISK",
    "RATES",
    "Choice",
    "EasyBot",
    "HardBot",
    "MediumBot",
    "Position",
    "RaceModel",
    "easy_bot",
    "hard_bot",
    "medium_bot",
    "position_from_view",
    "projected_territory",
    "race_model",
]

P_RISK = RISK_ODDS[0] / RISK_ODDS[1]


@attrs.define
class Position:
    """The table as a bot sees it: owners per hex (-1 neutral), Energy per seat, whose turn,
    whether that turn has claimed, and the count of quiet turns before it (decisions 7)."""

    owners: list[int]
    energy: list[int]
    seat: int
    claimed: bool
    quiet: int

    @property
    def players(self) -> int:
        return len(self.energy)

    def hexes(self, seat: int) -> int:
        return sum(1 for owner in self.owners if owner == seat)

    def frontier(self, seat: int) -> list[int]:
        """Neutral hexes beside ``seat``'s territory (its possible targets): the rules'
        :func:`engine.neon_hex.rules.frontier`."""
        return frontier(self.owners, seat)

    def open_neighbours(self, target: int) -> list[int]:
        """Neutral hexes beside ``target``, in direction order (the Risk bonus candidates): the
        rules' :func:`engine.neon_hex.rules.bonus_candidates`."""
        return bonus_candidates(self.owners, target)


def position_from_view(view: Mapping[str, Any]) -> Position:
    """Rebuild the table from a Neon Hex view."""
    owners = [NEUTRAL if owner is None else int(owner) for owner in view["owners"]]
    factions = view["factions"]
    current = view["current"]
    return Position(
        owners=owners,
        energy=[int(f["energy"]) for f in factions],
        seat=int(current) if current is not None else -1,
        claimed=bool(view["claimed_this_turn"]),
        quiet=int(view["quiet_turns"]),
    )


# --- the race to 12 ---------------------------------------------------------------------------

#: Risk rates a rival may be modelled with (the observed rate is rounded to the nearest).
RATES = (0.0, 0.1, 0.2, 0.3, 0.45, 0.6, 0.8)
#: Rounds the race model looks ahead; a race still open after them is scored on hexes.
HORIZON = 8


class RaceModel:
    """The race to 12 between me and one rival who spends all its Energy each turn, taking a
    Risk (when it can pay 2) at rate ``rate`` and Safe otherwise.

    :meth:`actions` gives my exact chance of winning after each action now, playing the best
    reply to that rival afterwards (9+ on 2d6 is 10/36; a success brings ``bonus`` extra
    hexes now and two later). With ``rate`` 0 the rival is the Safe player who cannot be
    out-paced without luck, which is also how a perfect player behaves while ahead.
    """

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.values: dict[tuple[int, int, int, int, int], float] = {}
        self.turns: dict[tuple[int, int], dict[int, float]] = {}
        self.nodes = 0

    def rival_turn(self, hexes: int, energy: int) -> dict[int, float]:
        """The chance of each hex count the rival ends its turn on (12 = it won)."""
        if hexes >= WIN_HEXES:
            return {WIN_HEXES: 1.0}
        if energy < SAFE_COST:
            return {hexes: 1.0}
        key = (hexes, energy)
        cached = self.turns.get(key)
        if cached is not None:
            return cached
        out: dict[int, float] = {}
        branches: list[tuple[float, int, int]] = []
        risk = self.rate if energy >= RISK_COST else 0.0
        if risk > 0:
            branches.append(
                (
                    risk * P_RISK,
                    min(WIN_HEXES, hexes + 1 + RISK_BONUS),
                    energy - RISK_COST + RISK_REFUND,
                )
            )
            branches.append((risk * (1 - P_RISK), hexes, energy - RISK_COST))
        branches.append((1.0 - risk, hexes + 1, energy - SAFE_COST))
        for weight, h, e in branches:
            for end, chance in self.rival_turn(h, e).items():
                out[end] = out.get(end, 0.0) + weight * chance
        self.turns[key] = out
        return out

    def value(self, a: int, ea: int, b: int, eb: int, rounds: int) -> float:
        """My chance mid-turn with ``a`` hexes and ``ea`` Energy; the rival holds ``b`` and
        ``eb`` (before its next income); ``rounds`` rounds left to look at."""
        if a >= WIN_HEXES or ea >= WIN_HEXES - a:
            return 1.0
        key = (a, ea, b, eb, rounds)
        cached = self.values.get(key)
        if cached is None:
            cached = max(self.actions(a, ea, b, eb, rounds).values())
            self.values[key] = cached
        return cached

    def actions(
        self, a: int, ea: int, b: int, eb: int, rounds: int = HORIZON, bonus: int = RISK_BONUS
    ) -> dict[str, float]:
        """My chance after ``"end"``, ``"safe"`` and (with 2 Energy) ``"risk"``."""
        self.nodes += 1
        eb = min(eb, WIN_HEXES)
        if rounds <= 0:
            end = 1.0 if a > b else 0.0 if a < b else 0.5
        else:
            end = 0.0
            for hexes, chance in self.rival_turn(b, eb + income(b)).items():
                if hexes < WIN_HEXES:
                    end += chance * self.value(a, ea + income(a), hexes, 0, rounds - 1)
        out = {"end": end}
        if ea >= SAFE_COST:
            out["safe"] = self.value(a + 1, ea - SAFE_COST, b, eb, rounds)
        if ea >= RISK_COST:
            success = self.value(a + 1 + bonus, ea - RISK_COST + RISK_REFUND, b, eb, rounds)
            failure = self.value(a, ea - RISK_COST, b, eb, rounds)
            out["risk"] = P_RISK * success + (1 - P_RISK) * failure
        return out


_MODELS: dict[float, RaceModel] = {}


def race_model(rate: float) -> RaceModel:
    """The shared (cached) race model for a rival's Risk rate, rounded to :data:`RATES`."""
    nearest = min(RATES, key=lambda r: (abs(r - rate), r))
    model = _MODELS.get(nearest)
    if model is None:
        model = _MODELS[nearest] = RaceModel(nearest)
    return model


# --- projected territory -----------------------------------------------------------------------


def _distances(owners: Sequence[int], seat: int) -> list[int]:
    """Steps from ``seat``'s territory to each neutral hex through neutral hexes."""
    far = SIZE + 1
    dist = [far] * SIZE
    wave = [h for h in range(SIZE) if owners[h] == seat]
    for h in wave:
        dist[h] = 0
    step = 0
    while wave:
        step += 1
        nxt = []
        for h in wave:
            for n in NEIGHBOURS[h]:
                if owners[n] == NEUTRAL and dist[n] == far:
                    dist[n] = step
                    nxt.append(n)
        wave = nxt
    return dist


def projected_territory(owners: Sequence[int], players: int) -> list[float]:
    """Each faction's hexes plus the neutral hexes it reaches strictly first (hexes reached
    first by several factions at once are shared among them)."""
    dists = [_distances(owners, seat) for seat in range(players)]
    score = [0.0] * players
    for h in range(SIZE):
        owner = owners[h]
        if owner != NEUTRAL:
            score[owner] += 1.0
            continue
        best = min(d[h] for d in dists)
        if best > SIZE:
            continue
        nearest = [seat for seat in range(players) if dists[seat][h] == best]
        for seat in nearest:
            score[seat] += 1.0 / len(nearest)
    return score


# --- bots --------------------------------------------------------------------------------------

#: A decision: ("end",), ("safe", target) or ("risk", target, bonus).
Choice = tuple[Any, ...]


class _Faction(ABC):
    """Shared plumbing: read the view, decide, and answer with one of the offered commands."""

    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng
        self.nodes = 0

    def act(self, view: Mapping[str, Any], options: Sequence[Command], now: float) -> Action | None:
        if not options:
            return None
        position = position_from_view(view)
        if position.seat != self.seat:
            return None
        return Action(now, self._command(self.choose(position), options))

    @abstractmethod
    def choose(self, position: Position) -> Choice:
        """The decision for the faction to move, which is this bot's."""

    def _command(self, choice: Choice, options: Sequence[Command]) -> Command:
        if choice[0] == "end":
            wanted: Command = EndTurn()
        elif choice[0] == "safe":
            wanted = Expand(choice[1], "safe")
        else:
            wanted = Expand(choice[1], "risk", tuple(choice[2]))
        if wanted in options:
            return wanted
        # A Risk whose bonus is not a choice (two or fewer candidates) is offered without one.
        if isinstance(wanted, Expand):
            for option in options:
                if (
                    isinstance(option, Expand)
                    and option.target == wanted.target
                    and option.kind == wanted.kind
                ):
                    return option
        return EndTurn()

    def bonus_for(self, position: Position, target: int, rank: Any) -> tuple[int, ...]:
        """The (up to) two bonus hexes with the best ``rank``, in direction order."""
        candidates = position.open_neighbours(target)
        if len(candidates) <= RISK_BONUS:
            return ()
        best = sorted(candidates, key=lambda h: (-rank(h), candidates.index(h)))[:RISK_BONUS]
        return tuple(sorted(best, key=candidates.index))


class EasyBot(_Faction):
    """Expands into any frontier hex; rolls a Risk on a whim (``risk_rate`` of the time it can
    pay); never saves Energy."""

    risk_rate = 0.25

    def choose(self, position: Position) -> Choice:
        targets = position.frontier(self.seat)
        energy = position.energy[self.seat]
        self.nodes = len(targets)
        if not targets or energy < SAFE_COST:
            return ("end",)
        target = self.rng.choice(targets)
        if energy >= RISK_COST and self.rng.random() < self.risk_rate:
            return ("risk", target, ())
        return ("safe", target)


class MediumBot(_Faction):
    """Prefers open hexes (the most neutral neighbours); plays Safe until a rival could reach
    12 in its next turn while Safe cannot win this one, then rolls Risk on the most open hex."""

    def choose(self, position: Position) -> Choice:
        seat = self.seat
        targets = position.frontier(seat)
        energy = position.energy[seat]
        self.nodes = len(targets)
        if not targets or energy < SAFE_COST:
            return ("end",)
        openness = {t: len(position.open_neighbours(t)) for t in targets}
        best = max(openness.values())
        target = self.rng.choice([t for t in targets if openness[t] == best])
        mine = position.hexes(seat)
        threat = any(
            position.hexes(other) + position.energy[other] + income(position.hexes(other))
            >= WIN_HEXES
            for other in range(position.players)
            if other != seat and position.frontier(other)
        )
        if threat and energy >= RISK_COST and mine + energy < WIN_HEXES:
            bonus = self.bonus_for(position, target, lambda h: len(position.open_neighbours(h)))
            return ("risk", target, bonus)
        return ("safe", target)


class HardBot(_Faction):
    """Chooses between Safe, Risk and ending the turn by the exact odds of the race to 12
    against its most dangerous rival (:class:`RaceModel`), modelling that rival by the Risk
    rate it has shown so far, and picks hexes by projected final territory.

    With more than two factions a rival counts only while it can expand and its projected
    territory still reaches 12; with four or five (a fair share of the board is under 12) only
    while it could also reach 12 on its next turn. Without such a rival the board will fill
    first and only territory matters: Hard plays Safe into the hex that gains the most
    projected territory against its best rival.

    Its work per decision is bounded by the race tables (at most a few thousand positions per
    modelled Risk rate, shared by every Hard bot in the process and kept between decisions)
    and one territory projection per candidate hex; it draws nothing at random.
    """

    #: The Risk rate assumed of a rival before seeing it play, and its weight in Energy spent.
    prior_rate = 0.15
    prior = 1.0

    def __init__(self, seat: int, rng: random.Random) -> None:
        super().__init__(seat, rng)
        self.last: dict[int, tuple[int, int, int]] = {}
        self.spent: dict[int, float] = {}
        self.risked: dict[int, float] = {}

    def choose(self, position: Position) -> Choice:
        seat = self.seat
        targets = position.frontier(seat)
        energy = position.energy[seat]
        self.nodes = 0
        if not targets or energy < SAFE_COST:
            return ("end",)
        best_safe = max((self._score_claim(position, (t,)), t) for t in targets)[1]
        kind = "safe"
        rival = self._rival(position)
        if rival is not None:
            risk_target, risk_bonus, risk_gain = self._best_risk(position, targets)
            model = race_model(self.rate(rival))
            before = model.nodes
            values = model.actions(
                position.hexes(seat),
                energy,
                position.hexes(rival),
                position.energy[rival],
                bonus=risk_gain - 1,
            )
            self.nodes += model.nodes - before
            if position.players > 2:
                values.pop("end")
            best = max(values.values())
            # Equal odds (to rounding) go to Safe: a hex claimed now cannot be taken later.
            if values.get("safe", -1.0) >= best - 1e-9:
                kind = "safe"
            else:
                kind = max(values, key=lambda k: values[k])
            if kind == "risk" and risk_target is not None:
                return ("risk", risk_target, risk_bonus)
        if kind == "end":
            return ("end",)
        return ("safe", best_safe)

    def observe(self, view: Mapping[str, Any], position: Position) -> None:
        """Update each rival's observed Risk rate from what changed since my last decision:
        Energy a Safe expansion spends buys one hex each; spending that does not match the
        hexes gained comes from Risk rolls (a failure spends 2 for nothing, a success nets
        1 for 3 hexes)."""
        turn = int(view["turn"])
        for other in range(position.players):
            if other == self.seat:
                continue
            hexes, energy = position.hexes(other), position.energy[other]
            # Before its first turn a faction held its corner and 3 Energy (decisions 3).
            seen = self.last.get(other, (other + 1 - position.players, 1, START_ENERGY))
            self.last[other] = (turn, hexes, energy)
            then, old_hexes, old_energy = seen
            rounds = (turn - then) // position.players
            if rounds <= 0:
                continue
            spent = old_energy + rounds * income(old_hexes) - energy
            gained = hexes - old_hexes
            if spent <= 0:
                continue
            self.spent[other] = self.spent.get(other, 0.0) + spent
            mismatch = abs(spent - gained) / (2 * (1 - 2 * P_RISK))
            self.risked[other] = self.risked.get(other, 0.0) + min(mismatch, float(spent))

    def rate(self, rival: int) -> float:
        """The rival's observed Risk rate, pulled towards Safe play by :attr:`prior`."""
        risked = self.risked.get(rival, 0.0) + self.prior_rate * self.prior
        return risked / (self.spent.get(rival, 0.0) + self.prior)

    def act(self, view: Mapping[str, Any], options: Sequence[Command], now: float) -> Action | None:
        if options:
            position = position_from_view(view)
            if position.seat == self.seat:
                self.observe(view, position)
        return super().act(view, options, now)

    def _rival(self, position: Position) -> int | None:
        """The rival closest to 12 (most hexes plus Energy) among those still in the race
        (see the class notes), or ``None``."""
        others = [s for s in range(position.players) if s != self.seat]
        if position.players > 2:
            projected = projected_territory(position.owners, position.players)
            others = [s for s in others if projected[s] >= WIN_HEXES and position.frontier(s)]
        if position.players * WIN_HEXES > SIZE:
            # A fair share of the board is under 12: only a rival one turn from 12 is racing.
            others = [
                s
                for s in others
                if position.hexes(s) + position.energy[s] + income(position.hexes(s)) >= WIN_HEXES
            ]
        if not others:
            return None
        return max(others, key=lambda s: (position.hexes(s) + position.energy[s], -s))

    def _score_claim(self, position: Position, hexes: Sequence[int]) -> float:
        """Projected territory margin over the best rival after claiming ``hexes``."""
        owners = list(position.owners)
        for h in hexes:
            owners[h] = self.seat
        self.nodes += 1
        score = projected_territory(owners, position.players)
        mine = score[self.seat]
        best_other = max(s for i, s in enumerate(score) if i != self.seat)
        return mine - best_other + 0.01 * len(position.open_neighbours(hexes[0]))

    def _best_risk(
        self, position: Position, targets: Sequence[int]
    ) -> tuple[int | None, tuple[int, ...], int]:
        """The Risk target claiming the most hexes on success, best projected among those."""
        if position.energy[self.seat] < RISK_COST:
            return (None, (), 1 + RISK_BONUS)
        best: tuple[int, float, int, tuple[int, ...]] | None = None
        for target in targets:
            bonus = self.bonus_for(position, target, lambda h: len(position.open_neighbours(h)))
            claimed = risk_claim(position.owners, target, bonus)
            gain = len(claimed)
            score = self._score_claim(position, claimed)
            if best is None or (gain, score) > (best[0], best[1]):
                best = (gain, score, target, bonus)
        assert best is not None
        return (best[2], best[3], best[0])


def easy_bot(game: Game, seat: int, rng: random.Random) -> Bot:
    """Easy: random hexes, Risk on a whim."""
    return EasyBot(seat, rng)


def medium_bot(game: Game, seat: int, rng: random.Random) -> Bot:
    """Medium: open hexes, Risk only when a rival threatens to win next turn."""
    return MediumBot(seat, rng)


def hard_bot(game: Game, seat: int, rng: random.Random) -> Bot:
    """Hard: exact race odds for Safe/Risk/end, projected territory for hexes."""
    return HardBot(seat, rng)


#: Every bot kind Neon Hex offers (decisions 8), by the name a seat asks for.
BOTS: dict[str, BotFactory] = {
    "random": random_bot,
    "easy": easy_bot,
    "medium": medium_bot,
    "hard": hard_bot,
}
