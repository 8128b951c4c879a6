"""Worker threads that give way to the event loop: a node's event loop runs every game, so
slow work done beside it (SQLite's checkpoints, password hashes) runs on threads at the
lowest scheduling priority, which take the cores only when the loop leaves them free."""

from __future__ import annotations

import concurrent.futures
import os
import sys
import threading

__all__ = ["lowest_priority", "yielding_pool"]


def lowest_priority() -> None:
    """Give the calling thread the lowest scheduling priority (Linux, where a thread's nice
    value is its own and the threads it starts inherit it); elsewhere leave it as it is."""
    if sys.platform.startswith("linux"):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)


def yielding_pool(workers: int, name: str) -> concurrent.futures.ThreadPoolExecutor:
    """A pool of ``workers`` threads named ``name``, each at the lowest priority."""
    return concurrent.futures.ThreadPoolExecutor(
        max_workers=workers, thread_name_prefix=name, initializer=lowest_priority
    )
