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
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from measuring import Goal, Result, floor_row, measure, warmup_for

from conftest_plugin import plugin
from emulator import Emulator
from emulator.accounts import account_spec
from emulator.crypto.api_keys import P256, generate_key_pair

FIXTURE_GOAL = Goal(1000, "us")
EMPTY = "empty test"  # the floors' short names in the table
DEEPCOPY = "deepcopy N"
BASELINE_USERS = 10
BASELINE_WALLETS = 10
PYTEST_TESTS = 500  # a full run's tests per session


@dataclass(frozen=True)
class Reps:
    fixture: int  # per-test cycles on the shared emulator
    rebuild: int  # fresh emulators with the baseline
    pytest_rounds: int  # pairs of sessions (empty, turnkey_org), then one more empty
    floor: int  # deepcopy floor, per half
    state: int  # snapshot, restore, to_document, from_document each
    pytest_tests: int = 500  # tests in each pytest session
    big: bool = True  # the state of about 10,000 records (else about 1,000)


FULL = Reps(fixture=5000, rebuild=200, pytest_rounds=2, floor=20, state=20)
QUICK = Reps(fixture=100, rebuild=5, pytest_rounds=1, floor=2, state=2, pytest_tests=20, big=False)


@dataclass(frozen=True)
class StateSize:
    users: int  # each with one P-256 API key, made 10 per create_users
    wallets: int
    accounts: int  # Ethereum accounts per wallet
    private_keys: int  # secp256k1 with an Ethereum address, made 100 per call


BIG = StateSize(users=100, wallets=50, accounts=150, private_keys=2_200)
MEDIUM = StateSize(users=20, wallets=5, accounts=150, private_keys=200)


def user(name: str, api_keys: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "userName": name,
        "apiKeys": api_keys or [],
        "authenticators": [],
        "oauthProviders": [],
        "userTags": [],
    }


def build_baseline(emu: Emulator, tag: str) -> None:
    """The baseline of the fixture rows: 10 users, 10 wallets of one Ethereum account."""
    emu.create_users(users=[user(f"{tag}-user-{i}") for i in range(BASELINE_USERS)])
    for i in range(BASELINE_WALLETS):
        emu.create_wallet(
            wallet_name=f"{tag}-wallet-{i}", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
        )


def count_records(emu: Emulator) -> dict[str, int]:
    orgs = emu.world.store.organizations.values()
    counts = {
        "organizations": len(orgs),
        "users": sum(len(o.users) for o in orgs),
        "api_keys": sum(len(u.api_keys) for o in orgs for u in o.users.values()),
        "wallets": sum(len(o.wallets) for o in orgs),
        "wallet_accounts": sum(len(w.accounts) for o in orgs for w in o.wallets.values()),
        "private_keys": sum(len(o.private_keys) for o in orgs),
        "activities": sum(len(o.activities) for o in orgs),
    }
    counts["total"] = sum(counts.values())
    return counts


def populate(size: StateSize, tag: str) -> Emulator:
    """A fresh emulator of one organization holding ``size`` (limits raised)."""
    emu = Emulator()
    s = emu.settings
    s.max_users_per_organization = s.max_wallets_per_organization = 10**9
    s.max_private_keys_per_organization = 10**9
    emu.create_organization("Acme")
    for batch in range(0, size.users, 10):
        emu.create_users(
            users=[
                user(
                    f"{tag}-user-{i}",
                    [
                        {
                            "apiKeyName": "k",
                            "publicKey": generate_key_pair(P256).public_key,
                            "curveType": P256,
                        }
                    ],
                )
                for i in range(batch, min(batch + 10, size.users))
            ]
        )
    for w in range(size.wallets):
        emu.create_wallet(
            wallet_name=f"{tag}-wallet-{w}",
            accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM", i) for i in range(size.accounts)],
        )
    for batch in range(0, size.private_keys, 100):
        emu.create_private_keys(
            private_keys=[
                {
                    "privateKeyName": f"{tag}-key-{i}",
                    "curve": "CURVE_SECP256K1",
                    "privateKeyTags": [],
                    "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
                }
                for i in range(batch, min(batch + 100, size.private_keys))
            ]
        )
    counts = count_records(emu)
    expected = size.users + size.wallets * (1 + size.accounts) + size.private_keys
    if (
        counts["users"] + counts["wallets"] + counts["wallet_accounts"] + counts["private_keys"]
        != expected + 1
    ):  # + the root user
        raise SystemExit(f"toolkit: populating made {counts}, not {size}")
    return emu


# ----- 1. per-test isolation ------------------------------------------------------


class _Node:
    def get_closest_marker(self, name: str) -> None:
        return None


class _Config:
    def getoption(self, name: str) -> None:
        return None  # no --turnkey-fresh, no seed, no window


class _Request:
    """What the plugin's fixtures read of pytest's ``request``: no marker, no options; the
    finalizers they add are kept (``finalize`` runs them, as pytest does at the session's end)."""

    def __init__(self, shared: Any) -> None:
        self.node, self.config, self._shared = _Node(), _Config(), shared
        self.finalizers: list[Callable[[], object]] = []

    def addfinalizer(self, finalizer: Callable[[], object]) -> None:
        self.finalizers.append(finalizer)

    def finalize(self) -> None:
        while self.finalizers:
            self.finalizers.pop()()

    def getfixturevalue(self, name: str) -> Any:
        assert name == "_turnkey_shared", name
        return self._shared


def _fixture_function(fixture: Any) -> Callable[..., Any]:
    """The plain function behind a pytest fixture (pytest ≥ 8.4 keeps it as __wrapped__)."""
    function = getattr(fixture, "__wrapped__", None)
    if function is None:
        raise SystemExit(f"toolkit: cannot reach the function of fixture {fixture!r}")
    return function


def shared_with_baseline(session: _Request) -> Any:
    """The plugin's session state (``_turnkey_shared``) with the 10 + 10 baseline added;
    ``session`` stands in for the session's ``request`` (and keeps its finalizers)."""
    shared = _fixture_function(plugin._turnkey_shared)(session)
    build_baseline(shared.emulator, "baseline")
    shared.baseline = shared.emulator.snapshot()
    shared.checkpoint = shared.emulator.checkpoint()  # every test rolls back to the baseline
    return shared


def run_isolation(reps: Reps) -> tuple[list[float], list[float], list[float], list[float]]:
    """Per-test cycles of the plugin's ``_turnkey``: empty body; one create_users body minus
    the activity; the activity alone; a rebuild of the baseline in a fresh emulator."""
    session = _Request(None)
    shared = shared_with_baseline(session)
    emu = shared.emulator
    request = _Request(shared)
    turnkey = _fixture_function(plugin._turnkey)
    org_id = shared.org.organization_id
    before = count_records(emu)

    def cycle() -> None:
        fixture: Iterator[Any] = turnkey(request)
        next(fixture)  # set-up: checkpoint, settings copied
        for _ in fixture:  # teardown: rollback, settings back, observations cleared
            pass

    empty = measure(cycle, reps.fixture)

    clock = time.perf_counter
    overhead: list[float] = []
    activity: list[float] = []
    for i in range(warmup_for(reps.fixture) + reps.fixture):
        users = [user(f"in-test-{i}")]
        start = clock()
        fixture = turnkey(request)
        test = next(fixture)
        set_up = clock()
        made = test.emulator.create_users(users=users)
        body = clock()
        for _ in fixture:
            pass
        end = clock()
        if made["activity"]["status"] != "ACTIVITY_STATUS_COMPLETED":
            raise SystemExit(f"toolkit: the test body's create_users: {made['activity']}")
        if i >= warmup_for(reps.fixture):
            overhead.append((set_up - start + end - body) * 1e6)
            activity.append((body - set_up) * 1e6)
    if count_records(emu) != before or len(emu.world.store.organizations[org_id].users) != 11:
        raise SystemExit("toolkit: the rollbacks did not bring the baseline back")
    session.finalize()  # the session's end: the shared emulator closed

    def rebuild() -> None:
        fresh = Emulator()
        fresh.create_organization(plugin.ORGANIZATION_NAME)
        build_baseline(fresh, "rebuild")

    return empty, overhead, activity, measure(rebuild, reps.rebuild)


CONFTEST = '''
import json
import os
import time

import pytest

STAMPS = []


@pytest.fixture(scope="session")
def _turnkey_shared(_turnkey_shared):
    """The plugin's shared emulator with 10 users and 10 wallets added to its baseline."""
    from emulator.accounts import account_spec

    emu = _turnkey_shared.emulator
    emu.create_users(users=[
        {"userName": f"user-{i}", "apiKeys": [], "authenticators": [], "oauthProviders": [],
         "userTags": []}
        for i in range(10)
    ])
    for i in range(10):
        emu.create_wallet(wallet_name=f"wallet-{i}",
                          accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")])
    org = emu.world.store.organizations[_turnkey_shared.org.organization_id]
    assert len(org.users) == 11 and len(org.wallets) == 10
    _turnkey_shared.baseline = emu.snapshot()
    return _turnkey_shared


def pytest_runtest_logfinish(nodeid, location):
    STAMPS.append(time.perf_counter())


def pytest_sessionfinish(session, exitstatus):
    with open(os.environ["TOOLKIT_BENCH_OUT"], "w") as out:
        json.dump({"stamps": STAMPS, "failed": session.testsfailed}, out)
'''


def _test_file(with_fixture: bool, tests: int) -> str:
    if with_fixture:
        test = "def test_{i}(turnkey_org):\n    assert turnkey_org.organization_id\n"
    else:
        test = "def test_{i}():\n    assert True\n"
    return "\n\n".join(test.format(i=i) for i in range(tests))


def pytest_session(directory: str, file: str, tests: int) -> list[float]:
    """Per-test wall times (µs) of one ``python -m pytest -q`` session over ``file``: the
    time from one test's end to the next one's, without the first test (the session's
    set-up) and the last (its teardown)."""
    out = os.path.join(directory, "stamps.json")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", file],
        cwd=directory,
        env={**os.environ, "TOOLKIT_BENCH_OUT": out},
        capture_output=True,
        text=True,
    )
    with open(out) as f:
        report = json.load(f)
    stamps = report["stamps"]
    if done.returncode != 0 or report["failed"] or len(stamps) != tests:
        raise SystemExit(f"toolkit: pytest {file}: {done.stdout[-2000:]}{done.stderr[-2000:]}")
    return [(b - a) * 1e6 for a, b in itertools.pairwise(stamps[1:-1])]


def run_pytest(reps: Reps) -> tuple[list[float], list[float], list[float]]:
    """Empty tests (two halves: before and after) and tests using turnkey_org, in turn."""
    with tempfile.TemporaryDirectory(prefix="toolkit-bench-") as directory:
        for name, text in (
            ("pytest.ini", "[pytest]\n"),
            ("conftest.py", CONFTEST),
            ("test_empty.py", _test_file(False, reps.pytest_tests)),
            ("test_turnkey.py", _test_file(True, reps.pytest_tests)),
        ):
            with open(os.path.join(directory, name), "w") as f:
                f.write(text)
        empty_before: list[float] = []
        turnkey: list[float] = []
        for _ in range(reps.pytest_rounds):
            empty_before += pytest_session(directory, "test_empty.py", reps.pytest_tests)
            turnkey += pytest_session(directory, "test_turnkey.py", reps.pytest_tests)
        empty_after = pytest_session(directory, "test_empty.py", reps.pytest_tests)
    return empty_before, empty_after, turnkey


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
