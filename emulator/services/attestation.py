"""Who is calling with an ``X-Stamp-Attested``: the user a Turnkey-issued token names.

``@turnkey/core`` (2.7 and later) logs a user in after an OTP or an OAuth sign-in
with ``stamp_login`` stamped by the new session key itself, the key a token of ours
vouches for, since the user holds no credential of the organization yet. It is
checked as the real service documents the pieces (``crypto/attested.py``):

1. the operation is ``stamp_login`` (the one activity such a stamp authenticates);
2. the body's signature verifies under the stamp's ``publicKey`` (401);
3. the token is ours and current, and binds that key:
   * a verification token (``services/verification.py``): signed by the enclave,
     unexpired, issued by the target organization or its parent (the Auth Proxy and
     the official flows verify the OTP in the parent and log in in the user's
     sub-organization), of the encrypted OTP flow, its ``public_key`` the stamp's key;
   * an OIDC token (``services/oidc.py``): from a trusted issuer, unexpired, its nonce
     SHA-256 of the stamp's key;
4. the caller is the target organization's user with the token's contact (its
   e-mail or phone number), or with an OAuth provider of the token's identity. A
   login addressed to the parent organization (``@turnkey/core`` sends the
   configured parent's id when no ``organizationId`` is given: "defaults to the
   verified sub-organization linked to the verification token contact") is the login
   of that user in the sub-organization where their contact is verified (for an OIDC
   token: where they hold the identity); the activity is that sub-organization's (404
   when there is none).

A token that fails any check is the real 401 (``could not verify attested stamp``);
the reason follows it. The same verification token may serve a sign-up
(``create_sub_organization`` uses it up) and then this login, as
``signUpWithOtp`` does; what stops a replay is the signature over a body whose
``timestampMs`` must be current (the emulator's choice, the real rule is not public).
"""

from __future__ import annotations

from ..crypto.attested import (
    SCHEME_VERIFICATION_TOKEN,
    AttestedStamp,
    verify_attested_signature,
)
from ..engine_state.world import World
from ..ground import messages
from ..ground.controls import AuthMethod
from ..ground.errors import NotFound, TurnkeyApiError, Unauthenticated
from ..ground.models import Organization, User
from ..ground.transaction import Transaction
from . import otp as otps
from . import verification
from .auth import Caller
from .context import Context
from .oidc import verify_token

# stamp_login, and approve_activity, the way a user proves an OTP or OAuth factor that an MFA
# policy asks for (features/authentication/mfa/satisfying-mfa).
ATTESTED_OPERATIONS = frozenset({"stamp_login", "approve_activity"})
_OTP_METHODS = {
    otps.EMAIL_OTP: "AUTHENTICATION_TYPE_EMAIL_OTP",
    otps.SMS_OTP: "AUTHENTICATION_TYPE_SMS_OTP",
}
ATTESTED_FAILURE = "could not verify attested stamp"


def authenticate_attested(
    world: World, target: Organization, stamp: AttestedStamp, body: bytes, operation: str
) -> Caller:
    """The caller behind an attested stamp, or the 401 (404 when no user has the
    token's identity in ``target``)."""
    if operation not in ATTESTED_OPERATIONS:
        raise _refused(
            "an attested stamp authenticates ACTIVITY_TYPE_STAMP_LOGIN and "
            "ACTIVITY_TYPE_APPROVE_ACTIVITY only"
        )
    if not verify_attested_signature(stamp, body):
        raise _refused("the signature does not verify under publicKey")
    now_ns = world.clock.now_ns()
    if stamp.scheme == SCHEME_VERIFICATION_TOKEN:
        org, user, method = _verification_token_user(world, target, stamp, now_ns)
    else:
        org, user, method = _oidc_user(world, target, stamp, now_ns)
    return Caller(user, org, None, stamp, attested=method)


def _sub_organizations(world: World, parent: Organization) -> list[Organization]:
    parent_id = parent.organization_id
    return [o for o in world.store.organizations.values() if o.parent_id == parent_id]


def _verification_token_user(
    world: World, target: Organization, stamp: AttestedStamp, now_ns: int
) -> tuple[Organization, User, AuthMethod]:
    ctx = Context(world, target, None, now_ns, Transaction())  # type: ignore[arg-type]
    try:
        token = verification.check(ctx, stamp.attestation, encrypted_only=True, allow_used=True)
    except TurnkeyApiError as error:
        raise _refused(error.message) from None
    bound = token.public_key
    if bound is None or not _same_key(bound, stamp.public_key):
        raise _refused("the verification token is not bound to publicKey")
    otp_type, contact = token.claims["verification_type"], token.claims["contact"]
    method = AuthMethod(_OTP_METHODS[otp_type])
    try:
        return target, otps.user_with_contact(target, otp_type, contact), method
    except NotFound:
        if token.issuer is not target:
            raise
        for sub in _sub_organizations(world, target):
            for user in sub.users.values():
                if _has_verified_contact(user, otp_type, contact):
                    return sub, user, method
        raise


def _has_verified_contact(user: User, otp_type: str, contact: str) -> bool:
    if otp_type == otps.EMAIL_OTP:
        return bool(user.email_verified and (user.email or "").lower() == contact.lower())
    return bool(user.phone_number_verified and user.phone_number == contact)


def _oidc_user(
    world: World, target: Organization, stamp: AttestedStamp, now_ns: int
) -> tuple[Organization, User, AuthMethod]:
    try:
        identity = verify_token(world, stamp.attestation, now_ns, public_key=stamp.public_key)
    except TurnkeyApiError as error:
        raise _refused(error.message) from None
    for org in (target, *_sub_organizations(world, target)):
        for user in org.users.values():
            for provider in user.oauth_providers.values():
                if identity.names(provider):
                    return org, user, AuthMethod("AUTHENTICATION_TYPE_OAUTH", provider.provider_id)
    raise NotFound(messages.oauth_user_not_found(target.organization_id))


def _same_key(a: str, b: str) -> bool:
    from ..crypto import hpke

    try:
        return hpke.compress(bytes.fromhex(a)) == hpke.compress(bytes.fromhex(b))
    except ValueError:
        return False


def _refused(why: str) -> Unauthenticated:
    return Unauthenticated(f"{ATTESTED_FAILURE}: {why}", turnkey_error_code="SIGNATURE_INVALID")
