"""The official TypeScript packages against the emulator (skipped without node and npm).

``@turnkey/crypto`` opens the emulator's credential and export bundles (with
the emulator's signer key as the override), makes the import bundles the
emulator imports, encrypts OTP codes to its OTP target, and verifies its session
JWTs and verification tokens; ``@turnkey/http`` with ``@turnkey/api-key-stamper``
stamps requests with the keys those flows issue, and they succeed.
"""

from __future__ import annotations

import pytest
from eth_keys import keys as eth_keys

from emulator import Emulator
from tests.typescript import TypeScript, TypeScriptError, typescript_or_skip
from tests.vectors import vectors

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ABANDON_ETHEREUM = next(v for v in vectors("abandon_chain") if v["name"].endswith("Ethereum"))
ETH_ACCOUNT = {
    "curve": "CURVE_SECP256K1",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/60'/0'/0/0",
    "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
}


@pytest.fixture(scope="module")
def ts() -> TypeScript:
    return typescript_or_skip()


def whoami(ts: TypeScript, url: str, org_id: str, private_key: str) -> dict:
    """``getWhoami`` by the official TurnkeyClient, stamped with ``private_key``."""
    return ts.one(
        "call",
        baseUrl=url,
        apiPublicKey=ts.one("getPublicKey", privateKey=private_key),
        apiPrivateKey=private_key,
        method="getWhoami",
        body={"organizationId": org_id},
    )


def test_the_published_credential_bundle_opens_in_typescript_and_python(ts: TypeScript):
    """The harness itself: @turnkey/crypto's own vector, through the runner."""
    import json
    from pathlib import Path

    vector = json.loads((Path(__file__).parent.parent / "fixtures/hpke-vectors.json").read_text())
    bundle = vector["turnkey"]["credential_bundle"]
    opened = ts.one(
        "decryptCredentialBundle",
        bundle=bundle["bundle"],
        embeddedKey=bundle["receiver_private_key"],
    )
    assert opened == bundle["plaintext"]


def test_a_credential_bundle_opens_in_typescript_and_its_key_stamps_requests(
    ts: TypeScript, turnkey_emulator: Emulator, turnkey_org, live_server: str
):
    target = ts.one("generateP256KeyPair")
    made = turnkey_emulator.create_read_write_session(
        target_public_key=target["publicKeyUncompressed"]
    )
    private_key = ts.one(
        "decryptCredentialBundle", bundle=made["credentialBundle"], embeddedKey=target["privateKey"]
    )
    registered = turnkey_emulator.get_api_key(api_key_id=made["apiKeyId"])["apiKey"]
    assert registered["credential"] == {
        "publicKey": ts.one("getPublicKey", privateKey=private_key),
        "type": "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256",
    }
    me = whoami(ts, live_server, turnkey_org.organization_id, private_key)
    assert (me["organizationId"], me["userId"]) == (
        turnkey_org.organization_id,
        turnkey_org.user_id,
    )


def test_export_bundles_open_in_typescript_with_the_signer_override(
    ts: TypeScript, turnkey_emulator: Emulator, turnkey_org
):
    emu, org_id = turnkey_emulator, turnkey_org.organization_id
    wallet = emu.create_wallet(wallet_name="exported", accounts=[ETH_ACCOUNT])
    key = emu.create_private_keys(
        private_keys=[
            {
                "privateKeyName": "k",
                "curve": "CURVE_SECP256K1",
                "privateKeyTags": [],
                "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
            }
        ]
    )["privateKeys"][0]
    target = ts.one("generateP256KeyPair")
    wallet_bundle = emu.export_wallet(
        wallet_id=wallet["walletId"], target_public_key=target["publicKeyUncompressed"]
    )["exportBundle"]
    key_bundle = emu.export_private_key(
        private_key_id=key["privateKeyId"], target_public_key=target["publicKeyUncompressed"]
    )["exportBundle"]
    common = {
        "embeddedKey": target["privateKey"],
        "organizationId": org_id,
        "signerPublicKey": emu.enclave.signer_public_key,
    }
    mnemonic, key_hex, refused = ts.run(
        [
            {"op": "decryptExportBundle", "exportBundle": wallet_bundle, "returnMnemonic": True}
            | common,
            {"op": "decryptExportBundle", "exportBundle": key_bundle} | common,
            # Without the override the package insists on the production signer.
            {"op": "decryptExportBundle", "exportBundle": key_bundle}
            | common
            | {"signerPublicKey": None},
        ]
    )
    assert mnemonic == emu.backdoor.mnemonic(wallet["walletId"])
    address = eth_keys.PrivateKey(bytes.fromhex(key_hex)).public_key.to_checksum_address()
    assert address == key["addresses"][0]["address"]
    assert isinstance(refused, TypeScriptError)


def test_bundles_made_by_typescript_import_and_derive_the_published_addresses(
    ts: TypeScript, turnkey_emulator: Emulator, turnkey_org
):
    emu, org_id, user_id = turnkey_emulator, turnkey_org.organization_id, turnkey_org.user_id
    signer = emu.enclave.signer_public_key
    wallet_target = emu.init_import_wallet(user_id=user_id)["importBundle"]
    wallet_bundle = ts.one(
        "encryptWalletToBundle",
        mnemonic=ABANDON_ETHEREUM["mnemonic"],
        importBundle=wallet_target,
        userId=user_id,
        organizationId=org_id,
        signerPublicKey=signer,
    )
    imported = emu.import_wallet(
        user_id=user_id,
        wallet_name="abandon",
        encrypted_bundle=wallet_bundle,
        accounts=[ETH_ACCOUNT],
    )
    assert imported["addresses"] == [ABANDON_ETHEREUM["expected"]["address"]]

    secret = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
    key_target = emu.init_import_private_key(user_id=user_id)["importBundle"]
    key_bundle = ts.one(
        "encryptPrivateKeyToBundle",
        privateKey=secret,
        importBundle=key_target,
        userId=user_id,
        organizationId=org_id,
        signerPublicKey=signer,
    )
    key = emu.import_private_key(
        user_id=user_id,
        private_key_name="imported",
        encrypted_bundle=key_bundle,
        curve="CURVE_SECP256K1",
        address_formats=["ADDRESS_FORMAT_ETHEREUM"],
    )
    expected = eth_keys.PrivateKey(bytes.fromhex(secret)).public_key.to_checksum_address()
    assert key["addresses"] == [{"format": "ADDRESS_FORMAT_ETHEREUM", "address": expected}]


def test_session_jwts_verify_in_typescript_and_the_session_key_stamps_requests(
    ts: TypeScript, turnkey_emulator: Emulator, turnkey_org, live_server: str
):
    session_key = ts.one("generateP256KeyPair")
    session = turnkey_emulator.stamp_login(public_key=session_key["publicKey"])["session"]
    ours, production = ts.run(
        [
            {
                "op": "verifySessionJwtSignature",
                "jwt": session,
                "notarizerPublicKey": turnkey_emulator.enclave.notarizer_public_key,
            },
            {"op": "verifySessionJwtSignature", "jwt": session},
        ]
    )
    assert ours is True
    assert production is False or isinstance(production, TypeScriptError)
    me = whoami(ts, live_server, turnkey_org.organization_id, session_key["privateKey"])
    assert me["userId"] == turnkey_org.user_id


def test_otp_codes_encrypted_by_typescript_verify_and_the_token_verifies_there(
    ts: TypeScript, turnkey_emulator: Emulator, turnkey_org
):
    emu = turnkey_emulator
    emu.update_user(user_id=turnkey_org.user_id, user_email="root@example.com", user_tag_ids=[])
    started = emu.init_otp(otp_type="OTP_TYPE_EMAIL", contact="root@example.com", app_name="app")
    code = emu.outbox.last().fields["otpCode"]
    client_key = ts.one("generateP256KeyPair")
    tls_fetcher = emu.enclave.tls_fetcher_public_key
    encrypted = ts.one(
        "encryptOtpCodeToBundle",
        otpCode=code,
        otpEncryptionTargetBundle=started["otpEncryptionTargetBundle"],
        publicKey=client_key["publicKey"],
        signerPublicKey=tls_fetcher,
    )
    token = emu.verify_otp(otp_id=started["otpId"], encrypted_otp_bundle=encrypted)[
        "verificationToken"
    ]
    claims = ts.one("verifyOtpVerificationToken", jwt=token, signerPublicKey=tls_fetcher)
    assert claims["contact"] == "root@example.com"
    assert claims["public_key"] == client_key["publicKey"]
    assert claims["organization_id"] == turnkey_org.organization_id


def test_the_typescript_client_keeps_one_connection_alive(ts: TypeScript):
    """``@turnkey/http`` (Node's fetch) sends twenty calls over one kept-alive connection."""
    import threading

    from emulator.crypto.api_keys import generate_key_pair
    from emulator.http.server import make_api_server

    emu = Emulator(seed=3)
    key = generate_key_pair()
    org = emu.create_organization(api_public_key=key.public_key, api_private_key=key.private_key)
    server = make_api_server(emu.world, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        answers = ts.one(
            "callMany",
            baseUrl=server.base_url,
            apiPublicKey=key.public_key,
            apiPrivateKey=key.private_key,
            method="getWhoami",
            body={"organizationId": org.organization_id},
            times=20,
        )
    finally:
        server.shutdown()
        thread.join(timeout=15)
    assert [a["userId"] for a in answers] == [org.user_id] * 20
    assert server.connections.opened == 1
