"""Neon Hex Strategy: the rules as Lumin plays them.

Sources: ``neon-hex.rulebook.txt`` (cited by section heading) and ``neon-hex.decisions.md``
(cited by number; a decision wins over the rulebook). Two to five factions start on corner hexes
of a 37-hex grid, earn Energy at the start of each turn and spend it on Safe (1 Energy, sure)
or Risk (2 Energy, 2d6, 9+ claims three hexes and refunds 1) expansions; the first to hold 12
hexes wins, and a full board or a quiet round ends the game on territory.

Everything is public: every viewer sees the same board, Energy and dice.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs

from engine.core import (
    BotFactory,
    Command,
    Event,
    OptionSpec,
    Outcome,
    Rejected,
    SeatSpec,
    Viewer,
    outcome_to_wire,
)
from engine.movelog import Entry, record
from engine.neon_hex import views
from engine.neon_hex.board import NEIGHBOURS, SIZE, corner_hex, corners_for
from engine.neon_hex.messages import (
    COMMANDS,
    EVENTS,
    EndTurn,
    Expand,
    Expanded,
    GameEnded,
    RiskRolled,
    TurnEnded,
    TurnStarted,
)
from engine.neon_hex.state import (
    COLOURS,
    NEUTRAL,
    RISK_BONUS,
    RISK_COST,
    RISK_ODDS,
    RISK_REFUND,
    RISK_TARGET,
    ROLES,
    SAFE_COST,
    START_ENERGY,
    WIN_HEXES,
    Faction,
    State,
    income,
)

__all__ = ["GAME", "NeonHex", "bonus_candidates", "frontier", "risk_claim"]


def frontier(owners: Sequence[int], seat: int) -> list[int]:
    """The neutral hexes beside ``seat``'s territory, by id: its possible targets (decisions 6)."""
    return [
        h
        for h in range(SIZE)
        if owners[h] == NEUTRAL and any(owners[n] == seat for n in NEIGHBOURS[h])
    ]


def bonus_candidates(owners: Sequence[int], target: int) -> list[int]:
    """The neutral hexes beside ``target``, in direction order (decisions 2, 6)."""
    return [n for n in NEIGHBOURS[target] if owners[n] == NEUTRAL]


def risk_claim(owners: Sequence[int], target: int, named: Sequence[int]) -> tuple[int, ...]:
    """The hexes a successful Risk claims: the target, then the bonus hexes the command named
    (neutral, beside the target), completed to two from :func:`bonus_candidates` in direction
    order; fewer where fewer are neutral.
    See neon-hex.decisions 6 (the Risk bonus) and the rulebook's "2d6 Risk Expansion"."""
    bonus = list(named)
    for h in bonus_candidates(owners, target):
        if len(bonus) >= RISK_BONUS:
            break
        if h not in bonus:
            bonus.append(h)
    return (target, *bonus)


def _with_owner(owners: tuple[int, ...], hexes: Sequence[int], seat: int) -> tuple[int, ...]:
    changed = list(owners)
    for h in hexes:
        changed[h] = seat
    return tuple(changed)


def _with_energy(state: State, seat: int, delta: int) -> tuple[Faction, ...]:
    factions = list(state.factions)
    factions[seat] = attrs.evolve(factions[seat], energy=factions[seat].energy + delta)
    return tuple(factions)


# --- the game ----------------------------------------------------------------------------------


class NeonHex:
    """Neon Hex Strategy's rules object (see module docs)."""

    id = "neon_hex"
    name = "Neon Hex Strategy"
    commands: tuple[type[Command], ...] = COMMANDS
    events: tuple[type[Event], ...] = EVENTS
    options: tuple[OptionSpec, ...] = ()
    seat_options: tuple[OptionSpec, ...] = (
        OptionSpec(
            "role",
            "choice",
            "auto",
            "The faction's role: the name it plays under, which changes no rule (decisions 1)."
            " Auto gives the roles in order: seat 1 the builder, seat 2 the technologist...",
            choices=("auto", *ROLES),
        ),
        OptionSpec(
            "colour",
            "choice",
            "auto",
            "The faction's colour on the board, which changes no rule. Auto gives the colours in"
            " order: seat 1 cyan, seat 2 magenta...",
            choices=("auto", *COLOURS),
        ),
    )
    #: The rules alone have no bots: the registry attaches ``engine.neon_hex.bots.BOTS``.
    bots: Mapping[str, BotFactory] = MappingProxyType({})
    default_bot = "medium"

    def seat_counts(self, options: Mapping[str, Any]) -> range:
        """Two to five factions (decisions 1)."""
        return range(2, 6)

    # -- setup ----------------------------------------------------------------------------------

    def setup(
        self, options: Mapping[str, Any], seats: Sequence[SeatSpec], rng: random.Random
    ) -> State:
        """Factions on their corners (shuffled from the seed), 3 Energy each; seat 0's first
        turn has begun and its income is paid (decisions 3, 4)."""
        corners = list(corners_for(len(seats)))
        rng.shuffle(corners)
        owners = [NEUTRAL] * SIZE
        factions = []
        for seat, (spec, corner) in enumerate(zip(seats, corners, strict=True)):
            role = spec.choices.get("role", "auto")
            colour = spec.choices.get("colour", "auto")
            factions.append(
                Faction(
                    name=spec.name,
                    role=ROLES[seat % len(ROLES)] if role == "auto" else str(role),
                    colour=COLOURS[seat % len(COLOURS)] if colour == "auto" else str(colour),
                    corner=corner,
                    energy=START_ENERGY + (income(1) if seat == 0 else 0),
                )
            )
            owners[corner_hex(corner)] = seat
        return State(factions=tuple(factions), owners=tuple(owners))

    # -- decide ---------------------------------------------------------------------------------

    def decide(
        self, state: State, seat: int, command: Command, now: float, rng: random.Random
    ) -> list[Event]:
        """The events a command causes; chance (the Risk dice) is drawn from ``rng``."""
        if state.ended is not None:
            raise Rejected("game_over", "The game is over.", rule="decisions 7")
        if seat != state.current:
            raise Rejected(
                "not_your_turn", "Factions act only in their own turn.", rule="decisions 3"
            )
        if isinstance(command, EndTurn):
            return self._after_turn(state, [TurnEnded(seat, "ended")])
        if not isinstance(command, Expand):
            raise Rejected("bad_command", "Neon Hex takes 'expand' and 'end_turn' commands.")
        event = self._expansion(state, seat, command, rng)
        events: list[Event] = [event]
        after = self.evolve(state, event)
        if after.hexes(seat) >= WIN_HEXES:
            return [*events, GameEnded("twelve_hexes")]
        if NEUTRAL not in after.owners:
            return [*events, GameEnded("board_full")]
        if not frontier(after.owners, seat):
            return events + self._after_turn(after, [TurnEnded(seat, "no_expansion")])
        return events

    def _expansion(self, state: State, seat: int, command: Expand, rng: random.Random) -> Event:
        """Check an expansion against decisions 6 and roll its dice if it is a Risk: on 9+ it
        claims :func:`risk_claim` and refunds ``RISK_REFUND``."""
        target = command.target
        if command.kind not in ("safe", "risk"):
            raise Rejected("bad_kind", "An expansion is 'safe' or 'risk'.", rule="decisions 6")
        if not 0 <= target < SIZE:
            raise Rejected("bad_hex", f"Hexes are numbered 0-{SIZE - 1}.", rule="decisions 2")
        if state.owners[target] != NEUTRAL:
            raise Rejected("not_neutral", "Only a neutral hex can be claimed.", rule="decisions 6")
        if command.source is not None:
            if not 0 <= command.source < SIZE:
                raise Rejected("bad_hex", f"Hexes are numbered 0-{SIZE - 1}.", rule="decisions 2")
            if state.owners[command.source] != seat:
                raise Rejected(
                    "not_your_hex",
                    "An expansion starts from a hex you control.",
                    rule="decisions 6",
                )
            if command.source not in NEIGHBOURS[target]:
                raise Rejected(
                    "not_adjacent", "The target must border the source hex.", rule="decisions 6"
                )
        if not any(state.owners[n] == seat for n in NEIGHBOURS[target]):
            raise Rejected(
                "not_adjacent",
                "Expansion moves only into a neutral hex beside your territory.",
                rule="decisions 6",
            )
        cost = SAFE_COST if command.kind == "safe" else RISK_COST
        if state.factions[seat].energy < cost:
            raise Rejected(
                "not_enough_energy",
                f"A {command.kind.title()} Expansion costs {cost} Energy.",
                rule="decisions 6",
            )
        if command.kind == "safe":
            if command.bonus:
                raise Rejected(
                    "bad_bonus", "Only a Risk Expansion claims bonus hexes.", rule="decisions 6"
                )
            return Expanded(seat, target, cost)
        candidates = bonus_candidates(state.owners, target)
        bonus = list(command.bonus)
        if (
            len(bonus) > RISK_BONUS
            or len(set(bonus)) != len(bonus)
            or any(h not in candidates for h in bonus)
        ):
            raise Rejected(
                "bad_bonus",
                "Name at most two different neutral hexes beside the target.",
                rule="decisions 6",
            )
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        if sum(dice) < RISK_TARGET:
            return RiskRolled(seat, target, dice, False, (), cost, 0)
        claimed = risk_claim(state.owners, target, bonus)
        return RiskRolled(seat, target, dice, True, claimed, cost, RISK_REFUND)

    def _after_turn(self, state: State, events: list[Event]) -> list[Event]:
        """After a turn ends: the stall rule (decisions 7), then the next turn's start and
        income (decisions 4), skipping by itself any faction with no possible expansion
        (decisions 5)."""
        for event in events:
            state = self.evolve(state, event)
        while True:
            if state.quiet >= state.players:
                return [*events, GameEnded("stalled")]
            seat = (state.current + 1) % state.players
            start = TurnStarted(seat, state.turn + 1, income(state.hexes(seat)))
            events.append(start)
            state = self.evolve(state, start)
            if frontier(state.owners, seat):
                return events
            skip = TurnEnded(seat, "no_expansion")
            events.append(skip)
            state = self.evolve(state, skip)

    # -- evolve ---------------------------------------------------------------------------------

    def evolve(self, state: State, event: Event) -> State:
        """Apply one event; pure and total. Each event is noted in the move log (nothing in
        Neon Hex is hidden, so every viewer's log is the same)."""
        return attrs.evolve(self._apply(state, event), log=_noted(state.log, event))

    def _apply(self, state: State, event: Event) -> State:
        if isinstance(event, TurnStarted):
            return attrs.evolve(
                state,
                factions=_with_energy(state, event.seat, event.income),
                current=event.seat,
                turn=event.turn,
                claimed=False,
            )
        if isinstance(event, Expanded):
            return attrs.evolve(
                state,
                factions=_with_energy(state, event.seat, -event.cost),
                owners=_with_owner(state.owners, (event.target,), event.seat),
                claimed=True,
            )
        if isinstance(event, RiskRolled):
            return attrs.evolve(
                state,
                factions=_with_energy(state, event.seat, event.refund - event.cost),
                owners=_with_owner(state.owners, event.claimed, event.seat),
                claimed=state.claimed or bool(event.claimed),
                last_roll=(event.seat, event.target, *event.dice, int(event.success)),
            )
        if isinstance(event, TurnEnded):
            return attrs.evolve(state, quiet=0 if state.claimed else state.quiet + 1)
        if isinstance(event, GameEnded):
            return attrs.evolve(state, ended=event.reason)
        return state

    # -- views and offers -----------------------------------------------------------------------

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        """See :func:`engine.neon_hex.views.view`; once the game is over it also holds the
        outcome."""
        out = views.view(state, viewer)
        outcome = self.outcome(state)
        if outcome is not None:
            out["outcome"] = outcome_to_wire(outcome)
        return out

    def legal(self, state: State, seat: int) -> list[dict[str, Any]]:
        """Every expansion ``seat`` can pay for now, with its kind and (where the choice changes
        the result) its Risk bonus choices and odds, then ``end_turn``."""
        if state.ended is not None or seat != state.current:
            return []
        energy = state.factions[seat].energy
        entries: list[dict[str, Any]] = []
        for target in frontier(state.owners, seat):
            if energy >= SAFE_COST:
                entries.append(
                    {"type": Expand.TYPE, "target": target, "kind": "safe", "cost": SAFE_COST}
                )
            if energy >= RISK_COST:
                candidates = bonus_candidates(state.owners, target)
                entry: dict[str, Any] = {
                    "type": Expand.TYPE,
                    "target": target,
                    "kind": "risk",
                    "cost": RISK_COST,
                    "refund": RISK_REFUND,
                    "odds": list(RISK_ODDS),
                    "bonus_hexes": candidates,
                }
                if len(candidates) > RISK_BONUS:
                    entry["choose"] = {
                        "bonus": [list(pair) for pair in itertools.combinations(candidates, 2)]
                    }
                entries.append(entry)
        entries.append({"type": EndTurn.TYPE})
        return entries

    def deadline(self, state: State) -> float | None:
        """Neon Hex has no clock."""
        return None

    def tick(self, state: State, now: float, rng: random.Random) -> list[Event]:
        """Nothing happens on the clock."""
        return []

    def outcome(self, state: State) -> Outcome | None:
        """Ranks by territory: the faction at 12 wins outright, otherwise the largest
        territory wins and equal leaders share the win (decisions 7)."""
        if state.ended is None:
            return None
        counts = [state.hexes(seat) for seat in range(state.players)]
        ranks = [1 + sum(1 for other in counts if other > count) for count in counts]
        return Outcome(
            ranks=tuple(ranks),
            scores=tuple(float(c) for c in counts),
            reason=state.ended,
            details={"turns": state.turn, "rounds": (state.turn - 1) // state.players + 1},
        )


def _noted(log: tuple[Entry, ...], event: Event) -> tuple[Entry, ...]:
    """The move log with ``event`` noted: a turn's start and income, a Safe claim, a Risk roll
    and its result, a turn's end and why, the game's end."""
    if isinstance(event, TurnStarted):
        return record(log, event.seat, "turn", {"turn": event.turn, "income": event.income})
    if isinstance(event, Expanded):
        return record(log, event.seat, "safe", {"target": event.target, "cost": event.cost})
    if isinstance(event, RiskRolled):
        return record(
            log,
            event.seat,
            "risk",
            {
                "target": event.target,
                "dice": event.dice,
                "success": event.success,
                "claimed": event.claimed,
                "cost": event.cost,
                "refund": event.refund,
            },
        )
    if isinstance(event, TurnEnded):
        return record(log, event.seat, "end_turn", {"reason": event.reason})
    if isinstance(event, GameEnded):
        return record(log, None, "end", {"reason": event.reason})
    return log


GAME = NeonHex()
