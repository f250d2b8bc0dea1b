"""The records of what an organization keeps of the world outside it: uploaded contract
interfaces, imported secrets, OAuth 2.0 credentials and the built-in provider's clients and
codes, webhook endpoints, and the transactions Turnkey broadcast for it. Plain dataclasses,
as ``models.py``'s; secrets are fields no repr shows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class SmartContractInterface:
    """An uploaded Ethereum ABI or Solana IDL (its JSON text as given) for one address."""

    smart_contract_interface_id: str
    address: str
    interface: str
    interface_type: str  # SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM | _SOLANA
    label: str
    notes: str
    created_at: int


@dataclass(frozen=True, slots=True)
class KeyValue:
    key: str
    value: str


@dataclass(frozen=True, slots=True)
class Secret:
    """An imported secret's metadata (its bytes are in the vault)."""

    secret_id: str
    name: str | None
    static_properties: tuple[KeyValue, ...]
    created_at: int


@dataclass(frozen=True, slots=True)
class Oauth2Credential:
    """An OAuth 2.0 provider's client id and secret (``ops/oauth2.py``). The secret is kept
    as the client sent it, encrypted to the TLS fetcher's key; only the enclave opens it."""

    oauth2_credential_id: str
    provider: str  # OAUTH2_PROVIDER_X | OAUTH2_PROVIDER_DISCORD
    client_id: str
    encrypted_client_secret: str = field(repr=False)
    created_at: int
    updated_at: int


@dataclass(frozen=True, slots=True)
class WebhookSubscription:
    """One event type an endpoint subscribes to (``v1WebhookSubscriptionParams``)."""

    event_type: str
    filters_json: str | None = None
    is_active: bool = True


@dataclass(frozen=True, slots=True)
class WebhookEndpoint:
    """A webhook endpoint of an organization: where its events are POSTed."""

    endpoint_id: str
    url: str
    name: str
    is_active: bool
    subscriptions: tuple[WebhookSubscription, ...]
    created_at: int
    updated_at: int


@dataclass(frozen=True, slots=True)
class ProviderClient:
    """An application registered with the built-in OAuth 2.0 provider (``emu.oauth2``)."""

    provider: str
    client_id: str
    client_secret: str = field(repr=False)
    redirect_uris: tuple[str, ...] = ()  # empty: any redirect URI


@dataclass(frozen=True, slots=True)
class AuthorizationCode:
    """A code the built-in provider issued to a client for one of its users, PKCE-bound."""

    provider: str
    client_id: str
    redirect_uri: str
    code_challenge: str = field(repr=False)  # the verifier itself, when plain
    code_challenge_method: str  # S256 | plain
    user_id: str
    expires_at_ns: int
    used: bool = False


class Unsaved(dict):
    """A mapping outside the saved state (the built-in OAuth 2.0 provider's clients and
    codes): a transaction undoes changes to it like any other, the durable journal skips it.
    Its keys are codes the provider issued: its repr shows how many, not which."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Unsaved(<{len(self)} hidden>)"

    __str__ = __repr__


@dataclass(frozen=True, slots=True)
class SentTransaction:
    """A transaction Turnkey broadcast (``get_send_transaction_status``): what was sent, where,
    and how the chain answered. ``outcome`` is the final status (INCLUDED or FAILED); the status
    reads BROADCASTING until the emulator's clock reaches ``included_at_ms``."""

    send_transaction_status_id: str
    caip2: str
    sender: str
    tx_hash: str | None  # EVM hash or Solana signature; None when the chain refused it
    sponsored: bool
    submitted_at_ms: int
    included_at_ms: int
    outcome: str
    error: Any  # the v1TxError object of the status, or None
    fee: int  # in the native asset's atomic units (paid by the gas station when sponsored)
    fee_usd: str
    activity_fingerprint: str | None
    created_at: int
