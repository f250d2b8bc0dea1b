"""Who is calling: resolve and check the ``X-Stamp`` of a request.

The stamp's public key is looked up among the API keys of the target
organization, then of its parent (a sub-organization's own user wins). The
key must match the stamp's scheme, must not have expired on the emulator's
clock, and its signature must verify over the exact body bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import messages
from ..crypto.stamps import ApiKeyStamp, verify_stamp
from ..errors import Unauthenticated
from ..models import ApiKey, Organization, User
from ..world import World


@dataclass(frozen=True, slots=True)
class Caller:
    """The authenticated caller: their user, that user's organization and key."""

    user: User
    organization: Organization
    api_key: ApiKey | None  # None for a proposer whose key is gone when consensus completes
    stamp: ApiKeyStamp


def authenticate(
    world: World,
    target: Organization,
    stamp: ApiKeyStamp | None,
    body: bytes,
    *,
    is_activity: bool,
    check_signature: bool = True,
) -> Caller:
    """The caller behind ``stamp``, or the real service's 401."""
    if stamp is None:
        message = messages.NO_STAMP_ACTIVITY if is_activity else messages.NO_STAMP_QUERY
        raise Unauthenticated(message, turnkey_error_code="SIGNATURE_MISSING")
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
