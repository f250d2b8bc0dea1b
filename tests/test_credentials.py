"""API keys and authenticators: create, delete, get; limits and checks."""

from __future__ import annotations

import base64

import cbor2
import pytest

from emulator import TurnkeyApiError
from emulator.crypto.encoding import b64url_encode
from emulator.testing import VirtualAuthenticator

from .helpers import NIL_UUID, api_key_params, new_key, state_digest


def test_create_and_get_api_keys(turnkey_emulator, turnkey_org):
    p256, k1, ed = new_key(), new_key("API_KEY_CURVE_SECP256K1"), new_key("API_KEY_CURVE_ED25519")
    made = turnkey_emulator.create_api_keys(
        user_id=turnkey_org.user_id,
        api_keys=[
            api_key_params(p256, "p"),
            api_key_params(k1, "k", "3600"),
            api_key_params(ed, "e"),
        ],
    )
    assert len(made["apiKeyIds"]) == 3
    keys = {
        k["apiKeyId"]: k
        for k in turnkey_emulator.get_api_keys(user_id=turnkey_org.user_id)["apiKeys"]
    }
    assert len(keys) == 4  # with the root key
    p, k, e = (keys[i] for i in made["apiKeyIds"])
    assert (p["apiKeyName"], p["credential"]["type"], "expirationSeconds" in p) == (
        "p",
        "CREDENTIAL_TYPE_API_KEY_P256",
        False,
    )
    assert (k["credential"]["type"], k["expirationSeconds"]) == (
        "CREDENTIAL_TYPE_API_KEY_SECP256K1",
        "3600",
    )
    assert e["credential"] == {
        "publicKey": ed.public_key,
        "type": "CREDENTIAL_TYPE_API_KEY_ED25519",
    }
    assert turnkey_emulator.get_api_key(api_key_id=made["apiKeyIds"][1])["apiKey"] == k
    assert turnkey_emulator.get_api_keys()["apiKeys"] == list(keys.values())


def test_create_api_keys_seed_and_real_intents(turnkey_emulator, turnkey_org):
    key = new_key()
    made = turnkey_emulator.create_api_keys(
        user_id=turnkey_org.user_id, api_keys=[api_key_params(key, "k", "60")]
    )
    intent = made["activity"]["intent"]
    assert intent["createApiKeysIntentV2"]["apiKeys"][0]["curveType"] == "API_KEY_CURVE_P256"
    assert intent["createApiKeysIntent"] == {
        "apiKeys": [{"apiKeyName": "k", "publicKey": key.public_key, "expirationSeconds": "60"}],
        "userId": turnkey_org.user_id,
    }
    assert made["activity"]["result"]["activity"]["intent"] == {
        "createApiKeysIntent": intent["createApiKeysIntent"]
    }


def test_create_api_keys_v1(turnkey_emulator, turnkey_org):
    key = new_key()
    made = turnkey_emulator.create_api_keys(
        user_id=turnkey_org.user_id,
        api_keys=[{"apiKeyName": "legacy", "publicKey": key.public_key}],
        activity_type="ACTIVITY_TYPE_CREATE_API_KEYS",
    )
    assert list(made["activity"]["intent"]) == ["createApiKeysIntent"]
    assert (
        turnkey_emulator.get_api_key(api_key_id=made["apiKeyIds"][0])["apiKey"]["credential"][
            "type"
        ]
        == "CREDENTIAL_TYPE_API_KEY_P256"
    )


@pytest.mark.parametrize("expiration", ["0", "-5", "1.5", "abc"])
def test_invalid_expiration(turnkey_emulator, turnkey_org, expiration):
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.create_api_keys(
            user_id=turnkey_org.user_id, api_keys=[api_key_params(new_key(), expiration=expiration)]
        )
    assert (caught.value.status, caught.value.message) == (400, "invalid api key expiration")


@pytest.mark.parametrize(
    ("curve", "public_key"),
    [
        ("API_KEY_CURVE_P256", "04" + "ab" * 32),
        ("API_KEY_CURVE_P256", "02" + "ab" * 31),
        ("API_KEY_CURVE_ED25519", "02" + "ab" * 32),
        ("API_KEY_CURVE_P256", "02zz"),
    ],
)
def test_public_key_must_fit_its_curve(turnkey_emulator, turnkey_org, curve, public_key):
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.create_api_keys(
            user_id=turnkey_org.user_id,
            api_keys=[{"apiKeyName": "k", "publicKey": public_key, "curveType": curve}],
        )
    assert caught.value.status == 400 and "apiKeys.0.publicKey" in caught.value.message


def test_same_public_key_twice_in_an_organization(turnkey_emulator, turnkey_org):
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.create_api_keys(
            user_id=turnkey_org.user_id, api_keys=[api_key_params(turnkey_org.api_key)]
        )
    assert caught.value.status == 400


def test_long_lived_key_limit(turnkey_emulator, turnkey_org):
    keys = [api_key_params(new_key(), f"k{i}") for i in range(9)]
    turnkey_emulator.create_api_keys(user_id=turnkey_org.user_id, api_keys=keys)
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.create_api_keys(
            user_id=turnkey_org.user_id, api_keys=[api_key_params(new_key())]
        )
    assert (caught.value.status, caught.value.code, caught.value.message) == (
        429,
        8,
        "user has exceeded maximum long-lived api keys",
    )


def test_expiring_key_over_the_limit_evicts_expired_then_oldest(turnkey_emulator, turnkey_org):
    first = turnkey_emulator.create_api_keys(
        user_id=turnkey_org.user_id, api_keys=[api_key_params(new_key(), "short", "10")]
    )["apiKeyIds"][0]
    turnkey_emulator.clock.advance(1)
    rest = turnkey_emulator.create_api_keys(
        user_id=turnkey_org.user_id,
        api_keys=[api_key_params(new_key(), f"k{i}", "3600") for i in range(9)],
    )["apiKeyIds"]
    turnkey_emulator.clock.advance(20)  # the first has expired
    turnkey_emulator.create_api_keys(
        user_id=turnkey_org.user_id, api_keys=[api_key_params(new_key(), "new", "3600")]
    )
    ids = {k["apiKeyId"] for k in turnkey_emulator.get_api_keys()["apiKeys"]}
    assert first not in ids and set(rest) <= ids
    turnkey_emulator.create_api_keys(
        user_id=turnkey_org.user_id, api_keys=[api_key_params(new_key(), "newer", "3600")]
    )
    ids = {k["apiKeyId"] for k in turnkey_emulator.get_api_keys()["apiKeys"]}
    assert rest[0] not in ids and set(rest[1:]) <= ids


def test_delete_api_keys(turnkey_emulator, turnkey_org):
    made = turnkey_emulator.create_api_keys(
        user_id=turnkey_org.user_id, api_keys=[api_key_params(new_key())]
    )["apiKeyIds"]
    assert (
        turnkey_emulator.delete_api_keys(user_id=turnkey_org.user_id, api_key_ids=made)["apiKeyIds"]
        == made
    )
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.get_api_key(api_key_id=made[0])
    assert caught.value.status == 404
    before = state_digest(turnkey_emulator)
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.delete_api_keys(
            user_id=turnkey_org.user_id, api_key_ids=[turnkey_org.api_key_id, NIL_UUID]
        )
    assert caught.value.status == 404 and state_digest(turnkey_emulator) == before


def _authenticator(device=None, name="laptop", challenge="Y2hhbGxlbmdl"):
    device = device or VirtualAuthenticator(
        transports=("AUTHENTICATOR_TRANSPORT_INTERNAL", "AUTHENTICATOR_TRANSPORT_HYBRID")
    )
    return device, {
        "authenticatorName": name,
        "challenge": challenge,
        "attestation": device.register(challenge),
    }


def test_create_authenticator_stores_what_the_attestation_says(turnkey_emulator, turnkey_org):
    device, params = _authenticator()
    made = turnkey_emulator.create_authenticators(
        user_id=turnkey_org.user_id, authenticators=[params]
    )
    (authenticator,) = turnkey_emulator.get_authenticators(user_id=turnkey_org.user_id)[
        "authenticators"
    ]
    assert authenticator["authenticatorId"] == made["authenticatorIds"][0]
    assert authenticator["credentialId"] == device.credential_id_b64
    assert authenticator["credential"] == {
        "publicKey": b64url_encode(device.cose_public_key()),
        "type": "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR",
    }
    assert (
        cbor2.loads(base64.urlsafe_b64decode(authenticator["credential"]["publicKey"] + "=="))[3]
        == -7
    )
    assert (
        authenticator["aaguid"] == b64url_encode(bytes(16))
        and authenticator["attestationType"] == "none"
    )
    assert authenticator["transports"] == [
        "AUTHENTICATOR_TRANSPORT_INTERNAL",
        "AUTHENTICATOR_TRANSPORT_HYBRID",
    ]
    assert (
        turnkey_emulator.get_authenticator(authenticator_id=made["authenticatorIds"][0])[
            "authenticator"
        ]
        == authenticator
    )


def test_create_authenticators_seed_intent_is_the_v1_shape(turnkey_emulator, turnkey_org):
    device, params = _authenticator()
    made = turnkey_emulator.create_authenticators(
        user_id=turnkey_org.user_id, authenticators=[params]
    )
    seed = made["activity"]["intent"]["createAuthenticatorsIntent"]["authenticators"][0]
    assert seed["userId"] == turnkey_org.user_id
    assert seed["attestation"]["id"] == seed["attestation"]["rawId"] == device.credential_id_b64
    assert seed["attestation"]["type"] == "public-key"
    assert (
        seed["attestation"]["response"]["attestationObject"]
        == params["attestation"]["attestationObject"]
    )
    assert made["activity"]["intent"]["createAuthenticatorsIntentV2"]["authenticators"][0] == params


def test_create_authenticators_v1(turnkey_emulator, turnkey_org):
    _, params = _authenticator()
    attestation = params["attestation"]
    v1 = {
        "authenticatorName": "old",
        "userId": turnkey_org.user_id,
        "challenge": params["challenge"],
        "attestation": {
            "id": attestation["credentialId"],
            "type": "public-key",
            "rawId": attestation["credentialId"],
            "response": {
                "clientDataJson": attestation["clientDataJson"],
                "attestationObject": attestation["attestationObject"],
                "transports": ["AUTHENTICATOR_TRANSPORT_USB"],
            },
            "clientExtensionResults": {},
        },
    }
    made = turnkey_emulator.create_authenticators(
        user_id=turnkey_org.user_id,
        authenticators=[v1],
        activity_type="ACTIVITY_TYPE_CREATE_AUTHENTICATORS",
    )
    (stored,) = turnkey_emulator.get_authenticators(user_id=turnkey_org.user_id)["authenticators"]
    assert stored["authenticatorId"] == made["authenticatorIds"][0] and stored["transports"] == [
        "AUTHENTICATOR_TRANSPORT_USB"
    ]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda a: {**a, "attestationObject": b64url_encode(b"not cbor")},
            "invalid authenticator attestation",
        ),
        (
            lambda a: {
                **a,
                "attestationObject": b64url_encode(
                    cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": bytes(37)})
                ),
            },
            "missing parameter: user authenticator attestation auth data",
        ),
        (
            lambda a: {**a, "clientDataJson": b64url_encode(b"{}")},
            "invalid authenticator attestation",
        ),
        (
            lambda a: {**a, "credentialId": b64url_encode(b"someone else")},
            "invalid authenticator attestation",
        ),
    ],
)
def test_bad_attestations(turnkey_emulator, turnkey_org, mutate, message):
    _, params = _authenticator()
    params["attestation"] = mutate(params["attestation"])
    before = state_digest(turnkey_emulator)
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.create_authenticators(user_id=turnkey_org.user_id, authenticators=[params])
    assert (caught.value.status, caught.value.message) == (400, message)
    assert state_digest(turnkey_emulator) == before


def test_same_credential_twice_and_the_limit(turnkey_emulator, turnkey_org):
    device, params = _authenticator()
    turnkey_emulator.create_authenticators(user_id=turnkey_org.user_id, authenticators=[params])
    with pytest.raises(TurnkeyApiError):
        turnkey_emulator.create_authenticators(
            user_id=turnkey_org.user_id, authenticators=[_authenticator(device, "again")[1]]
        )
    turnkey_emulator.create_authenticators(
        user_id=turnkey_org.user_id,
        authenticators=[_authenticator(name=f"d{i}")[1] for i in range(9)],
    )
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.create_authenticators(
            user_id=turnkey_org.user_id, authenticators=[_authenticator()[1]]
        )
    assert (caught.value.status, caught.value.message) == (
        429,
        "user has exceeded maximum authenticators",
    )


def test_delete_authenticators(turnkey_emulator, turnkey_org):
    made = turnkey_emulator.create_authenticators(
        user_id=turnkey_org.user_id, authenticators=[_authenticator()[1]]
    )["authenticatorIds"]
    assert (
        turnkey_emulator.delete_authenticators(user_id=turnkey_org.user_id, authenticator_ids=made)[
            "authenticatorIds"
        ]
        == made
    )
    assert turnkey_emulator.get_authenticators(user_id=turnkey_org.user_id)["authenticators"] == []
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.get_authenticator(authenticator_id=made[0])
    assert caught.value.status == 404
