"""Dump real Neon Flip views and legal commands for the board's unit tests.

Every fixture comes from the engine itself (``engine.registry.get_game("neon_flip")``) through
``engine.match.Match``, so the tests draw exactly the shapes the server sends: one viewer's
view at one moment and that viewer's ``legal`` list (compact entries, ``choose`` kept).

Run from the repository root::

    .venv/bin/python clients/web/src/boards/neon_flip/fixtures.py

It writes ``fixtures.json`` next to this file: ``{name: {"view": ..., "legal": [...]}}``.
The output is deterministic: fixed seeds, and the seats play seeded random legal commands.
"""

from __future__ import annotations

import copy
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[5]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from clients.web.scripts.board_fixtures import fixture, write_fixtures  # noqa: E402
from engine.core import Command, Rejected, SeatSpec  # noqa: E402
from engine.match import Match  # noqa: E402
from engine.registry import get_game  # noqa: E402

GAME = get_game("neon_flip")


def start(players: int, seed: str, **options: Any) -> Match:
    seats = [SeatSpec(name=f"p{n}") for n in range(players)]
    return Match.start(GAME, seats, seed.encode(), options)


def snap(match: Match, viewer: int | None) -> dict[str, Any]:
    """One fixture: the view of ``viewer`` and its legal commands."""
    return fixture(GAME, match.state, viewer)


def options(match: Match, seat: int) -> list[Command]:
    return match.options_for(seat)


def pick(match: Match, seat: int, rng: random.Random) -> Command:
    """A random command for ``seat``, ending the turn now and then so games move on."""
    commands = options(match, seat)
    ends = [c for c in commands if c.TYPE == "end_turn"]
    if ends and rng.random() < 0.35:
        return ends[0]
    others = [c for c in commands if c.TYPE not in ("end_turn", "lock")]
    return rng.choice(others or commands)


def choose_objectives(match: Match) -> None:
    for seat in range(len(match.seats)):
        first = options(match, seat)
        if first:
            match.act(seat, first[0])


def step(match: Match, rng: random.Random) -> None:
    """One command from the seat whose turn it is."""
    seat = match.state.turn
    match.act(seat, pick(match, seat, rng))


def until(match: Match, test: Any, rng: random.Random, limit: int = 5000) -> Match:
    for _ in range(limit):
        if test(match) or match.outcome is not None:
            return match
        step(match, rng)
    raise RuntimeError("state not reached")


def my_main_turn(match: Match) -> bool:
    state = match.state
    return state.phase == "main" and state.turn == 0 and state.pending is None


def cascade_for(match: Match, seat: int) -> Match | None:
    """A copy of ``match`` after a command of ``seat`` that leaves a cascade with 2+ choices."""
    for command in options(match, seat):
        if command.TYPE in ("end_turn", "buy_card", "lock"):
            continue
        trial = copy.deepcopy(match)
        try:
            trial.act(seat, command)
        except Rejected:
            continue
        pending = trial.state.pending
        if pending is not None and len(GAME.legal(trial.state, seat)[0]["choose"]["slot"]) >= 2:
            return trial
    return None


def holding(kind: str) -> Any:
    """A test: seat 0's main turn with a playable ``kind`` card."""

    def test(match: Match) -> bool:
        return my_main_turn(match) and any(
            str(entry.get("card", "")).startswith(kind + ".")
            for entry in GAME.legal(match.state, 0)
        )

    return test


def play_to_end(match: Match, rng: random.Random) -> Match:
    return until(match, lambda m: False, rng, limit=20000)


def build() -> dict[str, Any]:
    out: dict[str, Any] = {}
    rng = random.Random(7)

    # --- classic, two players ------------------------------------------------------------------
    duel = start(2, "duel", rounds=1)
    out["objectives"] = snap(duel, 0)
    out["objectives_spectator"] = snap(duel, None)
    choose_objectives(duel)
    until(duel, my_main_turn, rng)
    out["main"] = snap(duel, 0)
    out["main_other"] = snap(duel, 1)
    out["main_spectator"] = snap(duel, None)

    # A cascade offered one flip at a time: find a play of seat 0 that leaves a choice.
    found: Match | None = None
    probe = copy.deepcopy(duel)
    for _ in range(40):
        found = cascade_for(probe, 0)
        if found is not None:
            break
        until(probe, lambda m: not my_main_turn(m), rng)
        until(probe, my_main_turn, rng)
    if found is None:
        raise RuntimeError("no cascade found: pick another seed")
    out["cascade"] = snap(found, 0)
    out["cascade_other"] = snap(found, 1)
    first = options(found, 0)[0]
    found.act(0, first)
    out["cascade_after"] = snap(found, 0)

    # Cards with two-step targets: a Node Swap (two tiles), a System Drain (an opponent).
    for kind in ("node_swap", "system_drain"):
        for seed in range(40):
            trial = start(2, f"{kind}{seed}", rounds=2)
            choose_objectives(trial)
            reached = until(trial, holding(kind), random.Random(seed))
            if reached.outcome is None:
                out[kind] = snap(reached, 0)
                break
        else:
            raise RuntimeError(f"no {kind} found")

    # The whole game played to its end.
    ended = play_to_end(copy.deepcopy(duel), rng)
    out["over"] = snap(ended, 0)
    out["over_spectator"] = snap(ended, None)

    # --- obstacles -----------------------------------------------------------------------------
    rocks = start(2, "rocks", obstacles=True)
    choose_objectives(rocks)
    until(rocks, my_main_turn, rng)
    out["obstacles"] = snap(rocks, 0)

    # --- four players in teams -----------------------------------------------------------------
    teams = start(4, "teams", teams=True)
    choose_objectives(teams)
    until(teams, my_main_turn, rng)
    out["teams"] = snap(teams, 0)
    out["teams_over"] = snap(play_to_end(copy.deepcopy(teams), rng), 2)

    # --- Overdrive: the game clock starts with the first turn ----------------------------------
    fast = start(2, "fast", mode="overdrive", clock=5)
    choose_objectives(fast)
    until(fast, my_main_turn, rng)
    out["overdrive"] = snap(fast, 0)

    # --- Cyber-Solitaire against PROTO-ZERO ----------------------------------------------------
    solo = start(1, "solo", mode="solo")
    choose_objectives(solo)
    out["solo"] = snap(solo, 0)
    before = copy.deepcopy(solo)
    solo.act(0, next(c for c in options(solo, 0) if c.TYPE == "end_turn"))
    out["solo_before_ai"] = snap(before, 0)
    out["solo_after_ai"] = snap(solo, 0)
    out["solo_over"] = snap(play_to_end(solo, rng), 0)

    # A discard phase: more than 6 cards at the end of a turn (Overclock, buys).
    hoard = start(2, "hoard", rounds=2)
    choose_objectives(hoard)
    trng = random.Random(3)
    for _ in range(3000):
        state = hoard.state
        if state.phase == "discard" and state.turn == 0:
            break
        if hoard.outcome is not None:
            raise RuntimeError("no discard phase: pick another seed")
        seat = state.turn
        commands = options(hoard, seat)
        buys = [
            c
            for c in commands
            if c.TYPE == "buy_card"
            or getattr(c, "card", "").startswith(("overclock", "power_surge"))
        ]
        if seat == 0 and buys:
            hoard.act(seat, buys[0])
        else:
            hoard.act(seat, pick(hoard, seat, trng))
    out["discard"] = snap(hoard, 0)
    return out


if __name__ == "__main__":
    write_fixtures(build, __file__)
