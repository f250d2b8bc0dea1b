"""``toolkit.py``'s first part: per-test isolation. The pytest plugin's own ``_turnkey`` fixture
driven with a stand-in for pytest's ``request``, a baseline rebuilt anew beside it, and real
pytest sessions in subprocesses, each test timed from the end of the one before it. See
``toolkit.py``'s docstring.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

from measuring import measure, warmup_for
from toolkit_worlds import Reps, build_baseline, count_records, user

from conftest_plugin import plugin
from emulator import Emulator


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
