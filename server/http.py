"""Lumin's HTTP routes, served on the websocket port through websockets' ``process_request``
hook: the websocket upgrade's admission (``/ws``: Origin, connections per address, the connect
rate), ``/healthz``, ``/readyz``, ``/metrics``, ``/highscores``, players' leaderboards,
ratings and history (:mod:`server.leaderboards`), finished games' logs
(``/rooms/<id>/log``) and the browser client's static files (``/``, :mod:`server.static`).

Query strings are parsed with the standard library (:func:`urllib.parse.parse_qs`). Each
answer is built from memory or from a few bounded store reads (a page, an index, a ``LIMIT``),
which run off the event loop (the store's reads are coroutines; SQLite's run on reader
threads); a game's log is encoded on a worker thread; a players' page (a leaderboard, a
history...) is answered from memory for :data:`PAGE_SECONDS` once made, so a crowd asking for
one board costs one read and one encoding. Every request but the websocket upgrade
draws on its client address's HTTP bucket (``--http-rate``, ``--http-burst``): past it, 429
with ``Retry-After``, before any work is done.
"""

from __future__ import annotations

import asyncio
import collections
import json
import math
import time
import urllib.parse
from collections.abc import Hashable
from http import HTTPStatus

import structlog
from websockets.asyncio.server import ServerConnection as Socket
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from protocol.codec import CONTROL
from protocol.errors import ErrorCode
from server.admin import ADMIN_PREFIX, AdminApi, has_admin_token
from server.config import Settings
from server.errors import Refused
from server.hub import Hub
from server.leaderboards import PLAYER_ROUTES, Asker, answer
from server.limits import Buckets, address_key, client_address, parse_networks
from server.metrics import Metrics
from server.replay import log_document, may_read
from server.static import StaticFiles
from server.transport import ClientSocket

__all__ = ["READY_TIMEOUT", "SINGLE_HEADERS", "HttpRoutes", "metrics_response", "response"]

log = structlog.get_logger("lumin.http")

#: Seconds ``/readyz`` waits for the store's write before it says "not ready".
READY_TIMEOUT = 2.0
#: Seconds a players' page (a leaderboard, a history...) is answered from memory, and how
#: many such answers are kept: a crowd asking for one board costs one read and one encoding.
PAGE_SECONDS, PAGES = 2.0, 512
#: Headers a request may carry once: two of them would let a proxy and Lumin read different
#: hosts, origins or credentials (a 400 answers a request naming one twice).
SINGLE_HEADERS = ("Host", "Origin", "Authorization")


class HttpRoutes:
    """Answers HTTP requests for one server, from its settings, hub and metrics.

    ``per_address`` is the server's count of open connections by client address bucket
    (:func:`~server.limits.address_key`; the handshake refuses past
    ``--connections-per-address``)."""

    def __init__(
        self,
        settings: Settings,
        hub: Hub,
        metrics: Metrics,
        per_address: collections.Counter[str],
    ) -> None:
        self.settings = settings
        self.hub = hub
        self.metrics = metrics
        self.per_address = per_address
        self.proxies = parse_networks(settings.trusted_proxies)
        self.static = StaticFiles(settings.static)
        #: The admin API (:mod:`server.admin`), set by the server.
        self.admin: AdminApi | None = None
        #: Each client address's HTTP requests (every request but the websocket upgrade).
        self.requests = Buckets(settings.http_rate, settings.http_burst)
        #: Players' pages answered lately (many ask for the same board at once).
        self.pages = Recent(PAGE_SECONDS, PAGES)

    def origin_allowed(self, origin: str | None, host: str | None) -> bool:
        """Whether a websocket request's Origin may connect: one of the configured origins, or,
        when none are configured, the page's own origin (the Origin names the host the request
        was sent to, so the browser client served by this server connects wherever it is
        reached, ``--host 0.0.0.0`` included). Clients that send no Origin (bots, terminal
        clients) are not browsers and may connect."""
        if origin is None:
            return True
        if self.hub.cluster is not None and origin in self.hub.cluster.origins:
            return True  # a page served by any node of the cluster
        if self.settings.origins:
            return origin in self.settings.origins
        return host is not None and origin in (f"http://{host}", f"https://{host}")

    async def readiness(self) -> Response:
        """``/readyz``: 200 when the store takes a write (within 2 s) and, in a cluster, Redis
        answers; 503 naming what fails otherwise, so a balancer sends no one here."""
        checks: dict[str, str] = {}
        try:
            await asyncio.wait_for(self.hub.store.probe(), READY_TIMEOUT)
            checks["store"] = "ok"
        except Exception as error:  # any failure means not ready; the reason is shown
            checks["store"] = f"failing: {type(error).__name__}: {error}"[:200]
        if self.hub.cluster is not None:
            reached = await self.hub.cluster.ping()
            checks["redis"] = "ok" if reached else "failing: Redis does not answer"
        if self.hub.draining:
            checks["draining"] = "failing: this node is draining (the operator's drain, or a stop)"
        ready = all(value == "ok" for value in checks.values())
        body = json.dumps({"status": "ready" if ready else "not_ready", "checks": checks})
        status = HTTPStatus.OK if ready else HTTPStatus.SERVICE_UNAVAILABLE
        return response(status, body.encode(), "application/json")

    async def route(self, connection: Socket, request: Request) -> Response | None:
        """websockets' ``process_request`` hook: the answer to an HTTP request, or ``None`` to
        let a websocket upgrade on ``/ws`` go ahead. A failure answering is a 500 with a
        sentence, logged (``http_failed``), never a traceback for the client."""
        try:
            return await self._route(connection, request)
        except Exception:  # a bug: the client is told in a sentence, the log has the traceback
            log.exception("http_failed", method=request.method, path=request.path[:200])
            body = b"The server failed to answer this request.\n"
            return response(HTTPStatus.INTERNAL_SERVER_ERROR, body, "text/plain")

    async def _route(self, connection: Socket, request: Request) -> Response | None:
        if isinstance(connection, ClientSocket):
            connection.request_read()  # no longer opening: the whole request is here
        path = request.path.split("?", 1)[0]
        doubled = [name for name in SINGLE_HEADERS if len(request.headers.get_all(name)) > 1]
        if doubled:
            body = f"A request names {' and '.join(doubled)} once.\n".encode()
            return response(HTTPStatus.BAD_REQUEST, body, "text/plain")
        if path == "/ws":
            return self.handshake(connection, request)
        address = self.address_of(connection, request)
        key, now = address_key(address, self.settings.ipv6_prefix), time.monotonic()
        if not self.requests.take(key, now):
            wait = math.ceil(self.requests.wait(key, now))
            self.metrics.limit_refusals.labels("http").inc()
            body = (
                f"Too many requests from {_shown(key)}: at most {self.settings.http_rate:g} per"
                f" second (bursts of {self.settings.http_burst}); try again in {wait} s.\n"
            ).encode()
            refusal = response(HTTPStatus.TOO_MANY_REQUESTS, body, "text/plain")
            refusal.headers["Retry-After"] = str(wait)
            return refusal
        params = _parameters(request.path)
        if params is None or CONTROL.search(urllib.parse.unquote(path)):
            body = b"A request's path and parameters hold no control characters.\n"
            return response(HTTPStatus.BAD_REQUEST, body, "text/plain")
        if path.startswith(ADMIN_PREFIX) and self.admin is not None:
            return await self.admin.route(request, address)
        if request.method not in ("GET", "HEAD"):
            body = f"{path} answers GET and HEAD, not {request.method}.\n".encode()
            refusal = response(HTTPStatus.METHOD_NOT_ALLOWED, body, "text/plain")
            refusal.headers["Allow"] = "GET, HEAD"
            return refusal
        answered = await self._get(path, request, address, params)
        if request.method == "HEAD":  # the GET's status and headers, without its body
            headers = Headers(answered.headers.raw_items())
            answered = Response(answered.status_code, answered.reason_phrase, headers, b"")
        return answered

    async def _get(
        self, path: str, request: Request, address: str, params: dict[str, str]
    ) -> Response:
        """The answer to a GET of ``path``."""
        if path == "/healthz":
            health: dict[str, object] = {
                "status": "ok", "rooms": len(self.hub.rooms), "epoch": self.hub.epoch,
            }  # fmt: skip
            if self.hub.cluster is not None:
                health |= {"node": self.hub.cluster.node, "nodes": sorted(self.hub.cluster.nodes)}
            return response(HTTPStatus.OK, json.dumps(health).encode(), "application/json")
        if path == "/readyz":
            return await self.readiness()
        if path == "/metrics":
            return self._metrics(request)
        if path == "/highscores":
            player, player_id = params.get("player"), params.get("user")
            scores = {"high_scores": await self.hub.store.get_high_scores(player, 10, player_id)}
            return response(HTTPStatus.OK, json.dumps(scores).encode(), "application/json")
        if path in PLAYER_ROUTES:
            admin = has_admin_token(request.headers, self.settings.admin_token)
            key = (path, tuple(sorted(params.items())), admin)
            page = self.pages.get(key, now=time.monotonic())
            if page is None:
                asker = Asker(self.settings.leaderboard_games, admin=admin)
                status, body = await answer(PLAYER_ROUTES[path], self.hub.store, params, asker)
                page = (status, json.dumps(body).encode())
                self.pages.put(key, page, now=time.monotonic())
            # a Response of its own each time: websockets adds its Server header to each
            return response(*page, "application/json")
        if path.startswith("/rooms/") and path.endswith("/log"):
            return await self._log(path.split("/")[2], request, address, params.get("code"))
        return self.static.answer(path, request.headers)

    def _metrics(self, request: Request) -> Response:
        """``/metrics`` on the game port: with the admin token only (a scraper that holds it);
        Prometheus otherwise scrapes ``--metrics-listen``, an address of its own."""
        if has_admin_token(request.headers, self.settings.admin_token):
            return metrics_response(self.metrics)
        if self.settings.admin_token:
            body = b"Metrics need the server's admin token (Bearer) on this port.\n"
            refusal = response(HTTPStatus.UNAUTHORIZED, body, "text/plain")
            refusal.headers["WWW-Authenticate"] = 'Bearer realm="lumin-metrics"'
            return refusal
        body = (
            b"Metrics are not served on this port: they are at the --metrics-listen address,"
            b" or here with the admin token.\n"
        )
        return response(HTTPStatus.NOT_FOUND, body, "text/plain")

    def handshake(self, connection: Socket, request: Request) -> Response | None:
        """Admit a websocket upgrade (``None``), or refuse it: 403 for a foreign ``Origin``,
        429 with ``Retry-After`` when the client's address opens connections too fast."""
        assert isinstance(connection, ClientSocket)  # serve(create_connection=ClientSocket)
        address = self.address_of(connection, request)
        key = address_key(address, self.settings.ipv6_prefix)
        connection.address, connection.address_key = address, key
        connection.budget = 4 * self.settings.max_frame
        origin = request.headers.get("Origin")
        if not self.origin_allowed(origin, request.headers.get("Host")):
            self._refused("origin", address, origin=origin)
            body = f"Origin {origin} is not allowed to open a Lumin connection.\n"
            return response(HTTPStatus.FORBIDDEN, body.encode(), "text/plain")
        held = self.per_address[key]
        if held >= self.settings.connections_per_address:
            self._refused("connections_per_address", address, open=held)
            body = (
                f"Too many connections from {_shown(key)}: {held} are open, at most"
                f" {self.settings.connections_per_address}; close one first.\n"
            )
            return response(HTTPStatus.TOO_MANY_REQUESTS, body.encode(), "text/plain")
        wait = self.hub.limits.connect(key, time.monotonic())
        if wait > 0:
            self._refused("connect_rate", address, retry_after=math.ceil(wait))
            body = (
                f"Too many new connections from {_shown(key)}: at most"
                f" {self.settings.connect_rate:g} per second (bursts of"
                f" {self.settings.connect_burst}); try again in {math.ceil(wait)} s.\n"
            )
            refusal = response(HTTPStatus.TOO_MANY_REQUESTS, body.encode(), "text/plain")
            refusal.headers["Retry-After"] = str(math.ceil(wait))
            return refusal
        return None

    def address_of(self, connection: Socket, request: Request) -> str:
        """The client's address: the peer's, or, from a trusted proxy, the one its
        ``X-Forwarded-For`` names."""
        peer = connection.remote_address[0] if connection.remote_address else ""
        return client_address(peer, request.headers.get_all("X-Forwarded-For"), self.proxies)

    def _refused(self, reason: str, address: str, **fields: object) -> None:
        """Count and log (``handshake_refused``) a websocket upgrade refused for ``reason``."""
        self.metrics.refused_connections.labels(reason).inc()
        log.info("handshake_refused", reason=reason, address=address, **fields)

    async def _log(
        self, room_id: str, request: Request, address: str, code: str | None
    ) -> Response:
        """A finished game's log; a private game's needs ``?code=`` (checked against the
        guesses allowed, :mod:`server.codes`), a player's token or the admin token
        (``Authorization: Bearer TOKEN``), else 403 (429 past the wrong codes allowed)."""
        row = await self.hub.store.get_room(room_id)
        if row is None or row.status != "finished":
            return response(HTTPStatus.NOT_FOUND, b"no finished game with that id\n", "text/plain")
        admin = has_admin_token(request.headers, self.settings.admin_token)
        if not admin and not may_read(row, await self._bearer(request)):
            try:
                key = address_key(address, self.settings.ipv6_prefix)
                self.hub.codes.check(row.id, code, row.code, key)
            except Refused as refusal:
                limited = refusal.code == ErrorCode.RATE_LIMITED
                status = HTTPStatus.TOO_MANY_REQUESTS if limited else HTTPStatus.FORBIDDEN
                body = f"{refusal.message} A private game's log needs its code (?code=) or a"
                body += " player's token.\n"
                return response(status, body.encode(), "text/plain")
        records = await self.hub.store.get_records(room_id)
        # A long game's log is a big document: it is encoded on a worker thread, not the loop.
        body = await asyncio.to_thread(lambda: json.dumps(log_document(row, records)).encode())
        return response(HTTPStatus.OK, body, "application/json")

    async def _bearer(self, request: Request) -> str | None:
        """The user id of a known identity whose token the request carries, if any."""
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        return await self.hub.known_user(token.strip())


def _parameters(target: str) -> dict[str, str] | None:
    """A request target's query parameters (the first value of each), or ``None`` when a
    name or value holds a control character (a NUL would reach the store)."""
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query)
    for key, values in query.items():
        if CONTROL.search(key) or any(CONTROL.search(value) for value in values):
            return None
    return {key: values[0] for key, values in query.items()}


def _shown(key: str) -> str:
    """A per-address bucket as a refusal names it: an address, or ``the network N``."""
    return f"the network {key}" if "/" in key else key


#: A page as answered: its HTTP status and JSON body.
Page = tuple[HTTPStatus, bytes]


class Recent:
    """Pages kept ``seconds`` by key, at most ``size`` of them (the oldest go first)."""

    def __init__(self, seconds: float, size: int) -> None:
        self.seconds, self.size = seconds, size
        self._kept: collections.OrderedDict[Hashable, tuple[float, Page]] = (
            collections.OrderedDict()
        )

    def get(self, key: Hashable, now: float) -> Page | None:
        kept = self._kept.get(key)
        if kept is None or now - kept[0] > self.seconds:
            return None
        return kept[1]

    def put(self, key: Hashable, answer: Page, now: float) -> None:
        self._kept[key] = (now, answer)
        self._kept.move_to_end(key)
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)


def metrics_response(metrics: Metrics) -> Response:
    """The Prometheus text exposition of ``metrics``."""
    return response(HTTPStatus.OK, metrics.render(), "text/plain; version=0.0.4")


def response(status: HTTPStatus, body: bytes, kind: str) -> Response:
    """A complete HTTP answer: ``body`` as ``kind``, never cached."""
    headers = Headers(
        [("Content-Type", kind), ("Content-Length", str(len(body))), ("Cache-Control", "no-cache")]
    )
    return Response(status.value, status.phrase, headers, body)
