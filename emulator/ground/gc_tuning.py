"""Garbage collection for a long-lived engine.

The emulator's records hold no reference cycles, and its request path makes no
cyclic garbage (checked by ``tests/test_gc_tuning.py``): reference counting frees
everything. What the cyclic collector costs a long-lived emulator is scanning the
records again and again, a pause that grows with the state. What it offers:

* ``freeze_survivors()``: collect once, then move every object alive into the
  collector's permanent generation (``gc.freeze``), which it never scans again.
  Frozen objects are still freed by reference counting when dropped. ``serve`` calls
  it once the world is bootstrapped or loaded and after each compaction of its state
  file; the pytest plugin once its session's emulator is made.
* ``freeze_young()``: the same for what is new, once a second in ``serve``: the records a
  long-running server makes are frozen as they come, not scanned by every full collection.
* ``for_latency()``: young collections spaced out (a first threshold of 5,000 rather than
  CPython's 700, the second 2 rather than 10), so that one lands on a fraction of the
  calls below the 99th percentile. Each signature leaves about a dozen tracked objects
  more than it frees (its activity, vote and their lists; the call log's bodies until they
  age out), so with the default a young collection interrupts one call in about 60 (1.5 %:
  the p99, at two to three times the median); at 5,000 one in about 400, over about seven
  times the objects, with the same total work (every young object is still examined once
  young). The second threshold keeps the middle generation's collections, over what the
  young ones passed on, about as large as with the defaults (every second young
  collection rather than every tenth). ``serve`` and the pytest plugin call it
  (``bench/latency.py`` measures both settings).
* ``settled()``: what a block makes in bulk (a restored snapshot) joins the oldest
  generation unscanned. Left young, each record would be scanned by a young collection,
  then again by an older one, and, counted as newly long-lived, would bring the next full
  collection forward (at 10,000 records the first young collection after a restore
  scanned its 120,000 objects, 30-60 ms, and passed them on to be scanned again).
* ``paused()``: no collection while a bulk of long-lived objects is made at once
  (restoring a snapshot, loading a document), where each generation threshold
  crossed would scan the growing heap for nothing.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# Whether this process has frozen its state through this module: ``settled`` then need not ask
# ``gc.get_freeze_count()``, which walks the whole permanent generation (about 20 ms in a
# ``serve`` process, on every restore and reset).
_froze = False


def freeze_survivors() -> None:
    """Collect, then exclude every object alive now from future collections."""
    global _froze
    gc.collect()
    gc.freeze()
    _froze = True


def freeze_young() -> None:
    """Collect the young generations (the cycles among what is new), then freeze what is
    left: for a server, what lived through a second is state. Called once a second by
    ``serve`` (``http/server.py``'s ``on_second``), it keeps each collection to what is new,
    so the pause no longer grows with the records the server holds."""
    global _froze
    gc.collect(1)
    gc.freeze()
    _froze = True


YOUNG_THRESHOLD = 5_000  # CPython's default: 700
MIDDLE_THRESHOLD = 2  # CPython's default: 10


def for_latency() -> None:
    """Space the young collections out (never closer than the process already has them)."""
    first, _, oldest = gc.get_threshold()
    if first < YOUNG_THRESHOLD:
        gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_THRESHOLD, oldest)


@contextmanager
def settled() -> Iterator[None]:
    """No collection inside the block; then what is young (what the block made, mostly)
    moves to the oldest generation without a scan, where the next full collection, when
    its turn comes, examines it as it does the rest. In a process that freezes its state
    (``serve``, the pytest plugin: something is frozen already) it is frozen instead."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # Before the collector is enabled again: the first object made after that (the
        # context manager's own exit makes some) would run a young collection over all
        # of it.
        frozen = _froze or gc.get_freeze_count()
        gc.freeze()
        if not frozen:  # through the permanent generation into the oldest one
            gc.unfreeze()
        if enabled:
            gc.enable()


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
