"""Organizations: bootstrapping one, the features it starts with, its root quorum rules."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..engine_state.world import World
from ..ground import messages
from ..ground.errors import InvalidArgument
from ..ground.models import API_KEY_CREDENTIAL_TYPES, ApiKey, Organization, Quorum, User

# The features a sub-organization has from its creation, each with the
# create_sub_organization flag that leaves it out. The docs: e-mail auth, OTP e-mail auth
# and SMS auth are enabled by default in sub-organizations and disabled in top-level
# organizations (which start with no feature); e-mail recovery has a ``disable`` flag of
# its own, so it is taken to be on by default in the same way. An enabled feature is
# listed with the value it was set with ("" when none).
SUB_ORGANIZATION_FEATURES = {
    "disableEmailRecovery": "FEATURE_NAME_EMAIL_RECOVERY",
    "disableEmailAuth": "FEATURE_NAME_EMAIL_AUTH",
    "disableSmsAuth": "FEATURE_NAME_SMS_AUTH",
    "disableOtpEmailAuth": "FEATURE_NAME_OTP_EMAIL_AUTH",
}


def initial_features(parent_id: str | None, disabled: Iterable[str] = ()) -> dict[str, str]:
    """The features a new organization starts with; ``disabled`` names ``disable*`` flags."""
    if parent_id is None:
        return {}
    off = set(disabled)
    return {name: "" for flag, name in SUB_ORGANIZATION_FEATURES.items() if flag not in off}


def check_quorum(threshold: int, members: int) -> None:
    """The real "quorum threshold must be non-zero integer" for 0 or less; a threshold
    above the number of quorum users is refused too (no quorum could ever be met)."""
    if threshold <= 0:
        raise InvalidArgument(
            messages.QUORUM_THRESHOLD_NOT_POSITIVE, turnkey_error_code="REQUEST_INVALID"
        )
    if threshold > members:
        raise InvalidArgument(
            messages.quorum_threshold_above_members(threshold, members),
            turnkey_error_code="REQUEST_INVALID",
        )


@dataclass(frozen=True, slots=True)
class Bootstrapped:
    organization: Organization
    user: User
    api_key: ApiKey


def bootstrap_organization(
    world: World,
    *,
    name: str,
    user_name: str,
    public_key: str,
    curve: str,
    user_email: str | None = None,
    api_key_name: str = "Root API key",
    parent_id: str | None = None,
) -> Bootstrapped:
    """A new organization whose root quorum is one user holding one API key (threshold 1)."""
    now = world.clock.now_ns()
    ids = world.ids
    org_id, user_id, key_id = ids.uuid4(), ids.uuid4(), ids.uuid4()
    key = ApiKey(
        key_id, api_key_name, public_key.lower(), API_KEY_CREDENTIAL_TYPES[curve], now, now
    )
    user = User(user_id, user_name, now, now, email=user_email, api_keys={key_id: key})
    org = Organization(
        organization_id=org_id,
        name=name,
        created_at=now,
        root_quorum=Quorum(threshold=1, user_ids=[user_id]),
        parent_id=parent_id,
        features=initial_features(parent_id),
    )
    tx = world.transaction()
    world.store.add_organization(tx, org)
    world.store.add_user(tx, org, user)
    tx.commit()
    return Bootstrapped(org, user, key)
