"""Sub-organizations: create (every version), act inside, delete, find (list_suborgs and
list_verified_suborgs), through the facade, the wire and the official SDK."""

from __future__ import annotations

from typing import Any

import pytest

from emulator import Emulator, OrganizationHandle
from emulator.accounts import account_spec
from emulator.crypto.api_keys import ApiKeyPair
from emulator.facade.oidc import OidcProvider
from emulator.ground import messages
from emulator.ground.errors import TurnkeyApiError
from emulator.testing import VirtualAuthenticator, client_crypto
from emulator.testing.client_crypto import TargetKey

from .helpers import (
    NIL_UUID,
    activity_body,
    api_key_params,
    error_of,
    fails,
    new_key,
    state_digest,
    violations,
)

ETH = "ADDRESS_FORMAT_ETHEREUM"
COMPLETED = "ACTIVITY_STATUS_COMPLETED"
SUB_FEATURES = [
    {"name": "FEATURE_NAME_EMAIL_RECOVERY", "value": ""},
    {"name": "FEATURE_NAME_EMAIL_AUTH", "value": ""},
    {"name": "FEATURE_NAME_SMS_AUTH", "value": ""},
    {"name": "FEATURE_NAME_OTP_EMAIL_AUTH", "value": ""},
]


# An identity provider with Google's issuer name: registration verifies a token's signature
# under its issuer's keys, so the emulator is told to trust this one.
GOOGLE = OidcProvider("https://accounts.google.com")


@pytest.fixture
def emu(turnkey_emulator, turnkey_org):
    turnkey_emulator.oidc.trust(GOOGLE)
    return turnkey_emulator


def root_user(name: str = "root", key: ApiKeyPair | None = None, **extra: Any) -> dict:
    """V4 root user params (what V7 takes)."""
    return {
        "userName": name,
        "apiKeys": [api_key_params(key)] if key is not None else [],
        "authenticators": [],
        "oauthProviders": [],
        **extra,
    }


def oidc_token(sub: str = "1234", aud: str = "app") -> str:
    """An OIDC token of ``GOOGLE`` (which the ``emu`` fixture trusts)."""
    return GOOGLE.token(sub=sub, aud=aud)


def new_sub(emu, name: str = "Sub", key: ApiKeyPair | None = None, **params: Any) -> dict:
    """A sub-organization (V7) with one root user holding ``key``; answer the facade's result."""
    key = key or new_key()
    params.setdefault("root_users", [root_user("root", key)])
    params.setdefault("root_quorum_threshold", 1)
    return emu.create_sub_organization(sub_organization_name=name, **params)


def org_record(emu, org_id: str):
    return emu.world.store.organizations[org_id]


# --- create_sub_organization: the default version ------------------------------------


def test_create_sub_organization_v7(emu, turnkey_org):
    key = new_key()
    params = {
        "subOrganizationName": "Alice's org",
        "rootUsers": [root_user("alice", key, userEmail="alice@acme.test")],
        "rootQuorumThreshold": 1,
        "wallet": {"walletName": "main", "accounts": [account_spec(ETH)]},
    }
    made = emu.call("create_sub_organization", params)
    sub_id, (user_id,) = made["subOrganizationId"], made["rootUserIds"]
    activity = made["activity"]
    assert (activity["type"], activity["status"], activity["organizationId"]) == (
        "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
        COMPLETED,
        turnkey_org.organization_id,
    )
    assert activity["intent"] == {"createSubOrganizationIntentV7": params}
    wallet = made["wallet"]
    assert activity["result"]["createSubOrganizationResultV7"] == {
        "subOrganizationId": sub_id,
        "wallet": wallet,
        "rootUserIds": [user_id],
    }
    assert len(wallet["addresses"]) == 1 and wallet["addresses"][0].startswith("0x")
    sub = org_record(emu, sub_id)
    assert (sub.name, sub.parent_id) == ("Alice's org", turnkey_org.organization_id)
    assert org_record(emu, turnkey_org.organization_id).sub_organization_ids == [sub_id]
    # the parent's key reads the sub-organization
    assert emu.get_organization_configs(organization_id=sub_id)["configs"] == {
        "features": SUB_FEATURES,
        "quorum": {"threshold": 1, "userIds": [user_id]},
    }
    (user,) = emu.list_users(organization_id=sub_id)["users"]
    assert (user["userId"], user["userName"], user["userEmail"]) == (
        user_id,
        "alice",
        "alice@acme.test",
    )
    assert [k["credential"]["publicKey"] for k in user["apiKeys"]] == [key.public_key]
    (listed,) = emu.list_wallets(organization_id=sub_id)["wallets"]
    assert (listed["walletId"], listed["walletName"]) == (wallet["walletId"], "main")
    # the root user's own key acts inside, as that user
    whoami = emu.whoami(organization_id=sub_id, caller=key)
    assert {k: v for k, v in whoami.items() if k != "activity"} == {
        "organizationId": sub_id,
        "organizationName": "Alice's org",
        "userId": user_id,
        "username": "alice",
    }
    # and the parent's organization is unchanged
    assert len(emu.list_users()["users"]) == 1
    assert emu.list_wallets()["wallets"] == []


def test_sub_organization_root_users_act_with_their_own_keys(emu):
    key = new_key()
    sub_id = new_sub(emu, key=key)["subOrganizationId"]
    made = emu.create_wallet(
        wallet_name="mine", accounts=[account_spec(ETH)], organization_id=sub_id, caller=key
    )
    assert made["activity"]["status"] == COMPLETED
    assert made["activity"]["organizationId"] == sub_id
    signed = emu.sign_raw_payload(
        sign_with=made["addresses"][0],
        payload="00" * 32,
        encoding="PAYLOAD_ENCODING_HEXADECIMAL",
        hash_function="HASH_FUNCTION_NO_OP",
        organization_id=sub_id,
        caller=key,
    )
    assert signed["v"] in ("00", "01")
    activities = emu.list_activities(organization_id=sub_id)["activities"]
    assert {a["type"] for a in activities} == {
        "ACTIVITY_TYPE_CREATE_WALLET",
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
    }


def test_the_parent_reads_a_sub_organization_but_cannot_write_there(emu, turnkey_org):
    sub_id = new_sub(emu)["subOrganizationId"]
    assert emu.list_wallets(organization_id=sub_id)["wallets"] == []
    error = fails(emu, emu.create_wallet, wallet_name="w", accounts=[], organization_id=sub_id)
    assert error_of(error) == (
        400,
        3,
        messages.organization_mismatch(sub_id, turnkey_org.organization_id),
        "ORGANIZATION_MISMATCH",
    )


def test_a_sub_organization_cannot_create_sub_organizations(emu):
    key = new_key()
    sub_id = new_sub(emu, key=key)["subOrganizationId"]
    error = fails(
        emu,
        emu.create_sub_organization,
        sub_organization_name="nested",
        root_users=[root_user("nested", new_key())],
        root_quorum_threshold=1,
        organization_id=sub_id,
        caller=key,
    )
    assert error_of(error) == (
        400,
        3,
        "this activity cannot be called by sub-organizations",
        "INVALID_ACTIVITY_CALLER",
    )


def test_a_parent_may_have_many_sub_organizations_unless_limited(emu, turnkey_org):
    made = [new_sub(emu, f"sub {i}")["subOrganizationId"] for i in range(5)]
    assert emu.list_suborgs(pagination_options={"limit": "100"})["organizationIds"] == made
    emu.settings.max_sub_organizations_per_organization = 5
    error = fails(emu, new_sub, emu, "one more")
    assert error_of(error) == (
        429,
        8,
        "organization has exceeded maximum sub-organizations",
        "RATE_LIMIT_EXCEEDED",
    )


@pytest.mark.parametrize("threshold", [0, -1])
def test_a_threshold_of_zero_or_less(emu, threshold):
    error = fails(emu, new_sub, emu, root_quorum_threshold=threshold)
    assert error_of(error) == (
        400,
        3,
        "quorum threshold must be non-zero integer",
        "REQUEST_INVALID",
    )


def test_a_threshold_above_the_number_of_root_users(emu):
    users = [root_user("a", new_key()), root_user("b", new_key())]
    error = fails(emu, new_sub, emu, root_users=users, root_quorum_threshold=3)
    assert error_of(error) == (
        400,
        3,
        "quorum threshold must be less than or equal to the number of quorum users "
        "threshold=3 users=2",
        "REQUEST_INVALID",
    )
    made = new_sub(emu, root_users=users, root_quorum_threshold=2)
    quorum = emu.get_organization_configs(organization_id=made["subOrganizationId"])["configs"]
    assert quorum["quorum"] == {"threshold": 2, "userIds": made["rootUserIds"]}


def test_schema_errors_name_the_fields(emu):
    error = fails(emu, new_sub, emu, root_users=[])
    assert error_of(error) == (
        400,
        3,
        "invalid request (fieldViolations: rootUsers)",
        "REQUEST_INVALID",
    )
    assert violations(error) == [
        {"field": "rootUsers", "description": "This field must contain at least 1 item(s)."}
    ]
    bad = root_user("x", userEmail="not-an-email", userPhoneNumber="5551234")
    error = fails(emu, new_sub, emu, "", root_users=[bad])
    assert violations(error) == [
        {"field": "subOrganizationName", "description": "This field is required."},
        {
            "field": "rootUsers.0.userEmail",
            "description": "This field must be a valid e-mail address.",
        },
        {
            "field": "rootUsers.0.userPhoneNumber",
            "description": "This field must be a valid phone number in E.164 format.",
        },
    ]


def test_a_failure_after_the_first_root_user_changes_nothing(emu):
    key = new_key()
    bad_key = {"apiKeyName": "k", "publicKey": "02" + "00" * 10, "curveType": "API_KEY_CURVE_P256"}
    users = [root_user("good", key), {**root_user("bad"), "apiKeys": [bad_key]}]
    error = fails(emu, new_sub, emu, root_users=users)
    assert violations(error) == [
        {
            "field": "rootUsers.1.apiKeys.0.publicKey",
            "description": "This field must be a valid API_KEY_CURVE_P256 public key.",
        }
    ]
    # a wallet that cannot be made undoes the users and the organization made before it
    error = fails(
        emu, new_sub, emu, key=key, wallet={"walletName": "w", "accounts": [], "mnemonicLength": 13}
    )
    assert error.message == messages.invalid_mnemonic_length(13)
    assert emu.list_suborgs()["organizationIds"] == []
    assert key.public_key not in emu.world.store.api_keys_by_public_key


def test_the_same_key_twice_in_one_sub_organization_but_also_in_the_parent(emu, turnkey_org):
    key = new_key()
    twice = [root_user("a", key), root_user("b", key)]
    error = fails(emu, new_sub, emu, root_users=twice)
    assert error_of(error) == (
        400,
        3,
        messages.duplicate_api_key(key.public_key),
        "REQUEST_INVALID",
    )
    # the parent's root key may also be a root key of a sub-organization: inside, it acts
    # as the sub-organization's user
    parent_key = turnkey_org.api_key
    made = new_sub(emu, key=parent_key)
    sub_id = made["subOrganizationId"]
    assert emu.whoami(organization_id=sub_id)["userId"] == made["rootUserIds"][0]
    assert emu.create_wallet(wallet_name="w", accounts=[], organization_id=sub_id)["walletId"]


@pytest.mark.parametrize(
    ("flag", "feature"),
    [
        ("disableEmailRecovery", "FEATURE_NAME_EMAIL_RECOVERY"),
        ("disableEmailAuth", "FEATURE_NAME_EMAIL_AUTH"),
        ("disableSmsAuth", "FEATURE_NAME_SMS_AUTH"),
        ("disableOtpEmailAuth", "FEATURE_NAME_OTP_EMAIL_AUTH"),
    ],
)
def test_each_disable_flag_leaves_its_feature_out(emu, flag, feature):
    sub_id = new_sub(emu, **{flag: True})["subOrganizationId"]
    features = emu.get_organization_configs(organization_id=sub_id)["configs"]["features"]
    assert features == [f for f in SUB_FEATURES if f["name"] != feature]
    sub_id = new_sub(emu, "other", **{flag: False})["subOrganizationId"]
    assert emu.get_organization_configs(organization_id=sub_id)["configs"]["features"] == (
        SUB_FEATURES
    )


def test_all_features_disabled(emu):
    flags = {f: True for f in ("disableEmailRecovery", "disableEmailAuth")}
    flags.update(disableSmsAuth=True, disableOtpEmailAuth=True)
    sub_id = new_sub(emu, **flags)["subOrganizationId"]
    assert emu.get_organization_configs(organization_id=sub_id)["configs"]["features"] == []


def test_a_sub_organization_holds_ten_tags_a_parent_a_hundred(emu):
    key = new_key()
    sub_id = new_sub(emu, key=key)["subOrganizationId"]
    for i in range(10):
        emu.create_user_tag(user_tag_name=f"t{i}", user_ids=[], organization_id=sub_id, caller=key)
    error = fails(
        emu,
        emu.create_user_tag,
        user_tag_name="eleventh",
        user_ids=[],
        organization_id=sub_id,
        caller=key,
    )
    assert error_of(error) == (429, 8, messages.MAX_TAGS, "RATE_LIMIT_EXCEEDED")
    for i in range(11):
        emu.create_user_tag(user_tag_name=f"t{i}", user_ids=[])
    assert len(emu.list_user_tags()["userTags"]) == 11
    emu.settings.max_tags_per_sub_organization = 11
    emu.create_user_tag(user_tag_name="now", user_ids=[], organization_id=sub_id, caller=key)


def test_root_users_count_against_the_user_limit(emu):
    emu.settings.max_users_per_organization = 2
    users = [root_user(name, new_key()) for name in ("a", "b", "c")]
    error = fails(emu, new_sub, emu, root_users=users)
    assert error_of(error) == (429, 8, messages.MAX_USERS, "RATE_LIMIT_EXCEEDED")


# --- every version -------------------------------------------------------------------


def _authenticator():
    device = VirtualAuthenticator()
    return device, {
        "authenticatorName": "laptop",
        "challenge": "Y2hhbGxlbmdl",
        "attestation": device.register("Y2hhbGxlbmdl"),
    }


def _v1_key(key: ApiKeyPair) -> dict:
    return {"apiKeyName": "k", "publicKey": key.public_key}


WALLET = {"walletName": "w", "accounts": [account_spec(ETH)], "mnemonicLength": 15}
PRIVATE_KEY = {
    "privateKeyName": "pk",
    "curve": "CURVE_SECP256K1",
    "privateKeyTags": [],
    "addressFormats": [ETH],
}


def _params(version: int, key: ApiKeyPair, authenticator: dict) -> dict:
    """The parameters of each version, each with what that version can carry."""
    user: dict = {
        "userName": "root",
        "userEmail": "root@acme.test",
        "apiKeys": [_v1_key(key)],
        "authenticators": [authenticator],
    }
    params: dict = {"subOrganizationName": f"v{version}", "rootQuorumThreshold": 1}
    if version >= 5:
        user["oauthProviders"] = [{"providerName": "google", "oidcToken": oidc_token()}]
    if version >= 6:
        user["apiKeys"] = [api_key_params(key)]
    if version >= 7:
        user["userPhoneNumber"] = "+15555550100"
    if version == 8:
        claims = {"iss": "https://accounts.google.com", "sub": "1234", "aud": "app"}
        user["oauthProviders"] = [{"providerName": "google", "oidcClaims": claims}]
    params["rootUsers"] = [user]
    if version == 3:
        params["privateKeys"] = [PRIVATE_KEY]
    if version >= 4:
        params["wallet"] = WALLET
        params["disableEmailAuth"] = True
    return params


RESULT_KEYS = {
    2: "createSubOrganizationResult",
    3: "createSubOrganizationResultV3",
    4: "createSubOrganizationResultV4",
    5: "createSubOrganizationResultV5",
    6: "createSubOrganizationResultV6",
    7: "createSubOrganizationResultV7",
    8: "createSubOrganizationResultV8",
}


@pytest.mark.parametrize("version", sorted(RESULT_KEYS))
def test_every_version(emu, turnkey_org, version):
    key = new_key("API_KEY_CURVE_SECP256K1" if version >= 6 else "API_KEY_CURVE_P256")
    device, authenticator = _authenticator()
    params = _params(version, key, authenticator)
    activity_type = f"ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V{version}"
    made = emu.call("create_sub_organization", params, activity_type=activity_type)
    activity = made["activity"]
    assert (activity["type"], activity["status"]) == (activity_type, COMPLETED)
    assert activity["intent"] == {f"createSubOrganizationIntentV{version}": params}
    sub_id, (user_id,) = made["subOrganizationId"], made["rootUserIds"]
    result = activity["result"][RESULT_KEYS[version]]
    expected: dict = {"subOrganizationId": sub_id}
    if version == 3:
        (entry,) = result["privateKeys"]
        expected["privateKeys"] = [entry]
        (key_record,) = emu.list_private_keys(organization_id=sub_id)["privateKeys"]
        assert entry == {
            "privateKeyId": key_record["privateKeyId"],
            "addresses": key_record["addresses"],
        }
    if version >= 4:
        expected["wallet"] = made["wallet"]
        mnemonic = emu.backdoor.mnemonic(made["wallet"]["walletId"], organization_id=sub_id)
        assert len(mnemonic.split()) == 15
    expected["rootUserIds"] = [user_id]
    assert result == expected
    # the official SDK's models read this version's intent and result
    sdk_types = pytest.importorskip("turnkey_sdk_types")
    parsed = sdk_types.v1Activity.model_validate(activity)
    assert getattr(parsed.intent, f"createSubOrganizationIntentV{version}") is not None
    assert getattr(parsed.result, RESULT_KEYS[version]).subOrganizationId == sub_id
    (user,) = emu.list_users(organization_id=sub_id)["users"]
    assert user["userEmail"] == "root@acme.test"
    assert [k["credential"]["type"] for k in user["apiKeys"]] == [
        "CREDENTIAL_TYPE_API_KEY_SECP256K1" if version >= 6 else "CREDENTIAL_TYPE_API_KEY_P256"
    ]
    assert [a["credentialId"] for a in user["authenticators"]] == [device.credential_id_b64]
    providers = [(p["issuer"], p["subject"], p["audience"]) for p in user["oauthProviders"]]
    assert providers == ([("https://accounts.google.com", "1234", "app")] if version >= 5 else [])
    assert user.get("userPhoneNumber") == ("+15555550100" if version >= 7 else None)
    features = emu.get_organization_configs(organization_id=sub_id)["configs"]["features"]
    disabled = {"FEATURE_NAME_EMAIL_AUTH"} if version >= 4 else set()
    assert features == [f for f in SUB_FEATURES if f["name"] not in disabled]
    assert emu.whoami(organization_id=sub_id, caller=key)["userId"] == user_id


def _signup_token(emu, contact: str) -> tuple[str, TargetKey]:
    """A verification token of the encrypted OTP flow for ``contact``, and its bound key."""
    started = emu.init_otp(otp_type="OTP_TYPE_EMAIL", contact=contact, app_name="Acme")
    code = emu.outbox.last().fields["otpCode"]
    key = TargetKey.generate()
    bundle = client_crypto.encrypt_otp_code(
        started["otpEncryptionTargetBundle"],
        code,
        key.compressed_public_key,
        tls_fetcher_public_key=emu.enclave.tls_fetcher_public_key,
    )
    made = emu.verify_otp(otp_id=started["otpId"], encrypted_otp_bundle=bundle)
    return made["verificationToken"], key


def test_a_verification_token_and_client_signature_verify_the_root_users_email(emu):
    token, key = _signup_token(emu, "new@example.com")
    signature = client_crypto.client_signature_for_signup(
        token, key.api_key, {"email": "new@example.com"}
    )
    made = new_sub(
        emu,
        root_users=[root_user("root", new_key(), userEmail="new@example.com")],
        verification_token=token,
        client_signature=signature,
    )
    intent = made["activity"]["intent"]["createSubOrganizationIntentV7"]
    assert (intent["verificationToken"], intent["clientSignature"]) == (token, signature)
    sub = org_record(emu, made["subOrganizationId"])
    (user,) = sub.users.values()
    assert (user.email, user.email_verified) == ("new@example.com", True)
    # A token is used once.
    with pytest.raises(TurnkeyApiError) as again:
        new_sub(
            emu,
            name="Again",
            root_users=[root_user("root", new_key(), userEmail="new@example.com")],
            verification_token=token,
            client_signature=signature,
        )
    assert again.value.message == messages.VERIFICATION_TOKEN_USED


def test_a_forged_verification_token_or_signature_is_refused_and_changes_nothing(emu):
    forged = {
        "publicKey": "02" + "11" * 32,
        "scheme": "CLIENT_SIGNATURE_SCHEME_API_P256",
        "message": "{}",
        "signature": "22" * 64,
    }
    before = state_digest(emu)
    with pytest.raises(TurnkeyApiError) as bad_token:
        new_sub(emu, verification_token="a.b.c", client_signature=forged)
    assert (bad_token.value.status, bad_token.value.message) == (
        400,
        messages.INVALID_VERIFICATION_TOKEN,
    )
    token, _ = _signup_token(emu, "new@example.com")
    middle = state_digest(emu)
    with pytest.raises(TurnkeyApiError) as bad_signature:
        new_sub(
            emu,
            root_users=[root_user("root", new_key(), userEmail="new@example.com")],
            verification_token=token,
            client_signature=forged,
        )
    assert bad_signature.value.status == 400
    assert bad_signature.value.message.startswith("invalid client signature")
    assert state_digest(emu) == middle != before


def test_v8_on_the_wire(wire, turnkey_emulator, turnkey_org):
    key = new_key()
    params = _params(8, key, _authenticator()[1])
    body = activity_body(
        "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8", turnkey_org.organization_id, params
    )
    status, answer = wire.post(
        "/public/v1/submit/create_sub_organization", body, turnkey_org.api_key
    )
    assert status == 200
    result = answer["activity"]["result"]["createSubOrganizationResultV8"]
    sub_id = result["subOrganizationId"]
    whoami = {"organizationId": sub_id}
    status, answer = wire.post("/public/v1/query/whoami", whoami, key)
    assert (status, answer["userId"]) == (200, result["rootUserIds"][0])


# --- delete_sub_organization ------------------------------------------------------------


def test_delete_needs_every_wallet_and_private_key_exported(emu):
    key = new_key()
    made = new_sub(emu, key=key, wallet={"walletName": "w", "accounts": [account_spec(ETH)]})
    sub_id, wallet_id = made["subOrganizationId"], made["wallet"]["walletId"]
    delete = emu.delete_sub_organization
    error = fails(emu, delete, organization_id=sub_id, caller=key)
    assert error_of(error) == (
        400,
        3,
        messages.not_exported(messages.WALLET_NOT_EXPORTED, wallet_id),
        "",
    )
    sub = org_record(emu, sub_id)
    sub.wallets[wallet_id].exported = True
    (key_id,) = [
        k["privateKeyId"]
        for k in emu.create_private_keys(
            private_keys=[PRIVATE_KEY], organization_id=sub_id, caller=key
        )["privateKeys"]
    ]
    error = fails(emu, delete, delete_without_export=False, organization_id=sub_id, caller=key)
    assert error.message == (
        f"private key has not been exported: set deleteWithoutExport to delete it anyway "
        f"id={key_id}"
    )
    sub.private_keys[key_id].exported = True
    deleted = delete(organization_id=sub_id, caller=key)
    assert deleted["subOrganizationUuid"] == sub_id
    assert deleted["activity"]["intent"] == {"deleteSubOrganizationIntent": {}}
    assert deleted["activity"]["result"]["deleteSubOrganizationResult"] == {
        "subOrganizationUuid": sub_id
    }


def test_delete_without_export_removes_everything(emu, turnkey_org):
    key = new_key()
    made = new_sub(emu, key=key, wallet={"walletName": "w", "accounts": [account_spec(ETH)]})
    sub_id, wallet_id = made["subOrganizationId"], made["wallet"]["walletId"]
    keys = emu.create_private_keys(private_keys=[PRIVATE_KEY], organization_id=sub_id, caller=key)
    key_id = keys["privateKeys"][0]["privateKeyId"]
    sub = org_record(emu, sub_id)
    inside = list(sub.activities)
    kept = new_sub(emu, "kept")["subOrganizationId"]
    deleted = emu.delete_sub_organization(
        delete_without_export=True, organization_id=sub_id, caller=key
    )
    assert deleted["subOrganizationUuid"] == sub_id
    assert deleted["activity"]["organizationId"] == sub_id
    store = emu.world.store
    assert sub_id not in store.organizations
    assert org_record(emu, turnkey_org.organization_id).sub_organization_ids == [kept]
    assert key.public_key not in store.api_keys_by_public_key
    assert wallet_id not in store.vault.wallets and key_id not in store.vault.private_keys
    gone = [*inside, deleted["activity"]["id"]]
    assert not set(gone) & set(store.activities_by_id)
    assert all(a.organization_id != sub_id for a in store.activities_by_fingerprint.values())
    assert emu.list_suborgs()["organizationIds"] == [kept]
    error = fails(emu, emu.list_wallets, organization_id=sub_id, caller=turnkey_org)
    assert error_of(error) == (
        404,
        5,
        messages.organization_not_found(sub_id),
        "ORGANIZATION_NOT_FOUND",
    )


def test_a_deletion_rolls_back_with_a_checkpoint(emu):
    key = new_key()
    made = new_sub(emu, key=key, wallet={"walletName": "w", "accounts": [account_spec(ETH)]})
    sub_id = made["subOrganizationId"]
    mark = emu.checkpoint()
    before = state_digest(emu)
    emu.delete_sub_organization(delete_without_export=True, organization_id=sub_id, caller=key)
    emu.rollback(mark)
    assert state_digest(emu) == before
    assert emu.whoami(organization_id=sub_id, caller=key)["userId"] == made["rootUserIds"][0]
    address = made["wallet"]["addresses"][0]
    assert emu.backdoor.private_key(address, organization_id=sub_id)


def test_only_the_sub_organization_deletes_itself(emu, turnkey_org):
    sub_id = new_sub(emu)["subOrganizationId"]
    error = fails(
        emu, emu.delete_sub_organization, delete_without_export=True, organization_id=sub_id
    )
    assert error_of(error) == (
        400,
        3,
        messages.organization_mismatch(sub_id, turnkey_org.organization_id),
        "ORGANIZATION_MISMATCH",
    )
    error = fails(emu, emu.delete_sub_organization, delete_without_export=True)
    assert error_of(error) == (
        400,
        3,
        "organization is not a sub-organization: only a sub-organization can be deleted "
        f"organizationId={turnkey_org.organization_id}",
        "REQUEST_INVALID",
    )


# --- list_suborgs and list_verified_suborgs ---------------------------------------------


@pytest.fixture
def three(emu):
    """Three sub-organizations, each with something of its own to be found by."""
    device, authenticator = _authenticator()
    keys = [new_key() for _ in range(3)]
    first = new_sub(
        emu,
        "first",
        root_users=[root_user("ann", keys[0], userEmail="Ann@Acme.test")],
        wallet={"walletName": "w", "accounts": [account_spec(ETH)]},
    )
    second = new_sub(
        emu,
        "second",
        root_users=[
            root_user(
                "bob",
                keys[1],
                userPhoneNumber="+15555550100",
                authenticators=[authenticator],
                oauthProviders=[{"providerName": "google", "oidcToken": oidc_token(sub="bob")}],
            )
        ],
    )
    third = new_sub(emu, "third", root_users=[root_user("cid", keys[2])])
    ids = [s["subOrganizationId"] for s in (first, second, third)]
    return {
        "ids": ids,
        "keys": keys,
        "users": [s["rootUserIds"][0] for s in (first, second, third)],
        "credential_id": device.credential_id_b64,
        "address": first["wallet"]["addresses"][0],
    }


def suborgs(emu, **body) -> list[str]:
    return emu.list_suborgs(**body)["organizationIds"]


def test_list_suborgs_filters(emu, three):
    first, second, third = three["ids"]
    assert suborgs(emu) == [first, second, third]
    assert emu.get_sub_org_ids()["organizationIds"] == [first, second, third]
    cases = [
        ("NAME", "second", [second]),
        ("NAME", "Second", []),
        ("USERNAME", "cid", [third]),
        ("EMAIL", "ann@acme.test", [first]),
        ("PHONE_NUMBER", "+15555550100", [second]),
        ("CREDENTIAL_ID", three["credential_id"], [second]),
        ("PUBLIC_KEY", three["keys"][2].public_key, [third]),
        ("PUBLIC_KEY", three["keys"][2].public_key.upper(), [third]),
        ("WALLET_ACCOUNT_ADDRESS", three["address"], [first]),
        ("WALLET_ACCOUNT_ADDRESS", three["address"].lower(), []),
        ("OIDC_TOKEN", oidc_token(sub="bob"), [second]),
        ("OIDC_TOKEN", oidc_token(sub="ann"), []),
        ("USERNAME", "nobody", []),
    ]
    for filter_type, value, expected in cases:
        assert suborgs(emu, filter_type=filter_type, filter_value=value) == expected, filter_type


def test_list_suborgs_pagination(emu, three):
    first, second, third = three["ids"]
    assert suborgs(emu, pagination_options={"limit": "2"}) == [first, second]
    assert suborgs(emu, pagination_options={"after": first}) == [second, third]
    assert suborgs(emu, pagination_options={"before": third, "limit": "1"}) == [second]
    error = fails(emu, suborgs, emu, pagination_options={"after": NIL_UUID})
    assert error_of(error) == (
        400,
        3,
        messages.invalid_pagination_cursor(NIL_UUID),
        "REQUEST_INVALID",
    )


def test_list_suborgs_bad_filters(emu, three):
    error = fails(emu, suborgs, emu, filter_type="COLOUR", filter_value="red")
    assert violations(error) == [
        {
            "field": "filterType",
            "description": "This field must be one of NAME, USERNAME, EMAIL, PHONE_NUMBER, "
            "CREDENTIAL_ID, PUBLIC_KEY, WALLET_ACCOUNT_ADDRESS, OIDC_TOKEN.",
        }
    ]
    error = fails(emu, suborgs, emu, filter_type="NAME")
    assert violations(error) == [
        {"field": "filterValue", "description": "This field is required when filterType is given."}
    ]
    error = fails(emu, suborgs, emu, filter_value="first")
    assert violations(error) == [
        {"field": "filterType", "description": "This field is required when filterValue is given."}
    ]
    error = fails(emu, suborgs, emu, filter_type="OIDC_TOKEN", filter_value="not.a-token")
    assert error_of(error) == (400, 3, messages.INVALID_OIDC_TOKEN, "INVALID_OIDC_TOKEN")


def test_a_sub_organization_has_no_sub_organizations(emu, three):
    assert suborgs(emu, organization_id=three["ids"][0]) == []


def test_list_verified_suborgs(emu, three):
    first, second, _ = three["ids"]
    verified = emu.list_verified_suborgs
    assert verified()["organizationIds"] == []
    assert (
        emu.get_verified_sub_org_ids(filter_type="EMAIL", filter_value="ann@acme.test")[
            "organizationIds"
        ]
        == []
    )
    emu.backdoor.verify_contact(three["users"][0])
    assert verified()["organizationIds"] == [first]
    assert verified(filter_type="EMAIL", filter_value="ANN@acme.test")["organizationIds"] == [first]
    assert verified(filter_type="PUBLIC_KEY", filter_value=three["keys"][0].public_key)[
        "organizationIds"
    ] == [first]
    # bob's phone is not verified yet: his sub-organization is not found by it
    phone = {"filter_type": "PHONE_NUMBER", "filter_value": "+15555550100"}
    assert verified(**phone)["organizationIds"] == []
    token = {"filter_type": "OIDC_TOKEN", "filter_value": oidc_token(sub="bob")}
    assert verified(**token)["organizationIds"] == []
    emu.backdoor.verify_contact(three["users"][1], email=False, phone_number=True)
    assert verified(**phone)["organizationIds"] == [second]
    assert verified(**token)["organizationIds"] == [second]
    assert verified()["organizationIds"] == [first, second]
    assert verified(pagination_options={"after": first})["organizationIds"] == [second]
    error = fails(emu, verified, filter_type="NAME", filter_value="first")
    assert violations(error) == [
        {
            "field": "filterType",
            "description": "This field must be one of EMAIL, PHONE_NUMBER, OIDC_TOKEN, PUBLIC_KEY.",
        }
    ]


def test_verify_contact_is_state_and_checks_its_user(emu, three):
    mark = emu.checkpoint()
    emu.backdoor.verify_contact(three["users"][0])
    assert org_record(emu, three["ids"][0]).users[three["users"][0]].email_verified is True
    emu.rollback(mark)
    assert emu.list_verified_suborgs()["organizationIds"] == []
    with pytest.raises(ValueError, match="has no e-mail address"):
        emu.backdoor.verify_contact(three["users"][2])
    with pytest.raises(ValueError, match="has no phone number"):
        emu.backdoor.verify_contact(three["users"][0], email=False, phone_number=True)
    with pytest.raises(KeyError):
        emu.backdoor.verify_contact(NIL_UUID)


# --- state: checkpoints, snapshots, documents -------------------------------------------


def test_sub_organizations_survive_save_and_load(emu, three, tmp_path):
    emu.backdoor.verify_contact(three["users"][0])
    path = tmp_path / "state.json"
    emu.save(path)
    again = Emulator.load(path)
    assert again.list_suborgs()["organizationIds"] == three["ids"]
    assert again.list_verified_suborgs()["organizationIds"] == [three["ids"][0]]
    for sub_id in three["ids"]:
        assert (
            again.get_organization_configs(organization_id=sub_id)["configs"]
            == (emu.get_organization_configs(organization_id=sub_id)["configs"])
        )
    key = three["keys"][2]
    assert again.whoami(organization_id=three["ids"][2], caller=key)["userId"] == three["users"][2]
    snap = emu.snapshot()
    emu.delete_sub_organization(
        delete_without_export=True, organization_id=three["ids"][2], caller=key
    )
    emu.restore(snap)
    assert suborgs(emu) == three["ids"]


# --- the official SDK ------------------------------------------------------------------


def sdk_client(sdk, emu, org_id: str, user_id: str, key: ApiKeyPair):
    """An official client for a sub-organization's root key, on the same way in as ``sdk``."""
    handle = OrganizationHandle(org_id, "", user_id, "", "", key)
    return emu.client(handle, base_url=sdk.base_url)


def test_sub_organizations_through_the_sdk(sdk, turnkey_emulator, turnkey_org):
    from turnkey_sdk_types import (
        CreateSubOrganizationBody,
        DeleteSubOrganizationBody,
        GetSubOrgIdsBody,
        GetVerifiedSubOrgIdsBody,
        GetWhoamiBody,
        v1ApiKeyParamsV2,
        v1Pagination,
        v1RootUserParamsV4,
        v1WalletAccountParams,
        v1WalletParams,
    )

    key = new_key()
    made = sdk.create_sub_organization(
        CreateSubOrganizationBody(
            subOrganizationName="through the SDK",
            rootUsers=[
                v1RootUserParamsV4(
                    userName="root",
                    userEmail="root@acme.test",
                    apiKeys=[
                        v1ApiKeyParamsV2(
                            apiKeyName="k", publicKey=key.public_key, curveType="API_KEY_CURVE_P256"
                        )
                    ],
                    authenticators=[],
                    oauthProviders=[],
                )
            ],
            rootQuorumThreshold=1,
            wallet=v1WalletParams(
                walletName="w", accounts=[v1WalletAccountParams(**account_spec(ETH))]
            ),
            disableSmsAuth=True,
        )
    )
    sub_id, (user_id,) = made.subOrganizationId, made.rootUserIds
    assert made.activity.status.value == COMPLETED
    assert made.wallet is not None and len(made.wallet.addresses) == 1
    ids = sdk.get_sub_org_ids(GetSubOrgIdsBody(paginationOptions=v1Pagination(limit="10")))
    assert ids.organizationIds == [sub_id]
    by_email = sdk.get_sub_org_ids(
        GetSubOrgIdsBody(filterType="EMAIL", filterValue="root@acme.test")
    )
    assert by_email.organizationIds == [sub_id]
    assert sdk.get_verified_sub_org_ids(GetVerifiedSubOrgIdsBody()).organizationIds == []
    turnkey_emulator.backdoor.verify_contact(user_id)
    verified = sdk.get_verified_sub_org_ids(
        GetVerifiedSubOrgIdsBody(filterType="EMAIL", filterValue="root@acme.test")
    )
    assert verified.organizationIds == [sub_id]
    inside = sdk_client(sdk, turnkey_emulator, sub_id, user_id, key)
    assert inside.get_whoami(GetWhoamiBody()).userId == user_id
    deleted = inside.delete_sub_organization(DeleteSubOrganizationBody(deleteWithoutExport=True))
    assert deleted.subOrganizationUuid == sub_id
    assert sdk.get_sub_org_ids(GetSubOrgIdsBody()).organizationIds == []


def test_a_deleted_sub_organization_of_the_facade_is_not_saved(emu, turnkey_org):
    handle = emu.create_organization(
        "facade sub", parent_organization_id=turnkey_org.organization_id
    )
    sub_id = handle.organization_id
    assert emu.get_organization_configs(organization_id=sub_id)["configs"]["features"] == (
        SUB_FEATURES
    )
    emu.delete_sub_organization(delete_without_export=True, organization_id=sub_id)
    again = Emulator.from_document(emu.to_document())
    assert sub_id not in again.world.store.organizations
    assert again.organization().organization_id == turnkey_org.organization_id
    with pytest.raises(KeyError):
        emu.organization(sub_id)
