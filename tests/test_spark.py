"""Spark: addresses against the Spark SDK's vectors, the documented key paths, FROST
partial signatures that aggregate with simulated operators into BIP-340 signatures (checked
with the pure-Python verifier, not libsecp256k1 which signs), adaptor signatures, Feldman
shares that check and recombine, ECIES that eciespy (not the emulator's code) opens,
sender signatures, and refusals that change nothing. The Spark SDK itself checks the same
outputs in ``test_spark_interop.py``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import coincurve
import ecies as eciespy
import pytest

from emulator import Emulator, TurnkeyApiError
from emulator.crypto import hd
from emulator.crypto.addresses import spark as spark_address
from emulator.crypto.spark import frost, points, secret_sharing, wire
from emulator.testing.bip340 import bip86_output_key
from emulator.testing.bip340 import verify as bip340_verify
from emulator.testing.spark import SimulatedOperators, read_proto

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ABANDON = "abandon " * 11 + "about"
N = points.N


def spark_account(fmt: str = "ADDRESS_FORMAT_SPARK_REGTEST", account: int = 0) -> dict:
    return {
        "curve": "CURVE_SECP256K1",
        "pathFormat": "PATH_FORMAT_BIP32",
        "path": f"m/8797555'/{account}'/0'",
        "addressFormat": fmt,
    }


@pytest.fixture
def emu() -> Emulator:
    emulator = Emulator()
    emulator.create_organization()
    return emulator


@pytest.fixture
def alice(emu) -> str:
    (address,) = emu.backdoor.import_wallet(ABANDON, accounts=[spark_account()])["addresses"]
    return address


def node(path: str) -> hd.Node:
    return hd.Keychain(hd.mnemonic_to_seed(ABANDON)).derive("CURVE_SECP256K1", hd.parse_path(path))


def leaf_path(leaf_id: str, account: int = 0) -> str:
    index = int.from_bytes(hashlib.sha256(leaf_id.encode()).digest()[:4], "big") % 2**31
    return f"m/8797555'/{account}'/1'/{index}'"


# --- addresses ------------------------------------------------------------------------


@pytest.mark.parametrize("vector", json.loads((FIXTURES / "spark_addresses.json").read_text()))
def test_spark_addresses_match_the_spark_sdk_vectors(vector):
    hrp = {"MAINNET": "spark", "REGTEST": "sparkrt", "LOCAL": "sparkl"}[vector["network"]]
    key = bytes.fromhex(vector["identityPublicKey"])
    assert spark_address.encode(key, hrp) == vector["address"]
    assert spark_address.decode(vector["address"]) == (hrp, key)


def test_spark_wallet_accounts_in_both_formats_carry_the_identity_key(emu):
    accounts = [spark_account("ADDRESS_FORMAT_SPARK_MAINNET"), spark_account(account=1)]
    created = emu.backdoor.import_wallet(ABANDON, accounts=accounts)["addresses"]
    identity0 = node("m/8797555'/0'/0'").public_key
    identity1 = node("m/8797555'/1'/0'").public_key
    assert created[0] == spark_address.encode(identity0, "spark")
    assert created[1] == spark_address.encode(identity1, "sparkrt")
    assert created[0].startswith("spark1pgss") and created[1].startswith("sparkrt1pgss")


def test_an_ed25519_spark_account_is_refused_and_changes_nothing(emu):
    wallet = emu.create_wallet(wallet_name="w", accounts=[spark_account()])
    before = emu.get_wallet_accounts(wallet_id=wallet["walletId"])["accounts"]
    bad = {**spark_account(), "curve": "CURVE_ED25519", "path": "m/8797555'/2'/0'"}
    with pytest.raises(TurnkeyApiError) as raised:
        emu.create_wallet_accounts(wallet_id=wallet["walletId"], accounts=[bad])
    assert raised.value.status == 400
    assert emu.get_wallet_accounts(wallet_id=wallet["walletId"])["accounts"] == before


def test_sign_raw_payload_with_a_spark_address_is_plain_bip340(emu, alice):
    digest = hashlib.sha256(b"spark payload").digest()
    signed = emu.sign_raw_payload(
        sign_with=alice,
        payload=digest.hex(),
        encoding="PAYLOAD_ENCODING_HEXADECIMAL",
        hash_function="HASH_FUNCTION_NO_OP",
    )
    assert signed["v"] == "00"
    identity = node("m/8797555'/0'/0'").public_key
    assert bip340_verify(identity[1:], digest, bytes.fromhex(signed["r"] + signed["s"]))


# --- FROST ----------------------------------------------------------------------------


def frost_round(emu, sign_with, derivation, user_public, *, adaptor=None, ops=None, label="leaf"):
    """One signing: operators' commitments in, Turnkey's share out, the aggregate back."""
    ops = ops or SimulatedOperators()
    ops_public, ops_shares = ops.key_shares(label)
    verifying_key = points.add(user_public, ops_public)
    message = hashlib.sha256(f"sighash {label}".encode()).digest()
    nonces = ops.nonces(ops.ids[: ops.threshold])
    request = {
        "derivation": derivation,
        "message": message.hex(),
        "verifyingKey": verifying_key.hex(),
        "operatorCommitments": ops.commitments(nonces),
    }
    if adaptor is not None:
        request["adaptorPublicKey"] = points.base_mul(adaptor).hex()
    (result,) = emu.spark_sign_frost(sign_with=sign_with, signatures=[request])["signatures"]
    session = ops.session(
        message,
        verifying_key,
        nonces,
        result,
        points.base_mul(adaptor) if adaptor is not None else None,
    )
    shares = [int(result["signatureShare"], 16), *ops.sign(session, nonces, ops_shares).values()]
    return frost.aggregate(session, shares), message, verifying_key, session, result


@pytest.mark.parametrize(
    ("derivation", "path"),
    [
        ({"identity": {}}, "m/8797555'/0'/0'"),
        ({"signingLeaf": {"leafId": "leaf-abc-123"}}, leaf_path("leaf-abc-123")),
        ({"deposit": {}}, "m/8797555'/0'/2'"),
        ({"staticDeposit": {"index": 7}}, "m/8797555'/0'/3'/7'"),
        ({"htlcPreimage": {}}, "m/8797555'/0'/4'"),
    ],
)
def test_sign_frost_aggregates_to_a_bip340_signature_at_each_documented_path(
    emu, alice, derivation, path
):
    user_public = node(path).public_key
    signature, message, verifying_key, _, result = frost_round(emu, alice, derivation, user_public)
    assert set(result) == {"signatureShare", "hiding", "binding"}
    output_key = bip86_output_key(verifying_key[1:])
    assert bip340_verify(output_key, message, signature)
    # another path's key does not give a valid signature: the path was the one asked for
    wrong = node("m/8797555'/0'/9'").public_key
    bad, message, verifying_key, _, _ = frost_round(emu, alice, derivation, wrong, label="x")
    assert not bip340_verify(bip86_output_key(verifying_key[1:]), message, bad)


def test_a_three_of_five_operator_group_and_a_batch(emu, alice):
    ops = SimulatedOperators(count=5, threshold=3, seed=9)
    user_public = node(leaf_path("L")).public_key
    for label in ("a", "b"):
        signature, message, vk, _, _ = frost_round(
            emu, alice, {"signingLeaf": {"leafId": "L"}}, user_public, ops=ops, label=label
        )
        assert bip340_verify(bip86_output_key(vk[1:]), message, signature)


def test_adaptor_signatures_complete_with_the_adaptor_secret(emu, alice):
    t = 0xADA97 * 7919
    user_public = node("m/8797555'/0'/2'").public_key
    pre, message, vk, session, _ = frost_round(emu, alice, {"deposit": {}}, user_public, adaptor=t)
    output_key = bip86_output_key(vk[1:])
    assert not bip340_verify(output_key, message, pre)
    assert bip340_verify(output_key, message, frost.complete_adaptor(session, pre, t))


def test_nonces_are_fresh_for_the_same_request(emu, alice):
    ops = SimulatedOperators()
    ops_public, _ = ops.key_shares("n")
    vk = points.add(node("m/8797555'/0'/2'").public_key, ops_public)
    request = {
        "derivation": {"deposit": {}},
        "message": "11" * 32,
        "verifyingKey": vk.hex(),
        "operatorCommitments": ops.commitments(ops.nonces([1, 2])),
    }
    first, second = emu.spark_sign_frost(sign_with=alice, signatures=[request, request])[
        "signatures"
    ]
    assert first["hiding"] != second["hiding"] and first["binding"] != second["binding"]


# --- transfers ------------------------------------------------------------------------


def open_send_package(ops, position, package) -> list[dict]:
    leaves = []
    for number, body in read_proto(ops.open(position, package["encryptedPackage"])):
        assert number == 1
        fields = read_proto(body)
        one = {n: v for n, v in fields if n != 3}
        share = read_proto(one[2])
        leaves.append(
            {
                "leafId": one[1].decode(),
                "share": int.from_bytes(share[0][1], "big"),
                "proofs": [v for n, v in share if n == 2],
                "pubkeys": {
                    dict(read_proto(v))[1].decode(): dict(read_proto(v))[2]
                    for n, v in fields
                    if n == 3
                },
                "fields": one,
            }
        )
    return leaves


TRANSFER_ID = "0b9e3c8e-6a39-4a53-9d0e-0f1c2e3d4a5b"


def transfer_params(ops, receiver_public: bytes, **extra) -> dict:
    return {
        "transferId": TRANSFER_ID,
        "threshold": ops.threshold,
        "operatorRecipients": ops.recipients(),
        "receiverPublicKey": receiver_public.hex(),
        "leaves": [
            {
                "leafId": "old-leaf",
                "oldLeafDerivation": {"signingLeaf": {"leafId": "old-leaf"}},
                "newLeafDerivation": {"signingLeaf": {"leafId": "bob-leaf"}},
                "refundSignature": "aa" * 64,
            }
        ],
        **extra,
    }


def test_prepare_transfer_splits_the_tweak_seals_the_new_key_and_signs(emu, alice):
    ops = SimulatedOperators(count=3, threshold=2)
    bob = coincurve.PrivateKey(b"\x42" * 32)
    result = emu.spark_prepare_transfer(
        sign_with=alice, transfer=transfer_params(ops, bob.public_key.format())
    )
    old, new = node(leaf_path("old-leaf")), node(leaf_path("bob-leaf"))
    assert result["newLeafPublicKeys"] == [
        {"leafId": "bob-leaf", "publicKey": new.public_key.hex()}
    ]
    tweak = (int.from_bytes(old.private_key, "big") - int.from_bytes(new.private_key, "big")) % N
    opened = [open_send_package(ops, i, p) for i, p in enumerate(result["operatorPackages"])]
    assert [p["operatorId"] for p in result["operatorPackages"]] == ops.operator_ids
    for index, (leaf,) in enumerate(opened, start=1):
        assert leaf["leafId"] == "old-leaf"
        assert secret_sharing.check(leaf["share"], index, leaf["proofs"])
        assert leaf["proofs"][0] == points.base_mul(tweak)
        assert leaf["fields"][6] == b"\xaa" * 64
        assert leaf["pubkeys"][ops.operator_ids[index - 1]] == points.base_mul(leaf["share"])
    shares = [(i + 1, opened[i][0]["share"]) for i in (0, 2)]
    assert secret_sharing.recover(shares) == tweak
    # the receiver (eciespy, not the emulator's ECIES) opens the new leaf key
    cipher = opened[0][0]["fields"][4]
    assert eciespy.decrypt(bob.secret, cipher) == new.private_key
    identity = coincurve.PublicKey(node("m/8797555'/0'/0'").public_key)
    digest = wire.leaf_signing_payload("old-leaf", TRANSFER_ID, cipher)
    compact = opened[0][0]["fields"][5]
    assert identity.verify(
        coincurve.ecdsa.cdata_to_der(coincurve.ecdsa.deserialize_compact(compact)),
        digest,
        hasher=None,
    )
    sealed = {
        p["operatorId"]: bytes.fromhex(p["encryptedPackage"]) for p in result["operatorPackages"]
    }
    payload = wire.transfer_signing_payload(TRANSFER_ID, sealed)
    assert identity.verify(bytes.fromhex(result["transferUserSignature"]), payload, hasher=None)


def test_claim_transfer_checks_the_sender_and_returns_packages_that_recombine(emu, alice):
    ops = SimulatedOperators(count=3, threshold=2)
    (bob,) = emu.backdoor.import_wallet(
        "legal winner thank year wave sausage worth useful legal winner thank yellow",
        name="bob",
        accounts=[spark_account()],
    )["addresses"]
    _, bob_identity = spark_address.decode(bob)
    sent = emu.spark_prepare_transfer(sign_with=alice, transfer=transfer_params(ops, bob_identity))
    (leaf,) = open_send_package(ops, 0, sent["operatorPackages"][0])
    cipher, signature = leaf["fields"][4], leaf["fields"][5]
    alice_identity = node("m/8797555'/0'/0'").public_key
    claim = {
        "transferId": TRANSFER_ID,
        "senderIdentityPublicKey": alice_identity.hex(),
        "threshold": 2,
        "operatorRecipients": ops.recipients(),
        "leaves": [
            {"leafId": "bob-leaf", "ciphertext": cipher.hex(), "senderSignature": signature.hex()}
        ],
    }
    # the per-leaf signature binds the leaf id Alice signed: Bob claims under that id
    claim["leaves"][0]["leafId"] = "old-leaf"
    result = emu.spark_claim_transfer(sign_with=bob, claim=claim)
    (new_key,) = result["newLeafPublicKeys"]
    assert new_key["leafId"] == "old-leaf"
    current = int.from_bytes(node(leaf_path("bob-leaf")).private_key, "big")
    bob_new = bytes.fromhex(new_key["publicKey"])
    opened = [
        dict(
            (n, v)
            for n, v in read_proto(dict(read_proto(ops.open(i, p["encryptedPackage"])))[1])
            if n != 3
        )
        for i, p in enumerate(result["operatorPackages"])
    ]
    shares = []
    for index, fields in enumerate(opened, start=1):
        share = read_proto(fields[2])
        value, proofs = int.from_bytes(share[0][1], "big"), [v for n, v in share if n == 2]
        assert secret_sharing.check(value, index, proofs)
        shares.append((index, value))
    claim_tweak = secret_sharing.recover(shares[1:])
    # current leaf key - claim tweak = Bob's new HD leaf key
    assert points.base_mul(current - claim_tweak) == bob_new


def test_a_claim_with_a_forged_sender_signature_is_refused(emu, alice):
    ops = SimulatedOperators()
    emu_before = emu.get_activities()["activities"]
    claim = {
        "transferId": TRANSFER_ID,
        "senderIdentityPublicKey": points.base_mul(5).hex(),
        "threshold": 2,
        "operatorRecipients": ops.recipients(),
        "leaves": [{"leafId": "x", "ciphertext": "00" * 120, "senderSignature": "11" * 64}],
    }
    with pytest.raises(TurnkeyApiError) as raised:
        emu.spark_claim_transfer(sign_with=alice, claim=claim)
    assert raised.value.status == 400
    assert "senderSignature does not verify" in raised.value.message
    assert raised.value.body()["turnkeyErrorCode"] == "REQUEST_INVALID"
    assert len(emu.get_activities()["activities"]) == len(emu_before)


def test_lightning_receive_splits_a_preimage_of_the_payment_hash(emu, alice):
    ops = SimulatedOperators(count=4, threshold=3)
    result = emu.spark_prepare_lightning_receive(
        sign_with=alice,
        lightning_receive={"threshold": 3, "operatorRecipients": ops.recipients()},
    )
    shares = []
    for index, package in enumerate(result["operatorPackages"], start=1):
        fields = read_proto(ops.open(index - 1, package["encryptedPackage"]))
        value, proofs = int.from_bytes(fields[0][1], "big"), [v for n, v in fields if n == 2]
        assert len(proofs) == 3 and secret_sharing.check(value, index, proofs)
        shares.append((index, value))
    preimage = secret_sharing.recover(shares[:3]).to_bytes(32, "big")
    assert hashlib.sha256(preimage).hexdigest() == result["paymentHash"]
    assert secret_sharing.recover(shares[1:]) == int.from_bytes(preimage, "big")
    # no preimage in the answer
    assert preimage.hex() not in json.dumps(result)


# --- refusals -------------------------------------------------------------------------


def refused(emu, call, **kwargs) -> TurnkeyApiError:
    before = emu.get_activities()["activities"]
    with pytest.raises(TurnkeyApiError) as raised:
        call(**kwargs)
    assert raised.value.status in (400, 404)
    assert emu.get_activities()["activities"] == before
    return raised.value


def test_refusals_answer_400_and_change_nothing(emu, alice):
    ops = SimulatedOperators()
    (eth,) = emu.backdoor.import_wallet(
        ABANDON,
        name="eth",
        accounts=[
            {
                "curve": "CURVE_SECP256K1",
                "pathFormat": "PATH_FORMAT_BIP32",
                "path": "m/44'/60'/0'/0/0",
                "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
            }
        ],
    )["addresses"]
    good = {
        "derivation": {"deposit": {}},
        "message": "22" * 32,
        "verifyingKey": points.base_mul(3).hex(),
        "operatorCommitments": ops.commitments(ops.nonces([1, 2])),
    }
    e = refused(emu, emu.spark_sign_frost, sign_with=eth, signatures=[good])
    assert "Spark address" in e.message
    e = refused(emu, emu.spark_sign_frost, sign_with="sparkrt1nothere", signatures=[good])
    assert e.status == 404
    cases = [
        ({"derivation": {}}, "exactly one of"),
        ({"derivation": {"deposit": {}, "identity": {}}}, "exactly one of"),
        ({"message": "22" * 31}, "message must be 32 bytes"),
        ({"verifyingKey": "02" + "ff" * 32}, "verifyingKey must be a compressed"),
        ({"adaptorPublicKey": "zz"}, "adaptorPublicKey must be hex"),
        (
            {
                "operatorCommitments": [
                    {
                        **ops.commitments(ops.nonces([1]))[0],
                        "id": points.to_bytes(frost.USER_IDENTIFIER).hex(),
                    }
                ]
            },
            "Turnkey's own identifier",
        ),
    ]
    for change, words in cases:
        e = refused(emu, emu.spark_sign_frost, sign_with=alice, signatures=[{**good, **change}])
        assert words in e.message, e.message
    bob = points.base_mul(9)
    for change, words in [
        ({"transferId": "not-a-uuid"}, "transferId must be a UUID"),
        ({"threshold": 4}, "threshold must be between 1 and the number of operators (3)"),
        ({"receiverPublicKey": "00"}, "receiverPublicKey must be 33 bytes"),
    ]:
        e = refused(
            emu,
            emu.spark_prepare_transfer,
            sign_with=alice,
            transfer=transfer_params(ops, bob, **change),
        )
        assert words in e.message, e.message
    same = transfer_params(ops, bob)
    same["leaves"][0]["newLeafDerivation"] = {"signingLeaf": {"leafId": "old-leaf"}}
    e = refused(emu, emu.spark_prepare_transfer, sign_with=alice, transfer=same)
    assert "the old and new keys are the same" in e.message
    deposit = transfer_params(ops, bob)
    deposit["leaves"][0]["newLeafDerivation"] = {"deposit": {}}
    e = refused(emu, emu.spark_prepare_transfer, sign_with=alice, transfer=deposit)
    assert "must be a signingLeaf derivation" in e.message


def test_spark_activities_are_journaled_and_survive_a_state_file(tmp_path):
    """The activities and their results are records like any other: the journal of
    ``serve --state`` replays them, and ``save``/``load`` keeps them."""
    from emulator.state.journal import Journal
    from emulator.state.persistence import StateFile
    from emulator.testing.digest import state_digest

    emu = Emulator(seed=11)
    emu.create_organization("spark")
    state = StateFile.create(tmp_path / "state.sqlite", emu.to_document())
    journal = Journal(emu, state, compact_every=10**9).attach()
    (address,) = emu.backdoor.import_wallet(ABANDON, accounts=[spark_account()])["addresses"]
    ops = SimulatedOperators()
    result = emu.spark_prepare_lightning_receive(
        sign_with=address,
        lightning_receive={"threshold": 2, "operatorRecipients": ops.recipients()},
    )
    ops_public, _ = ops.key_shares("j")
    emu.spark_sign_frost(
        sign_with=address,
        signatures=[
            {
                "derivation": {"identity": {}},
                "message": "33" * 32,
                "verifyingKey": points.add(points.base_mul(2), ops_public).hex(),
                "operatorCommitments": ops.commitments(ops.nonces([1, 2])),
            }
        ],
    )
    journal.sync()
    reader = StateFile.open(tmp_path / "state.sqlite")
    try:
        replayed = Emulator.from_document(reader.read(), exact_order=False)
    finally:
        reader.close()
    journal.close()
    assert state_digest(replayed) == state_digest(emu)
    kinds = [a["type"] for a in replayed.get_activities()["activities"]][:2]
    assert kinds == [
        "ACTIVITY_TYPE_SPARK_SIGN_FROST",
        "ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE",
    ]
    receive = replayed.get_activities()["activities"][1]["result"]
    assert receive["sparkPrepareLightningReceiveResult"]["paymentHash"] == result["paymentHash"]
    emu.save(tmp_path / "state.json")
    again = Emulator.load(tmp_path / "state.json")
    assert again.get_activities()["activities"] == emu.get_activities()["activities"]
    # the Spark account signs again after the load (the wallet's seed came back)
    assert again.spark_prepare_lightning_receive(
        sign_with=address,
        lightning_receive={"threshold": 1, "operatorRecipients": ops.recipients()},
    )["paymentHash"]


def test_a_webhook_receiver_gets_the_spark_activity(tmp_path):
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    bodies: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with Emulator(seed=5) as emu:
            emu.create_organization()
            emu.create_webhook_endpoint(
                url=f"http://127.0.0.1:{server.server_port}/hooks",
                name="hooks",
                subscriptions=[{"eventType": "ACTIVITY_UPDATES"}],
            )
            (address,) = emu.backdoor.import_wallet(ABANDON, accounts=[spark_account()])[
                "addresses"
            ]
            ops = SimulatedOperators()
            made = emu.spark_prepare_lightning_receive(
                sign_with=address,
                lightning_receive={"threshold": 2, "operatorRecipients": ops.recipients()},
            )
            assert emu.webhooks.wait(10)
    finally:
        server.shutdown()
        server.server_close()
    activity = json.loads(bodies[-1])
    assert activity["id"] == made["activity"]["id"]
    assert activity["type"] == "ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE"
    assert activity["status"] == "ACTIVITY_STATUS_COMPLETED"
    result = activity["result"]["sparkPrepareLightningReceiveResult"]
    assert result["paymentHash"] == made["paymentHash"]


def test_a_private_key_with_a_spark_address_signs_schnorr_but_is_no_spark_wallet(emu):
    made = emu.create_private_keys(
        private_keys=[
            {
                "privateKeyName": "spark key",
                "curve": "CURVE_SECP256K1",
                "privateKeyTags": [],
                "addressFormats": ["ADDRESS_FORMAT_SPARK_MAINNET"],
            }
        ]
    )["privateKeys"][0]
    (address,) = [a["address"] for a in made["addresses"]]
    key = emu.get_private_key(private_key_id=made["privateKeyId"])["privateKey"]
    public = bytes.fromhex(key["publicKey"])
    assert address == spark_address.encode(public, "spark")
    digest = hashlib.sha256(b"pk").digest()
    signed = emu.sign_raw_payload(
        sign_with=address,
        payload=digest.hex(),
        encoding="PAYLOAD_ENCODING_HEXADECIMAL",
        hash_function="HASH_FUNCTION_NO_OP",
    )
    assert bip340_verify(public[1:], digest, bytes.fromhex(signed["r"] + signed["s"]))
    ops = SimulatedOperators()
    e = refused(
        emu,
        emu.spark_prepare_lightning_receive,
        sign_with=address,
        lightning_receive={"threshold": 1, "operatorRecipients": ops.recipients()},
    )
    assert e.status == 400 and "of a wallet account" in e.message
