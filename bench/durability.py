"""Durable state and flat costs as the state grows (issue 13), each figure a ratio in one run.

    python bench/durability.py            # about two minutes
    python bench/durability.py --quick    # fewer repetitions, 1,000 records at most
    python bench/durability.py --json     # one JSON object on stdout

1. **The state file per write.** ``sign_raw_payload`` and ``create_users`` (one user)
   through ``emulator.http.app.handle`` (the wire's entry point below the HTTP server,
   which issue 12 replaces; pre-signed requests, no socket), with the durable journal
   attached (``--sync full``, the default, and ``--sync normal``) and without it, called
   in turn, on one organization of about 100, 1,000 and 10,000 records (private keys with
   an Ethereum address each, 100 per ``create_private_keys``, and their activities).
   Floor: the same request in memory. The compaction (the whole document, written when
   the rows since the last one outweigh it four times) is measured apart and shared out
   over the rows it folds in: "amortized" adds that share.
2. **Creates at scale.** ``create_private_keys`` (one key) and ``create_wallet`` (one
   Ethereum account) through the facade, with about 10,000 records present, against the
   same on about 100 records, in turn.
3. **Snapshots.** ``snapshot()`` then ``restore()`` of about 1,000 and 10,000 records,
   against a ``pickle`` round trip (``loads(dumps(store))``) of the same store, in turn.
4. **Long-lived signing.** Memory held per signature activity over 10,000 facade
   ``sign_raw_payload`` calls (``tracemalloc``, after a collection); then, with those
   10,000 activities present, the facade signature's median and p99 beside a coincurve
   signature (the key object built once), in turn, and the cyclic collector's share of
   the facade's time.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import pickle
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import coincurve
from durability_rows import ETH, FULL, QUICK, Reps, Row, count_records, med, p99, populate
from measuring import in_turn
from state_file_rows import state_file_rows

from emulator import Emulator

# ----- 2. creates at scale ------------------------------------------------------------------


def create_rows(reps: Reps, progress: Callable[[str], None]) -> tuple[list[Row], dict]:
    progress(f"durability: creates with {reps.large:,} records present vs 100")
    small, large = populate(100, seed=1), populate(reps.large, seed=2)
    counter = iter(range(10**9))

    def key(emu: Emulator) -> Callable[[], None]:
        def run() -> None:
            spec = {
                "privateKeyName": f"x{next(counter)}",
                "curve": "CURVE_SECP256K1",
                "privateKeyTags": [],
                "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
            }
            emu.create_private_keys(private_keys=[spec])

        return run

    def wallet(emu: Emulator) -> Callable[[], None]:
        return lambda: emu.create_wallet(wallet_name=f"w{next(counter)}", accounts=[ETH])

    rows = []
    info = {"small": count_records(small), "large": count_records(large)}
    for label, make in (
        ("create_private_keys (1 key)", key),
        ("create_wallet (1 account)", wallet),
    ):
        few, many = in_turn([make(small), make(large)], reps.creates, max(10, reps.creates // 10))
        floor = med(few)
        rows.append(Row(f"{label}, {info['small']:,} records (floor)", floor, "100 records", floor))
        rows.append(
            Row(f"{label}, {info['large']:,} records", med(many), "100 records", floor, "≤ 1.2x")
        )
    return rows, info


# ----- 3. snapshots -----------------------------------------------------------------------


def snapshot_rows(reps: Reps, progress: Callable[[str], None]) -> tuple[list[Row], dict]:
    rows, info, medians = [], {}, {}
    sizes = [s for s in (1000, 10000) if s <= reps.large]
    for size in sizes:
        progress(f"durability: snapshot + restore of {size:,} records")
        emu = populate(size, seed=size + 7)
        store = emu.world.store

        def snap_restore(emu: Emulator = emu) -> None:
            emu.restore(emu.snapshot())

        def pickle_round_trip(store: Any = store) -> None:
            pickle.loads(pickle.dumps(store, protocol=pickle.HIGHEST_PROTOCOL))

        ours, floor = in_turn([snap_restore, pickle_round_trip], reps.snapshots, 1)
        records = count_records(emu)
        medians[size] = med(ours)
        rows.append(
            Row(f"pickle round trip, {records:,} records (floor)", med(floor), "pickle", med(floor))
        )
        rows.append(
            Row(
                f"snapshot() + restore(), {records:,} records",
                med(ours),
                "pickle",
                med(floor),
                "≤ 2x",
            )
        )
        info[size] = records
    if len(sizes) == 2:
        small, large = sizes
        scale = info[large] / info[small]
        rows.append(
            Row(
                f"snapshot + restore, {info[large]:,} / {info[small]:,} records",
                medians[large],
                f"{info[small]:,} records",
                medians[small],
                f"≤ {1.1 * scale:.0f}x (linear)",
            )
        )
    return rows, info


# ----- 4. long-lived signing ----------------------------------------------------------------


def signing_rows(reps: Reps, progress: Callable[[str], None]) -> tuple[list[Row], dict]:
    progress(f"durability: {reps.large:,} facade signatures (memory), then median and p99")
    emu = Emulator(seed=9)
    emu.create_organization("Acme")
    address = emu.create_wallet(wallet_name="w", accounts=[ETH])["addresses"][0]
    n = iter(range(10**9))

    def sign() -> None:
        emu.sign_raw_payload(
            sign_with=address,
            payload=f"{next(n):064x}",
            encoding="PAYLOAD_ENCODING_HEXADECIMAL",
            hash_function="HASH_FUNCTION_NO_OP",
        )

    for _ in range(100):
        sign()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(reps.large):
        sign()
    gc.collect()
    held = (tracemalloc.get_traced_memory()[0] - before) / reps.large
    tracemalloc.stop()
    secret = hashlib.sha256(b"k1").digest()
    key = coincurve.PrivateKey(secret)
    digest = hashlib.sha256(b"payload").digest()
    collector = {"s": 0.0, "start": 0.0}

    def timing(phase: str, _: dict) -> None:
        if phase == "start":
            collector["start"] = time.perf_counter()
        else:
            collector["s"] += time.perf_counter() - collector["start"]

    gc.callbacks.append(timing)
    try:
        facade, raw = in_turn(
            [sign, lambda: key.sign_recoverable(digest, hasher=None)],
            reps.signatures,
            max(10, reps.signatures // 10),
        )
    finally:
        gc.callbacks.remove(timing)
    share = collector["s"] * 1e6 / sum(facade)
    rows = [
        Row("coincurve secp256k1 sign (floor)", med(raw), "k1 sign", med(raw)),
        Row(
            f"facade sign_raw_payload, median, {reps.large:,} prior",
            med(facade),
            "k1 sign",
            med(raw),
        ),
        Row(
            f"facade sign_raw_payload, p99, {reps.large:,} prior",
            p99(facade),
            "its median",
            med(facade),
            "≤ 3x",
        ),
    ]
    info = {"bytes_per_activity": round(held), "gc_share_of_facade_time": round(share, 3)}
    return rows, info


# ----- the run ------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    reps = QUICK if args.quick else FULL
    quiet = args.json

    def progress(message: str) -> None:
        if not quiet:
            print(message, file=sys.stderr, flush=True)

    started = time.perf_counter()
    rows: list[Row] = []
    info: dict[str, Any] = {"load_average": os.getloadavg()}
    for name, part in (
        ("state_file", state_file_rows),
        ("creates", create_rows),
        ("snapshots", snapshot_rows),
        ("signing", signing_rows),
    ):
        more, info[name] = part(reps, progress)
        rows.extend(more)
    for row in rows:
        if row.goal:
            limit = float(row.goal.split()[1].rstrip("x"))
            row.met = row.ratio <= limit
    info["elapsed_s"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(
            json.dumps(
                {
                    "rows": [
                        {
                            "name": r.name,
                            "median_us": round(r.median_us, 1),
                            "floor": r.floor_name,
                            "ratio": round(r.ratio, 3),
                            "goal": r.goal or None,
                            "met": r.met,
                            "note": r.note or None,
                        }
                        for r in rows
                    ],
                    "info": info,
                }
            )
        )
        return 0
    print("| row | median | × floor | goal |")
    print("|---|---|---|---|")
    for r in rows:
        status = "" if r.met is None else (" PASS" if r.met else " MISS")
        note = f" ({r.note})" if r.note else ""
        print(
            f"| {r.name}{note} | {r.median_us:,.1f} µs | {r.ratio:.2f} × {r.floor_name} |"
            f" {r.goal}{status} |"
        )
    print(json.dumps(info, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
