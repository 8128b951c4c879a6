"""Dump real Neon Hex views and legal commands for the board's unit tests.

Every fixture comes from the engine itself (``engine.registry.get_game("neon_hex")`` played
through ``engine.match.Match``), so the tests draw exactly the shapes the server sends: one
viewer's view and that viewer's ``legal`` list (compact entries with ``choose`` left as the
server sends them). Steps that the board animates are stored as ``*_before`` / ``*_after``
pairs, and a whole bot turn as a list of views (``bot_turn``).

Run from the repository root::

    .venv/bin/python clients/web/src/boards/neon_hex/fixtures.py

It writes ``fixtures.json`` next to this file: ``{name: {"view": ..., "legal": [...]}}`` and
``{"bot_turn": [{"view": ..., "legal": [...]}, ...]}``. The output is deterministic (fixed
seeds).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[5]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from clients.web.scripts.board_fixtures import fixture, write_fixtures  # noqa: E402
from engine.core import SeatSpec, chance  # noqa: E402
from engine.match import Match, make_bots, play_out  # noqa: E402
from engine.neon_hex.messages import EndTurn, Expand  # noqa: E402
from engine.registry import get_game  # noqa: E402

GAME = get_game("neon_hex")
NAMES = ("Ada", "Bob", "Cy", "Di", "Eve")


def new_match(players: int, seed: bytes, colours: tuple[str, ...] = ()) -> Match:
    """A fresh room of ``players`` factions (``colours`` picked by the first seats); seat 0's
    first turn has begun."""
    seats = [
        SeatSpec(name=NAMES[n], choices={"colour": colours[n]} if n < len(colours) else {})
        for n in range(players)
    ]
    return Match.start(GAME, seats, seed)


def snap(match: Match, viewer: int | None) -> dict[str, Any]:
    """One fixture: the view of ``viewer`` and its legal commands."""
    return fixture(GAME, match.state, viewer)


def copy(match: Match) -> Match:
    return Match(
        match.game,
        match.options,
        match.seats,
        match.seed,
        match.first,
        match.state,
        list(match.log),
    )


def first_target(match: Match, seat: int) -> int:
    return next(e["target"] for e in GAME.legal(match.state, seat) if e["type"] == "expand")


def risk_with(match: Match, seat: int, success: bool) -> Match:
    """A copy of ``match`` after a Risk by ``seat`` on its first target that succeeded (or
    failed): earlier log positions are padded by trying other targets first, deterministically,
    until the dice agree. The seed decides the dice, so it is the seed that is searched."""
    for n in range(500):
        trial = Match(
            match.game,
            match.options,
            match.seats,
            match.seed + f"/{n}".encode(),
            match.first,
            match.state,
            list(match.log),
        )
        rng = chance(trial.seed, len(trial.log))
        dice = rng.randint(1, 6) + rng.randint(1, 6)
        if (dice >= 9) == success:
            trial.act(seat, Expand(target=first_target(trial, seat), kind="risk"))
            return trial
    raise RuntimeError("no seed gave the wanted roll")


def build() -> dict[str, Any]:
    out: dict[str, Any] = {}

    # --- two factions: the first turn, seen by each seat and a spectator ----------------------
    two = new_match(2, b"neon-hex-fixtures")
    out["start"] = snap(two, 0)
    out["start_other"] = snap(two, 1)
    out["start_spectator"] = snap(two, None)

    # A Safe expansion by seat 0.
    safe = copy(two)
    safe.act(0, Expand(target=first_target(safe, 0), kind="safe"))
    out["safe_after"] = snap(safe, 0)

    # Risk expansions by seat 0, one breakthrough and one failure.
    out["risk_success"] = snap(risk_with(two, 0, True), 0)
    out["risk_fail"] = snap(risk_with(two, 0, False), 0)

    # Three Safe expansions leave 1 Energy: only Safe entries are offered.
    low = copy(safe)
    for _ in range(2):
        low.act(0, Expand(target=first_target(low, 0), kind="safe"))
    out["low_energy"] = snap(low, 0)
    low.act(0, Expand(target=first_target(low, 0), kind="safe"))
    out["no_energy"] = snap(low, 0)

    # Seat 0 ends its turn; a Medium bot plays seat 1's turn: every view seat 0 sees on the way.
    turn = copy(safe)
    turn.act(0, EndTurn())
    frames = [snap(turn, 0)]
    bot = make_bots(turn, [None, "medium"], b"bots")[1]
    assert bot is not None
    while turn.outcome is None and turn.state.current == 1:
        options = turn.options_for(1)
        action = bot.act(GAME.view(turn.state, 1), options, turn.now)
        assert action is not None
        turn.act(1, action.command)
        frames.append(snap(turn, 0))
    out["bot_turn"] = frames

    # --- five factions, seat 2 watching its rivals; chosen colours (two seats share one) ------
    five = new_match(5, b"five", ("red", "red", "white"))
    out["five"] = snap(five, 2)

    # --- the end: a whole game played by bots (seat 0 wins with 12 hexes or not) --------------
    whole = new_match(3, b"whole-game")
    bots = make_bots(whole, ["hard", "easy", "easy"], b"whole-bots")
    play_out(whole, bots)
    out["over"] = snap(whole, 0)
    out["over_spectator"] = snap(whole, None)

    # A stalled game: both factions end their turns without claiming, a shared victory.
    stall = new_match(2, b"stall")
    for seat in (0, 1, 0):
        if stall.outcome is None:
            stall.act(seat, EndTurn())
    out["over_draw"] = snap(stall, 1)
    return out


if __name__ == "__main__":
    write_fixtures(build, __file__)
