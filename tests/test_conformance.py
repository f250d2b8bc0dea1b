"""``python -m emulator conformance`` against a real ``python -m emulator serve``: every
check passes; an injected fault or a changed setting is reported (a FAIL line naming the
check, exit status 1, the right count); the run deletes what it made and nothing else,
also when a check fails or the run is interrupted.

The server is a real process; the runner runs in this process through ``cli.main`` (the
official SDK's types take seconds to import, once per worker, not once per run).
"""

from __future__ import annotations

import ast
import json
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

pytest.importorskip("turnkey_http")
pytest.importorskip("hypothesis")
pytest.importorskip("pyhpke")

from turnkey_sdk_types import (
    CreateWalletBody,
    DeleteWalletsBody,
    GetPoliciesBody,
    GetPrivateKeysBody,
    GetUsersBody,
    GetWalletsBody,
    ListUserTagsBody,
    v1WalletAccountParams,
)

import emulator.conformance as conformance
from emulator import cli
from emulator.conformance import runner
from emulator.conformance.properties import for_all
from emulator.conformance.report import Mismatch, Report
from emulator.conformance.session import Session, client_for
from emulator.conformance.shapes import ERROR, problems

PACKAGE = Path(conformance.__file__).parent
CHECK_NAMES = [name for name, _ in runner.CHECKS]
CLEANUP_NAMES = [
    "cleanup.delete_policy",
    "cleanup.delete_user_tag",
    "cleanup.delete_user",
    "cleanup.delete_private_key",
    "cleanup.delete_wallet",
    "cleanup.organization_unchanged",
]
ALL_NAMES = CHECK_NAMES + CLEANUP_NAMES
LINE = re.compile(r"^(PASS \S+|FAIL \S+: expected .+ got .+|\d+ passed, \d+ failed)$")


def _start(*args: str) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    process = subprocess.Popen(
        [sys.executable, "-m", "emulator", "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    return process, json.loads(process.stdout.readline())


@pytest.fixture(scope="module")
def server() -> Iterator[dict[str, Any]]:
    process, info = _start()
    try:
        yield info
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def served(server: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The module's server, back at its bootstrapped organization after each test."""
    yield server
    for path in ("faults/clear", "reset"):
        requests.post(f"{server['baseUrl']}/emulator/v1/{path}", json={}, timeout=10)


def control(info: dict[str, Any], path: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = requests.post(f"{info['baseUrl']}/emulator/v1/{path}", json=body, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def conform(
    info: dict[str, Any], capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, list[str]]:
    """Run the command line against ``info``'s server: its exit status and its lines."""
    argv = [
        "conformance",
        "--base-url", info["baseUrl"],
        "--organization-id", info["organizationId"],
        "--api-public-key", info["apiPublicKey"],
        "--api-private-key", info["apiPrivateKey"],
        "--signer-public-key", info["signerPublicKey"],
        "--max-examples", "3",
        "--prefix", "conf-test",
        *extra,
    ]  # fmt: skip
    status = cli.main(argv)
    return status, capsys.readouterr().out.splitlines()


def names_of(lines: list[str], verdict: str) -> list[str]:
    return [line.split()[1].rstrip(":") for line in lines if line.startswith(verdict + " ")]


def root_client(info: dict[str, Any]) -> Any:
    return client_for(
        info["baseUrl"], info["organizationId"], info["apiPublicKey"], info["apiPrivateKey"]
    )


def names_in(info: dict[str, Any]) -> set[str]:
    """The name of every wallet, private key, user, policy and user tag, read by the SDK."""
    sdk = root_client(info)
    return (
        {w.walletName for w in sdk.get_wallets(GetWalletsBody()).wallets}
        | {k.privateKeyName for k in sdk.get_private_keys(GetPrivateKeysBody()).privateKeys}
        | {u.userName for u in sdk.get_users(GetUsersBody()).users}
        | {p.policyName for p in sdk.get_policies(GetPoliciesBody()).policies}
        | {t.tagName for t in sdk.list_user_tags(ListUserTagsBody()).userTags}
    )


# ----- against serve --------------------------------------------------------------------


def test_every_check_passes_against_serve_and_the_run_leaves_nothing(served, capsys, tmp_path):
    sdk = root_client(served)
    ethereum = v1WalletAccountParams(
        curve="CURVE_SECP256K1",
        pathFormat="PATH_FORMAT_BIP32",
        path="m/44'/60'/0'/0/0",
        addressFormat="ADDRESS_FORMAT_ETHEREUM",
    )
    kept = sdk.create_wallet(CreateWalletBody(walletName="not-ours", accounts=[ethereum]))
    before = names_in(served)
    control(served, "calls/clear", {})
    report = tmp_path / "report.txt"

    status, lines = conform(served, capsys, "--report", str(report))

    assert status == 0, "\n".join(lines)
    assert names_of(lines, "PASS") == ALL_NAMES
    assert names_of(lines, "FAIL") == []
    assert lines[-1] == f"{len(ALL_NAMES)} passed, 0 failed"
    assert all(LINE.match(line) for line in lines), lines
    assert report.read_text().splitlines() == lines
    # only what it made is gone: the wallet made before the run is still there
    assert names_in(served) == before
    assert not any(name.startswith("conf-test") for name in before)
    wallets = sdk.get_wallets(GetWalletsBody()).wallets
    assert kept.walletId in {w.walletId for w in wallets}
    # and what it made existed while it ran: its activities name the prefix
    calls = control(served, "calls", {"operation": "import_wallet"})["calls"]
    assert [c["httpStatus"] for c in calls] == [200]


def test_an_injected_http_fault_is_one_fail_line_and_exit_1(served, capsys):
    control(served, "faults", {"operation": "sign_raw_payload", "count": 1, "status": 500})

    status, lines = conform(served, capsys)

    assert status == 1
    (failed,) = [line for line in lines if line.startswith("FAIL")]
    assert failed.startswith(
        "FAIL sign.secp256k1_recovers_account_key: expected sign_raw_payload to succeed"
        " (HTTP 200, ACTIVITY_STATUS_COMPLETED) got HTTP 500 "
    )
    assert '"code": 13' in failed and "(for (b" in failed  # the example that failed
    assert lines[-1] == f"{len(ALL_NAMES) - 1} passed, 1 failed"
    assert names_of(lines, "PASS")[-len(CLEANUP_NAMES) :] == CLEANUP_NAMES


def test_a_failed_activity_fails_its_check_and_the_one_that_needs_it(served, capsys):
    control(
        served,
        "faults",
        {"operation": "create_policy", "activityStatus": "ACTIVITY_STATUS_FAILED"},
    )

    status, lines = conform(served, capsys)

    assert status == 1
    assert names_of(lines, "FAIL") == ["policy.allow_permits", "policy.deny_wins"]
    failed = dict(line.split(": ", 1) for line in lines if line.startswith("FAIL"))
    assert failed["FAIL policy.allow_permits"].startswith(
        "expected a completed create_policy got HTTP 200 ACTIVITY_STATUS_FAILED failure="
    )
    assert failed["FAIL policy.deny_wins"] == (
        "expected the ALLOW policy of policy.allow_permits got none (that check failed)"
    )
    # no policy was made, so there is none to delete: no cleanup.delete_policy line
    assert "cleanup.delete_policy" not in names_of(lines, "PASS")
    assert lines[-1] == f"{len(ALL_NAMES) - 3} passed, 2 failed"


def test_a_refused_deletion_is_reported_and_the_run_still_deletes_the_rest(served, capsys):
    control(served, "faults", {"operation": "delete_wallets", "count": 100, "status": 503})
    before = names_in(served)

    status, lines = conform(served, capsys)

    assert status == 1
    assert names_of(lines, "FAIL") == [
        "errors.delete_unknown_wallet",  # the fault answers it first
        "cleanup.delete_wallet",
        "cleanup.organization_unchanged",
    ]
    unchanged = next(line for line in lines if "organization_unchanged" in line)
    assert "wallet left behind: [" in unchanged
    assert lines[-1] == f"{len(ALL_NAMES) - 3} passed, 3 failed"
    assert names_in(served) - before == {"conf-test-imported"}  # the wallet alone


def test_a_changed_liveness_window_is_reported(capsys):
    process, info = _start("--timestamp-window", "0")  # the check turned off
    try:
        status, lines = conform(info, capsys, "--max-examples", "1")
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert status == 1
    (failed,) = [line for line in lines if line.startswith("FAIL")]
    assert failed.startswith(
        "FAIL errors.stale_timestamp_refused: expected HTTP 400 with code 3 and"
        " turnkeyErrorCode 'INVALID_TIME' got HTTP 200 ACTIVITY_STATUS_COMPLETED"
    )
    assert lines[-1] == f"{len(ALL_NAMES) - 1} passed, 1 failed"


def test_an_interrupted_run_deletes_what_it_made(served, capsys):
    def interrupt(session: Session) -> None:
        raise KeyboardInterrupt

    checks = [*runner.CHECKS[:3], ("interrupt", interrupt), *runner.CHECKS[3:]]
    before = names_in(served)
    session = Session(
        served["baseUrl"],
        served["organizationId"],
        served["apiPublicKey"],
        served["apiPrivateKey"],
        prefix="conf-interrupted",
        signer_public_key=served["signerPublicKey"],
        max_examples=1,
    )
    report = Report(sys.stdout)

    runner.run_checks(session, report, checks)

    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "PASS whoami.shape",
        "PASS import.bundle_signed_by_enclave",
        "PASS import.wallet_known_addresses",
        "FAIL run: expected every check to run got interrupted; cleaning up",
        "PASS cleanup.delete_wallet",
        "PASS cleanup.organization_unchanged",
    ]
    assert names_in(served) == before


def test_wrong_credentials_fail_every_check_and_create_nothing(served, capsys):
    wrong = dict(served, apiPrivateKey="11" * 32)  # the public key does not match it

    status, lines = conform(wrong, capsys)

    assert status == 1
    assert lines[0].startswith("FAIL inventory.before: expected the organization's resources")
    assert lines[-1] == "0 passed, 1 failed"


# ----- the command line ------------------------------------------------------------------


def test_a_missing_dependency_names_the_extras(monkeypatch, capsys):
    monkeypatch.setattr(conformance, "missing_dependencies", lambda: ["turnkey-http"])
    status = cli.main(
        [
            "conformance", "--base-url", "http://127.0.0.1:1", "--organization-id", "o",
            "--api-public-key", "02", "--api-private-key", "01",
        ]
    )  # fmt: skip
    assert status == 2
    assert capsys.readouterr().err == (
        "error: the conformance runner needs turnkey-http:"
        " pip install 'turnkey-emulator[sdk,hypothesis]'\n"
    )


def test_the_command_is_listed_and_its_options_documented():
    done = subprocess.run(
        [sys.executable, "-m", "emulator", "conformance", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0
    for option in ("--base-url", "--max-examples", "--prefix", "--report", "--signer-public-key"):
        assert option in done.stdout
    assert conformance.PRODUCTION_SIGNER_PUBLIC_KEY.startswith("04cf288fe433cc4e")


def test_the_checks_import_no_engine_module():
    """Only the package's own modules, the SDK, hypothesis and crypto libraries, and
    ``emulator.ground.jsontext`` (``json.loads`` with a bound on nesting; the standard library's
    ``json`` and ``re`` alone) for the JSON the endpoint answers."""
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                names = [a.name for a in node.names]
                jsontext = node.level == 2 and node.module == "ground" and names == ["jsontext"]
                if node.level > 1 and not jsontext:
                    raise AssertionError(f"{path.name} imports {node.module or names}")
                assert not (node.module or "").startswith("emulator"), path.name
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("emulator") for a in node.names), path.name
        assert len(path.read_text().splitlines()) < 400, path.name
    jsontext = ast.parse((PACKAGE.parent / "ground" / "jsontext.py").read_text())
    imported = {a.name for n in ast.walk(jsontext) if isinstance(n, ast.Import) for a in n.names}
    assert imported == {"json", "re", "threading"}
    modules = {n.module for n in ast.walk(jsontext) if isinstance(n, ast.ImportFrom)}
    assert modules == {"__future__", "json", "typing"}  # the standard library alone


# ----- pieces ----------------------------------------------------------------------------


def test_shape_problems_name_the_path_and_the_types():
    assert problems({"code": 5, "message": "m", "details": [], "turnkeyErrorCode": ""}, ERROR) == []
    assert problems({"code": True, "message": 1, "details": {}}, ERROR) == [
        "code: int, not bool",
        "message: str, not int",
        "details: list, not object",
        "turnkeyErrorCode: missing",
    ]
    assert problems({"a": [{"b": "x"}, {"b": None}]}, {"a": [{"b": str}]}) == [
        "a[1].b: str, not null"
    ]


def test_a_property_reports_its_first_failing_example():
    seen: list[int] = []

    def check(n: int) -> None:
        seen.append(n)
        if n >= 0:
            raise Mismatch("a negative number", n)

    from hypothesis import strategies as st

    with pytest.raises(Mismatch) as info:
        for_all(st.just(7), check, max_examples=5)
    assert (info.value.expected, info.value.got) == ("a negative number", "7 (for 7)")
    assert seen == [7]  # stopped at the first, not shrunk or replayed
    assert for_all(st.integers(-9, -1), lambda n: None, max_examples=4) <= 4


def test_the_report_lines_and_the_closing_count(capsys):
    report = Report(sys.stdout)
    report.check("one", lambda: None)
    report.check("two", lambda: (_ for _ in ()).throw(Mismatch("x", "y\nz")))
    report.check("three", lambda: 1 / 0)
    report.summary()
    assert capsys.readouterr().out.splitlines() == [
        "PASS one",
        "FAIL two: expected x got y z",
        "FAIL three: expected the check to run got ZeroDivisionError: division by zero",
        "1 passed, 2 failed",
    ]
    assert not report.ok


def test_cleanup_never_deletes_what_was_there_before(served):
    sdk = root_client(served)
    ethereum = v1WalletAccountParams(
        curve="CURVE_SECP256K1",
        pathFormat="PATH_FORMAT_BIP32",
        path="m/44'/60'/0'/0/0",
        addressFormat="ADDRESS_FORMAT_ETHEREUM",
    )
    theirs = sdk.create_wallet(CreateWalletBody(walletName="theirs", accounts=[ethereum]))
    session = Session(
        served["baseUrl"],
        served["organizationId"],
        served["apiPublicKey"],
        served["apiPrivateKey"],
        prefix="conf-guard",
        signer_public_key=served["signerPublicKey"],
        max_examples=1,
    )
    before = session.inventory()
    session.ledger.add("wallet", theirs.walletId)  # as if a check had claimed it
    assert session.cleanup(before) == []
    assert theirs.walletId in session.inventory()["wallet"]
    sdk.delete_wallets(DeleteWalletsBody(walletIds=[theirs.walletId], deleteWithoutExport=True))


def test_sigterm_stops_the_command_which_still_deletes_what_it_made(served):
    """The real command as a process: stopped by SIGTERM after the import, it reports the
    interruption, deletes the wallet and exits 1."""
    before = names_in(served)
    process = subprocess.Popen(
        [
            sys.executable, "-m", "emulator", "conformance",
            "--base-url", served["baseUrl"],
            "--organization-id", served["organizationId"],
            "--api-public-key", served["apiPublicKey"],
            "--api-private-key", served["apiPrivateKey"],
            "--signer-public-key", served["signerPublicKey"],
            "--max-examples", "200",
            "--prefix", "conf-stopped",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line.rstrip("\n"))
        if line.startswith("PASS import.wallet_known_addresses"):
            process.send_signal(signal.SIGTERM)
            break
    rest, _ = process.communicate(timeout=120)
    lines += rest.splitlines()
    assert process.returncode == 1
    assert "FAIL run: expected every check to run got interrupted; cleaning up" in lines
    assert "PASS cleanup.delete_wallet" in lines
    assert "PASS cleanup.organization_unchanged" in lines
    assert re.fullmatch(r"\d+ passed, 1 failed", lines[-1])
    assert names_in(served) == before


def test_cleanup_claims_what_an_interrupted_request_made(served):
    """A wallet named with the run's prefix that the ledger never heard of (its answer was
    lost to an interruption) is new since the inventory: deleted too."""
    sdk = root_client(served)
    session = Session(
        served["baseUrl"],
        served["organizationId"],
        served["apiPublicKey"],
        served["apiPrivateKey"],
        prefix="conf-stray",
        signer_public_key=served["signerPublicKey"],
        max_examples=1,
    )
    before = session.inventory()
    ethereum = v1WalletAccountParams(
        curve="CURVE_SECP256K1",
        pathFormat="PATH_FORMAT_BIP32",
        path="m/44'/60'/0'/0/0",
        addressFormat="ADDRESS_FORMAT_ETHEREUM",
    )
    stray = sdk.create_wallet(CreateWalletBody(walletName="conf-stray-lost", accounts=[ethereum]))
    other = sdk.create_wallet(CreateWalletBody(walletName="conf-strayish", accounts=[ethereum]))
    assert session.cleanup(before) == [("wallet", None)]
    left = session.inventory()["wallet"]
    assert stray.walletId not in left and other.walletId in left  # "conf-stray-" only
