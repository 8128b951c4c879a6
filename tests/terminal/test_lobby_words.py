"""The terminal lobby says a finished game's result in words (protocol version 6's
``RoomSummary.result``), as the browser lobby does: names, never ids."""

from __future__ import annotations

from clients.terminal.lobby import ago_words, result_words
from protocol.messages import ResultInfo, RoomSummary, SeatInfo

NOW = 1_800_000_000.0


def finished(game: str, seats: list[SeatInfo], result: ResultInfo | None) -> RoomSummary:
    return RoomSummary(room="r1", game=game, seats=tuple(seats), state="finished", result=result)


def test_a_finished_game_says_the_winner_the_scores_and_when() -> None:
    seats = [SeatInfo(seat=0, kind="human", name="Ada"), SeatInfo(seat=1, kind="human", name="Bo")]
    room = finished(
        "neon_hex", seats, ResultInfo(finished=NOW - 7205, winners=(0,), scores=(34, 28))
    )
    assert result_words(room, NOW) == "Ada won · 34\u201328 · 2 h ago"


def test_shared_wins_default_bots_and_solo_games_in_words() -> None:
    seats = [
        SeatInfo(seat=0, kind="human", name="Ada"),
        SeatInfo(seat=1, kind="bot", name="random bot", bot="random"),
        SeatInfo(seat=2, kind="human", name="Cy"),
    ]
    shared = ResultInfo(finished=NOW - 30, winners=(0, 2), scores=(5, 3, 5))
    assert result_words(finished("flip_over_frog", seats, shared), NOW) == (
        "Ada and Cy shared the win · 5\u20133\u20135 · just now"
    )
    tied = ResultInfo(finished=NOW - 600, winners=(0, 1, 2), scores=(4, 4, 4))
    assert result_words(finished("flip_over_frog", seats, tied), NOW) == (
        "Ada, bot 2 and Cy tied · 4\u20134\u20134 · 10 min ago"
    )
    ada = [SeatInfo(seat=0, kind="human", name="Ada")]
    lost = ResultInfo(finished=NOW - 86401, winners=(), scores=(31,))
    assert (
        result_words(finished("neon_flip", ada, lost), NOW)
        == "PROTO-ZERO beat Ada · 31 · yesterday"
    )
    solo = ResultInfo(finished=NOW - 3 * 86400, winners=(0,), scores=(12,))
    assert (
        result_words(finished("flash8", ada, solo), NOW) == "Ada finished with 12 left · 3 days ago"
    )


def test_no_result_says_nothing_and_no_time_is_in_the_future() -> None:
    assert result_words(finished("neon_hex", [], None), NOW) == ""
    assert ago_words(NOW + 5, NOW) == "just now"
