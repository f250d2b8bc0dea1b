"""The rest of users and organizations: update_user_name, update_user_email,
update_user_phone_number (with verification tokens), create_api_only_users, get_organization,
and the older activity types (CREATE_POLICY V1/V2 with selectors, CREATE_SUB_ORGANIZATION V1)."""

from __future__ import annotations

import json

import pytest

from emulator import Emulator
from emulator.crypto.authenticator import VirtualAuthenticator
from emulator.ground import messages
from emulator.http.app import handle
from emulator.policy import selectors
from emulator.testing.client_crypto import TargetKey

from .helpers import (
    activity_body,
    add_user,
    api_key_params,
    error_of,
    fails,
    new_key,
    stamped_headers,
    violations,
)

EMAIL = "alice@acme.test"
PHONE = "+15555550123"
COMPLETED = "ACTIVITY_STATUS_COMPLETED"


def user_of(emu, user_id: str) -> dict:
    return emu.get_user(user_id=user_id)["user"]


def verification_token(emu, contact: str, otp_type: str = "OTP_TYPE_EMAIL") -> str:
    """A verification token for ``contact``, through the encrypted OTP flow."""
    from emulator.testing import client_crypto

    started = emu.init_otp(otp_type=otp_type, contact=contact, app_name="Acme")
    (message,) = [m for m in emu.outbox if m.fields["otpId"] == started["otpId"]]
    key = TargetKey.generate()
    bundle = client_crypto.encrypt_otp_code(
        started["otpEncryptionTargetBundle"],
        message.fields["otpCode"],
        key.compressed_public_key,
        tls_fetcher_public_key=emu.enclave.tls_fetcher_public_key,
    )
    made = emu.verify_otp(otp_id=started["otpId"], encrypted_otp_bundle=bundle)
    return made["verificationToken"]


# ----- update_user_name / _email / _phone_number -------------------------------------------


def test_update_user_name_through_the_official_sdk(sdk, turnkey_emulator, turnkey_org):
    from turnkey_sdk_types import UpdateUserNameBody

    alice, _ = add_user(turnkey_emulator, "alice")
    answer = sdk.update_user_name(UpdateUserNameBody(userId=alice, userName="Alice Liddell"))
    assert answer.activity.status.value == COMPLETED
    assert answer.activity.type.value == "ACTIVITY_TYPE_UPDATE_USER_NAME"
    assert answer.userId == alice
    assert user_of(turnkey_emulator, alice)["userName"] == "Alice Liddell"
    intent = answer.activity.intent.updateUserNameIntent
    assert (intent.userId, intent.userName) == (alice, "Alice Liddell")


def test_update_user_email_and_phone_number_through_the_official_sdk(
    sdk, turnkey_emulator, turnkey_org
):
    from turnkey_sdk_types import UpdateUserEmailBody, UpdateUserPhoneNumberBody

    alice, _ = add_user(turnkey_emulator, "alice")
    answer = sdk.update_user_email(UpdateUserEmailBody(userId=alice, userEmail=EMAIL))
    assert (answer.activity.status.value, answer.userId) == (COMPLETED, alice)
    answer = sdk.update_user_phone_number(
        UpdateUserPhoneNumberBody(userId=alice, userPhoneNumber=PHONE)
    )
    assert (answer.activity.status.value, answer.userId) == (COMPLETED, alice)
    user = user_of(turnkey_emulator, alice)
    assert (user["userEmail"], user["userPhoneNumber"]) == (EMAIL, PHONE)


def test_a_new_contact_without_a_token_is_unproven_and_an_empty_one_removes_it(
    turnkey_emulator,
):
    emu = turnkey_emulator
    alice, _ = add_user(emu, "alice")
    emu.update_user_email(user_id=alice, user_email=EMAIL)
    record = emu.world.store.organizations[emu._first_org_id].users[alice]
    assert (record.email, record.email_verified) == (EMAIL, False)
    emu.update_user_email(user_id=alice, user_email="")
    assert "userEmail" not in user_of(emu, alice) and record.email is None
    emu.update_user_phone_number(user_id=alice, user_phone_number=PHONE)
    emu.update_user_phone_number(user_id=alice, user_phone_number="")
    assert record.phone_number is None


def test_a_verification_token_proves_the_new_email_once(turnkey_emulator):
    emu = turnkey_emulator
    alice, _ = add_user(emu, "alice")
    token = verification_token(emu, EMAIL)
    emu.update_user_email(user_id=alice, user_email=EMAIL, verification_token=token)
    record = emu.world.store.organizations[emu._first_org_id].users[alice]
    assert (record.email, record.email_verified) == (EMAIL, True)
    bob, _ = add_user(emu, "bob")
    error = fails(
        emu, emu.update_user_email, user_id=bob, user_email=EMAIL, verification_token=token
    )
    assert error_of(error) == (400, 3, messages.VERIFICATION_TOKEN_USED, "")
    # a later change of address is unproven again
    emu.update_user_email(user_id=alice, user_email="other@acme.test")
    assert record.email_verified is False


def test_a_verification_token_proves_the_new_phone_number(turnkey_emulator):
    emu = turnkey_emulator
    alice, _ = add_user(emu, "alice")
    token = verification_token(emu, PHONE, "OTP_TYPE_SMS")
    emu.update_user_phone_number(user_id=alice, user_phone_number=PHONE, verification_token=token)
    record = emu.world.store.organizations[emu._first_org_id].users[alice]
    assert (record.phone_number, record.phone_number_verified) == (PHONE, True)


@pytest.mark.parametrize(
    ("field", "value", "token_for"),
    [
        ("email", "mallory@acme.test", (EMAIL, "OTP_TYPE_EMAIL")),  # another address
        ("email", EMAIL, (PHONE, "OTP_TYPE_SMS")),  # a phone token for an e-mail
        ("email", "", (EMAIL, "OTP_TYPE_EMAIL")),  # a token to remove it
        ("phone", "+15555550199", (PHONE, "OTP_TYPE_SMS")),
    ],
)
def test_a_token_for_another_contact_is_refused_and_changes_nothing(
    turnkey_emulator, field, value, token_for
):
    emu = turnkey_emulator
    alice, _ = add_user(emu, "alice")
    token = verification_token(emu, *token_for)
    before = user_of(emu, alice)
    if field == "email":
        call, kwargs, name = emu.update_user_email, {"user_email": value}, "userEmail"
    else:
        call, kwargs, name = (
            emu.update_user_phone_number,
            {"user_phone_number": value},
            ("userPhoneNumber"),
        )
    error = fails(emu, call, user_id=alice, verification_token=token, **kwargs)
    assert error_of(error) == (400, 3, messages.verification_token_not_for(name), "")
    assert user_of(emu, alice) == before


def test_bad_values_and_unknown_users(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    alice, _ = add_user(emu, "alice")
    error = fails(emu, emu.update_user_email, user_id=alice, user_email="not an address")
    assert [v["field"] for v in violations(error)] == ["userEmail"]
    error = fails(emu, emu.update_user_phone_number, user_id=alice, user_phone_number="555")
    assert [v["field"] for v in violations(error)] == ["userPhoneNumber"]
    error = fails(emu, emu.update_user_name, user_id=alice, user_name="")
    assert [v["field"] for v in violations(error)] == ["userName"]
    error = fails(
        emu, emu.update_user_email, user_id=alice, user_email=EMAIL, verification_token="x"
    )
    assert error_of(error) == (400, 3, messages.INVALID_VERIFICATION_TOKEN, "")
    missing = "00000000-0000-4000-8000-000000000000"
    error = fails(emu, emu.update_user_name, user_id=missing, user_name="x")
    assert error.status == 404
    assert error.message == messages.user_not_found(missing, turnkey_org.organization_id)


def test_user_updates_are_judged_by_the_policy_engine(turnkey_emulator):
    emu = turnkey_emulator
    alice, alice_key = add_user(emu, "alice")
    error = fails(emu, emu.update_user_name, user_id=alice, user_name="x", caller=alice_key)
    assert error.status == 403
    emu.create_policy(
        policy_name="names",
        effect="EFFECT_ALLOW",
        notes="",
        condition="activity.type == 'ACTIVITY_TYPE_UPDATE_USER_NAME'",
    )
    done = emu.update_user_name(user_id=alice, user_name="x", caller=alice_key)
    assert done["activity"]["status"] == COMPLETED


# ----- create_api_only_users ---------------------------------------------------------------


def test_api_only_users_are_created_with_keys_that_stamp(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    key = new_key()
    tag = emu.create_user_tag(user_tag_name="bots", user_ids=[])["userTagId"]
    body = activity_body(
        "ACTIVITY_TYPE_CREATE_API_ONLY_USERS",
        turnkey_org.organization_id,
        {
            "apiOnlyUsers": [
                {
                    "userName": "bot",
                    "userEmail": "bot@acme.test",
                    "userTags": [tag],
                    "apiKeys": [{"apiKeyName": "bot key", "publicKey": key.public_key}],
                },
                {"userName": "bare bot", "userTags": [], "apiKeys": []},
            ]
        },
    )
    raw = json.dumps(body).encode()
    status, payload = handle(
        emu.world,
        "POST",
        "/public/v1/submit/create_api_only_users",
        stamped_headers(raw, turnkey_org.api_key),
        raw,
    )
    answer = json.loads(payload)
    assert status == 200, answer
    activity = answer["activity"]
    assert (activity["status"], activity["type"]) == (
        COMPLETED,
        "ACTIVITY_TYPE_CREATE_API_ONLY_USERS",
    )
    bot, bare = activity["result"]["createApiOnlyUsersResult"]["userIds"]
    assert "createApiOnlyUsersIntent" in activity["intent"]
    made = user_of(emu, bot)
    assert (made["userName"], made["userEmail"], made["userTags"]) == (
        "bot",
        "bot@acme.test",
        [tag],
    )
    assert made["authenticators"] == [] and made["oauthProviders"] == []
    (api_key,) = made["apiKeys"]
    assert api_key["credential"] == {
        "publicKey": key.public_key,
        "type": "CREDENTIAL_TYPE_API_KEY_P256",
    }
    assert user_of(emu, bare)["apiKeys"] == []
    who = json.dumps({"organizationId": turnkey_org.organization_id}).encode()
    status, payload = handle(
        emu.world, "POST", "/public/v1/query/whoami", stamped_headers(who, key), who
    )
    assert status == 200 and json.loads(payload)["userId"] == bot


def test_api_only_users_need_their_lists_and_a_user(turnkey_emulator, turnkey_org, wire):
    emu = turnkey_emulator
    error = fails(emu, emu.create_api_only_users, api_only_users=[])
    assert [v["field"] for v in violations(error)] == ["apiOnlyUsers"]
    # the wire requires the lists (the facade fills the usual empty ones)
    body = activity_body(
        "ACTIVITY_TYPE_CREATE_API_ONLY_USERS",
        turnkey_org.organization_id,
        {"apiOnlyUsers": [{"userName": "x", "userTags": []}]},
    )
    status, answer = wire.post("/public/v1/submit/create_api_only_users", body, turnkey_org.api_key)
    assert status == 400
    assert [v["field"] for v in answer["details"][-1]["fieldViolations"]] == [
        "apiOnlyUsers.0.apiKeys"
    ]
    assert [u["userName"] for u in emu.get_users()["users"]] == ["Root User"]
    made = emu.create_api_only_users(api_only_users=[{"userName": "x"}])
    assert len(made["userIds"]) == 1


# ----- get_organization ---------------------------------------------------------------------


def test_get_organization_holds_everything(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    alice, _ = add_user(emu, "alice")
    wallet = emu.create_wallet(wallet_name="w", accounts=[])["walletId"]
    key = emu.create_private_keys(
        private_keys=[
            {
                "privateKeyName": "k",
                "curve": "CURVE_SECP256K1",
                "privateKeyTags": [],
                "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
            }
        ]
    )["privateKeys"][0]["privateKeyId"]
    emu.create_policy(policy_name="p", effect="EFFECT_ALLOW", notes="", condition="true")
    emu.create_user_tag(user_tag_name="team", user_ids=[alice])
    emu.create_invitations(
        invitations=[
            {
                "receiverUserName": "carol",
                "receiverUserEmail": "carol@acme.test",
                "receiverUserTags": [],
                "accessType": "ACCESS_TYPE_WEB",
                "senderUserId": turnkey_org.user_id,
            }
        ]
    )
    data = emu.get_organization()["organizationData"]
    assert (data["organizationId"], data["name"]) == (
        turnkey_org.organization_id,
        turnkey_org.organization_name,
    )
    assert data["users"] == emu.get_users()["users"]
    assert data["wallets"] == emu.get_wallets()["wallets"]
    assert [k["privateKeyId"] for k in data["privateKeys"]] == [key]
    assert data["policies"] == emu.get_policies()["policies"]
    assert [t["tagName"] for t in data["tags"]] == ["team"]
    (invitation,) = data["invitations"]
    assert (invitation["receiverEmail"], invitation["status"]) == (
        "carol@acme.test",
        "INVITATION_STATUS_CREATED",
    )
    assert data["rootQuorum"] == {"threshold": 1, "userIds": [turnkey_org.user_id]}
    assert data["features"] == emu.get_organization_configs()["configs"]["features"]
    assert data["smartContractInterfaceReferences"] == []
    assert wallet in [w["walletId"] for w in data["wallets"]]


def test_a_parent_reads_its_sub_organization(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    sub = emu.create_organization("Sub", parent_organization_id=turnkey_org.organization_id)
    data = emu.get_organization(organization_id=sub.organization_id, caller=turnkey_org.api_key)
    assert data["organizationData"]["organizationId"] == sub.organization_id


# ----- the older activity types -------------------------------------------------------------


@pytest.mark.parametrize(
    ("selector", "expression"),
    [
        (
            {"subject": "activity.type", "operator": "OPERATOR_EQUAL", "target": "A"},
            "activity.type == 'A'",
        ),
        (
            {"subject": "activity.type", "operator": "OPERATOR_NOT_EQUAL", "target": "A"},
            "activity.type != 'A'",
        ),
        (
            {"subject": "eth.tx.value", "operator": "OPERATOR_MORE_THAN", "target": "10"},
            "eth.tx.value > 10",
        ),
        (
            {"subject": "eth.tx.value", "operator": "OPERATOR_LESS_THAN_OR_EQUAL", "target": "10"},
            "eth.tx.value <= 10",
        ),
        (
            {"subject": "wallet.label", "operator": "OPERATOR_CONTAINS", "target": "hot"},
            "wallet.label.contains('hot')",
        ),
        (
            {"subject": "activity.type", "operator": "OPERATOR_IN", "targets": ["A", "B"]},
            "activity.type in ['A', 'B']",
        ),
        (
            {"subject": "activity.type", "operator": "OPERATOR_NOT_IN", "targets": ["A"]},
            "!(activity.type in ['A'])",
        ),
        (
            {"subject": "activity.type", "operator": "OPERATOR_EQUAL", "targets": ["A", "B"]},
            "activity.type in ['A', 'B']",
        ),
        (
            {"subject": "user.tags", "operator": "OPERATOR_CONTAINS_ONE", "targets": ["t1", "t2"]},
            "['t1', 't2'].any(x, user.tags.contains(x))",
        ),
        (
            {"subject": "user.tags", "operator": "OPERATOR_CONTAINS_ALL", "targets": ["t1"]},
            "['t1'].all(x, user.tags.contains(x))",
        ),
    ],
)
def test_each_selector_operator_reads_as_an_expression(selector, expression):
    assert selectors.expression(selector) == expression


def test_selectors_join_with_and_and_bad_ones_are_refused():
    assert selectors.condition([]) is None
    both = [
        {"subject": "activity.type", "operator": "OPERATOR_EQUAL", "target": "A"},
        {"subject": "wallet.id", "operator": "OPERATOR_EQUAL", "target": "w"},
    ]
    assert selectors.condition(both) == "(activity.type == 'A') && (wallet.id == 'w')"
    for bad in (
        {"subject": "activity.type", "operator": "OPERATOR_EQUAL", "target": "it's"},
        {"subject": "1 == 1 ||", "operator": "OPERATOR_EQUAL", "target": "A"},
        {"subject": "x", "operator": "OPERATOR_MORE_THAN", "targets": ["1", "2"]},
    ):
        with pytest.raises(selectors.SelectorError):
            selectors.expression(bad)


@pytest.mark.parametrize(
    ("activity_type", "selector"),
    [
        (
            "ACTIVITY_TYPE_CREATE_POLICY",
            {
                "subject": "activity.type",
                "operator": "OPERATOR_EQUAL",
                "target": "ACTIVITY_TYPE_CREATE_WALLET",
            },
        ),
        (
            "ACTIVITY_TYPE_CREATE_POLICY_V2",
            {
                "subject": "activity.type",
                "operator": "OPERATOR_IN",
                "targets": ["ACTIVITY_TYPE_CREATE_WALLET"],
            },
        ),
    ],
)
def test_a_selector_policy_is_enforced_like_its_condition(
    turnkey_emulator, activity_type, selector
):
    emu = turnkey_emulator
    _, alice = add_user(emu, "alice")
    assert fails(emu, emu.create_wallet, wallet_name="w", accounts=[], caller=alice).status == 403
    made = emu.call(
        "create_policy",
        {"policyName": "wallets", "effect": "EFFECT_ALLOW", "selectors": [selector]},
        activity_type=activity_type,
    )
    activity = made["activity"]
    assert (activity["status"], activity["type"]) == (COMPLETED, activity_type)
    intent_key = (
        "createPolicyIntent" if activity_type.endswith("POLICY") else "createPolicyIntentV2"
    )
    assert activity["intent"][intent_key]["selectors"] == [selector]
    policy = emu.get_policy(policy_id=made["policyId"])["policy"]
    assert policy["condition"] == selectors.condition([selector])
    assert policy["notes"] == ""
    done = emu.create_wallet(wallet_name="w", accounts=[], caller=alice)
    assert done["activity"]["status"] == COMPLETED


def test_a_selector_that_does_not_read_is_a_400(turnkey_emulator):
    emu = turnkey_emulator
    error = fails(
        emu,
        emu.call,
        "create_policy",
        {
            "policyName": "bad",
            "effect": "EFFECT_ALLOW",
            "selectors": [{"subject": "a", "operator": "OPERATOR_EQUAL", "target": "it's"}],
        },
        activity_type="ACTIVITY_TYPE_CREATE_POLICY",
    )
    assert error.status == 400 and error.message.startswith("invalid policy selectors: ")
    assert emu.get_policies()["policies"] == []


def test_create_sub_organization_v1_makes_a_passkey_root_user(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    device = VirtualAuthenticator()
    made = emu.call(
        "create_sub_organization",
        {"name": "end user", "rootAuthenticator": device.authenticator_params("laptop")},
        activity_type="ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION",
    )
    activity = made["activity"]
    assert (activity["status"], activity["type"]) == (
        COMPLETED,
        "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION",
    )
    result = activity["result"]["createSubOrganizationResult"]
    sub_id = result["subOrganizationId"]
    (root_id,) = result["rootUserIds"]
    sub = emu.get_organization(organization_id=sub_id)["organizationData"]
    assert sub["name"] == "end user" and sub["rootQuorum"] == {"threshold": 1, "userIds": [root_id]}
    (root,) = sub["users"]
    assert root["userName"] == "Root User" and [
        a["authenticatorName"] for a in root["authenticators"]
    ] == ["laptop"]
    who = json.dumps({"organizationId": sub_id}).encode()
    status, payload = handle(
        emu.world, "POST", "/public/v1/query/whoami", {"x-stamp-webauthn": device.stamp(who)}, who
    )
    assert status == 200 and json.loads(payload)["userId"] == root_id


def test_the_typescript_client_creates_api_only_users_and_reads_the_organization():
    from tests.typescript import client_calls, typescript_or_skip

    ts = typescript_or_skip()
    from emulator.crypto.api_keys import generate_key_pair

    emu = Emulator(seed=8)
    root = generate_key_pair()
    org = emu.create_organization(api_public_key=root.public_key, api_private_key=root.private_key)
    bot_key = new_key()
    create_body = {
        "type": "ACTIVITY_TYPE_CREATE_API_ONLY_USERS",
        "timestampMs": str(emu.clock.now_ms()),
        "organizationId": org.organization_id,
        "parameters": {
            "apiOnlyUsers": [
                {"userName": "bot", "userTags": [], "apiKeys": [api_key_params(bot_key, "bot key")]}
            ]
        },
    }
    created, organization = client_calls(
        ts,
        emu.world,
        root,
        [
            ("createApiOnlyUsers", create_body),
            ("getOrganization", {"organizationId": org.organization_id}),
        ],
    )
    (bot_id,) = created["activity"]["result"]["createApiOnlyUsersResult"]["userIds"]
    names = [u["userName"] for u in organization["organizationData"]["users"]]
    assert names == ["Root User", "bot"]
    assert bot_id in [u["userId"] for u in organization["organizationData"]["users"]]
