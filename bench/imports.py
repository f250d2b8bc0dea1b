"""The import cost of the package: ``python -c "import emulator"`` against ``python -c pass``.

Each row is the wall time of a fresh interpreter (``subprocess.run``), the rows taken in
turn so that the machine's load weighs on all alike; the floor is ``python -c pass`` in
the same interpreter and environment, site and the editable install's finder included.
Bytecode caches are allowed (``PYTHONDONTWRITEBYTECODE`` is dropped, one warm-up run
writes them), as on a user's machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from measuring import Goal, Result, floor_row, in_turn

FLOOR = "python -c pass"
CODES = {
    FLOOR: "pass",
    "import emulator": "import emulator",
    "from emulator import Emulator": "from emulator import Emulator",
    "... + Emulator().create_organization()": (
        "from emulator import Emulator; Emulator().create_organization()"
    ),
    "... + a first sign_raw_payload": (
        "from emulator import Emulator; from emulator.accounts import account_spec;"
        " e = Emulator(); e.create_organization();"
        " a = e.create_wallet(wallet_name='w', accounts=[account_spec('ADDRESS_FORMAT_ETHEREUM')]);"
        " e.sign_raw_payload(sign_with=a['addresses'][0], payload='00' * 32,"
        " encoding='PAYLOAD_ENCODING_HEXADECIMAL', hash_function='HASH_FUNCTION_NO_OP')"
    ),
}
GOALS = {"import emulator": Goal(4, "x", inclusive=True, against=FLOOR)}


def _interpreter(code: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def run(quick: bool, progress) -> list[Result]:
    progress("import time (fresh interpreters)")
    reps = 2 if quick else 30
    calls = [lambda code=code: _interpreter(code) for code in CODES.values()]
    samples = in_turn(calls, reps, warmup=1)
    by_name = dict(zip(CODES, samples, strict=True))
    floor_samples = by_name.pop(FLOOR)
    half = len(floor_samples) // 2
    floor = floor_row(f"{FLOOR} (floor)", FLOOR, floor_samples[:half], floor_samples[half:])
    rows = [floor]
    for name, got in by_name.items():
        rows.append(
            Result(f"{name} (wall)", got, GOALS.get(name), floor=floor.floor, floor_name=FLOOR)
        )
    return rows


if __name__ == "__main__":
    started = time.perf_counter()
    for row in run("--quick" in sys.argv, lambda what: print(what, file=sys.stderr)):
        print(f"{row.name}: {row.median / 1000:.1f} ms, {row.ratio:.2f}x {row.status}")
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
