"""Secrets: init_import_secrets, import_secrets, export_secrets, delete_secrets, list_secrets,
through the bundles the official packages make and open (encryptSecretToBundle,
decryptSecretBundle), and never in the clear anywhere else."""

from __future__ import annotations

import json

from emulator.ground import messages
from emulator.testing import client_crypto
from emulator.testing.client_crypto import TargetKey

from .helpers import add_user, error_of, fails, violations

SUITE = "TRANSPORT_ENCRYPTION_SUITE_ENCLAVE_ENCRYPT_V1"
COMPLETED = "ACTIVITY_STATUS_COMPLETED"


def targets(emu, count: int = 1, **extra) -> list[str]:
    made = emu.init_import_secrets(encryption_suite=SUITE, num_secrets=count, **extra)
    return made["enclaveTargetMessages"]


def sealed(emu, org, target_message: str, plaintext: bytes, user_id: str) -> dict:
    """What encryptSecretToBundle makes: the payload and the verified target key."""
    inner = client_crypto.verify_signed_bundle(target_message, emu.enclave.signer_public_key)
    assert (inner["organizationId"], inner["userId"]) == (org.organization_id, user_id)
    return {
        "secretPayload": client_crypto.encrypt_to_bundle(inner["targetPublic"], plaintext),
        "targetPublicKey": inner["targetPublic"],
        "encryptionSuite": SUITE,
    }


def test_import_list_export_and_delete(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    first, second = targets(emu, 2)
    imported = emu.import_secrets(
        secrets=[
            {
                **sealed(emu, turnkey_org, first, b"s3cret-api-key", turnkey_org.user_id),
                "name": "exchange key",
                "staticProperties": [{"key": "venue", "value": "x"}],
            },
            sealed(emu, turnkey_org, second, b"\x00\x01binary", turnkey_org.user_id),
        ]
    )
    assert imported["activity"]["status"] == COMPLETED
    named, anonymous = imported["secretIds"]
    listed = emu.list_secrets()["secrets"]
    assert [s["secretId"] for s in listed] == [anonymous, named]  # the most recent first
    assert listed[1]["name"] == "exchange key" and "name" not in listed[0]
    assert listed[1]["staticProperties"] == [{"key": "venue", "value": "x"}]
    created_s = int(imported["activity"]["createdAt"]["seconds"])
    assert int(listed[1]["createdAtUnixMs"]) // 1000 == created_s
    client = TargetKey.generate()
    exported = emu.export_secrets(
        secrets=[
            {"secretId": named, "targetPublicKey": client.public_key, "encryptionSuite": SUITE},
            {"secretId": anonymous, "targetPublicKey": client.public_key, "encryptionSuite": SUITE},
        ]
    )
    opened = [
        client_crypto.decrypt_export_bundle(
            payload,
            client,
            organization_id=turnkey_org.organization_id,
            signer_public_key=emu.enclave.signer_public_key,
        )
        for payload in exported["secretPayloads"]
    ]
    assert opened == [b"s3cret-api-key", b"\x00\x01binary"]
    gone = emu.delete_secrets(secret_ids=[named])
    assert gone["secretIds"] == [named]
    assert [s["secretId"] for s in emu.list_secrets()["secrets"]] == [anonymous]
    assert emu.world.store.vault.secrets.keys() == {anonymous}


def test_secrets_never_appear_in_the_clear(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    (target,) = targets(emu)
    made = emu.import_secrets(
        secrets=[sealed(emu, turnkey_org, target, b"PLAINTEXT-MARKER", turnkey_org.user_id)]
    )
    rendered = json.dumps([made, emu.list_secrets(), emu.get_activities(), emu.get_organization()])
    assert "PLAINTEXT-MARKER" not in rendered and b"PLAINTEXT-MARKER".hex() not in rendered
    assert "secrets=1" in repr(emu.world.store.vault)


def test_a_target_is_used_once_and_is_the_importers(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    (target,) = targets(emu)
    payload = sealed(emu, turnkey_org, target, b"x", turnkey_org.user_id)
    emu.import_secrets(secrets=[payload])
    error = fails(emu, emu.import_secrets, secrets=[payload])
    assert error_of(error) == (400, 3, messages.secret_target_not_found(0), "")
    # another user's target is not the caller's
    _, alice = add_user(emu, "alice")
    emu.create_policy(policy_name="all", effect="EFFECT_ALLOW", notes="", condition="true")
    (mine,) = targets(emu)
    theirs = sealed(emu, turnkey_org, mine, b"y", turnkey_org.user_id)
    assert fails(emu, emu.import_secrets, secrets=[theirs], caller=alice).status == 400


def test_bad_requests_change_nothing(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    assert fails(emu, emu.init_import_secrets, encryption_suite=SUITE, num_secrets=0).status == 400
    assert fails(emu, emu.init_import_secrets, encryption_suite=SUITE, num_secrets=33).status == 400
    error = fails(emu, emu.init_import_secrets, encryption_suite="PLAIN", num_secrets=1)
    assert [v["field"] for v in violations(error)] == ["encryptionSuite"]
    (target,) = targets(emu)
    payload = sealed(emu, turnkey_org, target, b"x", turnkey_org.user_id)
    wrong = TargetKey.generate()
    garbled = {**payload, "secretPayload": client_crypto.encrypt_to_bundle(wrong.public_key, b"x")}
    error = fails(emu, emu.import_secrets, secrets=[garbled])
    assert error.message == messages.secret_payload_does_not_open(0)
    first, second = targets(emu, 2)
    twice = [
        {**sealed(emu, turnkey_org, first, b"a", turnkey_org.user_id), "name": "n"},
        {**sealed(emu, turnkey_org, second, b"b", turnkey_org.user_id), "name": "n"},
    ]
    assert fails(emu, emu.import_secrets, secrets=twice).message == messages.SECRET_NAME_NOT_UNIQUE
    missing = "00000000-0000-4000-8000-000000000000"
    error = fails(
        emu,
        emu.export_secrets,
        secrets=[
            {"secretId": missing, "targetPublicKey": wrong.public_key, "encryptionSuite": SUITE}
        ],
    )
    assert error_of(error) == (
        404,
        5,
        messages.secret_not_found(missing, turnkey_org.organization_id),
        "",
    )
    assert fails(emu, emu.delete_secrets, secret_ids=[missing]).status == 404
    assert fails(emu, emu.delete_secrets, secret_ids=[missing, missing]).status == 400


def test_through_the_official_python_sdk(sdk, turnkey_emulator, turnkey_org):
    from turnkey_sdk_types import (
        DeleteSecretsBody,
        ExportSecretsBody,
        ImportSecretsBody,
        InitImportSecretsBody,
        ListSecretsBody,
        v1ExportSecretParams,
        v1ImportSecretParams,
    )

    emu = turnkey_emulator
    init = sdk.init_import_secrets(InitImportSecretsBody(encryptionSuite=SUITE, numSecrets=1))
    (target,) = init.enclaveTargetMessages
    payload = sealed(emu, turnkey_org, target, b"via the sdk", turnkey_org.user_id)
    made = sdk.import_secrets(ImportSecretsBody(secrets=[v1ImportSecretParams(**payload)]))
    (secret_id,) = made.secretIds
    assert [s.secretId for s in sdk.list_secrets(ListSecretsBody()).secrets] == [secret_id]
    client = TargetKey.generate()
    out = sdk.export_secrets(
        ExportSecretsBody(
            secrets=[
                v1ExportSecretParams(
                    secretId=secret_id, targetPublicKey=client.public_key, encryptionSuite=SUITE
                )
            ]
        )
    )
    assert (
        client_crypto.decrypt_export_bundle(
            out.secretPayloads[0],
            client,
            organization_id=turnkey_org.organization_id,
            signer_public_key=emu.enclave.signer_public_key,
        )
        == b"via the sdk"
    )
    assert sdk.delete_secrets(DeleteSecretsBody(secretIds=[secret_id])).secretIds == [secret_id]


def test_turnkey_crypto_encrypts_and_decrypts_the_bundles(turnkey_emulator, turnkey_org):
    from tests.typescript import typescript_or_skip

    ts = typescript_or_skip()
    emu = turnkey_emulator
    (target,) = targets(emu)
    signer = emu.enclave.signer_public_key
    made = ts.one(
        "encryptSecretToBundle",
        plaintext="from typescript",
        ingressTargetBundle=target,
        organizationId=turnkey_org.organization_id,
        signerPublicKey=signer,
    )
    (secret_id,) = emu.import_secrets(secrets=[{**made, "encryptionSuite": SUITE}])["secretIds"]
    client = ts.one("generateP256KeyPair")
    (payload,) = emu.export_secrets(
        secrets=[
            {
                "secretId": secret_id,
                "targetPublicKey": client["publicKeyUncompressed"],
                "encryptionSuite": SUITE,
            }
        ]
    )["secretPayloads"]
    opened = ts.one(
        "decryptSecretBundle",
        secretPayload=payload,
        embeddedPrivateKey=client["privateKey"],
        organizationId=turnkey_org.organization_id,
        signerPublicKey=signer,
    )
    assert opened == "from typescript"
