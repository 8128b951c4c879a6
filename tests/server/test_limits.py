"""Rate limits a reconnect does not reset: per person (identity) over all their connections, per
client address, and new connections per address; behind a trusted proxy the address is the
one its X-Forwarded-For names. An act over the limit is ``rejected``, other requests get an
``error``, each naming the limit; ``welcome`` announces the limits. Every per-address limit
counts an IPv6 client by its /64 (``--ipv6-prefix``) and an IPv4-mapped one as IPv4."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

import msgpack
import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from clients.sdk import LuminClient, ServerError, bot, human
from protocol.codec import decode
from protocol.messages import CommandRejected, Error
from server.config import Settings
from server.limits import Buckets, address_key, client_address, parse_networks


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Small limits, so the tests reach them in a few messages."""
    return Settings(
        port=0,
        data=tmp_path / "data",
        bot_delay=0.0,
        rate=2.0,
        burst=10,
        address_rate=1000.0,
        address_burst=1000,
        connect_rate=1000.0,
        connect_burst=1000,
    )


async def _pings(client: LuminClient, count: int) -> list[str]:
    """Send ``count`` pings; the answer to each: ``pong`` or the error code."""
    answers = []
    for _ in range(count):
        try:
            await client.ping()
            answers.append("pong")
        except ServerError as error:
            answers.append(error.code)
    return answers


async def test_welcome_announces_the_limits(connect, settings) -> None:
    ada: LuminClient = await connect("Ada")
    limits = ada.welcome.limits
    assert (limits.rate, limits.burst) == (settings.rate, settings.burst)
    assert (limits.address_rate, limits.address_burst) == (1000.0, 1000)
    assert limits.rooms == settings.rooms_per_identity
    assert limits.lobby_page == settings.lobby_page
    assert (limits.chat_length, limits.chat_rate) == (settings.chat_length, settings.chat_rate)


async def test_a_persons_bucket_survives_a_reconnect(connect) -> None:
    ada: LuminClient = await connect("Ada")
    # (hello counts against the connection, before it knows who is there)
    assert await _pings(ada, 11) == ["pong"] * 10 + ["rate_limited"]
    token = ada.token
    await ada.close()
    again: LuminClient = await connect("Ada", token=token)
    assert await _pings(again, 1) == ["rate_limited"]


async def test_a_second_connection_of_a_person_shares_their_bucket(connect) -> None:
    ada: LuminClient = await connect("Ada")
    twin: LuminClient = await connect("Ada", token=ada.token)
    assert await _pings(ada, 10) == ["pong"] * 10
    assert await _pings(twin, 1) == ["rate_limited"]
    other: LuminClient = await connect("Bea")  # another person has a bucket of her own
    assert await _pings(other, 3) == ["pong"] * 3


@pytest.mark.parametrize("kind", ["identity", "address"])
async def test_people_at_one_address_share_its_bucket(tmp_path: Path, kind: str) -> None:
    from server.app import LuminServer

    small = {"address_rate": 1.0, "address_burst": 6} if kind == "address" else {}
    settings = Settings(port=0, data=tmp_path / "data", rate=1000.0, burst=1000, **small)
    lumin = LuminServer(settings)
    await lumin.start()
    url = f"ws://127.0.0.1:{lumin.port}/ws"
    try:
        ada = await LuminClient.connect(url, "Ada")
        bea = await LuminClient.connect(url, "Bea")
        answers = await _pings(ada, 4) + await _pings(bea, 1)
        if kind == "address":  # 2 hellos + 4 pings = the address's burst: Bea is refused
            assert answers == ["pong"] * 4 + ["rate_limited"]
        else:
            assert answers == ["pong"] * 5
        await ada.close()
        await bea.close()
    finally:
        await lumin.stop()


async def test_an_act_over_the_limit_is_rejected_naming_the_limit(connect) -> None:
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot()], sit=0)
    await ada.start(room)
    while not ada.legal(room):
        await ada.changed(room)
    await _pings(ada, 10)  # use up the burst
    answer = await ada.act(room, {"type": "nonsense"})
    assert isinstance(answer, CommandRejected)
    assert (answer.code, answer.room) == ("rate_limited", room)
    assert "2 messages per second" in answer.message


async def test_new_connections_per_address_are_limited_with_429(tmp_path: Path) -> None:
    from server.app import LuminServer

    settings = Settings(port=0, data=tmp_path / "data", connect_rate=0.5, connect_burst=3)
    lumin = LuminServer(settings)
    await lumin.start()
    url = f"ws://127.0.0.1:{lumin.port}/ws"
    try:
        opened = [await ws_connect(url) for _ in range(3)]
        with pytest.raises(InvalidStatus) as refused:
            await ws_connect(url)
        response = refused.value.response
        assert response.status_code == 429
        assert int(response.headers["Retry-After"]) >= 1
        assert b"Too many new connections" in response.body
        for socket in opened:
            await socket.close()
        assert lumin.metrics.refused_connections.labels("connect_rate")._value.get() == 1
    finally:
        await lumin.stop()


@pytest.mark.parametrize("trusted", [True, False])
async def test_behind_a_trusted_proxy_each_forwarded_address_has_its_own_limit(
    tmp_path: Path, trusted: bool
) -> None:
    from server.app import LuminServer

    settings = Settings(
        port=0,
        data=tmp_path / "data",
        connect_rate=0.01,
        connect_burst=1,
        trusted_proxies=("127.0.0.1/32",) if trusted else (),
    )
    lumin = LuminServer(settings)
    await lumin.start()
    url = f"ws://127.0.0.1:{lumin.port}/ws"
    try:
        players = []
        for n in range(3):  # three players behind one proxy (this loopback address)
            forwarded = {"X-Forwarded-For": f"198.51.100.{n + 1}"}
            try:
                players.append(await ws_connect(url, additional_headers=forwarded))
            except InvalidStatus as refused:
                assert refused.response.status_code == 429
        assert len(players) == (3 if trusted else 1)
        if trusted:
            client = next(iter(lumin.clients))
            assert client.address.startswith("198.51.100.")
        for socket in players:
            await socket.close()
    finally:
        await lumin.stop()


async def test_a_flood_is_read_no_faster_than_the_limit_then_closed(url, settings) -> None:
    """Over the limit a connection is read no faster than its rate (each refusal is followed
    by a token's wait, so the flood waits in the socket); every refused request is answered
    with its ref, and one that floods on is closed with 1008."""
    from server.client import FLOOD_CLOSE

    answers = []
    started = time.monotonic()
    async with ws_connect(url) as socket:
        await socket.send(msgpack.packb({"type": "hello", "versions": [1], "name": "Flood"}))
        await socket.recv()
        for n in range(200):
            await socket.send(msgpack.packb({"type": "ping", "id": n, "pad": "x" * 1000}))
        with pytest.raises(ConnectionClosed):
            while True:
                answers.append(decode(await asyncio.wait_for(socket.recv(), 20)))
        assert socket.close_code == 1008
    elapsed = time.monotonic() - started
    refused = [a for a in answers if isinstance(a, Error) and a.code == "rate_limited"]
    executed = [a for a in answers if not isinstance(a, Error)]
    assert [a.ref for a in answers] == list(range(len(answers)))  # every one, in order
    assert len(refused) == FLOOD_CLOSE * settings.burst + 1
    assert len(executed) <= settings.burst + settings.rate * elapsed + 1


def test_a_bucket_is_forgotten_once_it_refilled() -> None:
    buckets = Buckets(rate=10.0, burst=5)
    for key in range(2000):
        assert buckets.take(f"k{key}", now=0.0)
    assert len(buckets) <= 2000
    buckets.prune(now=0.05)  # half a token back: every bucket still differs from a new one
    assert len(buckets) == 2000
    buckets.prune(now=1.0)
    assert len(buckets) == 0
    for _ in range(5):
        assert buckets.take("again", now=1.0)
    assert not buckets.take("again", now=1.0)
    assert buckets.wait("again", now=1.0) == pytest.approx(0.1)


def test_x_forwarded_for_is_believed_only_from_trusted_proxies() -> None:
    proxies = parse_networks(["10.0.0.0/8", "::1"])
    assert client_address("203.0.113.9", ["1.2.3.4"], proxies) == "203.0.113.9"
    assert client_address("10.0.0.2", ["1.2.3.4"], proxies) == "1.2.3.4"
    # The rightmost address no trusted proxy vouches for: a client cannot forge its way out.
    assert client_address("10.0.0.2", ["6.6.6.6, 1.2.3.4, 10.0.0.7"], proxies) == "1.2.3.4"
    assert client_address("::1", ["6.6.6.6", "1.2.3.4"], proxies) == "1.2.3.4"
    assert client_address("10.0.0.2", [], proxies) == "10.0.0.2"
    assert client_address("10.0.0.2", ["1.2.3.4"], ()) == "10.0.0.2"
    with pytest.raises(ValueError, match="not an IP"):
        parse_networks(["proxy.example"])


async def test_an_address_may_hold_only_so_many_connections_open(tmp_path: Path) -> None:
    from server.app import LuminServer

    settings = Settings(port=0, data=tmp_path / "data", connections_per_address=3)
    lumin = LuminServer(settings)
    await lumin.start()
    url = f"ws://127.0.0.1:{lumin.port}/ws"
    try:
        opened = [await LuminClient.connect(url, f"P{n}") for n in range(3)]
        with pytest.raises(InvalidStatus) as refused:
            await ws_connect(url)
        assert refused.value.response.status_code == 429
        assert b"3 are open" in refused.value.response.body
        await opened[0].close()
        for _ in range(50):  # the server sees the close
            if lumin.per_address["127.0.0.1"] < 3:
                break
            await asyncio.sleep(0.02)
        again = await ws_connect(url)
        await again.close()
        for client in opened[1:]:
            await client.close()
    finally:
        await lumin.stop()


def test_an_address_key_is_the_ipv4_address_or_the_ipv6_network() -> None:
    assert address_key("203.0.113.7") == "203.0.113.7"
    assert address_key("::ffff:203.0.113.7") == "203.0.113.7", "IPv4-mapped IPv6 is IPv4"
    assert address_key("2001:db8:1:2:aaaa:bbbb:cccc:1") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:2::9") == address_key("2001:db8:1:2:ffff::1")
    assert address_key("2001:db8:1:3::9") != address_key("2001:db8:1:2::9")
    assert address_key("2001:db8:1:2::9", 48) == "2001:db8:1::/48"
    assert address_key("2001:db8:1:2::9", 128) == "2001:db8:1:2::9/128"
    assert address_key("cluster:node-a") == "cluster:node-a", "not an address: as it is"


def test_a_trusted_proxy_may_be_named_as_ipv4_and_connect_as_ipv4_mapped() -> None:
    proxies = parse_networks(["10.0.0.0/8"])
    assert client_address("::ffff:10.0.0.2", ["2001:db8::7"], proxies) == "2001:db8::7"


async def _opened(url: str, forwarded: list[str]) -> list[object]:
    """Open a websocket for each ``X-Forwarded-For`` value: the socket, or the refusal's
    status code and body."""
    outcomes: list[object] = []
    for address in forwarded:
        try:
            outcomes.append(await ws_connect(url, additional_headers={"X-Forwarded-For": address}))
        except InvalidStatus as refused:
            outcomes.append((refused.response.status_code, refused.response.body))
    return outcomes


async def _close_all(outcomes: list[object]) -> None:
    for outcome in outcomes:
        if not isinstance(outcome, tuple):
            await outcome.close()  # type: ignore[attr-defined]


async def test_ipv6_clients_of_one_network_share_the_connect_rate(tmp_path: Path) -> None:
    """Behind a trusted proxy, a client taking a new address of its /64 for each connection
    counts as one; another /64 has a bucket of its own; an IPv4-mapped address is the IPv4
    address's."""
    from server.app import LuminServer

    settings = Settings(
        port=0,
        data=tmp_path / "data",
        connect_rate=0.01,
        connect_burst=2,
        trusted_proxies=("127.0.0.1/32",),
    )
    lumin = LuminServer(settings)
    await lumin.start()
    url = f"ws://127.0.0.1:{lumin.port}/ws"
    try:
        outcomes = await _opened(
            url,
            [
                "2001:db8:1:2::1",
                "2001:db8:1:2:aaaa::2",
                "2001:db8:1:2:ffff:ffff:ffff:3",  # a third address of the same /64
                "2001:db8:1:3::1",  # the next /64: someone else
                "198.51.100.7",
                "::ffff:198.51.100.7",
                "::ffff:c633:6407",  # 198.51.100.7 again, spelled in hex
            ],
        )
        statuses = [o[0] if isinstance(o, tuple) else 101 for o in outcomes]
        assert statuses == [101, 101, 429, 101, 101, 101, 429]
        refused = outcomes[2]
        assert isinstance(refused, tuple)
        assert b"the network 2001:db8:1:2::/64" in refused[1]
        await _close_all(outcomes)
    finally:
        await lumin.stop()


async def test_the_ipv6_prefix_is_a_setting(tmp_path: Path) -> None:
    """``--ipv6-prefix 128`` counts every IPv6 address apart; 48 counts a whole /48 as one."""
    from server.app import LuminServer

    for prefix, statuses in ((128, [101, 101, 101]), (48, [101, 101, 429])):
        settings = Settings(
            port=0,
            data=tmp_path / f"data{prefix}",
            connect_rate=0.01,
            connect_burst=2,
            trusted_proxies=("127.0.0.1/32",),
            ipv6_prefix=prefix,
        )
        lumin = LuminServer(settings)
        await lumin.start()
        url = f"ws://127.0.0.1:{lumin.port}/ws"
        try:
            outcomes = await _opened(url, ["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:9::3"])
            assert [o[0] if isinstance(o, tuple) else 101 for o in outcomes] == statuses
            await _close_all(outcomes)
        finally:
            await lumin.stop()


async def test_ipv6_clients_of_one_network_share_open_connections_and_messages(
    tmp_path: Path,
) -> None:
    """The cap on open connections and the message bucket count a /64 as one address."""
    from server.app import LuminServer

    settings = Settings(
        port=0,
        data=tmp_path / "data",
        connections_per_address=2,
        address_rate=0.01,
        address_burst=4,
        trusted_proxies=("127.0.0.1/32",),
    )
    lumin = LuminServer(settings)
    await lumin.start()
    url = f"ws://127.0.0.1:{lumin.port}/ws"
    try:
        outcomes = await _opened(url, ["2001:db8::1", "2001:db8::2", "2001:db8::3:3"])
        assert [o[0] if isinstance(o, tuple) else 101 for o in outcomes] == [101, 101, 429]
        first, second = outcomes[0], outcomes[1]
        answers = []
        hellos = [{"type": "hello", "versions": [5], "name": f"P{n}", "id": n} for n in (0, 1)]
        pings = [{"type": "ping", "id": n} for n in range(2, 6)]
        for n, message in enumerate(hellos + pings):
            socket = (first, second)[n % 2]
            await socket.send(msgpack.packb(message))  # type: ignore[attr-defined]
            answer = await asyncio.wait_for(socket.recv(), 5)  # type: ignore[attr-defined]
            answers.append(decode(answer))
        kinds = [a.code if isinstance(a, Error) else a.TYPE for a in answers]
        # Two hellos and two pings are the network's burst of 4: the next two are refused.
        assert kinds == ["welcome", "welcome", "pong", "pong", "rate_limited", "rate_limited"]
        await _close_all(outcomes)
    finally:
        await lumin.stop()


async def test_half_sent_requests_are_capped_per_address_before_any_handshake(
    tmp_path: Path,
) -> None:
    from server.app import LuminServer

    settings = Settings(port=0, data=tmp_path / "data", opening_per_address=3)
    lumin = LuminServer(settings)
    await lumin.start()
    request = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{lumin.port}\r\n\r\n".encode()
    streams = []
    try:
        for _ in range(3):  # three connections that send half a request and wait
            reader, writer = await asyncio.open_connection("127.0.0.1", lumin.port)
            writer.write(request[:10])
            streams.append((reader, writer))
        reader, writer = await asyncio.open_connection("127.0.0.1", lumin.port)
        with contextlib.suppress(ConnectionResetError):  # a fourth is closed at once, unheard
            assert await asyncio.wait_for(reader.read(), 5) == b""
        writer.close()
        assert lumin.opening.counts["127.0.0.1"] == 3
        first_reader, first_writer = streams[0]
        first_writer.write(request[10:])  # one finishes its request: it is answered
        answer = await asyncio.wait_for(first_reader.read(), 5)
        assert answer.startswith(b"HTTP/1.1 200")
        assert lumin.opening.counts["127.0.0.1"] == 2
        async with ws_connect(f"ws://127.0.0.1:{lumin.port}/ws"):  # room for a new one
            pass
        refused = lumin.metrics.refused_connections.labels("opening_per_address")
        assert refused._value.get() == 1
    finally:
        for _, writer in streams:
            writer.close()
        await lumin.stop()


async def test_connections_past_twice_the_addresss_rates_are_closed_unheard(
    tmp_path: Path,
) -> None:
    from server.app import LuminServer

    # HTTP in bursts of 2, upgrades in bursts of 2, both refilling too slowly to count here:
    # connections may come in bursts of 2 x (2 + 2) = 8; past that they are closed before their
    # request is read
    settings = Settings(
        port=0, data=tmp_path / "data", http_rate=0.001, http_burst=2, connect_rate=0.001,
        connect_burst=2,
    )  # fmt: skip
    lumin = LuminServer(settings)
    await lumin.start()
    request = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{lumin.port}\r\n\r\n".encode()

    async def ask() -> bytes:
        reader, writer = await asyncio.open_connection("127.0.0.1", lumin.port)
        try:
            writer.write(request)
            return await asyncio.wait_for(reader.read(), 5)
        except ConnectionResetError:
            return b""
        finally:
            writer.close()

    try:
        answers = [await ask() for _ in range(10)]
        statuses = [answer[:12] for answer in answers]
        assert statuses[:2] == [b"HTTP/1.1 200"] * 2, "the HTTP burst"
        assert statuses[2:8] == [b"HTTP/1.1 429"] * 6, "over the HTTP limit: told so"
        assert statuses[8:] == [b"", b""], "past twice the rates: closed unheard"
    finally:
        await lumin.stop()
