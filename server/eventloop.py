"""Which asyncio event loop Lumin's processes run on.

uvloop (libuv underneath) runs the same asyncio code with a faster scheduler and socket
layer; it is the default for the server, the benchmark relay and the load generator, so that
every side of a benchmark runs on the same loop. ``asyncio`` selects the standard library's
loop (for debugging, or a platform without uvloop).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["LOOPS", "run"]

T = TypeVar("T")

#: The loop names ``lumin serve --loop`` accepts.
LOOPS = ("uvloop", "asyncio")


def run(main: Coroutine[Any, Any, T], loop: str = "uvloop") -> T:
    """Run ``main`` to completion on a new event loop of the named kind."""
    factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    if loop == "uvloop":
        import uvloop

        factory = uvloop.new_event_loop
    elif loop != "asyncio":
        raise ValueError(f"unknown event loop {loop!r}; choose one of {', '.join(LOOPS)}")
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)
