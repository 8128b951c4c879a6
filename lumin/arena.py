"""``lumin selfplay`` and ``lumin arena``: seeded games between bots, played in-process on a
simulated clock (:mod:`engine.selfplay`), in one or several processes.

A bot kind is one of the game's own bots or ``module:callable``, a client-library bot factory
(:mod:`clients.sdk.bots`) that :mod:`lumin.adapters` seats in the game: it reads the same wire
forms of the view and of ``legal`` that it would read on a live server.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import click

from clients.sdk import BadBot
from engine.core import Rejected
from engine.registry import game_ids, get_game
from engine.selfplay import DEFAULT_BOT_DELAY, GameResult, arena_summary, play_game
from lumin.adapters import BotRefused, seat_factories
from lumin.errors import fail

__all__ = ["arena", "selfplay"]


def _parse_options(pairs: Sequence[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise click.BadParameter(f"{pair!r} is not NAME=VALUE", param_hint="--option")
        options[name] = value
    return options


def _check_game(game_id: str, options: dict[str, str], seats: int) -> None:
    """Fail early, with the rules' own words, on an unknown game, option or seat count."""
    from engine.core import validate_options, validate_seats

    try:
        game = get_game(game_id)
    except KeyError as error:
        raise click.BadParameter(str(error.args[0]), param_hint="GAME") from None
    try:
        checked = validate_options(game, options)
    except Rejected as error:
        raise click.BadParameter(error.message, param_hint="--option") from None
    counts = game.seat_counts(checked)
    if seats not in counts:
        raise click.BadParameter(
            f"{game.name} takes {counts.start} to {counts.stop - 1} seats with these options",
            param_hint="--players/--seats",
        )
    try:
        validate_seats(game, checked, [{}] * seats)
    except Rejected as error:
        raise click.BadParameter(error.message, param_hint="--option") from None


def _play_chunk(
    args: tuple[str, tuple[tuple[str, ...], ...], int, list[int], dict[str, str], float],
) -> list[GameResult]:
    game_id, lineups, seed, indices, options, bot_delay = args
    extra = seat_factories(lineups[0])  # every lineup seats the same kinds
    return [
        play_game(game_id, lineups[i % len(lineups)], seed, i, options, bot_delay, extra)
        for i in indices
    ]


def _run(
    game_id: str,
    lineups: Sequence[tuple[str, ...]],
    games: int,
    seed: int,
    options: dict[str, str],
    jobs: int,
    quiet: bool,
    bot_delay: float = DEFAULT_BOT_DELAY,
) -> tuple[list[GameResult], float]:
    """Play ``games`` games, game ``i`` with ``lineups[i % len(lineups)]``, in ``jobs``
    processes; show a progress bar on standard error unless ``quiet``."""
    chunk = max(1, min(25, games // (jobs * 4) or 1))
    batches = [list(range(start, min(games, start + chunk))) for start in range(0, games, chunk)]
    work = [(game_id, tuple(lineups), seed, batch, options, bot_delay) for batch in batches]
    results: list[GameResult] = []
    started = time.perf_counter()
    mapper: Callable[..., Iterable[list[GameResult]]]
    pool = ProcessPoolExecutor(jobs) if jobs > 1 else None
    mapper = pool.map if pool is not None else map
    command = click.get_current_context().info_name or "arena"
    try:
        with click.progressbar(
            length=games,
            label=f"{game_id}",
            file=sys.stderr,
            hidden=quiet or not sys.stderr.isatty(),
        ) as bar:
            for batch_results in mapper(_play_chunk, work):
                results.extend(batch_results)
                bar.update(len(batch_results))
    except (BotRefused, BadBot) as error:
        fail(command, str(error), 1)
    finally:
        if pool is not None:
            pool.shutdown()
    return sorted(results, key=lambda r: r.index), time.perf_counter() - started


def _detail_means(results: Sequence[GameResult]) -> dict[str, float]:
    """The mean of every numeric outcome detail the game reports (race length, solo score...)."""
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for result in results:
        for name, value in result.details.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                sums[name] = sums.get(name, 0.0) + value
                counts[name] = counts.get(name, 0) + 1
    return {name: sums[name] / counts[name] for name in sorted(sums)}


def _lineups_for(kinds: Sequence[str]) -> list[tuple[str, ...]]:
    """Seatings that rotate ``kinds`` one seat per game, so each kind plays each seat."""
    return [tuple(kinds[s:]) + tuple(kinds[:s]) for s in range(len(kinds))]


def _check_kinds(game_id: str, kinds: Sequence[str], hint: str) -> None:
    """Every kind is one of the game's bots or a ``module:callable`` that names a factory."""
    rules = get_game(game_id)
    for kind in kinds:
        if ":" in kind:
            try:
                seat_factories([kind])
            except BadBot as error:
                raise click.BadParameter(str(error), param_hint=hint) from None
        elif kind not in rules.bots:
            raise click.BadParameter(
                f"{rules.name} has no bot {kind!r}; it has {', '.join(rules.bots)}, or give"
                " MODULE:CALLABLE (a bot of your own, docs/bots.md)",
                param_hint=hint,
            )


_game_arg = click.argument("game", type=click.Choice(game_ids()))
_common = [
    click.option("--games", type=click.IntRange(min=1), default=100, show_default=True),
    click.option("--seed", type=int, default=0, show_default=True, help="Seed of the whole run."),
    click.option("--option", "options", multiple=True, help="A room option, NAME=VALUE."),
    click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True),
    click.option("--json", "as_json", is_flag=True, help="Print one JSON object."),
    click.option(
        "--bot-delay",
        type=click.FloatRange(0, 60),
        default=DEFAULT_BOT_DELAY,
        show_default=True,
        help="Simulated seconds a bot waits before each command (the server's default).",
    ),
]


def _with_common(func: Callable[..., Any]) -> Callable[..., Any]:
    for decorator in reversed(_common):
        func = decorator(func)
    return func


@click.command()
@_game_arg
@_with_common
@click.option("--players", type=int, default=None, help="Seats (default: the fewest allowed).")
@click.option(
    "--bot",
    "kind",
    default=None,
    help="The bot in every seat: a kind of the game's (default: its default bot) or"
    " MODULE:CALLABLE.",
)
def selfplay(
    game: str,
    games: int,
    seed: int,
    options: tuple[str, ...],
    jobs: int,
    as_json: bool,
    bot_delay: float,
    players: int | None,
    kind: str | None,
) -> None:
    """Play GAMES complete games with the same bot in every seat (the game's default bot
    unless --bot) on a simulated clock."""
    room = _parse_options(options)
    rules = get_game(game)
    from engine.core import validate_options

    if players is None:
        try:
            players = rules.seat_counts(validate_options(rules, room)).start
        except Exception:
            players = 2
    _check_game(game, room, players)
    kind = kind or rules.default_bot
    _check_kinds(game, [kind], "--bot")
    lineup = tuple([kind] * players)
    results, elapsed = _run(game, [lineup], games, seed, room, jobs, as_json, bot_delay)
    finished = len(results)
    turns = [r.turns for r in results if r.turns is not None]
    reasons: dict[str, int] = {}
    for result in results:
        reasons[result.reason] = reasons.get(result.reason, 0) + 1
    summary = {
        "game": game,
        "games": games,
        "finished": finished,
        "players": players,
        "bot": kind,
        "bot_delay": bot_delay,
        "options": room,
        "avg_length": sum(r.commands for r in results) / finished if finished else 0.0,
        "avg_events": sum(r.events for r in results) / finished if finished else 0.0,
        "avg_turns": sum(turns) / len(turns) if turns else None,
        "reached_clock": sum(1 for r in results if r.reached_clock),
        "reasons": dict(sorted(reasons.items())),
        "avg_game_seconds_simulated": sum(r.sim_seconds for r in results) / finished
        if finished
        else 0.0,
        "seconds": elapsed,
        "games_per_second": finished / elapsed if elapsed > 0 else float("inf"),
        "details": _detail_means(results),
    }
    if as_json:
        click.echo(json.dumps(summary))
        return
    click.echo(f"{game}: {finished}/{games} games finished with {players} seats")
    length, events = summary["avg_length"], summary["avg_events"]
    click.echo(f"  average length: {length:.1f} commands, {events:.1f} events")
    if summary["avg_turns"] is not None:
        click.echo(f"  average turns: {summary['avg_turns']:.1f}")
    click.echo(f"  ended on the game clock: {summary['reached_clock']}")
    click.echo("  ends: " + ", ".join(f"{k} {n}" for k, n in summary["reasons"].items()))
    if summary["avg_game_seconds_simulated"]:
        click.echo(f"  average simulated game time: {summary['avg_game_seconds_simulated']:.1f} s")
    click.echo(
        f"  {summary['games_per_second']:.1f} games per second ({elapsed:.2f} s, {jobs} job(s))"
    )
    for name, mean in summary["details"].items():
        click.echo(f"  mean {name}: {mean:.2f}")


@click.command()
@_game_arg
@_with_common
@click.option("--a", "bot_a", help="First bot kind (with --b: two-seat games, seats alternate).")
@click.option("--b", "bot_b", help="Second bot kind.")
@click.option("--seats", help="Bot kinds for every seat, comma-separated; rotated each game.")
def arena(
    game: str,
    games: int,
    seed: int,
    options: tuple[str, ...],
    jobs: int,
    as_json: bool,
    bot_delay: float,
    bot_a: str | None,
    bot_b: str | None,
    seats: str | None,
) -> None:
    """Play GAMES games between bot kinds and print each side's win rate with a 95% interval.

    A kind is one of the game's bots or MODULE:CALLABLE, a bot of your own (docs/bots.md). A
    shared victory counts as a fraction to each side sharing it (half each for two)."""
    room = _parse_options(options)
    if seats:
        kinds = [kind.strip() for kind in seats.split(",") if kind.strip()]
    elif bot_a and bot_b:
        kinds = [bot_a, bot_b]
    else:
        raise click.UsageError("give --a and --b, or --seats")
    _check_kinds(game, kinds, "--a/--b/--seats")
    _check_game(game, room, len(kinds))
    results, elapsed = _run(game, _lineups_for(kinds), games, seed, room, jobs, as_json, bot_delay)
    summary = arena_summary(game, results)
    summary["seconds"] = elapsed
    summary["seats"] = kinds
    summary["options"] = room
    summary["bot_delay"] = bot_delay
    summary["reached_clock"] = sum(1 for r in results if r.reached_clock)
    if not seats:
        summary["a"] = summary["bots"][bot_a]
        summary["b"] = summary["bots"][bot_b]
    if as_json:
        click.echo(json.dumps(summary))
        return
    click.echo(
        f"{game}: {summary['games']} games, {summary['draws']} shared victories, {elapsed:.1f} s"
    )
    for kind, entry in summary["bots"].items():
        low, high = entry["ci95"]
        wins, rate = entry["wins"], entry["win_rate"]
        click.echo(f"  {kind:>10}: wins {wins:.1f}  rate {rate:.3f}  95% [{low:.3f}, {high:.3f}]")
        for seat in entry["per_seat"]:
            if seat["games"]:
                low, high = seat["ci95"]
                click.echo(
                    f"  {'':>10}  seat {seat['seat']}: {seat['win_rate']:.3f} of {seat['games']}"
                    f"  95% [{low:.3f}, {high:.3f}]"
                )
        first = entry["first_mover"]
        if first["games"]:
            low, high = first["ci95"]
            click.echo(
                f"  {'':>10}  moving first: {first['win_rate']:.3f} of {first['games']}"
                f"  95% [{low:.3f}, {high:.3f}]"
            )
