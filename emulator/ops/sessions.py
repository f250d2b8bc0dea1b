"""Sessions: create_read_write_session, create_read_only_session, stamp_login.

* ``create_read_write_session`` issues the user (the caller, or ``userId`` in
  V2, or the user with ``email`` in V1) a ``READ_WRITE_SESSION`` API key and
  answers its private key as a credential bundle sealed to ``targetPublicKey``,
  with the organization and user it belongs to (reference §7.2). It is judged
  by the policies like any activity: the registry's self-service (a user's own
  ``userId``, no policy needed) does not fit an activity whose ``userId`` is
  optional in V2 and absent in V1, so a user who is not in the root quorum needs a
  policy, even for a session of their own.
* ``create_read_only_session`` answers an opaque ``session`` string and its
  expiry, one hour on (api-reference: "valid for 1 hour"). The real service
  accepts it in an ``X-Session`` header for reads; the emulator keeps no record
  of it and serves no such header.
* ``stamp_login`` registers the client's ``publicKey`` as the caller's
  ``CREDENTIAL_TYPE_LOGIN`` key and answers the session JWT the notarizer signs
  (``services/sessions.py``, reference §7.6). It too carries no ``userId``, so it
  is judged by the policies (AUTH/CREATE) for a user outside the root quorum.
"""

from __future__ import annotations

from typing import Any

from ..crypto.api_keys import P256, is_valid_public_key
from ..ground import messages
from ..ground.errors import InvalidArgument, ValidationFailed
from ..ground.models import ApiKey, User
from ..ground.schema import Boolean, String, Violations, label, obj, opt, uuid
from ..services import bundles, issuance
from ..services import sessions as session_service
from ..services.context import Context
from ..services.emails import user_with_email
from .registry import Version, activity
from .users import find_user

Params = dict[str, Any]

READ_WRITE_KEY_PREFIX = "Read Write Session"
READ_ONLY_SESSION_SECONDS = 3600
SESSION_TOKEN_BYTES = 32

_RW_COMMON = {
    "targetPublicKey": String(fmt="hex"),
    "apiKeyName": opt(label()),
    "expirationSeconds": opt(String()),
}
READ_WRITE_SESSION_PARAMS = obj(email=String(fmt="email"), **_RW_COMMON)  # V1
READ_WRITE_SESSION_PARAMS_V2 = obj(
    userId=opt(uuid()), invalidateExisting=opt(Boolean()), **_RW_COMMON
)
STAMP_LOGIN_PARAMS = obj(
    publicKey=String(fmt="hex"),
    expirationSeconds=opt(String()),
    invalidateExisting=opt(Boolean()),
    sessionProfileId=opt(String()),
)


def check_target_public_key(target_public_key: str) -> None:
    """The 400 for a ``targetPublicKey`` that is hex but no P-256 point."""
    try:
        bundles.parse_target_public_key(target_public_key)
    except bundles.BundleError:
        raise InvalidArgument(messages.invalid_target_public_key(target_public_key)) from None


def issue_bundle(
    ctx: Context, user: User, params: Params, *, credential_type: str, name_prefix: str
) -> tuple[ApiKey, str]:
    """A new expiring key of ``credential_type`` for ``user`` and its credential bundle,
    from a flow's ``targetPublicKey``, ``apiKeyName`` (default ``<name_prefix> -
    <Timestamp>``), ``expirationSeconds`` (default 900) and ``invalidateExisting``."""
    check_target_public_key(params["targetPublicKey"])
    return issuance.issue_credential_bundle(
        ctx,
        user,
        target_public_key=params["targetPublicKey"],
        credential_type=credential_type,
        name=params.get("apiKeyName") or issuance.default_key_name(name_prefix, ctx.now_ns),
        expiration_seconds=params.get("expirationSeconds"),
        invalidate_existing=params.get("invalidateExisting", False),
    )


def _session_holder(ctx: Context, user: User) -> Params:
    return {
        "organizationId": ctx.org.organization_id,
        "organizationName": ctx.org.name,
        "userId": user.user_id,
        "username": user.name,
    }


@activity(
    "create_read_write_session",
    summary="Create read write session",
    in_seed=True,
    default="ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION",
            "createReadWriteSessionIntent",
            "createReadWriteSessionResult",
            READ_WRITE_SESSION_PARAMS,
        ),
        Version(
            "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
            "createReadWriteSessionIntentV2",
            "createReadWriteSessionResultV2",
            READ_WRITE_SESSION_PARAMS_V2,
        ),
    ],
)
def create_read_write_session(ctx: Context, params: Params) -> Params:
    """A read-write session key for the user with ``email`` (V1), ``userId`` (V2) or the
    caller, as a credential bundle."""
    if "email" in params:
        user = user_with_email(ctx.org, params["email"])
    elif params.get("userId"):
        user = find_user(ctx.org, params["userId"])
    else:
        user = ctx.caller.user
    key, bundle = issue_bundle(
        ctx,
        user,
        params,
        credential_type=issuance.READ_WRITE_SESSION,
        name_prefix=READ_WRITE_KEY_PREFIX,
    )
    return {**_session_holder(ctx, user), "apiKeyId": key.api_key_id, "credentialBundle": bundle}


@activity(
    "create_read_only_session",
    summary="Create read only session",
    default="ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION",
            "createReadOnlySessionIntent",
            "createReadOnlySessionResult",
            obj(),
        )
    ],
)
def create_read_only_session(ctx: Context, params: Params) -> Params:
    """An opaque read-only session for the caller, valid for an hour (UTC seconds)."""
    expiry_s = ctx.now_ns // 1_000_000_000 + READ_ONLY_SESSION_SECONDS
    return {
        **_session_holder(ctx, ctx.caller.user),
        "session": ctx.world.ids.random_bytes(SESSION_TOKEN_BYTES).hex(),
        "sessionExpiry": str(expiry_s),
    }


def check_login_public_key(public_key: str) -> str:
    """The client's session key: a compressed P-256 public key (as an API key is), lower
    case; a 400 naming ``publicKey`` otherwise."""
    public_key = public_key.lower()
    valid = is_valid_public_key(public_key, P256)
    if valid:
        try:
            bundles.parse_target_public_key(public_key)
        except bundles.BundleError:
            valid = False
    if not valid:
        errors = Violations()
        errors.add("publicKey", f"must be a valid {P256} public key")
        raise ValidationFailed(errors)
    return public_key


@activity(
    "stamp_login",
    summary="Login with a stamp",
    default="ACTIVITY_TYPE_STAMP_LOGIN",
    versions=[
        Version(
            "ACTIVITY_TYPE_STAMP_LOGIN",
            "stampLoginIntent",
            "stampLoginResult",
            STAMP_LOGIN_PARAMS,
        )
    ],
)
def stamp_login(ctx: Context, params: Params) -> Params:
    """The caller's new login key and its session JWT."""
    _, session = session_service.login(
        ctx,
        ctx.caller.user,
        public_key=check_login_public_key(params["publicKey"]),
        expiration_seconds=params.get("expirationSeconds"),
        invalidate_existing=params.get("invalidateExisting", False),
        session_profile_id=params.get("sessionProfileId") or None,
    )
    return {"session": session}
