"""A room's chat (server.chat): length and rate limits, channels, and who hears a line."""

from __future__ import annotations

import pytest

from protocol.messages import ChatMessage
from server.chat import Chat
from server.errors import Refused


def chat(length: int = 10, rate: int = 3) -> Chat:
    return Chat("r1", length, rate)


def refused(call: object) -> str:
    """The code of the :class:`Refused` ``call()`` raises."""
    with pytest.raises(Refused) as caught:
        call()  # type: ignore[operator]
    return caught.value.code


# -- lines ----------------------------------------------------------------------------------------


def test_a_players_line_goes_on_the_players_channel() -> None:
    """A seated person's line (seat 0 included) is a ``players`` line with their seat, the
    room, their name and the server's time, its text stripped."""
    line = chat().line("u1", "Ann", 0, "  hi all \n", 12.5)
    assert line == ChatMessage(
        room="r1",
        channel="players",
        user="u1",
        name="Ann",
        seat=0,
        text="hi all",
        server_time=12.5,
    )


def test_a_spectators_line_goes_on_the_spectators_channel() -> None:
    line = chat().line("u2", "Bob", None, "go", 1.0)
    assert (line.channel, line.seat, line.text) == ("spectators", None, "go")


def test_a_line_has_one_to_length_characters_after_stripping() -> None:
    """Exactly ``length`` characters pass, even padded with spaces; one more, an empty or a
    blank line is refused ``chat_too_long``."""
    room = chat(length=10, rate=100)
    assert room.line("u", "U", 1, "x" * 10, 0.0).text == "x" * 10
    assert room.line("u", "U", 1, "   " + "y" * 10 + "   ", 0.0).text == "y" * 10
    for text in ("x" * 11, "", "   \t\n"):
        assert refused(lambda text=text: room.line("u", "U", 1, text, 0.0)) == "chat_too_long"


def test_the_refusal_names_the_limit() -> None:
    with pytest.raises(Refused) as caught:
        chat(length=7).line("u", "U", None, "x" * 8, 0.0)
    assert caught.value.message == "A chat message has 1 to 7 characters."


# -- the rate -------------------------------------------------------------------------------------


def test_at_most_rate_lines_per_person_in_any_ten_seconds() -> None:
    """The ``rate``-th line within 10 s is the last; the next is refused ``rate_limited``
    until the first is 10 s old."""
    room = chat(rate=3)
    for at in (0.0, 1.0, 2.0):
        room.line("u", "U", 0, "hi", at)
    assert refused(lambda: room.line("u", "U", 0, "hi", 9.99)) == "rate_limited"
    assert room.line("u", "U", 0, "hi", 10.0).server_time == 10.0
    assert refused(lambda: room.line("u", "U", 0, "hi", 10.5)) == "rate_limited"
    assert room.line("u", "U", 0, "hi", 11.0).server_time == 11.0


def test_the_rate_is_per_person() -> None:
    """One person at their limit does not silence another."""
    room = chat(rate=1)
    room.line("u1", "A", 0, "hi", 0.0)
    assert refused(lambda: room.line("u1", "A", 0, "again", 1.0)) == "rate_limited"
    assert room.line("u2", "B", 1, "hello", 1.0).user == "u2"


def test_refused_lines_do_not_count_against_the_rate() -> None:
    """A line refused for its length or for the rate uses up nothing."""
    room = chat(length=5, rate=2)
    room.line("u", "U", 0, "one", 0.0)
    refused(lambda: room.line("u", "U", 0, "far too long", 1.0))
    room.line("u", "U", 0, "two", 2.0)
    refused(lambda: room.line("u", "U", 0, "three", 3.0))
    refused(lambda: room.line("u", "U", 0, "four", 9.0))
    # Only the two accepted lines count: once the first is 10 s old, one more fits.
    assert room.line("u", "U", 0, "five", 10.0).text == "five"


def test_people_quiet_for_ten_seconds_are_forgotten() -> None:
    """A room that lives long keeps the rate of those who chatted in the last 10 s only; a
    forgotten person's limit is a newcomer's."""
    room = chat(rate=1)
    for n in range(1000):
        room.line(f"u{n}", "U", None, "hi", n * 0.001)
    assert room.people == 1000
    room.line("late", "L", None, "hi", 5.0)
    assert refused(lambda: room.line("late", "L", None, "again", 14.0)) == "rate_limited"
    assert room.people == 1, "everyone quiet since 10 s ago is gone; 'late' spoke 9 s ago"
    assert room.line("u0", "U", None, "back", 15.0).user == "u0"


# -- who hears ------------------------------------------------------------------------------------


def test_everyone_hears_the_players_spectators_hear_only_spectators() -> None:
    """A ``players`` line reaches seats and spectators; a ``spectators`` line reaches only
    viewers of the public view."""
    room = chat()
    players = room.line("u1", "Ann", 2, "gg", 0.0)
    spectators = room.line("u2", "Bob", None, "nice", 0.0)
    viewers = (0, 2, None)
    assert [Chat.hears(players, viewer, set()) for viewer in viewers] == [True, True, True]
    assert [Chat.hears(spectators, viewer, set()) for viewer in viewers] == [False, False, True]


def test_a_muted_person_is_heard_by_nobody_who_muted_them() -> None:
    room = chat()
    players = room.line("u1", "Ann", 0, "gg", 0.0)
    spectators = room.line("u2", "Bob", None, "nice", 0.0)
    assert not Chat.hears(players, 1, {"u1"})
    assert not Chat.hears(players, None, {"u1", "u9"})
    assert not Chat.hears(spectators, None, {"u2"})
    assert Chat.hears(players, 1, {"u2"})


def test_a_rate_above_sixty_four_still_limits() -> None:
    room = chat(rate=100)
    for n in range(100):
        room.line("u", "U", 0, "hi", n * 0.01)
    assert refused(lambda: room.line("u", "U", 0, "hi", 1.5)) == "rate_limited"
