"""Quick play: "play now" per game and seat count, a queue that matches players of similar
rating and fills seats with bots after the wait a player chose.

A ``play_now`` puts the connection's *ticket* in the queue (one per connection: a second
replaces the first). Every :data:`TICK` seconds the queue is matched, oldest ticket first:
among the tickets of the same game, seat count and options, those whose ratings (shown, in
the game's pool; a newcomer's is 0) lie within both tickets' windows are candidates, the
nearest first. A ticket's window is :data:`WINDOW` rating points wide at first and widens by
:data:`WIDEN` every :data:`WIDEN_EVERY` seconds of waiting, so a strong or weak player finds
a game in the end. With enough candidates, the room is made: everyone seated and ready, the
game started, each told ``matched``. A ticket whose ``bot_wait`` has passed gets a room at
once with the candidates found so far and bots of a level near its rating
(:func:`server.ratings.bot_for`) in the other seats; such games are unrated.

In a cluster each node matches the players connected to it: tickets are not shared between
nodes (a player is matched with players of the same node, or with bots).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import attrs
import structlog

from engine.core import Rejected, validate_options, validate_seats
from engine.registry import game_ids, get_game
from protocol.errors import ErrorCode
from protocol.messages import Error, Matched, PlayNow
from server.errors import Refused
from server.ratings import LADDERS, bot_for, pool_of
from server.seats import Seat

__all__ = ["TICK", "WIDEN", "WIDEN_EVERY", "WINDOW", "QuickPlay", "Ticket"]

log = structlog.get_logger("lumin.quickplay")

#: Seconds between two matching rounds while anyone waits.
TICK = 0.2
#: Rating points a ticket's window spans at first, and its widening per ``WIDEN_EVERY`` s.
WINDOW, WIDEN, WIDEN_EVERY = 3.0, 3.0, 5.0
#: The longest ``bot_wait`` (seconds) a player may choose.
MAX_BOT_WAIT = 3600.0


@attrs.define(eq=False)
class Ticket:
    """One connection waiting to play: its game, seats and options (validated), the bot wait
    it chose, its rating in the pool and since when it waits (monotonic seconds)."""

    session: Any
    game: str
    seats: int
    options: dict[str, Any]
    bot_wait: float | None
    rating: float
    since: float

    @property
    def table(self) -> str:
        """What tickets must share to play together: game, seats and options."""
        return json.dumps([self.game, self.seats, self.options], sort_keys=True)

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


class QuickPlay:
    """The queue of one node's hub (see the module docstring)."""

    def __init__(self, hub: Any) -> None:
        self.hub = hub
        self.tickets: dict[Any, Ticket] = {}
        #: Connections being seated now, and those of them that closed meanwhile.
        self._seating: set[Any] = set()
        self._gone: set[Any] = set()
        self._task: asyncio.Task[None] | None = None

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
        self.tickets[session] = ticket
        if self._task is None or self._task.done():
            self._task = self.hub.spawn(self._run())
        return ticket

    def cancel(self, session: Any) -> bool:
        """Take ``session``'s ticket out of the queue; whether it had one. A connection
        closing while its room is being made is let go of there (:meth:`_seat`)."""
        if session in self._seating:
            self._gone.add(session)
        return self.tickets.pop(session, None) is not None

    async def _run(self) -> None:
        while self.tickets:
            await self.match(time.monotonic())
            await asyncio.sleep(TICK)

    async def match(self, now: float) -> None:
        """One matching round (see the module docstring)."""
        for ticket in sorted(self.tickets.values(), key=lambda t: t.since):
            if self.tickets.get(ticket.session) is not ticket:
                continue  # matched earlier in this round, or cancelled
            others = sorted(
                (
                    other
                    for other in self.tickets.values()
                    if other is not ticket
                    and other.session.user != ticket.session.user  # one person, one seat
                    and other.table == ticket.table
                    and abs(other.rating - ticket.rating)
                    <= min(ticket.window(now), other.window(now))
                ),
                key=lambda other: (abs(other.rating - ticket.rating), other.since),
            )
            others = _one_each(others)
            if len(others) >= ticket.seats - 1:
                await self._seat([ticket, *others[: ticket.seats - 1]], bots=0)
            elif ticket.bot_wait is not None and now - ticket.since >= ticket.bot_wait:
                await self._seat([ticket, *others], bots=ticket.seats - 1 - len(others))

    async def _seat(self, tickets: list[Ticket], bots: int) -> None:
        """Make, fill and start the room of ``tickets`` and ``bots`` bot seats."""
        for ticket in tickets:
            self.tickets.pop(ticket.session, None)
        self._seating.update(t.session for t in tickets)
        try:
            await self._make(tickets, bots)
        except Exception:
            # The queue goes on for everyone else; these players are told, and may ask again.
            log.exception("quick_play_failed", game=tickets[0].game, humans=len(tickets))
            for ticket in tickets:
                ticket.session.send(
                    Error(
                        code=ErrorCode.INTERNAL.value,
                        message="The server failed to make your quick-play room; ask again.",
                    )
                )
        finally:
            self._seating.difference_update(t.session for t in tickets)
            self._gone.difference_update(t.session for t in tickets)

    async def _make(self, tickets: list[Ticket], bots: int) -> None:
        first = tickets[0]
        game = get_game(first.game)
        seats = [Seat("human", t.session.name, t.session.user, None, {}, True) for t in tickets]
        kind = bot_for(game.id, first.rating)
        seats += [Seat("bot", f"{kind} bot", None, kind, {}, True) for _ in range(bots)]
        room, stored = self.hub._create(
            game, dict(first.options), seats, first.session.user, False, {"quick_play": True}
        )
        room.address = first.session.address
        await stored
        rated = bots == 0
        log.info("quick_play_matched", room=room.id, game=game.id, humans=len(tickets), bots=bots)
        for n, ticket in enumerate(tickets):
            session = ticket.session
            session.send(Matched(room=room.id, seat=n, rated=rated))
            session.rooms[room.id] = room
            await room.call(lambda s=session, n=n: room.join(s, n, None))
        for session in self._gone & {t.session for t in tickets}:
            # Closed while its room was made: its seat is kept (grace, then a stand-in).
            session.rooms.pop(room.id, None)
            room.detach(session)
        await room.call(lambda: room.begin(None))
