"""What applying a seed file answers (``facade/seedfile.py``): names to ids and addresses,
one dataclass per kind of record, ``SeedResult`` at the top."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..crypto.api_keys import ApiKeyPair

if TYPE_CHECKING:
    from .handles import OrganizationHandle

Json = dict[str, Any]


@dataclass(frozen=True)
class ApiKeySeed:
    api_key_id: str
    name: str
    key: ApiKeyPair  # usable as ``caller=``; ``private_key`` is "" when the file gave none

    @property
    def public_key(self) -> str:
        return self.key.public_key


@dataclass(frozen=True)
class UserSeed:
    user_id: str
    name: str
    api_keys: dict[str, ApiKeySeed]
    tag_ids: list[str]


@dataclass(frozen=True)
class WalletSeed:
    wallet_id: str
    name: str
    addresses: list[str]  # one per account, in the file's order
    accounts: list[Json]  # the v1WalletAccountParams each address came from


@dataclass(frozen=True)
class PrivateKeySeed:
    private_key_id: str
    name: str
    curve: str
    addresses: dict[str, str]  # address format -> address
    tag_ids: list[str]


@dataclass(frozen=True)
class PolicySeed:
    policy_id: str
    name: str
    effect: str
    condition: str | None  # as created: the file's placeholders replaced by ids
    consensus: str | None
    time: str | None


@dataclass(frozen=True)
class QuorumSeed:
    threshold: int
    user_ids: list[str]


@dataclass
class OrganizationSeed:
    name: str
    organization_id: str
    handle: OrganizationHandle  # the root API key: ``caller=`` and ``emu.client(handle)``
    parent_id: str | None = None
    users: dict[str, UserSeed] = field(default_factory=dict)  # the root user too
    user_tags: dict[str, str] = field(default_factory=dict)  # name -> id
    wallets: dict[str, WalletSeed] = field(default_factory=dict)
    private_keys: dict[str, PrivateKeySeed] = field(default_factory=dict)
    private_key_tags: dict[str, str] = field(default_factory=dict)  # name -> id
    policies: dict[str, PolicySeed] = field(default_factory=dict)
    root_quorum: QuorumSeed | None = None  # the root user alone, threshold 1, unless the file says
    sub_organizations: dict[str, OrganizationSeed] = field(default_factory=dict)

    @property
    def root_user_id(self) -> str:
        return self.handle.user_id


@dataclass
class SeedResult:
    """Names to ids and addresses: ``result.organizations["Acme"].wallets["hot"].addresses``.

    ``organizations`` holds every organization of the file, sub-organizations included.
    """

    organizations: dict[str, OrganizationSeed] = field(default_factory=dict)

    def __getitem__(self, name: str) -> OrganizationSeed:
        return self.organizations[name]
