"""The cost of the documented rate limits on a query (``emulator/engine_state/ratelimits.py``).

Rows, all called in turn, one call each, so that the machine's load weighs on all alike:

* ``get_whoami, limits off``: the facade's ``get_whoami`` of an emulator with the default
  settings (the floor);
* ``get_whoami, limits on``: the same on an emulator with ``rate_limits="enterprise"``
  (the plan bucket counted; its clock moves a second between calls, untimed, so the
  bucket never runs dry);
* ``the off check``: what limits off add to a request, the one test
  ``world.settings.rate_limits is not None`` (with the call of the lambda around it, so
  an upper bound);
* ``an empty call``: ``lambda: None``, what the call around the check costs by itself.

Run alone: ``python bench/ratelimits.py [--quick]``; it prints each row's median and its
ratio to the floor.
"""

from __future__ import annotations

import sys
import time

from measuring import in_turn, median

from emulator import Emulator
from emulator.engine_state.world import Settings

FULL, QUICK = (20_000, 2_000), (2_000, 200)


def run(quick: bool) -> list[tuple[str, float, float]]:
    reps, warmup = QUICK if quick else FULL
    off = Emulator(seed=1)
    off.create_organization("off")
    on = Emulator(seed=1, settings=Settings(rate_limits="enterprise"))
    on.create_organization("on")
    on.clock.freeze()
    settings = off.world.settings
    samples = in_turn(
        [
            off.get_whoami,
            on.get_whoami,
            lambda: settings.rate_limits is not None,
            lambda: None,
            lambda: on.clock.advance(1.0),  # untimed in the rows: the bucket's refill
        ],
        reps,
        warmup,
    )
    floor = median(samples[0])
    names = ["get_whoami, limits off", "get_whoami, limits on", "the off check", "an empty call"]
    return [(name, median(s), median(s) / floor) for name, s in zip(names, samples, strict=False)]


if __name__ == "__main__":
    started = time.perf_counter()
    for name, us, ratio in run("--quick" in sys.argv):
        print(f"{name}: {us:.2f} µs, {ratio:.4f}x get_whoami with limits off")
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
