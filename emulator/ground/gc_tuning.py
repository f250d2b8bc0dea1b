"""Garbage collection for a long-lived engine.

The emulator's records hold no reference cycles, and its request path makes no
cyclic garbage (checked by ``tests/test_gc_tuning.py``): reference counting frees
everything. What the cyclic collector costs a long-lived emulator is scanning the
records again and again, a pause that grows with the state. Two remedies:

* ``freeze_survivors()``: collect once, then move every object alive into the
  collector's permanent generation (``gc.freeze``), which it never scans again.
  Frozen objects are still freed by reference counting when dropped. ``serve`` calls
  it once the world is bootstrapped or loaded and after each compaction of its state
  file; the pytest plugin once its session's emulator is made.
* ``freeze_young()``: the same for what is new, once a second in ``serve``: the records a
  long-running server makes are frozen as they come, not scanned by every full collection.
* ``paused()``: no collection while a bulk of long-lived objects is made at once
  (restoring a snapshot, loading a document), where each generation threshold
  crossed would scan the growing heap for nothing.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


def freeze_survivors() -> None:
    """Collect, then exclude every object alive now from future collections."""
    gc.collect()
    gc.freeze()


def freeze_young() -> None:
    """Collect the young generations (the cycles among what is new), then freeze what is
    left: for a server, what lived through a second is state. Called once a second by
    ``serve`` (``http/server.py``'s ``on_second``), it keeps each collection to what is new,
    so the pause no longer grows with the records the server holds."""
    gc.collect(1)
    gc.freeze()


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block (as it was after it)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
