"""The test-double toolkit: per-test isolation, snapshots and documents, the state file.

**Isolation.** The pytest plugin shares one emulator per session and, around
every test, takes a checkpoint and copies the settings, then rolls back,
restores the settings and clears the call log and faults (``_turnkey`` in
``conftest_plugin/plugin.py``). Here the plugin's own fixture function is
driven (its generator, with a stand-in for pytest's ``request``) on an
emulator holding a baseline of one organization, 10 users and 10 wallets of
one Ethereum account each: with an empty test body, and around a body of one
``create_users`` (the activity itself is timed apart and left out). Beside
them, what isolation costs without the journal: ``Emulator()``,
``create_organization`` and the same baseline built anew. Then a real pytest
session in a subprocess: 500 tests using ``turnkey_org`` (a ``conftest.py``
builds the same baseline once, overriding the plugin's ``_turnkey_shared``)
against 500 empty tests without fixtures, each test timed from the end of the
one before it.

**Snapshots and documents.** An emulator holding about 10,000 records (users
with an API key each, wallets of many accounts, private keys, and the
activities that made them; the count is printed): ``snapshot()``,
``restore()``, ``to_document()`` and ``Emulator.from_document()``, against a
``copy.deepcopy`` of a list of as many small dicts.

The state file of ``serve --state`` (the durable journal) is measured by
``durability.py``.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from typing import Any

from measuring import Result, floor_row, measure
from toolkit_isolation import run_isolation, run_pytest
from toolkit_worlds import (
    BIG,
    DEEPCOPY,
    EMPTY,
    FIXTURE_GOAL,
    FULL,
    MEDIUM,
    QUICK,
    Reps,
    count_records,
    populate,
)

from emulator import Emulator

# ----- 2. snapshots and documents ---------------------------------------------------


def plain_records(n: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"{i:08x}-0000-4000-8000-000000000000",
            "name": f"record-{i}",
            "kind": "RECORD",
            "created_at": 1_700_000_000_000_000_000 + i,
            "updated_at": 1_700_000_000_000_000_000 + i,
            "public_key": f"02{i:064x}",
            "tags": [],
            "exported": False,
        }
        for i in range(n)
    ]


def run_state(reps: Reps) -> tuple[dict[str, list[float]], dict[str, Any]]:
    emu = populate(BIG if reps.big else MEDIUM, "big")
    counts = count_records(emu)
    records = plain_records(counts["total"])
    floor_before = measure(lambda: copy.deepcopy(records), reps.floor, warmup=2)

    saved = emu.snapshot()
    samples = {
        "snapshot": measure(emu.snapshot, reps.state, warmup=2),
        "restore": measure(lambda: emu.restore(saved), reps.state, warmup=2),
    }
    doc = emu.to_document()
    samples["to_document"] = measure(emu.to_document, reps.state, warmup=2)
    samples["from_document"] = measure(lambda: Emulator.from_document(doc), reps.state, warmup=2)
    back = Emulator.from_document(doc)
    if count_records(back) != counts or count_records(emu) != counts:
        raise SystemExit("toolkit: restore or from_document changed the record count")
    samples["floor"] = floor_before + measure(lambda: copy.deepcopy(records), reps.floor, warmup=2)
    text = json.dumps(doc, separators=(",", ":"))
    return samples, {"records": counts, "document_bytes": len(text)}


# ----- the rows -------------------------------------------------------------------


class ToolkitBench:
    def __init__(self, quick: bool) -> None:
        self.reps = QUICK if quick else FULL
        self.info: dict[str, Any] = {}

    def run(self, progress: Callable[[str], None]) -> None:
        started = time.perf_counter()
        progress("toolkit: per-test checkpoint/rollback (the plugin's _turnkey)")
        self.isolation = run_isolation(self.reps)
        progress(f"toolkit: pytest sessions of {self.reps.pytest_tests} tests (subprocesses)")
        self.info["pytest_tests"] = self.reps.pytest_tests
        self.pytest = run_pytest(self.reps)
        size = "10,000" if self.reps.big else "1,000"
        progress(f"toolkit: snapshot / restore / documents of ~{size} records")
        self.state, self.info["state"] = run_state(self.reps)
        self.info["elapsed_s"] = round(time.perf_counter() - started, 2)

    def results(self, verify_us: float) -> list[Result]:
        empty, overhead, activity, rebuild = self.isolation
        rows = [
            Result("fixture: checkpoint+rollback, empty test", empty, FIXTURE_GOAL),
            Result("fixture: isolation around a 1-activity test", overhead, FIXTURE_GOAL),
            Result("fixture: that test's create_users (scale)", activity),
            Result("fresh Emulator + org + 10 users + 10 wallets", rebuild),
        ]
        for row in rows:
            row.floor = verify_us

        before, after, turnkey = self.pytest
        empty_floor = floor_row("pytest empty test, no fixture (floor)", EMPTY, before, after)
        empty_us = empty_floor.floor
        rows += [
            empty_floor,
            Result("pytest test using turnkey_org", turnkey, floor=empty_us, floor_name=EMPTY),
            Result(
                "pytest turnkey_org minus empty test",
                [t - empty_us for t in turnkey],
                FIXTURE_GOAL,
                floor=empty_us,
                floor_name=EMPTY,
            ),
        ]

        n = self.info["state"]["records"]["total"]
        half = len(self.state["floor"]) // 2
        copy_floor = floor_row(
            f"deepcopy of {n:,} small dicts (floor)",
            DEEPCOPY,
            self.state["floor"][:half],
            self.state["floor"][half:],
        )
        rows.append(copy_floor)
        for key, name in (
            ("snapshot", f"emu.snapshot(), {n:,} records"),
            ("restore", f"emu.restore(snapshot), {n:,} records"),
            ("to_document", f"emu.to_document(), {n:,} records"),
            ("from_document", f"Emulator.from_document(doc), {n:,} records"),
        ):
            rows.append(Result(name, self.state[key], floor=copy_floor.floor, floor_name=DEEPCOPY))

        return rows


def print_notes(info: dict[str, Any], results: list[Result]) -> None:
    by_name = {r.name: r for r in results}
    state = info["state"]
    counts = ", ".join(f"{v:,} {k.replace('_', ' ')}" for k, v in state["records"].items())
    print(f"Toolkit ({info['elapsed_s']:.1f} s):")
    cycle = by_name["fixture: isolation around a 1-activity test"].median
    rebuild = by_name["fresh Emulator + org + 10 users + 10 wallets"].median
    print(
        f"  per-test isolation around a 1-activity test costs 1/{rebuild / cycle:,.0f} of "
        "building the baseline anew (what isolation costs without the journal)"
    )
    print(
        f"  pytest rows: one test's end to the next one's, -q, {info['pytest_tests']} tests a session, "
        "the first and last left out"
    )
    print(
        f"  snapshot state: {counts} (total: the records); document "
        f"{state['document_bytes'] / 1e6:.1f} MB of JSON"
    )
    print()
