"""The fiat on-ramp (issue 26): credentials sealed to the on-ramp encryption key, the
provider's URL and MoonPay's URL signature, the session of a saved quote, settlement that
delivers the asset on the embedded chain, the status and its ``refresh``; driven through the
facade, the official Python SDK, @turnkey/crypto and @turnkey/http, the control plane and
the provider page's endpoints. Every refusal changes nothing."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import parse_qsl, urlsplit

import pytest
import requests
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import hmac as crypto_hmac

from emulator import Emulator
from emulator.ground.errors import TurnkeyApiError
from emulator.http.control import Control
from emulator.http.server import serving
from emulator.testing.client_crypto import encrypt_on_ramp_secret

from .helpers import add_user, fails

MOONPAY = "FIAT_ON_RAMP_PROVIDER_MOONPAY"
COINBASE = "FIAT_ON_RAMP_PROVIDER_COINBASE"
BASE = "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BASE"
ETHEREUM = "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_ETHEREUM"
SOLANA = "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_SOLANA"
ETH = "FIAT_ON_RAMP_CRYPTO_CURRENCY_ETH"
SOL = "FIAT_ON_RAMP_CRYPTO_CURRENCY_SOL"
BASE_SEPOLIA = "eip155:84532"
SOLANA_DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"
SECRET = "sk_test_moonpay_secret_✓"
EVM_ACCOUNT = {
    "curve": "CURVE_SECP256K1",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/60'/0'/0/0",
    "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
}
SOLANA_ACCOUNT = {
    "curve": "CURVE_ED25519",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/501'/0'/0'",
    "addressFormat": "ADDRESS_FORMAT_SOLANA",
}


@dataclass
class Setup:
    emu: Emulator
    evm: str
    solana: str


@pytest.fixture
def setup(turnkey_emulator: Emulator, turnkey_org) -> Setup:
    emu = turnkey_emulator
    made = emu.create_wallet(wallet_name="w", accounts=[EVM_ACCOUNT, SOLANA_ACCOUNT])
    evm, solana = made["addresses"]
    return Setup(emu, evm, solana)


def sealed(emu: Emulator, secret: str) -> str:
    return encrypt_on_ramp_secret(secret, emu.onramp.encryption_public_key)


def moonpay_credential(emu: Emulator, sandbox: bool = True, secret: str = SECRET) -> str:
    return emu.create_fiat_on_ramp_credential(
        onramp_provider=MOONPAY,
        publishable_api_key="pk_test_moon",
        encrypted_secret_api_key=sealed(emu, secret),
        sandbox_mode=sandbox,
    )["fiatOnRampCredentialId"]


def init(setup: Setup, **overrides) -> dict:
    params = {
        "onramp_provider": MOONPAY,
        "wallet_address": setup.evm,
        "network": BASE,
        "crypto_currency_code": ETH,
        "fiat_currency_amount": "150",
        "sandbox_mode": True,
    }
    params.update(overrides)
    return setup.emu.init_fiat_on_ramp(**params)


def independent_signature(secret: str, url: str) -> str:
    """MoonPay's documented algorithm, with ``cryptography``'s HMAC (the emulator uses the
    standard library's): HMAC-SHA256 of the URL's search (``?`` and query), base64."""
    mac = crypto_hmac.HMAC(secret.encode(), hashes.SHA256())
    mac.update(("?" + urlsplit(url).query).encode())
    return base64.b64encode(mac.finalize()).decode()


# ----- credentials ---------------------------------------------------------------------------


def test_a_credential_is_kept_sealed_and_answered_as_sent(setup):
    emu = setup.emu
    org_id = emu.organization().organization_id
    secret_env = sealed(emu, SECRET)
    made = emu.create_fiat_on_ramp_credential(
        onramp_provider=MOONPAY,
        publishable_api_key="pk_test_moon",
        encrypted_secret_api_key=secret_env,
        sandbox_mode=True,
    )
    credential_id = made["fiatOnRampCredentialId"]
    (listed,) = emu.list_fiat_on_ramp_credentials()["fiatOnRampCredentials"]
    assert {k: v for k, v in listed.items() if k not in ("createdAt", "updatedAt")} == {
        "fiatOnrampCredentialId": credential_id,
        "organizationId": org_id,
        "onrampProvider": MOONPAY,
        "publishableApiKey": "pk_test_moon",
        "encryptedSecretApiKey": secret_env,
        "sandboxMode": True,
    }
    assert set(listed["createdAt"]) == {"seconds", "nanos"}
    record = emu.world.store.organizations[org_id].fiat_on_ramp_credentials[credential_id]
    assert SECRET not in repr(record) and secret_env not in repr(record)
    assert SECRET not in json.dumps(emu.to_document(), ensure_ascii=False)
    coinbase = emu.create_fiat_on_ramp_credential(
        onramp_provider=COINBASE,
        project_id="cdp-project",
        publishable_api_key="organizations/x/apiKeys/y",
        encrypted_secret_api_key=sealed(emu, "cdp secret"),
        encrypted_private_api_key=sealed(emu, "-----BEGIN EC PRIVATE KEY-----"),
    )["fiatOnRampCredentialId"]
    updated = emu.update_fiat_on_ramp_credential(
        fiat_onramp_credential_id=credential_id,
        onramp_provider=MOONPAY,
        publishable_api_key="pk_test_moon_2",
        encrypted_secret_api_key=sealed(emu, "rotated"),
    )
    assert updated["fiatOnRampCredentialId"] == credential_id
    listed = emu.list_fiat_on_ramp_credentials()["fiatOnRampCredentials"]
    by_id = {c["fiatOnrampCredentialId"]: c for c in listed}
    assert by_id[credential_id]["publishableApiKey"] == "pk_test_moon_2"
    assert by_id[credential_id]["sandboxMode"] is True  # update takes no mode: kept
    assert by_id[coinbase]["projectId"] == "cdp-project"
    assert "encryptedPrivateApiKey" in by_id[coinbase]
    deleted = emu.delete_fiat_on_ramp_credential(fiat_onramp_credential_id=coinbase)
    assert deleted["fiatOnRampCredentialId"] == coinbase
    assert [c["fiatOnrampCredentialId"] for c in emu.list_fiat_on_ramp_credentials()[
        "fiatOnRampCredentials"
    ]] == [credential_id]  # fmt: skip


def test_credential_refusals_change_nothing(setup):
    emu = setup.emu
    other_key = Emulator(seed=99).onramp.encryption_public_key  # another enclave's key
    bad = [
        dict(encrypted_secret_api_key=encrypt_on_ramp_secret(SECRET, other_key)),
        dict(encrypted_secret_api_key="not base58check"),
        dict(encrypted_secret_api_key=sealed(emu, SECRET)[:-3] + "abc"),
        dict(publishable_api_key="  "),
        dict(onramp_provider=COINBASE, project_id="p"),  # no private key
        dict(onramp_provider=COINBASE, encrypted_private_api_key=sealed(emu, "k")),  # no project
    ]
    for overrides in bad:
        params = {
            "onramp_provider": MOONPAY,
            "publishable_api_key": "pk",
            "encrypted_secret_api_key": sealed(emu, SECRET),
            **overrides,
        }
        error = fails(emu, emu.create_fiat_on_ramp_credential, **params)
        assert error.status == 400 and error.body()["code"] == 3, overrides
        assert SECRET not in error.message
    missing = "8b7e8b3c-1d0e-4c43-9a61-8f6d2b1f0a55"
    for call, extra in (
        (emu.delete_fiat_on_ramp_credential, {}),
        (
            emu.update_fiat_on_ramp_credential,
            dict(
                onramp_provider=MOONPAY,
                publishable_api_key="p",
                encrypted_secret_api_key=sealed(emu, "s"),
            ),
        ),
    ):
        error = fails(emu, call, fiat_onramp_credential_id=missing, **extra)
        assert error.status == 404 and missing in error.message


# ----- the provider's URL ----------------------------------------------------------------


def test_a_moonpay_url_is_moonpays_shape_and_signed_by_the_credential(setup):
    emu = setup.emu
    moonpay_credential(emu)
    emu.settings.onramp_site_url = "http://127.0.0.1:9999"
    wanted = f"https://buy-sandbox.moonpay.com?apiKey=pk_test_moon&walletAddress={setup.evm}"
    result = init(
        setup, url_for_signature=wanted, payment_method="FIAT_ON_RAMP_PAYMENT_METHOD_APPLE_PAY"
    )
    url = result["onRampUrl"]
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == (
        "http://127.0.0.1:9999/onramp/buy-sandbox.moonpay.com/"
    )
    query = dict(parse_qsl(parts.query))
    assert query == {
        "apiKey": "pk_test_moon",
        "currencyCode": "eth_base",
        "walletAddress": setup.evm,
        "baseCurrencyCode": "usd",
        "baseCurrencyAmount": "150",
        "paymentMethod": "apple_pay",
        "externalTransactionId": result["onRampTransactionId"],
        "signature": query["signature"],
    }
    unsigned = url[: url.index("&signature=")]
    assert query["signature"] == independent_signature(SECRET, unsigned)
    assert result["onRampUrlSignature"] == independent_signature(SECRET, wanted)
    assert result["onRampUrlSignature"] != independent_signature("another secret", wanted)


def test_a_coinbase_url_carries_coinbases_parameters(setup):
    emu = setup.emu
    emu.create_fiat_on_ramp_credential(
        onramp_provider=COINBASE,
        project_id="cdp-project",
        publishable_api_key="organizations/x/apiKeys/y",
        encrypted_secret_api_key=sealed(emu, "cdp secret"),
        encrypted_private_api_key=sealed(emu, "cdp private key"),
    )
    result = init(
        setup,
        onramp_provider=COINBASE,
        network=SOLANA,
        wallet_address=setup.solana,
        crypto_currency_code=SOL,
        fiat_currency_code="FIAT_ON_RAMP_CURRENCY_EUR",
        fiat_currency_amount="40",
        payment_method="FIAT_ON_RAMP_PAYMENT_METHOD_CREDIT_DEBIT_CARD",
        country_code="US",
        country_subdivision_code="NY",
        sandbox_mode=False,
    )
    parts = urlsplit(result["onRampUrl"])
    assert parts.path == "/onramp/pay.coinbase.com/buy/select-asset"
    query = dict(parse_qsl(parts.query))
    assert query["appId"] == "cdp-project"
    assert {k: query[k] for k in ("defaultNetwork", "defaultAsset", "presetFiatAmount")} == {
        "defaultNetwork": "solana",
        "defaultAsset": "SOL",
        "presetFiatAmount": "40",
    }
    assert (query["fiatCurrency"], query["defaultPaymentMethod"]) == ("EUR", "CARD")
    assert query["partnerUserId"] == result["onRampTransactionId"]
    assert len(query["sessionToken"]) >= 32
    assert "signature" not in query and "onRampUrlSignature" not in result


def test_init_refusals_change_nothing(setup):
    emu = setup.emu
    cases = [
        (dict(fiat_currency_amount="20"), "greater than 20"),
        (dict(fiat_currency_amount="1e3"), "decimal amount"),
        (dict(fiat_currency_amount="25.001"), "decimal amount"),
        (dict(wallet_address=setup.solana), "is not an address"),
        (dict(network=SOLANA), "cannot be bought"),
        (dict(crypto_currency_code="FIAT_ON_RAMP_CRYPTO_CURRENCY_BTC"), "cannot be bought"),
        (
            dict(
                network="FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BITCOIN",
                crypto_currency_code="FIAT_ON_RAMP_CRYPTO_CURRENCY_BTC",
            ),
            "no Bitcoin chain",
        ),
        (dict(country_code="US"), "countrySubdivisionCode is required"),
        (dict(country_code="usa"), "two-letter"),
        (dict(payment_method="FIAT_ON_RAMP_PAYMENT_METHOD_FIAT_WALLET"), "does not offer"),
        (dict(url_for_signature="https://buy.moonpay.com?a=b"), "needs a MoonPay"),
        (dict(onramp_provider=COINBASE, url_for_signature="https://x?a=b"), "MOONPAY only"),
    ]
    for overrides, words in cases:
        error = fails(emu, init, setup, **overrides)
        assert error.status == 400 and words in error.message, (overrides, error.message)
    error = fails(emu, init, setup, network="FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_TRON")
    assert error.status == 400 and "network" in error.message


# ----- settlement and status ------------------------------------------------------------


def test_a_completed_purchase_delivers_and_the_status_follows_on_refresh(setup):
    emu = setup.emu
    before = emu.chains.balance(BASE_SEPOLIA, setup.evm)
    tx_id = init(setup)["onRampTransactionId"]
    status = emu.get_onramp_transaction_status
    assert status(transaction_id=tx_id)["transactionStatus"] == "PENDING"
    assert status(transaction_id=tx_id, refresh=True)["transactionStatus"] == "PENDING"
    settled = emu.onramp.settle(tx_id, "COMPLETED")
    units = int(Decimal(150) / Decimal(3000) * 10**18)  # ETH at the sandbox's $3000
    assert (settled["providerStatus"], settled["deliveredAmount"]) == ("COMPLETED", str(units))
    assert emu.chains.balance(BASE_SEPOLIA, setup.evm) == before + units
    assert status(transaction_id=tx_id)["transactionStatus"] == "PENDING"  # not refreshed yet
    assert status(transaction_id=tx_id, refresh=True)["transactionStatus"] == "COMPLETED"
    assert status(transaction_id=tx_id)["transactionStatus"] == "COMPLETED"
    with pytest.raises(TurnkeyApiError) as twice:
        emu.onramp.settle(tx_id, "CANCELLED")
    assert twice.value.status == 400 and "already COMPLETED" in twice.value.message
    error = fails(emu, status, transaction_id="8b7e8b3c-1d0e-4c43-9a61-8f6d2b1f0a55")
    assert error.status == 404


def test_failed_and_cancelled_purchases_deliver_nothing(setup):
    emu = setup.emu
    for outcome in ("FAILED", "CANCELLED"):
        tx_id = init(setup, network=SOLANA, wallet_address=setup.solana, crypto_currency_code=SOL)[
            "onRampTransactionId"
        ]
        emu.onramp.settle(tx_id, outcome)
        assert emu.get_onramp_transaction_status(transaction_id=tx_id, refresh=True)[
            "transactionStatus"
        ] == outcome  # fmt: skip
    assert emu.chains.balance(SOLANA_DEVNET, setup.solana) == 0


def test_usdc_is_delivered_as_the_chains_token(setup):
    """USDC lands as the token at its real address (the token layer, chains/tokens.py), which
    get_wallet_address_balances then reads from the chain."""
    emu = setup.emu
    usdc = "FIAT_ON_RAMP_CRYPTO_CURRENCY_USDC"
    on_base = init(setup, crypto_currency_code=usdc, fiat_currency_amount="25")
    query = dict(parse_qsl(urlsplit(on_base["onRampUrl"]).query))
    assert query["currencyCode"] == "usdc_base"
    emu.onramp.settle(on_base["onRampTransactionId"], "COMPLETED")
    (balance,) = emu.get_wallet_address_balances(address=setup.evm, caip2=BASE_SEPOLIA)["balances"]
    assert (balance["symbol"], balance["balance"], balance["decimals"]) == ("USDC", "25000000", 6)
    assert balance["caip19"] == "eip155:84532/erc20:0x036CbD53842c5426634e7929541eC2318f3dCF7e"
    on_solana = init(
        setup,
        crypto_currency_code=usdc,
        network=SOLANA,
        wallet_address=setup.solana,
        fiat_currency_code="FIAT_ON_RAMP_CURRENCY_EUR",
        fiat_currency_amount="46",
    )
    emu.onramp.settle(on_solana["onRampTransactionId"], "COMPLETED")
    mint = SOLANA_DEVNET + "/token:4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"
    assert emu.chains.asset_balance(mint, setup.solana) == 50_000_000  # 46 EUR at 0.92 per USD


def test_an_open_amount_is_chosen_at_the_provider(setup):
    emu = setup.emu
    tx_id = init(setup, fiat_currency_amount=None, network=SOLANA, wallet_address=setup.solana,
                 crypto_currency_code=SOL)["onRampTransactionId"]  # fmt: skip
    with pytest.raises(TurnkeyApiError, match="greater than 20"):
        emu.onramp.settle(tx_id, "COMPLETED", "5")
    settled = emu.onramp.settle(tx_id, "COMPLETED", "75")
    assert settled["deliveredAmount"] == str(75 * 10**9 // 150)  # SOL at $150
    assert emu.chains.balance(SOLANA_DEVNET, setup.solana) == 75 * 10**9 // 150


def test_a_session_opens_a_saved_quote_once(setup):
    emu = setup.emu
    emu.clock.freeze()
    quote_id = emu.onramp.quote(network=BASE, crypto_currency_code=ETH, fiat_currency_amount="60")
    made = emu.create_fiat_on_ramp_session(quote_id=quote_id, wallet_address=setup.evm)
    query = dict(parse_qsl(urlsplit(made["onRampUrl"]).query))
    assert query["baseCurrencyAmount"] == "60"
    assert query["externalTransactionId"] == made["onRampTransactionId"]
    error = fails(emu, emu.create_fiat_on_ramp_session, quote_id=quote_id, wallet_address=setup.evm)
    assert error.status == 404
    late = emu.onramp.quote(network=BASE, crypto_currency_code=ETH, fiat_currency_amount="60")
    emu.clock.advance(601)
    error = fails(emu, emu.create_fiat_on_ramp_session, quote_id=late, wallet_address=setup.evm)
    assert error.status == 400 and "expired" in error.message


# ----- policies and consensus ----------------------------------------------------------------


def test_policies_govern_who_opens_an_on_ramp(setup):
    emu = setup.emu
    _, key = add_user(emu, "shop")
    error = fails(emu, init, setup, caller=key)
    assert error.status == 403
    emu.create_policy(
        policy_name="on-ramp needs two",
        effect="EFFECT_ALLOW",
        condition="activity.kind == 'INIT_FIAT_ON_RAMP'",  # the language page's kind
        consensus="approvers.count() >= 2",
        notes="",
    )
    pending = init(setup, caller=key)["activity"]
    assert pending["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    assert emu.world.store.organizations[pending["organizationId"]].on_ramp_transactions == {}
    done = emu.approve_activity(fingerprint=pending["fingerprint"])["activity"]
    assert done["status"] == "ACTIVITY_STATUS_COMPLETED"
    result = done["result"]["initFiatOnRampResult"]
    assert emu.get_onramp_transaction_status(transaction_id=result["onRampTransactionId"])[
        "transactionStatus"
    ] == "PENDING"  # fmt: skip


# ----- state ---------------------------------------------------------------------------------


def test_the_records_survive_a_saved_document(setup):
    emu = setup.emu
    moonpay_credential(emu)
    tx_id = init(setup)["onRampTransactionId"]
    emu.onramp.settle(tx_id, "COMPLETED")
    emu.onramp.quote(network=BASE, crypto_currency_code=ETH, fiat_currency_amount="60")
    document = emu.to_document()
    assert SECRET not in json.dumps(document, ensure_ascii=False)
    again = Emulator.from_document(json.loads(json.dumps(document)))
    assert again.get_onramp_transaction_status(transaction_id=tx_id, refresh=True)[
        "transactionStatus"
    ] == "COMPLETED"  # fmt: skip
    org = again.world.store.organizations[emu.organization().organization_id]
    assert len(org.fiat_on_ramp_quotes) == 1 and len(org.fiat_on_ramp_credentials) == 1
    assert again.onramp.encryption_public_key == emu.onramp.encryption_public_key


def test_a_snapshot_restores_the_records_and_not_the_chain(setup):
    emu = setup.emu
    tx_id = init(setup)["onRampTransactionId"]
    saved = emu.snapshot()
    emu.onramp.settle(tx_id, "COMPLETED")
    delivered = emu.chains.balance(BASE_SEPOLIA, setup.evm)
    emu.restore(saved)
    assert emu.onramp.transaction(tx_id)["providerStatus"] == "PENDING"
    assert emu.chains.balance(BASE_SEPOLIA, setup.evm) == delivered  # a chain is not rolled back


def test_the_journal_replays_the_on_ramp(tmp_path):
    from .test_state_journal import journaled, saved

    emu, _ = journaled(tmp_path, compact_every=10**9)
    emu.create_organization("Acme")
    address = emu.create_wallet(wallet_name="w", accounts=[EVM_ACCOUNT])["addresses"][0]
    moonpay_credential(emu)
    tx_id = init(Setup(emu, address, ""))["onRampTransactionId"]
    emu.onramp.settle(tx_id, "FAILED")
    emu.get_onramp_transaction_status(transaction_id=tx_id, refresh=True)
    document = saved(tmp_path)
    assert document == emu.to_document()
    again = Emulator.from_document(document, exact_order=False)
    org = again.world.store.organizations[emu.organization().organization_id]
    assert (org.on_ramp_transactions[tx_id].status, len(org.fiat_on_ramp_credentials)) == (
        "FAILED",
        1,
    )
    emu.close()


# ----- over the wire: the official SDK, the control plane, the page's endpoints -----------


def test_the_official_python_sdk(setup, turnkey_client):
    from turnkey_sdk_types.generated.types import (
        CreateFiatOnRampCredentialBody,
        GetOnRampTransactionStatusBody,
        InitFiatOnRampBody,
        ListFiatOnRampCredentialsBody,
    )

    emu, sdk = setup.emu, turnkey_client
    made = sdk.create_fiat_on_ramp_credential(
        CreateFiatOnRampCredentialBody(
            onrampProvider=MOONPAY,
            publishableApiKey="pk_test_sdk",
            encryptedSecretApiKey=sealed(emu, SECRET),
            sandboxMode=True,
        )
    )
    (listed,) = sdk.list_fiat_on_ramp_credentials(
        ListFiatOnRampCredentialsBody()
    ).fiatOnRampCredentials
    assert listed.fiatOnrampCredentialId == made.fiatOnRampCredentialId
    wanted = "https://buy-sandbox.moonpay.com?apiKey=pk_test_sdk"
    opened = sdk.init_fiat_on_ramp(
        InitFiatOnRampBody(
            onrampProvider=MOONPAY,
            walletAddress=setup.evm,
            network=ETHEREUM,
            cryptoCurrencyCode=ETH,
            fiatCurrencyAmount="90",
            sandboxMode=True,
            urlForSignature=wanted,
        )
    )
    assert opened.onRampUrlSignature == independent_signature(SECRET, wanted)
    emu.onramp.settle(opened.onRampTransactionId, "COMPLETED")
    got = sdk.get_on_ramp_transaction_status(
        GetOnRampTransactionStatusBody(transactionId=opened.onRampTransactionId, refresh=True)
    )
    assert got.transactionStatus == "COMPLETED"
    assert emu.chains.balance("eip155:11155111", setup.evm) == 90 * 10**18 // 3000


def test_the_control_plane_and_the_page_settle_purchases(setup):
    emu = setup.emu
    with serving(emu.world, control=Control(emu)) as url:
        emu.settings.onramp_site_url = url
        moonpay_tx = init(setup)
        answer = requests.post(
            url + "/emulator/v1/onramp/settle",
            json={"onRampTransactionId": moonpay_tx["onRampTransactionId"], "outcome": "CANCELLED"},
            timeout=10,
        )
        assert answer.status_code == 200 and answer.json()["providerStatus"] == "CANCELLED"
        refused = requests.post(
            url + "/emulator/v1/onramp/settle",
            json={"onRampTransactionId": moonpay_tx["onRampTransactionId"], "outcome": "DONE"},
            timeout=10,
        )
        assert refused.status_code == 400 and set(refused.json()) == {
            "code", "message", "details", "turnkeyErrorCode"
        }  # fmt: skip
        quote = requests.post(
            url + "/emulator/v1/onramp/quote",
            json={"network": BASE, "cryptoCurrencyCode": ETH, "fiatCurrencyAmount": "30"},
            timeout=10,
        ).json()["quoteId"]
        assert emu.create_fiat_on_ramp_session(quote_id=quote, wallet_address=setup.evm)
        coinbase = init(setup, onramp_provider=COINBASE, sandbox_mode=False)["onRampUrl"]
        page = requests.get(coinbase, timeout=10)
        assert page.status_code == 200 and b"/onramp/page.js" in page.content
        assert "script-src 'self'" in page.headers["Content-Security-Policy"]
        query = "?" + urlsplit(coinbase).query
        seen = requests.post(url + "/onramp/v1/purchase", json={"query": query}, timeout=10)
        assert seen.json()["providerStatus"] == "PENDING" and seen.json()["symbol"] == "ETH"
        forged = query.replace("sessionToken=", "sessionToken=x")
        denied = requests.post(
            url + "/onramp/v1/settle", json={"query": forged, "outcome": "COMPLETED"}, timeout=10
        )
        assert denied.status_code == 403
        form = requests.post(url + "/onramp/v1/settle", data={"query": query}, timeout=10)
        assert form.status_code == 415
        done = requests.post(
            url + "/onramp/v1/settle", json={"query": query, "outcome": "COMPLETED"}, timeout=10
        )
        assert done.status_code == 200 and done.json()["deliveredAmount"] == str(
            150 * 10**18 // 3000
        )
    assert emu.chains.balance("eip155:8453", setup.evm) == 150 * 10**18 // 3000


def test_typescript_encrypts_and_drives_the_on_ramp(setup):
    """@turnkey/crypto's encryptOnRampSecret with the emulator's key as its override; the
    credential and the on-ramp made by @turnkey/http's TurnkeyClient over a socket."""
    from tests.typescript import typescript_or_skip

    ts = typescript_or_skip()
    emu = setup.emu
    org_id = emu.organization().organization_id
    key = emu._callers[org_id]
    from_ts = ts.one(
        "encryptOnRampSecret", secret=SECRET, onRampPublicKey=emu.onramp.encryption_public_key
    )
    with serving(emu.world) as url:
        common = {"baseUrl": url, "apiPublicKey": key.public_key, "apiPrivateKey": key.private_key}

        def body(activity_type: str, parameters: dict) -> dict:
            return {
                "type": activity_type,
                "timestampMs": str(emu.clock.now_ms()),
                "organizationId": org_id,
                "parameters": parameters,
            }

        made = ts.one(
            "call",
            method="createFiatOnRampCredential",
            body=body(
                "ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_CREDENTIAL",
                {
                    "onrampProvider": MOONPAY,
                    "publishableApiKey": "pk_ts",
                    "encryptedSecretApiKey": from_ts,
                    "sandboxMode": True,
                },
            ),
            **common,
        )["activity"]
        assert made["status"] == "ACTIVITY_STATUS_COMPLETED"
        wanted = "https://buy-sandbox.moonpay.com?apiKey=pk_ts"
        opened = ts.one(
            "call",
            method="initFiatOnRamp",
            body=body(
                "ACTIVITY_TYPE_INIT_FIAT_ON_RAMP",
                {
                    "onrampProvider": MOONPAY,
                    "walletAddress": setup.evm,
                    "network": BASE,
                    "cryptoCurrencyCode": ETH,
                    "sandboxMode": True,
                    "urlForSignature": wanted,
                },
            ),
            **common,
        )["activity"]["result"]["initFiatOnRampResult"]
        assert opened["onRampUrlSignature"] == independent_signature(SECRET, wanted)
        emu.onramp.settle(opened["onRampTransactionId"], "COMPLETED")
        got = ts.one(
            "call",
            method="getOnRampTransactionStatus",
            body={
                "organizationId": org_id,
                "transactionId": opened["onRampTransactionId"],
                "refresh": True,
            },
            **common,
        )
        assert got["transactionStatus"] == "COMPLETED"


def test_webhooks_hear_the_on_ramp_activities_and_never_a_secret():
    from emulator.engine_state.world import Settings

    from .test_webhooks import subscribe

    with Emulator(seed=5, settings=Settings(webhook_synchronous=True)) as emu:
        emu.create_organization()
        address = emu.create_wallet(wallet_name="w", accounts=[EVM_ACCOUNT])["addresses"][0]
        got = []
        emu.webhooks.route("https://hooks.example.com/x", lambda request: got.append(request))
        subscribe(emu, "https://hooks.example.com/x")
        moonpay_credential(emu)
        init(Setup(emu, address, ""))
        kinds = [r.json()["type"] for r in got]
        assert kinds[1:] == [
            "ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_CREDENTIAL",
            "ACTIVITY_TYPE_INIT_FIAT_ON_RAMP",
        ]
        assert all(SECRET not in r.body.decode() for r in got)
        assert "onRampUrl" in got[-1].body.decode()
