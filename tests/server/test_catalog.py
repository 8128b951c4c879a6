"""The games' catalogue (``list_games``): what a client needs to offer a room and send moves."""

from __future__ import annotations

from engine.registry import get_game
from server.catalog import game_info


def test_a_commands_fields_are_those_a_client_may_send() -> None:
    # Flash 8's flash carries the lag credit only the server sets (decisions 17): a client
    # that sent every listed field would be refused.
    info = game_info(get_game("flash8"))
    assert info.commands["flash"] == ["stack"]
    assert info.commands["slide"] == ["src", "dst"]


def test_neon_hex_seat_choices_are_explained_in_players_words() -> None:
    # A create form shows these texts under each seat's role and colour.
    docs = {option.name: option.doc for option in game_info(get_game("neon_hex")).seat_options}
    assert set(docs) == {"role", "colour"}
    for doc in docs.values():
        assert "seat 1" in doc and "Auto" in doc
        assert "k-th" not in doc and "clients" not in doc and "'auto'" not in doc
