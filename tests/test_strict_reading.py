"""Numbers and texts are read whole and in ASCII, as the real service (Go) reads them.

Digits of other scripts are not numbers: the amounts and counts of Swap and Earn, read
through ``ground/numbers.integer`` like every other number of a request, refuse "²", "١٢٣"
(Arabic-Indic) and "１２３" (full-width) with the API's 400 and change nothing. Python's
``str.isdigit`` accepts them and ``int()`` then fails on "²" (the fuzz found an
``earn_deposit`` under a policy crashing that way); the real service, in Go, reads ASCII
digits only."""

from __future__ import annotations

import pytest

from .helpers import add_user, error_of, fails
from .swap_helpers import BASE, USDC, WETH, new_world

OTHER_DIGITS = ["²", "١٢٣", "１２３"]
STEAKHOUSE = "0xbeeF010f9cb27031ad51e3333f9aF9C6B1228183"


@pytest.mark.parametrize("digits", OTHER_DIGITS)
def test_an_earn_deposit_amount_under_a_policy(digits):
    emu, alice, _, _ = new_world(71)
    _, key = add_user(emu, "trader")
    emu.create_policy(policy_name="all", effect="EFFECT_ALLOW", condition="true", notes="")
    emu.create_policy(  # a policy that reads the deposit's transaction
        policy_name="probe", effect="EFFECT_DENY", condition="eth.tx.nonce < 0", notes=""
    )
    params = {"wrapperAddress": STEAKHOUSE, "signWith": alice, "assets": digits}
    error = fails(emu, emu.call, "earn_deposit", {**params, "caip2": BASE}, caller=key)
    assert error.status == 400 and error.code == 3, error_of(error)


@pytest.mark.parametrize("digits", OTHER_DIGITS)
def test_an_earn_client_fee(digits):
    emu, _, bob, _ = new_world(72)
    error = fails(
        emu,
        emu.earn_deploy_wrapper,
        vault_address=STEAKHOUSE,
        caip2=BASE,
        client_fee_bps=digits,
        client_fee_wallet=bob,
    )
    assert error_of(error)[:3] == (400, 3, f"invalid clientFeeBps: {digits!r}")


@pytest.mark.parametrize("digits", OTHER_DIGITS)
def test_a_swap_amount(digits):
    emu, alice, _, _ = new_world(73)
    error = fails(
        emu,
        emu.create_swap_quote,
        sign_with=alice,
        input_token=USDC,
        output_token=WETH,
        input_amount=digits,
    )
    assert error.status == 400 and error.code == 3 and digits in error.message, error_of(error)


@pytest.mark.parametrize("digits", OTHER_DIGITS)
def test_a_swap_limit_window(digits):
    emu, _, _, _ = new_world(74)
    error = fails(
        emu,
        emu.upsert_swap_fee_sponsorship_limit_config,
        org_window_limit_usd="100",
        sub_org_window_limit_usd="10",
        window_duration_minutes=digits,
        enabled=True,
    )
    assert error.status == 400 and error.code == 3 and digits in error.message, error_of(error)


def test_ascii_digits_still_read():
    emu, alice, _, _ = new_world(75)
    emu.chains.fund(WETH, alice, 10**18)
    quote = emu.create_swap_quote(
        sign_with=alice, input_token=WETH, output_token=USDC, input_amount="1000000000000000"
    )
    assert quote["quotes"][0]["outputAmount"].isascii()


# ----- a trailing newline ----------------------------------------------------------------
# Python's ``$`` also matches before a final newline, so a pattern ``^...$`` used with
# ``match`` took "a@b.co\n" as an email and "5\n" as a count; every such check now matches
# the whole text (Go's ``$`` is the end of the text).


def test_an_email_with_a_trailing_newline():
    emu, _, _, _ = new_world(76)
    user = {"userName": "u", "userEmail": "a@b.co\n", "apiKeys": [], "authenticators": []}
    error = fails(emu, emu.create_users, users=[{**user, "oauthProviders": [], "userTags": []}])
    assert error.status == 400 and "users.0.userEmail" in error.message, error_of(error)


@pytest.mark.parametrize(
    ("field", "value"), [("orgWindowLimitUsd", "100\n"), ("windowDurationMinutes", "60\n")]
)
def test_a_swap_limit_with_a_trailing_newline(field, value):
    emu, _, _, _ = new_world(77)
    params = {
        "orgWindowLimitUsd": "100",
        "subOrgWindowLimitUsd": "10",
        "windowDurationMinutes": "60",
        "enabled": True,
    }
    error = fails(
        emu, emu.call, "upsert_swap_fee_sponsorship_limit_config", {**params, field: value}
    )
    assert error.status == 400 and error.code == 3, error_of(error)


def test_a_webhook_event_type_with_a_trailing_newline():
    emu, _, _, _ = new_world(78)
    error = fails(
        emu,
        emu.create_webhook_endpoint,
        url="https://example.com/hook",
        name="hooks",
        subscriptions=[{"eventType": "ACTIVITY_UPDATES\n"}],
    )
    assert error.status == 400 and error.code == 3, error_of(error)
