"""Bots at the table: bot seats, stand-ins for absent players, and the turn clock.

A bot seat is a task that reads its seat's view and legal commands from the room, asks the
engine's bot for an action, waits until the action's moment (plus a human-like delay for
turn-based moves) and sends the command down the same path as a human's. A seated person who
has been disconnected past the grace period gets a stand-in bot until they return; with a turn
clock, a connected person who takes too long has one move made for them.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, TypeVar

import structlog

from engine.core import Bot, Game, Rejected, chance, expand_legal, to_wire
from server.config import Settings
from server.metrics import Metrics

__all__ = ["BotRoom", "BotSeats"]

T = TypeVar("T")

log = structlog.get_logger("lumin.bots")


class BotRoom(Protocol):
    """A room as its bots see it (``server.room.Room`` is one): what its seats may do and see,
    and the one way in, the room's queue, that humans use too."""

    id: str
    game: Game
    seed: bytes
    status: str
    closed: bool
    seats: list[Any]
    meta: dict[str, Any]

    @property
    def legal(self) -> Mapping[int, list[dict[str, Any]]]: ...

    @property
    def legal_since(self) -> Mapping[int, int]: ...

    @property
    def legal_at(self) -> Mapping[int, float]: ...

    def view_for(self, viewer: int | None) -> Any: ...

    async def call(self, work: Callable[[], Awaitable[T]]) -> T: ...

    async def act(self, peer: None, seat: int, data: Mapping[str, Any]) -> Rejected | None: ...


class _Driver:
    """One bot playing one seat of one room."""

    def __init__(
        self,
        room: BotRoom,
        seat: int,
        kind: str,
        delay: float,
        once: bool = False,
        metrics: Metrics | None = None,
    ) -> None:
        self.room = room
        self.seat = seat
        self.kind = kind
        self.delay = delay
        #: A turn-clock stand-in plays one move of one turn: it stops once its seat's legal
        #: commands change (the person moved, or it did).
        self.once = once
        self.since = room.legal_since.get(seat, 0)
        rng = random.Random(chance(room.seed, f"bot{seat}:{kind}").random())
        self.bot: Bot = room.game.bots[kind](room.game, seat, rng)
        self.refusals = 0
        self.changed = asyncio.Event()
        self.changed.set()
        #: ``lumin_bot_think_seconds`` of this game and bot kind, looked up once.
        self.think = metrics.bot_think.labels(room.game.id, kind) if metrics else None
        # A context of its own: whoever's request started the bot is not the bot.
        self.task = asyncio.create_task(
            self._run(), name=f"bot-{room.id}-{seat}", context=contextvars.Context()
        )

    async def _run(self) -> None:
        structlog.contextvars.bind_contextvars(
            room=self.room.id, game=self.room.game.id, seat=self.seat, bot=self.kind
        )
        while self.room.status == "playing" and not self.room.closed:
            try:
                if await self._step():
                    return
            except asyncio.CancelledError:
                raise
            except Exception:  # a bot bug must not silence its seat for good
                log.exception("bot_failed")
                await asyncio.sleep(1.0)
                self.changed.set()

    async def _step(self) -> bool:
        """Wait for a change, then make at most one move; True when the driver is done."""
        room = self.room
        await self.changed.wait()
        self.changed.clear()
        if self.once and room.legal_since.get(self.seat) != self.since:
            return True
        options = expand_legal(room.game, room.legal.get(self.seat, []))
        if not options:
            return False
        now = time.time()
        thinking = time.perf_counter()
        action = self.bot.act(room.view_for(self.seat), options, now)
        if self.think is not None:
            self.think.observe(time.perf_counter() - thinking)
        if action is None:
            return False
        wait = max(0.0, action.at - now) or self.delay
        if wait > 0:
            try:
                await asyncio.wait_for(self.changed.wait(), wait)
                return False  # the room moved on while we waited: look again
            except TimeoutError:
                pass
        if self.once and room.legal_since.get(self.seat) != self.since:
            return True
        data = to_wire(action.command)
        refusal = await room.call(lambda: room.act(None, self.seat, data))
        if refusal is not None:
            self.refusals += 1
            log.info("bot_refused", code=refusal.code, refusals=self.refusals)
            if self.refusals < 3:  # try again at once; then wait for a change
                self.changed.set()
            else:
                self.refusals = 0
            return False
        self.refusals = 0
        return self.once

    def stop(self) -> None:
        self.task.cancel()


class BotSeats:
    """Every bot task of the server, by room and seat, paced by the settings' ``bot_delay``;
    a seated person gone past the ``grace`` period gets a stand-in."""

    def __init__(self, settings: Settings, metrics: Metrics | None = None) -> None:
        self.settings = settings
        self.metrics = metrics
        self.drivers: dict[tuple[str, int], _Driver] = {}
        #: The same drivers by room, so a room's command touches only its own bots.
        self.by_room: dict[str, dict[int, _Driver]] = {}
        self.grace: dict[tuple[str, int], asyncio.TimerHandle] = {}
        self.clocks: dict[tuple[str, int], tuple[int, asyncio.TimerHandle]] = {}

    def _start(self, room: BotRoom, seat: int, kind: str, once: bool = False) -> None:
        key = (room.id, seat)
        if key in self.drivers and not self.drivers[key].task.done():
            return
        driver = _Driver(room, seat, kind, self.settings.bot_delay, once, self.metrics)
        self.drivers[key] = driver
        self.by_room.setdefault(room.id, {})[seat] = driver

    def start_room(self, room: BotRoom) -> None:
        """Start a task for every bot seat of a room that is playing."""
        for seat, slot in enumerate(room.seats):
            if slot.kind == "bot" and slot.bot is not None:
                self._start(room, seat, slot.bot)

    def seats_of(self, room: BotRoom) -> set[int | None]:
        """The seats of ``room`` a bot is playing now."""
        return {seat for seat, d in self.by_room.get(room.id, {}).items() if not d.task.done()}

    def stop_seat(self, room: BotRoom, seat: int) -> None:
        """Stop whatever bot plays ``seat`` (a human took it over or came back)."""
        driver = self.drivers.pop((room.id, seat), None)
        self.by_room.get(room.id, {}).pop(seat, None)
        if driver is not None:
            driver.stop()

    def stop_room(self, room: BotRoom) -> None:
        """Stop every bot task and timer of a room."""
        for seat in self.by_room.pop(room.id, {}):
            self.drivers.pop((room.id, seat)).stop()
        for key in [k for k in self.grace if k[0] == room.id]:
            self.grace.pop(key).cancel()
        for key in [k for k in self.clocks if k[0] == room.id]:
            self.clocks.pop(key)[1].cancel()

    def poke(self, room: BotRoom) -> None:
        """The room changed: wake its bots and arm the turn clock of whoever must move."""
        for driver in self.by_room.get(room.id, {}).values():
            driver.changed.set()
        limit = room.meta.get("turn_clock")
        if not limit:
            return
        for seat, slot in enumerate(room.seats):
            key = (room.id, seat)
            driver = self.drivers.get(key)
            if slot.kind != "human" or (driver is not None and not driver.task.done()):
                continue
            since = room.legal_since.get(seat, 0)
            armed = self.clocks.get(key)
            if not room.legal.get(seat):
                if armed is not None:
                    armed[1].cancel()
                    del self.clocks[key]
                continue
            if armed is not None and armed[0] == since:
                continue
            if armed is not None:
                armed[1].cancel()
            # From when the seat's turn began, as logged: a room rebuilt on another node
            # keeps the deadline its player was shown.
            began = room.legal_at.get(seat) or time.time()
            left = float(limit) - (time.time() - began)
            if not math.isfinite(left):  # data an older version let in: the room fails
                raise ValueError(f"room {room.id}: the turn clock {limit!r} is not a time")
            left = max(0.0, left)
            handle = asyncio.get_running_loop().call_later(
                left, self._clock_ran_out, room, seat, since, context=contextvars.Context()
            )
            self.clocks[key] = (since, handle)

    def _clock_ran_out(self, room: BotRoom, seat: int, since: int) -> None:
        self.clocks.pop((room.id, seat), None)
        if (
            room.status == "playing"
            and room.legal_since.get(seat) == since
            and room.legal.get(seat)
        ):
            log.info("turn_clock_ran_out", room=room.id, seat=seat)
            self._start(room, seat, room.game.default_bot, once=True)

    def human_gone(self, room: BotRoom, seat: int) -> None:
        """Start the grace period of a disconnected seated person."""
        key = (room.id, seat)
        driver = self.drivers.get(key)
        if key in self.grace or (driver is not None and not driver.task.done() and not driver.once):
            return
        self.grace[key] = asyncio.get_running_loop().call_later(
            self.settings.grace, self._grace_over, room, seat, context=contextvars.Context()
        )

    def _grace_over(self, room: BotRoom, seat: int) -> None:
        self.grace.pop((room.id, seat), None)
        if room.status == "playing" and not room.closed:
            log.info("stand_in_bot", room=room.id, seat=seat)
            self._start(room, seat, room.game.default_bot)

    def stand_ins(self, room: BotRoom) -> set[int]:
        """The human seats of ``room`` a stand-in bot plays now, its player disconnected
        past the grace period (a turn clock's one-move stand-ins aside)."""
        return {
            seat
            for seat, d in self.by_room.get(room.id, {}).items()
            if seat is not None
            and not d.task.done()
            and not d.once
            and room.seats[seat].kind == "human"
        }

    def stand_in(self, room: BotRoom, seat: int) -> None:
        """The person of ``seat`` left on purpose: a bot plays their seat now, without the
        grace period a lost connection gets."""
        handle = self.grace.pop((room.id, seat), None)
        if handle is not None:
            handle.cancel()
        driver = self.drivers.get((room.id, seat))
        if driver is not None and driver.once:  # a turn-clock move: a whole stand-in replaces it
            self.stop_seat(room, seat)
        if room.status == "playing" and not room.closed:
            log.info("stand_in_bot", room=room.id, seat=seat, left=True)
            self._start(room, seat, room.game.default_bot)

    def in_grace(self, room: BotRoom, seat: int) -> bool:
        """Whether the person of ``seat`` is disconnected and still within their grace."""
        return (room.id, seat) in self.grace

    def human_back(self, room: BotRoom, seat: int) -> None:
        """A seated person is back: cancel their grace period and any stand-in bot."""
        key = (room.id, seat)
        handle = self.grace.pop(key, None)
        if handle is not None:
            handle.cancel()
        if room.seats[seat].kind == "human":
            self.stop_seat(room, seat)
