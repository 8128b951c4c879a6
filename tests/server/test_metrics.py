"""The server's metrics: the loop histogram's exposition matches Prometheus' histogram form,
and a live server's /metrics has every series docs/operating.md describes, with the values
some play gives them."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import random
import re
import urllib.request
from pathlib import Path

import attrs
import pytest
from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from clients.sdk import LuminClient, ServerError, bot, human
from protocol.codec import encode
from protocol.messages import Hello
from server.app import LuminServer
from server.config import Settings
from server.metrics import LOOP_LAG_INTERVAL, LoopHistogram, Metrics, lumin_version
from server.store import EventStore
from tests.server.conftest import TEST_LIMITS
from tests.server.test_play import play_seat
from tests.server.test_store_contract import reset_postgres


def _samples(text: bytes, name: str) -> list[str]:
    return [line for line in text.decode().splitlines() if line.startswith(name + "_")]


def test_a_batch_counts_as_many_observations_as_prometheus_would_make() -> None:
    """LoopHistogram.observe(value, count) exports the same buckets, count and sum as
    ``count`` calls of prometheus_client's Histogram.observe(value), a value equal to a bound
    included in that bound's bucket."""
    ours, theirs = CollectorRegistry(), CollectorRegistry()
    buckets = (0.001, 0.01, 0.1)
    loop = LoopHistogram("lumin_x_seconds", "x", buckets, ours)
    reference = Histogram("lumin_x_seconds", "x", buckets=buckets, registry=theirs)
    for value, count in ((0.0005, 3), (0.001, 1), (0.05, 2), (7.0, 1)):
        loop.observe(value, count)
        for _ in range(count):
            reference.observe(value)
    assert _samples(generate_latest(ours), "lumin_x_seconds") == [
        line
        for line in _samples(generate_latest(theirs), "lumin_x_seconds")
        if not line.startswith("lumin_x_seconds_created")
    ]
    assert 'lumin_x_seconds_bucket{le="0.001"} 4.0' in generate_latest(ours).decode()


# -- a live server's /metrics -------------------------------------------------------------------

OPERATING = Path(__file__).resolve().parents[2] / "docs" / "operating.md"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The tests' server, with a metrics listener of its own (any free port)."""
    return attrs.evolve(settings, metrics_listen="127.0.0.1:0")


async def _scrape(server: LuminServer) -> str:
    """What Prometheus scrapes from ``server``'s ``--metrics-listen`` address."""
    url = f"http://127.0.0.1:{server.metrics_port}/metrics"

    def get() -> str:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return str(answer.read().decode())

    return await asyncio.to_thread(get)


def _value(text: str, name: str, **labels: str) -> float:
    """The value of the one sample ``name`` with (at least) ``labels``."""
    found = [
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name and labels.items() <= sample.labels.items()
    ]
    assert len(found) == 1, (name, labels, found)
    return found[0]


async def _played(server: LuminServer, connect) -> str:
    """A Flip Over Frog game against a bot played to its end, a client that speaks only a
    future protocol version refused, every connection closed; then /metrics."""
    ada: LuminClient = await connect("Ada")
    room = await ada.create_room("flip_over_frog", seats=[human(), bot("bot")], sit=0)
    await ada.start(room)
    await asyncio.wait_for(play_seat(ada, room, random.Random(3), "flip_over_frog"), 30)
    await ada.close()
    async with ws_connect(f"ws://127.0.0.1:{server.port}/ws") as socket:
        await socket.send(encode(Hello(versions=(99,), name="Future", id=1)))
        with contextlib.suppress(ConnectionClosed):
            async for _ in socket:
                pass
    for _ in range(200):  # closes are counted once the server's side is done
        if not server.clients and sum(server.metrics.loop_lag.counts) >= 1:
            break
        await asyncio.sleep(LOOP_LAG_INTERVAL / 10)
    return await _scrape(server)


async def test_a_live_server_exports_its_process_loop_store_and_bot_series(
    server: LuminServer, connect
) -> None:
    text = await _played(server, connect)
    assert _value(text, "lumin_event_loop_lag_seconds_count") >= 1
    assert 0 <= _value(text, "lumin_event_loop_lag_seconds_sum") < 5
    assert _value(text, "lumin_build_info", version=lumin_version()) == 1
    assert lumin_version() == importlib.metadata.version("lumin") != "unknown"
    assert _value(text, "process_resident_memory_bytes") > 10_000_000
    assert _value(text, "process_open_fds") > 0
    assert _value(text, "process_cpu_seconds_total") > 0
    assert _value(text, "python_gc_collections_total", generation="0") >= 0
    assert _value(text, "python_info") == 1
    assert _value(text, "lumin_connections_opened_total") == 2
    assert _value(text, "lumin_connections_closed_total", reason="normal") == 1
    assert _value(text, "lumin_connections_closed_total", reason="version") == 1
    assert _value(text, "lumin_refused_connections_total", reason="version") == 1
    assert _value(text, "lumin_connections") == 0
    think = {"game": "flip_over_frog", "kind": "bot"}
    assert _value(text, "lumin_bot_think_seconds_count", **think) >= 1
    assert _value(text, "lumin_bot_think_seconds_sum", **think) > 0
    commits = _value(text, "lumin_store_commit_seconds_count")
    assert commits >= 1 and _value(text, "lumin_store_commit_seconds_sum") > 0
    assert _value(text, "lumin_store_wal_bytes") > 0  # SQLite's WAL holds the game
    assert _value(text, "lumin_recovered_rooms") == 0
    assert 0 <= _value(text, "lumin_recovery_seconds") < 10
    assert "_created" not in text


async def test_the_wal_gauge_reads_the_file_at_scrape_time(server: LuminServer) -> None:
    assert isinstance(server.store, EventStore)
    wal = Path(f"{server.store.path}-wal")
    text = await _scrape(server)
    assert _value(text, "lumin_store_wal_bytes") == (wal.stat().st_size if wal.exists() else 0)
    wal.unlink(missing_ok=True)  # as after a truncating checkpoint
    assert _value(await _scrape(server), "lumin_store_wal_bytes") == 0


async def test_room_caps_are_counted_by_limit(settings, tmp_path: Path) -> None:
    capped = LuminServer(attrs.evolve(settings, rooms_per_identity=1))
    await capped.start()
    try:
        ada = await LuminClient.connect(f"ws://127.0.0.1:{capped.port}/ws", "Ada")
        await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
        with pytest.raises(ServerError):
            await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
        await ada.close()
        text = await _scrape(capped)
        assert _value(text, "lumin_limit_refusals_total", limit="rooms_per_identity") == 1
    finally:
        await capped.stop()


def test_store_commits_of_the_fsync_writer_thread_are_observed(tmp_path: Path) -> None:
    """The SQLite store's writer thread (fsync durability) reports each batch's commit."""
    metrics = Metrics()

    async def write() -> None:
        store = EventStore(tmp_path / "x.sqlite3", durability="fsync")
        store.observe_commit = metrics.store_commit.observe
        await store.open()
        await store.save_identity("digest", "Ada", 0.0)
        await store.aclose()

    asyncio.run(write())
    text = metrics.render().decode()
    assert _value(text, "lumin_store_commit_seconds_count") >= 1


async def test_every_series_is_documented(server: LuminServer, connect) -> None:
    """Every metric family /metrics serves is described in docs/operating.md's "Metrics"."""
    text = await _played(server, connect)
    families = [family.name for family in text_string_to_metric_families(text)]
    assert len(families) > 20
    section = OPERATING.read_text().split("## Metrics", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"`([a-z_]+)(?:\{[^`]*\})?`", section))
    missing = [
        name for name in families if name not in documented and f"{name}_total" not in documented
    ]
    assert not missing, f"not in docs/operating.md, Metrics: {missing}"


async def test_on_postgresql_commits_are_observed_and_there_is_no_wal_gauge(
    postgres_url: str, tmp_path: Path
) -> None:
    await reset_postgres(postgres_url)
    settings = Settings(
        port=0, data=tmp_path / "unused", store=postgres_url, metrics_listen="127.0.0.1:0",
        **TEST_LIMITS,
    )  # fmt: skip
    lumin = LuminServer(settings)
    await lumin.start()
    try:
        ada = await LuminClient.connect(f"ws://127.0.0.1:{lumin.port}/ws", "Ada")
        await ada.create_room("flip_over_frog", seats=[human(), human()], sit=0)
        await ada.close()
        text = await _scrape(lumin)
    finally:
        await lumin.stop()
    assert _value(text, "lumin_store_commit_seconds_count") >= 1
    assert "lumin_store_wal_bytes" not in text
