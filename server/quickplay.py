"""Quick play: "play now" per game and seat count, a queue that matches players of similar
rating and fills seats with bots after the wait a player chose.

A ``play_now`` puts the connection's *ticket* in the queue (one per connection: a second
replaces the first). A person waits once per *table* (game, seat count and options): a
ticket for a table where another connection of theirs waits is refused, as are tickets past
``--quick-play-per-person`` for one person and ``--quick-play-per-address`` for one address
(``rate_limited``), so no one fills the queue with a crowd. Every :data:`TICK` seconds the
queue is matched, oldest ticket first: among the tickets of the same table, those whose
ratings (shown, in the game's pool; a newcomer's is 0) lie within both tickets' windows are
candidates, the nearest first. Tickets are grouped by table (a key made once per ticket) and
each group is sorted by rating, so a round costs a search per ticket, never a comparison of
every ticket with every other. A ticket's window is :data:`WINDOW` rating points wide at
first and widens by :data:`WIDEN` every :data:`WIDEN_EVERY` seconds of waiting, so a strong
or weak player finds a game in the end. With enough candidates, the room is made: everyone
seated and ready, the game started, each told ``matched``. A ticket whose ``bot_wait`` has
passed gets a room at once with the candidates found so far and bots of a level near its
rating (:func:`server.ratings.bot_for`) in the other seats; such games are unrated.

In a cluster the queue is the cluster's, kept in Redis (:class:`SharedQueue`), so players
connected to different nodes meet. Each table (game, seats, options) has a sorted set of
tickets by rating (``qp:<table>``), a hash of what each holds (``qp:<table>:e``: its node,
connection, person, name, rating, bot wait, enqueue and last-seen times, all times Redis's own
clock) and an index of the ticket each person has there (``qp:<table>:u``): one entry per
person per table (a ticket of another connection of the person, at a table where their live
entry waits, is refused and its player told ``rate_limited``), so no script walks one person's
crowd. Every node runs a matching round for its own tickets every :data:`TICK` seconds, one
Lua script per ticket, oldest first: Redis runs a script alone, so a script that finds enough
candidates removes them and the ticket at once, and no ticket is ever taken twice (two nodes
matching at once each see the other's removals). A script rather than one elected matcher
per table: no lock to expire or hand over when a node dies, every node matches its own
players at its own pace, and a slow node delays only its own tickets. The script skips and
deletes tickets whose node left the registry (``node:<id>`` lapsed) or that were not seen for
:data:`STALE` seconds (their node lost Redis). The node whose ticket was matched makes the
room on the least-loaded node (as ``create_room`` places rooms; another node makes it when
asked over its control channel) and tells each ticket's node over its control channel;
every player is told ``matched``, and one connected to another node than the room's is then
sent ``moved`` (without ``ref``) to the room's node, where it resumes the room. When Redis
is away a node falls back to its own queue: its tickets not seen by Redis for :data:`STALE`
seconds are matched among its own connections.

A ``cancel_play_now`` (or a closed connection) that comes while the player's room is being
made is too late: the player keeps the seat and is told ``matched`` (a closed connection's
seat waits out its grace period, as any disconnected player's).
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import hashlib
import json
import secrets
import time
from typing import Any

import attrs
import structlog
from redis.exceptions import RedisError

from engine.core import Rejected, validate_options, validate_seats
from engine.registry import game_ids, get_game
from protocol.errors import ErrorCode
from protocol.messages import Error, Matched, PlayNow
from server.errors import Refused
from server.ratings import LADDERS, bot_for, pool_of
from server.seats import Seat

__all__ = ["STALE", "TICK", "WIDEN", "WIDEN_EVERY", "WINDOW", "QuickPlay", "SharedQueue", "Ticket"]

log = structlog.get_logger("lumin.quickplay")

#: Seconds between two matching rounds while anyone waits.
TICK = 0.2
#: Rating points a ticket's window spans at first, and its widening per ``WIDEN_EVERY`` s.
WINDOW, WIDEN, WIDEN_EVERY = 3.0, 3.0, 5.0
#: The longest ``bot_wait`` (seconds) a player may choose.
MAX_BOT_WAIT = 3600.0
#: Seconds after which a shared ticket its node did not refresh counts as gone (its node lost
#: Redis, and matches it among its own connections from then on).
STALE = 5.0
#: Seconds a node waits for word of the room another node made for one of its tickets.
NOTICE_WAIT = 15.0
#: Milliseconds a table's keys in Redis outlive its last ticket.
TABLE_TTL = 3_600_000


@attrs.define(eq=False)
class Ticket:
    """One connection waiting to play: its game, seats and options (validated), the bot wait
    it chose, its rating in the pool and since when it waits (monotonic seconds); its id in
    the cluster's queue, whether it is there, and when Redis last saw it (monotonic)."""

    session: Any
    game: str
    seats: int
    options: dict[str, Any]
    bot_wait: float | None
    rating: float
    since: float
    id: str = attrs.field(factory=lambda: secrets.token_hex(8))
    shared: bool = False
    seen: float = 0.0
    #: What tickets must share to play together: game, seats and options (made once).
    table: str = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.table = json.dumps([self.game, self.seats, self.options], sort_keys=True)

    def window(self, now: float) -> float:
        return WINDOW + WIDEN * int((now - self.since) // WIDEN_EVERY)


def _one_each(tickets: list[Ticket]) -> list[Ticket]:
    """``tickets`` in order, keeping only the first of each person (one user, one seat)."""
    seen: set[str] = set()
    kept = []
    for ticket in tickets:
        if ticket.session.user not in seen:
            seen.add(ticket.session.user)
            kept.append(ticket)
    return kept


# KEYS: the table's sorted set, hash and person index (user id -> ticket id); ARGV: the
# ticket's id, its entry (JSON), rating, the keys' lifetime (ms), the registry's key prefix
# (``<prefix>node:``) and STALE. The entry's enqueue and last-seen times are Redis's clock.
# Returns 1, or 0 when another live ticket of the same person waits at the table (one entry
# per person per table); a stale one (not seen for STALE s, or its node gone) is replaced.
_JOIN = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local entry = cjson.decode(ARGV[2])
local held = redis.call('HGET', KEYS[3], entry.user)
if held and held ~= ARGV[1] then
  local value = redis.call('HGET', KEYS[2], held)
  local other = value and cjson.decode(value)
  if other and now - other.seen <= tonumber(ARGV[6])
      and redis.call('EXISTS', ARGV[5] .. other.node) == 1 then
    return 0
  end
  redis.call('ZREM', KEYS[1], held)
  redis.call('HDEL', KEYS[2], held)
end
entry.since = now
entry.seen = now
redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(entry))
redis.call('HSET', KEYS[3], entry.user, ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, ARGV[4]) end
return 1
"""

# KEYS: the table's sorted set, hash and person index; ARGV: the ticket's id, the registry's
# key prefix (``<prefix>node:``), the seat count, WINDOW, WIDEN, WIDEN_EVERY, STALE, the taken
# marker's key prefix and the keys' lifetime (ms). Returns 'taken' (another node matched the
# ticket), 'gone' (it is no longer there: deleted as stale), 'wait', or the match as JSON: the
# bots to add and the entries, the ticket's first, all removed from the queue.
_MATCH = """
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then
  if redis.call('EXISTS', ARGV[8] .. ARGV[1]) == 1 then return 'taken' end
  return 'gone'
end
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local width, widen, every, stale = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]),
  tonumber(ARGV[7])
local function window(entry)
  return width + widen * math.floor((now - entry.since) / every)
end
local me = cjson.decode(raw)
local mine = window(me)
local found = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], me.rating - mine, me.rating + mine)) do
  if id ~= ARGV[1] then
    local value = redis.call('HGET', KEYS[2], id)
    local other = value and cjson.decode(value)
    if not other or now - other.seen > stale
        or redis.call('EXISTS', ARGV[2] .. other.node) == 0 then
      redis.call('ZREM', KEYS[1], id)
      redis.call('HDEL', KEYS[2], id)
      if other and redis.call('HGET', KEYS[3], other.user) == id then
        redis.call('HDEL', KEYS[3], other.user)
      end
    elseif math.abs(other.rating - me.rating) <= math.min(mine, window(other)) then
      other.distance = math.abs(other.rating - me.rating)
      table.insert(found, other)
    end
  end
end
table.sort(found, function(x, y)
  if x.distance ~= y.distance then return x.distance < y.distance end
  if x.since ~= y.since then return x.since < y.since end
  return x.id < y.id
end)
local need = tonumber(ARGV[3]) - 1
local picked, users = {}, {[me.user] = true}
for _, other in ipairs(found) do
  if #picked < need and not users[other.user] then
    users[other.user] = true
    table.insert(picked, other)
  end
end
local bots = 0
if #picked < need then
  if me.bot_wait < 0 or now - me.since < me.bot_wait then
    me.seen = now
    redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(me))
    for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, ARGV[9]) end
    return 'wait'
  end
  bots = need - #picked
end
local entries = {me}
for _, other in ipairs(picked) do table.insert(entries, other) end
for _, entry in ipairs(entries) do
  redis.call('ZREM', KEYS[1], entry.id)
  redis.call('HDEL', KEYS[2], entry.id)
  if redis.call('HGET', KEYS[3], entry.user) == entry.id then
    redis.call('HDEL', KEYS[3], entry.user)
  end
  redis.call('SET', ARGV[8] .. entry.id, '1', 'PX', 60000)
end
return cjson.encode({bots = bots, entries = entries})
"""

# KEYS: the table's sorted set, hash and person index; ARGV: the ticket's id and its
# person's user id. 1 when it was still queued (the cancel won), 0 when a match took it first.
_WITHDRAW = """
local removed = redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[3], ARGV[2]) end
return removed
"""


class SharedQueue:
    """The cluster's queue in Redis, as one node (``cluster``) uses it: see the module
    docstring."""

    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster
        redis = cluster.redis
        self._join = redis.register_script(_JOIN)
        self._match = redis.register_script(_MATCH)
        self._withdraw = redis.register_script(_WITHDRAW)

    def keys(self, ticket: Ticket) -> list[str]:
        table = hashlib.sha256(ticket.table.encode()).hexdigest()[:24]
        return [
            self.cluster._key("qp", table),
            self.cluster._key("qp", table, "e"),
            self.cluster._key("qp", table, "u"),
        ]

    async def join(self, ticket: Ticket) -> bool:
        """Put ``ticket`` in the cluster's queue (:class:`RedisError` when Redis is away):
        ``False`` when another live ticket of the same person waits at its table."""
        entry = {
            "id": ticket.id,
            "node": self.cluster.node,
            "user": ticket.session.user,
            "name": ticket.session.name,
            "rating": ticket.rating,
            "bot_wait": -1 if ticket.bot_wait is None else ticket.bot_wait,
        }
        joined = await self._join(
            keys=self.keys(ticket),
            args=[
                ticket.id, json.dumps(entry), ticket.rating, TABLE_TTL,
                self.cluster._key("node", ""), STALE,
            ],
        )  # fmt: skip
        return bool(joined)

    async def match(self, ticket: Ticket) -> str | dict[str, Any]:
        """One matching attempt for ``ticket``: ``"wait"``, ``"taken"``, ``"gone"`` or the
        match (``{"bots": n, "entries": [...]}``, the ticket's entry first)."""
        answer = await self._match(
            keys=self.keys(ticket),
            args=[
                ticket.id, self.cluster._key("node", ""), ticket.seats, WINDOW, WIDEN,
                WIDEN_EVERY, STALE, self.cluster._key("qp", "taken", ""), TABLE_TTL,
            ],
        )  # fmt: skip
        text = answer.decode() if isinstance(answer, bytes) else str(answer)
        if text in ("wait", "taken", "gone"):
            return text
        match: dict[str, Any] = json.loads(text)
        return match

    async def withdraw(self, ticket: Ticket) -> bool:
        """Take ``ticket`` out of the cluster's queue: whether it was still there (``False``:
        a match took it first, and its room is being made)."""
        answer = await self._withdraw(keys=self.keys(ticket), args=[ticket.id, ticket.session.user])
        return bool(answer)


class QuickPlay:
    """The queue of one node's hub (see the module docstring)."""

    def __init__(self, hub: Any) -> None:
        self.hub = hub
        self.tickets: dict[Any, Ticket] = {}
        #: This node's tickets in the cluster's queue (or taken from it by a match whose room
        #: is being made), by id: word of their room finds their connection here.
        self.shared: dict[str, Ticket] = {}
        #: Connections being seated now, and those of them that closed meanwhile.
        self._seating: set[Any] = set()
        self._gone: set[Any] = set()
        self._task: asyncio.Task[None] | None = None
        self._queue: SharedQueue | None = None

    @property
    def cluster(self) -> Any:
        return None if self.hub is None else self.hub.cluster

    @property
    def queue(self) -> SharedQueue | None:
        """The cluster's queue, when this node is in a cluster."""
        if self.cluster is None:
            return None
        if self._queue is None or self._queue.cluster is not self.cluster:
            self._queue = SharedQueue(self.cluster)
        return self._queue

    def join(self, session: Any, request: PlayNow) -> Ticket:
        """Queue ``session`` for the game ``request`` asks (``unknown_game``, ``bad_option``
        or ``bad_seats`` when no room of it could be made)."""
        self.hub._check_open()  # a draining node makes no rooms, quick ones included
        self.hub._check_caps(session)  # the open-room caps hold for quick play too
        if request.game not in game_ids() or request.game not in LADDERS:
            raise Refused(ErrorCode.UNKNOWN_GAME, f"Lumin hosts {', '.join(game_ids())}.")
        game = get_game(request.game)
        try:
            options = validate_options(game, request.options)
        except Rejected as error:
            raise Refused(ErrorCode.BAD_OPTION, error.message) from None
        if request.seats not in game.seat_counts(options) or request.seats < 2:
            raise Refused(ErrorCode.BAD_SEATS, f"{game.name} has no game of {request.seats} seats.")
        try:
            validate_seats(game, options, [{} for _ in range(request.seats)])
        except Rejected as error:
            raise Refused(ErrorCode.BAD_OPTION, error.message) from None
        wait = request.bot_wait
        if wait is not None and not 0 <= wait <= MAX_BOT_WAIT:
            raise Refused(ErrorCode.BAD_FIELD, f"bot_wait is 0 to {MAX_BOT_WAIT:g} seconds.")
        pool = pool_of(game.id, options, request.seats)
        rating = self.hub.ratings.shown(session.user, game.id, pool) or 0.0
        ticket = Ticket(session, game.id, request.seats, options, wait, rating, time.monotonic())
        self._check_caps(ticket)
        old = self.tickets.pop(session, None)  # a second play_now replaces the first
        if old is not None and old.shared and self.queue is not None:
            self.hub.spawn(self._withdraw(old))
        self.tickets[session] = ticket
        if self._task is None or self._task.done():
            self._task = self.hub.spawn(self._run())
        return ticket

    def _check_caps(self, ticket: Ticket) -> None:
        """Refuse (``rate_limited``) a ticket for a table where another connection of the
        same person waits, or past the tickets one person or one address may hold (a
        connection's earlier ticket, which this one replaces, does not count)."""
        session = ticket.session
        others = [t for s, t in self.tickets.items() if s is not session]
        if any(t.session.user == session.user and t.table == ticket.table for t in others):
            raise Refused(
                ErrorCode.RATE_LIMITED,
                "You are waiting for this game on another connection already; play there,"
                " or cancel it there first.",
            )
        settings = self.hub.settings
        caps = (
            ("You have", "person", lambda t: t.session.user == session.user),
            ("Your address has", "address", lambda t: t.session.address_key == session.address_key),
        )
        for who, kind, mine in caps:
            cap = getattr(settings, f"quick_play_per_{kind}")
            held = sum(1 for t in others if mine(t))
            if held >= cap:
                self.hub.metrics.limit_refusals.labels(f"quick_play_per_{kind}").inc()
                raise Refused(
                    ErrorCode.RATE_LIMITED,
                    f"{who} {held} quick-play tickets waiting, the most this server allows"
                    f" ({cap}); cancel one first.",
                )

    async def cancel(self, session: Any) -> bool:
        """Take ``session``'s ticket out of the queue: whether the cancel won. ``False`` when
        it had none, or when its room is being made already (here, or on another node that
        matched it first): then the player keeps the seat and is told ``matched``."""
        ticket = self.tickets.pop(session, None)
        if ticket is None:
            return False
        if not ticket.shared or self.queue is None:
            return True
        try:
            won = await self.queue.withdraw(ticket)
        except (RedisError, OSError):
            won = True  # Redis away: its entry goes stale, and nobody else matches it
        if won:
            self.shared.pop(ticket.id, None)
        else:
            self._await_notice(ticket)
        return won

    def left(self, session: Any) -> None:
        """The connection closed (or asked again): its ticket leaves the queue; a room being
        made for it keeps its seat (grace, then a stand-in, as for any disconnected player)."""
        if session in self._seating:
            self._gone.add(session)
        ticket = self.tickets.pop(session, None)
        if ticket is not None and ticket.shared and self.queue is not None:
            self.hub.spawn(self._withdraw(ticket))

    async def _withdraw(self, ticket: Ticket) -> None:
        assert self.queue is not None
        with contextlib.suppress(RedisError, OSError):
            if await self.queue.withdraw(ticket):
                self.shared.pop(ticket.id, None)
                return
        self._await_notice(ticket)

    def _await_notice(self, ticket: Ticket) -> None:
        """Another node matched ``ticket``: wait for word of its room, and tell the player
        the room could not be made when none comes in :data:`NOTICE_WAIT` seconds."""

        async def wait() -> None:
            await asyncio.sleep(NOTICE_WAIT)
            if self.shared.pop(ticket.id, None) is ticket:
                log.warning("quick_play_notice_lost", ticket=ticket.id)
                _tell_failed(ticket.session)

        self.shared[ticket.id] = ticket
        self.hub.spawn(wait())

    async def forget(self) -> None:
        """This node stops: its tickets leave the cluster's queue (best effort; its entries
        count as gone anyway once it left the registry)."""
        tickets, self.tickets = list(self.tickets.values()), {}
        if self.queue is None:
            return
        for ticket in tickets:
            if ticket.shared:
                await self._forget_entry(ticket)

    async def _run(self) -> None:
        while self.tickets:
            await self.match(time.monotonic())
            await asyncio.sleep(TICK)

    async def match(self, now: float) -> None:
        """One matching round (see the module docstring): the cluster's queue for the tickets
        in it, this node's own for those Redis has not seen for :data:`STALE` seconds."""
        if self.queue is not None:
            await self._match_shared(now)
        tables: dict[str, list[Ticket]] = {}
        for ticket in self.tickets.values():
            if not ticket.shared or now - ticket.seen > STALE:
                tables.setdefault(ticket.table, []).append(ticket)
        for group in tables.values():
            await self._match_table(group, now)

    async def _match_table(self, group: list[Ticket], now: float) -> None:
        """Match the local tickets of one table, oldest first: each against the others whose
        ratings lie in its window (found by bisection in the group sorted by rating)."""
        by_rating = sorted(group, key=lambda t: t.rating)
        ratings = [t.rating for t in by_rating]
        for ticket in sorted(group, key=lambda t: t.since):
            if self.tickets.get(ticket.session) is not ticket:
                continue  # matched earlier in this round, or cancelled
            window = ticket.window(now)
            low = bisect.bisect_left(ratings, ticket.rating - window)
            high = bisect.bisect_right(ratings, ticket.rating + window)
            others = sorted(
                (
                    other
                    for other in by_rating[low:high]
                    if other is not ticket
                    and self.tickets.get(other.session) is other
                    and other.session.user != ticket.session.user  # one person, one seat
                    and abs(other.rating - ticket.rating) <= min(window, other.window(now))
                ),
                key=lambda other: (abs(other.rating - ticket.rating), other.since),
            )
            others = _one_each(others)
            if len(others) >= ticket.seats - 1:
                await self._seat([ticket, *others[: ticket.seats - 1]], bots=0)
            elif ticket.bot_wait is not None and now - ticket.since >= ticket.bot_wait:
                await self._seat([ticket, *others], bots=ticket.seats - 1 - len(others))

    async def _match_shared(self, now: float) -> None:
        assert self.queue is not None
        for ticket in sorted(self.tickets.values(), key=lambda t: t.since):
            if self.tickets.get(ticket.session) is not ticket:
                continue
            try:
                if not ticket.shared:  # new, or Redis is back: into the cluster's queue
                    if not await self.queue.join(ticket):
                        self.tickets.pop(ticket.session, None)
                        _tell_waiting_elsewhere(ticket.session)
                        continue
                    ticket.shared, ticket.seen = True, now
                    self.shared[ticket.id] = ticket
                answer = await self.queue.match(ticket)
            except (RedisError, OSError) as error:
                log.debug("quick_play_redis_away", error=repr(error))
                return  # this node's own queue matches the tickets gone stale meanwhile
            if answer == "wait":
                ticket.seen = now
            elif answer == "gone":  # deleted as stale (its node was slow): queued again
                ticket.shared = False
            elif answer == "taken":  # another node matched it: its word comes meanwhile
                self.tickets.pop(ticket.session, None)
                self._await_notice(ticket)
            elif isinstance(answer, dict):
                await self._seat_shared(ticket, answer["entries"], int(answer["bots"]))

    # -- rooms ----------------------------------------------------------------------------------

    async def _seat(self, tickets: list[Ticket], bots: int) -> None:
        """Make, fill and start the room of ``tickets`` (all this node's) and ``bots`` bot
        seats."""
        for ticket in tickets:
            self.tickets.pop(ticket.session, None)
        if self.queue is not None:  # matched here while Redis was away: out of its queue
            for ticket in tickets:
                self.shared.pop(ticket.id, None)
                if ticket.shared:
                    self.hub.spawn(self._forget_entry(ticket))
        self._seating.update(t.session for t in tickets)
        try:
            await self._make(tickets, bots)
        except Exception:
            # The queue goes on for everyone else; these players are told, and may ask again.
            log.exception("quick_play_failed", game=tickets[0].game, humans=len(tickets))
            for ticket in tickets:
                _tell_failed(ticket.session)
        finally:
            self._seating.difference_update(t.session for t in tickets)
            self._gone.difference_update(t.session for t in tickets)

    async def _forget_entry(self, ticket: Ticket) -> None:
        assert self.queue is not None
        with contextlib.suppress(RedisError, OSError):
            await self.queue.withdraw(ticket)

    async def _make(self, tickets: list[Ticket], bots: int) -> None:
        first = tickets[0]
        game = get_game(first.game)
        seats = [(t.session.user, t.session.name) for t in tickets]
        room = await self._room(first.game, first.options, seats, bots, first.rating)
        rated = bots == 0
        log.info("quick_play_matched", room=room.id, game=game.id, humans=len(tickets), bots=bots)
        for n, ticket in enumerate(tickets):
            await self._enter(ticket.session, room, n, rated)
        for session in self._gone & {t.session for t in tickets}:
            # Closed while its room was made: its seat is kept (grace, then a stand-in).
            session.rooms.pop(room.id, None)
            room.detach(session)
        await room.call(lambda: room.begin(None))

    async def _room(
        self,
        game_id: str,
        options: dict[str, Any],
        people: list[tuple[str, str]],
        bots: int,
        rating: float,
    ) -> Any:
        """A new waiting room on this node with ``people`` (user ids and names) seated and
        ready, then ``bots`` bots of a level near ``rating``."""
        game = get_game(game_id)
        seats = [Seat("human", name, user, None, {}, True) for user, name in people]
        kind = bot_for(game.id, rating)
        seats += [Seat("bot", f"{kind} bot", None, kind, {}, True) for _ in range(bots)]
        room, stored = self.hub._create(
            game, dict(options), seats, people[0][0], False, {"quick_play": True}
        )
        await stored
        return room

    async def _enter(self, session: Any, room: Any, seat: int, rated: bool) -> None:
        """Tell ``session`` its seat, and seat its connection in ``room`` (this node's)."""
        session.send(Matched(room=room.id, seat=seat, rated=rated))
        session.rooms[room.id] = room
        await room.call(lambda: room.join(session, seat, None))

    async def _seat_shared(self, ticket: Ticket, entries: list[dict[str, Any]], bots: int) -> None:
        """``ticket`` was matched in the cluster's queue with ``entries`` (its own first):
        make the room on the least-loaded node and tell every entry's node."""
        mine = {e["id"]: self.shared.get(e["id"]) for e in entries if e["node"] == self.node}
        local = [t for t in mine.values() if t is not None]
        for held in local:
            self.tickets.pop(held.session, None)
        self._seating.update(t.session for t in local)
        people = [(str(e["user"]), str(e["name"])) for e in entries]
        rated = bots == 0
        try:
            target = await self.cluster.less_loaded()
            if target is None:
                room: Any = await self._room(
                    ticket.game, ticket.options, people, bots, ticket.rating
                )
                room_id, url = room.id, self.cluster.public_url
            else:
                room = None
                reply = await self.cluster.ask(
                    target.node,
                    {
                        "kind": "quick_room",
                        "game": ticket.game,
                        "options": ticket.options,
                        "people": people,
                        "bots": bots,
                        "rating": ticket.rating,
                    },
                    timeout=NOTICE_WAIT,
                )
                room_id, url = str(reply["room"]), target.url
            log.info("quick_play_matched", room=room_id, game=ticket.game, humans=len(entries),
                     bots=bots, nodes=sorted({e["node"] for e in entries}))  # fmt: skip
            for n, entry in enumerate(entries):
                notice = {
                    "id": entry["id"], "room": room_id, "seat": n, "rated": rated, "url": url,
                }  # fmt: skip
                if entry["node"] != self.node:
                    await self.cluster.notify(entry["node"], "quick_matched", notice)
                elif (held := mine.get(entry["id"])) is not None:
                    self.shared.pop(held.id, None)
                    if room is not None:
                        await self._enter(held.session, room, n, rated)
                    else:
                        _send_on(held.session, room_id, n, rated, url)
            if room is not None:
                for session in self._gone & {t.session for t in local}:
                    session.rooms.pop(room.id, None)
                    room.detach(session)
                await room.call(lambda: room.begin(None))
        except Exception:
            log.exception("quick_play_failed", game=ticket.game, humans=len(entries))
            for held in local:
                self.shared.pop(held.id, None)
                _tell_failed(held.session)
            for entry in entries:
                if entry["node"] != self.node:
                    with contextlib.suppress(Exception):
                        await self.cluster.notify(
                            entry["node"], "quick_failed", {"id": entry["id"]}
                        )
        finally:
            self._seating.difference_update(t.session for t in local)
            self._gone.difference_update(t.session for t in local)

    @property
    def node(self) -> str:
        return str(self.cluster.node)

    async def make_for(self, request: dict[str, Any]) -> dict[str, Any]:
        """Another node matched players and asks this one, the least loaded, for their room:
        made, filled and started here; answers its id."""
        people = [(str(user), str(name)) for user, name in request["people"]]
        room = await self._room(
            str(request["game"]),
            dict(request["options"]),
            people,
            int(request["bots"]),
            float(request["rating"]),
        )
        await room.call(lambda: room.begin(None))
        return {"room": room.id}

    async def noticed(self, kind: str, notice: dict[str, Any]) -> None:
        """Word from the node that matched one of this node's tickets: its room (``matched``,
        told to the player, seated here when the room is this node's) or its failure."""
        ticket = self.shared.pop(str(notice.get("id")), None)
        if ticket is None:
            return
        self.tickets.pop(ticket.session, None)
        if kind == "quick_failed":
            _tell_failed(ticket.session)
            return
        room_id, seat, rated = str(notice["room"]), int(notice["seat"]), bool(notice["rated"])
        room = self.hub.rooms.get(room_id)
        if ticket.session in self._gone or getattr(ticket.session, "dropped", False):
            return  # closed meanwhile: the seat waits out its grace period
        if room is not None:
            await self._enter(ticket.session, room, seat, rated)
        else:
            _send_on(ticket.session, room_id, seat, rated, str(notice["url"]))


def _send_on(session: Any, room: str, seat: int, rated: bool, url: str) -> None:
    """Tell ``session`` its seat in ``room``, which the node at ``url`` plays, and send it
    there (``moved``, without ``ref``): it reconnects there and resumes the room."""
    session.send(Matched(room=room, seat=seat, rated=rated))
    session.room_moved(room, url)


def _tell_waiting_elsewhere(session: Any) -> None:
    """The cluster's queue holds another live ticket of the person for the same table (a
    connection to another node): this one stops waiting."""
    session.send(
        Error(
            code=ErrorCode.RATE_LIMITED.value,
            message="You are waiting for this game on another connection already; this one"
            " stops waiting.",
        )
    )


def _tell_failed(session: Any) -> None:
    session.send(
        Error(
            code=ErrorCode.INTERNAL.value,
            message="The server failed to make your quick-play room; ask again.",
        )
    )
