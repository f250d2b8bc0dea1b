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
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import coincurve
from measuring import in_turn

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.crypto.stamps import sign_stamp
from emulator.engine_state.world import Settings
from emulator.http.app import handle
from emulator.state.journal import COMPACTION_RATIO, MIN_COMPACTION_BYTES, Journal
from emulator.state.persistence import StateFile

ETH = account_spec("ADDRESS_FORMAT_ETHEREUM")


@dataclass(frozen=True)
class Reps:
    writes: int
    creates: int
    snapshots: int
    signatures: int
    sizes: tuple[int, ...]
    large: int


FULL = Reps(
    writes=300, creates=150, snapshots=7, signatures=2000, sizes=(100, 1000, 10000), large=10000
)
QUICK = Reps(writes=60, creates=40, snapshots=3, signatures=400, sizes=(100, 1000), large=1000)


@dataclass
class Row:
    name: str
    median_us: float
    floor_name: str
    floor_us: float
    goal: str = ""
    met: bool | None = None
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.median_us / self.floor_us


def med(samples: list[float]) -> float:
    return statistics.median(samples)


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def roomy() -> Settings:
    return Settings(
        max_users_per_organization=10**6,
        max_wallets_per_organization=10**6,
        max_private_keys_per_organization=10**6,
    )


def populate(records: int, seed: int) -> Emulator:
    """One organization of about ``records`` records: keys (100 a call) and activities."""
    emu = Emulator(seed=seed, settings=roomy())
    emu.create_organization("Acme")
    keys = max(0, records - records // 100 - 3)
    made = 0
    while made < keys:
        batch = min(100, keys - made)
        emu.create_private_keys(
            private_keys=[
                {
                    "privateKeyName": f"k{made + i}",
                    "curve": "CURVE_SECP256K1",
                    "privateKeyTags": [],
                    "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
                }
                for i in range(batch)
            ]
        )
        made += batch
    return emu


def count_records(emu: Emulator) -> int:
    total = 0
    for org in emu.world.store.organizations.values():
        total += len(org.users) + len(org.wallets) + len(org.private_keys) + len(org.activities)
        total += sum(len(w.accounts) for w in org.wallets.values())
    return total


# ----- 1. the state file per write ------------------------------------------------------


class Wire:
    """Pre-signed requests through ``handle`` for one emulator."""

    def __init__(self, emu: Emulator, tag: str) -> None:
        self.emu, self.tag, self.n = emu, tag, 0
        self.org = emu.organization()
        self.address = emu.create_wallet(wallet_name=f"{tag}-signer", accounts=[ETH])["addresses"][
            0
        ]

    def _call(self, path: str, activity_type: str, parameters: dict) -> Callable[[], None]:
        """The request, pre-signed; calling it sends it (the stamp is the client's work)."""
        raw = json.dumps(
            {
                "type": activity_type,
                "timestampMs": str(self.emu.world.clock.now_ms()),
                "organizationId": self.org.organization_id,
                "parameters": parameters,
            }
        ).encode()
        headers = {"x-stamp": sign_stamp(raw, self.org.api_key).header_value()}
        world = self.emu.world

        def send() -> None:
            status, body = handle(world, "POST", path, headers, raw)
            if status != 200:
                raise SystemExit(f"durability: {path} answered {status}: {body[:200]!r}")

        return send

    def sign(self) -> Callable[[], None]:
        self.n += 1
        return self._call(
            "/public/v1/submit/sign_raw_payload",
            "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
            {
                "signWith": self.address,
                "payload": hashlib.sha256(f"{self.tag}{self.n}".encode()).hexdigest(),
                "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
                "hashFunction": "HASH_FUNCTION_NO_OP",
            },
        )

    def create_user(self) -> Callable[[], None]:
        self.n += 1
        user = {
            "userName": f"{self.tag}-user-{self.n}",
            "userTags": [],
            "apiKeys": [],
            "authenticators": [],
            "oauthProviders": [],
        }
        return self._call(
            "/public/v1/submit/create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", {"users": [user]}
        )


def rolled_in_turn(
    emu: Emulator, prepare: Callable[[], Callable[[], None]], journals: list, reps: int
) -> list[list[float]]:
    """Timings in µs of a request ``prepare()`` makes (untimed), with each of ``journals``
    attached (``None``: in memory), one after the other, each call rolled back (untimed)
    so that the state keeps its size; the journal is then told the state is as it wrote
    it (the rows stay in its file)."""
    world = emu.world
    samples: list[list[float]] = [[] for _ in journals]
    clock = time.perf_counter
    for i in range(max(10, reps // 10) + reps):
        for j, journal in enumerate(journals):
            call = prepare()
            checkpoint = emu.checkpoint()
            if journal is not None:
                journal.attach()
            start = clock()
            call()
            elapsed = clock() - start
            world.commit_hook = None
            emu.rollback(checkpoint)
            if i >= max(10, reps // 10):
                samples[j].append(elapsed * 1e6)
    return samples


class RowSizes:
    """The bytes of each journal row a state file writes."""

    def __init__(self, state: StateFile) -> None:
        self.sizes: list[int] = []
        append = state.append

        def counted(row: dict) -> int:
            self.sizes.append(len(json.dumps(row, separators=(",", ":"))))
            return append(row)

        state.append = counted  # type: ignore[method-assign]


def state_file_rows(reps: Reps, progress: Callable[[str], None]) -> tuple[list[Row], dict]:
    rows: list[Row] = []
    info: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="durability-") as directory:
        for size in reps.sizes:
            progress(f"durability: the state file per write at {size:,} records")
            emu = populate(size, seed=size)
            wire = Wire(emu, f"s{size}")
            journals = {}
            for sync in ("full", "normal"):
                path = os.path.join(directory, f"{size}-{sync}.sqlite")
                state = StateFile.create(path, emu.to_document(), sync=sync)
                journals[sync] = Journal(emu, state, compact_every=10**9)
            emu.world.commit_hook = None
            sizes = RowSizes(journals["normal"].state)
            records = count_records(emu)
            compact = []
            for _ in range(3):
                start = time.perf_counter()
                journals["normal"].compact()
                compact.append((time.perf_counter() - start) * 1e6)
            emu.world.commit_hook = None
            for label, call in (
                ("sign_raw_payload", wire.sign),
                ("create_users", wire.create_user),
            ):
                # Each sync mode in turn with memory alone: an fsync slows the call after it.
                sizes.sizes.clear()
                memory, normal = rolled_in_turn(emu, call, [None, journals["normal"]], reps.writes)
                row_bytes = statistics.mean(sizes.sizes)
                memory_f, full = rolled_in_turn(emu, call, [None, journals["full"]], reps.writes)
                base = journals["normal"].state.base_bytes
                # rows per compaction, as the journal decides it
                folded = max(COMPACTION_RATIO * base, MIN_COMPACTION_BYTES) / row_bytes
                amortized = med(compact) / folded
                floor, floor_f = med(memory), med(memory_f)
                name = f"{label} at {records:,} records"
                note = f"compaction {med(compact) / 1e3:.1f} ms per {folded:,.0f} rows"
                rows += [
                    Row(f"{name}, in memory (floor)", floor, "memory", floor),
                    Row(f"{name}, --state (--sync normal)", med(normal), "memory", floor, "≤ 1.5x"),
                    Row(
                        f"{name}, --state + amortized compaction",
                        med(normal) + amortized,
                        "memory",
                        floor,
                        "≤ 1.5x",
                        note=note,
                    ),
                    Row(f"{name}, --state --sync full", med(full), "memory", floor_f),
                ]
                info[f"{label}@{size}"] = {
                    "records": records,
                    "row_bytes": round(row_bytes),
                    "base_bytes": base,
                    "compaction_us": round(med(compact)),
                    "rows_per_compaction": round(folded),
                }
            emu.world.commit_hook = None
            for journal in journals.values():
                journal.state.close()
    return rows, info


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
