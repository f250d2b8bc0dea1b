"""The cost of policy evaluation: sign_raw_payload under 1, 10 and 100 policies.

The floor is the same call (facade sign_raw_payload, secp256k1, HEXADECIMAL,
NO_OP, an Ethereum wallet account) by a root user with no policies: the root
quorum bypasses the engine, so it is the activity with no evaluation at all.
Each row is the call by a non-root user whom one policy allows (condition
``activity.action == 'SIGN' && wallet.id == <the wallet>``, consensus
``approvers.any(user, user.id == <the user>)``), among N policies in all:

* ``pinned``: the others are the same kind of signing policy for other
  wallets (the common shape: one policy per wallet or key);
* ``other activities``: the others are about creating policies;
* ``labelled``: the others are signing policies for other wallet labels
  (``wallet.label == ...``), which the engine places by label since issue 13
  (they were each evaluated before);
* ``evaluated``: the others are signing policies the engine cannot place
  without evaluating them, each about another hash function
  (``activity.action == 'SIGN' && activity.params.hash_function == '…'``, false
  for the NO_OP signatures made here), so every one is evaluated; the worst case.

The goal, from the issue: 100 policies add less than half the cost of one
sign_raw_payload, that is a ratio below 1.5 to the floor. All rows and the
floor are called in turn, one call each, so the machine's load weighs on all
alike.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from measuring import Goal, Result, in_turn, median

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.crypto.api_keys import ApiKeyPair, key_pair_from_entropy

GOAL = Goal(1.5, "x", against="root sign")
FLOOR = "root sign"
SIZES = (1, 10, 100)
SHAPES = ("pinned", "other activities", "labelled", "evaluated")


@dataclass(frozen=True)
class Reps:
    calls: int
    warmup: int


FULL = Reps(calls=2000, warmup=200)
QUICK = Reps(calls=30, warmup=5)


def _other_policy(shape: str, i: int) -> dict:
    other = str(uuid.UUID(bytes=hashlib.sha256(f"{shape}{i}".encode()).digest()[:16], version=4))
    conditions = {
        "pinned": f"activity.action == 'SIGN' && wallet.id == '{other}'",
        "other activities": "activity.resource == 'POLICY' && activity.action == 'CREATE'",
        "labelled": f"activity.action == 'SIGN' && wallet.label == 'wallet {i}'",
        "evaluated": (
            f"activity.action == 'SIGN' && activity.params.hash_function == 'HASH_FUNCTION_{i}'"
        ),
    }
    return {
        "policyName": f"{shape} {i}",
        "effect": "EFFECT_ALLOW",
        "notes": "",
        "condition": conditions[shape],
        "consensus": f"approvers.any(user, user.id == '{other}')",
    }


class Setting:
    """One emulator: a wallet, a non-root signer and ``n`` policies of one shape."""

    def __init__(self, n: int, shape: str) -> None:
        self.emu = emu = Emulator()
        emu.create_organization("Acme")
        self.key: ApiKeyPair = key_pair_from_entropy(hashlib.sha256(b"alice").digest())
        (user_id,) = emu.create_users(
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
                    "authenticators": [],
                    "oauthProviders": [],
                    "userTags": [],
                }
            ]
        )["userIds"]
        wallet = emu.create_wallet(
            wallet_name="hot", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
        )
        self.address = wallet["addresses"][0]
        allow = {
            "policyName": "alice signs with the hot wallet",
            "effect": "EFFECT_ALLOW",
            "notes": "",
            "condition": f"activity.action == 'SIGN' && wallet.id == '{wallet['walletId']}'",
            "consensus": f"approvers.any(user, user.id == '{user_id}')",
        }
        policies = [allow] + [_other_policy(shape, i) for i in range(n - 1)]
        if n:
            emu.create_policies(policies=policies)
        self.n = 0

    def sign(self, caller: ApiKeyPair | None) -> None:
        self.n += 1
        self.emu.sign_raw_payload(
            sign_with=self.address,
            payload=hashlib.sha256(self.n.to_bytes(8, "big")).hexdigest(),
            encoding="PAYLOAD_ENCODING_HEXADECIMAL",
            hash_function="HASH_FUNCTION_NO_OP",
            caller=caller,
        )


def run(quick: bool, progress: Callable[[str], None]) -> list[Result]:
    reps = QUICK if quick else FULL
    progress("sign_raw_payload under 1, 10 and 100 policies, and by the root user (floor)")
    root = Setting(0, "pinned")
    rows = [("1 policy", Setting(1, "pinned"))] + [
        (f"{n} policies, {shape}", Setting(n, shape)) for shape in SHAPES for n in SIZES[1:]
    ]
    calls = [lambda: root.sign(None)] + [(lambda s=setting: s.sign(s.key)) for _, setting in rows]
    samples = in_turn(calls, reps.calls, reps.warmup)
    floor = median(samples[0])
    results = [
        Result(
            "root sign_raw_payload, no policies (floor)", samples[0], floor=floor, floor_name=FLOOR
        )
    ]
    for (label, _), timed in zip(rows, samples[1:], strict=True):
        goal = GOAL if label.startswith("100 ") else None
        results.append(
            Result(
                f"non-root sign_raw_payload, {label}", timed, goal, floor=floor, floor_name=FLOOR
            )
        )
    return results
