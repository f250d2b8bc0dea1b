"""Credentials that authentication flows issue: expiring API keys of a given kind.

Every flow (``email_auth``, ``otp_auth``, ``oauth``, ``create_read_write_session``,
``init_user_email_recovery``, the logins) ends the same way: an expiring P-256 API
key of its own ``CredentialType`` on the user, valid for ``expirationSeconds``
(15 minutes by default). ``invalidateExisting`` first removes the user's earlier
keys of that same type. A flow that issues the private key too hands it over only
as a credential bundle sealed to the client's ``targetPublicKey``.
"""

from __future__ import annotations

from ..ground import messages
from ..ground.errors import InvalidArgument
from ..ground.models import ApiKey, User
from .bundles import credential_bundle, new_p256_secret, public_key_of
from .context import Context
from .credentials import api_key_expiration, make_room_for_api_key

DEFAULT_EXPIRATION_SECONDS = "900"

# CredentialType of each flow's key (reference §6.5).
EMAIL_AUTH = "CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256"
OTP_AUTH = "CREDENTIAL_TYPE_OTP_AUTH_KEY_P256"
OAUTH = "CREDENTIAL_TYPE_OAUTH_KEY_P256"
READ_WRITE_SESSION = "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256"
RECOVER_USER = "CREDENTIAL_TYPE_RECOVER_USER_KEY_P256"
LOGIN = "CREDENTIAL_TYPE_LOGIN"


def default_key_name(prefix: str, now_ns: int) -> str:
    """``<prefix> - <Timestamp>``, the documented default name (Unix seconds)."""
    return f"{prefix} - {now_ns // 1_000_000_000}"


def expiration(value: str | None) -> str:
    """``expirationSeconds`` checked (a positive integer string), or the default."""
    seconds = api_key_expiration(value)
    return DEFAULT_EXPIRATION_SECONDS if seconds is None else str(seconds)


def issue_api_key(
    ctx: Context,
    user: User,
    *,
    public_key: str,
    credential_type: str,
    name: str,
    expiration_seconds: str | None,
    invalidate_existing: bool = False,
) -> ApiKey:
    """Register ``public_key`` (compressed P-256 hex) on ``user`` as an expiring key."""
    lifetime = expiration(expiration_seconds)
    if invalidate_existing:
        for old in [k for k in user.api_keys.values() if k.credential_type == credential_type]:
            ctx.store.remove_api_key(ctx.tx, ctx.org, user, old)
    public_key = public_key.lower()
    for owner in ctx.store.key_owners(public_key):
        if owner.organization_id != ctx.org.organization_id:
            continue
        if owner.user_id != user.user_id:
            raise InvalidArgument(
                messages.duplicate_api_key(public_key), turnkey_error_code="REQUEST_INVALID"
            )
        # The same client key again (a second login): its old registration makes way.
        ctx.store.remove_api_key(ctx.tx, ctx.org, user, user.api_keys[owner.api_key_id])
    make_room_for_api_key(ctx, user, expiring=True)
    key = ApiKey(
        api_key_id=ctx.new_id(),
        name=name,
        public_key=public_key,
        credential_type=credential_type,
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
        expiration_seconds=lifetime,
    )
    ctx.store.add_api_key(ctx.tx, ctx.org, user, key)
    return key


def issue_credential_bundle(
    ctx: Context,
    user: User,
    *,
    target_public_key: str,
    credential_type: str,
    name: str,
    expiration_seconds: str | None,
    invalidate_existing: bool = False,
) -> tuple[ApiKey, str]:
    """A new key pair for ``user``: its public half registered, its private half sealed
    to ``target_public_key`` as a credential bundle."""
    secret = new_p256_secret(ctx.world)
    bundle = credential_bundle(ctx.world, target_public_key, secret)
    key = issue_api_key(
        ctx,
        user,
        public_key=public_key_of(secret),
        credential_type=credential_type,
        name=name,
        expiration_seconds=expiration_seconds,
        invalidate_existing=invalidate_existing,
    )
    return key, bundle
