"""The cost of Verifiable Cloud's crypto activities against one sign_raw_payload (issue 27).

``python bench/tvc.py [--quick] [--json]``, a few seconds.

The floor is one facade ``sign_raw_payload`` (secp256k1, HEXADECIMAL, NO_OP, an Ethereum
wallet account, the root user). The rows, called in turn with it:

* ``create_tvc_quorum_key, 5 shares, threshold 3``: a fresh 32-byte master seed, its QOS
  key set (two HKDF-SHA512 derivations, two P-256 points), a Shamir split into 5 shares
  and each share sealed to one of 5 wallet-held operators (an ECDH, HMAC-SHA512 and
  AES-256-GCM each);
* ``create_tvc_manifest_approvals, 1 approval``: a manifest set member's P-256 signature
  over a fresh deployment's manifest digest, checked (the deployments and signatures are
  made before the timing).

Each row is a ratio to the floor of the same run; print ``cat /proc/loadavg`` beside it.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from measuring import Result, in_turn, median, script_main

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.crypto import qos_keys

FLOOR = "sign_raw_payload"
HEALTH = "TVC_HEALTH_CHECK_TYPE_HTTP"
DIGEST = "cbe01169428f144086bfaef348bbf3db70f9217628996cafd2ecb85d5f2b47a1"


@dataclass(frozen=True)
class Reps:
    calls: int
    warmup: int


FULL = Reps(calls=300, warmup=20)
QUICK = Reps(calls=10, warmup=2)


class Setting:
    def __init__(self, reps: Reps) -> None:
        self.emu = emu = Emulator()
        emu.create_organization("Acme")
        emu.clock.freeze()
        wallet = emu.create_wallet(
            wallet_name="hot", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
        )
        self.address = wallet["addresses"][0]
        self.operators = [
            emu.create_tvc_operator(wallet_name=f"op{i}", path="m/0'", operator_name=f"op{i}")
            for i in range(5)
        ]
        self.reviewer = qos_keys.KeySet.from_master_seed(os.urandom(32))
        quorum = qos_keys.KeySet.from_master_seed(os.urandom(32))
        app = emu.create_tvc_app(
            name="bench",
            quorum_public_key=quorum.public.hex(),
            manifest_set_params={
                "name": "reviewers",
                "threshold": 1,
                "newOperators": [{"name": "reviewer", "publicKey": self.reviewer.public.hex()}],
            },
            share_set_params={
                "name": "custodians",
                "threshold": 3,
                "existingOperatorIds": [o["operatorId"] for o in self.operators],
            },
        )
        self.reviewer_id = app["manifestSetOperatorIds"][0]
        self.pending: list[tuple[str, str]] = []
        org = next(iter(emu.world.store.organizations.values()))
        for nonce in range(reps.calls + reps.warmup):
            made = emu.create_tvc_deployment(
                app_id=app["appId"],
                qos_version="v2026.2.6",
                pivot_container_image_url="ghcr.io/acme/app:v1",
                pivot_path="/app",
                pivot_args=[],
                expected_pivot_digest=DIGEST,
                health_check_type=HEALTH,
                health_check_port=3000,
                public_ingress_port=3000,
                nonce=nonce,
            )
            digest = bytes.fromhex(org.tvc_deployments[made["deploymentId"]].manifest_digest)
            self.pending.append((made["manifestId"], self.reviewer.sign(digest).hex()))
        self.n = 0

    def sign(self) -> None:
        self.n += 1
        done = self.emu.sign_raw_payload(
            sign_with=self.address,
            payload=hashlib.sha256(self.n.to_bytes(8, "big")).hexdigest(),
            encoding="PAYLOAD_ENCODING_HEXADECIMAL",
            hash_function="HASH_FUNCTION_NO_OP",
        )
        _completed(done)

    def quorum_key(self) -> None:
        _completed(
            self.emu.create_tvc_quorum_key(
                threshold=3, operator_encrypt_keys=[o["encryptPublicKey"] for o in self.operators]
            )
        )

    def approval(self) -> None:
        manifest_id, signature = self.pending.pop()
        _completed(
            self.emu.create_tvc_manifest_approvals(
                manifest_id=manifest_id,
                approvals=[{"operatorId": self.reviewer_id, "signature": signature}],
            )
        )


def _completed(done: dict) -> None:
    if done["activity"]["status"] != "ACTIVITY_STATUS_COMPLETED":
        raise SystemExit("a timed activity did not complete")


def run(quick: bool) -> list[Result]:
    reps = QUICK if quick else FULL
    setting = Setting(reps)
    samples = in_turn([setting.sign, setting.quorum_key, setting.approval], reps.calls, reps.warmup)
    floor = median(samples[0])
    return [
        Result("sign_raw_payload (floor)", samples[0], floor=floor, floor_name=FLOOR),
        Result(
            "create_tvc_quorum_key, 5 shares, threshold 3",
            samples[1],
            floor=floor,
            floor_name=FLOOR,
        ),
        Result(
            "create_tvc_manifest_approvals, 1 approval", samples[2], floor=floor, floor_name=FLOOR
        ),
    ]


if __name__ == "__main__":
    script_main("tvc", __doc__, run)
