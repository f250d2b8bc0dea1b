"""email_auth: the parent's backend mails a sub-organization's user a credential bundle.

The key the bundle carries is checked the way a client uses it: opened with the
target key, then stamping real requests over the wire until it expires.
"""

from __future__ import annotations

import json

import pytest

from emulator.ground import messages
from emulator.recorders.outbox import DEFAULT_SENDER_ADDRESS
from emulator.testing.client_crypto import TargetKey, decrypt_credential_bundle

from .helpers import (
    activity_body,
    add_user,
    api_key_params,
    error_of,
    fails,
    new_key,
    violations,
)

COMPLETED = "ACTIVITY_STATUS_COMPLETED"
EMAIL_AUTH_KEY = "CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256"
ALICE = "alice@acme.test"
APP = {"appName": "Acme Wallet"}


@pytest.fixture
def emu(turnkey_emulator, turnkey_org):
    turnkey_emulator.clock.freeze()
    return turnkey_emulator


def now_s(emu) -> int:
    return emu.clock.now_ns() // 1_000_000_000


def sub_org(emu, *, email: str = ALICE, **flags):
    """A sub-organization whose root user alice has ``email`` and an API key:
    ``(sub_id, alice_id, alice_key)``."""
    key = new_key()
    made = emu.create_sub_organization(
        subOrganizationName="Alice's",
        rootUsers=[
            {
                "userName": "alice",
                "userEmail": email,
                "apiKeys": [api_key_params(key, "alice key")],
                "authenticators": [],
                "oauthProviders": [],
            }
        ],
        rootQuorumThreshold=1,
        **flags,
    )
    return made["subOrganizationId"], made["rootUserIds"][0], key


def target(n: int = 1) -> TargetKey:
    return TargetKey.generate(bytes([n]) * 32)


def whoami(wire, organization_id: str, key):
    return wire.post("/public/v1/query/whoami", {"organizationId": organization_id}, key)


def keys_of(emu, organization_id: str, user_id: str, caller=None) -> list[dict]:
    kwargs = {} if caller is None else {"caller": caller}
    found = emu.get_api_keys(organization_id=organization_id, userId=user_id, **kwargs)
    return found["apiKeys"]


# ----- the flow ---------------------------------------------------------------------------


def test_email_auth_from_the_parent(emu, turnkey_org):
    sub_id, alice_id, _ = sub_org(emu)
    customization = {
        **APP,
        "logoUrl": "https://acme.test/logo.png",
        "magicLinkTemplate": "https://acme.test/auth?bundle=%s",
        "templateId": "tpl-1",
    }
    params = {"email": ALICE, "targetPublicKey": target().public_key}
    params["emailCustomization"] = customization
    made = emu.call("email_auth", params, organization_id=sub_id)

    activity = made.pop("activity")
    key_id = made["apiKeyId"]
    assert made == {"userId": alice_id, "apiKeyId": key_id}
    assert (activity["type"], activity["status"]) == ("ACTIVITY_TYPE_EMAIL_AUTH_V3", COMPLETED)
    assert activity["organizationId"] == sub_id
    assert activity["intent"] == {"emailAuthIntentV3": params}
    assert activity["result"]["emailAuthResult"] == {"userId": alice_id, "apiKeyId": key_id}
    # the parent's root user proposed it
    assert [v["userId"] for v in activity["votes"]] == [turnkey_org.user_id]
    # the bundle is in the e-mail, never in the activity
    (message,) = emu.outbox.messages
    bundle = message.fields["credentialBundle"]
    assert bundle not in json.dumps(activity)

    assert message.to_json() == {
        "id": "message-1",
        "timeNs": emu.clock.now_ns(),
        "timeMs": emu.clock.now_ms(),
        "channel": "email",
        "to": ALICE,
        "senderAddress": DEFAULT_SENDER_ADDRESS,
        "senderName": "Notifications",
        "replyTo": None,
        "template": "email_auth",
        "organizationId": sub_id,
        "fields": {
            "credentialBundle": bundle,
            "apiKeyId": key_id,
            "userId": alice_id,
            "appName": "Acme Wallet",
            "logoUrl": "https://acme.test/logo.png",
            "templateId": "tpl-1",
            "magicLink": f"https://acme.test/auth?bundle={bundle}",
        },
    }
    key = decrypt_credential_bundle(bundle, target())
    stamp = now_s(emu)
    assert keys_of(emu, sub_id, alice_id)[-1] == {
        "credential": {"publicKey": key.public_key, "type": EMAIL_AUTH_KEY},
        "apiKeyId": key_id,
        "apiKeyName": f"Email Auth - {stamp}",
        "createdAt": {"seconds": str(stamp), "nanos": str(emu.clock.now_ns() % 10**9)},
        "updatedAt": {"seconds": str(stamp), "nanos": str(emu.clock.now_ns() % 10**9)},
        "expirationSeconds": "900",
    }


def test_the_mailed_key_stamps_requests_until_it_expires(emu, wire):
    sub_id, alice_id, _ = sub_org(emu)
    emu.email_auth(
        email=ALICE,
        targetPublicKey=target().public_key,
        emailCustomization=APP,
        organization_id=sub_id,
    )
    key = decrypt_credential_bundle(emu.outbox.last().fields["credentialBundle"], target())

    status, body = whoami(wire, sub_id, key)
    assert status == 200
    assert (body["organizationId"], body["userId"], body["username"]) == (sub_id, alice_id, "alice")
    # an activity too, in alice's own name: a read-only session
    raw = activity_body("ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION", sub_id, {})
    status, body = wire.post("/public/v1/submit/create_read_only_session", raw, key)
    assert status == 200
    assert body["activity"]["status"] == COMPLETED
    assert body["activity"]["votes"][0]["publicKey"] == key.public_key

    emu.clock.advance(899)
    assert whoami(wire, sub_id, key)[0] == 200
    emu.clock.advance(1)
    status, body = whoami(wire, sub_id, key)
    assert status == 401
    assert body == {
        "code": 16,
        "message": messages.expired_api_key(key.public_key),
        "details": [
            {
                "@type": "type.googleapis.com/errors.v1.TurnkeyErrorDetail",
                "turnkeyErrorCode": "API_KEY_EXPIRED",
            }
        ],
        "turnkeyErrorCode": "API_KEY_EXPIRED",
    }
    # and through the facade, as that key
    error = fails(emu, emu.get_whoami, organization_id=sub_id, caller=key)
    assert error_of(error) == (401, 16, messages.expired_api_key(key.public_key), "API_KEY_EXPIRED")


@pytest.mark.parametrize("version", ["ACTIVITY_TYPE_EMAIL_AUTH", "ACTIVITY_TYPE_EMAIL_AUTH_V2"])
def test_older_versions(emu, version):
    sub_id, alice_id, _ = sub_org(emu)
    params = {"email": ALICE, "targetPublicKey": target().public_key}  # no customization
    made = emu.call("email_auth", params, organization_id=sub_id, activity_type=version)
    activity = made["activity"]
    assert activity["type"] == version
    result = {"userId": alice_id, "apiKeyId": made["apiKeyId"]}
    assert activity["result"]["emailAuthResult"] == result
    if version == "ACTIVITY_TYPE_EMAIL_AUTH":
        assert activity["intent"] == {"emailAuthIntent": params}
        assert activity["result"]["activity"]["intent"] == {"emailAuthIntent": params}
    else:  # the real intent and, beside it, the seed document's name for it
        assert activity["intent"] == {"emailAuthIntentV2": params, "emailAuthIntent": params}
        assert activity["result"]["activity"] == {
            "type": version,
            "intent": {"emailAuthIntent": params},
            "result": {"emailAuthResult": result},
        }
    (message,) = emu.outbox.messages
    assert set(message.fields) == {"credentialBundle", "apiKeyId", "userId"}
    assert decrypt_credential_bundle(message.fields["credentialBundle"], target()).public_key


def test_key_name_expiry_and_invalidate_existing(emu):
    sub_id, alice_id, alice_key = sub_org(emu)
    # alice's other keys: her own, an expiring one and a read-write session key
    emu.create_api_keys(
        userId=alice_id,
        apiKeys=[api_key_params(new_key(), "short", "600")],
        organization_id=sub_id,
        caller=alice_key,
    )
    emu.create_read_write_session(
        targetPublicKey=target(9).public_key, organization_id=sub_id, caller=alice_key
    )

    def email_auth(n: int, **extra) -> str:
        made = emu.email_auth(
            email=ALICE.upper(),  # e-mail addresses match whatever their case
            targetPublicKey=target(n).public_key,
            emailCustomization=APP,
            organization_id=sub_id,
            **extra,
        )
        return made["apiKeyId"]

    first = email_auth(1, apiKeyName="first login", expirationSeconds="60")
    second = email_auth(2)
    third = email_auth(3, invalidateExisting=True)
    keys = keys_of(emu, sub_id, alice_id)
    assert [
        (k["apiKeyName"], k["credential"]["type"], k.get("expirationSeconds")) for k in keys
    ] == [
        ("alice key", "CREDENTIAL_TYPE_API_KEY_P256", None),
        ("short", "CREDENTIAL_TYPE_API_KEY_P256", "600"),
        (
            f"Read Write Session - {now_s(emu)}",
            "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256",
            "900",
        ),
        (f"Email Auth - {now_s(emu)}", EMAIL_AUTH_KEY, "900"),
    ]
    assert keys[-1]["apiKeyId"] == third
    assert first not in {k["apiKeyId"] for k in keys} and second not in {
        k["apiKeyId"] for k in keys
    }
    # before the invalidation, the first key had its own name and lifetime
    first_message = emu.outbox.messages[0]
    assert first_message.fields["apiKeyId"] == first


def test_first_key_name_and_lifetime(emu):
    sub_id, alice_id, _ = sub_org(emu)
    made = emu.email_auth(
        email=ALICE,
        targetPublicKey=target().public_key,
        emailCustomization=APP,
        apiKeyName="from the login page",
        expirationSeconds="60",
        organization_id=sub_id,
    )
    (key,) = [k for k in keys_of(emu, sub_id, alice_id) if k["apiKeyId"] == made["apiKeyId"]]
    assert (key["apiKeyName"], key["expirationSeconds"]) == ("from the login page", "60")


def test_sender_options(emu):
    sub_id, _, _ = sub_org(emu)

    def sender(**options):
        emu.email_auth(
            email=ALICE,
            targetPublicKey=target().public_key,
            emailCustomization=APP,
            organization_id=sub_id,
            **options,
        )
        m = emu.outbox.last()
        return m.sender_address, m.sender_name, m.reply_to

    assert sender(
        sendFromEmailAddress="login@mail.acme.test",
        sendFromEmailSenderName="Acme",
        replyToEmailAddress="help@acme.test",
    ) == ("login@mail.acme.test", "Acme", "help@acme.test")
    # the name defaults to Notifications; no reply-to unless given
    assert sender(sendFromEmailAddress="login@mail.acme.test") == (
        "login@mail.acme.test",
        "Notifications",
        None,
    )
    # without a valid sender address, the name and reply-to are ignored
    ignored = {"sendFromEmailSenderName": "Acme", "replyToEmailAddress": "help@acme.test"}
    assert sender(**ignored) == (DEFAULT_SENDER_ADDRESS, "Notifications", None)
    assert sender(sendFromEmailAddress="not an address", **ignored) == (
        DEFAULT_SENDER_ADDRESS,
        "Notifications",
        None,
    )
    # an invalid reply-to alone is dropped
    assert sender(sendFromEmailAddress="a@acme.test", replyToEmailAddress="nope") == (
        "a@acme.test",
        "Notifications",
        None,
    )


def test_template_variables_are_carried_parsed(emu):
    sub_id, _, _ = sub_org(emu)
    variables = {"username": "alice and bob"}
    emu.email_auth(
        email=ALICE,
        targetPublicKey=target().public_key,
        emailCustomization={**APP, "templateId": "t", "templateVariables": json.dumps(variables)},
        organization_id=sub_id,
    )
    fields = emu.outbox.last().fields
    assert (fields["templateId"], fields["templateVariables"]) == ("t", variables)


# ----- who may run it ---------------------------------------------------------------------


def test_the_sub_organization_itself_may_not(emu):
    sub_id, _, alice_key = sub_org(emu)
    error = fails(
        emu,
        emu.call,
        "email_auth",
        email=ALICE,
        targetPublicKey=target().public_key,
        emailCustomization=APP,
        organization_id=sub_id,
        caller=alice_key,
    )
    assert error_of(error) == (
        400,
        3,
        "this activity cannot be called by sub-organizations",
        "INVALID_ACTIVITY_CALLER",
    )
    assert emu.outbox.messages == []


def test_a_top_level_organization_needs_the_feature(emu, turnkey_org):
    (bob_id,) = emu.create_users(
        users=[
            {
                "userName": "bob",
                "userEmail": "bob@acme.test",
                "apiKeys": [],
                "authenticators": [],
                "oauthProviders": [],
                "userTags": [],
            }
        ]
    )["userIds"]
    params = {"email": "bob@acme.test", "targetPublicKey": target().public_key}
    params["emailCustomization"] = APP
    error = fails(emu, emu.call, "email_auth", params)
    org_id = turnkey_org.organization_id
    assert error_of(error) == (400, 3, messages.email_auth_disabled(org_id), "")
    assert emu.outbox.messages == []
    emu.set_organization_feature(name="FEATURE_NAME_EMAIL_AUTH", value="")
    assert emu.call("email_auth", params)["userId"] == bob_id
    assert emu.outbox.last().organization_id == org_id


def test_a_sub_organization_without_the_feature(emu):
    sub_id, _, _ = sub_org(emu, disableEmailAuth=True)
    params = {"email": ALICE, "targetPublicKey": target().public_key, "emailCustomization": APP}
    error = fails(emu, emu.call, "email_auth", params, organization_id=sub_id)
    assert error_of(error) == (400, 3, messages.email_auth_disabled(sub_id), "")
    # and once its root quorum removes it from a sub-organization that had it
    other_id, _, other_key = sub_org(emu, email="carol@acme.test")
    emu.remove_organization_feature(
        name="FEATURE_NAME_EMAIL_AUTH", organization_id=other_id, caller=other_key
    )
    params["email"] = "carol@acme.test"
    error = fails(emu, emu.call, "email_auth", params, organization_id=other_id)
    assert error_of(error) == (400, 3, messages.email_auth_disabled(other_id), "")
    assert emu.outbox.messages == []


def test_the_parent_policies_judge_it(emu, turnkey_org):
    sub_id, alice_id, _ = sub_org(emu)
    backend_id, backend_key = add_user(emu, "backend")
    params = {"email": ALICE, "targetPublicKey": target().public_key, "emailCustomization": APP}
    error = fails(emu, emu.call, "email_auth", params, organization_id=sub_id, caller=backend_key)
    assert error_of(error) == (403, 7, messages.IMPLICIT_DENY, "")
    # the docs' policy for an API user that initiates email auth, in the parent
    emu.create_policy(
        policyName="email auth",
        effect="EFFECT_ALLOW",
        consensus=f"approvers.any(user, user.id == '{backend_id}')",
        condition="activity.resource == 'AUTH' && activity.action == 'CREATE'",
        notes="",
    )
    made = emu.call("email_auth", params, organization_id=sub_id, caller=backend_key)
    assert made["userId"] == alice_id
    assert made["activity"]["votes"][0]["userId"] == backend_id


def test_an_unrelated_organization_is_unknown_there(emu):
    sub_id, _, _ = sub_org(emu)
    stranger = emu.create_organization("Stranger")
    params = {"email": ALICE, "targetPublicKey": target().public_key, "emailCustomization": APP}
    error = fails(emu, emu.call, "email_auth", params, organization_id=sub_id, caller=stranger)
    assert error_of(error) == (
        401,
        16,
        messages.public_key_not_found(sub_id, stranger.api_public_key, has_parent=True),
        "PUBLIC_KEY_NOT_FOUND",
    )


def test_other_auth_activities_from_the_parent_are_an_organization_mismatch(emu, turnkey_org):
    """Only email_auth is run by the parent in a sub-organization; the sessions are not."""
    sub_id, _, _ = sub_org(emu)
    mismatch = messages.organization_mismatch(sub_id, turnkey_org.organization_id)
    for call, params in [
        ("create_read_write_session", {"targetPublicKey": target().public_key}),
        ("create_read_only_session", {}),
        ("stamp_login", {"publicKey": target().compressed_public_key}),
    ]:
        error = fails(emu, emu.call, call, params, organization_id=sub_id)
        assert error_of(error) == (400, 3, mismatch, "ORGANIZATION_MISMATCH")


# ----- errors: exact, and nothing changes, nothing is sent ---------------------------------


def failed_email_auth(emu, sub_id, **params):
    base = {"email": ALICE, "targetPublicKey": target().public_key, "emailCustomization": APP}
    error = fails(emu, emu.call, "email_auth", {**base, **params}, organization_id=sub_id)
    assert emu.outbox.messages == []
    return error


def test_unknown_email(emu):
    sub_id, _, _ = sub_org(emu)
    error = failed_email_auth(emu, sub_id, email="nobody@acme.test")
    assert error_of(error) == (
        404,
        5,
        messages.user_with_email_not_found("nobody@acme.test", sub_id),
        "",
    )


def test_bad_target_public_key(emu):
    sub_id, _, _ = sub_org(emu)
    error = failed_email_auth(emu, sub_id, targetPublicKey="not hex")
    assert violations(error) == [
        {
            "field": "targetPublicKey",
            "description": "This field must be a valid hexadecimal string.",
        }
    ]
    not_a_point = "04" + "00" * 64
    error = failed_email_auth(emu, sub_id, targetPublicKey=not_a_point)
    assert error_of(error) == (400, 3, messages.invalid_target_public_key(not_a_point), "")


@pytest.mark.parametrize("expiration", ["0", "-5", "abc", "1.5"])
def test_bad_expiration_seconds(emu, expiration):
    sub_id, _, _ = sub_org(emu)
    error = failed_email_auth(emu, sub_id, expirationSeconds=expiration)
    assert error_of(error) == (400, 3, "invalid api key expiration", "REQUEST_INVALID")


def test_bad_customization(emu):
    sub_id, _, _ = sub_org(emu)
    error = failed_email_auth(
        emu, sub_id, emailCustomization={**APP, "magicLinkTemplate": "https://acme.test/auth"}
    )
    assert error_of(error) == (400, 3, "invalid magic link template", "")
    for variables in ("{not json", "[1, 2]"):
        error = failed_email_auth(
            emu, sub_id, emailCustomization={**APP, "templateVariables": variables}
        )
        assert error_of(error) == (400, 3, "failed to unmarshal template variables", "")


def test_v3_requires_the_app_name(emu):
    sub_id, _, _ = sub_org(emu)
    base = {"email": ALICE, "targetPublicKey": target().public_key}
    error = fails(emu, emu.call, "email_auth", base, organization_id=sub_id)
    assert violations(error) == [
        {"field": "emailCustomization", "description": "This field is required."}
    ]
    error = fails(
        emu, emu.call, "email_auth", {**base, "emailCustomization": {}}, organization_id=sub_id
    )
    assert violations(error) == [
        {"field": "emailCustomization.appName", "description": "This field is required."}
    ]
    error = fails(
        emu,
        emu.call,
        "email_auth",
        {**base, "email": "not-an-email", "emailCustomization": APP},
        organization_id=sub_id,
    )
    assert violations(error) == [
        {"field": "email", "description": "This field must be a valid e-mail address."}
    ]
    assert emu.outbox.messages == []


def test_a_failed_activity_sends_nothing_even_after_a_sent_one(emu):
    sub_id, _, _ = sub_org(emu)
    params = {"email": ALICE, "targetPublicKey": target().public_key, "emailCustomization": APP}
    emu.call("email_auth", params, organization_id=sub_id)
    (sent,) = emu.outbox.messages
    error = fails(
        emu, emu.call, "email_auth", {**params, "expirationSeconds": "0"}, organization_id=sub_id
    )
    assert error.status == 400
    assert emu.outbox.messages == [sent]


# ----- through the official Python SDK ----------------------------------------------------


def test_email_auth_through_the_sdk(sdk, turnkey_emulator, turnkey_org):
    from turnkey_api_key_stamper import ApiKeyStamper, ApiKeyStamperConfig
    from turnkey_http import TurnkeyClient
    from turnkey_sdk_types import (
        EmailAuthBody,
        GetWhoamiBody,
        TurnkeyNetworkError,
        v1EmailAuthCustomizationParams,
    )

    emu = turnkey_emulator
    sub_id, alice_id, _ = sub_org(emu)
    response = sdk.email_auth(
        EmailAuthBody(
            organizationId=sub_id,
            email=ALICE,
            targetPublicKey=target().public_key,
            emailCustomization=v1EmailAuthCustomizationParams(
                appName="Acme Wallet", magicLinkTemplate="https://acme.test/%s"
            ),
        )
    )
    assert response.userId == alice_id
    assert response.activity.type.value == "ACTIVITY_TYPE_EMAIL_AUTH_V3"
    assert response.activity.status.value == COMPLETED
    assert response.activity.organizationId == sub_id
    message = emu.outbox.last()
    assert message.fields["apiKeyId"] == response.apiKeyId
    bundle = message.fields["credentialBundle"]
    assert message.fields["magicLink"] == f"https://acme.test/{bundle}"

    key = decrypt_credential_bundle(bundle, target())
    alice = TurnkeyClient(
        base_url=sdk.base_url,
        stamper=ApiKeyStamper(ApiKeyStamperConfig(key.public_key, key.private_key)),
        organization_id=sub_id,
    )
    me = alice.get_whoami(GetWhoamiBody())
    assert (me.organizationId, me.userId, me.username) == (sub_id, alice_id, "alice")

    emu.clock.advance(901)
    with pytest.raises(TurnkeyNetworkError) as caught:
        alice.get_whoami(GetWhoamiBody())
    assert caught.value.status_code == 401
    assert messages.expired_api_key(key.public_key) in str(caught.value)
    # the parent's e-mail auth of an unknown address: the same 404 as the facade's
    with pytest.raises(TurnkeyNetworkError) as caught:
        sdk.email_auth(
            EmailAuthBody(
                organizationId=sub_id,
                email="nobody@acme.test",
                targetPublicKey=target().public_key,
                emailCustomization=v1EmailAuthCustomizationParams(appName="Acme Wallet"),
                timestampMs=str(emu.clock.now_ms()),
            )
        )
    assert caught.value.status_code == 404
    assert messages.user_with_email_not_found("nobody@acme.test", sub_id) in str(caught.value)
    assert len(emu.outbox) == 1
