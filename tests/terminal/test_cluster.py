"""``lumin play`` on a cluster: a seat in a room another node plays is answered ``moved``; the
terminal follows it to the owner and the game is played there by key presses."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from clients.sdk import LuminClient, bot, human
from clients.terminal.app import LuminApp
from tests.server.test_cluster import known_to_each_other
from tests.server.test_cluster import url as node_url
from tests.terminal.drive import play_out, room_screen, screen_text, state, until


async def test_the_terminal_follows_moved_to_the_node_that_plays_the_room(nodes: Any) -> None:
    # Leases long enough that a loaded machine never lets A's lapse (then B would take the
    # room over and play it itself: a failover, tested elsewhere, not the moved tested here).
    a, b = await nodes("node-a", lease_ttl=10.0), await nodes("node-b", lease_ttl=10.0)
    await known_to_each_other(a, b)
    host = await LuminClient.connect(node_url(a), "Host")
    try:
        room = await host.create_room("flip_over_frog", seats=[bot("easy"), human()])
        assert room in a.hub.rooms  # node A plays it
        app = LuminApp(node_url(b), "Bea")
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: room in screen_text(app), "node A's room in B's lobby")
            b_at, a_at = urlsplit(node_url(b)).netloc, urlsplit(node_url(a)).netloc
            assert f"Lumin lobby on {b_at}" in screen_text(app)  # the server it asked
            await pilot.press("j")
            await until(pilot, lambda: "Take which seat" in screen_text(app), "the seat list")
            await pilot.press("enter")  # seat 1, the open one
            await until(pilot, lambda: room_screen(app), "the room")
            client = app.client
            assert client is not None
            assert client.url == node_url(a) and client.first_url == node_url(b)
            # The heading names the node that plays the room, which the client followed.
            await until(pilot, lambda: f"on {a_at}" in screen_text(app), "node A in the heading")
            await pilot.press("r")
            await until(pilot, lambda: "Bea [ready]" in screen_text(app), "Bea ready")
            await host.start(room)
            await until(pilot, lambda: state(app, room) == "playing", "the game started")
            await play_out(pilot, app, room)
            await until(pilot, lambda: "GAME OVER" in screen_text(app), "the outcome")
    finally:
        await host.close()
