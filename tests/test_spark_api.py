"""Spark activities through the doors users have: the official Python SDK (in process and
over a socket), the documented policy examples (``tkhq/docs`` ``examples/spark.mdx``) judging
a non-root user's requests, consensus votes, and the webhook event of a completed activity.
"""

from __future__ import annotations

import pytest

from emulator.crypto.spark import points
from emulator.ground.errors import TurnkeyApiError
from emulator.testing.spark import SimulatedOperators

from .helpers import add_user

ABANDON = "abandon " * 11 + "about"
ACCOUNT = {
    "curve": "CURVE_SECP256K1",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/8797555'/0'/0'",
    "addressFormat": "ADDRESS_FORMAT_SPARK_REGTEST",
}


def spark_wallet(emu) -> str:
    return emu.create_wallet(wallet_name="spark", accounts=[ACCOUNT])["addresses"][0]


def test_the_official_sdk_signs_frost_and_prepares_a_lightning_receive(sdk, turnkey_emulator):
    from turnkey_sdk_types import (
        SparkPrepareLightningReceiveBody,
        SparkSignFrostBody,
        v1SparkLightningReceivePackage,
    )

    address = spark_wallet(turnkey_emulator)
    ops = SimulatedOperators()
    ops_public, _ = ops.key_shares("sdk")
    request = {
        "derivation": {"signingLeaf": {"leafId": "leaf-sdk"}},
        "message": "ab" * 32,
        "verifyingKey": points.add(points.base_mul(5), ops_public).hex(),
        "operatorCommitments": ops.commitments(ops.nonces([1, 2])),
    }
    signed = sdk.spark_sign_frost(SparkSignFrostBody(signWith=address, signatures=[request]))
    assert signed.activity.status == "ACTIVITY_STATUS_COMPLETED"
    (share,) = signed.signatures
    assert len(share.signatureShare) == 64 and len(share.hiding) == len(share.binding) == 66
    receive = sdk.spark_prepare_lightning_receive(
        SparkPrepareLightningReceiveBody(
            signWith=address,
            lightningReceive=v1SparkLightningReceivePackage(
                threshold=2, operatorRecipients=ops.recipients()
            ),
        )
    )
    assert len(receive.paymentHash) == 64 and len(receive.operatorPackages) == 3


def allow(emu, condition: str, user_id: str) -> None:
    emu.create_policy(
        policy_name="spark",
        effect="EFFECT_ALLOW",
        notes="",
        condition=condition,
        consensus=f"approvers.any(user, user.id == '{user_id}')",
    )


def test_the_documented_policy_lets_a_user_receive_only_with_the_named_operators(
    turnkey_emulator, turnkey_org
):
    emu = turnkey_emulator
    address = spark_wallet(emu)
    user_id, key = add_user(emu, "spark-user")
    ops = SimulatedOperators(count=2, threshold=2)
    (op1, op2) = ops.recipients()
    allow(
        emu,
        "activity.type == 'ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE'"
        f" && activity.params.sign_with == '{address}'"
        " && activity.params.lightning_receive.threshold == 2"
        " && activity.params.lightning_receive.operator_recipients.all(r,"
        f" (r.operator_id == '{op1['operatorId']}' && r.encryption_public_key == '{op1['encryptionPublicKey']}')"
        f" || (r.operator_id == '{op2['operatorId']}' && r.encryption_public_key == '{op2['encryptionPublicKey']}'))",
        user_id,
    )
    allowed = {"threshold": 2, "operatorRecipients": [op1, op2]}
    done = emu.spark_prepare_lightning_receive(
        sign_with=address, lightning_receive=allowed, caller=key
    )
    assert len(done["paymentHash"]) == 64
    other = SimulatedOperators(count=2, threshold=2, seed=7).recipients()
    with pytest.raises(TurnkeyApiError) as raised:
        emu.spark_prepare_lightning_receive(
            sign_with=address,
            lightning_receive={"threshold": 2, "operatorRecipients": other},
            caller=key,
        )
    assert raised.value.status == 403


def test_a_frost_policy_on_the_derivation_and_leaf_ids(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    address = spark_wallet(emu)
    user_id, key = add_user(emu, "signer")
    allow(
        emu,
        "activity.type == 'ACTIVITY_TYPE_SPARK_SIGN_FROST'"
        f" && activity.params.sign_with == '{address}'"
        " && activity.params.signatures.all(sig, sig.derivation.type == 'signing_leaf'"
        " && sig.derivation.signing_leaf.leaf_id in ['leaf-1', 'leaf-2'])",
        user_id,
    )
    ops = SimulatedOperators()
    ops_public, _ = ops.key_shares("p")

    def request(derivation):
        return {
            "derivation": derivation,
            "message": "cd" * 32,
            "verifyingKey": points.add(points.base_mul(3), ops_public).hex(),
            "operatorCommitments": ops.commitments(ops.nonces([1, 2])),
        }

    ok = emu.spark_sign_frost(
        sign_with=address, signatures=[request({"signingLeaf": {"leafId": "leaf-1"}})], caller=key
    )
    assert len(ok["signatures"]) == 1
    for derivation in ({"signingLeaf": {"leafId": "leaf-9"}}, {"deposit": {}}):
        with pytest.raises(TurnkeyApiError) as raised:
            emu.spark_sign_frost(sign_with=address, signatures=[request(derivation)], caller=key)
        assert raised.value.status == 403


def test_a_spark_activity_waits_for_consensus_then_completes(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    address = spark_wallet(emu)
    alice_id, alice = add_user(emu, "alice")
    bob_id, bob = add_user(emu, "bob")
    emu.create_policy(
        policy_name="two approvers",
        effect="EFFECT_ALLOW",
        notes="",
        condition="activity.type == 'ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE'",
        consensus=f"approvers.any(u, u.id == '{alice_id}') && approvers.any(u, u.id == '{bob_id}')",
    )
    ops = SimulatedOperators()
    receive = {"threshold": 2, "operatorRecipients": ops.recipients()}
    first = emu.spark_prepare_lightning_receive(
        sign_with=address, lightning_receive=receive, caller=alice
    )["activity"]
    assert first["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED" and first["result"] == {}
    done = emu.approve_activity(fingerprint=first["fingerprint"], caller=bob)["activity"]
    assert done["status"] == "ACTIVITY_STATUS_COMPLETED"
    result = done["result"]["sparkPrepareLightningReceiveResult"]
    assert len(result["paymentHash"]) == 64 and len(result["operatorPackages"]) == 3


def test_the_typescript_client_runs_the_four_spark_activities():
    """``@turnkey/http`` 6.6.0's ``sparkSignFrost``, ``sparkPrepareTransfer``,
    ``sparkClaimTransfer`` and ``sparkPrepareLightningReceive`` against a served emulator;
    the FROST share aggregates into a BIP-340 signature (pure-Python verifier)."""
    import hashlib

    from emulator import Emulator
    from emulator.crypto.addresses import spark as spark_address
    from emulator.crypto.api_keys import generate_key_pair
    from emulator.crypto.spark import frost
    from emulator.testing.bip340 import bip86_output_key
    from emulator.testing.bip340 import verify as bip340_verify
    from emulator.testing.spark import read_proto
    from tests.typescript import client_calls, typescript_or_skip

    ts = typescript_or_skip()
    emu = Emulator(seed=41)
    root = generate_key_pair()
    org = emu.create_organization(api_public_key=root.public_key, api_private_key=root.private_key)
    (alice,) = emu.backdoor.import_wallet(ABANDON, accounts=[ACCOUNT])["addresses"]
    (bob,) = emu.backdoor.import_wallet(
        "legal winner thank year wave sausage worth useful legal winner thank yellow",
        name="bob",
        accounts=[ACCOUNT],
    )["addresses"]
    _, alice_identity = spark_address.decode(alice)
    _, bob_identity = spark_address.decode(bob)
    ops = SimulatedOperators()
    ops_public, key_shares = ops.key_shares("ts")
    verifying_key = points.add(alice_identity, ops_public)
    message = hashlib.sha256(b"ts sighash").digest()
    nonces = ops.nonces([1, 2])
    transfer_id = "3f1e2d3c-4b5a-4697-8a8b-9c0d1e2f3a4b"

    def activity(kind: str, parameters: dict) -> dict:
        return {
            "type": kind,
            "timestampMs": str(emu.clock.now_ms()),
            "organizationId": org.organization_id,
            "parameters": parameters,
        }

    signed, prepared, received = client_calls(
        ts,
        emu.world,
        root,
        [
            (
                "sparkSignFrost",
                activity(
                    "ACTIVITY_TYPE_SPARK_SIGN_FROST",
                    {
                        "signWith": alice,
                        "signatures": [
                            {
                                "derivation": {"identity": {}},
                                "message": message.hex(),
                                "verifyingKey": verifying_key.hex(),
                                "operatorCommitments": ops.commitments(nonces),
                            }
                        ],
                    },
                ),
            ),
            (
                "sparkPrepareTransfer",
                activity(
                    "ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER",
                    {
                        "signWith": alice,
                        "transfer": {
                            "transferId": transfer_id,
                            "threshold": 2,
                            "operatorRecipients": ops.recipients(),
                            "receiverPublicKey": bob_identity.hex(),
                            "leaves": [
                                {
                                    "leafId": "leaf-ts",
                                    "oldLeafDerivation": {"signingLeaf": {"leafId": "leaf-ts"}},
                                    "newLeafDerivation": {"signingLeaf": {"leafId": "leaf-bob"}},
                                }
                            ],
                        },
                    },
                ),
            ),
            (
                "sparkPrepareLightningReceive",
                activity(
                    "ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE",
                    {
                        "signWith": alice,
                        "lightningReceive": {
                            "threshold": 2,
                            "operatorRecipients": ops.recipients(),
                        },
                    },
                ),
            ),
        ],
    )
    (share,) = signed["activity"]["result"]["sparkSignFrostResult"]["signatures"]
    session = ops.session(message, verifying_key, nonces, share)
    z = [int(share["signatureShare"], 16), *ops.sign(session, nonces, key_shares).values()]
    assert bip340_verify(bip86_output_key(verifying_key[1:]), message, frost.aggregate(session, z))
    assert (
        len(received["activity"]["result"]["sparkPrepareLightningReceiveResult"]["paymentHash"])
        == 64
    )
    package = prepared["activity"]["result"]["sparkPrepareTransferResult"]["operatorPackages"][0]
    (leaf,) = [v for n, v in read_proto(ops.open(0, package["encryptedPackage"])) if n == 1]
    fields = dict((n, v) for n, v in read_proto(leaf) if n != 3)
    (claimed,) = client_calls(
        ts,
        emu.world,
        root,
        [
            (
                "sparkClaimTransfer",
                activity(
                    "ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER",
                    {
                        "signWith": bob,
                        "claim": {
                            "transferId": transfer_id,
                            "senderIdentityPublicKey": alice_identity.hex(),
                            "threshold": 2,
                            "operatorRecipients": ops.recipients(),
                            "leaves": [
                                {
                                    "leafId": "leaf-ts",
                                    "ciphertext": fields[4].hex(),
                                    "senderSignature": fields[5].hex(),
                                }
                            ],
                        },
                    },
                ),
            )
        ],
    )
    result = claimed["activity"]["result"]["sparkClaimTransferResult"]
    assert claimed["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert [k["leafId"] for k in result["newLeafPublicKeys"]] == ["leaf-ts"]
    assert len(result["operatorPackages"]) == 3


def test_the_dashboard_lists_a_waiting_spark_activity_and_a_vote_there_completes_it():
    import requests

    from emulator import Emulator
    from emulator.http.control import Control
    from emulator.http.server import serving

    emu = Emulator(seed=12)
    emu.create_organization()
    address = spark_wallet(emu)
    alice_id, alice = add_user(emu, "alice")
    bob_id, bob = add_user(emu, "bob")
    emu.backdoor.hold_key(bob)  # the dashboard stamps bob's vote with it
    emu.create_policy(
        policy_name="two for spark",
        effect="EFFECT_ALLOW",
        notes="",
        condition="activity.type == 'ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE'",
        consensus=f"approvers.any(u, u.id == '{alice_id}') && approvers.any(u, u.id == '{bob_id}')",
    )
    ops = SimulatedOperators()
    pending = emu.spark_prepare_lightning_receive(
        sign_with=address,
        lightning_receive={"threshold": 2, "operatorRecipients": ops.recipients()},
        caller=alice,
    )["activity"]
    with serving(emu.world, control=Control(emu)) as url:

        def view(name: str, params: dict) -> dict:
            answer = requests.post(f"{url}/emulator/ui/api/{name}", json=params, timeout=10)
            assert answer.status_code == 200, answer.text
            return answer.json()

        (row,) = view("activities", {"status": "ACTIVITY_STATUS_CONSENSUS_NEEDED"})["activities"]
        assert row["id"] == pending["id"] and row["proposer"] == "alice"
        detail = view("activity", {"activityId": pending["id"]})
        assert detail["activity"]["type"] == "ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE"
        intent = detail["activity"]["intent"]["sparkPrepareLightningReceiveIntent"]
        assert intent["signWith"] == address
        voted = view("vote", {"activityId": pending["id"], "userId": bob_id, "decision": "approve"})
        assert voted["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
        result = voted["activity"]["result"]["sparkPrepareLightningReceiveResult"]
        assert len(result["paymentHash"]) == 64
