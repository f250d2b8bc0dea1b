"""The Spark SDK (``@buildonspark/spark-sdk`` from npm, its WASM) checks the emulator's
Spark outputs: it aggregates Turnkey's FROST share with the simulated operators' (verifying
every share and the signature), computes Turnkey's share itself from the same nonces
(byte-equal), decodes the operator packages with its protobuf types after opening them with
its ECIES and with eciesjs, validates each Feldman share and recovers the secrets, and
encodes and decodes the addresses. Skipped when node or the registry is missing.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import coincurve
import pytest

from emulator import Emulator
from emulator.crypto.addresses import spark as spark_address
from emulator.crypto.spark import frost, points
from emulator.testing.bip340 import bip86_output_key
from emulator.testing.bip340 import verify as bip340_verify
from emulator.testing.spark import SimulatedOperators
from tests.typescript import npm_ci_or_skip

HERE = Path(__file__).resolve().parent / "spark_interop"
ABANDON = "abandon " * 11 + "about"
TRANSFER_ID = "7d0c2a8e-1b2c-4d3e-8f40-5a6b7c8d9e0f"


@pytest.fixture(scope="module")
def sdk():
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.skip("node and npm are needed for the Spark SDK")
    npm_ci_or_skip(npm, HERE, HERE / "node_modules" / "@buildonspark" / "spark-sdk")

    def run(check: str, inputs: list[dict]) -> list[dict]:
        done = subprocess.run(
            [node, str(HERE / "spark.mjs"), check],
            input=json.dumps(inputs),
            capture_output=True,
            text=True,
            timeout=120,
            cwd=HERE,
            check=False,
        )
        out = json.loads(done.stdout or "{}")
        assert isinstance(out, list), (out, done.stderr[-500:])
        return out

    return run


@pytest.fixture
def emu_alice():
    emu = Emulator()
    emu.create_organization()
    account = {
        "curve": "CURVE_SECP256K1",
        "pathFormat": "PATH_FORMAT_BIP32",
        "path": "m/8797555'/0'/0'",
        "addressFormat": "ADDRESS_FORMAT_SPARK_MAINNET",
    }
    (alice,) = emu.backdoor.import_wallet(ABANDON, accounts=[account])["addresses"]
    return emu, alice


def _commitment(c: frost.Commitment) -> dict:
    return {"hiding": c.hiding.hex(), "binding": c.binding.hex()}


@pytest.mark.parametrize("adaptor", [None, 0x5EC12E7])
def test_the_spark_sdk_aggregates_turnkeys_share_into_a_valid_signature(sdk, emu_alice, adaptor):
    emu, alice = emu_alice
    _, user_public = spark_address.decode(alice)
    ops = SimulatedOperators(count=3, threshold=2, seed=4)
    ops_public, key_shares = ops.key_shares("interop")
    verifying_key = points.add(user_public, ops_public)
    message = hashlib.sha256(b"refund tx sighash").digest()
    nonces = ops.nonces([1, 3])
    request = {
        "derivation": {"identity": {}},
        "message": message.hex(),
        "verifyingKey": verifying_key.hex(),
        "operatorCommitments": ops.commitments(nonces),
    }
    adaptor_point = points.base_mul(adaptor) if adaptor else None
    if adaptor_point:
        request["adaptorPublicKey"] = adaptor_point.hex()
    (result,) = emu.spark_sign_frost(sign_with=alice, signatures=[request])["signatures"]
    session = ops.session(message, verifying_key, nonces, result, adaptor_point)
    operator_shares = ops.sign(session, nonces, key_shares)
    # the operators' verifying shares: their Shamir shares times G, weighted by the SDK itself
    hexid = {i: points.to_bytes(i).hex() for i in nonces}
    (out,) = sdk(
        "aggregate",
        [
            {
                "message": message.hex(),
                "operatorCommitments": {
                    hexid[c]: {"hiding": x["hiding"], "binding": x["binding"]}
                    for c, x in zip(nonces, ops.commitments(nonces), strict=True)
                },
                "selfCommitment": {"hiding": result["hiding"], "binding": result["binding"]},
                "operatorShares": {
                    hexid[i]: points.to_bytes(z).hex() for i, z in operator_shares.items()
                },
                "selfShare": result["signatureShare"],
                "operatorPublicKeys": {
                    hexid[i]: points.base_mul(key_shares[i]).hex() for i in nonces
                },
                "selfPublicKey": user_public.hex(),
                "verifyingKey": verifying_key.hex(),
                "adaptorPublicKey": adaptor_point.hex() if adaptor_point else None,
            }
        ],
    )
    signature = bytes.fromhex(out["signature"])
    assert signature == frost.aggregate(
        session, [int(result["signatureShare"], 16), *operator_shares.values()]
    )
    if adaptor:
        signature = frost.complete_adaptor(session, signature, adaptor)
    assert bip340_verify(bip86_output_key(verifying_key[1:]), message, signature)


def test_the_sdks_own_signer_computes_the_same_share_from_the_same_nonces(sdk):
    """The protocol, not only the aggregate: the SDK's ``signFrost`` as the user gives
    exactly the share ``frost.user_share`` gives (the emulator's nonces are internal, so
    this one uses chosen nonces)."""
    secret, d, e = 0x1111 * 977, 0x2222 * 983, 0x3333 * 991
    ops = SimulatedOperators(seed=6)
    ops_public, _ = ops.key_shares("same")
    user_public = points.base_mul(secret)
    vk = points.add(user_public, ops_public)
    message = bytes(range(32))
    nonces = ops.nonces([1, 2])
    own = frost.Commitment(points.base_mul(d), points.base_mul(e))
    session = ops.session(message, vk, nonces, _commitment(own))
    (out,) = sdk(
        "sign",
        [
            {
                "message": message.hex(),
                "secretKey": points.to_bytes(secret).hex(),
                "publicKey": user_public.hex(),
                "verifyingKey": vk.hex(),
                "nonce": {"hiding": points.to_bytes(d).hex(), "binding": points.to_bytes(e).hex()},
                "selfCommitment": _commitment(own),
                "operatorCommitments": {
                    c["id"]: {"hiding": c["hiding"], "binding": c["binding"]}
                    for c in ops.commitments(nonces)
                },
            }
        ],
    )
    assert out["share"] == points.to_bytes(frost.user_share(session, d, e, secret)).hex()


def test_the_sdk_opens_validates_and_recovers_the_transfer_packages(sdk, emu_alice):
    emu, alice = emu_alice
    ops = SimulatedOperators(count=3, threshold=2, seed=5)
    bob = coincurve.PrivateKey(b"\x07" * 32)
    transfer = {
        "transferId": TRANSFER_ID,
        "threshold": 2,
        "operatorRecipients": ops.recipients(),
        "receiverPublicKey": bob.public_key.format().hex(),
        "leaves": [
            {
                "leafId": "leaf-1",
                "oldLeafDerivation": {"signingLeaf": {"leafId": "leaf-1"}},
                "newLeafDerivation": {"signingLeaf": {"leafId": "leaf-2"}},
                "directRefundSignature": "bb" * 64,
            }
        ],
    }
    result = emu.spark_prepare_transfer(sign_with=alice, transfer=transfer)
    decoded = []
    for i, package in enumerate(result["operatorPackages"]):
        key = points.to_bytes(ops.encryption_keys[i]).hex()
        (by_sdk,) = sdk(
            "decryptSdk", [{"ciphertext": package["encryptedPackage"], "privateKey": key}]
        )
        (by_eciesjs,) = sdk(
            "decryptEciesjs", [{"ciphertext": package["encryptedPackage"], "privateKey": key}]
        )
        assert by_sdk == by_eciesjs
        (message,) = sdk("decodeSend", [{"proto": by_sdk["plaintext"]}])
        (leaf,) = message["leaves"]
        assert leaf["leafId"] == "leaf-1" and leaf["directRefundSignature"] == "bb" * 64
        assert set(leaf["pubkeySharesTweak"]) == set(ops.operator_ids)
        share = leaf["secretShareTweak"]
        (check,) = sdk(
            "validateShare",
            [
                {
                    "share": share["secretShare"],
                    "index": i + 1,
                    "threshold": 2,
                    "proofs": share["proofs"],
                }
            ],
        )
        assert check == {"valid": True}
        decoded.append(leaf)
    # a share moved to another index does not validate
    (check,) = sdk(
        "validateShare",
        [
            {
                "share": decoded[0]["secretShareTweak"]["secretShare"],
                "index": 2,
                "threshold": 2,
                "proofs": decoded[0]["secretShareTweak"]["proofs"],
            }
        ],
    )
    assert check["valid"] is False
    (recovered,) = sdk(
        "recover",
        [
            {
                "shares": [
                    {
                        "threshold": 2,
                        "index": i + 1,
                        "share": decoded[i]["secretShareTweak"]["secretShare"],
                    }
                    for i in (0, 2)
                ]
            }
        ],
    )
    assert (
        points.base_mul(int(recovered["secret"], 16)).hex()
        == decoded[0]["secretShareTweak"]["proofs"][0]
    )
    # the receiver opens the new leaf key with the SDK's ECIES
    (leaf_key,) = sdk(
        "decryptSdk", [{"ciphertext": decoded[0]["secretCipher"], "privateKey": bob.secret.hex()}]
    )
    assert (
        points.base_mul(int(leaf_key["plaintext"], 16)).hex()
        == result["newLeafPublicKeys"][0]["publicKey"]
    )


def test_the_sdk_recovers_the_lightning_preimage(sdk, emu_alice):
    emu, alice = emu_alice
    ops = SimulatedOperators(count=3, threshold=2, seed=8)
    result = emu.spark_prepare_lightning_receive(
        sign_with=alice, lightning_receive={"threshold": 2, "operatorRecipients": ops.recipients()}
    )
    shares = []
    for i, package in enumerate(result["operatorPackages"][:2]):
        key = points.to_bytes(ops.encryption_keys[i]).hex()
        (opened,) = sdk(
            "decryptSdk", [{"ciphertext": package["encryptedPackage"], "privateKey": key}]
        )
        (share,) = sdk("decodeShare", [{"proto": opened["plaintext"]}])
        shares.append({"threshold": 2, "index": i + 1, "share": share["secretShare"]})
    (recovered,) = sdk("recover", [{"shares": shares}])
    preimage = bytes.fromhex(recovered["secret"]).rjust(32, b"\0")
    assert hashlib.sha256(preimage).hexdigest() == result["paymentHash"]


def test_the_sdk_reads_the_emulators_spark_addresses(sdk, emu_alice):
    _, alice = emu_alice
    _, key = spark_address.decode(alice)
    (decoded,) = sdk("decodeAddress", [{"address": alice, "network": "MAINNET"}])
    assert decoded == {"identityPublicKey": key.hex(), "network": "MAINNET"}
    (encoded,) = sdk("encodeAddress", [{"identityPublicKey": key.hex(), "network": "REGTEST"}])
    assert encoded["address"] == spark_address.encode(key, "sparkrt")
