"""The lag proxy of the race benchmarks (benchmarks/lagproxy.py): its schedule, and a real
round trip through it on loopback."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from benchmarks.lagproxy import LagProxy, Schedule


def test_chunks_leave_at_arrival_plus_delay_not_one_delay_after_another() -> None:
    schedule = Schedule(0.15)
    # a burst of chunks read together leaves together: the delay never adds up
    assert [schedule.due(10.0) for _ in range(50)] == [10.15] * 50
    assert schedule.due(10.5) == pytest.approx(10.65)


def test_a_jittered_schedule_never_reorders_the_stream() -> None:
    schedule = Schedule(0.05, jitter=0.04, rng=random.Random(3))
    arrivals = [n * 0.001 for n in range(2000)]
    dues = [schedule.due(at) for at in arrivals]
    assert dues == sorted(dues)
    assert all(due >= at + 0.01 - 1e-12 for due, at in zip(dues, arrivals, strict=True))
    assert all(
        due <= at + 0.09 + 1e-12 or due == dues[i - 1]
        for i, (due, at) in enumerate(zip(dues, arrivals, strict=True))
    )
    assert len({round(due - at, 6) for due, at in zip(dues, arrivals, strict=True)}) > 100


def test_a_negative_delay_is_refused() -> None:
    with pytest.raises(ValueError):
        Schedule(-0.1)


async def _echo_server() -> asyncio.Server:
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        writer.close()

    return await asyncio.start_server(echo, "127.0.0.1", 0)


async def test_a_round_trip_through_the_proxy_takes_at_least_its_delays() -> None:
    server = await _echo_server()
    port = server.sockets[0].getsockname()[1]
    async with LagProxy("127.0.0.1", port, up=0.05, down=0.03) as proxy:
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        for n in range(5):
            started = time.perf_counter()
            writer.write(f"ping {n}\n".encode())
            await writer.drain()
            assert await reader.readline() == f"ping {n}\n".encode()
            assert time.perf_counter() - started >= 0.08
        writer.close()
        await writer.wait_closed()
    server.close()
    await server.wait_closed()


async def test_many_chunks_come_back_in_order_through_a_jittered_proxy() -> None:
    server = await _echo_server()
    port = server.sockets[0].getsockname()[1]
    async with LagProxy("127.0.0.1", port, up=0.02, down=0.02, jitter=0.015, seed=7) as proxy:
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        sent = b""
        for n in range(600):
            line = f"{n:05d}|".encode()
            sent += line
            writer.write(line)
            await writer.drain()
            if n % 20 == 0:
                await asyncio.sleep(0.002)  # let some chunks go on their own
        got = await reader.readexactly(len(sent))
        assert got == sent
        writer.write_eof()
        assert await reader.read() == b""  # the end of the stream is relayed too
        writer.close()
        await writer.wait_closed()
    server.close()
    await server.wait_closed()
