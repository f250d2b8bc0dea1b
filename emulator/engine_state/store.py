"""The in-memory state of one emulator: organizations and the indexes over them.

The indexes (API key public key to its owners, activity fingerprint and id to
the activity) are kept up to date by the helpers below, which change state
only through a ``Transaction`` so that a failed request leaves no trace.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ground.models import Activity, ApiKey, Organization, User
from ..ground.transaction import Transaction
from .vault import Vault


@dataclass(frozen=True, slots=True)
class KeyOwner:
    """Where an API key lives: its organization, user and key id."""

    organization_id: str
    user_id: str
    api_key_id: str


@dataclass(repr=False)
class Store:
    organizations: dict[str, Organization] = field(default_factory=dict)
    # compressed/raw public key hex (lower case) -> owners of that key
    api_keys_by_public_key: dict[str, tuple[KeyOwner, ...]] = field(default_factory=dict)
    activities_by_fingerprint: dict[str, Activity] = field(default_factory=dict)
    activities_by_id: dict[str, Activity] = field(default_factory=dict)
    vault: Vault = field(default_factory=Vault)

    def __repr__(self) -> str:  # the organizations hold secrets (OTP codes): counts only
        return (
            f"Store(organizations={len(self.organizations)},"
            f" activities={len(self.activities_by_id)}, {self.vault!r})"
        )

    # ----- organizations -------------------------------------------------

    def add_organization(self, tx: Transaction, org: Organization) -> None:
        tx.put(self.organizations, org.organization_id, org)
        if org.parent_id is not None:
            parent = self.organizations[org.parent_id]
            tx.set(
                parent, "sub_organization_ids", [*parent.sub_organization_ids, org.organization_id]
            )

    def remove_organization(self, tx: Transaction, org: Organization) -> None:
        """Take ``org`` out of every index, its parent's list and the vault; undoable.

        The record itself is left as it is (an activity that deleted it still renders it).
        """
        for user in list(org.users.values()):
            for key in list(user.api_keys.values()):
                self._unindex_key(tx, org, user, key)
        for activity in org.activities.values():
            self._unindex_activity(tx, activity)
        for wallet_id in org.wallets:
            tx.pop(self.vault.wallets, wallet_id)
        for private_key_id in org.private_keys:
            tx.pop(self.vault.private_keys, private_key_id)
        for secret_id in org.secrets:
            tx.pop(self.vault.secrets, secret_id)
        parent = self.organizations.get(org.parent_id or "")
        if parent is not None:
            remaining = [i for i in parent.sub_organization_ids if i != org.organization_id]
            tx.set(parent, "sub_organization_ids", remaining)
        tx.pop(self.organizations, org.organization_id)

    # ----- users and their API keys --------------------------------------

    def add_user(self, tx: Transaction, org: Organization, user: User) -> None:
        tx.put(org.users, user.user_id, user)
        for key in user.api_keys.values():
            self._index_key(tx, org, user, key)

    def remove_user(self, tx: Transaction, org: Organization, user: User) -> None:
        for key in list(user.api_keys.values()):
            self._unindex_key(tx, org, user, key)
        tx.pop(org.users, user.user_id)

    def add_api_key(self, tx: Transaction, org: Organization, user: User, key: ApiKey) -> None:
        tx.put(user.api_keys, key.api_key_id, key)
        self._index_key(tx, org, user, key)

    def remove_api_key(self, tx: Transaction, org: Organization, user: User, key: ApiKey) -> None:
        self._unindex_key(tx, org, user, key)
        tx.pop(user.api_keys, key.api_key_id)

    def key_owners(self, public_key: str) -> tuple[KeyOwner, ...]:
        return self.api_keys_by_public_key.get(public_key.lower(), ())

    def _index_key(self, tx: Transaction, org: Organization, user: User, key: ApiKey) -> None:
        index = key.public_key.lower()
        owner = KeyOwner(org.organization_id, user.user_id, key.api_key_id)
        tx.put(self.api_keys_by_public_key, index, (*self.key_owners(index), owner))

    def _unindex_key(self, tx: Transaction, org: Organization, user: User, key: ApiKey) -> None:
        index = key.public_key.lower()
        owner = KeyOwner(org.organization_id, user.user_id, key.api_key_id)
        remaining = tuple(o for o in self.key_owners(index) if o != owner)
        if remaining:
            tx.put(self.api_keys_by_public_key, index, remaining)
        else:
            tx.pop(self.api_keys_by_public_key, index)

    # ----- activities ----------------------------------------------------

    def add_activity(self, tx: Transaction, org: Organization, activity: Activity) -> None:
        tx.put(org.activities, activity.activity_id, activity)
        if self.organizations.get(org.organization_id) is not org:
            # The activity that removed its own organization (delete_sub_organization):
            # it stays with the detached record, out of the indexes of what is left.
            return
        tx.put(self.activities_by_id, activity.activity_id, activity)
        tx.put(self.activities_by_fingerprint, activity.fingerprint, activity)

    def _unindex_activity(self, tx: Transaction, activity: Activity) -> None:
        if self.activities_by_id.get(activity.activity_id) is activity:
            tx.pop(self.activities_by_id, activity.activity_id)
        if self.activities_by_fingerprint.get(activity.fingerprint) is activity:
            tx.pop(self.activities_by_fingerprint, activity.fingerprint)
