"""E-mail recovery end to end: init_user_email_recovery, the e-mail, recover_user, the passkey.

A parent organization's backend starts the recovery of a sub-organization's user;
the client reads the bundle from the e-mail (the outbox), opens it with its
target key, stamps recover_user with the recovery key to register a passkey made
by the virtual authenticator, and that passkey then stamps real requests.
"""

from __future__ import annotations

import json

import pytest

from emulator import TurnkeyApiError
from emulator.accounts import account_spec
from emulator.crypto.api_keys import ApiKeyPair
from emulator.crypto.authenticator import VirtualAuthenticator
from emulator.crypto.webauthn import SCHEME_WEBAUTHN
from emulator.ground import messages
from emulator.http.app import handle
from emulator.testing.client_crypto import TargetKey, decrypt_credential_bundle

from .helpers import (
    activity_body,
    api_key_params,
    encode,
    error_of,
    fails,
    new_key,
    stamped_headers,
    state_digest,
    violations,
)

COMPLETED = "ACTIVITY_STATUS_COMPLETED"
ETH = "ADDRESS_FORMAT_ETHEREUM"
EMAIL = "carol@example.com"
RECOVER_KEY_TYPE = "CREDENTIAL_TYPE_RECOVER_USER_KEY_P256"
CUSTOMIZATION = {"appName": "Demo Wallet"}


# ----- helpers ------------------------------------------------------------------------


def sub_org(
    emu, *, email: str | None = EMAIL, name: str = "Carol's org", **flags
) -> tuple[str, str, ApiKeyPair]:
    """A sub-organization with one root user (``email``, one API key):
    ``(sub id, user id, that key)``."""
    key = new_key()
    root = {
        "userName": "carol",
        "apiKeys": [api_key_params(key)],
        "authenticators": [],
        "oauthProviders": [],
    }
    if email is not None:
        root["userEmail"] = email
    made = emu.create_sub_organization(
        sub_organization_name=name, root_users=[root], root_quorum_threshold=1, **flags
    )
    return made["subOrganizationId"], made["rootUserIds"][0], key


def post(emu, path: str, raw: bytes, headers: dict[str, str]) -> tuple[int, dict]:
    lowered = {k.lower(): v for k, v in headers.items()}
    status, payload = handle(emu.world, "POST", path, lowered, raw)
    return status, json.loads(payload)


def wire_activity(emu, name: str, activity_type: str, org_id: str, params: dict, headers_for):
    raw = encode(activity_body(activity_type, org_id, params))
    return post(emu, f"/public/v1/submit/{name}", raw, headers_for(raw))


def recovered_key(emu, target: TargetKey, email: str = EMAIL) -> ApiKeyPair:
    """The recovery key the newest recovery e-mail to ``email`` carries."""
    message = emu.outbox.last(template="email_recovery", to=email)
    assert message is not None
    return decrypt_credential_bundle(message.fields["credentialBundle"], target)


@pytest.fixture
def emu(turnkey_emulator, turnkey_org):
    return turnkey_emulator


# ----- the whole flow -------------------------------------------------------------------


def test_recovery_end_to_end_over_the_wire(emu, turnkey_org):
    sub_id, user_id, _lost_key = sub_org(emu)
    target = TargetKey.generate()

    # 1. The parent's backend starts the recovery (reference §11.3).
    started = emu.init_user_email_recovery(
        organization_id=sub_id,
        email=EMAIL,
        target_public_key=target.public_key,
        email_customization={**CUSTOMIZATION, "magicLinkTemplate": "https://w.example/r?b=%s"},
    )
    assert started["userId"] == user_id
    activity = started["activity"]
    assert (activity["status"], activity["type"], activity["organizationId"]) == (
        COMPLETED,
        "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2",
        sub_id,
    )
    assert activity["result"]["initUserEmailRecoveryResult"] == {"userId": user_id}
    assert activity["intent"]["initUserEmailRecoveryIntentV2"]["email"] == EMAIL
    assert activity["votes"][0]["userId"] == turnkey_org.user_id  # the parent's user

    # 2. The e-mail carries the bundle (and the magic link with it).
    (message,) = emu.outbox.find(template="email_recovery")
    bundle = message.fields["credentialBundle"]
    assert (message.to, message.organization_id, message.channel) == (EMAIL, sub_id, "email")
    assert message.fields["magicLink"] == f"https://w.example/r?b={bundle}"
    assert message.fields["userId"] == user_id
    assert message.fields["appName"] == "Demo Wallet"
    recovery = decrypt_credential_bundle(bundle, target)
    keys = {
        k["apiKeyId"]: k
        for k in emu.get_api_keys(user_id=user_id, organization_id=sub_id)["apiKeys"]
    }
    recovery_record = keys[message.fields["apiKeyId"]]
    assert recovery_record["credential"] == {
        "publicKey": recovery.public_key,
        "type": RECOVER_KEY_TYPE,
    }
    assert recovery_record["expirationSeconds"] == "900"
    assert recovery_record["apiKeyName"] == f"Email Recovery - {activity['createdAt']['seconds']}"

    # 3. recover_user, stamped by the recovery key, registers a new passkey.
    device = VirtualAuthenticator(rp_id="w.example")
    params = {"userId": user_id, "authenticator": device.authenticator_params("new phone")}
    status, out = wire_activity(
        emu,
        "recover_user",
        "ACTIVITY_TYPE_RECOVER_USER",
        sub_id,
        params,
        lambda raw: stamped_headers(raw, recovery),
    )
    assert status == 200, out
    result = out["activity"]["result"]["recoverUserResult"]
    (authenticator_id,) = result["authenticatorId"]
    assert out["activity"]["intent"]["recoverUserIntent"] == params
    (authenticator,) = emu.get_authenticators(user_id=user_id, organization_id=sub_id)[
        "authenticators"
    ]
    assert (authenticator["authenticatorId"], authenticator["credentialId"]) == (
        authenticator_id,
        device.credential_id_b64,
    )
    assert authenticator["authenticatorName"] == "new phone"

    # 4. The passkey now stamps the user's requests.
    wallet = {"walletName": "after recovery", "accounts": [account_spec(ETH)]}
    status, out = wire_activity(
        emu, "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", sub_id, wallet, device.headers
    )
    assert (status, out["activity"]["status"]) == (200, COMPLETED)
    vote = out["activity"]["votes"][0]
    assert (vote["userId"], vote["scheme"]) == (user_id, SCHEME_WEBAUTHN)
    body = encode({"organizationId": sub_id})
    status, who = post(emu, "/public/v1/query/whoami", body, device.headers(body))
    assert (status, who["userId"], who["organizationId"]) == (200, user_id, sub_id)
    # The recovery key is left as it was: an ordinary expiring key of the user.
    assert message.fields["apiKeyId"] in {
        k["apiKeyId"] for k in emu.get_api_keys(user_id=user_id, organization_id=sub_id)["apiKeys"]
    }


def test_recovery_through_the_official_sdk(emu, turnkey_org):
    pytest.importorskip("turnkey_http")
    from turnkey_api_key_stamper import ApiKeyStamper, ApiKeyStamperConfig
    from turnkey_http import TurnkeyClient
    from turnkey_sdk_types import (
        CreateWalletBody,
        InitUserEmailRecoveryBody,
        RecoverUserBody,
        v1Attestation,
        v1AuthenticatorParamsV2,
        v1EmailAuthCustomizationParams,
        v1WalletAccountParams,
    )

    base = "https://api.turnkey.com"
    sub_id, user_id, _ = sub_org(emu)
    target = TargetKey.generate()
    device = VirtualAuthenticator()
    params = device.authenticator_params("sdk passkey")
    with emu.intercept():
        parent = emu.client(turnkey_org, base_url=base)
        started = parent.init_user_email_recovery(
            InitUserEmailRecoveryBody(
                organizationId=sub_id,
                email=EMAIL,
                targetPublicKey=target.public_key,
                emailCustomization=v1EmailAuthCustomizationParams(appName="SDK app"),
            )
        )
        recovery = recovered_key(emu, target)
        as_recovery = TurnkeyClient(
            base_url=base,
            stamper=ApiKeyStamper(ApiKeyStamperConfig(recovery.public_key, recovery.private_key)),
            organization_id=sub_id,
        )
        recovered = as_recovery.recover_user(
            RecoverUserBody(
                userId=user_id,
                authenticator=v1AuthenticatorParamsV2(
                    authenticatorName=params["authenticatorName"],
                    challenge=params["challenge"],
                    attestation=v1Attestation(**params["attestation"]),
                ),
            )
        )
        as_passkey = TurnkeyClient(
            base_url=base, stamper=device.sdk_stamper(), organization_id=sub_id
        )
        who = as_passkey.get_whoami()
        made = as_passkey.create_wallet(
            CreateWalletBody(
                walletName="sdk recovered",
                accounts=[
                    v1WalletAccountParams(
                        curve="CURVE_SECP256K1",
                        pathFormat="PATH_FORMAT_BIP32",
                        path="m/44'/60'/0'/0/0",
                        addressFormat=ETH,
                    )
                ],
            )
        )
    assert started.userId == user_id
    assert started.activity.status == COMPLETED
    assert recovered.activity.status == COMPLETED
    assert len(recovered.authenticatorId) == 1
    assert (who.userId, who.organizationId) == (user_id, sub_id)
    assert made.activity.status == COMPLETED
    assert made.activity.votes[0].scheme == SCHEME_WEBAUTHN


# ----- init_user_email_recovery ---------------------------------------------------------


def test_v1_carries_the_seed_intent_and_an_optional_customization(emu):
    sub_id, user_id, _ = sub_org(emu)
    target = TargetKey.generate()
    started = emu.init_user_email_recovery(
        organization_id=sub_id,
        email=EMAIL,
        target_public_key=target.public_key,
        expiration_seconds="60",
        activity_type="ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY",
    )
    activity = started["activity"]
    assert activity["type"] == "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY"
    assert activity["intent"] == {
        "initUserEmailRecoveryIntent": {
            "email": EMAIL,
            "targetPublicKey": target.public_key,
            "expirationSeconds": "60",
        }
    }
    assert activity["result"]["initUserEmailRecoveryResult"] == {"userId": user_id}
    key = recovered_key(emu, target)
    (record,) = [
        k
        for k in emu.get_api_keys(user_id=user_id, organization_id=sub_id)["apiKeys"]
        if k["credential"]["publicKey"] == key.public_key
    ]
    assert record["expirationSeconds"] == "60"
    assert "magicLink" not in emu.outbox.last(template="email_recovery").fields


def test_v2_requires_the_customization_and_its_app_name(emu):
    sub_id, _, _ = sub_org(emu)
    target = TargetKey.generate()
    cases = [
        (None, "emailCustomization"),
        ({"logoUrl": "https://x.example/logo.png"}, "emailCustomization.appName"),
    ]
    for customization, field in cases:
        kwargs = {} if customization is None else {"email_customization": customization}
        error = fails(
            emu,
            emu.init_user_email_recovery,
            organization_id=sub_id,
            email=EMAIL,
            target_public_key=target.public_key,
            **kwargs,
        )
        assert error_of(error) == (
            400,
            3,
            f"invalid request (fieldViolations: {field})",
            "REQUEST_INVALID",
        )
        assert violations(error) == [{"field": field, "description": "This field is required."}]
    assert len(emu.outbox) == 0


def test_the_email_matches_case_aside_and_an_unknown_one_is_a_404(emu):
    sub_id, user_id, _ = sub_org(emu)
    target = TargetKey.generate()
    started = emu.init_user_email_recovery(
        organization_id=sub_id,
        email="Carol@Example.com",
        target_public_key=target.public_key,
        email_customization=CUSTOMIZATION,
    )
    assert started["userId"] == user_id
    emu.outbox.clear()
    error = fails(
        emu,
        emu.init_user_email_recovery,
        organization_id=sub_id,
        email="mallory@example.com",
        target_public_key=target.public_key,
        email_customization=CUSTOMIZATION,
    )
    assert error_of(error)[:2] == (404, 5)
    assert error.message == messages.user_with_email_not_found("mallory@example.com", sub_id)
    assert len(emu.outbox) == 0


def test_disabled_email_recovery_is_refused(emu, turnkey_org):
    sub_id, _, _ = sub_org(emu, disable_email_recovery=True)
    features = emu.get_organization_configs(organization_id=sub_id)["configs"]["features"]
    assert "FEATURE_NAME_EMAIL_RECOVERY" not in {f["name"] for f in features}
    target = TargetKey.generate()
    error = fails(
        emu,
        emu.init_user_email_recovery,
        organization_id=sub_id,
        email=EMAIL,
        target_public_key=target.public_key,
        email_customization=CUSTOMIZATION,
    )
    assert error_of(error) == (400, 3, messages.email_recovery_disabled(sub_id), "")
    assert len(emu.outbox) == 0


def test_a_top_level_organization_needs_the_feature_set(emu, turnkey_org):
    made = emu.create_users(
        users=[
            {
                "userName": "dave",
                "userEmail": "dave@example.com",
                "apiKeys": [],
                "authenticators": [],
                "oauthProviders": [],
                "userTags": [],
            }
        ]
    )
    (dave,) = made["userIds"]
    target = TargetKey.generate()

    def start() -> dict:
        return emu.init_user_email_recovery(
            email="dave@example.com",
            target_public_key=target.public_key,
            email_customization=CUSTOMIZATION,
        )

    error = fails(emu, start)
    assert error_of(error) == (
        400,
        3,
        messages.email_recovery_disabled(turnkey_org.organization_id),
        "",
    )
    emu.set_organization_feature(name="FEATURE_NAME_EMAIL_RECOVERY", value="")
    assert start()["userId"] == dave  # the organization's own root user runs it
    assert recovered_key(emu, target, "dave@example.com").curve == "API_KEY_CURVE_P256"


def test_bad_target_key_and_customization_change_nothing(emu):
    sub_id, _, _ = sub_org(emu)
    target = TargetKey.generate()
    cases = [
        ({"target_public_key": "04" + "00" * 64}, "invalid target public key"),
        (
            {"email_customization": {"appName": "x", "magicLinkTemplate": "https://x/"}},
            "invalid magic link template",
        ),
        (
            {"email_customization": {"appName": "x", "templateVariables": "[1]"}},
            "failed to unmarshal template variables",
        ),
        ({"expiration_seconds": "-5"}, "invalid api key expiration"),
    ]
    for overrides, text in cases:
        params = {
            "email": EMAIL,
            "target_public_key": target.public_key,
            "email_customization": CUSTOMIZATION,
            **overrides,
        }
        error = fails(emu, emu.init_user_email_recovery, organization_id=sub_id, **params)
        assert error.status == 400 and error.message.startswith(text), error_of(error)
    assert len(emu.outbox) == 0


def test_a_new_recovery_replaces_the_old_key(emu):
    sub_id, user_id, _ = sub_org(emu)
    first_target, second_target = TargetKey.generate(), TargetKey.generate()
    for target in (first_target, second_target):
        emu.init_user_email_recovery(
            organization_id=sub_id,
            email=EMAIL,
            target_public_key=target.public_key,
            email_customization=CUSTOMIZATION,
        )
    first = decrypt_credential_bundle(
        emu.outbox.find(template="email_recovery")[0].fields["credentialBundle"], first_target
    )
    second = recovered_key(emu, second_target)
    types = [
        k["credential"]
        for k in emu.get_api_keys(user_id=user_id, organization_id=sub_id)["apiKeys"]
        if k["credential"]["type"] == RECOVER_KEY_TYPE
    ]
    assert types == [{"publicKey": second.public_key, "type": RECOVER_KEY_TYPE}]
    device = VirtualAuthenticator()
    params = {"userId": user_id, "authenticator": device.authenticator_params("p")}
    status, out = wire_activity(
        emu,
        "recover_user",
        "ACTIVITY_TYPE_RECOVER_USER",
        sub_id,
        params,
        lambda raw: stamped_headers(raw, first),
    )
    assert (status, out["turnkeyErrorCode"]) == (401, "PUBLIC_KEY_NOT_FOUND")


def test_the_recovery_key_expires(emu):
    sub_id, user_id, _ = sub_org(emu)
    target = TargetKey.generate()
    emu.init_user_email_recovery(
        organization_id=sub_id,
        email=EMAIL,
        target_public_key=target.public_key,
        email_customization=CUSTOMIZATION,
    )
    recovery = recovered_key(emu, target)
    emu.settings.timestamp_window_s = None
    emu.clock.advance(901)
    device = VirtualAuthenticator()
    params = {"userId": user_id, "authenticator": device.authenticator_params("late")}
    raw = encode(activity_body("ACTIVITY_TYPE_RECOVER_USER", sub_id, params))
    before = state_digest(emu)
    status, out = post(emu, "/public/v1/submit/recover_user", raw, stamped_headers(raw, recovery))
    assert (status, out["turnkeyErrorCode"]) == (401, "API_KEY_EXPIRED")
    assert state_digest(emu) == before


def test_the_sub_organizations_own_users(emu):
    sub_id, user_id, root_key = sub_org(emu)
    target = TargetKey.generate()
    # Its root user may (no policy needed by the root quorum) ...
    started = emu.init_user_email_recovery(
        organization_id=sub_id,
        email=EMAIL,
        target_public_key=target.public_key,
        email_customization=CUSTOMIZATION,
        caller=root_key,
    )
    assert started["userId"] == user_id
    # ... another user without a policy may not.
    other_key = new_key()
    emu.create_users(
        organization_id=sub_id,
        caller=root_key,
        users=[
            {
                "userName": "erin",
                "apiKeys": [api_key_params(other_key)],
                "authenticators": [],
                "oauthProviders": [],
                "userTags": [],
            }
        ],
    )
    error = fails(
        emu,
        emu.init_user_email_recovery,
        organization_id=sub_id,
        email=EMAIL,
        target_public_key=target.public_key,
        email_customization=CUSTOMIZATION,
        caller=other_key,
    )
    assert error_of(error)[:2] == (403, 7)


# ----- recover_user ---------------------------------------------------------------------


def _recovering(emu) -> tuple[str, str, ApiKeyPair]:
    sub_id, user_id, _ = sub_org(emu)
    target = TargetKey.generate()
    emu.init_user_email_recovery(
        organization_id=sub_id,
        email=EMAIL,
        target_public_key=target.public_key,
        email_customization=CUSTOMIZATION,
    )
    return sub_id, user_id, recovered_key(emu, target)


def test_recover_user_through_the_facade_as_the_recovery_key(emu):
    sub_id, user_id, recovery = _recovering(emu)
    device = VirtualAuthenticator()
    out = emu.recover_user(
        organization_id=sub_id,
        caller=recovery,
        user_id=user_id,
        authenticator=device.authenticator_params("facade"),
    )
    assert out["activity"]["votes"][0]["publicKey"] == recovery.public_key
    (authenticator_id,) = out["authenticatorId"]
    # The new passkey acts through the facade too.
    who = emu.whoami(organization_id=sub_id, caller=device)
    assert who["userId"] == user_id
    got = emu.get_authenticator(organization_id=sub_id, authenticator_id=authenticator_id)
    assert got["authenticator"]["credentialId"] == device.credential_id_b64


def test_recover_user_refusals_change_nothing(emu, turnkey_org):
    sub_id, user_id, recovery = _recovering(emu)
    device = VirtualAuthenticator()
    good = device.authenticator_params("p")
    # A broken attestation: the real 400.
    broken = {**good, "attestation": {**good["attestation"], "attestationObject": "AAAA"}}
    error = fails(
        emu,
        emu.recover_user,
        organization_id=sub_id,
        caller=recovery,
        user_id=user_id,
        authenticator=broken,
    )
    assert error_of(error) == (400, 3, messages.INVALID_ATTESTATION, "REQUEST_INVALID")
    # A user with the key of a root user is the root user: an unknown user is the 404.
    error = fails(
        emu,
        emu.recover_user,
        organization_id=sub_id,
        caller=recovery,
        user_id="00000000-0000-4000-8000-000000000000",
        authenticator=good,
    )
    assert error_of(error)[:2] == (404, 5)
    # The parent cannot run it in the sub-organization.
    error = fails(
        emu,
        emu.recover_user,
        organization_id=sub_id,
        caller=turnkey_org,
        user_id=user_id,
        authenticator=good,
    )
    assert error.turnkey_error_code == "ORGANIZATION_MISMATCH"
    # The same passkey twice: the real duplicate error, the first stays.
    emu.recover_user(organization_id=sub_id, caller=recovery, user_id=user_id, authenticator=good)
    error = fails(
        emu,
        emu.recover_user,
        organization_id=sub_id,
        caller=recovery,
        user_id=user_id,
        authenticator=good,
    )
    assert error.status == 400


def test_recover_user_wire_errors_are_exact(emu):
    sub_id, user_id, recovery = _recovering(emu)
    device = VirtualAuthenticator()
    params = {"userId": user_id, "authenticator": device.authenticator_params("p")}
    raw = encode(activity_body("ACTIVITY_TYPE_RECOVER_USER", sub_id, params))
    before = state_digest(emu)
    other = encode(activity_body("ACTIVITY_TYPE_RECOVER_USER", sub_id, {**params, "userId": "x"}))
    status, out = post(
        emu,
        "/public/v1/submit/recover_user",
        raw,
        {"x-stamp": stamped_headers(other, recovery)["x-stamp"]},
    )
    assert (status, out["message"]) == (401, "could not verify api key signature")
    assert state_digest(emu) == before
    with pytest.raises(TurnkeyApiError):
        emu.whoami(organization_id=sub_id, caller=device)  # not registered


def test_a_user_without_any_policy_recovers_only_themselves(emu):
    sub_id, carol_id, root_key = sub_org(emu)
    made = emu.create_users(
        organization_id=sub_id,
        caller=root_key,
        users=[
            {
                "userName": "erin",
                "userEmail": "erin@example.com",
                "apiKeys": [],
                "authenticators": [],
                "oauthProviders": [],
                "userTags": [],
            }
        ],
    )
    (erin_id,) = made["userIds"]
    target = TargetKey.generate()
    started = emu.init_user_email_recovery(
        organization_id=sub_id,
        email="erin@example.com",
        target_public_key=target.public_key,
        email_customization=CUSTOMIZATION,
    )
    assert started["userId"] == erin_id
    erin_recovery = recovered_key(emu, target, "erin@example.com")
    device = VirtualAuthenticator()
    error = fails(
        emu,
        emu.recover_user,
        organization_id=sub_id,
        caller=erin_recovery,
        user_id=carol_id,
        authenticator=device.authenticator_params("takeover"),
    )
    assert error_of(error)[:2] == (403, 7)
    out = emu.recover_user(
        organization_id=sub_id,
        caller=erin_recovery,
        user_id=erin_id,
        authenticator=device.authenticator_params("erin's phone"),
    )
    assert out["activity"]["status"] == COMPLETED
    assert emu.whoami(organization_id=sub_id, caller=device)["userId"] == erin_id
