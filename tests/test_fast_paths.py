"""The request path's shortcuts answer exactly as the plain code they replace.

Each shortcut (issue: the signing path's cost) is checked against the standard library or
the straightforward computation, for values hypothesis draws and for the edge cases, and
every cache against the change that must invalidate it. Behaviour only: no timings.
"""

from __future__ import annotations

import json
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator import jsontext

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(JSON_VALUES)
def test_dumps_is_json_dumps_to_the_byte(value):
    assert jsontext.dumps(value) == json.dumps(value)


def test_dumps_refuses_what_json_dumps_refuses_and_recovers():
    cycle: dict = {}
    cycle["self"] = cycle
    for bad in (cycle, {"a": object()}, {1j: 1}, [float("inf"), {"x": set()}]):
        with pytest.raises((TypeError, ValueError)) as fast:
            jsontext.dumps(bad)
        with pytest.raises((TypeError, ValueError)) as plain:
            json.dumps(bad)
        assert (type(fast.value), str(fast.value)) == (type(plain.value), str(plain.value))
        # The failure leaves nothing behind: the same containers encode again.
        shared = {"k": [1, 2]}
        assert jsontext.dumps({"a": shared, "b": shared}) == json.dumps({"a": shared, "b": shared})


def test_dumps_from_many_threads_at_once():
    shared = {"nested": {"list": [1, {"deep": "é"}] * 50}}
    failures: list[str] = []

    def work() -> None:
        for _ in range(200):
            if jsontext.dumps(shared) != json.dumps(shared):
                failures.append("differs")

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
