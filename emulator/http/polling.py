"""Busy polling: the server's event loop looks for the next request a moment before it sleeps.

A keep-alive client that sends its requests one after another (the common case: a test
suite, an SDK awaiting each call) leaves the server idle for the short time between an
answer and the next request. Asleep in ``epoll_wait``, the server pays for that gap twice:
the wake-up, and a request that then runs on cold caches (measured in-process: ``handle()``
after a 100 µs sleep takes 1.2x its time in a tight loop, after a 100 µs spin 1.0x;
docs/wire.md). ``BusyPollSelector`` asks the kernel without waiting, again and again, for up
to ``budget_s`` before it blocks as usual, so a request that arrives within the budget is
taken at once on a warm core. It costs CPU only for the budget after the last event (the
server's tick is 0.1 s: at most 0.5 % of a core when nothing happens with 500 µs), and
nothing while requests are queued (a ready selector returns at once).

It only helps where the client runs on another core: with one CPU the spin would take the
time the client needs to send the next request, so ``serve`` turns it on only with two or
more (``default_budget_us``). The selector releases the GIL in each poll, so other threads
of the process (webhook deliveries) still run; a server in a thread of a test process
(``serving()``) does not spin (its default ``WireOptions.busy_poll_us`` is 0).
"""

from __future__ import annotations

import asyncio
import os
import selectors
import time
from collections.abc import Callable
from typing import Any

SERVE_BUDGET_US = 500


def default_budget_us() -> int:
    """``serve``'s default: ``SERVE_BUDGET_US`` with two or more CPUs to run on, else 0."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cpus = os.cpu_count() or 1
    return SERVE_BUDGET_US if cpus >= 2 else 0


class BusyPollSelector(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
    """The platform's selector, polled without waiting for up to ``budget_s`` first."""

    def __init__(self, budget_s: float) -> None:
        super().__init__()
        self.budget_s = budget_s

    def select(self, timeout: float | None = None) -> list[tuple[Any, int]]:
        ready = super().select(0)
        if ready or (timeout is not None and timeout <= 0):
            return ready
        clock = time.perf_counter
        spin = self.budget_s if timeout is None else min(self.budget_s, timeout)
        end = clock() + spin
        while clock() < end:
            ready = super().select(0)
            if ready:
                return ready
        return super().select(None if timeout is None else timeout - spin)


def loop_factory(budget_us: int) -> Callable[[], asyncio.AbstractEventLoop]:
    """A factory of asyncio loops whose selector busy-polls for ``budget_us``."""

    def new_loop() -> asyncio.AbstractEventLoop:
        return asyncio.SelectorEventLoop(BusyPollSelector(budget_us / 1e6))

    return new_loop
