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
the same over a pickle round trip with the collector paused (the C work alone). Then the
growth (goal ≤ 11 for 10,000 records over 1,000: linear, with a tenth to spare), measured
with both sizes' round trips called in turn, so that both run under the same load and start
from the caches the other one left (``growth_in_turn``); beside it, the growth of the rows
above, each size timed in its own phase of the run (the small one then starts warm from its
own last round trip, which flatters it).

Then the parts, each alone with the collector paused, and how each grows from the small
size to the large one: the snapshot's ``dumps`` and the restore's ``loads``
(``emulator/state/packing.py``: bulk collections packed), and the plain pickle's ``dumps``
for comparison. See docs/snapshots.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import statistics
import sys
from typing import Any

from durability_rows import count_records, populate
from measuring import in_turn

from emulator.ground.gc_tuning import paused
from emulator.state import packing

PICKLE_GOAL = 2.0
LINEAR_SLACK = 1.1  # the large size may cost its share of records times this


def _collections() -> tuple[list[int], Any]:
    counted = [0, 0, 0]

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            counted[info["generation"]] += 1

    return counted, callback


def measure_parts(store: Any, rounds: int) -> dict[str, float]:
    """Median µs of the snapshot's ``dumps`` and the restore's ``loads`` of ``store``
    (``state/packing.py``), and of the plain pickle's ``dumps``, in turn."""
    pickled = packing.dumps(store)

    def dumps() -> None:
        with paused():
            packing.dumps(store)

    def loads() -> None:
        with paused():
            packing.loads(pickled)
        gc.collect(1)

    def plain_dumps() -> None:
        with paused():
            pickle.dumps(store, protocol=pickle.HIGHEST_PROTOCOL)

    timed = in_turn([dumps, loads, plain_dumps], rounds, 2)
    names = ("dumps_us", "loads_us", "plain_dumps_us")
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


def growth_in_turn(sizes: tuple[int, int], rounds: int) -> dict[str, float]:
    """The round trip of both sizes called in turn (small, large, small, ...), each timed
    whole with its young collection: the two sizes under the same load and the same caches
    (each starts after the other's round trip, as a snapshot in a test session starts after
    other work), where the rows above time each size in its own phase of the run, the
    small one warm from its own last round trip."""
    emus = [populate(size, seed=size + 7) for size in sizes]

    def round_trip(emu: Any) -> Any:
        def call() -> None:
            emu.restore(emu.snapshot())
            gc.collect(1)

        return call

    small, large = in_turn([round_trip(e) for e in emus], rounds, 2)
    return {
        "small_us": statistics.median(small),
        "large_us": statistics.median(large),
        "growth": statistics.median(large) / statistics.median(small),
        "records_ratio": count_records(emus[1]) / count_records(emus[0]),
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
    together = growth_in_turn(sizes, rounds)
    report = {
        "load_average": [round(x, 2) for x in load],
        "sizes": rows,
        "growth": round(growth, 3),
        "growth_in_turn": round(together["growth"], 3),
        "in_turn_us": [round(together["small_us"], 1), round(together["large_us"], 1)],
        "records_ratio": round(scale, 3),
        "growth_goal": round(LINEAR_SLACK * scale, 2),
        "floor_growth": round(large["floor_us"] / small["floor_us"], 3),
        "paused_floor_growth": round(large["paused_us"] / small["paused_us"], 3),
        "parts_growth": {
            name: round(large[name] / small[name], 3)
            for name in ("dumps_us", "loads_us", "plain_dumps_us")
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
    goal = LINEAR_SLACK * scale
    verdict = "met" if together["growth"] <= goal else "MISSED"
    print()
    print(
        f"snapshot() + restore(), the two sizes in turn: {large['records']:,} records cost "
        f"{together['growth']:.2f}× {small['records']:,} ({together['large_us'] / 1e3:.1f} "
        f"against {together['small_us'] / 1e3:.1f} ms; records {scale:.2f}×; goal ≤ "
        f"{goal:.1f}: {verdict})"
    )
    print(
        f"each size in its own phase (the rows above): {growth:.2f}× "
        f"({'within' if growth <= goal else 'over'} the goal); the pickle round trip "
        f"{report['floor_growth']:.2f}×, with the collector paused "
        f"{report['paused_floor_growth']:.2f}×"
    )
    grown = report["parts_growth"]
    print(
        f"parts, collector paused: the snapshot's dumps {grown['dumps_us']:.2f}×, the "
        f"restore's loads {grown['loads_us']:.2f}×; the plain pickle's dumps "
        f"{grown['plain_dumps_us']:.2f}×"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
