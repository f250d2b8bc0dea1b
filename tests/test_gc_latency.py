"""``gc_tuning.for_latency``: young collections spaced out, never brought closer; ``serve``
and the pytest plugin's session apply it (issue 28, item 2; ``bench/latency.py``)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from emulator.gc_tuning import YOUNG_THRESHOLD, for_latency


@pytest.fixture
def thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    try:
        yield
    finally:
        gc.set_threshold(*before)


def test_for_latency_raises_the_young_threshold_and_keeps_the_older_ones(thresholds) -> None:
    gc.set_threshold(700, 10, 10)
    for_latency()
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
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
