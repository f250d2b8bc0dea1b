"""Velocity controls measure what a send transfers, as they measure a signed transaction: the
ether of every call of an ``eth_send_transaction`` on the embedded EVM, grouped by the
sending wallet, limited within a window that rolls over on the emulator's clock."""

from __future__ import annotations

import pytest

pytest.importorskip("eth_tester")

from emulator import Emulator
from emulator.accounts import account_spec

from .helpers import add_user, fails

BASE = "eip155:8453"
ETHER = 10**18
RECIPIENT = "0x" + "44" * 20


@pytest.fixture
def world():
    emu = Emulator(seed=31)
    emu.create_organization("Sends")
    emu.clock.freeze()
    _, key = add_user(emu, "spender")
    address = emu.create_wallet(
        wallet_name="hot", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"][0]
    emu.chains.fund(BASE, address, 10 * ETHER)
    emu.call(
        "create_velocity_control",
        {
            "name": "a daily ether limit",
            "identifier": "daily_eth",
            "dataSource": {
                "chainAssetTransfer": {
                    "definition": [{"caip19": "eip155:8453/slip44:60", "decimals": "18"}],
                    "phase": {"signature": {}},
                }
            },
            "aggregation": {
                "method": "VELOCITY_CONTROL_AGGREGATION_METHOD_SUM",
                "operator": "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN_OR_EQUAL",
                "threshold": "1",
                "window": {"rolling": {"duration": "86400"}},
                "groupBy": {"wallet": {}},
            },
        },
    )
    emu.create_policy(
        policy_name="sends within the limit",
        effect="EFFECT_ALLOW",
        condition="activity.resource == 'PRIVATE_KEY' && controls.daily_eth",
        notes="",
    )
    return emu, key, address


def send(emu, key, address, *values: int):
    calls = [{"to": RECIPIENT, "value": str(v)} for v in values]
    return emu.eth_send_transaction(from_=address, caip2=BASE, calls=calls, caller=key)


def test_a_send_counts_against_the_limit_until_the_window_rolls_over(world):
    emu, key, address = world
    tester = emu.chains.evm(BASE).tester
    assert (
        send(emu, key, address, 6 * ETHER // 10)["activity"]["status"]
        == "ACTIVITY_STATUS_COMPLETED"
    )
    before = tester.get_balance(RECIPIENT)
    # 0.6 + 0.3 + 0.3 ETH is over 1 ETH: a batch counts every call, and nothing is sent
    assert fails(emu, send, emu, key, address, 3 * ETHER // 10, 3 * ETHER // 10).status == 403
    assert tester.get_balance(RECIPIENT) == before
    assert (
        send(emu, key, address, 4 * ETHER // 10)["activity"]["status"]
        == "ACTIVITY_STATUS_COMPLETED"
    )
    assert fails(emu, send, emu, key, address, 1).status == 403  # 1 ETH and 1 wei
    emu.clock.advance(86400)
    assert send(emu, key, address, ETHER)["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert tester.get_balance(RECIPIENT) == before + 14 * ETHER // 10
