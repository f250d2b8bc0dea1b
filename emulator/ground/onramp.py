"""The fiat on-ramp's records: provider credentials, saved quotes and on-ramp transactions.

Held by an organization (``Organization.fiat_on_ramp_credentials``, ``fiat_on_ramp_quotes``,
``on_ramp_transactions``) and saved with it (``state/records.py`` reads these fields'
types). The logic is ``services/onramp.py``; the operations ``ops/onramp.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

COINBASE = "FIAT_ON_RAMP_PROVIDER_COINBASE"
MOONPAY = "FIAT_ON_RAMP_PROVIDER_MOONPAY"
PROVIDERS = (COINBASE, MOONPAY)

# The states of an on-ramp transaction (getOnRampTransactionStatus's ``transactionStatus``;
# the SDKs poll until one of the last three).
PENDING = "PENDING"
COMPLETED = "COMPLETED"
FAILED = "FAILED"
CANCELLED = "CANCELLED"
OUTCOMES = (COMPLETED, FAILED, CANCELLED)


@dataclass(frozen=True, slots=True)
class FiatOnRampCredential:
    """A provider's API keys (``v1FiatOnRampCredential``). The secret and private keys are
    kept as the client sent them, encrypted to the on-ramp encryption key; only the enclave
    opens them (``services/onramp.py``)."""

    fiat_onramp_credential_id: str
    onramp_provider: str
    publishable_api_key: str
    encrypted_secret_api_key: str = field(repr=False)
    created_at: int
    updated_at: int
    project_id: str | None = None
    encrypted_private_api_key: str | None = field(default=None, repr=False)
    sandbox_mode: bool | None = None


@dataclass(frozen=True, slots=True)
class FiatOnRampQuote:
    """A saved quote (what ``GetFiatOnRampQuote`` returns an id for); the session activity
    (``ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_SESSION``) opens the provider's page for it."""

    quote_id: str
    onramp_provider: str
    network: str
    crypto_currency_code: str
    fiat_currency_code: str
    fiat_currency_amount: str
    sandbox_mode: bool
    created_at: int
    expires_at: int
    payment_method: str | None = None


@dataclass(frozen=True, slots=True)
class OnRampTransaction:
    """One purchase at a provider. ``provider_status`` is what the provider's page (or the
    settle seam) decided; ``status`` is Turnkey's last reading of it, refreshed when a
    status query asks for ``refresh``."""

    transaction_id: str
    onramp_provider: str
    wallet_address: str
    network: str
    crypto_currency_code: str
    caip2: str
    sandbox_mode: bool
    status: str
    provider_status: str
    created_at: int
    updated_at: int
    fiat_currency_code: str | None = None
    fiat_currency_amount: str | None = None
    payment_method: str | None = None
    country_code: str | None = None
    country_subdivision_code: str | None = None
    fiat_onramp_credential_id: str | None = None
    quote_id: str | None = None
    # Set when the provider settles: the fiat amount paid and the atomic units delivered.
    paid_fiat_amount: str | None = None
    delivered_amount: str | None = None
    settled_at: int | None = None
