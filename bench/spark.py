"""The cost of a Spark FROST partial signature against one ``sign_raw_payload``.

The floor is ``sign_raw_payload`` of one 32-byte digest (ECDSA, secp256k1) through the
facade; the rows, called in turn with it so the machine's load weighs on all alike:

* ``spark_sign_frost`` of one message with two operators' commitments (nonces, the binding
  factors over three commitments, the group commitment, the Taproot tweak, the share);
* ``spark_sign_frost`` of a batch of six (a transfer's refunds), per call;
* ``sign_raw_payload`` with a Spark address (plain BIP-340 Schnorr).

``python bench/spark.py [--quick]`` prints medians and ratios to the floor with the load.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from measuring import Result, in_turn, median

from emulator import Emulator
from emulator.crypto.spark import points
from emulator.testing.spark import SimulatedOperators

FLOOR = "sign_raw_payload"
ABANDON = "abandon " * 11 + "about"


class Setting:
    def __init__(self) -> None:
        self.emu = Emulator()
        self.emu.create_organization()
        spark = {
            "curve": "CURVE_SECP256K1",
            "pathFormat": "PATH_FORMAT_BIP32",
            "path": "m/8797555'/0'/0'",
            "addressFormat": "ADDRESS_FORMAT_SPARK_REGTEST",
        }
        eth = {**spark, "path": "m/44'/60'/0'/0/0", "addressFormat": "ADDRESS_FORMAT_ETHEREUM"}
        self.spark, self.eth = self.emu.backdoor.import_wallet(ABANDON, accounts=[spark, eth])[
            "addresses"
        ]
        ops = SimulatedOperators()
        ops_public, _ = ops.key_shares("bench")
        self.request = {
            "derivation": {"signingLeaf": {"leafId": "leaf-bench"}},
            "message": "5a" * 32,
            "verifyingKey": points.add(points.base_mul(7), ops_public).hex(),
            "operatorCommitments": ops.commitments(ops.nonces([1, 2])),
        }

    def raw(self, sign_with: str) -> Callable[[], object]:
        return lambda: self.emu.sign_raw_payload(
            sign_with=sign_with,
            payload="5a" * 32,
            encoding="PAYLOAD_ENCODING_HEXADECIMAL",
            hash_function="HASH_FUNCTION_NO_OP",
        )

    def frost(self, count: int) -> Callable[[], object]:
        return lambda: self.emu.spark_sign_frost(
            sign_with=self.spark, signatures=[self.request] * count
        )


def run(quick: bool, progress: Callable[[str], None]) -> list[Result]:
    calls, warmup = (30, 5) if quick else (500, 50)
    progress("spark: sign_raw_payload (floor), spark_sign_frost x1 and x6, Spark Schnorr")
    setting = Setting()
    rows = [
        ("spark_sign_frost, 1 message", setting.frost(1)),
        ("spark_sign_frost, batch of 6 (per call)", setting.frost(6)),
        ("sign_raw_payload with a Spark address (BIP-340)", setting.raw(setting.spark)),
    ]
    samples = in_turn([setting.raw(setting.eth)] + [c for _, c in rows], calls, warmup)
    floor = median(samples[0])
    results = [Result("sign_raw_payload, ECDSA (floor)", samples[0], floor=floor, floor_name=FLOOR)]
    for (label, _), timed in zip(rows, samples[1:], strict=True):
        results.append(Result(label, timed, floor=floor, floor_name=FLOOR))
    return results


if __name__ == "__main__":
    quick = "--quick" in sys.argv[1:]
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    floor = None
    for result in run(quick, lambda line: print(line, file=sys.stderr)):
        m = median(result.samples)
        floor = floor or m
        print(f"{result.name:55s} median {m:9.1f} µs  x{m / floor:5.2f} of the floor")
    print(f"load average {' '.join(load)} on {os.cpu_count()} cores")
