"""What facade calls take and give back: ``OrganizationHandle`` (what ``create_organization``
returns) and ``Caller`` (who a call acts as). Apart from ``api.py`` so that the modules mixed
into ``Emulator`` (and the generated methods) can name them without importing ``Emulator``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..crypto.api_keys import ApiKeyPair

if TYPE_CHECKING:
    from ..crypto.authenticator import VirtualAuthenticator

__all__ = ["Caller", "OrganizationHandle"]


@dataclass(frozen=True)
class OrganizationHandle:
    """What ``create_organization`` gives back: the ids and the root API key pair."""

    organization_id: str
    organization_name: str
    user_id: str
    user_name: str
    api_key_id: str
    api_key: ApiKeyPair

    @property
    def api_public_key(self) -> str:
        return self.api_key.public_key

    @property
    def api_private_key(self) -> str:
        return self.api_key.private_key


if TYPE_CHECKING:
    from typing import TypeAlias

    #: Who a facade call acts as: an organization's root key, a key pair, or a passkey.
    Caller: TypeAlias = "OrganizationHandle | ApiKeyPair | VirtualAuthenticator"
else:
    Caller = "OrganizationHandle | ApiKeyPair | VirtualAuthenticator"
