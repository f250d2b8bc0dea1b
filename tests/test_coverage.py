"""The coverage count: implemented of the official client's operations, and the README says it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from emulator.ops import REGISTRY
from emulator.ops.coverage import coverage

README = (Path(__file__).parent.parent / "README.md").read_text()


def test_every_operation_served_is_one_of_the_official_client():
    report = coverage()
    assert len(set(report.official)) == len(report.official)
    assert all(p.startswith(("/public/v1/submit/", "/public/v1/query/")) for p in report.official)
    served = {op.path for op in REGISTRY.values()}
    assert served - set(report.beyond) <= set(report.official)
    assert len(report.implemented) + len(report.beyond) == len(REGISTRY)
    assert len(report.implemented) + len(report.missing) == len(report.official)
    done, total = report.count("submit")
    assert total == sum(p.startswith("/public/v1/submit/") for p in report.official)
    counted = [op for op in REGISTRY.values() if op.path not in report.beyond]
    assert done == sum(op.kind == "activity" for op in counted)


def test_what_is_served_beyond_the_client_is_in_the_python_sdk_and_not_counted():
    report = coverage()
    beyond = [op for op in REGISTRY.values() if op.path in report.beyond]
    # The OAuth 2.0 operations, once counted here, are in the client's paths. Today the
    # on-ramp session (in the Python SDK's types, in no client's methods: test_registry.py)
    # and the swap sponsorship operations of the Python SDK (turnkey-http 0.2.2) only.
    from turnkey_sdk_types.generated import types as sdk_types

    known = {t.value for t in sdk_types.v1ActivityType}
    assert all(op.in_python_sdk or op.default_type in known for op in beyond)
    assert not set(report.beyond) & set(report.official)
    assert set(report.python_sdk_only) == {
        "/public/v1/query/get_swap_sponsorship_usage",
        "/public/v1/submit/upsert_swap_fee_sponsorship_limit_config",
        "/public/v1/submit/upsert_swap_fixed_rate_limit_config",
    }


def test_the_command_prints_the_count_and_the_missing_operations():
    printed = subprocess.run(
        [sys.executable, "-m", "emulator.ops.coverage"], capture_output=True, text=True, check=True
    ).stdout
    report = coverage()
    assert printed.splitlines()[0] == report.summary()
    assert printed.count("\n  /public/v1/") == len(report.missing)
    assert printed.count("\n    /public/v1/") == len(report.beyond)
    assert printed.count("(from the official Python SDK (turnkey-http 0.2.2))") == len(
        report.python_sdk_only
    )


def test_the_readme_states_the_count():
    assert coverage().summary() in " ".join(README.split())
