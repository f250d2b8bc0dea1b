"""``emu.onramp``: the sandbox on-ramp provider's side, for tests without a browser.

* ``settle(transaction_id, outcome, fiat_amount=None)``: the provider's decision on a
  purchase (``COMPLETED``, ``FAILED`` or ``CANCELLED``), what the provider page's buttons
  and ``POST /emulator/v1/onramp/settle`` do; a completed purchase delivers the asset.
* ``quote(...)``: a saved quote in an organization, the ``quoteId`` the session activity
  (``ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_SESSION``) takes; the quote operation itself
  (``GetFiatOnRampQuote``) is in no client the emulator follows yet.
* ``transaction(transaction_id)``: the provider's record of a purchase (a JSON view).
* ``encryption_public_key``: what ``encryptOnRampSecret`` encrypts to (compressed hex).

Test seams, NOT part of Turnkey's API.
"""

from __future__ import annotations

from typing import Any

from ..engine_state.world import World
from ..ground.onramp import PROVIDERS, FiatOnRampQuote, OnRampTransaction
from ..services import onramp

Json = dict[str, Any]
QUOTE_LIFETIME_S = 600


def transaction_json(tx: OnRampTransaction) -> Json:
    """The provider's view of a purchase (no secret is part of it)."""
    return {
        "transactionId": tx.transaction_id,
        "onrampProvider": tx.onramp_provider,
        "walletAddress": tx.wallet_address,
        "network": tx.network,
        "caip2": tx.caip2,
        "cryptoCurrencyCode": tx.crypto_currency_code,
        "symbol": onramp.ASSETS[tx.crypto_currency_code].symbol,
        "decimals": onramp.ASSETS[tx.crypto_currency_code].decimals,
        "fiatCurrencyCode": tx.fiat_currency_code or "FIAT_ON_RAMP_CURRENCY_USD",
        "fiatCurrencyAmount": tx.fiat_currency_amount,
        "sandboxMode": tx.sandbox_mode,
        "providerStatus": tx.provider_status,
        "status": tx.status,
        "paidFiatAmount": tx.paid_fiat_amount,
        "deliveredAmount": tx.delivered_amount,
    }


class EmulatorOnRamp:
    def __init__(self, world: World, default_org_id: str | None) -> None:
        self._world = world
        self._default_org_id = default_org_id

    @property
    def encryption_public_key(self) -> str:
        return self._world.enclave.on_ramp_encrypt_public_key

    def settle(self, transaction_id: str, outcome: str, fiat_amount: str | None = None) -> Json:
        with self._world.lock:
            settled = onramp.settle(self._world, transaction_id, outcome, fiat_amount)
            return transaction_json(settled)

    def transaction(self, transaction_id: str) -> Json:
        with self._world.lock:
            return transaction_json(onramp.find(self._world, transaction_id)[1])

    def quote(
        self,
        *,
        network: str,
        crypto_currency_code: str,
        fiat_currency_amount: str,
        onramp_provider: str = onramp.MOONPAY,
        fiat_currency_code: str = "FIAT_ON_RAMP_CURRENCY_USD",
        payment_method: str | None = None,
        sandbox_mode: bool = True,
        organization_id: str | None = None,
    ) -> str:
        """A saved quote's id (valid ``QUOTE_LIFETIME_S`` on the emulator's clock)."""
        from ..ground.errors import InvalidArgument

        world = self._world
        with world.lock:
            org = world.store.organizations[organization_id or self._default_org_id or ""]
            if onramp_provider not in PROVIDERS or network not in onramp.NETWORKS:
                raise InvalidArgument("unknown provider or network")
            if fiat_currency_code not in onramp.FIAT_CURRENCIES:
                raise InvalidArgument(f"unknown fiat currency {fiat_currency_code}")
            onramp.checked_pair(network, crypto_currency_code)
            onramp.checked_amount(fiat_currency_amount)
            onramp.checked_payment_method(onramp_provider, payment_method)
            now = world.clock.now_ns()
            quote = FiatOnRampQuote(
                quote_id=world.ids.uuid4(),
                onramp_provider=onramp_provider,
                network=network,
                crypto_currency_code=crypto_currency_code,
                fiat_currency_code=fiat_currency_code,
                fiat_currency_amount=fiat_currency_amount,
                sandbox_mode=sandbox_mode,
                created_at=now,
                expires_at=now + QUOTE_LIFETIME_S * 10**9,
                payment_method=payment_method,
            )
            tx = world.transaction()
            tx.put(org.fiat_on_ramp_quotes, quote.quote_id, quote)
            tx.commit()
            return quote.quote_id
