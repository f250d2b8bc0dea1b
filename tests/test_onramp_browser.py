"""The sandbox on-ramp provider's page in a real headless Chromium: a person opens the
``onRampUrl`` that ``init_fiat_on_ramp`` answered, sees the purchase, and completes or
cancels it; the asset lands in the wallet on the embedded chain and the status follows on
``refresh``. The dashboard then lists the purchase (and no secret)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from emulator import Emulator
from emulator.http.control import Control
from emulator.http.server import serving
from emulator.testing.client_crypto import encrypt_on_ramp_secret

from .browser import artifact_path, chromium_or_skip

WAIT_MS = 15_000
SECRET = "sk_test_browser"
ACCOUNT = {
    "curve": "CURVE_SECP256K1",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/60'/0'/0/0",
    "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
}


@pytest.fixture
def served() -> Iterator[tuple[Emulator, str, str]]:
    emu = Emulator(seed=7)
    emu.create_organization("Shop")
    address = emu.create_wallet(wallet_name="w", accounts=[ACCOUNT])["addresses"][0]
    emu.create_fiat_on_ramp_credential(
        onramp_provider="FIAT_ON_RAMP_PROVIDER_MOONPAY",
        publishable_api_key="pk_test_browser",
        encrypted_secret_api_key=encrypt_on_ramp_secret(SECRET, emu.onramp.encryption_public_key),
        sandbox_mode=True,
    )
    with serving(emu.world, control=Control(emu)) as url:
        yield emu, url, address


@pytest.fixture
def page():
    browser = chromium_or_skip()
    context = browser.new_context(viewport={"width": 900, "height": 800})
    tab = context.new_page()
    tab.errors = []  # type: ignore[attr-defined]
    tab.on("pageerror", lambda error: tab.errors.append(str(error)))  # type: ignore[attr-defined]
    yield tab
    context.close()


def open_purchase(emu: Emulator, address: str, **options) -> dict:
    params = {
        "onramp_provider": "FIAT_ON_RAMP_PROVIDER_MOONPAY",
        "wallet_address": address,
        "network": "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BASE",
        "crypto_currency_code": "FIAT_ON_RAMP_CRYPTO_CURRENCY_ETH",
        "sandbox_mode": True,
        **options,
    }
    return emu.init_fiat_on_ramp(**params)


def test_a_person_completes_a_purchase_on_the_provider_page(served, page):
    emu, url, address = served
    opened = open_purchase(emu, address)  # no preset amount: the person types one
    assert opened["onRampUrl"].startswith(url + "/onramp/buy-sandbox.moonpay.com/?")
    page.goto(opened["onRampUrl"])
    page.wait_for_selector("body[data-status=PENDING]", timeout=WAIT_MS)
    assert page.locator("#asset").inner_text() == "ETH"
    assert page.locator("#wallet").inner_text() == address
    assert "eip155:84532" in page.locator("#network").inner_text()
    assert page.locator("#provider").inner_text() == "MOONPAY (sandbox)"
    page.fill("#amount", "12")
    page.click("#complete")
    page.wait_for_selector("#error:text('greater than 20')", timeout=WAIT_MS)
    assert emu.get_onramp_transaction_status(
        transaction_id=opened["onRampTransactionId"], refresh=True
    )["transactionStatus"] == "PENDING"  # fmt: skip
    page.fill("#amount", "300")
    page.click("#complete")
    page.wait_for_selector("body[data-status=COMPLETED]", timeout=WAIT_MS)
    assert page.locator("#complete").is_disabled()
    page.screenshot(path=str(artifact_path("onramp-completed.png")), full_page=True)
    assert emu.chains.balance("eip155:84532", address) == 300 * 10**18 // 3000
    status = emu.get_onramp_transaction_status(
        transaction_id=opened["onRampTransactionId"], refresh=True
    )
    assert status["transactionStatus"] == "COMPLETED"
    page.reload()
    page.wait_for_selector("body[data-status=COMPLETED]", timeout=WAIT_MS)
    assert page.errors == []


def test_a_person_cancels_and_the_dashboard_shows_it(served, page):
    emu, url, address = served
    opened = open_purchase(emu, address, fiat_currency_amount="50")
    page.goto(opened["onRampUrl"])
    page.wait_for_selector("body[data-status=PENDING]", timeout=WAIT_MS)
    assert page.locator("#amount").input_value() == "50"
    page.click("#cancel")
    page.wait_for_selector("body[data-status=CANCELLED]", timeout=WAIT_MS)
    assert emu.chains.balance("eip155:84532", address) == 0
    assert emu.get_onramp_transaction_status(
        transaction_id=opened["onRampTransactionId"], refresh=True
    )["transactionStatus"] == "CANCELLED"  # fmt: skip
    org_id = emu.organization().organization_id
    page.goto(f"{url}/#/orgs/{org_id}")
    page.wait_for_selector("[data-testid=onramp-purchase]", timeout=WAIT_MS)
    row = page.locator("[data-testid=onramp-purchase]").inner_text()
    assert "CANCELLED" in row and "ETH" in row
    credential = page.locator("[data-testid=onramp-credential]").inner_text()
    assert "pk_test_browser" in credential and "sandbox" in credential
    assert SECRET not in page.content()
    sealed = emu.list_fiat_on_ramp_credentials()["fiatOnRampCredentials"][0]
    assert sealed["encryptedSecretApiKey"] not in page.content()
    assert page.errors == []
