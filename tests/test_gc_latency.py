"""``gc_tuning.for_latency``: young collections spaced out, never brought closer; ``serve``
and the pytest plugin's session apply it (issue 28, item 2; ``bench/latency.py``)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from emulator.ground.gc_tuning import YOUNG_THRESHOLD, for_latency, settled

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    try:
        yield
    finally:
        gc.set_threshold(*before)


def test_for_latency_raises_the_young_threshold_and_keeps_the_oldest(thresholds) -> None:
    gc.set_threshold(700, 10, 10)
    for_latency()
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 2, 10)
    assert YOUNG_THRESHOLD == 5_000


def test_for_latency_never_lowers_a_higher_threshold(thresholds) -> None:
    gc.set_threshold(50_000, 20, 5)
    for_latency()
    assert gc.get_threshold() == (50_000, 20, 5)


def test_for_latency_keeps_the_collector_enabled(thresholds) -> None:
    for_latency()
    assert gc.isenabled()


def test_the_plugin_session_spaces_young_collections(turnkey_org) -> None:
    assert turnkey_org.organization_id
    assert gc.get_threshold()[0] >= YOUNG_THRESHOLD


SETTLED_IN_A_FRESH_PROCESS = """
import gc, weakref
from emulator.ground.gc_tuning import settled

class Node:
    def __init__(self):
        self.me = self  # a cycle: only the cyclic collector frees it

node = Node()
alive = weakref.ref(node)
del node  # garbage now, kept by its cycle
with settled():
    made = [[i] for i in range(1_000)]
oldest = {id(o) for o in gc.get_objects(generation=2)}
assert all(id(record) in oldest for record in made), "not in the oldest generation"
assert gc.get_freeze_count() == 0, "something left frozen"
assert gc.get_count()[0] < 100, gc.get_count()
gc.collect()
assert alive() is None, "earlier garbage was kept"
print("ok")
"""


def test_settled_moves_what_it_made_to_the_oldest_generation_and_frees_earlier_garbage():
    """In a process that freezes nothing (a fresh one: this one may hold the plugin's
    frozen session)."""
    done = subprocess.run(
        [sys.executable, "-c", SETTLED_IN_A_FRESH_PROCESS],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_settled_freezes_in_a_process_that_freezes_its_state() -> None:
    before = gc.get_freeze_count()
    if not before:
        gc.freeze()  # as serve and the plugin do
    try:
        frozen = gc.get_freeze_count()
        with settled():
            made = [[i] for i in range(100)]
        assert gc.get_freeze_count() >= frozen + len(made)
    finally:
        if not before:
            gc.unfreeze()


def test_a_restore_settles_the_restored_records(turnkey_emulator) -> None:
    saved = turnkey_emulator.snapshot()
    turnkey_emulator.restore(saved)
    assert gc.isenabled()
    assert gc.get_count()[0] < 1_000  # the restored records are not left young


def test_a_restore_leaves_no_young_collection_to_scan_the_records(turnkey_emulator) -> None:
    """The first object made after the restore must not run a collection over the records."""
    turnkey_emulator.create_private_keys(
        private_keys=[
            {
                "privateKeyName": f"k{i}",
                "curve": "CURVE_SECP256K1",
                "privateKeyTags": [],
                "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
            }
            for i in range(100)
        ]
    )
    saved = turnkey_emulator.snapshot()
    sizes: list[int] = []

    def young(phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] == 0:
            sizes.append(len(gc.get_objects(generation=0)))

    gc.callbacks.append(young)
    try:
        turnkey_emulator.restore(saved)
        turnkey_emulator.get_whoami()
    finally:
        gc.callbacks.remove(young)
    assert all(size < 1_000 for size in sizes), sizes
