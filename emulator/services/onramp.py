"""The fiat on-ramp: credentials' secrets, the provider's URL and signature, settlement.

Turnkey hands an end user to a provider (Coinbase Onramp or MoonPay) with a URL, and
follows the purchase by the transaction id it minted. The emulator is its own provider:
the URL points at its own site (``http/onramp_page.py``), shaped like the provider's
(the host as a path segment, the provider's query parameters), and the page there
completes, fails or cancels the purchase (as do ``POST /emulator/v1/onramp/settle`` and
``emu.onramp.settle``). A completed purchase delivers the asset to ``walletAddress`` on
the embedded chain: testnets in sandbox mode (MoonPay's sandbox "executes on testnets"),
mainnets otherwise. Turnkey's reading of the provider's status changes when a status
query asks for ``refresh`` (every SDK polls with it). Every value the docs leave open is
listed in ``docs/onramp.md``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass, replace
from decimal import ROUND_DOWN, Decimal
from urllib.parse import urlencode, urlsplit

from ..crypto.base58 import base58check_decode
from ..engine_state.world import World
from ..ground.errors import InvalidArgument, NotFound
from ..ground.models import Organization
from ..ground.onramp import (
    CANCELLED,
    COINBASE,
    COMPLETED,
    FAILED,
    MOONPAY,
    OUTCOMES,
    PENDING,
    FiatOnRampCredential,
    OnRampTransaction,
)

BITCOIN = "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BITCOIN"
ETHEREUM = "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_ETHEREUM"
SOLANA = "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_SOLANA"
BASE = "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BASE"
NETWORKS = (BITCOIN, ETHEREUM, SOLANA, BASE)
BTC = "FIAT_ON_RAMP_CRYPTO_CURRENCY_BTC"
ETH = "FIAT_ON_RAMP_CRYPTO_CURRENCY_ETH"
SOL = "FIAT_ON_RAMP_CRYPTO_CURRENCY_SOL"
USDC = "FIAT_ON_RAMP_CRYPTO_CURRENCY_USDC"
CRYPTO_CURRENCIES = (BTC, ETH, SOL, USDC)

# network -> (mainnet CAIP-2, sandbox CAIP-2, Coinbase's network name, MoonPay's suffix)
_CHAINS = {
    ETHEREUM: ("eip155:1", "eip155:11155111", "ethereum", ""),
    BASE: ("eip155:8453", "eip155:84532", "base", "_base"),
    SOLANA: (
        "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
        "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
        "solana",
        "_sol",
    ),
}
# What can be bought on which network (a coin on its own chain; USDC on all three).
_PAIRS = {ETHEREUM: (ETH, USDC), BASE: (ETH, USDC), SOLANA: (SOL, USDC), BITCOIN: (BTC,)}


@dataclass(frozen=True)
class Asset:
    symbol: str
    decimals: int
    native: bool


ASSETS = {
    ETH: Asset("ETH", 18, True),
    SOL: Asset("SOL", 9, True),
    USDC: Asset("USDC", 6, False),
    BTC: Asset("BTC", 8, True),
}
# The sandbox's exchange rates: units of each fiat currency per US dollar (fixed, rounded).
FIAT_PER_USD = {
    "AUD": "1.5", "BGN": "1.8", "BRL": "5.5", "CAD": "1.37", "CHF": "0.88", "COP": "4000",
    "CZK": "23", "DKK": "6.9", "DOP": "60", "EGP": "48", "EUR": "0.92", "GBP": "0.79",
    "HKD": "7.8", "IDR": "16000", "ILS": "3.7", "JOD": "0.71", "KES": "130", "KWD": "0.31",
    "LKR": "300", "MXN": "18", "NGN": "1500", "NOK": "10.8", "NZD": "1.65", "OMR": "0.385",
    "PEN": "3.75", "PLN": "4", "RON": "4.6", "SEK": "10.5", "THB": "36", "TRY": "33",
    "TWD": "32", "USD": "1", "VND": "25000", "ZAR": "18.5",
}  # fmt: skip
FIAT_CURRENCIES = tuple(f"FIAT_ON_RAMP_CURRENCY_{code}" for code in FIAT_PER_USD)
MINIMUM_FIAT_AMOUNT = Decimal(20)  # "Must be greater than '20'"
_AMOUNT = re.compile(r"[0-9]{1,12}(\.[0-9]{1,2})?")
DEFAULT_FIAT_AMOUNT = "100"  # what the page offers when the intent sets none
USDC_USD_PRICE = "1"
BTC_USD_PRICE = "60000"

PAYMENT_METHODS = {  # Turnkey's enum -> (Coinbase's defaultPaymentMethod, MoonPay's paymentMethod)
    "FIAT_ON_RAMP_PAYMENT_METHOD_CREDIT_DEBIT_CARD": ("CARD", "credit_debit_card"),
    "FIAT_ON_RAMP_PAYMENT_METHOD_APPLE_PAY": ("APPLE_PAY", "apple_pay"),
    "FIAT_ON_RAMP_PAYMENT_METHOD_GBP_BANK_TRANSFER": (None, "gbp_bank_transfer"),
    "FIAT_ON_RAMP_PAYMENT_METHOD_GBP_OPEN_BANKING_PAYMENT": (None, "gbp_open_banking_payment"),
    "FIAT_ON_RAMP_PAYMENT_METHOD_GOOGLE_PAY": (None, "google_pay"),
    "FIAT_ON_RAMP_PAYMENT_METHOD_SEPA_BANK_TRANSFER": (None, "sepa_bank_transfer"),
    "FIAT_ON_RAMP_PAYMENT_METHOD_PIX_INSTANT_PAYMENT": (None, "pix_instant_payment"),
    "FIAT_ON_RAMP_PAYMENT_METHOD_PAYPAL": ("PAYPAL", "paypal"),
    "FIAT_ON_RAMP_PAYMENT_METHOD_VENMO": (None, "venmo"),
    "FIAT_ON_RAMP_PAYMENT_METHOD_MOONPAY_BALANCE": (None, "moonpay_balance"),
    "FIAT_ON_RAMP_PAYMENT_METHOD_CRYPTO_ACCOUNT": ("CRYPTO_ACCOUNT", None),
    "FIAT_ON_RAMP_PAYMENT_METHOD_FIAT_WALLET": ("FIAT_WALLET", None),
    "FIAT_ON_RAMP_PAYMENT_METHOD_ACH_BANK_ACCOUNT": ("ACH_BANK_ACCOUNT", "ach_bank_transfer"),
}
# The provider's page on the emulator's own site: the provider's host as the first segment.
PAGE_PREFIX = "/onramp/"
_HOSTS = {
    (COINBASE, False): "pay.coinbase.com/buy/select-asset",
    (COINBASE, True): "pay-sandbox.coinbase.com/buy/select-asset",
    (MOONPAY, False): "buy.moonpay.com/",
    (MOONPAY, True): "buy-sandbox.moonpay.com/",
}
DEFAULT_SITE = "http://localhost:8080"  # the onRampUrl's origin when no server set one


# ----- secrets -----------------------------------------------------------------------------


def open_secret(world: World, encrypted: str) -> str:
    """A provider's secret, opened by the on-ramp encryption key (``encryptOnRampSecret``'s
    base58check of HPKE); ``InvalidArgument`` when it does not open or is not text."""
    try:
        sealed = base58check_decode(encrypted)
        return world.enclave.on_ramp_decrypt(sealed).decode("utf-8")
    except ValueError:  # bad base58, checksum, point, tag or UTF-8
        raise InvalidArgument(
            "encrypted secret could not be decrypted: encrypt it to the on-ramp encryption "
            "public key with encryptOnRampSecret"
        ) from None


def moonpay_signature(secret: str, url: str) -> str:
    """MoonPay's URL signature: HMAC-SHA256 keyed with the secret key over the URL's query
    string with its leading ``?``, in base64."""
    query = urlsplit(url).query
    mac = hmac.new(secret.encode(), ("?" + query).encode(), hashlib.sha256).digest()
    return base64.b64encode(mac).decode()


def credential_for(org: Organization, provider: str, sandbox: bool) -> FiatOnRampCredential | None:
    """The organization's credential for ``provider`` in this mode (the latest updated one),
    else one for the provider with no mode set; ``None`` if it has none."""
    mine = [c for c in org.fiat_on_ramp_credentials.values() if c.onramp_provider == provider]
    for wanted in (sandbox, None):
        found = [
            c
            for c in mine
            if c.sandbox_mode == wanted or (wanted is False and c.sandbox_mode is None)
        ]
        if found:
            return max(found, key=lambda c: (c.updated_at, c.fiat_onramp_credential_id))
    return None


# ----- checks --------------------------------------------------------------------------


def checked_pair(network: str, currency: str) -> str:
    """The CAIP-2 network the asset is delivered on (mainnet form); refuses pairs the
    providers do not sell and Bitcoin, which the emulator has no chain for."""
    if currency not in _PAIRS[network]:
        raise InvalidArgument(f"{currency} cannot be bought on {network}")
    if network == BITCOIN:
        raise InvalidArgument(
            "the emulator has no Bitcoin chain to deliver to: choose ETHEREUM, BASE or SOLANA"
        )
    return _CHAINS[network][0]


def caip2_of(network: str, sandbox: bool) -> str:
    return _CHAINS[network][1 if sandbox else 0]


def checked_amount(amount: str) -> str:
    """A fiat amount: digits with at most two decimals, above the minimum."""
    if _AMOUNT.fullmatch(amount) is None:
        raise InvalidArgument(f"fiatCurrencyAmount must be a decimal amount, got {amount!r}")
    if Decimal(amount) <= MINIMUM_FIAT_AMOUNT:
        raise InvalidArgument(f"fiatCurrencyAmount must be greater than {MINIMUM_FIAT_AMOUNT}")
    return amount


def checked_address(network: str, address: str) -> str:
    from ..crypto.base58 import base58_decode

    if network in (ETHEREUM, BASE):
        body = address[2:] if address[:2] in ("0x", "0X") else ""
        if len(body) == 40 and all(c in "0123456789abcdefABCDEF" for c in body):
            return address
    elif network == SOLANA:
        try:
            if len(base58_decode(address)) == 32:
                return address
        except ValueError:
            pass
    else:
        return address
    raise InvalidArgument(f"walletAddress {address!r} is not an address on {network}")


def checked_country(country: str | None, subdivision: str | None) -> None:
    if country is not None and not (len(country) == 2 and country.isascii() and country.isupper()):
        raise InvalidArgument("countryCode must be an ISO 3166-1 two-letter code, e.g. US")
    if subdivision is not None and not (
        1 <= len(subdivision) <= 3 and subdivision.isascii() and subdivision.isalnum()
    ):
        raise InvalidArgument("countrySubdivisionCode must be an ISO 3166-2 subdivision, e.g. NY")
    if country == "US" and subdivision is None:
        raise InvalidArgument("countrySubdivisionCode is required when countryCode is US")


def checked_payment_method(provider: str, method: str | None) -> None:
    if method is None:
        return
    coinbase, moonpay = PAYMENT_METHODS[method]
    if (coinbase if provider == COINBASE else moonpay) is None:
        raise InvalidArgument(f"{provider} does not offer the payment method {method}")


# ----- the provider's URL ----------------------------------------------------------------


def on_ramp_url(
    site: str, tx: OnRampTransaction, credential: FiatOnRampCredential | None, world: World
) -> str:
    """The provider's page for ``tx`` on the emulator's site, with the provider's query
    parameters (and, for MoonPay with a credential, its ``signature``)."""
    fiat = (tx.fiat_currency_code or "FIAT_ON_RAMP_CURRENCY_USD").rsplit("_", 1)[1]
    coin = ASSETS[tx.crypto_currency_code].symbol
    base = site.rstrip("/") + PAGE_PREFIX + _HOSTS[(tx.onramp_provider, tx.sandbox_mode)]
    method = PAYMENT_METHODS.get(tx.payment_method or "", (None, None))
    params: dict[str, str] = {}
    if tx.onramp_provider == COINBASE:
        if credential is not None and credential.project_id:
            params["appId"] = credential.project_id
        params["sessionToken"] = session_token(world, tx.transaction_id)
        params["defaultNetwork"] = _CHAINS[tx.network][2]
        params["defaultAsset"] = coin
        if tx.fiat_currency_amount is not None:
            params["presetFiatAmount"] = tx.fiat_currency_amount
        params["fiatCurrency"] = fiat
        if method[0] is not None:
            params["defaultPaymentMethod"] = method[0]
        params["partnerUserId"] = tx.transaction_id
        return f"{base}?{urlencode(params)}"
    params["apiKey"] = credential.publishable_api_key if credential else "pk_test_emulator"
    params["currencyCode"] = coin.lower() + (
        _CHAINS[tx.network][3]
        if not ASSETS[tx.crypto_currency_code].native or tx.network == BASE
        else ""
    )
    params["walletAddress"] = tx.wallet_address
    params["baseCurrencyCode"] = fiat.lower()
    if tx.fiat_currency_amount is not None:
        params["baseCurrencyAmount"] = tx.fiat_currency_amount
    if method[1] is not None:
        params["paymentMethod"] = method[1]
    params["externalTransactionId"] = tx.transaction_id
    url = f"{base}?{urlencode(params)}"
    if credential is not None:
        secret = open_secret(world, credential.encrypted_secret_api_key)
        url += "&" + urlencode({"signature": moonpay_signature(secret, url)})
    return url


def session_token(world: World, transaction_id: str) -> str:
    """Coinbase's ``sessionToken`` for a transaction: a MAC only this emulator makes."""
    key = world.enclave.derived_secret("onramp-session-token")
    mac = hmac.new(key, transaction_id.encode(), hashlib.sha256).digest()[:24]
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


# ----- settlement ------------------------------------------------------------------------


def find(world: World, transaction_id: object) -> tuple[Organization, OnRampTransaction]:
    """The organization and transaction of an id, from any organization."""
    if isinstance(transaction_id, str):
        for org in world.store.organizations.values():
            found = org.on_ramp_transactions.get(transaction_id)
            if found is not None:
                return org, found
    raise NotFound(f"no on-ramp transaction {transaction_id!r}")


def delivered_units(world: World, tx: OnRampTransaction, fiat_amount: str) -> int:
    """Atomic units of the asset that ``fiat_amount`` buys at the sandbox's fixed rates."""
    fiat = (tx.fiat_currency_code or "FIAT_ON_RAMP_CURRENCY_USD").rsplit("_", 1)[1]
    asset = ASSETS[tx.crypto_currency_code]
    prices = {**world.settings.native_usd_prices, "USDC": USDC_USD_PRICE, "BTC": BTC_USD_PRICE}
    usd = Decimal(fiat_amount) / Decimal(FIAT_PER_USD[fiat])
    units = usd / Decimal(prices[asset.symbol]) * (Decimal(10) ** asset.decimals)
    return int(units.to_integral_value(rounding=ROUND_DOWN))


def settle(
    world: World, transaction_id: object, outcome: object, fiat_amount: object = None
) -> OnRampTransaction:
    """The provider's decision on a pending purchase; the caller holds the world's lock.

    ``COMPLETED`` delivers the asset to the wallet on the embedded chain first (a chain
    that refuses leaves the purchase pending). Deciding twice is refused."""
    org, tx = find(world, transaction_id)
    if outcome not in OUTCOMES:
        raise InvalidArgument(f"outcome must be one of {', '.join(OUTCOMES)}")
    if tx.provider_status != PENDING:
        raise InvalidArgument(
            f"on-ramp transaction {tx.transaction_id} is already {tx.provider_status}"
        )
    if fiat_amount is None:
        fiat_amount = tx.fiat_currency_amount or DEFAULT_FIAT_AMOUNT
    if not isinstance(fiat_amount, str):
        raise InvalidArgument("fiatAmount must be a string, e.g. '100'")
    if tx.fiat_currency_amount is not None and fiat_amount != tx.fiat_currency_amount:
        raise InvalidArgument(f"the amount of this purchase is preset to {tx.fiat_currency_amount}")
    checked_amount(fiat_amount)
    now = world.clock.now_ns()
    delivered = None
    if outcome == COMPLETED:
        units = delivered_units(world, tx, fiat_amount)
        _deliver(world, tx, units)
        delivered = str(units)
    settled = replace(
        tx,
        provider_status=str(outcome),
        paid_fiat_amount=fiat_amount if outcome == COMPLETED else None,
        delivered_amount=delivered,
        settled_at=now,
        updated_at=now,
    )
    commit = world.transaction()
    commit.put(org.on_ramp_transactions, tx.transaction_id, settled)
    commit.commit()
    return settled


def asset_of(tx: OnRampTransaction) -> str:
    """The CAIP-19 id of what a purchase delivers: the chain's native asset, or the token of
    that symbol on the chain (``chains/tokens.py``: USDC on every network sold here)."""
    from ..chains import catalog
    from ..chains.tokens import tokens_of

    asset = ASSETS[tx.crypto_currency_code]
    if asset.native:
        return catalog.network(tx.caip2).native_caip19
    (token,) = [t for t in tokens_of(tx.caip2) if t.symbol == asset.symbol]
    return token.caip19


def _deliver(world: World, tx: OnRampTransaction, units: int) -> None:
    """The provider's transfer: ``units`` more of the asset in the wallet (the chains' funding
    seam, native or token)."""
    from ..chains.network import chains_of

    chains = chains_of(world)
    caip19 = asset_of(tx)
    chains.fund(caip19, tx.wallet_address, chains.asset_balance(caip19, tx.wallet_address) + units)


def refreshed(world: World, org: Organization, tx: OnRampTransaction) -> OnRampTransaction:
    """Turnkey's reading of the provider's status, stored when it changed."""
    if tx.status == tx.provider_status:
        return tx
    now = world.clock.now_ns()
    updated = replace(tx, status=tx.provider_status, updated_at=now)
    commit = world.transaction()
    commit.put(org.on_ramp_transactions, tx.transaction_id, updated)
    commit.commit()
    return updated


__all__ = ["CANCELLED", "COMPLETED", "FAILED", "PENDING"]
