"""The ``lumin`` command: self-play and arena runs (the server's commands join it later)."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, NoReturn

import click

from engine.registry import game_ids, get_game
from engine.selfplay import DEFAULT_BOT_DELAY, GameResult, arena_summary, play_game
from lumin.admin import admin
from lumin.ratings import ratings
from lumin.serve import serve

__all__ = ["main"]


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
    from engine.core import Rejected, validate_options, validate_seats

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
    return [
        play_game(game_id, lineups[i % len(lineups)], seed, i, options, bot_delay) for i in indices
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


@click.group()
def main() -> None:
    """Lumin: a real-time server for neon tabletop games."""


main.add_command(admin)


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


@main.command()
@_game_arg
@_with_common
@click.option("--players", type=int, default=None, help="Seats (default: the fewest allowed).")
def selfplay(
    game: str,
    games: int,
    seed: int,
    options: tuple[str, ...],
    jobs: int,
    as_json: bool,
    bot_delay: float,
    players: int | None,
) -> None:
    """Play GAMES complete games between the game's default bots on a simulated clock."""
    room = _parse_options(options)
    rules = get_game(game)
    from engine.core import validate_options

    if players is None:
        try:
            players = rules.seat_counts(validate_options(rules, room)).start
        except Exception:
            players = 2
    _check_game(game, room, players)
    lineup = tuple([rules.default_bot] * players)
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
        "bot": rules.default_bot,
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


@main.command()
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

    A shared victory counts as a fraction to each side sharing it (half each for two)."""
    room = _parse_options(options)
    if seats:
        kinds = [kind.strip() for kind in seats.split(",") if kind.strip()]
    elif bot_a and bot_b:
        kinds = [bot_a, bot_b]
    else:
        raise click.UsageError("give --a and --b, or --seats")
    rules = get_game(game)
    for kind in kinds:
        if kind not in rules.bots:
            raise click.BadParameter(
                f"{rules.name} has no bot {kind!r}; it has {', '.join(rules.bots)}",
                param_hint="--a/--b/--seats",
            )
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


main.add_command(serve)
main.add_command(ratings)


@main.group()
def bench() -> None:
    """Benchmarks against a live server."""


@bench.command("race")
@click.option("--rooms", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--seconds", type=float, default=10.0, show_default=True)
@click.option(
    "--target",
    type=click.Choice(["lumin", "relay"]),
    default="lumin",
    show_default=True,
    help="relay: also run the same load against a bare websockets relay.",
)
@click.option("--url", default=None, help="An already running server (ws://HOST:PORT/ws).")
@click.option(
    "--durability",
    type=click.Choice(["process", "fsync"]),
    default="process",
    show_default=True,
    help="The server's durability mode (when the benchmark starts the server).",
)
@click.option(
    "--pairs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="With --target relay: alternate this many Lumin and relay runs; the ratio is their"
    " median (the machine's speed drifts between runs).",
)
@click.option(
    "--nodes",
    type=click.IntRange(min=1),
    default=None,
    help="Run a cluster of this many nodes (on --store and --redis) instead of the embedded"
    " server.",
)
@click.option(
    "--store",
    default=None,
    help="With --nodes: the nodes' postgresql:// store (default: a scratch database on the"
    " local PostgreSQL, dropped after).",
)
@click.option("--redis", "redis_url", default=None, help="With --nodes: the nodes' redis:// Redis.")
@click.option("--json", "as_json", is_flag=True)
def bench_race_command(
    rooms: int,
    seconds: float,
    target: str,
    url: str | None,
    durability: str,
    pairs: int,
    nodes: int | None,
    store: str | None,
    redis_url: str | None,
    as_json: bool,
) -> None:
    """Flash 8 race rooms of 4 closed-loop clients sliding as fast as the server answers."""
    from clients.load import bench_cluster, bench_race

    if nodes is not None:
        report = bench_cluster(rooms, seconds, nodes, store, redis_url)
        if as_json:
            click.echo(json.dumps(report))
            return
        _print_race(f"lumin, {nodes} node{'s' if nodes > 1 else ''}", report)
        click.echo(
            "  server CPU per command (nodes + PostgreSQL + Redis):"
            f" {report['node_cpu_us_per_command']:.0f}"
            f" + {report['postgres_cpu_us_per_command']:.0f}"
            f" + {report['redis_cpu_us_per_command']:.0f} µs"
        )
        return
    report = bench_race(rooms, seconds, target, url, durability, pairs)
    if as_json:
        click.echo(json.dumps(report))
        return
    if report.get("limits"):
        used = ", ".join(f"--{name} {value}" for name, value in report["limits"].items())
        click.echo(f"server limits raised for the load (one loopback address): {used}")
    _print_race("lumin", report)
    if "relay" in report:
        _print_race("relay", report["relay"])
        click.echo(f"  ratio lumin/relay commands per second: {report['ratio']:.2f}")
        if len(report["ratios"]) > 1:
            each = ", ".join(f"{ratio:.2f}" for ratio in report["ratios"])
            click.echo(f"  (the median of {len(report['ratios'])} alternating pairs: {each})")


def _print_race(label: str, numbers: dict[str, Any]) -> None:
    latency = numbers["latency_ms"]
    line = (
        f"{label}: {numbers['commands_per_second']:.0f} commands/s, latency p50"
        f" {latency['p50']:.2f} ms p99 {latency['p99']:.2f} ms"
    )
    if numbers.get("server_cpu_us_per_command") is not None:
        line += f", server CPU {numbers['server_cpu_us_per_command']:.0f} us/command"
    click.echo(line)
    if numbers.get("delta_bytes_median") is not None:
        click.echo(
            f"  slide delta {numbers['delta_bytes_median']:.0f} bytes (median) against a full"
            f" view of {numbers['view_bytes_median']:.0f} bytes"
        )


@bench.command("failover")
@click.option("--nodes", type=click.IntRange(min=2), default=3, show_default=True)
@click.option("--rooms", type=click.IntRange(min=1), default=30, show_default=True)
@click.option(
    "--kills",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Take-downs of the busiest node, in turn SIGKILL and SIGSTOP (then SIGCONT).",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed of the players' choices (the deals and the timing are the run's own).",
)
@click.option("--lease-ttl", type=click.FloatRange(0.2, 600), default=5.0, show_default=True)
@click.option(
    "--smoke",
    is_flag=True,
    help="A short run instead (4 rooms on 2 nodes, one SIGKILL, a lease TTL of 1 s).",
)
@click.option(
    "--postgres",
    default="postgresql://postgres@127.0.0.1:5432",
    show_default=True,
    help="The PostgreSQL server (no database): the run creates a database and drops it.",
)
@click.option("--redis", default="redis://127.0.0.1:6379/0", show_default=True)
@click.option("--json", "as_json", is_flag=True)
def bench_failover_command(smoke: bool, as_json: bool, **settings: Any) -> None:
    """Nodes of a cluster killed and paused under live games: exits 1 when an acknowledged
    command was lost, a log forked, a spectator missed a delta or a game did not finish."""
    from clients.failover import SMOKE, FailoverRun, bench_failover

    report = bench_failover(FailoverRun(**(settings | SMOKE if smoke else settings)))
    if as_json:
        click.echo(json.dumps(report))
    else:
        _print_failover(report)
    if report["failed"]:
        sys.exit(1)


def _print_failover(report: dict[str, Any]) -> None:
    signals = ", ".join(down["signal"] for down in report["takedowns"]) or "none"
    failover = report["failover_seconds"]
    kills = f"{report['kills']} kill{'' if report['kills'] == 1 else 's'}"
    click.echo(
        f"failover: {report['nodes']} nodes, {report['rooms']} rooms, {kills}"
        f" ({signals}), lease TTL {report['lease_ttl']:g} s, seed {report['seed']}:"
        f" {report['seconds']:.0f} s"
    )
    click.echo(
        f"  {report['acked']} commands acknowledged ({report['acked_during_failover']} during"
        f" failovers), {report['acked_lost']} lost, {report['forks']} forks"
    )
    click.echo(
        f"  {report['rooms_moved']} rooms moved, back in play after p50 {failover['p50']} s,"
        f" max {failover['max']} s; {report['rooms_finished']}/{report['rooms']} games finished"
    )
    click.echo(
        f"  {report['spectators']} spectators: {report['spectator_gaps']} gaps,"
        f" {report['snapshots']} snapshots"
    )
    for failure in report["failed"]:
        click.echo(f"  FAILED: {failure}")
    if report.get("logs"):
        click.echo(f"  the nodes' logs are in {report['logs']}")


def _fail(command: str, message: str, status: int) -> NoReturn:
    """Print ``lumin COMMAND: MESSAGE`` as one line on standard error and exit with
    ``status``."""
    click.echo(f"lumin {command}: {' '.join(message.split())}", err=True)
    sys.exit(status)


_data_option = click.option(
    "--data",
    envvar="LUMIN_DATA",
    type=click.Path(path_type=Path),
    default=Path("data"),
    show_default=True,
    help="The server's data folder (as lumin serve --data).",
)


@main.command("backup")
@click.argument("dest", type=click.Path(path_type=Path))
@_data_option
def backup_command(dest: Path, data: Path) -> None:
    """Copy the data folder's SQLite store to DEST (a file, or a folder to put a dated file
    in), consistently, even while a server runs on it; the copy is checked before it replaces
    DEST. Exits 1 when it cannot be made."""
    from server.backup import BackupError, backup

    try:
        copied = backup(data, dest)
    except BackupError as error:
        _fail("backup", str(error), 1)
    click.echo(f"backed up {data} to {copied.path}: {copied.describe()}; integrity ok")


@main.command("restore")
@click.argument("src", type=click.Path(path_type=Path))
@_data_option
def restore_command(src: Path, data: Path) -> None:
    """Put the SQLite store SRC (a lumin backup) in place as the data folder's store, keeping
    the one it replaces as lumin.sqlite3.before-restore. Refused (exit 1) while a server runs
    on the folder, and for a file that is not a whole Lumin store this Lumin can open."""
    from server.backup import BackupError, restore

    try:
        restored, kept = restore(data, src)
    except BackupError as error:
        _fail("restore", str(error), 1)
    click.echo(f"restored {src} into {data}: {restored.describe()}")
    if kept is not None:
        click.echo(f"the store it replaced is kept as {kept}")


@main.command("bot")
@click.argument("url")
@click.argument("room")
@click.option("--seat", type=int, required=True, help="The seat to play.")
@click.option("--kind", default=None, help="Bot kind (default: the game's default bot).")
@click.option("--name", default="Lumin bot", show_default=True)
@click.option("--token", envvar="LUMIN_TOKEN", default=None, help="Reclaim a seat held before.")
@click.option("--code", default=None, help="A private room's code.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--give-up",
    type=click.FloatRange(min=0),
    default=60.0,
    show_default=True,
    help="Seconds to keep reconnecting once the server goes away, then exit 1.",
)
def bot_command(url: str, room: str, **options: Any) -> None:
    """Play a seat of ROOM on the server at URL (ws://HOST:PORT/ws) with one of Lumin's bots;
    print the outcome as JSON. Exits 2 when it cannot take the seat (server unreachable, token,
    room, seat or code refused, no such bot kind for the room's game), 1 when the game cannot
    go on (the server stayed away longer than --give-up, or refused a request)."""
    from clients.sdk import ServerError
    from lumin.netbot import CannotPlay
    from lumin.netbot import run as run_bot

    try:
        result = run_bot(url, room, options.pop("seat"), **options)
    except CannotPlay as error:
        _fail("bot", str(error), 2)
    except ServerError as error:
        _fail("bot", str(error), 1)
    except KeyboardInterrupt:
        _fail("bot", "interrupted", 130)
    click.echo(json.dumps(result))


class _BadLog(Exception):
    """The source of ``lumin verify`` cannot be read, or holds no Lumin game log."""


#: The fields ``lumin verify`` needs in a log document, with their JSON types.
_LOG_FIELDS: dict[str, type | tuple[type, ...]] = {
    "game": str,
    "options": dict,
    "seats": list,
    "seed": str,
    "salt": str,
    "commitment": str,
    "records": list,
}
_RECORD_FIELDS: dict[str, type | tuple[type, ...]] = {
    "seq": int,
    "position": int,
    "seat": (int, type(None)),
    "command": (dict, type(None)),
    "at": (int, float),
    "events": list,
}


def _read_source(source: str) -> bytes:
    """The bytes at SOURCE: an http(s) URL, else a file; :class:`_BadLog` when unreadable."""
    import http.client
    import urllib.error
    import urllib.request

    if not source.startswith(("http://", "https://")):
        try:
            return Path(source).read_bytes()
        except OSError as error:
            raise _BadLog(f"cannot read {source}: {error.strerror or error}") from None
    try:
        with urllib.request.urlopen(source, timeout=30) as answer:
            return bytes(answer.read())
    except urllib.error.HTTPError as error:
        raise _BadLog(f"{source} answered HTTP {error.code} {error.reason}") from None
    except urllib.error.URLError as error:
        raise _BadLog(f"cannot fetch {source}: {error.reason}") from None
    except (OSError, ValueError, http.client.HTTPException) as error:
        raise _BadLog(f"cannot fetch {source}: {error}") from None


def _fields_problem(item: Any, fields: dict[str, type | tuple[type, ...]], what: str) -> str | None:
    """What is wrong with ``item`` as a JSON object holding ``fields``, or ``None``."""
    if not isinstance(item, dict):
        return f"{what} is not a JSON object"
    for name, kind in fields.items():
        if name not in item:
            return f"{what} has no {name!r} field"
        value = item[name]
        if isinstance(value, bool) or not isinstance(value, kind):
            return f"{what}'s {name!r} has the wrong type"
    return None


def _log_problem(document: Any) -> str | None:
    """Why ``document`` is not a log document ``lumin verify`` can replay, or ``None``."""
    problem = _fields_problem(document, _LOG_FIELDS, "the document")
    if problem is not None:
        return problem
    if document["game"] not in game_ids():
        return f"its game {document['game']!r} is not one Lumin hosts"
    for name in ("seed", "salt"):
        try:
            bytes.fromhex(document[name])
        except ValueError:
            return f"its {name!r} is not hexadecimal"
    if not all(isinstance(seat, dict) for seat in document["seats"]):
        return "a seat is not a JSON object"
    for n, record in enumerate(document["records"]):
        problem = _fields_problem(record, _RECORD_FIELDS, f"record {n}")
        if problem is not None:
            return problem
    return None


def _load_log(source: str) -> dict[str, Any]:
    """The log document at SOURCE, checked for every field verification reads."""
    try:
        document = json.loads(_read_source(source))
    except ValueError as error:  # not JSON, or not UTF-8
        raise _BadLog(f"{source} is not JSON ({error})") from None
    problem = _log_problem(document)
    if problem is not None:
        raise _BadLog(f"{source} is not a Lumin game log: {problem}")
    assert isinstance(document, dict)
    return document


@main.command()
@click.argument("source")
def verify(source: str) -> None:
    """Recompute a finished game from its log: SOURCE is a downloaded log file or the server's
    URL for it (http://HOST:PORT/rooms/ROOM/log). Exits 1 when anything does not match, 2 when
    SOURCE cannot be read or holds no Lumin game log."""
    from engine.core import Rejected
    from server.verify import verify_document

    try:
        document = _load_log(source)
    except _BadLog as error:
        _fail("verify", str(error), 2)
    try:
        report = verify_document(document)
    except Rejected as refusal:
        click.echo(
            f"MISMATCH: the rules refuse the game's setup ({refusal.code}: {refusal.message})"
        )
        sys.exit(1)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        _fail("verify", f"{source} cannot be replayed ({type(error).__name__}: {error})", 2)
    click.echo(
        f"{report.game} room {document.get('room')}: {report.records} records, "
        f"{report.events} events, commitment {document['commitment'][:16]}..."
    )
    if report.ok:
        click.echo("verified: every deal, shuffle and die follows from the revealed seed")
        return
    for problem in report.problems:
        click.echo(f"MISMATCH: {problem}")
    sys.exit(1)


if __name__ == "__main__":
    main()
