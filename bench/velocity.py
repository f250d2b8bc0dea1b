"""The cost a velocity control adds to a sign_raw_payload (issue 15).

``python bench/velocity.py [--quick] [--json]``, a few seconds.

The floor is the same call (facade sign_raw_payload, secp256k1, HEXADECIMAL, NO_OP, an
Ethereum wallet account) by a non-root user whom one policy allows
(``activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'``), with no velocity control. Each
row is that call with the policy reading ``&& controls.limit``, a control counting raw
payloads with a threshold no run reaches:

* ``rolling window, organization``: one bucket, a one-hour window that holds every point
  the run makes (the clock is frozen), so the bucket grows to the run's length;
* ``rolling window, per wallet``: the same grouped by wallet;
* ``infinite window``: a running total only;
* ``10 controls, 1 read``: nine more controls in the organization that measure the call too
  (each records a point), and the policy reads one.

All rows and the floor are called in turn, one call each, so the machine's load weighs on
all alike; each row is a ratio to the floor of the same run.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from measuring import Result, in_turn, median, script_main

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.crypto.api_keys import ApiKeyPair, key_pair_from_entropy

RAW_V2 = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
FLOOR = "no control"


@dataclass(frozen=True)
class Reps:
    calls: int
    warmup: int


FULL = Reps(calls=1500, warmup=100)
QUICK = Reps(calls=50, warmup=5)


def _control(identifier: str, window: dict, group: str) -> dict:
    return {
        "name": identifier,
        "identifier": identifier,
        "dataSource": {
            "activityExecution": {
                "filter": {"activity": [{"activityType": "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD"}]}
            }
        },
        "aggregation": {
            "method": "VELOCITY_CONTROL_AGGREGATION_METHOD_COUNT",
            "operator": "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN_OR_EQUAL",
            "threshold": "1000000000",
            "window": window,
            "groupBy": {group: {}},
        },
    }


HOUR = {"rolling": {"duration": "3600"}}
SHAPES: dict[str, list[dict]] = {
    "rolling window, organization": [_control("limit", HOUR, "organization")],
    "rolling window, per wallet": [_control("limit", HOUR, "wallet")],
    "infinite window": [_control("limit", {"infinite": {}}, "organization")],
    "10 controls, 1 read": [_control("limit", HOUR, "organization")]
    + [_control(f"other_{i}", HOUR, "user") for i in range(9)],
}


class Setting:
    """One emulator: a wallet, a non-root signer, one policy, and ``controls``."""

    def __init__(self, controls: list[dict]) -> None:
        self.emu = emu = Emulator()
        emu.create_organization("Acme")
        emu.clock.freeze()
        self.key: ApiKeyPair = key_pair_from_entropy(hashlib.sha256(b"alice").digest())
        emu.create_users(
            users=[
                {
                    "userName": "alice",
                    "apiKeys": [
                        {
                            "apiKeyName": "alice",
                            "publicKey": self.key.public_key,
                            "curveType": self.key.curve,
                        }
                    ],
                }
            ]
        )
        wallet = emu.create_wallet(
            wallet_name="hot", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
        )
        self.address = wallet["addresses"][0]
        for control in controls:
            emu.call("create_velocity_control", control)
        condition = f"activity.type == '{RAW_V2}'" + (" && controls.limit" if controls else "")
        emu.create_policy(policy_name="alice", effect="EFFECT_ALLOW", notes="", condition=condition)
        self.n = 0

    def sign(self) -> None:
        self.n += 1
        done = self.emu.sign_raw_payload(
            sign_with=self.address,
            payload=hashlib.sha256(self.n.to_bytes(8, "big")).hexdigest(),
            encoding="PAYLOAD_ENCODING_HEXADECIMAL",
            hash_function="HASH_FUNCTION_NO_OP",
            caller=self.key,
        )
        if done["activity"]["status"] != "ACTIVITY_STATUS_COMPLETED":
            raise SystemExit("a timed signature did not complete")


def run(quick: bool) -> list[Result]:
    reps = QUICK if quick else FULL
    floor_setting = Setting([])
    rows = [(label, Setting(controls)) for label, controls in SHAPES.items()]
    calls = [floor_setting.sign] + [setting.sign for _, setting in rows]
    samples = in_turn(calls, reps.calls, reps.warmup)
    floor = median(samples[0])
    results = [
        Result("sign_raw_payload, no control (floor)", samples[0], floor=floor, floor_name=FLOOR)
    ]
    for (label, setting), timed in zip(rows, samples[1:], strict=True):
        org = next(iter(setting.emu.world.store.organizations.values()))
        points = len(org.velocity_points)
        if points == 0 and "infinite" not in label:
            raise SystemExit(f"{label}: no point was recorded")
        results.append(Result(f"sign_raw_payload, {label}", timed, floor=floor, floor_name=FLOOR))
    return results


if __name__ == "__main__":
    script_main("velocity", __doc__, run)
