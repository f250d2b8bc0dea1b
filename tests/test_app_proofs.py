"""App proofs (``generateAppProofs``) and boot proofs, checked here independently in Python
(cryptography's ECDSA, cbor2) as the docs describe the verification
(security/turnkey-verified.mdx, products/verifiable-cloud/proofs-and-verification.mdx)."""

from __future__ import annotations

import base64
import hashlib
import json

import cbor2
import pytest
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.ground import messages

from .helpers import add_user, error_of, fails


def verify_app_proof(proof: dict) -> dict:
    """The documented check: the scheme, the signing half of the 130-byte key, ECDSA P-256
    over SHA-256 of the payload text; answers the payload."""
    assert proof["scheme"] == "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256"
    key = bytes.fromhex(proof["publicKey"])
    assert len(key) == 130 and key[0] == 4 and key[65] == 4
    signing = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), key[65:])
    signature = bytes.fromhex(proof["signature"])
    assert len(signature) == 64
    der = encode_dss_signature(int.from_bytes(signature[:32]), int.from_bytes(signature[32:]))
    signing.verify(der, proof["proofPayload"].encode(), ec.ECDSA(hashes.SHA256()))
    return json.loads(proof["proofPayload"])


def check_boot_proof(boot: dict) -> dict:
    """The boot proof's checks short of the AWS root: the COSE_Sign1 ES384 signature by the
    document's certificate, the certificate by its bundle's root, ``user_data`` the manifest's
    SHA-256, ``public_key`` the Ephemeral Key, PCR17 QOS's live commitment. Answers the
    attestation document."""
    protected, unprotected, payload, signature = cbor2.loads(
        base64.b64decode(boot["awsAttestationDocB64"])
    )
    assert cbor2.loads(protected) == {1: -35} and unprotected == {}
    document = cbor2.loads(payload)
    leaf = x509.load_der_x509_certificate(document["certificate"])
    to_sign = cbor2.dumps(["Signature1", protected, b"", payload])
    der = encode_dss_signature(int.from_bytes(signature[:48]), int.from_bytes(signature[48:]))
    leaf.public_key().verify(der, to_sign, ec.ECDSA(hashes.SHA384()))
    (root_der,) = document["cabundle"]
    root = x509.load_der_x509_certificate(root_der)
    leaf.verify_directly_issued_by(root)
    assert "not AWS" in root.subject.rfc4514_string()
    manifest = base64.b64decode(boot["qosManifestB64"])
    assert document["user_data"] == hashlib.sha256(manifest).digest()
    assert document["public_key"].hex() == boot["ephemeralPublicKeyHex"]
    assert document["digest"] == "SHA384" and document["nonce"] is None
    assert sorted(document["pcrs"]) == list(range(32))
    preimage = (
        '{"domain":"qos-live-manifest-pcr-commitment-v1","ephemeralPublicKey":"'
        + document["public_key"].hex()
        + '","manifestHash":"'
        + document["user_data"].hex()
        + '"}'
    ).encode()
    expected = hashlib.sha384(bytes(48) + hashlib.sha384(preimage).digest()).digest()
    assert document["pcrs"][17] == expected
    return document


def test_create_wallet_with_app_proofs(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    accounts = [
        account_spec("ADDRESS_FORMAT_ETHEREUM"),
        account_spec("ADDRESS_FORMAT_SOLANA"),
    ]
    made = emu.create_wallet(wallet_name="proved", accounts=accounts, generate_app_proofs=True)
    proofs = made["activity"]["appProofs"]
    assert len(proofs) == 3
    outcome, *derivations = [verify_app_proof(p) for p in proofs]
    assert outcome["type"] == "APP_PROOF_TYPE_POLICY_OUTCOME"
    assert int(outcome["timestampMs"]) == pytest.approx(emu.clock.now_ms(), abs=60_000)
    policy = outcome["policyOutcomeProof"]
    assert policy["organizationId"] == turnkey_org.organization_id
    assert policy["outcome"] == "OUTCOME_ALLOW"
    assert len(policy["decisionContextDigest"]) == 64
    assert len(policy["organizationDataDigest"]) == 64
    assert policy["parentOrganizationDataDigest"] == ""
    (approval,) = json.loads(policy["userRequestApprovals"])
    assert approval["publicKey"] == turnkey_org.api_public_key
    assert [d["type"] for d in derivations] == ["APP_PROOF_TYPE_ADDRESS_DERIVATION"] * 2
    assert [d["addressDerivationProof"] for d in derivations] == [
        {
            "organizationId": turnkey_org.organization_id,
            "walletId": made["walletId"],
            "derivationPath": spec["path"],
            "address": address,
        }
        for spec, address in zip(accounts, made["addresses"], strict=True)
    ]
    listed = emu.get_app_proofs(activity_id=made["activity"]["id"])["appProofs"]
    assert listed == proofs
    assert emu.get_activity(activity_id=made["activity"]["id"])["activity"]["appProofs"] == proofs
    # the signer signs derivations, the policy engine outcomes: two Ephemeral Keys
    assert proofs[0]["publicKey"] != proofs[1]["publicKey"] == proofs[2]["publicKey"]


def test_a_tampered_proof_fails(turnkey_emulator):
    emu = turnkey_emulator
    made = emu.create_wallet(
        wallet_name="w",
        accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")],
        generate_app_proofs=True,
    )
    proof = made["activity"]["appProofs"][1]
    forged = dict(proof, proofPayload=proof["proofPayload"].replace("0x", "0X"))
    with pytest.raises(InvalidSignature):
        verify_app_proof(forged)


def test_proofs_only_when_asked_and_for_every_activity(turnkey_emulator):
    emu = turnkey_emulator
    plain = emu.create_wallet(wallet_name="w", accounts=[])
    assert "appProofs" not in plain["activity"]
    assert emu.get_app_proofs(activity_id=plain["activity"]["id"])["appProofs"] == []
    users = emu.create_users(users=[{"userName": "p"}], generate_app_proofs=True)
    (proof,) = users["activity"]["appProofs"]
    assert verify_app_proof(proof)["type"] == "APP_PROOF_TYPE_POLICY_OUTCOME"
    ids = emu.create_wallet(wallet_name="w2", accounts=[], generate_app_proofs=False)
    assert "appProofs" not in ids["activity"]


def test_proofs_of_an_activity_that_completes_after_consensus(turnkey_emulator):
    emu = turnkey_emulator
    _, ann = add_user(emu, "ann")
    _, bob = add_user(emu, "bob")
    emu.create_policy(
        policy_name="two",
        effect="EFFECT_ALLOW",
        notes="",
        condition="activity.resource == 'WALLET'",
        consensus="approvers.count() >= 2",
    )
    proposal = emu.create_wallet(
        wallet_name="shared",
        accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")],
        caller=ann,
        generate_app_proofs=True,
    )["activity"]
    assert "appProofs" not in proposal  # not run yet
    done = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=bob)["activity"]
    outcome, derivation = [verify_app_proof(p) for p in done["appProofs"]]
    assert len(json.loads(outcome["policyOutcomeProof"]["userRequestApprovals"])) == 2
    address = done["result"]["createWalletResult"]["addresses"][0]
    assert derivation["addressDerivationProof"]["address"] == address


def test_list_app_proofs_of_an_unknown_activity_is_404(turnkey_emulator, turnkey_org):
    missing = "01234567-89ab-7def-8123-456789abcdef"
    error = fails(turnkey_emulator, turnkey_emulator.get_app_proofs, activity_id=missing)
    assert error_of(error)[:3] == (
        404,
        5,
        messages.activity_not_found(missing, turnkey_org.organization_id),
    )


def test_boot_proofs_bind_the_ephemeral_keys(turnkey_emulator):
    emu = turnkey_emulator
    made = emu.create_wallet(
        wallet_name="w",
        accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")],
        generate_app_proofs=True,
    )
    for proof, app in zip(made["activity"]["appProofs"], ("policy-engine", "signer"), strict=True):
        boot = emu.get_boot_proof(ephemeral_key=proof["publicKey"])["bootProof"]
        assert boot == emu.get_latest_boot_proof(app_name=app)["bootProof"]
        assert (boot["enclaveApp"], boot["owner"]) == (app, "tkhq")
        assert boot["qosManifestVersion"] == "emulator-json-v1"
        assert set(boot["createdAt"]) == {"seconds", "nanos"}
        envelope = json.loads(base64.b64decode(boot["qosManifestEnvelopeB64"]))
        assert envelope["manifest"] == json.loads(base64.b64decode(boot["qosManifestB64"]))
        document = check_boot_proof(boot)
        assert document["public_key"].hex() == proof["publicKey"]


def test_unknown_boot_proofs_are_404(turnkey_emulator):
    emu = turnkey_emulator
    error = fails(emu, emu.get_boot_proof, ephemeral_key="04" + "00" * 129)
    assert error_of(error)[:3] == (404, 5, messages.boot_proof_not_found("04" + "00" * 129))
    error = fails(emu, emu.get_latest_boot_proof, app_name="umbrella")
    assert error.status == 404
    assert error.message == messages.enclave_app_not_found("umbrella", ("signer", "policy-engine"))


def test_a_seeded_emulator_proves_with_the_same_keys_and_a_saved_state_keeps_them(tmp_path):
    first, second = Emulator(seed=9), Emulator(seed=9)
    for emu in (first, second):
        emu.create_organization()
    boots = [e.get_latest_boot_proof(app_name="signer")["bootProof"] for e in (first, second)]
    assert boots[0] == boots[1]
    path = tmp_path / "state.json"
    first.save(path)
    again = Emulator.load(path)
    assert again.get_latest_boot_proof(app_name="signer")["bootProof"] == boots[0]
    made = first.create_wallet(wallet_name="w", accounts=[], generate_app_proofs=True)
    first.save(path)
    reloaded = Emulator.load(path)
    activity_id = made["activity"]["id"]
    assert (
        reloaded.get_app_proofs(activity_id=activity_id)["appProofs"]
        == made["activity"]["appProofs"]
    )
