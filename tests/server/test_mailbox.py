"""A room's mailbox (server.mailbox): requests in arrival order, waiting acts as one batch, a
request of another kind behind them carried to the next turn, cancelled requests skipped, and
everything waiting refused when the room closes. (``asyncio_mode = "auto"``: async tests run
on their own loop.)"""

from __future__ import annotations

import asyncio
from typing import Any

from protocol.errors import ErrorCode
from server.batch import QueuedAct
from server.errors import Refused
from server.mailbox import Delivery, Mailbox


def act(seat: int, n: int = 0) -> QueuedAct:
    return QueuedAct(None, seat, {"type": "flash"}, ref=n)


def work(name: str) -> Any:
    async def run() -> str:
        return name

    run.__name__ = name
    return run


async def settled(mailbox: Mailbox) -> Delivery:
    """The next delivery, which must be ready now (nothing to wait for)."""
    return await asyncio.wait_for(mailbox.next(), timeout=1.0)


async def still_waiting(mailbox: Mailbox) -> None:
    """``next()`` has nothing to deliver: it waits."""
    task = asyncio.create_task(mailbox.next())
    await asyncio.sleep(0.01)
    assert not task.done()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_requests_are_delivered_one_at_a_time_in_arrival_order() -> None:
    """Each non-act request is its own delivery, answering its own future."""
    mailbox = Mailbox()
    first, second = work("first"), work("second")
    answers = [mailbox.put(first), mailbox.put(second)]
    assert not any(answer.done() for answer in answers)
    one, two = await settled(mailbox), await settled(mailbox)
    assert (one.work, one.answers, one.acts) == (first, [answers[0]], [])
    assert (two.work, two.answers, two.acts) == (second, [answers[1]], [])
    assert await one.work() == "first"
    await still_waiting(mailbox)


async def test_acts_waiting_together_are_delivered_as_one_batch() -> None:
    """Acts queued in a row come out in one delivery, in order, each with its future."""
    mailbox = Mailbox()
    acts = [act(0, 1), act(1, 2), act(0, 3)]
    answers = [mailbox.put(a) for a in acts]
    delivery = await settled(mailbox)
    assert delivery.work is None
    assert delivery.acts == list(zip(acts, answers, strict=True))
    assert delivery.answers == answers
    await still_waiting(mailbox)


async def test_a_request_behind_acts_waits_for_the_next_delivery() -> None:
    """A non-act ends the batch: it is delivered next, and the acts behind it form a batch of
    their own after it."""
    mailbox = Mailbox()
    a1, a2, a3, a4 = act(0, 1), act(1, 2), act(0, 3), act(1, 4)
    chore = work("chore")
    f1, f2, fc, f3, f4 = (mailbox.put(item) for item in (a1, a2, chore, a3, a4))
    first, second, third = [await settled(mailbox) for _ in range(3)]
    assert first.acts == [(a1, f1), (a2, f2)]
    assert (second.work, second.answers) == (chore, [fc])
    assert third.acts == [(a3, f3), (a4, f4)]


async def test_an_act_arriving_while_the_room_waits_is_delivered_at_once() -> None:
    """``next()`` waits for the first request; it does not wait for more acts to batch."""
    mailbox = Mailbox()
    task = asyncio.create_task(mailbox.next())
    await asyncio.sleep(0)
    assert not task.done()
    only = act(0)
    answer = mailbox.put(only)
    delivery = await asyncio.wait_for(task, timeout=1.0)
    assert delivery.acts == [(only, answer)]


async def test_a_cancelled_request_is_skipped() -> None:
    """A request whose sender stopped waiting (its future cancelled) is never delivered: not
    at the head of the queue, nor when it was carried behind a batch."""
    mailbox = Mailbox()
    gone = mailbox.put(work("gone"))
    kept = work("kept")
    answer = mailbox.put(kept)
    gone.cancel()
    delivery = await settled(mailbox)
    assert (delivery.work, delivery.answers) == (kept, [answer])

    first = act(0)
    f1 = mailbox.put(first)
    carried = mailbox.put(work("carried"))
    later = act(1)
    f2 = mailbox.put(later)
    assert (await settled(mailbox)).acts == [(first, f1)]
    carried.cancel()
    assert (await settled(mailbox)).acts == [(later, f2)]


async def test_a_cancelled_act_at_the_head_is_skipped() -> None:
    mailbox = Mailbox()
    gone, kept = act(0, 1), act(1, 2)
    mailbox.put(gone).cancel()
    answer = mailbox.put(kept)
    assert (await settled(mailbox)).acts == [(kept, answer)]


async def test_a_cancelled_act_behind_another_is_skipped() -> None:
    mailbox = Mailbox()
    first, gone = act(0, 1), act(1, 2)
    answer = mailbox.put(first)
    mailbox.put(gone).cancel()
    assert (await settled(mailbox)).acts == [(first, answer)]


async def test_refuse_all_answers_everything_waiting_with_refused() -> None:
    """Closing: every waiting future, the carried request's included, gets :class:`Refused`
    with the code and message; cancelled ones are left alone; the mailbox is then empty."""
    mailbox = Mailbox()
    batch = mailbox.put(act(0))
    carried = mailbox.put(work("carried"))
    queued = [mailbox.put(act(1)), mailbox.put(work("later"))]
    gone = mailbox.put(work("gone"))
    gone.cancel()
    assert (await settled(mailbox)).answers == [batch]  # the chore behind it is carried

    mailbox.refuse_all(ErrorCode.SHUTTING_DOWN, "The server is shutting down.")

    assert not batch.done()  # delivered already: the room answers it
    for answer in (carried, *queued):
        error = answer.exception()
        assert isinstance(error, Refused)
        assert (error.code, error.message) == ("shutting_down", "The server is shutting down.")
    assert gone.cancelled()
    await still_waiting(mailbox)
