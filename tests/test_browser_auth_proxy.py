"""The official ``@turnkey/core`` in a real headless Chromium, against a served emulator
and its Auth Proxy, with a WebAuthn virtual authenticator (tests/browser_app).

A page on ``http://localhost:<port>`` (another origin than the emulator's) signs up with
a passkey, logs out and in again, creates a wallet, signs a message and an Ethereum
transaction (both checked with eth-account), and exports the wallet (decrypted in the
page, compared with the mnemonic the emulator holds); then signs up and logs in by
e-mail OTP, the code read from the outbox through the control plane, after showing that
the package's own ``verifyOtp`` refuses the emulator's bundle (the gap the README names).
Skips with the reason without a browser, node/npm or the registry.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import requests
import rlp
from eth_account import Account
from eth_account.messages import encode_defunct

from emulator.testing.client_crypto import PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY

from .authproxy import Proxy, proxy_served
from .browser import artifact_path, chromium_or_skip, docs_screenshot, virtual_authenticator
from .browser_app import page_bundle_or_skip, page_origin

STEP_TIMEOUT_MS = 60_000


class Page:
    """The test page in a browser tab: ``call(step, *args)`` runs ``window.tk.<step>``."""

    def __init__(self, tab, proxy: Proxy) -> None:
        self.tab = tab
        self.proxy = proxy

    def call(self, step: str, *args):
        return self.tab.evaluate("([step, args]) => window.tk[step](...args)", [step, list(args)])

    def start(self) -> dict:
        emu, site = self.proxy.emu, self.proxy.site
        return self.call(
            "start",
            {
                "apiBaseUrl": site.url,
                "authProxyUrl": site.url + "/authproxy",
                "authProxyConfigId": self.proxy.config_id,
                "organizationId": site.org.organization_id,
                "signerPublicKey": emu.enclave.signer_public_key,
                "tlsFetcherPublicKey": emu.enclave.tls_fetcher_public_key,
            },
        )


@pytest.fixture(scope="module")
def script() -> bytes:
    chromium_or_skip()
    return page_bundle_or_skip()


@pytest.fixture
def page(script) -> Iterator[Page]:
    browser = chromium_or_skip()
    with proxy_served() as proxy, page_origin(script) as origin:
        context = browser.new_context()
        context.set_default_timeout(STEP_TIMEOUT_MS)
        tab = context.new_page()
        virtual_authenticator(tab)
        errors: list[str] = []
        tab.on("pageerror", lambda error: errors.append(str(error)))
        tab.goto(origin + "/")
        tab.wait_for_function("window.tkReady === true")
        try:
            yield Page(tab, proxy)
        finally:
            context.close()
        assert errors == []


def unsigned_eip1559(to: str, chain_id: int = 1) -> str:
    fields = [chain_id, 0, 10**9, 2 * 10**9, 21000, bytes.fromhex(to[2:]), 10**15, b"", []]
    return "0x02" + rlp.encode(fields).hex()


def test_passkey_sign_up_log_in_wallet_signatures_and_export(page):
    emu = page.proxy.emu
    config = page.start()
    assert config["organizationId"] == page.proxy.site.org.organization_id

    signed_up = page.call("signUpWithPasskey", "ada")
    sub_org = signed_up["session"]["organizationId"]
    org = emu.world.store.organizations[sub_org]
    assert org.parent_id == page.proxy.site.org.organization_id
    (user,) = org.users.values()
    assert user.name == "ada"
    (authenticator,) = user.authenticators.values()
    assert authenticator.credential_id.rstrip("=") == signed_up["credentialId"].rstrip("=")

    assert page.call("logout")["session"] is None
    logged_in = page.call("loginWithPasskey")
    assert logged_in["session"]["organizationId"] == sub_org
    assert logged_in["session"]["userId"] == user.user_id

    wallet = page.call("createWallet", "main")
    (address,) = wallet["addresses"]
    assert emu.world.store.organizations[sub_org].wallets[wallet["walletId"]]

    signature = page.call("signMessage", wallet["walletId"], "hello from the browser")
    v = int(signature["v"], 16)
    recovered = Account.recover_message(
        encode_defunct(text="hello from the browser"),
        vrs=(v + 27 if v < 27 else v, int(signature["r"], 16), int(signature["s"], 16)),
    )
    assert recovered == address

    signed_tx = page.call("signTransaction", wallet["walletId"], unsigned_eip1559("0x" + "11" * 20))
    signed_hex = signed_tx if signed_tx.startswith("0x") else "0x" + signed_tx
    assert Account.recover_transaction(signed_hex) == address

    mnemonic = page.call("exportWallet", wallet["walletId"])
    assert mnemonic == emu.backdoor.mnemonic(wallet["walletId"], organization_id=sub_org)
    page.tab.screenshot(path=str(artifact_path("auth-proxy-passkey.png")))


def outbox_code(proxy: Proxy, contact: str) -> str:
    """The latest OTP code sent to ``contact``, read through the control plane."""
    answer = requests.post(f"{proxy.site.url}/emulator/v1/outbox", json={"to": contact})
    messages = answer.json()["messages"]
    return messages[-1]["fields"]["otpCode"]


def test_email_otp_sign_up_and_log_in(page):
    emu = page.proxy.emu
    page.start()
    contact = "grace@example.com"

    sent = page.call("initOtp", contact)
    code = outbox_code(page.proxy, contact)
    shipped = page.call(
        "verifyOtpAsShipped", sent["otpId"], code, sent["otpEncryptionTargetBundle"]
    )
    # @turnkey/core checks the bundle against Turnkey's production key, with no override
    assert (shipped["ok"], shipped["message"]) == (False, "Failed to verify OTP")
    assert shipped["cause"].startswith(
        f"expected signer key {PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY}"
    )

    sent = page.call("initOtp", contact)
    code = outbox_code(page.proxy, contact)
    signed_up = page.call(
        "completeOtp", sent["otpId"], code, sent["otpEncryptionTargetBundle"], contact
    )
    assert signed_up["action"] == "SIGNUP"
    sub_org = signed_up["session"]["organizationId"]
    (user,) = emu.world.store.organizations[sub_org].users.values()
    assert (user.email, user.email_verified) == (contact, True)
    assert page.call("whoami")["userEmail"] == contact

    page.call("logout")
    sent = page.call("initOtp", contact)
    code = outbox_code(page.proxy, contact)
    logged_in = page.call(
        "completeOtp", sent["otpId"], code, sent["otpEncryptionTargetBundle"], contact
    )
    assert logged_in["action"] == "LOGIN"
    assert logged_in["session"]["organizationId"] == sub_org
    assert logged_in["session"]["userId"] == user.user_id
    logins = emu.calls.filter(operation="stamp_login")
    assert [c.organization_id for c in logins][-2:] == [sub_org, sub_org]
    dashboard_pictures(page, ("outbox", "calls"))


def dashboard_pictures(page: Page, views: tuple[str, ...]) -> None:
    """The flow as the served emulator's dashboard shows it, for the docs (with
    ``EMULATOR_SCREENSHOTS=1``; nothing otherwise)."""
    if os.environ.get("EMULATOR_SCREENSHOTS") != "1":
        return
    tab = page.tab.context.new_page()
    tab.set_viewport_size({"width": 1280, "height": 800})
    for view in views:
        tab.goto(f"{page.proxy.site.url}/#/{view}")
        tab.wait_for_selector(f"body[data-rendered={view}]", timeout=STEP_TIMEOUT_MS)
        docs_screenshot(tab, f"auth-proxy-{view}")
    tab.close()


def test_oauth_sign_up_and_log_in_with_the_test_issuer(page):
    emu = page.proxy.emu
    page.start()
    results = []
    for _ in range(2):  # sign up, then log in
        public_key = page.call("createKeyPair")
        token = emu.oidc.token(
            sub="oidc-user-1", aud="test-app", nonce=emu.oidc.nonce_for(public_key)
        )
        results.append((page.call("completeOauth", token, public_key), public_key))
        page.call("logout")
    (signed_up, first_key), (logged_in, second_key) = results
    assert (signed_up["action"], logged_in["action"]) == ("SIGNUP", "LOGIN")
    sub_org = signed_up["session"]["organizationId"]
    assert logged_in["session"]["organizationId"] == sub_org
    (user,) = emu.world.store.organizations[sub_org].users.values()
    (provider,) = user.oauth_providers.values()
    assert (provider.issuer, provider.subject) == (emu.oidc.issuer, "oidc-user-1")
    logins = emu.calls.filter(operation="stamp_login")[-2:]
    assert [c.api_public_key for c in logins] == [first_key, second_key]  # attested by OIDC
    assert all(c.ok for c in logins)
