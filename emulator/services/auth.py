"""Who is calling: resolve and check the stamp of a request.

An ``X-Stamp`` (API key): its public key is looked up among the API keys of
the target organization, then of its parent (a sub-organization's own user
wins). The key must match the stamp's scheme, must not have expired on the
emulator's clock, and its signature must verify over the exact body bytes.

An ``X-Stamp-Webauthn`` (passkey): its credential id is looked up among the
authenticators of the target organization, then of its parent (404
"webauthn authenticator not found in organization [or parent organization]"),
and the assertion must verify with the stored COSE key over a challenge that
is the hash of this very body (401 "could not verify WebAuthN signature"). If
``FEATURE_NAME_WEBAUTHN_ORIGINS`` is set (the parent's applies to its
sub-organizations), the assertion's origin must be one of its values.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..crypto.attested import AttestedStamp
from ..crypto.stamps import ApiKeyStamp, verify_stamp
from ..crypto.webauthn import AssertionInvalid, WebauthnStamp, same_credential_id, verify_assertion
from ..engine_state.world import World
from ..ground import messages
from ..ground.controls import AuthMethod
from ..ground.errors import NotFound, Unauthenticated
from ..ground.models import ApiKey, Authenticator, Organization, User

#: Any kind of stamp. Each gives a vote its ``public_key``, ``signature`` and ``scheme``
#: (a passkey's ``public_key`` is its stored COSE key once it is found). An attested
#: stamp is authenticated by ``services/attestation.py``.
Stamp = ApiKeyStamp | WebauthnStamp | AttestedStamp
WEBAUTHN_ORIGINS = "FEATURE_NAME_WEBAUTHN_ORIGINS"


@dataclass(frozen=True, slots=True)
class Caller:
    """The authenticated caller: their user, that user's organization and credential
    (an API key, or for a passkey stamp the ``authenticator``)."""

    user: User
    organization: Organization
    api_key: ApiKey | None  # None for a passkey, or a proposer whose key is gone
    stamp: Stamp
    authenticator: Authenticator | None = None
    # For an attested stamp: the method its token proves (an e-mail or SMS OTP, or an OAuth
    # provider of the user), as MFA policies name it.
    attested: AuthMethod | None = None


def authenticate(
    world: World,
    target: Organization,
    stamp: Stamp | None,
    body: bytes,
    *,
    is_activity: bool,
    check_signature: bool = True,
    login: bool = False,
) -> Caller:
    """The caller behind ``stamp``, or the real service's 401 (404 for an unknown passkey).
    A ``login`` (``stamp_login``) with a passkey also finds it in the target's
    sub-organizations: the caller is then that sub-organization's user."""
    if stamp is None:
        message = messages.NO_STAMP_ACTIVITY if is_activity else messages.NO_STAMP_QUERY
        raise Unauthenticated(message, turnkey_error_code="SIGNATURE_MISSING")
    if isinstance(stamp, WebauthnStamp):
        return _authenticate_passkey(world, target, stamp, body, check_signature, login)
    if isinstance(stamp, AttestedStamp):
        raise Unauthenticated(messages.BAD_SIGNATURE, turnkey_error_code="SIGNATURE_INVALID")
    caller, key = _find_key(world, target, stamp)
    if key.curve != stamp.curve:
        raise Unauthenticated(messages.BAD_SIGNATURE, turnkey_error_code="SIGNATURE_INVALID")
    expires_at = key.expires_at_ns()
    if expires_at is not None and world.clock.now_ns() >= expires_at:
        raise Unauthenticated(
            messages.expired_api_key(stamp.public_key), turnkey_error_code="API_KEY_EXPIRED"
        )
    if check_signature and not verify_stamp(stamp, body):
        raise Unauthenticated(messages.BAD_SIGNATURE, turnkey_error_code="SIGNATURE_INVALID")
    return caller


def _find_key(world: World, target: Organization, stamp: ApiKeyStamp) -> tuple[Caller, ApiKey]:
    owners = world.store.key_owners(stamp.public_key)
    for org_id in (target.organization_id, target.parent_id):
        for owner in owners:
            if owner.organization_id == org_id:
                org = world.store.organizations[org_id]
                user = org.users[owner.user_id]
                key = user.api_keys[owner.api_key_id]
                return Caller(user, org, key, stamp), key
    raise Unauthenticated(
        messages.public_key_not_found(
            target.organization_id, stamp.public_key, has_parent=target.parent_id is not None
        ),
        turnkey_error_code="PUBLIC_KEY_NOT_FOUND",
    )


def _authenticate_passkey(
    world: World,
    target: Organization,
    stamp: WebauthnStamp,
    body: bytes,
    check_signature: bool,
    login: bool = False,
) -> Caller:
    org, user, authenticator = _find_authenticator(world, target, stamp.credential_id, login)
    if check_signature:
        try:
            verify_assertion(
                stamp, authenticator.public_key, body, allowed_origins=allowed_origins(world, org)
            )
        except AssertionInvalid:
            raise Unauthenticated(
                messages.BAD_WEBAUTHN_SIGNATURE, turnkey_error_code="SIGNATURE_INVALID"
            ) from None
    resolved = replace(stamp, public_key=authenticator.public_key)
    return Caller(user, org, None, resolved, authenticator)


def _find_authenticator(
    world: World, target: Organization, credential_id: str, login: bool = False
) -> tuple[Organization, User, Authenticator]:
    """The passkey with ``credential_id`` in ``target``, else in its parent (for a login,
    else in one of its sub-organizations: ``@turnkey/core`` addresses a passkey login to
    the parent organization it is configured with)."""
    for org in (target, world.store.organizations.get(target.parent_id or "")):
        found = _authenticator_in(org, credential_id) if org is not None else None
        if found is not None:
            return found
    if login:
        subs = [
            o for o in world.store.organizations.values() if o.parent_id == target.organization_id
        ]
        matches = [m for m in (_authenticator_in(o, credential_id) for o in subs) if m is not None]
        if len(matches) > 1:  # errors.mdx: the request names no sub-organization to choose
            raise Unauthenticated(
                messages.CREDENTIAL_IN_SEVERAL_SUB_ORGANIZATIONS,
                turnkey_error_code="CREDENTIAL_CONFLICT",
            )
        if matches:
            return matches[0]
    raise NotFound(
        messages.webauthn_authenticator_not_found(
            target.organization_id, credential_id, has_parent=target.parent_id is not None
        ),
        turnkey_error_code="CREDENTIAL_NOT_FOUND",
    )


def _authenticator_in(
    org: Organization, credential_id: str
) -> tuple[Organization, User, Authenticator] | None:
    for user in org.users.values():
        for authenticator in user.authenticators.values():
            if same_credential_id(authenticator.credential_id, credential_id):
                return org, user, authenticator
    return None


def allowed_origins(world: World, org: Organization) -> list[str] | None:
    """The origins of ``FEATURE_NAME_WEBAUTHN_ORIGINS`` that apply to ``org`` (its parent's
    feature applies to its sub-organizations; else its own), or None (any origin). The
    value is one origin or several separated by commas; ``*`` allows any."""
    parent = world.store.organizations.get(org.parent_id) if org.parent_id else None
    for holder in (parent, org):
        if holder is not None and holder.features.get(WEBAUTHN_ORIGINS):
            origins = [o.strip() for o in holder.features[WEBAUTHN_ORIGINS].split(",")]
            return [o for o in origins if o] or None
    return None
