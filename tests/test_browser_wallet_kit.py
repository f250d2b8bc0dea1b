"""The official ``@turnkey/react-wallet-kit`` in a real headless Chromium, against a served
emulator and its Auth Proxy (tests/wallet_kit_app: a React app built with Vite, the kit's
provider and its own screens; our buttons only open them).

Through the kit's screens: sign up with a passkey (a CDP virtual authenticator), log out, log
in with it, create a wallet, sign a message in the kit's signing screen (checked with
eth-account), export the wallet in the kit's export screen (decrypted in the page by our
stand-in of the export frame, compared with the mnemonic the emulator holds), log out; then
sign up and log in with an e-mail OTP typed into the kit's code screen, read from the outbox.
The app's build overrides the production TLS fetcher key that ``@turnkey/crypto`` checks the
OTP target bundle against (vite.config.js; docs/typescript.md). Skips with the reason without
a browser, node/npm or the registry.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from .browser import artifact_path, chromium_or_skip, virtual_authenticator
from .wallet_kit_app import app_build_or_skip, app_origin
from .wire import Served, served

STEP_TIMEOUT_MS = 60_000
MESSAGE = "hello from the wallet kit"
FRAME = "#turnkey-default-iframe-element-id"


@dataclass
class App:
    tab: object
    site: Served
    origin: str
    emulator: dict
    errors: list[str]

    @property
    def emu(self):
        return self.site.emu

    def text(self, selector: str) -> str:
        return self.tab.locator(selector).inner_text()

    def wait_text(self, selector: str, expected: str | None = None) -> str:
        """Wait until ``selector`` shows ``expected`` (or anything), and answer it."""
        locator = self.tab.locator(selector)
        if expected is None:
            self.tab.wait_for_function(
                "(s) => document.querySelector(s)?.innerText.trim()", arg=selector
            )
        else:
            self.tab.wait_for_function(
                "([s, e]) => document.querySelector(s)?.innerText === e", arg=[selector, expected]
            )
        return locator.inner_text()

    def state(self, expected: str) -> None:
        self.wait_text("#auth-state", expected)

    def click_kit(self, name: str) -> None:
        """Click one of the kit's own buttons (its ``data-testid``, the ``name`` it gives them)."""
        self.tab.get_by_test_id(name).click()

    def open(self, emulator: dict) -> None:
        """Load the app configured for ``emulator`` and wait for the kit to be ready."""
        self.tab.goto(f"{self.origin}/?config={quote(json.dumps(emulator))}")
        self.state("unauthenticated")

    def outbox_code(self, contact: str, after: int) -> str:
        """The code of the first message to ``contact`` after the first ``after`` ones."""
        for _ in range(200):
            sent = [m for m in self.emu.outbox.messages[after:] if m.to == contact]
            if sent:
                return sent[0].fields["otpCode"]
            self.tab.wait_for_timeout(50)
        raise AssertionError(f"no code sent to {contact}")

    def send_code(self, contact: str) -> str:
        """Through the kit's auth modal: the e-mail address, its code screen; the code sent."""
        self.tab.click("#login")
        self.tab.get_by_test_id("email-input").fill(contact)
        before = len(self.emu.outbox.messages)
        self.click_kit("email-continue-icon")
        self.tab.get_by_text("-digit code we sent to").wait_for()  # the kit's code screen
        return self.outbox_code(contact, before)

    def type_code(self, code: str) -> None:
        self.tab.locator('input[inputmode="numeric"]').first.click()
        self.tab.keyboard.type(code)


@pytest.fixture(scope="module")
def build():
    chromium_or_skip()
    return app_build_or_skip()


@pytest.fixture
def app(build) -> Iterator[App]:
    browser = chromium_or_skip()
    with served() as site, app_origin(build) as origin:
        config = site.emu.auth_proxy.configure({"enabledProviders": ["passkey", "email"]})
        emulator = {
            "apiBaseUrl": site.url,
            "authProxyUrl": site.url + "/authproxy",
            "authProxyConfigId": config.config_id,
            "organizationId": site.org.organization_id,
            "signerPublicKey": site.emu.enclave.signer_public_key,
            "tlsFetcherPublicKey": site.emu.enclave.tls_fetcher_public_key,
        }
        context = browser.new_context()
        context.set_default_timeout(STEP_TIMEOUT_MS)
        tab = context.new_page()
        virtual_authenticator(tab)
        errors: list[str] = []
        tab.on("pageerror", lambda error: errors.append(str(error)))
        running = App(tab, site, origin, emulator, errors)
        running.open(emulator)
        try:
            yield running
        finally:
            context.close()
        assert errors == []


def test_passkey_sign_up_log_in_wallet_signature_export_log_out(app):
    emu, parent = app.emu, app.site.org.organization_id
    app.tab.click("#login")
    app.click_kit("passkey-signup-button")
    app.state("authenticated")
    sub_org = app.wait_text("#session-organization")
    org = emu.world.store.organizations[sub_org]
    assert org.parent_id == parent
    (user,) = org.users.values()
    assert app.text("#session-user") == user.user_id
    (authenticator,) = user.authenticators.values()
    assert authenticator.credential_id

    app.tab.click("#logout")
    app.state("unauthenticated")
    assert app.text("#session-organization") == ""
    app.tab.click("#login")
    app.click_kit("passkey-login-button")
    app.state("authenticated")
    assert (app.wait_text("#session-organization"), app.text("#session-user")) == (
        sub_org,
        user.user_id,
    )

    app.tab.click("#create-wallet")
    address = app.wait_text("#wallet-address")
    wallet_id = app.text("#wallet-id")
    (account,) = emu.world.store.organizations[sub_org].wallets[wallet_id].accounts.values()
    assert account.address == address

    app.tab.click("#sign-message")
    app.tab.get_by_text(MESSAGE).wait_for()  # the kit's signing screen shows the message
    app.click_kit("sign-button")
    signature = json.loads(app.wait_text("#signature"))
    v = int(signature["v"], 16)
    recovered = Account.recover_message(
        encode_defunct(text=MESSAGE),
        vrs=(v + 27 if v < 27 else v, int(signature["r"], 16), int(signature["s"], 16)),
    )
    assert recovered == address

    app.tab.click("#export-wallet")
    app.click_kit("confirm-export-warning-button")
    shown = app.tab.frame_locator(FRAME).locator("#mnemonic")
    shown.filter(has_text=" ").wait_for()
    assert shown.inner_text() == emu.backdoor.mnemonic(wallet_id, organization_id=sub_org)
    assert len(shown.inner_text().split()) in (12, 24)
    app.tab.screenshot(path=str(artifact_path("wallet-kit-export.png")))
    app.click_kit("export-done")

    app.tab.click("#logout")
    app.state("unauthenticated")
    assert app.text("#session-user") == ""


def test_email_otp_sign_up_then_log_in(app):
    emu, parent = app.emu, app.site.org.organization_id
    contact = "grace@example.com"
    sessions = []
    for _ in range(2):  # sign up, log out, log in
        app.type_code(app.send_code(contact))
        app.state("authenticated")
        sessions.append((app.wait_text("#session-organization"), app.text("#session-user")))
        app.tab.click("#logout")
        app.state("unauthenticated")
    (sub_org, user_id), logged_in = sessions
    assert logged_in == (sub_org, user_id)
    org = emu.world.store.organizations[sub_org]
    assert org.parent_id == parent
    (user,) = org.users.values()
    assert (user.user_id, user.email, user.email_verified) == (user_id, contact, True)
    logins = emu.calls.filter(operation="stamp_login")
    assert [c.organization_id for c in logins][-2:] == [sub_org, sub_org]
    assert all(c.ok for c in logins[-2:])


def test_without_the_build_override_the_kit_refuses_the_emulators_otp_bundle(app):
    """The gap the override closes: with no key on the page, @turnkey/crypto checks the
    emulator's target bundle against Turnkey's production key, and the kit's code screen
    fails before anything is verified."""
    app.open({k: v for k, v in app.emulator.items() if k != "tlsFetcherPublicKey"})
    app.type_code(app.send_code("lin@example.com"))
    app.tab.get_by_text("An error has occurred").wait_for()
    assert app.text("#auth-state") == "unauthenticated"
    assert app.emu.calls.filter(operation="verify_otp") == []
    assert [e for e in app.errors if "Error completing OTP" not in e] == []
    app.errors.clear()  # the kit's own unhandled rejection of the failed step
