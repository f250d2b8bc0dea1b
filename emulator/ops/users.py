"""Users: create_users, create_api_only_users, update_user and its one-field forms
(update_user_name, update_user_email, update_user_phone_number), delete_users, get_user,
list_users."""

from __future__ import annotations

from typing import Any

from ..ground import messages, render
from ..ground.errors import InvalidArgument, NotFound, ResourceExhausted
from ..ground.models import Organization, User
from ..ground.schema import Array, String, label, obj, opt, uuid
from ..services import verification
from ..services.context import Context
from ..services.credentials import add_api_key, add_authenticator, add_oauth_provider
from ..services.otp import EMAIL_OTP, SMS_OTP, mark_verified
from .params import (
    API_KEY_PARAMS,
    USER_PARAMS,
    USER_PARAMS_V2,
    USER_PARAMS_V3,
    USER_PARAMS_V4,
    upgrade_api_key,
    upgrade_user,
    user_list,
)
from .registry import Version, activity, query

Params = dict[str, Any]


def find_user(org: Organization, user_id: str) -> User:
    user = org.users.get(user_id)
    if user is None:
        raise NotFound(messages.user_not_found(user_id, org.organization_id))
    return user


def check_user_tags(org: Organization, tag_ids: list[str]) -> None:
    for tag_id in tag_ids:
        if tag_id not in org.user_tags:
            raise NotFound(messages.user_tag_not_found(tag_id, org.organization_id))


def create_user(ctx: Context, params: Params, path: str) -> User:
    """One user with their credentials (the V4 shape of user params)."""
    if len(ctx.org.users) >= ctx.settings.max_users_per_organization:
        raise ResourceExhausted(messages.MAX_USERS, turnkey_error_code="RATE_LIMIT_EXCEEDED")
    check_user_tags(ctx.org, params["userTags"])
    user = User(
        user_id=ctx.new_id(),
        name=params["userName"],
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
        email=params.get("userEmail") or None,
        phone_number=params.get("userPhoneNumber") or None,
        tag_ids=list(dict.fromkeys(params["userTags"])),
    )
    ctx.store.add_user(ctx.tx, ctx.org, user)
    for index, key in enumerate(params["apiKeys"]):
        add_api_key(ctx, user, key, f"{path}.apiKeys.{index}")
    for index, authenticator in enumerate(params["authenticators"]):
        add_authenticator(ctx, user, authenticator, f"{path}.authenticators.{index}")
    for provider in params["oauthProviders"]:
        add_oauth_provider(ctx, user, provider)
    return user


def _upgrade_users(params: Params) -> Params:
    return {"users": [upgrade_user(u) for u in params["users"]]}


@activity(
    "create_users",
    summary="Create users",
    default="ACTIVITY_TYPE_CREATE_USERS_V3",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_USERS",
            "createUsersIntent",
            "createUsersResult",
            user_list(USER_PARAMS),
            upgrade=_upgrade_users,
        ),
        Version(
            "ACTIVITY_TYPE_CREATE_USERS_V2",
            "createUsersIntentV2",
            "createUsersResult",
            user_list(USER_PARAMS_V2),
            upgrade=_upgrade_users,
        ),
        Version(
            "ACTIVITY_TYPE_CREATE_USERS_V3",
            "createUsersIntentV3",
            "createUsersResult",
            user_list(USER_PARAMS_V3),
            upgrade=_upgrade_users,
        ),
        Version(
            "ACTIVITY_TYPE_CREATE_USERS_V4",
            "createUsersIntentV4",
            "createUsersResult",
            user_list(USER_PARAMS_V4),
            upgrade=_upgrade_users,
        ),
    ],
)
def create_users(ctx: Context, params: Params) -> Params:
    users = [create_user(ctx, spec, f"users.{i}") for i, spec in enumerate(params["users"])]
    return {"userIds": [u.user_id for u in users]}


UPDATE_USER = obj(
    userId=uuid(),
    userName=opt(label()),
    userEmail=opt(String(fmt="email", max_length=256)),
    userTagIds=opt(Array(uuid())),
    userPhoneNumber=opt(String(fmt="e164")),
)


@activity(
    "update_user",
    summary="Update user",
    in_seed=True,
    default="ACTIVITY_TYPE_UPDATE_USER",
    versions=[
        Version("ACTIVITY_TYPE_UPDATE_USER", "updateUserIntent", "updateUserResult", UPDATE_USER)
    ],
)
def update_user(ctx: Context, params: Params) -> Params:
    """Change the given fields; an empty ``userTagIds`` (as the seed says) changes nothing."""
    user = find_user(ctx.org, params["userId"])
    tx = ctx.tx
    if params.get("userName"):
        tx.set(user, "name", params["userName"])
    if params.get("userEmail"):
        tx.set(user, "email", params["userEmail"])
    if params.get("userPhoneNumber"):
        tx.set(user, "phone_number", params["userPhoneNumber"])
    if params.get("userTagIds"):
        check_user_tags(ctx.org, params["userTagIds"])
        tx.set(user, "tag_ids", list(dict.fromkeys(params["userTagIds"])))
    tx.set(user, "updated_at", ctx.now_ns)
    return {"userId": user.user_id}


# v1ApiOnlyUserParams: a user with API keys only (apiApiKeyParams, P-256), no passkeys.
API_ONLY_USER = obj(
    userName=label(),
    userEmail=opt(String(fmt="email", max_length=256)),
    userTags=Array(uuid()),
    apiKeys=Array(API_KEY_PARAMS),
)


def _upgrade_api_only_users(params: Params) -> Params:
    users = [
        {
            **user,
            "apiKeys": [upgrade_api_key(k) for k in user["apiKeys"]],
            "authenticators": [],
            "oauthProviders": [],
        }
        for user in params["apiOnlyUsers"]
    ]
    return {"apiOnlyUsers": users}


@activity(
    "create_api_only_users",
    summary="Create API-only users",
    default="ACTIVITY_TYPE_CREATE_API_ONLY_USERS",
    in_python_sdk=False,
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_API_ONLY_USERS",
            "createApiOnlyUsersIntent",
            "createApiOnlyUsersResult",
            obj(apiOnlyUsers=Array(API_ONLY_USER, min_items=1)),
            upgrade=_upgrade_api_only_users,
        )
    ],
)
def create_api_only_users(ctx: Context, params: Params) -> Params:
    users = [
        create_user(ctx, spec, f"apiOnlyUsers.{i}") for i, spec in enumerate(params["apiOnlyUsers"])
    ]
    return {"userIds": [u.user_id for u in users]}


@activity(
    "update_user_name",
    summary="Update user's name",
    default="ACTIVITY_TYPE_UPDATE_USER_NAME",
    versions=[
        Version(
            "ACTIVITY_TYPE_UPDATE_USER_NAME",
            "updateUserNameIntent",
            "updateUserNameResult",
            obj(userId=uuid(), userName=label()),
        )
    ],
)
def update_user_name(ctx: Context, params: Params) -> Params:
    user = find_user(ctx.org, params["userId"])
    ctx.tx.set(user, "name", params["userName"])
    ctx.tx.set(user, "updated_at", ctx.now_ns)
    return {"userId": user.user_id}


def _set_contact(ctx: Context, params: Params, field: str, otp_type: str) -> Params:
    """A new e-mail address or phone number (``""`` removes it). With a
    ``verificationToken`` for that very contact (as ``verify_otp`` issues it) the contact
    is proven and the token used up; without one the new contact is unproven."""
    user = find_user(ctx.org, params["userId"])
    value = params[field] or None
    attribute, proven = (
        ("email", "email_verified")
        if otp_type == EMAIL_OTP
        else ("phone_number", "phone_number_verified")
    )
    text = params.get("verificationToken")
    token = verification.check(ctx, text, encrypted_only=False) if text else None
    if token is not None:
        if value is None or (
            token.claims["verification_type"] != otp_type
            or token.claims["contact"].lower() != value.lower()
        ):
            raise InvalidArgument(messages.verification_token_not_for(field))
        verification.consume(ctx, token)
    if value != getattr(user, attribute):
        ctx.tx.set(user, attribute, value)
        if getattr(user, proven):
            ctx.tx.set(user, proven, False)
    if token is not None:
        mark_verified(ctx, user, otp_type)
    ctx.tx.set(user, "updated_at", ctx.now_ns)
    return {"userId": user.user_id}


@activity(
    "update_user_email",
    summary="Update user's email",
    default="ACTIVITY_TYPE_UPDATE_USER_EMAIL",
    versions=[
        Version(
            "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
            "updateUserEmailIntent",
            "updateUserEmailResult",
            obj(
                userId=uuid(),
                userEmail=String(fmt="email", max_length=256, allow_empty=True),
                verificationToken=opt(String()),
            ),
        )
    ],
)
def update_user_email(ctx: Context, params: Params) -> Params:
    return _set_contact(ctx, params, "userEmail", EMAIL_OTP)


@activity(
    "update_user_phone_number",
    summary="Update user's phone number",
    default="ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER",
    versions=[
        Version(
            "ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER",
            "updateUserPhoneNumberIntent",
            "updateUserPhoneNumberResult",
            obj(
                userId=uuid(),
                userPhoneNumber=String(fmt="e164", allow_empty=True),
                verificationToken=opt(String()),
            ),
        )
    ],
)
def update_user_phone_number(ctx: Context, params: Params) -> Params:
    return _set_contact(ctx, params, "userPhoneNumber", SMS_OTP)


@activity(
    "delete_users",
    summary="Delete users",
    default="ACTIVITY_TYPE_DELETE_USERS",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_USERS",
            "deleteUsersIntent",
            "deleteUsersResult",
            obj(userIds=Array(uuid(), min_items=1)),
        )
    ],
)
def delete_users(ctx: Context, params: Params) -> Params:
    user_ids = list(dict.fromkeys(params["userIds"]))
    users = [find_user(ctx.org, user_id) for user_id in user_ids]
    if any(u.user_id in ctx.org.root_quorum.user_ids for u in users):
        raise InvalidArgument(messages.QUORUM_USERS_MISSING, turnkey_error_code="REQUEST_INVALID")
    for user in users:
        ctx.store.remove_user(ctx.tx, ctx.org, user)
    return {"userIds": user_ids}


@query(
    "get_user",
    summary="Get user",
    body=obj(userId=uuid()),
    result_keys=("user",),
)
def get_user(ctx: Context, body: Params) -> Params:
    return {"user": render.user(find_user(ctx.org, body["userId"]), ctx.org)}


@query(
    "list_users",
    sdk_method="get_users",
    summary="List users",
    in_seed=True,
    body=obj(),
    result_keys=("users",),
)
def list_users(ctx: Context, body: Params) -> Params:
    return {"users": [render.user(u, ctx.org) for u in ctx.org.users.values()]}
