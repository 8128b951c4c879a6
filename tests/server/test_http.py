"""The HTTP routes (``server/http.py``) answered without a socket: each route from a request
object, over a real hub and store. (The websocket upgrade's refusals, which need a connection,
are tested over loopback in ``test_security.py`` and ``test_limits.py``.)"""

from __future__ import annotations

import collections
import json
from collections.abc import AsyncIterator
from http import HTTPStatus
from pathlib import Path

import pytest
from websockets.datastructures import Headers
from websockets.http11 import Request

from server.config import Settings
from server.http import HttpRoutes
from server.hub import Hub
from server.metrics import Metrics
from server.store import EventStore, RoomRow


@pytest.fixture
async def routes(tmp_path: Path) -> AsyncIterator[HttpRoutes]:
    static = tmp_path / "web"
    static.mkdir()
    (static / "index.html").write_text("<title>Lumin</title>")
    (static / "app.js").write_text("console.log('Lumin')")
    (tmp_path / "secret.txt").write_text("not for the web")
    settings = Settings(data=tmp_path / "data", static=static)
    settings.data.mkdir()
    store = EventStore(settings.database)
    metrics = Metrics()
    yield HttpRoutes(settings, Hub(settings, store, metrics), metrics, collections.Counter())
    store.close()


async def get(routes: HttpRoutes, path: str, **headers: str) -> tuple[int, str, bytes]:
    response = await routes.route(None, Request(path, Headers(headers)))  # type: ignore[arg-type]
    assert response is not None
    return response.status_code, response.headers["Content-Type"], response.body


async def finished_room(
    routes: HttpRoutes, room: str, private: bool, user: str = "u-ada"
) -> RoomRow:
    seats = [{"kind": "human", "user": user, "name": "Ada"}, {"kind": "bot", "bot": "bot"}]
    row = RoomRow(
        room, "flip_over_frog", {}, seats, b"s" * 16, b"t" * 16, "c" * 64, private,
        "CODE42" if private else None, "u-ada", "finished", 1.0, 2.0, 3.0, {},
    )  # fmt: skip
    await routes.hub.store.create_room(row)
    return row


async def test_healthz_says_ok_with_the_rooms_and_the_epoch(routes: HttpRoutes) -> None:
    status, kind, body = await get(routes, "/healthz")
    assert (status, kind) == (HTTPStatus.OK, "application/json")
    assert json.loads(body) == {"status": "ok", "rooms": 0, "epoch": routes.hub.epoch}


async def test_metrics_are_prometheus_text(routes: HttpRoutes) -> None:
    status, kind, body = await get(routes, "/metrics")
    assert status == HTTPStatus.OK and kind.startswith("text/plain")
    assert b"lumin_connections" in body


async def test_highscores_filters_by_the_player_in_the_query(routes: HttpRoutes) -> None:
    await routes.hub.store.add_high_score("Ada", 3, "gold", "r1", 1.0)
    await routes.hub.store.add_high_score("Bea", 5, "silver", "r2", 2.0)
    everyone = json.loads((await get(routes, "/highscores"))[2])["high_scores"]
    assert [entry["player"] for entry in everyone] == ["Ada", "Bea"]
    ada = json.loads((await get(routes, "/highscores?player=Ada&x=1"))[2])["high_scores"]
    assert [(entry["player"], entry["score"]) for entry in ada] == [("Ada", 3)]
    encoded = json.loads((await get(routes, "/highscores?player=B%65a"))[2])["high_scores"]
    assert [entry["player"] for entry in encoded] == ["Bea"]


async def test_a_log_is_served_only_for_a_finished_game(routes: HttpRoutes) -> None:
    assert (await get(routes, "/rooms/nope/log"))[0] == HTTPStatus.NOT_FOUND
    await finished_room(routes, "r1", private=False)
    status, kind, body = await get(routes, "/rooms/r1/log")
    assert (status, kind) == (HTTPStatus.OK, "application/json")
    document = json.loads(body)
    assert (document["lumin_log"], document["room"], document["game"]) == (
        1,
        "r1",
        "flip_over_frog",
    )


async def test_a_private_log_needs_its_code_or_a_players_token(routes: HttpRoutes) -> None:
    player, token, _ = await routes.hub.identify("Ada", None)
    _, stranger, _ = await routes.hub.identify("Eve", None)
    await finished_room(routes, "r2", private=True, user=player)
    assert (await get(routes, "/rooms/r2/log"))[0] == HTTPStatus.FORBIDDEN
    assert (await get(routes, "/rooms/r2/log?code=WRONG"))[0] == HTTPStatus.FORBIDDEN
    assert (await get(routes, "/rooms/r2/log?code=CODE42"))[0] == HTTPStatus.OK
    assert (await get(routes, "/rooms/r2/log", Authorization="Bearer unknown"))[
        0
    ] == HTTPStatus.FORBIDDEN
    assert (await get(routes, "/rooms/r2/log", Authorization=f"Bearer {stranger}"))[0] == 403
    assert (await get(routes, "/rooms/r2/log", Authorization=f"Bearer {token}"))[0] == HTTPStatus.OK
    assert (await get(routes, "/rooms/r2/log", Authorization=f"Basic {token}"))[0] == 403


async def test_static_files_with_their_type_and_the_client_for_any_other_path(
    routes: HttpRoutes,
) -> None:
    assert (await get(routes, "/app.js"))[:2] == (HTTPStatus.OK, "text/javascript")
    assert (await get(routes, "/"))[2] == b"<title>Lumin</title>"
    assert (await get(routes, "/rooms/r1"))[2] == b"<title>Lumin</title>"  # the client's own route


async def test_static_files_never_leave_the_folder(routes: HttpRoutes) -> None:
    for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt"):
        status, _, body = await get(routes, path)
        assert b"not for the web" not in body, path
        assert status in (HTTPStatus.OK, HTTPStatus.NOT_FOUND)


@pytest.mark.parametrize(
    ("origin", "host", "configured", "allowed"),
    [
        (None, None, (), True),  # bots and terminals send no Origin
        ("http://lumin.example", "lumin.example", (), True),  # the page's own origin
        ("https://lumin.example", "lumin.example", (), True),
        ("http://evil.example", "lumin.example", (), False),
        ("http://evil.example", None, (), False),
        ("https://app.example", "lumin.example", ("https://app.example",), True),
        ("http://lumin.example", "lumin.example", ("https://app.example",), False),
    ],
)
async def test_origin_allowed(
    routes: HttpRoutes,
    origin: str | None,
    host: str | None,
    configured: tuple[str, ...],
    allowed: bool,
) -> None:
    routes.settings = Settings(data=routes.settings.data, origins=configured)
    assert routes.origin_allowed(origin, host) is allowed
