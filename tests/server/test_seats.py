"""A room's seats (server.seats): who holds which, the rules of taking one and of starting,
room codes, and the seat specs the rules are dealt."""

from __future__ import annotations

import pytest

from engine.core import SeatSpec, first_state, validate_options
from engine.registry import get_game
from protocol.messages import SeatInfo
from server.errors import Refused
from server.seats import Seat, check_start, join_kind, room_code, seat_of, seat_specs


def human(user: str, name: str | None = None, ready: bool = False) -> Seat:
    return Seat(kind="human", user=user, name=name or user.title(), ready=ready)


def bot(kind: str = "bot") -> Seat:
    return Seat(kind="bot", name="Bot", bot=kind)


def refusal(call: object) -> tuple[str, str]:
    """The code and message of the :class:`Refused` ``call()`` raises."""
    with pytest.raises(Refused) as caught:
        call()  # type: ignore[operator]
    return caught.value.code, caught.value.message


# -- seat_of --------------------------------------------------------------------------------------


def test_seat_of_finds_the_seat_a_person_holds() -> None:
    """Only a human seat counts: a bot or an open seat naming the user is nobody's."""
    seats = [Seat(), bot(), human("ann"), Seat(kind="open", user="bob")]
    assert seat_of(seats, "ann") == 2
    assert seat_of(seats, "bob") is None
    assert seat_of(seats, "cat") is None
    assert seat_of([], "ann") is None


# -- join_kind ------------------------------------------------------------------------------------


def test_a_seat_outside_the_room_is_no_such_seat() -> None:
    seats = [Seat(), Seat()]
    for seat in (-1, 2):
        assert refusal(lambda seat=seat: join_kind(seats, seat, "ann", "waiting", "R")) == (
            "no_such_seat",
            "Room R has seats 0-1.",
        )


@pytest.mark.parametrize("status", ["waiting", "playing", "finished"])
def test_ones_own_seat_is_reclaimed_at_any_time(status: str) -> None:
    seats = [bot(), human("ann")]
    assert join_kind(seats, 1, "ann", status, "R") == "reclaim"


def test_an_open_seat_is_taken_before_the_start() -> None:
    assert join_kind([human("bob"), Seat()], 1, "ann", "waiting", "R") == "take"


@pytest.mark.parametrize("status", ["playing", "finished"])
def test_open_seats_close_at_the_start(status: str) -> None:
    code, _ = refusal(lambda: join_kind([human("bob"), Seat()], 1, "ann", status, "R"))
    assert code == "already_started"


@pytest.mark.parametrize("status", ["waiting", "playing"])
def test_a_bots_seat_is_taken_until_the_end(status: str) -> None:
    """A person takes a bot's place before the start or during the game."""
    assert join_kind([human("bob"), bot()], 1, "ann", status, "R") == "take"


def test_a_bots_seat_is_closed_once_the_game_is_over() -> None:
    assert refusal(lambda: join_kind([human("bob"), bot()], 1, "ann", "finished", "R")) == (
        "already_started",
        "The game is over.",
    )


def test_a_person_holds_one_seat_at_most() -> None:
    """Holding a seat, a person may not take another one, even an open one before the start."""
    seats = [human("ann"), Seat(), bot()]
    for seat in (1, 2):
        assert refusal(lambda seat=seat: join_kind(seats, seat, "ann", "waiting", "R")) == (
            "seat_taken",
            "You already hold seat 0 here.",
        )


def test_another_persons_seat_is_taken() -> None:
    seats = [human("bob", name="Bobby"), Seat()]
    for status in ("waiting", "playing"):
        assert refusal(lambda status=status: join_kind(seats, 0, "ann", status, "R")) == (
            "seat_taken",
            "Seat 0 is held by Bobby.",
        )


# -- check_start ----------------------------------------------------------------------------------


def test_the_game_starts_with_every_seat_filled_and_every_guest_ready() -> None:
    """Bots need no readiness, nor does the host; everyone else must have said ready."""
    assert check_start([human("host"), human("ann", ready=True), bot()], "host") is None


def test_an_open_seat_stops_the_start() -> None:
    """The sentence counts seats as players see them, from 1: the third seat is seat 3."""
    seats = [human("host"), bot(), Seat()]
    assert refusal(lambda: check_start(seats, "host")) == ("not_ready", "Seat 3 is still open.")


def test_a_guest_not_ready_stops_the_start() -> None:
    seats = [human("host"), human("ann", name="Ann")]
    assert refusal(lambda: check_start(seats, "host")) == (
        "not_ready",
        "Ann (seat 2) is not ready.",
    )


def test_without_a_host_every_person_must_be_ready() -> None:
    """A room with no host (``None``) exempts nobody."""
    assert refusal(lambda: check_start([human("ann", name="Ann"), bot()], None))[0] == "not_ready"
    assert check_start([human("ann", ready=True), bot()], None) is None


# -- room_code ------------------------------------------------------------------------------------


def test_room_codes_are_six_characters_easy_to_read_aloud() -> None:
    """Six characters without the look-alikes 0/O and 1/I; random, so they differ."""
    codes = {room_code() for _ in range(50)}
    assert len(codes) == 50
    for code in codes:
        assert len(code) == 6
        assert set(code) <= set("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")


# -- seat_specs and the stored form ---------------------------------------------------------------


def test_seat_specs_name_unnamed_seats_seat_n() -> None:
    """A seat without a name (``None``, empty, or none stored) is ``Seat n`` by its index; bot
    kinds and choices pass through (none stored: none)."""
    stored = [
        human("ann", name="Ann").to_wire(),
        Seat(kind="bot", bot="hard", choices={"role": "merchant"}).to_wire(),
        {"kind": "open", "name": ""},
        {"kind": "open"},
    ]
    assert seat_specs(stored) == [
        SeatSpec(name="Ann", bot=None, choices={}),
        SeatSpec(name="Seat 1", bot="hard", choices={"role": "merchant"}),
        SeatSpec(name="Seat 2", bot=None, choices={}),
        SeatSpec(name="Seat 3", bot=None, choices={}),
    ]


def test_the_rules_are_dealt_the_seat_specs() -> None:
    """Neon Hex names its factions after the seats: an unnamed bot seat deals as ``Seat 1``,
    with its chosen role."""
    game = get_game("neon_hex")
    seats = [human("ann", name="Ann"), Seat(kind="bot", bot="easy", choices={"role": "explorer"})]
    specs = seat_specs([seat.to_wire() for seat in seats])
    state = first_state(game, validate_options(game, {}), specs, b"seats")
    factions = [(faction.name, faction.role) for faction in state.factions]
    assert factions == [("Ann", "builder"), ("Seat 1", "explorer")]


def test_a_seat_survives_its_stored_form() -> None:
    seat = Seat(kind="human", name="Ann", user="ann", choices={"handicap": True}, ready=True)
    assert seat.to_wire() == {
        "kind": "human",
        "name": "Ann",
        "user": "ann",
        "bot": None,
        "choices": {"handicap": True},
        "ready": True,
    }
    assert Seat.from_wire(seat.to_wire()) == seat
    assert Seat() == Seat(kind="open", name=None, user=None, bot=None, choices={}, ready=False)


def test_seat_info_is_the_lobbys_view_of_a_seat() -> None:
    info = Seat(kind="bot", name="Bot", bot="easy").info(3, connected=True)
    assert info == SeatInfo(
        seat=3,
        kind="bot",
        name="Bot",
        user=None,
        bot="easy",
        choices={},
        ready=False,
        connected=True,
    )
