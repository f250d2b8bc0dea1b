"""Timing and reporting helpers shared by the benchmark modules.

Every figure is the median of single-call timings taken with
``time.perf_counter`` after a warm-up. A ``Result`` carries its own floor (a
raw operation measured in the same run) and, for the summary, the P-256
verification floor that ``run.py`` measures for every row.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

# The exit status of a script that cannot run on this machine (no browser, no npm): the
# smoke test (tests/test_bench_smoke.py) skips it rather than failing, as the tests that
# need the same things skip. 77 is the "skipped" status of automake's test harness.
UNAVAILABLE = 77


def unavailable(reason: str) -> NoReturn:
    """Stop a script that cannot run here, saying why."""
    print(f"cannot run here: {reason}", file=sys.stderr)
    sys.exit(UNAVAILABLE)


def warmup_for(reps: int) -> int:
    """The untimed calls before ``reps`` timed ones."""
    return max(10, reps // 10)


def measure(
    fn: Callable[..., Any],
    reps: int,
    *,
    prepare: Callable[[int], tuple[Any, ...]] | None = None,
    warmup: int | None = None,
) -> list[float]:
    """``reps`` timings of ``fn`` in microseconds, after a warm-up.

    ``prepare(i)`` builds the arguments of call ``i`` outside the timed region.
    """
    warmup = warmup_for(reps) if warmup is None else warmup
    samples: list[float] = []
    clock = time.perf_counter
    for i in range(warmup + reps):
        args = prepare(i) if prepare is not None else ()
        start = clock()
        fn(*args)
        elapsed = clock() - start
        if i >= warmup:
            samples.append(elapsed * 1e6)
    return samples


def in_turn(calls: list[Callable[[], Any]], reps: int, warmup: int) -> list[list[float]]:
    """Timings in µs of each of ``calls``, called one after the other ``warmup + reps``
    times, so that the machine's load weighs on all of them alike."""
    samples: list[list[float]] = [[] for _ in calls]
    clock = time.perf_counter
    for i in range(warmup + reps):
        for j, call in enumerate(calls):
            start = clock()
            call()
            elapsed = clock() - start
            if i >= warmup:
                samples[j].append(elapsed * 1e6)
    return samples


def calls_made(reps: int, warmup: int | None = None) -> int:
    """How many calls ``measure(fn, reps, warmup=warmup)`` makes, warm-up included."""
    return reps + (warmup_for(reps) if warmup is None else warmup)


def median(samples: list[float]) -> float:
    return statistics.median(samples)


@dataclass(frozen=True)
class Goal:
    limit: float
    unit: str  # "us" (absolute) or "x" (ratio to the row's floor)
    inclusive: bool = False  # "≤" rather than "<"
    against: str = "verify"  # the floor a ratio goal is stated against, for the label

    def met(self, median_us: float, ratio: float) -> bool:
        value = median_us if self.unit == "us" else ratio
        return value <= self.limit if self.inclusive else value < self.limit

    def __str__(self) -> str:
        op = "≤" if self.inclusive else "<"
        if self.unit == "us":
            return f"{op} {self.limit:g} µs"
        return f"{op} {self.limit:g}x {self.against}"


@dataclass
class Result:
    """One row: samples in µs, divided by ``floor`` (µs) whose short name is ``floor_name``."""

    name: str
    samples: list[float]
    goal: Goal | None = None
    floor: float = 0.0
    floor_name: str = "verify"
    verify: float = 0.0  # the P-256 verify floor of the run, for ratio_to_verify

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def ratio(self) -> float:
        return self.median / self.floor

    @property
    def ratio_to_verify(self) -> float:
        return self.median / self.verify

    @property
    def status(self) -> str:
        if self.goal is None:
            return "-"
        return "PASS" if self.goal.met(self.median, self.ratio) else "MISS"

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "reps": len(self.samples),
            "median_us": round(self.median, 3),
            "p10_us": round(quantile(self.samples, 0.10), 3),
            "p90_us": round(quantile(self.samples, 0.90), 3),
            "floor": self.floor_name,
            "floor_us": round(self.floor, 3),
            "ratio_to_floor": round(self.ratio, 3),
            "ratio_to_verify": round(self.ratio_to_verify, 3),
            "goal": str(self.goal) if self.goal else None,
            "status": self.status if self.goal else None,
        }


def quantile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def floor_row(name: str, short: str, before: list[float], after: list[float]) -> Result:
    """The row of a floor measured in two halves (before and after what it divides)."""
    samples = before + after
    return Result(name, samples, floor=statistics.median(samples), floor_name=short)


def alternate(
    first: Callable[[], Any],
    second: Callable[..., Any],
    reps: int,
    *,
    prepare: Callable[[int], tuple[Any, ...]] | None = None,
    warmup: int = 1,
) -> tuple[list[float], list[float]]:
    """``reps`` timings each of ``first`` and ``second``, called in turn (µs).

    For long calls measured a few times: taking them in turn keeps a change in
    the machine's load from landing on one side only. ``prepare(i)`` builds the
    arguments of the ``i``-th call of ``second`` outside the timed region.
    """
    a: list[float] = []
    b: list[float] = []
    clock = time.perf_counter
    for i in range(warmup + reps):
        start = clock()
        first()
        middle = clock()
        args = prepare(i) if prepare is not None else ()
        resumed = clock()
        second(*args)
        end = clock()
        if i >= warmup:
            a.append((middle - start) * 1e6)
            b.append((end - resumed) * 1e6)
    return a, b


def script_main(
    key: str, doc: str | None, run: Callable[..., list[Result]], *, progress: bool = False
) -> None:
    """The ``__main__`` of a script whose ``run(quick)`` (``run(quick, progress)`` with
    ``progress``) gives its rows: ``--quick`` and ``--json``, then one table, a row a
    ``Result``, with the load average at the start; the progress lines and the run's length
    go to stderr."""
    parser = argparse.ArgumentParser(description=(doc or key).strip().splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: tiny counts")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args()
    started = time.perf_counter()
    load = os.getloadavg()

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    rows = run(args.quick, say) if progress else run(args.quick)
    if args.json:
        json.dump({key: [row.as_json() for row in rows], "loadavg": load}, sys.stdout, indent=1)
        print()
        return
    print("| row | median | × floor | goal | status |")
    print("|---|---|---|---|---|")
    for row in rows:
        median = f"{row.median / 1000:.2f} ms" if row.median >= 10_000 else f"{row.median:.1f} µs"
        print(
            f"| {row.name} | {median} | {row.ratio:.2f}x {row.floor_name} "
            f"| {row.goal or '-'} | {row.status} |"
        )
    print(f"load average at the start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    say(f"({time.perf_counter() - started:.0f} s)")
