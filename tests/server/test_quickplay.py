"""Quick play over real websockets: two players asking to play now land in the same room, a
lone player with a short bot wait gets bots (an unrated game), the queue refuses what no room
could be made of; and the matching itself: similar ratings first, a window that widens with
the wait, never across games or seat counts."""

from __future__ import annotations

import asyncio
from typing import Any

import attrs
import pytest

from clients.sdk import LuminClient, ServerError
from protocol.messages import CancelPlayNow, Matched, PlayNow
from server.quickplay import WIDEN_EVERY, QuickPlay, Ticket


async def matched(client: LuminClient) -> Matched:
    while True:
        message = await asyncio.wait_for(client.messages.get(), 15)
        if isinstance(message, Matched):
            return message


async def test_two_players_asking_to_play_now_land_in_the_same_room(connect) -> None:
    ada, bea = await connect("Ada"), await connect("Bea")
    await ada.request(PlayNow(game="flip_over_frog", seats=2))
    await bea.request(PlayNow(game="flip_over_frog", seats=2))
    first, second = await matched(ada), await matched(bea)
    assert first.room == second.room and {first.seat, second.seat} == {0, 1}
    assert first.rated and second.rated
    room = first.room
    while room not in ada.room_info or ada.room_info[room].state != "playing":
        await ada.changed(room, timeout=10)
    seats = ada.room_info[room].seats
    assert {seat.user for seat in seats} == {ada.user, bea.user}
    assert ada.view(room) is not None and ada.legal(room) is not None


async def test_a_lone_player_with_a_short_bot_wait_gets_bots(connect) -> None:
    cy = await connect("Cy")
    await cy.request(PlayNow(game="neon_hex", seats=3, bot_wait=0.3))
    told = await matched(cy)
    assert told.seat == 0 and not told.rated, "a game filled with bots is unrated"
    while told.room not in cy.room_info or cy.room_info[told.room].state != "playing":
        await cy.changed(told.room, timeout=10)
    seats = cy.room_info[told.room].seats
    assert [seat.kind for seat in seats] == ["human", "bot", "bot"]
    assert {seat.bot for seat in seats[1:]} == {"easy"}, "a newcomer meets the second level"


async def test_cancelling_or_closing_the_connection_leaves_the_queue(connect, server) -> None:
    dee, fay = await connect("Dee"), await connect("Fay")
    await dee.request(PlayNow(game="flip_over_frog", seats=3))
    await fay.request(PlayNow(game="flip_over_frog", seats=3))
    assert {t.session.user for t in server.hub.quickplay.tickets.values()} == {dee.user, fay.user}
    await dee.request(CancelPlayNow())
    assert [t.session.user for t in server.hub.quickplay.tickets.values()] == [fay.user]
    await fay.close()
    while server.hub.quickplay.tickets:  # the server sees the close a moment later
        await asyncio.sleep(0.01)


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        (PlayNow(game="chess", seats=2), "unknown_game"),
        (PlayNow(game="flip_over_frog", seats=9), "bad_seats"),
        (PlayNow(game="flip_over_frog", seats=2, options={"nope": 1}), "bad_option"),
        (PlayNow(game="flip_over_frog", seats=2, bot_wait=-1.0), "bad_field"),
    ],
)
async def test_play_now_refuses_what_no_room_could_be_made_of(connect, request_, code) -> None:
    eve = await connect("Eve")
    with pytest.raises(ServerError) as refused:
        await eve.request(request_)
    assert refused.value.code == code


@attrs.define(eq=False)
class Person:
    user: str
    name: str


class Recording(QuickPlay):
    """The queue's matching, with the rooms it would make recorded instead of made."""

    def __init__(self) -> None:
        super().__init__(hub=None)
        self.made: list[tuple[list[str], int]] = []

    async def _seat(self, tickets: list[Ticket], bots: int) -> None:
        for ticket in tickets:
            self.tickets.pop(ticket.session)
        self.made.append(([t.session.user for t in tickets], bots))


def queue(*entries: tuple[str, float, float | None, str]) -> Recording:
    recording = Recording()
    for user, rating, bot_wait, game in entries:
        person: Any = Person(user, user)
        recording.tickets[person] = Ticket(person, game, 2, {}, bot_wait, rating, 0.0)
    return recording


async def test_similar_ratings_match_first_and_the_window_widens_with_the_wait() -> None:
    q = queue(("low", 0.0, None, "neon_hex"), ("high", 10.0, None, "neon_hex"),
              ("near", 1.5, None, "neon_hex"))  # fmt: skip
    await q.match(now=1.0)
    assert q.made == [(["low", "near"], 0)]
    await q.match(now=1.0)
    assert q.made[1:] == [], "alone in its table"
    q = queue(("low", 0.0, None, "neon_hex"), ("high", 10.0, None, "neon_hex"))
    await q.match(now=1.0)
    assert q.made == [], "10 points apart: not at first"
    await q.match(now=3 * WIDEN_EVERY)  # windows of 3 + 3 * 3 points
    assert q.made == [(["low", "high"], 0)]


async def test_tickets_of_other_games_never_match_and_bots_come_after_the_wait() -> None:
    q = queue(("a", 0.0, 2.0, "neon_hex"), ("b", 0.0, None, "flip_over_frog"))
    await q.match(now=1.0)
    assert q.made == []
    await q.match(now=2.5)
    assert q.made == [(["a"], 1)]


async def test_one_person_never_takes_two_seats_of_a_quick_play_game() -> None:
    """Two connections of one identity queued for the same table are never matched with each
    other (a rated game against oneself); another person completes the table."""
    q = queue(("ada", 0.0, None, "neon_hex"), ("ada", 0.0, None, "neon_hex"))
    await q.match(now=1.0)
    assert q.made == []
    bea: Any = Person("bea", "bea")
    q.tickets[bea] = Ticket(bea, "neon_hex", 2, {}, None, 0.0, 0.0)
    await q.match(now=1.0)
    assert q.made == [(["ada", "bea"], 0)]


async def test_quick_play_keeps_to_the_open_room_caps(connect, server) -> None:
    """Quick play makes rooms like create_room does: past the identity's cap of open rooms,
    play_now is refused (``too_many_rooms``) instead of making another room with bots."""
    hub = server.hub
    cap = hub.settings.rooms_per_identity
    hub.settings = attrs.evolve(hub.settings, rooms_per_identity=1)
    try:
        cy = await connect("Cy")
        await cy.request(PlayNow(game="neon_hex", seats=2, bot_wait=0.0))
        await matched(cy)
        with pytest.raises(ServerError) as refused:
            await cy.request(PlayNow(game="neon_hex", seats=2, bot_wait=0.0))
        assert refused.value.code == "too_many_rooms"
    finally:
        hub.settings = attrs.evolve(hub.settings, rooms_per_identity=cap)


async def test_a_cancel_while_the_room_is_made_keeps_the_seat_and_says_matched(
    connect, server
) -> None:
    """Cancel pressed while the quick-play room is being made is too late, and says so by
    what follows: the player is told ``matched`` and stays seated and connected (never a
    stand-in bot counted as a forfeit in a rated game)."""
    hub = server.hub
    release = asyncio.Event()
    create = hub._create

    def slow(*args: Any, **kwargs: Any) -> Any:
        room, stored = create(*args, **kwargs)

        async def later() -> None:
            await stored
            await release.wait()

        return room, asyncio.ensure_future(later())

    hub._create = slow
    try:
        ada, bea = await connect("Ada"), await connect("Bea")
        await ada.request(PlayNow(game="flip_over_frog", seats=2))
        await bea.request(PlayNow(game="flip_over_frog", seats=2))
        for _ in range(500):
            if hub.quickplay._seating:
                break
            await asyncio.sleep(0.01)
        assert hub.quickplay._seating, "the room is being made"
        await bea.request(CancelPlayNow())
        release.set()
    finally:
        hub._create = create
    told = await matched(bea)
    assert told.rated
    room = hub.rooms[told.room]
    while bea.room_info.get(told.room) is None or bea.room_info[told.room].state != "playing":
        await bea.changed(told.room, timeout=10)
    assert room.peers.get(next(p for p in room.peers if p.user == bea.user)) == told.seat
    assert not hub.bots.in_grace(room, told.seat), "Bea is there: no grace, no stand-in"


async def test_a_person_waits_once_per_table_and_holds_few_tickets(connect, server) -> None:
    ada = await connect("Ada")
    await ada.request(PlayNow(game="neon_hex", seats=2))
    # a second connection of Ada's (her token) for the same table is refused
    again = await connect("Ada", token=ada.token)
    with pytest.raises(ServerError) as refused:
        await again.request(PlayNow(game="neon_hex", seats=2))
    assert refused.value.code == "rate_limited"
    assert "waiting for this game on another connection" in refused.value.message
    # other tables are hers to wait at too, up to the server's cap for one person
    cap = server.hub.settings.quick_play_per_person
    for n in range(cap - 1):
        more = await connect("Ada", token=ada.token)
        await more.request(PlayNow(game="flip_over_frog", seats=2 + n))
    past = await connect("Ada", token=ada.token)
    with pytest.raises(ServerError) as refused:
        await past.request(PlayNow(game="neon_flip", seats=2))
    assert refused.value.code == "rate_limited"
    assert f"You have {cap} quick-play tickets waiting" in refused.value.message
    # asking again on the same connection replaces its ticket: it never counts against itself
    await ada.request(PlayNow(game="neon_hex", seats=3))
    assert len(server.hub.quickplay.tickets) == cap


async def test_one_address_holds_at_most_its_cap_of_tickets(connect, server) -> None:
    hub = server.hub
    cap = hub.settings.quick_play_per_address
    hub.settings = attrs.evolve(hub.settings, quick_play_per_address=2)
    try:
        for name in ("Ada", "Bea"):
            player = await connect(name)
            await player.request(PlayNow(game="neon_hex", seats=4))
        cy = await connect("Cy")
        with pytest.raises(ServerError) as refused:
            await cy.request(PlayNow(game="neon_hex", seats=4))
        assert refused.value.code == "rate_limited"
        assert "Your address has 2 quick-play tickets waiting" in refused.value.message
    finally:
        hub.settings = attrs.evolve(hub.settings, quick_play_per_address=cap)


async def test_a_round_searches_each_tickets_window_instead_of_every_other_ticket() -> None:
    # 300 tickets that never match (ratings 100 points apart): a round looks at each ticket's
    # own window only. Comparing every ticket with every other costs ~n^2 window widths and
    # table keys; grouping by a key made once and bisecting ratings costs ~n.
    q = queue(*((f"p{n}", 100.0 * n, None, "neon_hex") for n in range(300)))
    widths = 0
    window = Ticket.window

    def counted(ticket: Ticket, now: float) -> float:
        nonlocal widths
        widths += 1
        return window(ticket, now)

    Ticket.window = counted  # type: ignore[method-assign]
    try:
        await q.match(now=1.0)
    finally:
        Ticket.window = window  # type: ignore[method-assign]
    assert q.made == []
    assert widths <= 2 * 300, f"{widths} window widths for 300 tickets"
