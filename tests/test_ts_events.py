"""Webhook deliveries and proofs through the official verifiers of ``@turnkey/crypto``
(skipped without node and npm): ``verifyTurnkeyWebhookSignature`` with the emulator's key
as the verification key, ``verifyAppProofSignature``, and the boot proof's COSE signature
and PCR17 commitment; ``verify`` itself fails where it must, at the pinned AWS root."""

from __future__ import annotations

import base64

import pytest

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.engine_state.world import Settings
from tests.typescript import TypeScript, TypeScriptError, client_calls, typescript_or_skip

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def ts() -> TypeScript:
    return typescript_or_skip()


def test_deliveries_verify_with_the_official_helper(ts: TypeScript):
    with Emulator(seed=11, settings=Settings(webhook_synchronous=True)) as emu:
        emu.create_organization()
        got = []
        emu.webhooks.route("https://hooks.example.com/turnkey", got.append)
        emu.create_webhook_endpoint(
            url="https://hooks.example.com/turnkey",
            name="hooks",
            subscriptions=[{"eventType": "ACTIVITY_UPDATES"}],
        )
        (request,) = got
        key = emu.webhooks.verification_key
        now = int(request.headers["X-Turnkey-Timestamp"])
        common = {
            "headers": request.headers,
            "verificationKeys": [key],
            "maxTimestampAgeMs": 300_000,
            "nowMs": now,
        }
        body = base64.b64encode(request.body).decode()
        tampered = base64.b64encode(request.body.replace(b"COMPLETED", b"FAILED")).decode()
        good, forged, stale, unknown = ts.run(
            [
                {"op": "verifyTurnkeyWebhookSignature", **common, "bodyBase64": body},
                {"op": "verifyTurnkeyWebhookSignature", **common, "bodyBase64": tampered},
                {
                    "op": "verifyTurnkeyWebhookSignature",
                    **common,
                    "nowMs": now + 300_001,
                    "bodyBase64": body,
                },
                {
                    "op": "verifyTurnkeyWebhookSignature",
                    **common,
                    "verificationKeys": [{**key, "keyId": "another"}],
                    "bodyBase64": body,
                },
            ]
        )
        assert good == {
            "ok": True,
            "eventId": request.headers["X-Turnkey-Event-Id"],
            "keyId": key["keyId"],
            "timestampMs": now,
        }
        assert forged == {"ok": False, "reason": "invalid_signature"}
        assert stale == {"ok": False, "reason": "stale_timestamp"}
        assert unknown == {"ok": False, "reason": "missing_key"}


def test_app_and_boot_proofs_verify_with_the_official_code(ts: TypeScript):
    emu = Emulator(seed=11)
    org = emu.create_organization()
    made = emu.create_wallet(
        wallet_name="w",
        accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")],
        generate_app_proofs=True,
    )
    outcome, derivation = made["activity"]["appProofs"]
    boot = emu.get_boot_proof(ephemeral_key=derivation["publicKey"])["bootProof"]
    forged = dict(derivation, proofPayload=derivation["proofPayload"].replace("0x", "0X"))
    results = ts.run(
        [
            {"op": "verifyAppProofSignature", "appProof": outcome},
            {"op": "verifyAppProofSignature", "appProof": derivation},
            {"op": "verifyAppProofSignature", "appProof": forged},
            {"op": "checkBootProofAttestation", "bootProof": boot},
            {"op": "verifyProofPair", "appProof": derivation, "bootProof": boot},
        ]
    )
    assert results[:2] == [True, True]
    assert isinstance(results[2], TypeScriptError)
    assert str(results[2]) == "Signature verification failed"
    assert results[3] == {
        "publicKey": derivation["publicKey"],
        "pcr17Matches": True,
        "digest": "SHA384",
    }
    # An emulator is not an AWS Nitro enclave: the full check stops at the pinned AWS root.
    assert isinstance(results[4], TypeScriptError)
    assert "Certificate chain verification failed" in str(results[4])
    # The official TypeScript client reads the proofs over the wire.
    listed, booted = client_calls(
        ts,
        emu.world,
        org.api_key,
        [
            (
                "getAppProofs",
                {"organizationId": org.organization_id, "activityId": made["activity"]["id"]},
            ),
            (
                "getLatestBootProof",
                {"organizationId": org.organization_id, "appName": "signer"},
            ),
        ],
    )
    assert listed["appProofs"] == made["activity"]["appProofs"]
    assert booted["bootProof"] == boot


def test_the_typescript_client_asks_for_app_proofs_on_the_wire(ts: TypeScript):
    emu = Emulator(seed=12)
    org = emu.create_organization()
    body = {
        "type": "ACTIVITY_TYPE_CREATE_WALLET",
        "timestampMs": str(emu.clock.now_ms()),
        "organizationId": org.organization_id,
        "parameters": {
            "walletName": "over the wire",
            "accounts": [account_spec("ADDRESS_FORMAT_ETHEREUM")],
        },
        "generateAppProofs": True,
    }
    (made,) = client_calls(ts, emu.world, org.api_key, [("createWallet", body)])
    proofs = made["activity"]["appProofs"]
    assert len(proofs) == 2
    assert ts.run([{"op": "verifyAppProofSignature", "appProof": p} for p in proofs]) == [
        True,
        True,
    ]
