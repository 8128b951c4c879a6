"""The HTTP routes (``server/http.py``) answered without a socket: each route from a request
object, over a real hub and store. (The websocket upgrade's refusals, which need a connection,
are tested over loopback in ``test_security.py`` and ``test_limits.py``.)"""

from __future__ import annotations

import collections
import json
import types
from collections.abc import AsyncIterator
from http import HTTPStatus
from pathlib import Path
from typing import Any

import pytest
import structlog
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.config import Settings
from server.http import HttpRoutes
from server.hub import Hub
from server.metrics import Metrics
from server.playerrows import RatingRow, ResultRow
from server.store import EventStore, RoomRow

ADMIN_TOKEN = "an-admin-token-of-the-operator"


@pytest.fixture
async def routes(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[HttpRoutes]:
    """The routes of a server with a static folder and an admin token; a test's
    ``@pytest.mark.settings(...)`` changes its other settings."""
    static = tmp_path / "web"
    static.mkdir()
    (static / "index.html").write_text("<title>Lumin</title>")
    (static / "app.js").write_text("console.log('Lumin')")
    (static / ".env").write_text("SECRET=not for the web")
    (static / ".git").mkdir()
    (static / ".git" / "config").write_text("[remote] not for the web")
    (tmp_path / "secret.txt").write_text("not for the web")
    marker = request.node.get_closest_marker("settings")
    extra = {"http_burst": 1000, **(marker.kwargs if marker else {})}
    settings = Settings(data=tmp_path / "data", static=static, admin_token=ADMIN_TOKEN, **extra)
    settings.data.mkdir()
    store = EventStore(settings.database)
    metrics = Metrics()
    yield HttpRoutes(settings, Hub(settings, store, metrics), metrics, collections.Counter())
    store.close()


async def get(
    routes: HttpRoutes, path: str, address: str = "127.0.0.9", **headers: str
) -> tuple[int, str, bytes]:
    response = await ask(routes, Request(path, Headers(headers)), address)
    return response.status_code, response.headers["Content-Type"], response.body


async def ask(routes: HttpRoutes, request: Request, address: str = "127.0.0.9") -> Response:
    """The answer to ``request``, as a client at ``address`` would get it."""
    peer = types.SimpleNamespace(remote_address=(address, 50000))  # the request's socket
    response = await routes.route(peer, request)  # type: ignore[arg-type]
    assert response is not None
    return response


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


async def test_metrics_on_the_game_port_need_the_admin_token(routes: HttpRoutes) -> None:
    status, kind, body = await get(routes, "/metrics", Authorization=f"Bearer {ADMIN_TOKEN}")
    assert status == HTTPStatus.OK and kind.startswith("text/plain")
    assert b"lumin_connections" in body
    for headers in ({}, {"Authorization": "Bearer not-the-token"}):
        status, _, body = await get(routes, "/metrics", **headers)
        assert status == HTTPStatus.UNAUTHORIZED and b"lumin_connections" not in body


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


def body_of(answer: tuple[int, str, bytes]) -> dict[str, Any]:
    status, kind, body = answer
    assert kind == "application/json", (status, body)
    loaded: dict[str, Any] = json.loads(body)
    return loaded


async def rated_game(
    routes: HttpRoutes, room: str, finished: float, private: bool = False, user: str = "u1"
) -> None:
    row = await finished_room(routes, room, private, user)
    await routes.hub.store.update_room(room, finished=finished)
    await routes.hub.store.add_results(
        [
            ResultRow(
                row.id, 0, user, "Ada", "flip_over_frog", "4p", 1, False, finished, True, 0.0, 1.0
            )
        ]
    )


@pytest.mark.settings(http_rate=1.0, http_burst=3)
async def test_http_requests_past_an_addresss_burst_are_refused_429_before_any_work(
    routes: HttpRoutes,
) -> None:
    for _ in range(3):
        assert (await get(routes, "/healthz", address="127.0.0.7"))[0] == HTTPStatus.OK
    status, kind, body = await get(routes, "/leaderboard?game=neon_hex", address="127.0.0.7")
    assert (status, kind) == (HTTPStatus.TOO_MANY_REQUESTS, "text/plain")
    assert b"Too many requests from 127.0.0.7" in body and b"try again in 1 s" in body
    assert (await get(routes, "/healthz", address="127.0.0.8"))[0] == HTTPStatus.OK, "others'"
    metrics = routes.metrics.render()
    assert b'lumin_limit_refusals_total{limit="http"} 1.0' in metrics


async def test_a_leaderboard_comes_in_pages_ranked_across_them(routes: HttpRoutes) -> None:
    # five players, two of them equal: pages of two share the rank across the page break
    shown = [30.0, 24.0, 24.0, 18.0, 12.0]
    await routes.hub.store.save_ratings(
        [
            RatingRow(f"u{n}", "neon_hex", "2p", f"P{n}", value + 3.0, 1.0, 9 - n, 1.0)
            for n, value in enumerate(shown)
        ]
    )
    seen: list[tuple[str, float, int]] = []
    path = "/leaderboard?game=neon_hex&pool=2p&limit=2"
    pages = 0
    while True:
        page = body_of(await get(routes, path))
        pages += 1
        seen += [(p["user"], p["rating"], p["rank"]) for p in page["players"]]
        if page["next"] is None:
            break
        path = f"/leaderboard?game=neon_hex&pool=2p&limit=2&after={page['next']}"
    assert pages == 3
    assert seen == [
        ("u0", 30.0, 1), ("u1", 24.0, 2), ("u2", 24.0, 2), ("u3", 18.0, 4), ("u4", 12.0, 5),
    ]  # fmt: skip
    bad = await get(routes, "/leaderboard?game=neon_hex&after=not-a-page")
    assert bad[0] == HTTPStatus.BAD_REQUEST
    assert body_of(bad) == {"error": "after is the next of the previous page, as it came"}


async def test_a_history_page_is_full_of_public_games_and_names_the_next(
    routes: HttpRoutes,
) -> None:
    for n in range(9):  # every third game in a private room
        await rated_game(routes, f"g{n}", 10.0 + n, private=n % 3 == 0)
    first = body_of(await get(routes, "/history?user=u1&limit=3"))
    assert [g["room"] for g in first["games"]] == ["g8", "g7", "g5"]
    second = body_of(await get(routes, f"/history?user=u1&limit=3&after={first['next']}"))
    assert [g["room"] for g in second["games"]] == ["g4", "g2", "g1"]
    assert second["next"] is None


async def test_rated_lists_public_games_and_every_game_for_the_operator(
    routes: HttpRoutes,
) -> None:
    for n in range(4):
        await rated_game(routes, f"g{n}", 10.0 + n, private=n == 2)
    public = body_of(await get(routes, "/rated"))
    assert public == {"rooms": ["g0", "g1", "g3"], "next": None}
    admin = body_of(await get(routes, "/rated", Authorization=f"Bearer {ADMIN_TOKEN}"))
    assert admin["rooms"] == ["g0", "g1", "g2", "g3"]
    page = body_of(await get(routes, "/rated?limit=2"))
    assert page["rooms"] == ["g0", "g1"]
    rest = body_of(await get(routes, f"/rated?limit=2&after={page['next']}"))
    assert rest == {"rooms": ["g3"], "next": None}
    # the operator reads a private game's log with the admin token
    assert (await get(routes, "/rooms/g2/log"))[0] == HTTPStatus.FORBIDDEN
    assert (await get(routes, "/rooms/g2/log", Authorization=f"Bearer {ADMIN_TOKEN}"))[0] == 200


@pytest.mark.parametrize("name", ["Host", "Origin", "Authorization"])
async def test_a_header_named_twice_is_a_400_not_a_server_error(routes: HttpRoutes, name) -> None:
    twice = Headers([(name, "a.example"), (name, "b.example")])
    for path in ("/healthz", "/ws", "/rooms/r1/log", "/api/admin/rooms"):
        answer = await ask(routes, Request(path, twice))
        assert answer.status_code == HTTPStatus.BAD_REQUEST, (path, answer)
        assert answer.body == f"A request names {name} once.\n".encode()


async def test_head_answers_a_gets_headers_without_its_body(routes: HttpRoutes) -> None:
    for path in ("/", "/app.js", "/healthz", "/leaderboard?game=neon_hex"):
        got = await ask(routes, Request(path, Headers()))
        head = await ask(routes, Request(path, Headers(), method="HEAD"))
        assert (head.status_code, head.body) == (got.status_code, b""), path
        assert head.headers["Content-Length"] == str(len(got.body)), path


async def test_other_methods_are_405_with_what_is_allowed(routes: HttpRoutes) -> None:
    for method in ("POST", "PUT", "DELETE", "OPTIONS"):
        answer = await ask(routes, Request("/leaderboard?game=neon_hex", Headers(), method=method))
        assert answer.status_code == HTTPStatus.METHOD_NOT_ALLOWED
        assert answer.headers["Allow"] == "GET, HEAD"


async def test_dotfiles_of_the_static_folder_are_never_served(routes: HttpRoutes) -> None:
    for path in ("/.env", "/.git/config", "/%2egit/config", "/assets/../.env"):
        status, _, body = await get(routes, path)
        assert status == HTTPStatus.NOT_FOUND and b"not for the web" not in body, path
    assert not [name for name in routes.static.files if name.startswith(".")]


async def test_a_failure_answering_is_a_500_sentence_and_a_log_line(
    routes: HttpRoutes, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*args: Any) -> Any:
        raise RuntimeError("a bug's own words <object at 0x7f00deadbeef>")

    monkeypatch.setattr(routes.hub.store, "get_high_scores", broken)
    with structlog.testing.capture_logs() as logged:
        status, kind, body = await get(routes, "/highscores")
    assert (status, kind) == (HTTPStatus.INTERNAL_SERVER_ERROR, "text/plain")
    assert body == b"The server failed to answer this request.\n"
    assert [line["event"] for line in logged] == ["http_failed"]


async def test_a_players_page_asked_again_at_once_is_answered_from_memory(
    routes: HttpRoutes, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[object] = []
    board = routes.hub.store.get_leaderboard

    async def counted(*args: Any) -> Any:
        reads.append(args)
        return await board(*args)

    monkeypatch.setattr(routes.hub.store, "get_leaderboard", counted)
    answers = [
        await ask(routes, Request("/leaderboard?game=neon_hex", Headers())) for _ in range(5)
    ]
    assert len(reads) == 1, "one read for five asks"
    assert {a.body for a in answers} == {answers[0].body}
    assert [a.headers.get_all("Server") for a in answers] == [[]] * 5, "each answer its own"
    routes.pages = type(routes.pages)(0.0, 1)  # nothing kept: every ask reads
    await ask(routes, Request("/leaderboard?game=neon_hex", Headers()))
    assert len(reads) == 2
