"""Bootstrapping an organization: its root user, API key and root quorum."""

from __future__ import annotations

from dataclasses import dataclass

from ..models import API_KEY_CREDENTIAL_TYPES, ApiKey, Organization, Quorum, User
from ..world import World


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
    )
    tx = world.transaction()
    world.store.add_organization(tx, org)
    world.store.add_user(tx, org, user)
    tx.commit()
    return Bootstrapped(org, user, key)
