"""Benchmarks of the emulator, as medians and as ratios to raw floors measured in the same run.

Most rows divide by one ``cryptography`` P-256 ECDSA/SHA-256 verification of a
100-byte body (half before the other benchmarks, half after, pooled); the
signing rows (``signing.py``) by one raw signature on their curve, the wallet
rows (``wallets.py``) by a raw derivation of the same accounts, the policy rows
(``policies.py``) by the same signature by a root user, whom no policy is
evaluated for, the bundle rows (``auth_bundles.py``) by one raw HPKE seal, the import rows
(``imports.py``) by ``python -c pass``. Ratios compare
across machines better than microseconds do. ``memory.py`` counts the heap
held per private key and per signature activity. ``toolkit.py`` measures the test-double toolkit
(per-test checkpoint/rollback, pytest sessions, snapshots and documents),
each against a floor of its own; ``durability.py`` (run on its own) the state file
of ``serve --state`` and the costs as the state grows. Importing the official SDK takes seconds of its own; it
is timed once and reported apart, outside every median. Every figure is the
median of many single-call timings taken with ``time.perf_counter`` after a
warm-up.

    python bench/run.py            # full run (a few minutes)
    python bench/run.py --quick    # tiny counts: a smoke run (the CI runs it; figures not meaningful)
    python bench/run.py --json     # one JSON object on stdout instead of the table

Figures are from one machine and one run; treat small differences as noise.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import auth_bundles
import chains
import cryptography
import imports
import memory
import policies
import signing
import toolkit
import wallets
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from measuring import Goal, Result, measure, warmup_for

from emulator import Emulator, OrganizationHandle
from emulator.crypto.stamps import sign_stamp
from emulator.http.app import handle
from emulator.http.server import serving

BODY_BYTES = 100
RUN_TAG = f"{time.time_ns():x}"  # keeps user names unique across emulators and runs


# ----- what is measured ---------------------------------------------------------


@dataclass(frozen=True)
class Reps:
    floor: int  # per half: before and after the rest
    sign: int
    fresh: int
    facade: int
    sdk: int
    http: int


FULL = Reps(floor=3000, sign=3000, fresh=2000, facade=5000, sdk=2000, http=1000)
QUICK = Reps(floor=100, sign=50, fresh=50, facade=100, sdk=20, http=10)  # a smoke run


class Floor:
    """One raw P-256 verification (and, for reference, one signature)."""

    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.public = self.key.public_key()
        self.body = json.dumps({"organizationId": "0" * 36, "timestampMs": "1" * 13}).encode()
        self.body = self.body.ljust(BODY_BYTES)  # still valid JSON
        assert len(self.body) == BODY_BYTES
        self.algorithm = ec.ECDSA(hashes.SHA256())
        self.signature = self.key.sign(self.body, self.algorithm)  # DER

    def verify(self) -> None:
        self.public.verify(self.signature, self.body, self.algorithm)

    def sign(self) -> None:
        self.key.sign(self.body, self.algorithm)


def bench_emulator(emu: Emulator) -> Emulator:
    emu.settings.max_users_per_organization = 10**9
    return emu


def user_name(prefix: str, i: int) -> str:
    return f"bench-{RUN_TAG}-{prefix}-{i}"


def facade_user(name: str) -> dict[str, Any]:
    return {
        "userName": name,
        "apiKeys": [],
        "authenticators": [],
        "oauthProviders": [],
        "userTags": [],
    }


def users_of(emu: Emulator, org: OrganizationHandle) -> int:
    return len(emu.world.store.organizations[org.organization_id].users)


def check_created(
    emu: Emulator, org: OrganizationHandle, before: int, calls: int, what: str
) -> None:
    """Every timed create_users made a new user (nothing was deduplicated or refused)."""
    made = users_of(emu, org) - before
    if made != calls:
        raise SystemExit(f"{what}: {calls} create_users calls made {made} users")


def run_fresh(reps: Reps) -> list[float]:
    def fresh() -> None:
        Emulator().create_organization("Acme")

    return measure(fresh, reps.fresh)


def run_facade(reps: Reps) -> tuple[list[float], list[float], list[float]]:
    emu = bench_emulator(Emulator())
    org = emu.create_organization("Acme")
    assert emu.get_whoami()["userId"] == org.user_id

    whoami = measure(emu.get_whoami, reps.facade)

    # The emulator's own share of a wire request: parse, verify the stamp, dispatch, encode.
    raw = json.dumps({"organizationId": org.organization_id}).encode()
    headers = {"x-stamp": sign_stamp(raw, org.api_key).header_value()}
    path = "/public/v1/query/whoami"
    assert handle(emu.world, "POST", path, headers, raw)[0] == 200
    wire = measure(lambda: handle(emu.world, "POST", path, headers, raw), reps.facade)

    before = users_of(emu, org)

    def create(users: list[dict[str, Any]]) -> None:
        emu.create_users(users=users)

    create_samples = measure(
        create, reps.facade, prepare=lambda i: ([facade_user(user_name("facade", i))],)
    )
    check_created(emu, org, before, len(create_samples) + warmup_for(reps.facade), "facade")
    return whoami, wire, create_samples


def import_sdk() -> float:
    """Import the official SDK; its import time in seconds (a one-off, not in the medians)."""
    start = time.perf_counter()
    import turnkey_http  # noqa: F401
    import turnkey_sdk_types  # noqa: F401

    return time.perf_counter() - start


def run_sdk(emu: Emulator, org: OrganizationHandle, client: Any, n: int, tag: str):
    from turnkey_sdk_types import CreateUsersBody, GetWhoamiBody, v1UserParamsV3

    assert client.get_whoami(GetWhoamiBody()).userId == org.user_id
    whoami = measure(lambda: client.get_whoami(GetWhoamiBody()), n)

    def body(i: int) -> tuple[CreateUsersBody]:
        user = v1UserParamsV3(
            userName=user_name(tag, i),
            apiKeys=[],
            authenticators=[],
            oauthProviders=[],
            userTags=[],
        )
        return (CreateUsersBody(users=[user]),)

    before = users_of(emu, org)
    first = client.create_users(body(-1)[0])
    assert first.activity.status == "ACTIVITY_STATUS_COMPLETED", first.activity.status
    create = measure(client.create_users, n, prepare=body)
    check_created(emu, org, before, 1 + len(create) + warmup_for(n), tag)
    return whoami, create


def run_sdk_in_process(reps: Reps):
    emu = bench_emulator(Emulator())
    org = emu.create_organization("Acme")
    with emu.intercept():
        client = emu.client(org)
        return run_sdk(emu, org, client, reps.sdk, "sdk")


def run_http(reps: Reps):
    emu = bench_emulator(Emulator())
    org = emu.create_organization("Acme")
    with serving(emu.world) as url:
        client = emu.client(org, base_url=url)
        return run_sdk(emu, org, client, reps.http, "http")


# ----- the run ------------------------------------------------------------------


def run(quick: bool, progress: Callable[[str], None]) -> dict[str, Any]:
    reps = QUICK if quick else FULL
    started = time.perf_counter()
    floor = Floor()

    progress("floor (P-256 verify), first half")
    verify_before = measure(floor.verify, reps.floor)
    progress("P-256 sign")
    sign = measure(floor.sign, reps.sign)
    progress("fresh emulator + organization")
    fresh = run_fresh(reps)
    progress("facade")
    facade_whoami, wire_whoami, facade_create = run_facade(reps)
    # The emulator-only rows come before the official SDK is imported: its models add
    # some 475,000 objects that every full garbage collection walks from then on.
    signing_bench = signing.SigningBench(quick)
    progress("raw secp256k1 / ed25519 signatures (floors), first half")
    signing_bench.floors()
    progress("facade sign_raw_payload")
    signing_bench.facade()
    wallet_results = wallets.run(quick, progress)
    policy_results = policies.run(quick, progress)
    bundle_results = auth_bundles.run(quick, progress)
    memory_started = time.perf_counter()
    memory_report = memory.run(quick, progress)
    memory_report["signatures"] = memory.run_signatures(quick, progress)
    memory_s = time.perf_counter() - memory_started
    toolkit_bench = toolkit.ToolkitBench(quick)
    toolkit_bench.run(progress)
    import_results = imports.run(quick, progress)
    chain_results = chains.run(quick, progress)
    progress("official SDK import (once)")
    sdk_import_s = import_sdk()
    progress("official SDK, in-process")
    sdk_whoami, sdk_create = run_sdk_in_process(reps)
    progress("official SDK over HTTP")
    http_whoami, http_create = run_http(reps)
    progress("SDK sign_raw_payload, in-process and over HTTP")
    signing_bench.sdk()
    progress("raw secp256k1 / ed25519 signatures (floors), second half")
    signing_bench.floors()
    progress("floor (P-256 verify), second half")
    verify_after = measure(floor.verify, reps.floor)

    floor_us = statistics.median(verify_before + verify_after)
    results = [
        Result("P-256 verify (floor)", verify_before + verify_after),
        Result("P-256 sign (reference)", sign),
        Result("fresh Emulator + create_organization", fresh, Goal(1000, "us")),
        Result("facade get_whoami", facade_whoami, Goal(3, "x")),
        Result("facade create_users (1 user)", facade_create),
        Result("handle() get_whoami, stamp verified", wire_whoami),
        Result("SDK in-process get_whoami", sdk_whoami),
        Result("SDK in-process create_users", sdk_create),
        Result("SDK over HTTP get_whoami", http_whoami),
        Result("SDK over HTTP create_users", http_create),
    ]
    for result in results:
        result.floor = floor_us
    results += (
        signing_bench.results()
        + wallet_results
        + policy_results
        + bundle_results
        + toolkit_bench.results(floor_us)
        + import_results
        + chain_results
    )
    for result in results:
        result.verify = floor_us
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cryptography": cryptography.__version__,
        "quick": quick,
        "floor_us": round(floor_us, 3),
        "floor_first_half_us": round(statistics.median(verify_before), 3),
        "floor_second_half_us": round(statistics.median(verify_after), 3),
        "elapsed_s": round(time.perf_counter() - started, 2),
        "memory_s": round(memory_s, 2),
        "sdk_import_s": round(sdk_import_s, 2),
        "results": results,
        "memory": memory_report,
        "toolkit": toolkit_bench.info,
        "note": "Figures are from one machine and one run; ratios travel better than µs.",
    }


def print_table(report: dict[str, Any]) -> None:
    results: list[Result] = report["results"]
    headers = ("benchmark", "n", "median µs", "x floor", "floor", "goal", "status")
    rows = [
        (
            r.name,
            str(len(r.samples)),
            f"{r.median:,.1f}",
            f"{r.ratio:,.2f}",
            r.floor_name,
            str(r.goal) if r.goal else "-",
            r.status,
        )
        for r in results
    ]
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(headers)]
    align = ("<", ">", ">", ">", "<", "<", "<")

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(f"{c:{a}{w}}" for c, a, w in zip(cells, align, widths, strict=True))

    print(
        f"Python {report['python']} ({report['implementation']}) on {report['platform']}, "
        f"cryptography {report['cryptography']}"
    )
    mode = "quick" if report["quick"] else "full"
    print(
        f"{mode} run: {report['elapsed_s']:.1f} s, of which {report['sdk_import_s']:.1f} s "
        "importing the official SDK (turnkey_http, turnkey_sdk_types; once, in no median) "
        f"and {report['memory_s']:.1f} s counting memory"
    )
    print("Each row is divided by the floor its 'floor' column names, measured in this run:")
    print(
        f"  verify   = one P-256 verify of a {BODY_BYTES}-byte body = {report['floor_us']:.1f} µs "
        f"(median of both halves; first {report['floor_first_half_us']:.1f}, "
        f"last {report['floor_second_half_us']:.1f})"
    )
    print("  k1 sign  = one coincurve secp256k1 sign_recoverable of a 32-byte digest")
    print("  ed sign  = one PyNaCl ed25519 SigningKey.sign of 32 bytes")
    print("  derive N = mnemonic to seed + BIP32 + EIP-55 of N ETH accounts (bench/wallets.py)")
    print("  empty test = one empty pytest test without fixtures, end to end (bench/toolkit.py)")
    print("  deepcopy N = copy.deepcopy of a list of N dicts of 8 small fields, N = the records")
    print("  mem small / mem 1k = the same create_users through WsgiApp without the state file")
    print()
    print(line(headers))
    print(line(tuple("-" * w for w in widths)))
    for row in rows:
        print(line(row))
    print()
    print("handle(): the wire entry point with a pre-signed request, no requests, no socket.")
    print("SDK rows include the SDK's own work: pydantic, signing the stamp, requests.post")
    print("(a new Session, proxy look-ups in the environment); over HTTP, a new TCP connection")
    print("per call as well. Every timed sign_raw_payload signs a new payload (a new activity).")
    print()
    toolkit.print_notes(report["toolkit"], results)
    memory.print_memory(report["memory"])
    memory.print_signatures(report["memory"]["signatures"])
    print(report["note"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="tiny counts: a smoke run that proves the script works (figures not meaningful)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    args = parser.parse_args(argv)

    def progress(what: str) -> None:
        if not args.json:
            print(f"  measuring {what} ...", file=sys.stderr, flush=True)

    report = run(args.quick, progress)
    if args.json:
        out = {**report, "results": [r.as_json() for r in report["results"]]}
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
