"""The server's settings, from command-line flags and ``LUMIN_*`` environment variables.

Every setting is checked when :class:`Settings` is built (the ranges below), so a server can
never run with a limit that refuses everything or a port that is not one; ``lumin serve``'s
flags check the same ranges, and ``docs/operating.md`` lists each with its variable.
"""

from __future__ import annotations

import math
import socket
import urllib.parse
from pathlib import Path
from typing import Any

import attrs

__all__ = ["LOG_FORMATS", "LOG_LEVELS", "Settings", "shown_url", "split_host_port"]

#: The ``--log-level`` choices.
LOG_LEVELS = ("debug", "info", "warning", "error")
#: The ``--log-format`` choices: JSON lines (for a log collector) or console lines (a person).
LOG_FORMATS = ("json", "console")


def _within(
    low: float, high: float = math.inf, *, above: bool = False
) -> Any:  # an attrs validator
    """A validator: a finite number from ``low`` (or above it, with ``above``) to ``high``."""

    def check(instance: Any, attribute: attrs.Attribute[Any], value: float) -> None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{attribute.name} is a number, not {value!r}")
        if not math.isfinite(value) or value > high or value < low or (above and value == low):
            bound = f"above {low:g}" if above else f"at least {low:g}"
            if high != math.inf:
                bound += f" and at most {high:g}"
            raise ValueError(f"{attribute.name} is {bound}, not {value!r}")

    return check


def _networks(instance: Any, attribute: attrs.Attribute[Any], value: tuple[str, ...]) -> None:
    from server.limits import parse_networks

    parse_networks(value)


def shown_url(url: str | None) -> str:
    """A store URL as it may be printed or logged: its password (in the address or as a
    ``password=`` parameter) masked; ``None`` is the embedded SQLite store."""
    if url is None:
        return "(SQLite in the data folder)"
    parts = urllib.parse.urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        netloc = netloc.replace(f":{parts.password}@", ":***@", 1)
    query = urllib.parse.urlencode(
        [
            (key, "***" if key == "password" else value)
            for key, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
        ],
        safe="*",
    )
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc, query=query))


def split_host_port(address: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:9700`` for IPv6) as its host and port; ``ValueError`` naming
    what is wrong."""
    host, colon, port = address.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not colon or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"expected HOST:PORT (a port 0 to 65535), not {address!r}")
    return host, int(port)


def _host_port(instance: Any, attribute: attrs.Attribute[Any], value: str | None) -> None:
    if value is not None:
        try:
            split_host_port(value)
        except ValueError as error:
            raise ValueError(f"{attribute.name}: {error}") from None


def _store_url(instance: Any, attribute: attrs.Attribute[Any], value: str | None) -> None:
    if value is not None and not value.startswith(("postgresql://", "postgres://")):
        raise ValueError(
            "store is a postgresql:// URL (or unset for SQLite in the data folder),"
            f" not {shown_url(value)!r}"
        )


@attrs.frozen
class Settings:
    """Everything an operator can tune; ``docs/operating.md`` lists each with its variable."""

    host: str = "127.0.0.1"
    port: int = attrs.field(default=8700, validator=_within(0, 65535))
    data: Path = Path("data")
    #: Where rooms, logs and identities are kept: ``None`` for the embedded SQLite file in
    #: ``data``, or a ``postgresql://`` URL (the store a cluster's nodes share).
    store: str | None = attrs.field(default=None, validator=_store_url, repr=shown_url)
    #: This node's name among a cluster's nodes (PostgreSQL store only): who holds a room's
    #: lease. ``None``: ``node-`` and random hex, new at every start.
    node_id: str | None = None
    #: The Redis of a cluster (``redis://`` or ``rediss://``): the node registry, room hints,
    #: the cluster-wide lobby. Needs the PostgreSQL store. ``None``: no registry, so this node
    #: cannot send clients on to another (``moved``).
    redis: str | None = attrs.field(default=None, repr=shown_url)
    #: The prefix of every Redis key and channel this cluster uses (clusters may share a Redis).
    redis_prefix: str = "lumin:"
    #: The websocket URL clients reach this node at, as ``moved`` names it (``{port}`` is
    #: replaced by the port listened on). ``None``: ``ws://HOST:PORT/ws`` of ``host``.
    public_url: str | None = None
    #: Seconds a stopping cluster node spends handing its rooms to other nodes at most; rooms
    #: left then are released as it stops (another node claims each within a renewal round).
    drain_timeout: float = attrs.field(default=30.0, validator=_within(0, 3600))
    #: Seconds a room's lease lasts unless renewed (renewed three times per TTL); a node that
    #: dies or pauses loses its rooms to the others after at most this.
    lease_ttl: float = attrs.field(default=5.0, validator=_within(0.2, 600))
    #: Allowed ``Origin`` headers for websocket connections; clients that send no Origin (bots,
    #: terminal clients) are always allowed. Empty means same origin: the Origin must name the
    #: Host the request was sent to.
    origins: tuple[str, ...] = ()
    #: Largest frame a client may send, in bytes.
    max_frame: int = attrs.field(default=64 * 1024, validator=_within(1024, 16 * 1024 * 1024))
    #: Messages one person (an identity, over all its connections; before ``hello``, one
    #: connection) may send per second on average, and in a burst.
    rate: float = attrs.field(default=50.0, validator=_within(0, above=True))
    burst: int = attrs.field(default=100, validator=_within(1))
    #: Messages per second, and burst, from one client address (several people may share one).
    address_rate: float = attrs.field(default=200.0, validator=_within(0, above=True))
    address_burst: int = attrs.field(default=400, validator=_within(1))
    #: New websocket connections per second, and burst, from one client address, and how many
    #: it may hold open at once.
    connect_rate: float = attrs.field(default=2.0, validator=_within(0, above=True))
    connect_burst: int = attrs.field(default=20, validator=_within(1))
    connections_per_address: int = attrs.field(default=100, validator=_within(1))
    #: HTTP requests (everything on the port but the websocket upgrade: pages, leaderboards,
    #: logs, the admin API) per second, and burst, from one client address.
    http_rate: float = attrs.field(default=10.0, validator=_within(0, above=True))
    http_burst: int = attrs.field(default=60, validator=_within(1))
    #: Connections from one client address (its bucket) that may be opening at once: past
    #: their TCP connect and not yet past their HTTP request (a client sending half a
    #: request holds one until websockets' 10 s open timeout). Past it, new ones are closed
    #: at once. A trusted proxy's connections are not counted (the proxy bounds its own).
    opening_per_address: int = attrs.field(default=32, validator=_within(1))
    #: Proxies (addresses or CIDR networks) whose ``X-Forwarded-For`` names the client.
    trusted_proxies: tuple[str, ...] = attrs.field(default=(), validator=_networks)
    #: Bits of an IPv6 client address that make its per-address bucket (every per-address
    #: limit counts the whole network): 64 is the network one household or host is given.
    ipv6_prefix: int = attrs.field(
        default=64, validator=[attrs.validators.instance_of(int), _within(1, 128)]
    )
    #: Password hashes (``claim_name``, ``sign_in``) this node runs at once, and how many more
    #: may wait for one of them; past that a claim or sign-in is answered ``try_again``. One
    #: Argon2id hash keeps about two cores busy for a tenth of a second.
    hash_concurrency: int = attrs.field(default=1, validator=_within(1, 64))
    hash_queue: int = attrs.field(default=8, validator=_within(0, 10_000))
    #: Open (waiting or playing) rooms one identity, and one address, may have created.
    rooms_per_identity: int = attrs.field(default=10, validator=_within(1))
    rooms_per_address: int = attrs.field(default=50, validator=_within(1))
    #: Quick-play tickets (``play_now``) one person, and one address, may have waiting at once.
    quick_play_per_person: int = attrs.field(default=3, validator=_within(1))
    quick_play_per_address: int = attrs.field(default=20, validator=_within(1))
    #: Seconds a playing room may go on with no human seated (connected or within their
    #: grace) and nobody watching before it is stopped as abandoned.
    abandoned_after: float = attrs.field(default=60.0, validator=_within(1))
    #: Rooms one ``list_rooms`` answer holds at most (a page; ``offset`` asks for the next).
    lobby_page: int = attrs.field(default=100, validator=_within(1, 1000))
    #: Bytes sent to one connection but not yet taken by its client before it is dropped as
    #: too slow.
    send_buffer: int = attrs.field(default=1024 * 1024, validator=_within(4096))
    #: ``process`` (WAL, survives a killed process) or ``fsync`` (survives power loss).
    durability: str = attrs.field(
        default="process", validator=attrs.validators.in_(("process", "fsync"))
    )
    #: The shortest turn clock a room may set, in seconds: a clock shorter than a person can
    #: think in has the bots play for every human at once.
    min_turn_clock: float = attrs.field(default=5.0, validator=_within(0, 3600, above=True))
    #: Seconds a bot waits before a turn-based move (0 for tests).
    bot_delay: float = attrs.field(default=0.8, validator=_within(0, 60))
    #: Seconds a disconnected player keeps their seat before a bot plays for them.
    grace: float = attrs.field(default=120.0, validator=_within(0, 86400))
    #: Seconds a room waiting for players may sit idle before it expires.
    idle_expiry: float = attrs.field(default=1800.0, validator=_within(0, above=True))
    #: Days finished games are kept for replay.
    retention_days: float = attrs.field(default=30.0, validator=_within(0, above=True))
    #: Days an unclaimed guest identity is kept after its last hello; then its token is
    #: forgotten (claimed identities, accounts', are kept).
    guest_retention_days: float = attrs.field(default=90.0, validator=_within(0, above=True))
    #: Days an account's session lasts after its last use (a hello with its token); then the
    #: token is refused (``bad_token``) and the player signs in again.
    session_lifetime: float = attrs.field(default=30.0, validator=_within(0, 36_500, above=True))
    #: Deltas kept per room for resume; older resumes get a snapshot.
    history: int = attrs.field(default=256, validator=_within(1))
    #: Seconds a viewer's deltas are still made after its last connection left, so a quick
    #: reconnect resumes with the deltas it missed instead of a snapshot.
    resume_window: float = attrs.field(default=60.0, validator=_within(0))
    #: Chat: characters per message, messages per 10 seconds per person.
    chat_length: int = attrs.field(default=500, validator=_within(1, 8192))
    chat_rate: int = attrs.field(default=5, validator=_within(1))
    #: The event loop: ``uvloop`` (faster) or the standard ``asyncio`` one.
    loop: str = attrs.field(default="uvloop", validator=attrs.validators.in_(("uvloop", "asyncio")))
    #: Where the browser client's built files are served from ("/" of the server).
    static: Path | None = None
    #: The admin API's bearer token (``docs/operating.md``, "Admin API"); ``None``: the admin
    #: API is off. At least 16 characters, so it cannot be guessed in a lifetime of tries.
    admin_token: str | None = attrs.field(default=None, repr=False)
    #: An outside identity provider whose signed JWTs ``hello`` accepts (``jwt``): its public
    #: key (PEM text or a PEM file's path) or its JWKS URL, the issuer and audience tokens
    #: must name (``None``: not checked), and the signature algorithms accepted.
    jwt_key: str | None = attrs.field(default=None, repr=False)
    jwt_jwks: str | None = None
    jwt_issuer: str | None = None
    jwt_audience: str | None = None
    jwt_algorithms: tuple[str, ...] = ("RS256", "ES256", "EdDSA")
    #: Rated games a player needs to appear on a leaderboard.
    leaderboard_games: int = attrs.field(default=5, validator=_within(1))
    #: Where Prometheus scrapes ``/metrics``: ``HOST:PORT`` of a listener of its own (keep it
    #: on a private network); ``None``: none (on the game port ``/metrics`` answers only with
    #: the admin token).
    metrics_listen: str | None = attrs.field(default=None, validator=_host_port)
    #: Seconds between two wake-ups of the event loop's lag probe (``lumin_event_loop_lag``):
    #: the finer, the shorter the stalls it sees.
    lag_probe: float = attrs.field(default=0.25, validator=_within(0.001, 10))

    def __attrs_post_init__(self) -> None:
        if self.admin_token is not None:
            token = self.admin_token.strip()
            if len(token) < 16:
                raise ValueError(
                    "admin_token has at least 16 characters (e.g. openssl rand -hex 24)"
                )
            if not (token.isascii() and token.isprintable()):
                # an HTTP header carries ASCII: a token beyond it could never be sent
                raise ValueError("admin_token is printable ASCII (e.g. openssl rand -hex 24)")
        if self.redis is not None:
            if not self.redis.startswith(("redis://", "rediss://", "unix://")):
                raise ValueError(f"redis is a redis:// URL, not {shown_url(self.redis)!r}")
            if self.store is None:
                raise ValueError(
                    "a cluster (redis) needs the PostgreSQL store its nodes share (store)"
                )
        if self.jwt_key is not None and self.jwt_jwks is not None:
            raise ValueError("an identity provider has a key (jwt_key) or a JWKS URL, not both")
        if self.public_url is not None and not self.public_url.startswith(("ws://", "wss://")):
            raise ValueError(f"public_url is a ws:// or wss:// URL, not {self.public_url!r}")

    def node_url(self, port: int) -> str:
        """This node's public websocket URL once it listens on ``port``."""
        if self.public_url is not None:
            return self.public_url.replace("{port}", str(port))
        host = self.host
        if host in ("0.0.0.0", "::", ""):
            host = socket.gethostname()
        if ":" in host:
            host = f"[{host}]"
        return f"ws://{host}:{port}/ws"

    @property
    def database(self) -> Path:
        return self.data / "lumin.sqlite3"
