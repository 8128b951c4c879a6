"""The terminal's create form shows, and sends, only the options that apply to the chosen
mode and seat count (protocol version 6's ``OptionInfo.when``), as the browser's does."""

from __future__ import annotations

from clients.terminal.create import RoomForm, applies
from server.catalog import catalog, catalog_for


def form_for(game: str) -> RoomForm:
    games = list(catalog())
    form = RoomForm(games)
    form.select_game([g.id for g in games].index(game))
    return form


def option_rows(form: RoomForm) -> list[str]:
    return [row.key.partition(":")[2] for row in form.rows() if row.key.startswith("option:")]


def test_neon_flip_shows_its_modes_own_options_only() -> None:
    form = form_for("neon_flip")
    assert option_rows(form) == ["mode", "obstacles", "rounds"]
    form.options["mode"] = "solo"
    form.set_seat_count(1)
    assert option_rows(form) == ["mode", "proto_zero"]
    form.options["proto_zero"] = "overclocked"
    form.options["mode"] = "classic"
    form.set_seat_count(4)
    assert option_rows(form) == ["mode", "teams", "rounds"]
    assert "proto_zero" not in form.request()["options"], "a hidden option is never sent"


def test_flash8_solo_hides_the_race_options_and_the_handicap() -> None:
    form = form_for("flash8")
    assert any(row.key.endswith(":handicap") for row in form.rows())
    form.seats[0]["choices"]["handicap"] = True
    form.options["mode"] = "solo"
    form.set_seat_count(1)
    assert "time_limit" not in option_rows(form) and "solo_seconds" in option_rows(form)
    assert not any(row.key.endswith(":handicap") for row in form.rows())
    (seat,) = form.request()["seats"]
    assert seat.choices == {}


def test_an_older_servers_options_always_apply() -> None:
    (flip,) = [game for game in catalog_for(5) if game.id == "neon_flip"]
    level = next(option for option in flip.options if option.name == "proto_zero")
    assert level.when == {} and applies(level, flip, {"mode": "classic"}, 2)


def test_left_and_right_on_a_bot_seat_step_from_the_bot_it_shows() -> None:
    form = form_for("neon_hex")  # bots random, easy, medium, hard; medium by default
    form.row = next(n for n, row in enumerate(form.rows()) if row.key == "seat:1")
    assert form.rows()[form.row].value == "bot: medium"
    form.change(-1)
    assert form.rows()[form.row].value == "bot: easy"  # the choice before it, not the last
    form.change(1)
    form.change(1)
    assert form.rows()[form.row].value == "bot: hard"
    form.change(1)
    assert form.rows()[form.row].value == "person"
