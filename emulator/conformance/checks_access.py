"""Users, tags and policies: a non-root user with an API key of ours, a user tag, and the
policy engine: no allowing policy refuses, an ALLOW lets the user sign, a DENY beside it
wins."""

from __future__ import annotations

from typing import Any

from turnkey_sdk_types import (
    CreatePolicyBody,
    CreateUsersBody,
    CreateUserTagBody,
    GetPolicyBody,
    GetUserBody,
    ListUserTagsBody,
    SignRawPayloadBody,
    v1ApiKeyParamsV2,
    v1UserParamsV3,
)

from . import crypto, shapes
from .checks_errors import expect_error
from .checks_wallets import KNOWN
from .report import Mismatch, expect, expect_equal
from .session import COMPLETED, Answer, Session

PERMISSION_DENIED = 7  # google.rpc.Code


def _user(session: Session) -> tuple[str, Any]:
    user_id, client = session.facts.get("user_id"), session.facts.get("user_client")
    if not user_id or client is None:
        raise Mismatch("the user of user.create_non_root", "none (that check failed)")
    return str(user_id), client


def create_user(session: Session) -> None:
    key = crypto.P256ApiKey()
    params = v1UserParamsV3(
        userName=session.name("user"),
        apiKeys=[
            v1ApiKeyParamsV2(
                apiKeyName=session.name("key"),
                publicKey=key.public_key,
                curveType="API_KEY_CURVE_P256",
            )
        ],
        authenticators=[],
        oauthProviders=[],
        userTags=[],
    )
    answer = session.call("create_users", CreateUsersBody(users=[params]))
    user_ids = answer.result("createUsersResult").get("userIds") or []
    if user_ids:
        session.ledger.add("user", *user_ids)
    expect(answer.status == 200 and len(user_ids) == 1, "one user created", answer.brief())
    user = session.ok("get_user", GetUserBody(userId=user_ids[0])).object("user")
    shapes.conforms(user, shapes.USER, "get_user.user")
    expect_equal(user["userName"], session.name("user"), "userName")
    keys = [k["credential"]["publicKey"] for k in user["apiKeys"]]
    expect_equal(keys, [key.public_key], "the user's API keys")
    session.facts["user_id"] = user_ids[0]
    session.facts["user_client"] = session.as_user(key.public_key, key.private_key)


def user_tag(session: Session) -> None:
    user_id, _ = _user(session)
    body = CreateUserTagBody(userTagName=session.name("tag"), userIds=[user_id])
    answer = session.call("create_user_tag", body)
    tag_id = answer.result("createUserTagResult").get("userTagId")
    if tag_id:
        session.ledger.add("user_tag", tag_id)
    expect(answer.status == 200 and bool(tag_id), "a completed create_user_tag", answer.brief())
    tags = session.ok("list_user_tags", ListUserTagsBody()).items("userTags")
    mine = [t for t in tags if t.get("tagId") == tag_id]
    expect(len(mine) == 1, f"tag {tag_id} listed once", len(mine))
    shapes.conforms(mine[0], shapes.TAG, "list_user_tags.userTags[]")
    user = session.ok("get_user", GetUserBody(userId=user_id)).object("user")
    expect_equal(user.get("userTags"), [tag_id], "the user's tags")


def _user_signs(session: Session) -> Answer:
    _, client = _user(session)
    body = SignRawPayloadBody(
        signWith=KNOWN["ethereum"],
        payload="0badc0de",
        encoding="PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction="HASH_FUNCTION_KECCAK256",
    )
    return session.call("sign_raw_payload", body, client)


def _expect_refused(answer: Answer) -> None:
    expect_error(answer, 403, PERMISSION_DENIED)


def _policy(session: Session, what: str, effect: str) -> str:
    user_id, _ = _user(session)
    body = CreatePolicyBody(
        policyName=session.name(what),
        effect=effect,
        consensus=f"approvers.any(user, user.id == '{user_id}')",
        condition="activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'",
        notes=f"made by the conformance run {session.prefix}; deleted at its end",
    )
    answer = session.call("create_policy", body)
    policy_id = answer.result("createPolicyResult").get("policyId")
    if policy_id:
        session.ledger.add("policy", policy_id)
    expect(answer.status == 200 and bool(policy_id), "a completed create_policy", answer.brief())
    return str(policy_id)


def no_policy_refuses(session: Session) -> None:
    _expect_refused(_user_signs(session))


def allow_policy_permits(session: Session) -> None:
    policy_id = _policy(session, "allow", "EFFECT_ALLOW")
    policy = session.ok("get_policy", GetPolicyBody(policyId=policy_id)).object("policy")
    shapes.conforms(policy, shapes.POLICY, "get_policy.policy")
    expect_equal(policy["effect"], "EFFECT_ALLOW", "effect")
    answer = _user_signs(session)
    expect(answer.activity_status == COMPLETED, f"HTTP 200 {COMPLETED}", answer.brief())
    session.facts["allowed"] = True


def deny_policy_wins(session: Session) -> None:
    if not session.facts.get("allowed"):
        raise Mismatch("the ALLOW policy of policy.allow_permits", "none (that check failed)")
    _policy(session, "deny", "EFFECT_DENY")
    _expect_refused(_user_signs(session))


CHECKS = [
    ("user.create_non_root", create_user),
    ("user_tag.create_and_list", user_tag),
    ("policy.no_allow_refuses", no_policy_refuses),
    ("policy.allow_permits", allow_policy_permits),
    ("policy.deny_wins", deny_policy_wins),
]
