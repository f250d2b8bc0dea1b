"""Linear snapshots (issue 28, item 3): snapshot() + restore() at 1,000 and 10,000 records.

    python bench/snapshots.py            # about a minute
    python bench/snapshots.py --quick    # a smoke run: 100 and 1,000 records, few rounds
    python bench/snapshots.py --json     # one JSON object on stdout

For each size, one organization of about N records (secp256k1 private keys with an
Ethereum address, 100 a ``create_private_keys``, and their activities: ``durability.py``'s
``populate``), then ``emu.restore(emu.snapshot())`` in turn with a ``pickle`` round trip
of the same store (``pickle.loads(pickle.dumps(store))``, the floor), each timed whole,
the cyclic collector's work included (it runs when it would in a program: a restore makes
every record anew; each call ends with a collection of the young generations, timed, so
that what a call leaves young is paid by that call and not by the next one, the other
side of the comparison). Figures: the round trip over the floor at each size (goal ≤ 2), and
the same over a pickle round trip with the collector paused (the C work alone); and
the round trip at the large size over the small one, against the ratio of their record
counts (goal ≤ 11 for 10,000 over 1,000: linear, with a tenth to spare).

Then the parts, each alone with the collector paused, and how each grows from the small
size to the large one: ``dumps`` (what ``snapshot()`` does), the same with the pickler's
memo off (``Pickler.fast``: its output would not keep shared records shared, timed only to
show what the memo's table costs as it outgrows the caches), and ``loads`` (what
``restore()`` does). See docs/performance.md ("Why snapshots are not linear here").
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import pickle
import statistics
import sys
from typing import Any

from durability import count_records, populate
from measuring import in_turn

from emulator.ground.gc_tuning import paused

PICKLE_GOAL = 2.0
LINEAR_SLACK = 1.1  # the large size may cost its share of records times this


def _collections() -> tuple[list[int], Any]:
    counted = [0, 0, 0]

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            counted[info["generation"]] += 1

    return counted, callback


def _dumps_without_memo(store: Any) -> bytes:
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True  # no memo: shared objects written again (timed only, never loaded)
    pickler.dump(store)
    return out.getvalue()


def measure_parts(store: Any, rounds: int) -> dict[str, float]:
    """Median µs of dumps, dumps without the memo, and loads of ``store``, in turn."""
    pickled = pickle.dumps(store, protocol=pickle.HIGHEST_PROTOCOL)

    def dumps() -> None:
        with paused():
            pickle.dumps(store, protocol=pickle.HIGHEST_PROTOCOL)

    def dumps_fast() -> None:
        with paused():
            _dumps_without_memo(store)

    def loads() -> None:
        with paused():
            pickle.loads(pickled)
        gc.collect(1)

    timed = in_turn([dumps, dumps_fast, loads], rounds, 2)
    names = ("dumps_us", "dumps_without_memo_us", "loads_us")
    return {name: statistics.median(t) for name, t in zip(names, timed, strict=True)}


def measure_size(records: int, rounds: int) -> dict[str, Any]:
    emu = populate(records, seed=records + 7)
    store = emu.world.store

    # Each call ends by collecting the young generations (``gc.collect(1)``), inside the
    # timed region: what a call leaves young for the collector is paid by that call, not
    # by whichever call comes next (here, the other side of the comparison).
    def round_trip() -> None:
        emu.restore(emu.snapshot())
        gc.collect(1)

    def pickle_round_trip() -> None:
        pickle.loads(pickle.dumps(emu.world.store, protocol=pickle.HIGHEST_PROTOCOL))
        gc.collect(1)

    def pickle_paused() -> None:  # the C work alone: no collection during it
        with paused():
            pickle.loads(pickle.dumps(emu.world.store, protocol=pickle.HIGHEST_PROTOCOL))
        gc.collect(1)

    before = count_records(emu)
    counted, callback = _collections()
    gc.callbacks.append(callback)
    try:
        ours, floor, strict = in_turn([round_trip, pickle_round_trip, pickle_paused], rounds, 2)
    finally:
        gc.callbacks.remove(callback)
    if count_records(emu) != before or emu.world.store is store:
        raise SystemExit("snapshots: a restore did not bring back a copy of the same records")
    saved = emu.snapshot()
    parts = measure_parts(emu.world.store, rounds)
    return {
        **parts,
        "records": before,
        "snapshot_bytes": len(saved.pickled),
        "median_us": statistics.median(ours),
        "floor_us": statistics.median(floor),
        "ratio_to_pickle": statistics.median(ours) / statistics.median(floor),
        "paused_us": statistics.median(strict),
        "ratio_to_paused_pickle": statistics.median(ours) / statistics.median(strict),
        "collections": counted,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: tiny counts")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--rounds", type=int, help="timed round trips a size (15)")
    args = parser.parse_args(argv)
    sizes = (100, 1000) if args.quick else (1000, 10000)
    rounds = args.rounds or (3 if args.quick else 15)
    load = os.getloadavg()
    rows = [measure_size(size, rounds) for size in sizes]
    small, large = rows
    scale = large["records"] / small["records"]
    growth = large["median_us"] / small["median_us"]
    report = {
        "load_average": [round(x, 2) for x in load],
        "sizes": rows,
        "growth": round(growth, 3),
        "records_ratio": round(scale, 3),
        "growth_goal": round(LINEAR_SLACK * scale, 2),
        "floor_growth": round(large["floor_us"] / small["floor_us"], 3),
        "paused_floor_growth": round(large["paused_us"] / small["paused_us"], 3),
        "parts_growth": {
            name: round(large[name] / small[name], 3)
            for name in ("dumps_us", "dumps_without_memo_us", "loads_us")
        },
    }
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"load average {load[0]:.2f}")
    print(
        "| size | snapshot() + restore() | pickle round trip (floor) | × floor "
        "| × pickle, collector paused | collections (0/1/2) |"
    )
    print("|---|---|---|---|---|---|")
    for row in rows:
        verdict = "met" if row["ratio_to_pickle"] <= PICKLE_GOAL else "MISSED"
        counts = "/".join(str(c) for c in row["collections"])
        print(
            f"| {row['records']:,} records ({row['snapshot_bytes'] / 1e6:.1f} MB) | "
            f"{row['median_us'] / 1e3:.1f} ms | {row['floor_us'] / 1e3:.1f} ms | "
            f"{row['ratio_to_pickle']:.2f} (≤ {PICKLE_GOAL:g}: {verdict}) | "
            f"{row['ratio_to_paused_pickle']:.2f} ({row['paused_us'] / 1e3:.1f} ms) | {counts} |"
        )
    verdict = "met" if growth <= LINEAR_SLACK * scale else "MISSED"
    print()
    print(
        f"snapshot() + restore(): {large['records']:,} records cost {growth:.2f}× "
        f"{small['records']:,} (records {scale:.2f}×; goal ≤ {LINEAR_SLACK * scale:.1f}: "
        f"{verdict}); the pickle round trip {report['floor_growth']:.2f}×, with the collector "
        f"paused {report['paused_floor_growth']:.2f}×"
    )
    grown = report["parts_growth"]
    print(
        f"parts, collector paused: dumps {grown['dumps_us']:.2f}×, dumps without the memo "
        f"{grown['dumps_without_memo_us']:.2f}×, loads {grown['loads_us']:.2f}×"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
