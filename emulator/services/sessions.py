"""Sessions: the login flows' signed JWT and the key it stands for (reference §7.6).

``stamp_login``, ``oauth_login`` and ``otp_login`` register the client's
``publicKey`` as a ``CREDENTIAL_TYPE_LOGIN`` key of the user, expiring after
``expirationSeconds`` (15 minutes by default), and answer ``session``: a JWT
signed by the enclave's notarizer key over SHA-256(SHA-256(header.payload)),
with the claims ``exp`` (seconds), ``public_key``, ``session_type``,
``user_id``, ``organization_id`` and, with a session profile, ``session_profile_id``
and ``scope`` (``session_type`` is then the profile's name; the session lives the
shorter of the login's and the profile's lifetimes: ``services/session_profiles.py``).
The client then stamps with that key; the official SDKs read the JWT's claims.
"""

from __future__ import annotations

from typing import Any

from ..crypto import jwt
from ..crypto.enclave import NOTARIZER
from ..engine_state.world import World
from ..ground.models import ApiKey, User
from . import session_profiles
from .context import Context
from .credentials import api_key_expiration
from .issuance import LOGIN, default_key_name, issue_api_key

READ_WRITE = "SESSION_TYPE_READ_WRITE"
READ_ONLY = "SESSION_TYPE_READ_ONLY"
LOGIN_KEY_PREFIX = "Session Key"


def session_jwt(
    world: World,
    *,
    organization_id: str,
    user_id: str,
    public_key: str,
    expires_at_s: int,
    session_type: str = READ_WRITE,
    session_profile_id: str | None = None,
    scope: str | None = None,
) -> str:
    """A session JWT signed by the notarizer key, claims in the real service's order."""
    claims: dict[str, Any] = {
        "exp": expires_at_s,
        "public_key": public_key,
        "session_type": session_type,
        "user_id": user_id,
        "organization_id": organization_id,
    }
    if session_profile_id:
        claims["session_profile_id"] = session_profile_id
    if scope is not None:
        claims["scope"] = scope
    return jwt.sign_es256(claims, world.enclave.key(NOTARIZER), double_hash=True)


def login(
    ctx: Context,
    user: User,
    *,
    public_key: str,
    expiration_seconds: str | None,
    invalidate_existing: bool = False,
    session_profile_id: str | None = None,
) -> tuple[ApiKey, str]:
    """Register ``public_key`` as the user's login key and sign its session (limited by the
    session profile ``session_profile_id``, when given)."""
    profile = (
        session_profiles.find(ctx.store, ctx.org, session_profile_id)
        if session_profile_id
        else None
    )
    key = issue_api_key(
        ctx,
        user,
        public_key=public_key,
        credential_type=LOGIN,
        name=default_key_name(LOGIN_KEY_PREFIX, ctx.now_ns),
        expiration_seconds=session_profiles.session_expiration(
            api_key_expiration(expiration_seconds), profile
        ),
        invalidate_existing=invalidate_existing,
    )
    if profile is not None:
        ctx.tx.set(key, "session_profile_id", profile.session_profile_id)
    expires_at_ns = key.expires_at_ns()
    assert expires_at_ns is not None
    session = session_jwt(
        ctx.world,
        organization_id=ctx.org.organization_id,
        user_id=user.user_id,
        public_key=key.public_key,
        expires_at_s=expires_at_ns // 1_000_000_000,
        session_type=profile.name if profile is not None else READ_WRITE,
        session_profile_id=profile.session_profile_id if profile is not None else None,
        scope=profile.scope if profile is not None else None,
    )
    return key, session
