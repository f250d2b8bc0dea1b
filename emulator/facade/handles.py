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
    from ..engine_state.store import Store

__all__ = ["Caller", "OrganizationHandle", "caller_key"]


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


def caller_key(
    store: Store, callers: dict[str, ApiKeyPair], org_id: str, caller: Caller | None
) -> ApiKeyPair | VirtualAuthenticator:
    """The key a facade call is made with: ``caller``'s, else the root key the facade holds
    for the organization or its nearest ancestor (``callers``, by organization id)."""
    if caller is not None:  # else the common case: the facade's own key (no import)
        from ..crypto.authenticator import VirtualAuthenticator

        if isinstance(caller, OrganizationHandle):
            return caller.api_key
        if isinstance(caller, ApiKeyPair | VirtualAuthenticator):
            return caller
    org = store.organizations.get(org_id)
    while org is not None:
        if org.organization_id in callers:
            return callers[org.organization_id]
        org = store.organizations.get(org.parent_id or "")
    raise ValueError(f"no known API key for organization {org_id}: pass caller=")
