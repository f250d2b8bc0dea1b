"""The pytest plugin's shared emulator gives each test its own swap prices: a price a test sets
is gone in the next one (the plugin puts the settings back)."""

from __future__ import annotations

WETH = "eip155:8453/erc20:0x4200000000000000000000000000000000000006"


def test_a_price_set_in_one_test(turnkey_emulator):
    turnkey_emulator.swap.set_price(WETH, "1234")
    assert turnkey_emulator.swap.prices() == {WETH: "1234"}


def test_is_not_seen_by_the_next(turnkey_emulator):
    assert turnkey_emulator.swap.prices() == {}
