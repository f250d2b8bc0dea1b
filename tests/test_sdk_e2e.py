"""End to end through the official Python SDK: every operation of the registry.

Each test runs twice, through the ``sdk`` fixture: in-process (``requests``
interception) and over a real socket. Requests are built with the SDK's typed
bodies; where the exact bytes matter, they are stamped with the SDK's
``stamp_*`` methods and sent with ``send_signed_request``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("turnkey_http")

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from turnkey_api_key_stamper import ApiKeyStamper, ApiKeyStamperConfig
from turnkey_http import TurnkeyClient
from turnkey_sdk_types import (
    CreateApiKeysBody,
    CreateApiKeysResponse,
    CreateAuthenticatorsBody,
    CreateAuthenticatorsResponse,
    CreateUsersBody,
    CreateUsersResponse,
    CreateUserTagBody,
    CreateUserTagResponse,
    DeleteApiKeysBody,
    DeleteApiKeysResponse,
    DeleteAuthenticatorsBody,
    DeleteAuthenticatorsResponse,
    DeleteUsersBody,
    DeleteUsersResponse,
    DeleteUserTagsBody,
    DeleteUserTagsResponse,
    GetActivitiesBody,
    GetActivityBody,
    GetApiKeyBody,
    GetApiKeysBody,
    GetAuthenticatorBody,
    GetAuthenticatorsBody,
    GetOrganizationConfigsBody,
    GetUserBody,
    GetUsersBody,
    GetWhoamiBody,
    GetWhoamiResponse,
    ListUserTagsBody,
    SignedRequest,
    TurnkeyNetworkError,
    UpdateUserBody,
    UpdateUserResponse,
    UpdateUserTagBody,
    UpdateUserTagResponse,
    v1ApiKeyParamsV2,
    v1Attestation,
    v1AuthenticatorParamsV2,
    v1Pagination,
    v1UserParamsV3,
)

from emulator import ApiKeyPair, generate_key_pair
from emulator.testing.virtual_authenticator import VirtualAuthenticator

NIL_ORG_ID = "00000000-0000-4000-8000-000000000000"
COMPLETED = "ACTIVITY_STATUS_COMPLETED"
APPROVED = "VOTE_SELECTION_APPROVED"
P256_SCHEME = "SIGNATURE_SCHEME_TK_API_P256"
CHALLENGE = "registration-challenge"


# ----- helpers ---------------------------------------------------------------


def value(field: Any) -> Any:
    """The plain value of an SDK enum field (or the field itself)."""
    return getattr(field, "value", field)


def fingerprint(body: str) -> str:
    return "sha256:" + hashlib.sha256(body.encode()).hexdigest()


def user_params(
    name: str,
    *,
    email: str | None = None,
    api_keys: list[v1ApiKeyParamsV2] | None = None,
    authenticators: list[v1AuthenticatorParamsV2] | None = None,
    tags: list[str] | None = None,
) -> v1UserParamsV3:
    return v1UserParamsV3(
        userName=name,
        userEmail=email,
        apiKeys=api_keys or [],
        authenticators=authenticators or [],
        oauthProviders=[],
        userTags=tags or [],
    )


def api_key_params(
    key: ApiKeyPair, name: str = "key", expiration: str | None = None
) -> v1ApiKeyParamsV2:
    return v1ApiKeyParamsV2(
        apiKeyName=name, publicKey=key.public_key, curveType=key.curve, expirationSeconds=expiration
    )


def passkey_params(
    name: str, device: VirtualAuthenticator | None = None, challenge: str = CHALLENGE
) -> v1AuthenticatorParamsV2:
    """A WebAuthn registration of ``device`` (a fresh one by default) for ``challenge``."""
    registration = (device or VirtualAuthenticator()).register(challenge)
    return v1AuthenticatorParamsV2(
        authenticatorName=name, challenge=challenge, attestation=v1Attestation(**registration)
    )


def client_as(
    sdk: TurnkeyClient, key: ApiKeyPair, organization_id: str | None = None
) -> TurnkeyClient:
    """A second official client, on the same transport as ``sdk``, stamping with ``key``."""
    return TurnkeyClient(
        base_url=sdk.base_url,
        stamper=ApiKeyStamper(ApiKeyStamperConfig(key.public_key, key.private_key)),
        organization_id=organization_id or sdk.organization_id,
    )


@contextmanager
def api_error(status: int, *fragments: str) -> Iterator[pytest.ExceptionInfo]:
    """Expect a ``TurnkeyNetworkError`` with HTTP ``status`` whose message has ``fragments``."""
    with pytest.raises(TurnkeyNetworkError) as info:
        yield info
    assert info.value.status_code == status, str(info.value)
    for fragment in fragments:
        assert fragment in str(info.value)


def create_user(sdk: TurnkeyClient, name: str, **params: Any) -> str:
    response = sdk.create_users(CreateUsersBody(users=[user_params(name, **params)]))
    (user_id,) = response.userIds
    return user_id


def user_ids(sdk: TurnkeyClient) -> list[str]:
    return [u.userId for u in sdk.get_users(GetUsersBody()).users]


def tags_of(sdk: TurnkeyClient, user_id: str) -> list[str]:
    return sdk.get_user(GetUserBody(userId=user_id)).user.userTags


def submit(
    client: TurnkeyClient, operation: str, body: Any, response_type: type
) -> tuple[Any, SignedRequest]:
    """Stamp ``body`` with the SDK's ``stamp_<operation>`` and send it; the response and request."""
    signed = getattr(client, f"stamp_{operation}")(body)
    return client.send_signed_request(signed, response_type), signed


def sent_type(signed: SignedRequest) -> str:
    return json.loads(signed.body)["type"]


def stamp_signature(signed: SignedRequest) -> str:
    encoded = signed.stamp.stamp_header_value
    return json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))["signature"]


def verifies(public_key_hex: str, signature_hex: str, message: str) -> bool:
    key = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), bytes.fromhex(public_key_hex)
    )
    try:
        key.verify(bytes.fromhex(signature_hex), message.encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return False
    return True


def assert_completed(activity: Any, activity_type: str, *, public_key: str, user_id: str) -> None:
    """A completed activity of ``activity_type`` proposed by ``public_key`` of ``user_id``."""
    assert value(activity.status) == COMPLETED
    assert value(activity.type) == activity_type
    (vote,) = activity.votes
    assert vote.publicKey == public_key
    assert vote.userId == user_id
    assert vote.user.userId == user_id
    assert vote.activityId == activity.id
    assert vote.selection == APPROVED
    assert vote.scheme == P256_SCHEME
    # The vote records the exact body, which the fingerprint hashes and the stamp signs.
    assert activity.fingerprint == fingerprint(vote.message)
    assert verifies(public_key, vote.signature, vote.message)


def assert_submitted(
    activity: Any, signed: SignedRequest, *, public_key: str, user_id: str
) -> None:
    """``assert_completed`` for a request we stamped ourselves, against its exact body."""
    assert_completed(activity, sent_type(signed), public_key=public_key, user_id=user_id)
    assert activity.fingerprint == fingerprint(signed.body)
    assert activity.votes[0].message == signed.body
    assert activity.votes[0].signature == stamp_signature(signed)
    assert activity.organizationId == json.loads(signed.body)["organizationId"]


def make_tag_activities(sdk: TurnkeyClient, count: int) -> list[str]:
    """``count`` create_user_tag activities; their ids, oldest first."""
    return [
        sdk.create_user_tag(CreateUserTagBody(userTagName=f"tag-{i}", userIds=[])).activity.id
        for i in range(count)
    ]


def listed(sdk: TurnkeyClient, **options: Any) -> list[str]:
    """The ids ``get_activities`` answers for these body fields."""
    return [a.id for a in sdk.get_activities(GetActivitiesBody(**options)).activities]


def tampered(signed: SignedRequest, old: str, new: str) -> SignedRequest:
    assert old in signed.body
    return SignedRequest(
        url=signed.url, body=signed.body.replace(old, new, 1), stamp=signed.stamp, type=signed.type
    )


@dataclass(frozen=True)
class Scene:
    """A user with one of each credential and a tag, for the activity-record cases."""

    user_id: str
    api_key_id: str
    authenticator_id: str
    tag_id: str


def build_scene(sdk: TurnkeyClient) -> Scene:
    tag_id = sdk.create_user_tag(CreateUserTagBody(userTagName="scene", userIds=[])).userTagId
    user_id = create_user(
        sdk,
        "scene-user",
        api_keys=[api_key_params(generate_key_pair(), "scene key")],
        authenticators=[passkey_params("scene passkey")],
        tags=[tag_id],
    )
    user = sdk.get_user(GetUserBody(userId=user_id)).user
    return Scene(user_id, user.apiKeys[0].apiKeyId, user.authenticators[0].authenticatorId, tag_id)


# ----- whoami and organization configs ------------------------------------------


def test_whoami_names_the_root_user_and_organization(sdk, turnkey_org):
    me = sdk.get_whoami(GetWhoamiBody())
    assert me.organizationId == turnkey_org.organization_id
    assert me.organizationName == "Test Organization"
    assert me.userId == turnkey_org.user_id
    assert me.username == turnkey_org.user_name


def test_organization_configs_show_the_root_quorum(sdk, turnkey_org):
    configs = sdk.get_organization_configs(GetOrganizationConfigsBody()).configs
    assert configs.quorum.threshold == 1
    assert configs.quorum.userIds == [turnkey_org.user_id]
    assert configs.features == []


# ----- users ---------------------------------------------------------------------


def test_create_users_round_trips_names_and_emails(sdk, turnkey_org):
    created = sdk.create_users(
        CreateUsersBody(users=[user_params("alice", email="alice@example.com"), user_params("bob")])
    )
    assert len(created.userIds) == 2
    assert_completed(
        created.activity,
        "ACTIVITY_TYPE_CREATE_USERS_V3",
        public_key=turnkey_org.api_public_key,
        user_id=turnkey_org.user_id,
    )
    assert created.activity.result.createUsersResult.userIds == created.userIds
    alice_id, bob_id = created.userIds
    assert sorted(user_ids(sdk)) == sorted([turnkey_org.user_id, alice_id, bob_id])

    alice = sdk.get_user(GetUserBody(userId=alice_id)).user
    assert (alice.userId, alice.userName, alice.userEmail) == (
        alice_id,
        "alice",
        "alice@example.com",
    )
    assert alice.apiKeys == alice.authenticators == alice.oauthProviders == []
    assert alice.userTags == []
    bob = sdk.get_user(GetUserBody(userId=bob_id)).user
    assert (bob.userName, bob.userEmail) == ("bob", None)


def test_get_user_of_an_unknown_user_is_404(sdk):
    missing = "11111111-1111-4111-8111-111111111111"
    with api_error(404, missing):
        sdk.get_user(GetUserBody(userId=missing))


def test_update_user_changes_name_email_phone_and_tags(sdk, turnkey_org):
    user_id = create_user(sdk, "carol")
    tag_id = sdk.create_user_tag(CreateUserTagBody(userTagName="vip", userIds=[])).userTagId

    updated = sdk.update_user(
        UpdateUserBody(
            userId=user_id,
            userName="caroline",
            userEmail="caroline@example.com",
            userPhoneNumber="+13214567890",
            userTagIds=[tag_id],
        )
    )
    assert updated.userId == user_id
    assert_completed(
        updated.activity,
        "ACTIVITY_TYPE_UPDATE_USER",
        public_key=turnkey_org.api_public_key,
        user_id=turnkey_org.user_id,
    )
    user = sdk.get_user(GetUserBody(userId=user_id)).user
    assert user.userName == "caroline"
    assert user.userEmail == "caroline@example.com"
    assert user.userPhoneNumber == "+13214567890"
    assert user.userTags == [tag_id]


def test_delete_users_removes_users_and_their_keys(sdk, turnkey_org):
    key = generate_key_pair()
    doomed = create_user(sdk, "doomed", api_keys=[api_key_params(key)])
    kept = create_user(sdk, "kept")
    assert client_as(sdk, key).get_whoami(GetWhoamiBody()).userId == doomed

    deleted = sdk.delete_users(DeleteUsersBody(userIds=[doomed]))
    assert deleted.userIds == [doomed]
    assert_completed(
        deleted.activity,
        "ACTIVITY_TYPE_DELETE_USERS",
        public_key=turnkey_org.api_public_key,
        user_id=turnkey_org.user_id,
    )
    assert sorted(user_ids(sdk)) == sorted([turnkey_org.user_id, kept])
    with api_error(404, doomed):
        sdk.get_user(GetUserBody(userId=doomed))
    with api_error(401, "could not find public key", key.public_key):
        client_as(sdk, key).get_whoami(GetWhoamiBody())


def test_a_rejected_create_users_changes_nothing(sdk):
    """The second user names an unknown tag: neither user is made, no activity is recorded."""
    before = user_ids(sdk)
    missing_tag = "22222222-2222-4222-8222-222222222222"
    with api_error(404, missing_tag):
        sdk.create_users(
            CreateUsersBody(users=[user_params("ok"), user_params("bad", tags=[missing_tag])])
        )
    assert user_ids(sdk) == before
    assert listed(sdk) == []


def test_an_activity_with_a_stale_timestamp_is_400(sdk):
    stale = sdk.stamp_create_users(
        CreateUsersBody(
            timestampMs=str(int(time.time() * 1000) - 3_600_000), users=[user_params("x")]
        )
    )
    before = user_ids(sdk)
    with api_error(400):
        sdk.send_signed_request(stale, CreateUsersResponse)
    assert user_ids(sdk) == before


# ----- API keys ------------------------------------------------------------------


def test_create_api_keys_round_trips_through_get_api_key_and_get_api_keys(sdk, turnkey_org):
    user_id = create_user(sdk, "dave")
    long_lived, expiring = generate_key_pair(), generate_key_pair()

    created = sdk.create_api_keys(
        CreateApiKeysBody(
            userId=user_id,
            apiKeys=[
                api_key_params(long_lived, "long-lived"),
                api_key_params(expiring, "expiring", expiration="3600"),
            ],
        )
    )
    assert len(created.apiKeyIds) == 2
    assert_completed(
        created.activity,
        "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
        public_key=turnkey_org.api_public_key,
        user_id=turnkey_org.user_id,
    )
    long_id, expiring_id = created.apiKeyIds

    key = sdk.get_api_key(GetApiKeyBody(apiKeyId=long_id)).apiKey
    assert (key.apiKeyId, key.apiKeyName) == (long_id, "long-lived")
    assert key.credential.publicKey == long_lived.public_key
    assert value(key.credential.type) == "CREDENTIAL_TYPE_API_KEY_P256"
    assert key.expirationSeconds is None
    assert sdk.get_api_key(GetApiKeyBody(apiKeyId=expiring_id)).apiKey.expirationSeconds == "3600"

    keys = sdk.get_api_keys(GetApiKeysBody(userId=user_id)).apiKeys
    assert {k.apiKeyId: k.credential.publicKey for k in keys} == {
        long_id: long_lived.public_key,
        expiring_id: expiring.public_key,
    }
    user = sdk.get_user(GetUserBody(userId=user_id)).user
    assert sorted(k.apiKeyId for k in user.apiKeys) == sorted(created.apiKeyIds)


def test_get_api_keys_without_user_id_answers_the_callers_keys(sdk, turnkey_org):
    create_user(sdk, "erin", api_keys=[api_key_params(generate_key_pair())])
    keys = sdk.get_api_keys(GetApiKeysBody()).apiKeys
    assert [k.apiKeyId for k in keys] == [turnkey_org.api_key_id]
    assert keys[0].credential.publicKey == turnkey_org.api_public_key


def test_delete_api_keys_removes_the_key(sdk, turnkey_org):
    user_id = create_user(sdk, "frank")
    kept, doomed = generate_key_pair(), generate_key_pair()
    kept_id, doomed_id = sdk.create_api_keys(
        CreateApiKeysBody(
            userId=user_id, apiKeys=[api_key_params(kept, "kept"), api_key_params(doomed, "doomed")]
        )
    ).apiKeyIds

    deleted = sdk.delete_api_keys(DeleteApiKeysBody(userId=user_id, apiKeyIds=[doomed_id]))
    assert deleted.apiKeyIds == [doomed_id]
    assert_completed(
        deleted.activity,
        "ACTIVITY_TYPE_DELETE_API_KEYS",
        public_key=turnkey_org.api_public_key,
        user_id=turnkey_org.user_id,
    )
    assert [k.apiKeyId for k in sdk.get_api_keys(GetApiKeysBody(userId=user_id)).apiKeys] == [
        kept_id
    ]
    with api_error(404, doomed_id):
        sdk.get_api_key(GetApiKeyBody(apiKeyId=doomed_id))


def test_a_created_key_stamps_its_own_requests(sdk, turnkey_org):
    """Scenario 1: a new key's owner (not root) is who they say, may add their own keys, no users."""
    key = generate_key_pair()
    user_id = create_user(sdk, "grace")
    (key_id,) = sdk.create_api_keys(
        CreateApiKeysBody(userId=user_id, apiKeys=[api_key_params(key, "grace's key")])
    ).apiKeyIds
    grace = client_as(sdk, key)

    me = grace.get_whoami(GetWhoamiBody())
    assert (me.organizationId, me.organizationName) == (
        turnkey_org.organization_id,
        "Test Organization",
    )
    assert (me.userId, me.username) == (user_id, "grace")
    assert [k.apiKeyId for k in grace.get_api_keys(GetApiKeysBody()).apiKeys] == [key_id]

    second = generate_key_pair()
    added, signed = submit(
        grace,
        "create_api_keys",
        CreateApiKeysBody(userId=user_id, apiKeys=[api_key_params(second, "second")]),
        CreateApiKeysResponse,
    )
    assert_submitted(added.activity, signed, public_key=key.public_key, user_id=user_id)
    assert sorted(k.apiKeyId for k in sdk.get_api_keys(GetApiKeysBody(userId=user_id)).apiKeys) == (
        sorted([key_id, *added.apiKeyIds])
    )
    assert client_as(sdk, second).get_whoami(GetWhoamiBody()).userId == user_id

    before = user_ids(sdk)
    with api_error(403, "sufficient permissions"):
        grace.create_users(CreateUsersBody(users=[user_params("mallory")]))
    assert user_ids(sdk) == before


def test_a_non_root_user_may_manage_only_their_own_credentials(sdk, turnkey_org):
    key = generate_key_pair()
    user_id = create_user(sdk, "heidi", api_keys=[api_key_params(key)])
    heidi = client_as(sdk, key)
    before = user_ids(sdk)

    with api_error(403, "sufficient permissions"):
        heidi.create_users(CreateUsersBody(users=[user_params("mallory")]))
    with api_error(403):
        heidi.create_api_keys(
            CreateApiKeysBody(
                userId=turnkey_org.user_id, apiKeys=[api_key_params(generate_key_pair())]
            )
        )
    assert user_ids(sdk) == before
    assert len(sdk.get_api_keys(GetApiKeysBody(userId=turnkey_org.user_id)).apiKeys) == 1

    passkey = heidi.create_authenticators(
        CreateAuthenticatorsBody(userId=user_id, authenticators=[passkey_params("heidi's")])
    )
    assert_completed(
        passkey.activity,
        "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
        public_key=key.public_key,
        user_id=user_id,
    )
    passkeys = sdk.get_authenticators(GetAuthenticatorsBody(userId=user_id)).authenticators
    assert [a.authenticatorId for a in passkeys] == passkey.authenticatorIds


def test_an_expired_key_gets_401(sdk, turnkey_emulator, turnkey_org):
    """Scenario 5 (queries only: the SDK's ``timestampMs`` is wall time, not the emulator's)."""
    key = generate_key_pair()
    user_id = create_user(sdk, "ivan")
    sdk.create_api_keys(
        CreateApiKeysBody(userId=user_id, apiKeys=[api_key_params(key, "short", expiration="60")])
    )
    ivan = client_as(sdk, key)
    assert ivan.get_whoami(GetWhoamiBody()).userId == user_id

    turnkey_emulator.clock.advance(120)
    with api_error(401, "expired api key", key.public_key):
        ivan.get_whoami(GetWhoamiBody())
    assert sdk.get_whoami(GetWhoamiBody()).userId == turnkey_org.user_id


def test_a_deleted_key_gets_401(sdk, turnkey_org):
    """Scenario 6."""
    key = generate_key_pair()
    user_id = create_user(sdk, "judy")
    (key_id,) = sdk.create_api_keys(
        CreateApiKeysBody(userId=user_id, apiKeys=[api_key_params(key)])
    ).apiKeyIds
    judy = client_as(sdk, key)
    assert judy.get_whoami(GetWhoamiBody()).userId == user_id

    sdk.delete_api_keys(DeleteApiKeysBody(userId=user_id, apiKeyIds=[key_id]))
    with api_error(401, "could not find public key", key.public_key):
        judy.get_whoami(GetWhoamiBody())
    with api_error(401, "could not find public key"):
        judy.create_api_keys(
            CreateApiKeysBody(userId=user_id, apiKeys=[api_key_params(generate_key_pair())])
        )


# ----- authenticators --------------------------------------------------------------


def test_create_authenticators_registers_a_virtual_passkey(sdk, turnkey_org):
    user_id = create_user(sdk, "kim")
    device = VirtualAuthenticator(transports=("AUTHENTICATOR_TRANSPORT_USB",))

    created = sdk.create_authenticators(
        CreateAuthenticatorsBody(userId=user_id, authenticators=[passkey_params("yubi", device)])
    )
    assert_completed(
        created.activity,
        "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
        public_key=turnkey_org.api_public_key,
        user_id=turnkey_org.user_id,
    )
    (authenticator_id,) = created.authenticatorIds

    found = sdk.get_authenticator(GetAuthenticatorBody(authenticatorId=authenticator_id))
    passkey = found.authenticator
    assert (passkey.authenticatorId, passkey.authenticatorName) == (authenticator_id, "yubi")
    assert passkey.credentialId == device.credential_id_b64
    assert [value(t) for t in passkey.transports] == ["AUTHENTICATOR_TRANSPORT_USB"]
    assert value(passkey.credential.type) == "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR"
    assert passkey.credential.publicKey

    passkeys = sdk.get_authenticators(GetAuthenticatorsBody(userId=user_id)).authenticators
    assert [a.authenticatorId for a in passkeys] == [authenticator_id]
    user = sdk.get_user(GetUserBody(userId=user_id)).user
    assert [a.credentialId for a in user.authenticators] == [device.credential_id_b64]


def test_create_users_with_a_passkey(sdk):
    device = VirtualAuthenticator()
    user_id = create_user(sdk, "leo", authenticators=[passkey_params("laptop", device)])
    (passkey,) = sdk.get_authenticators(GetAuthenticatorsBody(userId=user_id)).authenticators
    assert (passkey.authenticatorName, passkey.credentialId) == (
        "laptop",
        device.credential_id_b64,
    )


def test_delete_authenticators_removes_the_passkey(sdk, turnkey_org):
    user_id = create_user(sdk, "mia")
    kept_id, doomed_id = sdk.create_authenticators(
        CreateAuthenticatorsBody(
            userId=user_id, authenticators=[passkey_params("kept"), passkey_params("doomed")]
        )
    ).authenticatorIds

    deleted = sdk.delete_authenticators(
        DeleteAuthenticatorsBody(userId=user_id, authenticatorIds=[doomed_id])
    )
    assert deleted.authenticatorIds == [doomed_id]
    assert_completed(
        deleted.activity,
        "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
        public_key=turnkey_org.api_public_key,
        user_id=turnkey_org.user_id,
    )
    passkeys = sdk.get_authenticators(GetAuthenticatorsBody(userId=user_id)).authenticators
    assert [a.authenticatorId for a in passkeys] == [kept_id]
    with api_error(404, doomed_id):
        sdk.get_authenticator(GetAuthenticatorBody(authenticatorId=doomed_id))


# ----- user tags ---------------------------------------------------------------------


def test_create_user_tag_tags_the_users(sdk, turnkey_org):
    alice, bob = create_user(sdk, "alice"), create_user(sdk, "bob")

    created = sdk.create_user_tag(CreateUserTagBody(userTagName="admins", userIds=[alice]))
    assert created.userIds == [alice]
    assert_completed(
        created.activity,
        "ACTIVITY_TYPE_CREATE_USER_TAG",
        public_key=turnkey_org.api_public_key,
        user_id=turnkey_org.user_id,
    )
    (tag,) = sdk.list_user_tags(ListUserTagsBody()).userTags
    assert (tag.tagId, tag.tagName, value(tag.tagType)) == (
        created.userTagId,
        "admins",
        "TAG_TYPE_USER",
    )
    assert tags_of(sdk, alice) == [created.userTagId]
    assert tags_of(sdk, bob) == []


def test_update_user_tag_renames_and_moves_users(sdk, turnkey_org):
    alice, bob = create_user(sdk, "alice"), create_user(sdk, "bob")
    tag_id = sdk.create_user_tag(CreateUserTagBody(userTagName="team", userIds=[alice])).userTagId

    updated = sdk.update_user_tag(
        UpdateUserTagBody(
            userTagId=tag_id, newUserTagName="squad", addUserIds=[bob], removeUserIds=[alice]
        )
    )
    assert updated.userTagId == tag_id
    assert_completed(
        updated.activity,
        "ACTIVITY_TYPE_UPDATE_USER_TAG",
        public_key=turnkey_org.api_public_key,
        user_id=turnkey_org.user_id,
    )
    assert [(t.tagId, t.tagName) for t in sdk.list_user_tags(ListUserTagsBody()).userTags] == [
        (tag_id, "squad")
    ]
    assert tags_of(sdk, alice) == []
    assert tags_of(sdk, bob) == [tag_id]


def test_delete_user_tags_untags_the_users(sdk, turnkey_org):
    alice = create_user(sdk, "alice")
    doomed = sdk.create_user_tag(CreateUserTagBody(userTagName="old", userIds=[alice])).userTagId
    kept = sdk.create_user_tag(CreateUserTagBody(userTagName="new", userIds=[alice])).userTagId

    deleted = sdk.delete_user_tags(DeleteUserTagsBody(userTagIds=[doomed]))
    assert deleted.userTagIds == [doomed]
    assert deleted.userIds == [alice]
    assert_completed(
        deleted.activity,
        "ACTIVITY_TYPE_DELETE_USER_TAGS",
        public_key=turnkey_org.api_public_key,
        user_id=turnkey_org.user_id,
    )
    assert [t.tagId for t in sdk.list_user_tags(ListUserTagsBody()).userTags] == [kept]
    assert tags_of(sdk, alice) == [kept]


# ----- activities: the record of every activity ------------------------------------

# operation -> (body from the scene, response type, the type the SDK sends, result key)
ACTIVITY_CASES: dict[str, tuple[Callable[[Scene], Any], type, str, str]] = {
    "create_users": (
        lambda s: CreateUsersBody(users=[user_params("new-user")]),
        CreateUsersResponse,
        "ACTIVITY_TYPE_CREATE_USERS_V3",
        "createUsersResult",
    ),
    "update_user": (
        lambda s: UpdateUserBody(userId=s.user_id, userName="renamed"),
        UpdateUserResponse,
        "ACTIVITY_TYPE_UPDATE_USER",
        "updateUserResult",
    ),
    "delete_users": (
        lambda s: DeleteUsersBody(userIds=[s.user_id]),
        DeleteUsersResponse,
        "ACTIVITY_TYPE_DELETE_USERS",
        "deleteUsersResult",
    ),
    "create_api_keys": (
        lambda s: CreateApiKeysBody(
            userId=s.user_id, apiKeys=[api_key_params(generate_key_pair())]
        ),
        CreateApiKeysResponse,
        "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
        "createApiKeysResult",
    ),
    "delete_api_keys": (
        lambda s: DeleteApiKeysBody(userId=s.user_id, apiKeyIds=[s.api_key_id]),
        DeleteApiKeysResponse,
        "ACTIVITY_TYPE_DELETE_API_KEYS",
        "deleteApiKeysResult",
    ),
    "create_authenticators": (
        lambda s: CreateAuthenticatorsBody(userId=s.user_id, authenticators=[passkey_params("pk")]),
        CreateAuthenticatorsResponse,
        "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
        "createAuthenticatorsResult",
    ),
    "delete_authenticators": (
        lambda s: DeleteAuthenticatorsBody(userId=s.user_id, authenticatorIds=[s.authenticator_id]),
        DeleteAuthenticatorsResponse,
        "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
        "deleteAuthenticatorsResult",
    ),
    "create_user_tag": (
        lambda s: CreateUserTagBody(userTagName="fresh", userIds=[s.user_id]),
        CreateUserTagResponse,
        "ACTIVITY_TYPE_CREATE_USER_TAG",
        "createUserTagResult",
    ),
    "update_user_tag": (
        lambda s: UpdateUserTagBody(
            userTagId=s.tag_id, newUserTagName="renamed", addUserIds=[], removeUserIds=[s.user_id]
        ),
        UpdateUserTagResponse,
        "ACTIVITY_TYPE_UPDATE_USER_TAG",
        "updateUserTagResult",
    ),
    "delete_user_tags": (
        lambda s: DeleteUserTagsBody(userTagIds=[s.tag_id]),
        DeleteUserTagsResponse,
        "ACTIVITY_TYPE_DELETE_USER_TAGS",
        "deleteUserTagsResult",
    ),
}


@pytest.mark.parametrize("operation", list(ACTIVITY_CASES))
def test_every_activity_records_the_exact_body(sdk, turnkey_org, operation):
    make_body, response_type, activity_type, result_key = ACTIVITY_CASES[operation]
    scene = build_scene(sdk)

    response, signed = submit(sdk, operation, make_body(scene), response_type)
    assert sent_type(signed) == activity_type
    assert_submitted(
        response.activity,
        signed,
        public_key=turnkey_org.api_public_key,
        user_id=turnkey_org.user_id,
    )
    result = getattr(response.activity.result, result_key)
    for name, field in result.model_dump().items():
        assert getattr(response, name) == field

    fetched = sdk.get_activity(GetActivityBody(activityId=response.activity.id)).activity
    assert fetched.id == response.activity.id
    assert value(fetched.type) == activity_type
    assert fetched.fingerprint == fingerprint(signed.body)
    assert getattr(fetched.result, result_key) == result


# ----- activities: get and list --------------------------------------------------------


def test_get_activity_answers_the_submitted_activity(sdk, turnkey_org):
    created = sdk.create_users(CreateUsersBody(users=[user_params("nina")]))
    fetched = sdk.get_activity(GetActivityBody(activityId=created.activity.id)).activity
    assert fetched.id == created.activity.id
    assert fetched.organizationId == turnkey_org.organization_id
    assert fetched.fingerprint == created.activity.fingerprint
    assert fetched.createdAt == created.activity.createdAt
    assert fetched.result.createUsersResult.userIds == created.userIds
    (user,) = fetched.intent.createUsersIntentV3.users
    assert user.userName == "nina"
    assert_completed(
        fetched,
        "ACTIVITY_TYPE_CREATE_USERS_V3",
        public_key=turnkey_org.api_public_key,
        user_id=turnkey_org.user_id,
    )


def test_get_activity_of_an_unknown_id_is_404(sdk):
    missing = "01900000-0000-7000-8000-000000000000"
    with api_error(404, missing):
        sdk.get_activity(GetActivityBody(activityId=missing))


def test_list_activities_is_newest_first_ten_by_default(sdk):
    assert listed(sdk) == []
    ids = make_tag_activities(sdk, 12)
    newest_first = ids[::-1]

    activities = sdk.get_activities(GetActivitiesBody()).activities
    assert [a.id for a in activities] == newest_first[:10]
    assert all(value(a.status) == COMPLETED for a in activities)
    assert all(value(a.type) == "ACTIVITY_TYPE_CREATE_USER_TAG" for a in activities)
    stamps = [(int(a.createdAt.seconds), int(a.createdAt.nanos)) for a in activities]
    assert stamps == sorted(stamps, reverse=True)
    assert listed(sdk, paginationOptions=v1Pagination(limit="100")) == newest_first


def test_list_activities_pages_with_limit_after_and_before(sdk):
    newest_first = make_tag_activities(sdk, 12)[::-1]

    page1 = listed(sdk, paginationOptions=v1Pagination(limit="5"))
    page2 = listed(sdk, paginationOptions=v1Pagination(limit="5", after=page1[-1]))
    page3 = listed(sdk, paginationOptions=v1Pagination(limit="5", after=page2[-1]))
    assert (len(page1), len(page2), len(page3)) == (5, 5, 2)
    assert page1 + page2 + page3 == newest_first
    assert listed(sdk, paginationOptions=v1Pagination(limit="5", after=page3[-1])) == []

    assert listed(sdk, paginationOptions=v1Pagination(limit="5", before=page2[0])) == page1
    assert listed(sdk, paginationOptions=v1Pagination(limit="3", before=page3[0])) == page2[-3:]
    assert listed(sdk, paginationOptions=v1Pagination(before=page1[0])) == []


def test_list_activities_rejects_a_limit_out_of_range(sdk):
    with api_error(400, "paginationOptions.limit"):
        listed(sdk, paginationOptions=v1Pagination(limit="101"))


def test_list_activities_filters_by_type_and_status(sdk):
    tag_ids = make_tag_activities(sdk, 3)
    user_activity = sdk.create_users(CreateUsersBody(users=[user_params("olga")])).activity.id

    assert listed(sdk, filterByType=["ACTIVITY_TYPE_CREATE_USERS_V3"]) == [user_activity]
    assert listed(sdk, filterByType=["ACTIVITY_TYPE_CREATE_USER_TAG"]) == tag_ids[::-1]
    assert listed(
        sdk, filterByType=["ACTIVITY_TYPE_CREATE_USERS_V3", "ACTIVITY_TYPE_CREATE_USER_TAG"]
    ) == [user_activity, *tag_ids[::-1]]
    assert listed(sdk, filterByType=["ACTIVITY_TYPE_DELETE_USERS"]) == []
    assert listed(sdk, filterByStatus=[COMPLETED]) == [user_activity, *tag_ids[::-1]]
    assert listed(sdk, filterByStatus=["ACTIVITY_STATUS_FAILED"]) == []
    assert (
        listed(
            sdk,
            filterByStatus=[COMPLETED],
            filterByType=["ACTIVITY_TYPE_CREATE_USER_TAG"],
            paginationOptions=v1Pagination(limit="2"),
        )
        == tag_ids[::-1][:2]
    )


# ----- stamps, idempotency and the target organization -----------------------------------


def test_a_tampered_query_body_is_401(sdk):
    """Scenario 2: the same JSON with other bytes no longer matches the signature."""
    signed = sdk.stamp_get_whoami(GetWhoamiBody())
    assert sdk.send_signed_request(signed, GetWhoamiResponse).userId
    with api_error(401, "could not verify api key signature"):
        sdk.send_signed_request(tampered(signed, '": "', '":"'), GetWhoamiResponse)


def test_a_tampered_activity_body_is_401_and_changes_nothing(sdk):
    before = user_ids(sdk)
    signed = sdk.stamp_create_users(CreateUsersBody(users=[user_params("alice")]))
    with api_error(401, "could not verify api key signature"):
        sdk.send_signed_request(tampered(signed, '"alice"', '"alicf"'), CreateUsersResponse)
    assert user_ids(sdk) == before
    assert listed(sdk) == []


def test_an_identical_body_returns_the_same_activity(sdk, turnkey_org):
    """Scenario 3."""
    before = user_ids(sdk)
    signed = sdk.stamp_create_users(CreateUsersBody(users=[user_params("paul")]))

    first = sdk.send_signed_request(signed, CreateUsersResponse)
    second = sdk.send_signed_request(signed, CreateUsersResponse)
    assert second.activity.id == first.activity.id
    assert second.userIds == first.userIds
    assert second.activity.fingerprint == first.activity.fingerprint == fingerprint(signed.body)
    assert_submitted(
        second.activity, signed, public_key=turnkey_org.api_public_key, user_id=turnkey_org.user_id
    )
    assert sorted(user_ids(sdk)) == sorted([*before, *first.userIds])
    assert listed(sdk) == [first.activity.id]


def test_an_unknown_organization_is_404(sdk):
    """Scenario 4: for a query and for an activity, the message names the id."""
    with api_error(404, "no organization found", NIL_ORG_ID):
        sdk.get_whoami(GetWhoamiBody(organizationId=NIL_ORG_ID))
    with api_error(404, "no organization found", NIL_ORG_ID):
        sdk.create_users(CreateUsersBody(organizationId=NIL_ORG_ID, users=[user_params("quentin")]))
    with api_error(404, "no organization found", NIL_ORG_ID):
        sdk.get_users(GetUsersBody(organizationId=NIL_ORG_ID))
