"""Users: create (every version), update, delete, get, list."""

from __future__ import annotations

import pytest

from emulator import TurnkeyApiError
from emulator.testing import VirtualAuthenticator

from .helpers import NIL_UUID, api_key_params, error_of, fails, new_key, state_digest, user_params


def test_create_users_then_read_them_back(turnkey_emulator, turnkey_org):
    key = new_key()
    made = turnkey_emulator.create_users(
        users=[
            user_params(
                "alice",
                user_email="alice@example.com",
                user_phone_number="+13214567890",
                api_keys=[api_key_params(key, "alice key")],
            ),
            user_params("bob"),
        ]
    )
    alice_id, bob_id = made["userIds"]
    alice = turnkey_emulator.get_user(user_id=alice_id)["user"]
    assert (alice["userName"], alice["userEmail"], alice["userPhoneNumber"]) == (
        "alice",
        "alice@example.com",
        "+13214567890",
    )
    assert [k["credential"]["publicKey"] for k in alice["apiKeys"]] == [key.public_key]
    assert alice["apiKeys"][0]["apiKeyName"] == "alice key"
    assert (
        alice["authenticators"] == []
        and alice["oauthProviders"] == []
        and alice["userTags"] == []
        and alice["mfaPolicies"] == []
    )
    bob = turnkey_emulator.get_user(user_id=bob_id)["user"]
    assert "userEmail" not in bob and "userPhoneNumber" not in bob
    listed = [u["userId"] for u in turnkey_emulator.list_users()["users"]]
    assert listed == [turnkey_org.user_id, alice_id, bob_id]


def test_user_validates_against_the_sdk_model(turnkey_emulator, turnkey_org):
    sdk_types = pytest.importorskip("turnkey_sdk_types")
    authenticator = VirtualAuthenticator().register("challenge")
    turnkey_emulator.create_users(
        users=[
            user_params(
                "alice",
                authenticators=[
                    {
                        "authenticatorName": "pk",
                        "challenge": "challenge",
                        "attestation": authenticator,
                    }
                ],
            )
        ]
    )
    parsed = sdk_types.GetUsersResponse(**turnkey_emulator.list_users())
    assert parsed.users[1].authenticators[0].authenticatorName == "pk"


V1_USER = {
    "userName": "old",
    "accessType": "ACCESS_TYPE_API",
    "apiKeys": [],
    "authenticators": [],
    "userTags": [],
}
V2_USER = {"userName": "older", "apiKeys": [], "authenticators": [], "userTags": []}
V4_USER = {
    "userName": "new",
    "apiKeys": [],
    "authenticators": [],
    "userTags": [],
    "oauthProviders": [
        {
            "providerName": "google",
            "oidcClaims": {"iss": "https://accounts.google.com", "sub": "123", "aud": "app"},
        }
    ],
}


@pytest.mark.parametrize(
    ("activity_type", "intent_key", "user"),
    [
        ("ACTIVITY_TYPE_CREATE_USERS", "createUsersIntent", V1_USER),
        ("ACTIVITY_TYPE_CREATE_USERS_V2", "createUsersIntentV2", V2_USER),
        ("ACTIVITY_TYPE_CREATE_USERS_V3", "createUsersIntentV3", user_params("v3")),
        ("ACTIVITY_TYPE_CREATE_USERS_V4", "createUsersIntentV4", V4_USER),
    ],
)
def test_every_create_users_version(turnkey_emulator, turnkey_org, activity_type, intent_key, user):
    made = turnkey_emulator.create_users(users=[user], activity_type=activity_type)
    activity = made["activity"]
    assert activity["type"] == activity_type and list(activity["intent"]) == [intent_key]
    assert activity["intent"][intent_key]["users"][0]["userName"] == user["userName"]
    created = turnkey_emulator.get_user(user_id=made["userIds"][0])["user"]
    assert created["userName"] == user["userName"]


def test_v4_oauth_provider_from_claims(turnkey_emulator, turnkey_org):
    made = turnkey_emulator.create_users(
        users=[V4_USER], activity_type="ACTIVITY_TYPE_CREATE_USERS_V4"
    )
    (provider,) = turnkey_emulator.get_user(user_id=made["userIds"][0])["user"]["oauthProviders"]
    assert (provider["issuer"], provider["subject"], provider["audience"]) == (
        "https://accounts.google.com",
        "123",
        "app",
    )


def test_a_user_holds_at_most_the_oauth_provider_limit(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    emu.settings.max_oauth_providers_per_user = 2
    provider = V4_USER["oauthProviders"][0]
    providers = [
        {**provider, "oidcClaims": {**provider["oidcClaims"], "sub": str(i)}} for i in range(3)
    ]
    three = {**V4_USER, "oauthProviders": providers}
    error = fails(
        emu, emu.create_users, users=[three], activity_type="ACTIVITY_TYPE_CREATE_USERS_V4"
    )
    assert error_of(error) == (
        429,
        8,
        "user has exceeded maximum oauth providers",
        "RATE_LIMIT_EXCEEDED",
    )


def test_v1_api_keys_are_p256(turnkey_emulator, turnkey_org):
    key = new_key()
    user = {**V1_USER, "apiKeys": [{"apiKeyName": "k", "publicKey": key.public_key}]}
    made = turnkey_emulator.create_users(users=[user], activity_type="ACTIVITY_TYPE_CREATE_USERS")
    (api_key,) = turnkey_emulator.get_user(user_id=made["userIds"][0])["user"]["apiKeys"]
    assert api_key["credential"]["type"] == "CREDENTIAL_TYPE_API_KEY_P256"


def test_create_users_is_all_or_nothing(turnkey_emulator, turnkey_org):
    before = state_digest(turnkey_emulator)
    bad_key = {"apiKeyName": "k", "publicKey": "02" + "ab" * 31, "curveType": "API_KEY_CURVE_P256"}
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.create_users(
            users=[user_params("ok"), user_params("bad", api_keys=[bad_key])]
        )
    assert caught.value.status == 400 and "users.1.apiKeys.0.publicKey" in caught.value.message
    assert state_digest(turnkey_emulator) == before


def test_unknown_user_tag_is_404(turnkey_emulator, turnkey_org):
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.create_users(users=[user_params(user_tags=[NIL_UUID])])
    assert caught.value.status == 404 and NIL_UUID in caught.value.message


def test_user_limit_per_organization(turnkey_emulator, turnkey_org):
    turnkey_emulator.settings.max_users_per_organization = 3
    turnkey_emulator.create_users(users=[user_params("a"), user_params("b")])
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.create_users(users=[user_params("c")])
    assert caught.value.status == 429 and caught.value.code == 8


def test_update_user(turnkey_emulator, turnkey_org):
    user_id = turnkey_emulator.create_users(users=[user_params("alice")])["userIds"][0]
    tag_id = turnkey_emulator.create_user_tag(user_tag_name="admins", user_ids=[])["userTagId"]
    turnkey_emulator.clock.advance(5)
    result = turnkey_emulator.update_user(
        user_id=user_id,
        user_name="alicia",
        user_email="a@example.org",
        user_tag_ids=[tag_id],
        user_phone_number="+15550000000",
    )
    assert result["userId"] == user_id
    assert result["activity"]["intent"] == {
        "updateUserIntent": {
            "userId": user_id,
            "userName": "alicia",
            "userEmail": "a@example.org",
            "userTagIds": [tag_id],
            "userPhoneNumber": "+15550000000",
        }
    }
    user = turnkey_emulator.get_user(user_id=user_id)["user"]
    assert (user["userName"], user["userEmail"], user["userTags"], user["userPhoneNumber"]) == (
        "alicia",
        "a@example.org",
        [tag_id],
        "+15550000000",
    )
    assert int(user["updatedAt"]["seconds"]) >= int(user["createdAt"]["seconds"]) + 5


def test_update_user_with_empty_tag_list_keeps_tags(turnkey_emulator, turnkey_org):
    tag_id = turnkey_emulator.create_user_tag(user_tag_name="t", user_ids=[])["userTagId"]
    user_id = turnkey_emulator.create_users(users=[user_params("alice", user_tags=[tag_id])])[
        "userIds"
    ][0]
    turnkey_emulator.update_user(user_id=user_id, user_name="al", user_tag_ids=[])
    assert turnkey_emulator.get_user(user_id=user_id)["user"]["userTags"] == [tag_id]


def test_update_unknown_user_is_404(turnkey_emulator, turnkey_org):
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.update_user(user_id=NIL_UUID, user_name="x")
    assert caught.value.status == 404
    assert (
        caught.value.message
        == f"unable to find user {NIL_UUID} in organization {turnkey_org.organization_id}"
    )


def test_delete_users(turnkey_emulator, turnkey_org):
    ids = turnkey_emulator.create_users(users=[user_params("a"), user_params("b")])["userIds"]
    assert turnkey_emulator.delete_users(user_ids=ids)["userIds"] == ids
    assert [u["userId"] for u in turnkey_emulator.list_users()["users"]] == [turnkey_org.user_id]
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.get_user(user_id=ids[0])
    assert caught.value.status == 404


def test_deleting_a_root_quorum_user_is_refused(turnkey_emulator, turnkey_org):
    before = state_digest(turnkey_emulator)
    other = turnkey_emulator.create_users(users=[user_params("a")])["userIds"][0]
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.delete_users(user_ids=[other, turnkey_org.user_id])
    assert (caught.value.status, caught.value.message) == (400, "quorum users missing")
    assert len(turnkey_emulator.list_users()["users"]) == 2
    assert before != state_digest(turnkey_emulator)  # only the create_users above landed


def test_delete_unknown_user_changes_nothing(turnkey_emulator, turnkey_org):
    made = turnkey_emulator.create_users(users=[user_params("a")])["userIds"][0]
    before = state_digest(turnkey_emulator)
    with pytest.raises(TurnkeyApiError):
        turnkey_emulator.delete_users(user_ids=[made, NIL_UUID])
    assert state_digest(turnkey_emulator) == before


def test_non_root_user_is_denied_other_activities(turnkey_emulator, turnkey_org):
    key = new_key()
    user_id = turnkey_emulator.create_users(
        users=[user_params("plain", api_keys=[api_key_params(key)])]
    )["userIds"][0]
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.create_users(users=[user_params("x")], caller=key)
    error = caught.value
    assert (error.status, error.code) == (403, 7)
    assert error.message.startswith("You don't have sufficient permissions to take this action.")
    (detail,) = error.details
    assert detail == {
        "@type": "type.googleapis.com/errors.v1.PolicyEnginePermissionError",
        "message": "No policies evaluated to outcome: Allow",
        "policyEvaluations": [],
    }
    # reads are fine, and so is managing its own credentials
    assert turnkey_emulator.get_whoami(caller=key)["userId"] == user_id
    own = turnkey_emulator.create_api_keys(
        user_id=user_id, api_keys=[api_key_params(new_key())], caller=key
    )
    assert len(own["apiKeyIds"]) == 1
    with pytest.raises(TurnkeyApiError):
        turnkey_emulator.create_api_keys(
            user_id=turnkey_org.user_id, api_keys=[api_key_params(new_key())], caller=key
        )
