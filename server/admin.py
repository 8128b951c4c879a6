"""Lumin's admin API: what the server's operator sees and does, as JSON over HTTP under
``/api/admin/`` on the server's port (``docs/operating.md``, "Admin API").

It is off unless the server has an admin token (``--admin-token`` / ``LUMIN_ADMIN_TOKEN``):
every request carries it as ``Authorization: Bearer TOKEN`` (compared in constant time; a
player's token is never one), and wrong tokens count against the client address's connect
rate, so guessing is slow. Parameters travel in the query string: websockets' HTTP parser,
which serves this port, takes no request bodies.

On a cluster any node answers for the whole cluster: a request about a room another node
plays is forwarded to that node over the cluster's control channel
(:meth:`server.cluster.Cluster.ask`) and its answer returned; the room and connection lists
gather every node's. A forwarded request is never forwarded again.

On the PostgreSQL store each room a node lists (``rooms``, ``rooms/ID``) carries its lease as
the store has it (``lease``: node, epoch, expiry and seconds left by the database's clock) and
``held_without_lease``: whether this node holds the waiting or playing room in memory without
a live lease of its own at the epoch it plays (a finished room needs none). A node that was
paused past its lease lists the rooms it held until its next renewal round lets them go, while
their new owner lists them too: the flag tells the stale entry from the owner's.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Collection, Mapping
from http import HTTPStatus
from typing import Any

import structlog
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from protocol.errors import ErrorCode
from protocol.messages import RoomSummary
from server.bans import banned_sentence, parse_address
from server.client import Client
from server.config import Settings
from server.errors import Refused
from server.hub import Hub
from server.limits import address_key
from server.logs import banned, seat_kicked
from server.pgstore import Lease, PostgresStore
from server.replay import log_document
from server.room import Room
from server.store import Ban

__all__ = ["ADMIN_PREFIX", "AdminApi", "AdminError", "has_admin_token"]

log = structlog.get_logger("lumin.admin")

#: Where the admin API lives on the server's port.
ADMIN_PREFIX = "/api/admin/"
#: Seconds a node waits for another node's answer to a forwarded request.
ASK_TIMEOUT = 3.0
#: The longest reason an operator may give (it is shown to players).
MAX_REASON = 300

Answer = tuple[int, dict[str, Any]]

#: The HTTP status of a room's refusal (409 otherwise: the room's state does not allow it).
_REFUSED_STATUS = {ErrorCode.NO_SUCH_ROOM: HTTPStatus.NOT_FOUND}


def has_admin_token(headers: Headers, token: str | None) -> bool:
    """Whether a request's ``Authorization: Bearer`` names the server's admin ``token`` (in
    constant time; never when the server has none)."""
    if not token:
        return False
    scheme, _, given = headers.get("Authorization", "").partition(" ")
    # Bytes: compare_digest refuses str with characters beyond ASCII.
    return scheme.lower() == "bearer" and hmac.compare_digest(
        given.strip().encode(), token.strip().encode()
    )


class AdminError(Exception):
    """A request the admin API refuses: an HTTP ``status``, a snake_case ``code`` and a
    sentence for the operator."""

    def __init__(self, status: HTTPStatus, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


class AdminApi:
    """The admin API of one node. ``clients`` is the server's set of open connections and
    ``drain`` its drain (:meth:`server.app.LuminServer.drain`), ``url`` its public URL."""

    def __init__(
        self,
        settings: Settings,
        hub: Hub,
        clients: Collection[Client],
        drain: Callable[[], Awaitable[dict[str, Any]]],
        url: Callable[[], str] = lambda: "",
    ) -> None:
        self.settings = settings
        self.hub = hub
        self.clients = clients
        self.drain = drain
        #: This node's public websocket URL (known once it listens).
        self.url = url

    @property
    def node(self) -> str:
        """This node's name (a single server's is its ``--node-id``, else ``local``)."""
        if self.hub.ownership is not None:
            return self.hub.ownership.node
        return self.settings.node_id or "local"

    # -- HTTP -----------------------------------------------------------------------------------

    async def route(self, request: Request, address: str) -> Response:
        """Answer one HTTP request to ``/api/admin/...`` from ``address``."""
        token = self.settings.admin_token
        if not token:
            return _json(
                HTTPStatus.NOT_FOUND,
                _error("admin_off", "The admin API is off: start Lumin with --admin-token."),
            )
        if not has_admin_token(request.headers, token):
            key = address_key(address, self.settings.ipv6_prefix)
            wait = self.hub.limits.connect(key, time.monotonic())
            if wait > 0:
                refusal = _json(
                    HTTPStatus.TOO_MANY_REQUESTS,
                    _error("rate_limited", f"Too many wrong admin tokens; wait {wait:.0f} s."),
                )
                refusal.headers["Retry-After"] = str(max(1, round(wait)))
                return refusal
            log.warning("admin_refused", address=address, path=request.path.split("?")[0])
            answer = _json(
                HTTPStatus.UNAUTHORIZED,
                _error("bad_admin_token", "This needs the server's admin token (Bearer)."),
            )
            answer.headers["WWW-Authenticate"] = 'Bearer realm="lumin-admin"'
            return answer
        status, body = await self.handle(request.method, request.path)
        return _json(HTTPStatus(status), body)

    async def handle(self, method: str, target: str, forwarded: bool = False) -> Answer:
        """The answer (HTTP status, JSON body) to ``method`` on ``target`` (a path under
        :data:`ADMIN_PREFIX` with its query string), already authenticated; ``forwarded``
        when another node of the cluster sent it on."""
        split = urllib.parse.urlsplit(target)
        query = {k: v[-1] for k, v in urllib.parse.parse_qs(split.query).items()}
        parts = [urllib.parse.unquote(p) for p in split.path[len(ADMIN_PREFIX) :].split("/") if p]
        try:
            return await self._dispatch(method.upper(), parts, query, target, forwarded)
        except AdminError as error:
            return error.status.value, _error(error.code, error.message)
        except Refused as error:
            status = _REFUSED_STATUS.get(error.code, HTTPStatus.CONFLICT)
            return status.value, _error(str(error.code), error.message)

    async def _dispatch(
        self, method: str, parts: list[str], query: dict[str, str], target: str, forwarded: bool
    ) -> Answer:
        match method, parts:
            case "GET", ["rooms"]:
                return 200, await self._rooms(query, target, forwarded)
            case "GET", ["rooms", room]:
                return await self._on_owner(room, method, target, forwarded, self._room)
            case "GET", ["rooms", room, "log"]:
                return 200, await self._log(room)
            case "POST", ["rooms", room, "close"]:
                return await self._on_owner(room, method, target, forwarded, self._closer(query))
            case "POST", ["rooms", room, "kick"]:
                return await self._on_owner(room, method, target, forwarded, self._kicker(query))
            case "POST", ["rooms", room, "mute"]:
                return await self._on_owner(room, method, target, forwarded, self._muter(query))
            case "GET", ["connections"]:
                return 200, await self._connections(target, forwarded)
            case "GET", ["bans"]:
                return 200, {"bans": [_ban(ban) for ban in self.hub.bans.all()]}
            case ("POST" | "DELETE") as verb, ["bans"]:
                return 200, await self._ban(verb == "POST", query, target, forwarded)
            case "GET", ["nodes"]:
                return 200, self._nodes()
            case "GET", ["loop"]:
                return 200, self._loop()
            case "POST", ["nodes", node, "drain"]:
                return await self._drain(node, method, target, forwarded)
        raise AdminError(
            HTTPStatus.NOT_FOUND,
            "no_such_request",
            f"The admin API has no {method} {ADMIN_PREFIX}{'/'.join(parts)}"
            " (docs/operating.md, 'Admin API').",
        )

    # -- rooms ----------------------------------------------------------------------------------

    async def _rooms(self, query: dict[str, str], target: str, forwarded: bool) -> dict[str, Any]:
        game, state = query.get("game"), query.get("state")
        if state is not None and state not in ("waiting", "playing", "finished"):
            raise AdminError(
                HTTPStatus.BAD_REQUEST,
                "bad_state",
                f"state is waiting, playing or finished, not {state!r}.",
            )
        now = time.time()
        listed = [
            room
            for room in self.hub.rooms.values()
            if not room.closed
            and (game is None or room.game.id == game)
            and (state is None or room.summary().state == state)
        ]
        leases = await self._leases([room.id for room in listed])
        rooms = [_room_entry(room.summary(), self.node, now) | leases(room) for room in listed]
        return await self._gathered("rooms", rooms, target, forwarded)

    async def _leases(self, rooms: list[str]) -> Callable[[Room], dict[str, Any]]:
        """The ``lease`` and ``held_without_lease`` fields of each of ``rooms`` held here, read
        from the store in one query (both ``None`` when the store is not PostgreSQL's, or
        did not answer)."""
        store, ownership = self.hub.store, self.hub.ownership
        if not isinstance(store, PostgresStore) or ownership is None or not rooms:
            return lambda room: {"lease": None, "held_without_lease": None}
        try:
            found: dict[str, Lease] | None = await store.leases(rooms)
        except Exception:  # the store away: the rooms are listed all the same
            log.warning("admin_leases_unread", exc_info=True)
            found = None

        def fields(room: Room) -> dict[str, Any]:
            if found is None:
                return {"lease": None, "held_without_lease": None}
            lease = found.get(room.id)
            held = (
                lease is not None
                and lease.live
                and lease.node == ownership.node
                and lease.epoch == room.lease_epoch
            )
            # A finished room needs no lease; a new room's first one may not be committed yet.
            stale = room.status in ("waiting", "playing") and not ownership.is_creating(room.id)
            return {
                "lease": None if lease is None else _lease_entry(lease),
                "held_without_lease": stale and not held,
            }

        return fields

    async def _room(self, room: Room) -> Answer:
        summary = room.summary()
        leases = await self._leases([room.id])
        grace = {n for n in range(len(room.seats)) if self.hub.bots.in_grace(room, n)}
        playing = self.hub.bots.seats_of(room)
        connected = {peer.user for peer in room.peers}
        seats = [
            {
                "seat": n,
                "kind": seat.kind,
                "name": seat.name,
                "user": seat.user,
                "bot": seat.bot,
                "ready": seat.ready,
                "connected": seat.user is not None and seat.user in connected,
                "in_grace": n in grace,
                "bot_playing": n in playing,
            }
            for n, seat in enumerate(room.seats)
        ]
        connections = [
            {
                "connection": _connection_id(peer),
                "user": peer.user,
                "name": peer.name,
                "seat": viewer,
            }
            for peer, viewer in room.peers.items()
        ]
        return 200, {
            **_room_entry(summary, self.node, time.time()),
            **leases(room),
            "status": room.status,
            "options": dict(room.options),
            "private": room.private,
            "host": room.host,
            "created": room.created,
            "started": room.started,
            "seq": room.seq,
            "turn_clock": room.meta.get("turn_clock"),
            "to_move": sorted(seat for seat, legal in room.legal.items() if legal),
            "muted": list(room.meta.get("muted", ())),
            "seats": seats,
            "connections": connections,
        }

    async def _log(self, room_id: str) -> dict[str, Any]:
        """The room's whole log so far (live or ended, private or not): the operator's view.
        While the room waits or plays, its seed and salt are withheld (``null``): they would
        show the deal and every draw still to come, which no one at the table may know yet;
        ``lumin verify`` checks the commitment once the game has ended."""
        row = await self.hub.store.get_room(room_id)
        if row is None:
            raise AdminError(HTTPStatus.NOT_FOUND, "no_such_room", f"No room {room_id!r}.")
        document = log_document(row, await self.hub.store.get_records(room_id))
        document["status"] = row.status
        if row.status in ("waiting", "playing"):
            document["seed"] = document["salt"] = None
        return document

    def _closer(self, query: dict[str, str]) -> Callable[[Room], Awaitable[Answer]]:
        reason = _reason(query)

        async def close(room: Room) -> Answer:
            await room.call(lambda: room.close_by_operator(reason))  # logs room_closed
            return 200, {"room": room.id, "status": "aborted", "reason": reason}

        return close

    def _kicker(self, query: dict[str, str]) -> Callable[[Room], Awaitable[Answer]]:
        seat = _integer(query, "seat")
        reason = _reason(query)

        async def kick(room: Room) -> Answer:
            user, bot = await room.call(lambda: room.kick_by_operator(seat, reason))
            seat_kicked(room.id, seat, user, by="operator", said=reason, bot=bot)
            return 200, {"room": room.id, "seat": seat, "user": user, "bot": bot}

        return kick

    def _muter(self, query: dict[str, str]) -> Callable[[Room], Awaitable[Answer]]:
        user = query.get("user", "").strip()
        if not user:
            raise AdminError(HTTPStatus.BAD_REQUEST, "missing_user", "Name the user: ?user=ID.")
        muted = query.get("muted", "true").lower() not in ("false", "0", "no")

        async def mute(room: Room) -> Answer:
            async def work() -> None:
                room.mute_by_operator(user, muted)

            await room.call(work)
            log.info("chat_muted" if muted else "chat_unmuted", room=room.id, muted_user=user)
            return 200, {"room": room.id, "user": user, "muted": muted}

        return mute

    async def _on_owner(
        self,
        room_id: str,
        method: str,
        target: str,
        forwarded: bool,
        work: Callable[[Room], Awaitable[Answer]],
    ) -> Answer:
        """``work`` on the live room ``room_id`` where it is played: here, or forwarded to
        the node that plays it."""
        room = self.hub.rooms.get(room_id)
        if room is not None and not room.closed:
            return await work(room)
        cluster = self.hub.cluster
        if cluster is not None and self.hub.ownership is not None and not forwarded:
            owner = await self.hub.owner_of(room_id)
            if owner is not None and owner != self.node:
                return await self._ask(owner, method, target)
        row = await self.hub.store.get_room(room_id)
        if row is None:
            raise AdminError(HTTPStatus.NOT_FOUND, "no_such_room", f"No room {room_id!r}.")
        raise AdminError(
            HTTPStatus.CONFLICT,
            "not_live",
            f"Room {room_id} is {row.status} and not played now; its log is at"
            f" {ADMIN_PREFIX}rooms/{room_id}/log.",
        )

    # -- connections ----------------------------------------------------------------------------

    async def _connections(self, target: str, forwarded: bool) -> dict[str, Any]:
        now = time.time()
        entries = [
            {
                "id": _connection_id(client),
                "user": client.user or None,
                "name": client.name or None,
                "address": client.address,
                "version": client.version,
                "age_seconds": round(now - client.opened, 1),
                "rooms": [
                    {"room": room_id, "seat": room.seat_of(client.user) if client.user else None}
                    for room_id, room in client.rooms.items()
                ],
                "node": self.node,
            }
            for client in self.clients
        ]
        return await self._gathered("connections", entries, target, forwarded)

    # -- bans -----------------------------------------------------------------------------------

    async def _ban(
        self, banning: bool, query: dict[str, str], target: str, forwarded: bool
    ) -> dict[str, Any]:
        """Ban (or unban) an identity or an address: kept in the store, in force on every
        node at once; a ban closes the banned connections it finds."""
        if forwarded:  # another node wrote it: take the store's bans and enforce them here
            await self.hub.reload_bans()
            return {"closed": self._enforce()}
        named = [kind for kind in ("identity", "address") if query.get(kind)]
        if len(named) != 1:
            raise AdminError(
                HTTPStatus.BAD_REQUEST,
                "name_one",
                "Name exactly one: ?identity=USER_ID or ?address=IP_OR_NETWORK.",
            )
        kind = named[0]
        value = query[kind].strip()
        if kind == "address":
            try:
                value = parse_address(value)
            except ValueError as error:
                raise AdminError(HTTPStatus.BAD_REQUEST, "bad_address", str(error)) from None
        reason = _reason(query)
        if banning:
            ban = Ban(kind, value, reason, time.time())
            await self.hub.store.ban(ban.kind, ban.value, ban.reason, ban.at)
        else:
            held = [b for b in self.hub.bans.all() if (b.kind, b.value) == (kind, value)]
            if not held:
                await self.hub.reload_bans()  # perhaps banned on another node a moment ago
                held = [b for b in self.hub.bans.all() if (b.kind, b.value) == (kind, value)]
            if not held:
                raise AdminError(
                    HTTPStatus.NOT_FOUND, "no_such_ban", f"There is no ban of {kind} {value}."
                )
            ban = held[0]
            await self.hub.store.unban(kind, value)
        await self.hub.reload_bans()
        closed = self._enforce() if banning else 0
        others, unreachable = await self._everywhere("POST", target)
        closed += sum(int(body.get("closed", 0)) for body in others)
        if banning:
            who = {"user": value} if kind == "identity" else {"address": value}
            banned(by="operator", reason=reason, closed=closed, **who)
        else:
            log.info("unbanned", kind=kind, value=value, by="operator")
        answer: dict[str, Any] = {"banned" if banning else "unbanned": _ban(ban)}
        if banning:
            answer["closed"] = closed
        if unreachable:
            answer["unreachable"] = unreachable
        return answer

    def _enforce(self) -> int:
        """Close every connection of this node that a ban now covers; how many."""
        closed = 0
        for client in list(self.clients):
            ban = (client.user and self.hub.bans.of_user(client.user)) or self.hub.bans.of_address(
                client.address
            )
            if ban:
                client.banish(banned_sentence(ban))
                closed += 1
        return closed

    # -- nodes ----------------------------------------------------------------------------------

    def _loop(self) -> dict[str, Any]:
        """This node's event loop: its worst lag in each recent second (wall clock)."""
        seconds = self.hub.metrics.loop_lag_seconds.seconds
        return {
            "node": self.node,
            "probe_seconds": self.settings.lag_probe,
            "lag": [[second, round(worst, 6)] for second, worst in seconds],
        }

    def _nodes(self) -> dict[str, Any]:
        cluster = self.hub.cluster
        if cluster is None:
            nodes = [
                {
                    "node": self.node,
                    "url": self.url(),
                    "rooms": self.hub.load(),
                    "connections": len(self.clients),
                }
            ]
        else:
            nodes = [
                {"node": n.node, "url": n.url, "rooms": n.rooms, "connections": n.connections}
                for n in sorted(cluster.nodes.values(), key=lambda n: n.node)
            ]
        return {"node": self.node, "draining": self.hub.draining, "nodes": nodes}

    async def _drain(self, node: str, method: str, target: str, forwarded: bool) -> Answer:
        if node == self.node:
            return 200, await self.drain()
        cluster = self.hub.cluster
        if cluster is None or forwarded or node not in cluster.nodes:
            raise AdminError(
                HTTPStatus.NOT_FOUND,
                "no_such_node",
                f"No live node {node!r}; {ADMIN_PREFIX}nodes lists them.",
            )
        return await self._ask(node, method, target)

    # -- the cluster ----------------------------------------------------------------------------

    async def _ask(self, node: str, method: str, target: str) -> Answer:
        """Forward a request to ``node`` and return its answer."""
        assert self.hub.cluster is not None
        try:
            reply = await self.hub.cluster.ask(
                node, {"method": method, "target": target}, ASK_TIMEOUT
            )
        except TimeoutError:
            raise AdminError(
                HTTPStatus.GATEWAY_TIMEOUT,
                "node_silent",
                f"Node {node} did not answer within {ASK_TIMEOUT:g} s.",
            ) from None
        return int(reply["status"]), dict(reply["body"])

    async def _everywhere(self, method: str, target: str) -> tuple[list[dict[str, Any]], list[str]]:
        """Forward a request to every other live node: their answers, and the nodes that did
        not answer in time."""
        cluster = self.hub.cluster
        if cluster is None:
            return [], []
        others = sorted(node for node in cluster.nodes if node != self.node)
        replies = await asyncio.gather(
            *(self._ask(node, method, target) for node in others), return_exceptions=True
        )
        bodies, silent = [], []
        for node, reply in zip(others, replies, strict=True):
            if isinstance(reply, BaseException) or reply[0] != 200:
                silent.append(node)
            else:
                bodies.append(reply[1])
        return bodies, silent

    async def _gathered(
        self, key: str, entries: list[dict[str, Any]], target: str, forwarded: bool
    ) -> dict[str, Any]:
        """``{key: entries}`` of this node, with every other live node's (unless this request
        was forwarded here), oldest first; the nodes that did not answer in ``unreachable``."""
        answer: dict[str, Any] = {key: entries}
        if not forwarded:
            others, unreachable = await self._everywhere("GET", target)
            for body in others:
                entries.extend(body.get(key, ()))
            if unreachable:
                answer["unreachable"] = unreachable
        entries.sort(key=lambda entry: (-entry["age_seconds"], entry["id"]))
        return answer

    async def answer(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """A request another node forwarded here (:meth:`server.cluster.Cluster.ask`)."""
        status, body = await self.handle(
            str(request.get("method", "GET")), str(request.get("target", "")), forwarded=True
        )
        return {"status": status, "body": body}


def _room_entry(summary: RoomSummary, node: str, now: float) -> dict[str, Any]:
    """A room as ``rooms`` lists it."""
    kinds = [seat.kind for seat in summary.seats]
    return {
        "id": summary.room,
        "game": summary.game,
        "state": summary.state,
        "players": kinds.count("human"),
        "spectators": summary.spectators,
        "bots": kinds.count("bot"),
        "age_seconds": round(max(0.0, now - summary.created), 1),
        "node": node,
    }


def _lease_entry(lease: Lease) -> dict[str, Any]:
    """A room's lease as the admin API shows it."""
    return {
        "node": lease.node,
        "epoch": lease.epoch,
        "expires": round(lease.expires, 3),
        "expires_in": round(lease.expires_in, 1),
        "live": lease.live,
    }


def _connection_id(peer: Any) -> str:
    """The id log lines give the connection (``Client.connection``); a relay's node."""
    connection = getattr(peer, "connection", None)
    if connection is not None:
        return str(connection)
    return f"relay:{getattr(peer, 'node', '?')}"


def _ban(ban: Ban) -> dict[str, Any]:
    return {"kind": ban.kind, "value": ban.value, "reason": ban.reason, "at": ban.at}


def _reason(query: dict[str, str]) -> str:
    reason = " ".join(query.get("reason", "").split())
    if len(reason) > MAX_REASON:
        raise AdminError(
            HTTPStatus.BAD_REQUEST, "reason_too_long", f"A reason has at most {MAX_REASON} chars."
        )
    return reason


def _integer(query: dict[str, str], name: str) -> int:
    try:
        return int(query[name])
    except (KeyError, ValueError):
        raise AdminError(
            HTTPStatus.BAD_REQUEST, f"bad_{name}", f"Give ?{name}= as a whole number."
        ) from None


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": code, "message": message}


def _json(status: HTTPStatus, body: Mapping[str, Any]) -> Response:
    data = json.dumps(body).encode()
    headers = Headers(
        [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(data))),
            ("Cache-Control", "no-store"),
        ]
    )
    return Response(status.value, status.phrase, headers, data)
