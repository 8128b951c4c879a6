"""``lumin serve``: the server's flags, one per setting of :class:`server.config.Settings`.

Every flag has an environment variable (``LUMIN_`` and its setting's name in capitals: the
flag with ``-`` as ``_``, and plural for the repeatable ``--origin`` and ``--trusted-proxy``,
whose variables hold several values separated by spaces)
and the setting's default, and is checked against the setting's range before anything starts:
a bad value is one line naming the flag, never a traceback. A server that cannot start (a port
in use, a data folder it cannot write or that another server holds) says why in one line on
standard error and exits 1. One that starts prints one line on standard output, once it
listens, saying where to point a browser (:func:`lumin.urls.browser_line`), and serves the
browser client this install carries (:mod:`lumin.webclient`) unless ``--static`` names another.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from lumin import webclient
from lumin.urls import browser_line
from server.config import LOG_FORMATS, LOG_LEVELS, Settings

__all__ = ["serve"]


def _check_workers(settings: Settings) -> None:
    """Several nodes on one machine need a store they share and a port and URL each."""
    if settings.store is None:
        raise click.BadParameter(
            "--workers needs --store postgresql://...: the embedded SQLite store is one"
            " process, which locks its data folder",
            param_hint="'--workers'",
        )
    if settings.port == 0:
        raise click.BadParameter("--workers needs a --port P: its nodes listen on P, P+1...")
    if settings.public_url is not None and "{port}" not in settings.public_url:
        raise click.BadParameter(
            "with --workers, --public-url needs {port}: each node has its own URL",
            param_hint="'--public-url'",
        )


#: The defaults the flags show are the settings' own.
_DEFAULTS = Settings()


class _Number(click.ParamType):
    """A finite int or float within a range (click's ranges let NaN through)."""

    def __init__(self, kind: type, low: float, high: float = math.inf, above: bool = False) -> None:
        self.kind, self.low, self.high, self.above = kind, low, high, above
        self.name = "integer" if kind is int else "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            number = self.kind(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a{'n integer' if self.kind is int else ' number'}.")
        low_ok = number > self.low if self.above else number >= self.low
        if not math.isfinite(number) or not low_ok or number > self.high:
            bound = f"above {self.low:g}" if self.above else f"at least {self.low:g}"
            if self.high != math.inf:
                bound += f" and at most {self.high:g}"
            self.fail(f"{value!r} is not {bound}.")
        return number


def _env(setting: str) -> str:
    return "LUMIN_" + setting.upper()


#: Each setting's flag, and whether it repeats (to spell a node's settings out for a worker).
_SPELLED: dict[str, tuple[str, bool]] = {}


def _option(flag: str, kind: Any, doc: str, **extra: Any) -> Callable[[Any], Any]:
    """The flag ``--flag`` for the setting of the same name."""
    name = extra.pop("setting", flag.replace("-", "_"))
    _SPELLED[name] = (f"--{flag}", bool(extra.get("multiple")))
    return click.option(
        f"--{flag}",
        name,
        envvar=_env(name),
        type=kind,
        default=extra.pop("default", getattr(_DEFAULTS, name, None)),
        show_default=True,
        help=doc,
        **extra,
    )


_FLAGS = [
    _option("host", str, "Address to listen on."),
    _option("port", _Number(int, 0, 65535), "Port to listen on (0: any free port)."),
    _option("data", click.Path(path_type=Path), "Data folder (the SQLite event store)."),
    _option(
        "store",
        str,
        "A postgresql:// URL to keep rooms and logs in PostgreSQL; default: SQLite in --data.",
    ),
    _option(
        "redis",
        str,
        "A redis:// URL: the cluster's node registry and lobby (needs --store postgresql://).",
    ),
    _option("redis-prefix", str, "Prefix of the cluster's Redis keys and channels."),
    _option(
        "public-url",
        str,
        "This node's websocket URL as clients reach it ({port}: the port); default:"
        " ws://HOST:PORT/ws.",
    ),
    _option("node-id", str, "This node's name in a cluster (PostgreSQL store); default: random."),
    _option("lease-ttl", _Number(float, 0.2, 600), "Seconds a room's lease lasts unless renewed."),
    _option(
        "drain-timeout",
        _Number(float, 0, 3600),
        "Seconds a stopping cluster node spends handing its rooms to others at most.",
    ),
    _option(
        "origin",
        str,
        "Allowed browser Origin (repeat); default: the page's own origin (same origin).",
        setting="origins",
        multiple=True,
        default=(),
    ),
    _option("durability", click.Choice(["process", "fsync"]), "What an acknowledgement survives."),
    _option("max-frame", _Number(int, 1024, 16 * 1024 * 1024), "Largest client frame in bytes."),
    _option("rate", _Number(float, 0, above=True), "Messages per second per person."),
    _option("burst", _Number(int, 1), "Messages a person may send at once."),
    _option("address-rate", _Number(float, 0, above=True), "Messages per second per address."),
    _option("address-burst", _Number(int, 1), "Messages one address may send at once."),
    _option(
        "connect-rate", _Number(float, 0, above=True), "New connections per second per address."
    ),
    _option("connect-burst", _Number(int, 1), "New connections one address may open at once."),
    _option("connections-per-address", _Number(int, 1), "Open connections one address may hold."),
    _option(
        "opening-per-address",
        _Number(int, 1),
        "Connections one address may have opening at once (before their HTTP request).",
    ),
    _option("http-rate", _Number(float, 0, above=True), "HTTP requests per second per address."),
    _option("http-burst", _Number(int, 1), "HTTP requests one address may send at once."),
    _option(
        "trusted-proxy",
        str,
        "A proxy (address or CIDR network) whose X-Forwarded-For names the client (repeat).",
        setting="trusted_proxies",
        multiple=True,
        default=(),
    ),
    _option(
        "ipv6-prefix",
        _Number(int, 1, 128),
        "Bits of an IPv6 address that make its per-address bucket (its /N network).",
    ),
    _option(
        "hash-concurrency",
        _Number(int, 1, 64),
        "Password hashes (claims, sign-ins) this node runs at once.",
    ),
    _option(
        "hash-queue",
        _Number(int, 0, 10_000),
        "Password hashes that may wait for a turn; past that: try_again.",
    ),
    _option("rooms-per-identity", _Number(int, 1), "Open rooms one person may have created."),
    _option("rooms-per-address", _Number(int, 1), "Open rooms one address may have created."),
    _option(
        "quick-play-per-person", _Number(int, 1), "Quick-play tickets one person may hold at once."
    ),
    _option(
        "quick-play-per-address",
        _Number(int, 1),
        "Quick-play tickets one address may hold at once.",
    ),
    _option(
        "abandoned-after",
        _Number(float, 1),
        "Seconds a playing room with no human and nobody watching goes on.",
    ),
    _option("lobby-page", _Number(int, 1, 1000), "Rooms in one list_rooms answer at most."),
    _option(
        "send-buffer",
        _Number(int, 4096),
        "Unsent bytes a connection may hold before it is dropped as too slow.",
    ),
    _option(
        "min-turn-clock",
        _Number(float, 0, 3600, above=True),
        "The shortest turn clock (seconds) a room may set.",
    ),
    _option("bot-delay", _Number(float, 0, 60), "Seconds a bot waits before a turn-based move."),
    _option(
        "grace", _Number(float, 0, 86400), "Seconds before a bot plays for a disconnected player."
    ),
    _option("idle-expiry", _Number(float, 0, above=True), "Seconds an empty waiting room lives."),
    _option("retention-days", _Number(float, 0, above=True), "Days finished games are kept."),
    _option(
        "guest-retention-days",
        _Number(float, 0, above=True),
        "Days an unclaimed guest identity is kept after its last hello.",
    ),
    _option(
        "session-lifetime",
        _Number(float, 0, 36_500, above=True),
        "Days an account's session lasts after its last use.",
    ),
    _option(
        "resume-window",
        _Number(float, 0),
        "Seconds a viewer's deltas are kept after its last connection left.",
    ),
    _option("history", _Number(int, 1), "Batches of deltas a room keeps for resume."),
    _option("chat-length", _Number(int, 1, 8192), "Characters in one chat line at most."),
    _option("chat-rate", _Number(int, 1), "Chat lines per person per 10 seconds at most."),
    _option(
        "static",
        click.Path(path_type=Path),
        "Folder of the browser client's built files; default: the client this install carries"
        " (lumin/web in the package, or a checkout's clients/web/dist).",
    ),
    _option(
        "loop",
        click.Choice(["uvloop", "asyncio"]),
        "The event loop: uvloop (faster) or the standard asyncio one.",
    ),
    _option(
        "admin-token",
        str,
        "Bearer token of the admin API (/api/admin/, lumin admin); none: the API is off.",
    ),
    _option(
        "jwt-key",
        str,
        "An identity provider's public key (PEM file) whose signed JWTs hello accepts.",
    ),
    _option("jwt-jwks", str, "An identity provider's JWKS URL (instead of --jwt-key)."),
    _option("jwt-issuer", str, "The issuer (iss) identity tokens must name; none: unchecked."),
    _option("jwt-audience", str, "The audience (aud) identity tokens must name; none: unchecked."),
    _option(
        "jwt-algorithm",
        click.Choice(["RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "EdDSA"]),
        "A signature algorithm identity tokens may use (repeat).",
        setting="jwt_algorithms",
        multiple=True,
    ),
    _option(
        "leaderboard-games",
        _Number(int, 1),
        "Rated games a player needs to appear on a leaderboard.",
    ),
    _option(
        "metrics-listen",
        str,
        "HOST:PORT where Prometheus scrapes /metrics (keep it private); default: none.",
    ),
    _option(
        "lag-probe",
        _Number(float, 0.001, 10),
        "Seconds between two samples of the event loop's lag (the lag metric).",
    ),
    _option(
        "log-level",
        click.Choice(LOG_LEVELS, case_sensitive=False),
        "The lowest level logged (debug adds a line per request).",
        default="info",
    ),
    _option(
        "log-format",
        click.Choice(LOG_FORMATS, case_sensitive=False),
        "Standard error as JSON lines (json) or as lines for a person to read (console).",
        default="json",
    ),
]


def _with_flags(command: Callable[..., Any]) -> Callable[..., Any]:
    for flag in reversed(_FLAGS):
        command = flag(command)
    return command


def _command_line(flags: dict[str, Any]) -> list[str]:
    """The ``lumin serve`` flags that give these values (every flag spelled out)."""
    line: list[str] = []
    for name, (flag, multiple) in _SPELLED.items():
        value = flags[name]
        for each in value if multiple else () if value is None else (value,):
            line += [flag, str(each)]
    return line


def _run_workers(count: int, flags: dict[str, Any]) -> None:
    """Run ``count`` cluster nodes on this machine, each its own ``lumin serve`` process on
    the next port (``--port`` P, P+1, ...) with its own node id (``<node-id>-<i>``) and public
    URL (``{port}`` filled in); SIGTERM and SIGINT are passed on to every one (each drains),
    and this process ends when they all have, with the worst exit status."""
    import os
    import secrets
    import signal
    import subprocess

    base = flags["node_id"] or f"node-{secrets.token_hex(3)}"
    workers = []
    for i in range(count):
        # The admin token goes in the environment: a command line is public on the machine.
        each = flags | {"port": flags["port"] + i, "node_id": f"{base}-{i}", "admin_token": None}
        command = [sys.executable, "-m", "lumin.cli", "serve", *_command_line(each)]
        token = {"LUMIN_ADMIN_TOKEN": flags["admin_token"]} if flags["admin_token"] else {}
        workers.append(subprocess.Popen(command, stdin=subprocess.DEVNULL, env=os.environ | token))

    def pass_on(signum: int, _: Any) -> None:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signum)

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, pass_on)
    codes = [worker.wait() for worker in workers]
    raise SystemExit(max(abs(code) for code in codes))


@click.command()
@_with_flags
@click.option(
    "--workers",
    envvar="LUMIN_WORKERS",
    type=_Number(int, 1, 256),
    default=1,
    show_default=True,
    help="Cluster nodes to run on this machine (PostgreSQL store): ports --port, --port+1...",
)
def serve(workers: int, **flags: Any) -> None:
    """Run the Lumin server (SQLite in the data folder, one process) until SIGTERM.

    Once it listens it prints one line on standard output, whatever the log format, saying
    where to point a browser:

    \b
      Lumin is serving: point a browser at http://127.0.0.1:8700/

    Every flag has its variable (LUMIN_ and the flag's name: LUMIN_PORT, LUMIN_DATA...).

    \b
    Examples:
      lumin serve                            # ./data, http://127.0.0.1:8700/
      lumin serve --data ~/lumin --port 9000
      lumin serve --host 0.0.0.0 --log-format console
    """
    from server import eventloop
    from server.app import LuminServer, StartupError, run
    from server.logs import configure_logging, get_logger

    if flags["static"] is None:
        flags["static"] = webclient.folder()
    level = flags.pop("log_level")
    log_format = flags.pop("log_format").lower()
    flags["origins"] = tuple(flags["origins"])
    flags["trusted_proxies"] = tuple(flags["trusted_proxies"])
    try:
        settings = Settings(**flags)
    except ValueError as error:  # a combination the flags' own checks do not cover
        raise click.BadParameter(str(error)) from None
    if workers > 1:
        _check_workers(settings)
        _run_workers(workers, flags | {"log_level": level, "log_format": log_format})
        return
    configure_logging(level.lower(), json=log_format == "json")

    def listening(server: LuminServer) -> None:
        served = server.http.static
        line = browser_line(
            settings.host,
            server.port,
            settings.public_url,
            bool(served.files) and not served.missing,
        )
        click.echo(line)
        sys.stdout.flush()  # a pipe or a journal sees it now, not when the buffer fills

    try:
        eventloop.run(run(settings, listening), settings.loop)  # the server logs ``listening``
    except StartupError as error:
        if log_format == "json":  # standard error stays JSON lines, this one included
            get_logger("lumin.serve").error("startup_failed", error=str(error))
        else:
            click.echo(f"lumin serve: {error}", err=True)
        raise SystemExit(1) from None
