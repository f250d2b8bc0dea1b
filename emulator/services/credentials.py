"""Adding and removing a user's credentials: API keys, passkeys, OAuth providers.

The real rules: an API key's public key must fit its curve; ``expirationSeconds``
is a positive integer string; a user holds at most 10 long-lived and 10
expiring keys (an 11th expiring key evicts an expired one, else the oldest) and
at most 10 authenticators; a public key or credential id is unique in an
organization; an OAuth provider's token must verify (``services/oidc.py``) and its
identity (``iss``, ``aud``, ``sub``) is one user's in an organization.
"""

from __future__ import annotations

import base64
from typing import Any

from ..crypto.api_keys import is_valid_public_key
from ..crypto.encoding import b64url_decode
from ..crypto.webauthn import AttestationError, MissingAuthData, read_attestation
from ..ground import jsontext, messages
from ..ground.errors import InvalidArgument, ResourceExhausted, ValidationFailed
from ..ground.models import API_KEY_CREDENTIAL_TYPES, ApiKey, Authenticator, OauthProvider, User
from ..ground.numbers import positive
from ..ground.schema import Violations
from .context import Context
from .oidc import OidcIdentity, verify_token

DEFAULT_AUTHENTICATOR_MODEL = "Security key"


def _at(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def api_key_expiration(value: object) -> int | None:
    """An API key's or a session's ``expirationSeconds``: ``None`` when not given, else a
    positive whole number of seconds in ASCII digits (``numbers.positive``); anything else
    is the real 400 "invalid api key expiration" ("Any non-positive non-integer string will
    be considered invalid", reference §12). The one reader of the field for keys."""
    if value is None or value == "":
        return None
    seconds = positive(value)
    if seconds is None:
        raise InvalidArgument(
            messages.INVALID_API_KEY_EXPIRATION, turnkey_error_code="REQUEST_INVALID"
        )
    return seconds


def add_api_key(ctx: Context, user: User, params: dict[str, Any], path: str) -> ApiKey:
    curve = params["curveType"]
    public_key = params["publicKey"].lower()
    if not is_valid_public_key(public_key, curve):
        errors = Violations()
        errors.add(_at(path, "publicKey"), f"must be a valid {curve} public key")
        raise ValidationFailed(errors)
    seconds = api_key_expiration(params.get("expirationSeconds"))
    expiration = None if seconds is None else str(seconds)
    if any(o.organization_id == ctx.org.organization_id for o in ctx.store.key_owners(public_key)):
        raise InvalidArgument(
            messages.duplicate_api_key(public_key), turnkey_error_code="REQUEST_INVALID"
        )
    make_room_for_api_key(ctx, user, expiring=expiration is not None)
    key = ApiKey(
        api_key_id=ctx.new_id(),
        name=params["apiKeyName"],
        public_key=public_key,
        credential_type=API_KEY_CREDENTIAL_TYPES[curve],
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
        expiration_seconds=expiration,
    )
    ctx.store.add_api_key(ctx.tx, ctx.org, user, key)
    return key


def make_room_for_api_key(ctx: Context, user: User, *, expiring: bool) -> None:
    """At most 10 long-lived (an error) and 10 expiring keys (an expired one, else the
    oldest, makes way)."""
    limit = ctx.settings.max_api_keys_per_user
    same_kind = [
        k for k in user.api_keys.values() if (k.expiration_seconds is not None) == expiring
    ]
    if len(same_kind) < limit:
        return
    if not expiring:
        raise ResourceExhausted(
            messages.MAX_LONG_LIVED_API_KEYS, turnkey_error_code="RATE_LIMIT_EXCEEDED"
        )
    expired = [k for k in same_kind if (k.expires_at_ns() or 0) <= ctx.now_ns]
    victim = expired[0] if expired else min(same_kind, key=lambda k: k.created_at)
    ctx.store.remove_api_key(ctx.tx, ctx.org, user, victim)


def add_authenticator(ctx: Context, user: User, params: dict[str, Any], path: str) -> Authenticator:
    attestation = params["attestation"]
    try:
        registered = read_attestation(
            attestation["attestationObject"], attestation["clientDataJson"]
        )
    except MissingAuthData as exc:
        raise InvalidArgument(
            messages.MISSING_ATTESTATION_AUTH_DATA, turnkey_error_code="REQUEST_INVALID"
        ) from exc
    except AttestationError as exc:
        raise InvalidArgument(
            messages.INVALID_ATTESTATION, turnkey_error_code="REQUEST_INVALID"
        ) from exc
    if _decoded(attestation["credentialId"]) != _decoded(registered.credential_id):
        raise InvalidArgument(messages.INVALID_ATTESTATION, turnkey_error_code="REQUEST_INVALID")
    if len(user.authenticators) >= ctx.settings.max_authenticators_per_user:
        raise ResourceExhausted(
            messages.MAX_AUTHENTICATORS, turnkey_error_code="RATE_LIMIT_EXCEEDED"
        )
    for other in ctx.org.users.values():
        if any(a.credential_id == registered.credential_id for a in other.authenticators.values()):
            raise InvalidArgument(
                messages.duplicate_authenticator(registered.credential_id),
                turnkey_error_code="REQUEST_INVALID",
            )
    authenticator = Authenticator(
        authenticator_id=ctx.new_id(),
        name=params["authenticatorName"],
        credential_id=registered.credential_id,
        public_key=registered.public_key,
        aaguid=registered.aaguid,
        attestation_type=registered.attestation_format,
        model=DEFAULT_AUTHENTICATOR_MODEL,
        transports=list(attestation.get("transports", [])),
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
    )
    ctx.tx.put(user.authenticators, authenticator.authenticator_id, authenticator)
    return authenticator


def _decoded(value: str) -> bytes | None:
    try:
        return b64url_decode(value)
    except ValueError:
        return None


def add_oauth_provider(ctx: Context, user: User, params: dict[str, Any]) -> OauthProvider:
    """An OAuth provider from the given ``oidcClaims``, else from the ``iss``, ``aud`` and
    ``sub`` of ``oidcToken`` once it verifies (``services/oidc.py``; a token given beside
    claims is verified too). One identity is one user's in an organization."""
    if len(user.oauth_providers) >= ctx.settings.max_oauth_providers_per_user:
        raise ResourceExhausted(
            messages.MAX_OAUTH_PROVIDERS, turnkey_error_code="RATE_LIMIT_EXCEEDED"
        )
    token, claims = params.get("oidcToken"), params.get("oidcClaims")
    identity = verify_token(ctx.world, token, ctx.now_ns) if token or not claims else None
    if claims:
        issuer, subject, audience = claims["iss"], claims["sub"], claims["aud"]
    else:
        assert identity is not None
        issuer, subject, audience = identity.issuer, identity.subject, identity.audience
    for other in ctx.org.users.values():
        for p in other.oauth_providers.values():
            if (p.issuer, p.audience, p.subject) == (issuer, audience, subject):
                raise InvalidArgument(
                    messages.oauth_provider_exists(issuer, audience, subject),
                    turnkey_error_code="OAUTH_PROVIDER_ALREADY_EXISTS",
                )
    provider = OauthProvider(
        provider_id=ctx.new_id(),
        name=params["providerName"],
        issuer=issuer,
        audience=audience,
        subject=subject,
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
    )
    ctx.tx.put(user.oauth_providers, provider.provider_id, provider)
    if identity is not None:
        link_google_email(ctx, user, identity)
    return provider


def link_google_email(ctx: Context, user: User, identity: OidcIdentity) -> None:
    """Social linking (social-logins.mdx): a Google token whose e-mail Google verified
    marks the user's e-mail verified when it is that e-mail, and becomes the user's
    e-mail when they have none."""
    if not (identity.is_google and identity.email_verified and identity.email):
        return
    if user.email is None:
        ctx.tx.set(user, "email", identity.email)
    elif user.email.casefold() != identity.email.casefold():
        return
    if not user.email_verified:
        ctx.tx.set(user, "email_verified", True)


def token_claims(token: str | None) -> dict[str, str]:
    """``iss``, ``sub`` and ``aud`` of a token, read without verifying it (a lookup)."""
    invalid = InvalidArgument(messages.INVALID_OIDC_TOKEN, turnkey_error_code="INVALID_OIDC_TOKEN")
    parts = (token or "").split(".")
    if len(parts) != 3:
        raise invalid
    try:
        claims = jsontext.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except ValueError as exc:
        raise invalid from exc
    if not isinstance(claims, dict):
        raise invalid
    aud = claims.get("aud")
    aud = aud[0] if isinstance(aud, list) and aud else aud
    if not all(isinstance(v, str) and v for v in (claims.get("iss"), claims.get("sub"), aud)):
        raise invalid
    return {"iss": claims["iss"], "sub": claims["sub"], "aud": aud}
