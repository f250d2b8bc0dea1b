"""``SEND_TRANSACTION_STATUS_UPDATES`` (features/webhooks/overview.mdx): a send's
``BROADCASTING`` and then its outcome, delivered to the billing organization's endpoints in
the docs' ``transaction:status`` shape, the outcome when the emulator's clock reaches the
chain's block time."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("eth_tester")

from emulator import Emulator, Settings
from emulator.accounts import account_spec

from .helpers import add_user, fails

BASE = "eip155:8453"
HOOK = "https://hooks.example.test/tx-status"
RECIPIENT = "0x" + "55" * 20


@pytest.fixture
def world():
    emu = Emulator(seed=41, settings=Settings(webhook_synchronous=True, chain_block_time_s=12))
    parent = emu.create_organization("Billing")
    emu.clock.freeze()
    received: list = []
    emu.webhooks.route(HOOK, received.append)
    emu.create_webhook_endpoint(
        url=HOOK, name="tx status", subscriptions=[{"eventType": "SEND_TRANSACTION_STATUS_UPDATES"}]
    )
    yield emu, parent, received
    emu.close()


def events(received: list) -> list[dict]:
    return [json.loads(d.body) for d in received]


def test_broadcasting_then_included_with_the_hash(world):
    emu, parent, received = world
    address = emu.create_wallet(
        wallet_name="hot", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"][0]
    emu.chains.fund(BASE, address, 10**18)
    made = emu.eth_send_transaction(
        from_=address, caip2=BASE, calls=[{"to": RECIPIENT, "value": "7"}]
    )
    status_id = made["sendTransactionStatusId"]
    (first,) = events(received)
    assert first["type"] == "transaction:status"
    assert (first["organizationId"], first["parentOrganizationId"]) == (
        parent.organization_id,
        parent.organization_id,
    )
    msg = first["msg"]
    assert set(msg) == {
        "sendTransactionStatusId",
        "activityId",
        "status",
        "caip2",
        "idempotencyKey",
        "timestamp",
    }
    assert (msg["sendTransactionStatusId"], msg["status"], msg["caip2"]) == (
        status_id,
        "BROADCASTING",
        BASE,
    )
    assert msg["activityId"] == made["activity"]["id"]
    assert received[0].headers["X-Turnkey-Event-Type"] == "SEND_TRANSACTION_STATUS_UPDATES"
    assert received[0].headers["X-Turnkey-Organization-Id"] == parent.organization_id
    emu.clock.advance(12)
    second = events(received)[1]["msg"]
    tx_hash = emu.get_send_transaction_status(send_transaction_status_id=status_id)["eth"]["txHash"]
    assert (second["status"], second["txHash"]) == ("INCLUDED", tx_hash)
    assert "error" not in second
    assert second["idempotencyKey"] != msg["idempotencyKey"]
    assert int(second["timestamp"]) == int(msg["timestamp"]) + 12


def test_a_refused_send_fails_with_its_error_and_no_hash(world):
    emu, _, received = world
    address = emu.create_wallet(
        wallet_name="empty", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"][0]
    emu.chains.fund(BASE, address, 0)
    emu.eth_send_transaction(from_=address, caip2=BASE, calls=[{"to": RECIPIENT, "value": "7"}])
    emu.clock.advance(12)
    statuses = [e["msg"] for e in events(received)]
    assert [m["status"] for m in statuses] == ["BROADCASTING", "FAILED"]
    assert "txHash" not in statuses[1] and statuses[1]["error"]["message"]


def test_a_sub_organizations_send_goes_to_its_billing_organizations_endpoint(world):
    emu, parent, received = world
    sub = emu.create_organization("Customer", parent_organization_id=parent.organization_id)
    address = emu.create_wallet(
        wallet_name="sub",
        accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")],
        organization_id=sub.organization_id,
    )["addresses"][0]
    emu.chains.fund(BASE, address, 10**18)
    emu.eth_send_transaction(
        from_=address,
        caip2=BASE,
        calls=[{"to": RECIPIENT, "value": "1"}],
        organization_id=sub.organization_id,
    )
    emu.clock.advance(12)
    bodies = events(received)
    assert [b["msg"]["status"] for b in bodies] == ["BROADCASTING", "INCLUDED"]
    assert {(b["organizationId"], b["parentOrganizationId"]) for b in bodies} == {
        (sub.organization_id, parent.organization_id)
    }


def test_a_denied_send_delivers_nothing(world):
    emu, _, received = world
    _, key = add_user(emu, "no policy")
    address = emu.create_wallet(
        wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"][0]
    emu.chains.fund(BASE, address, 10**18)
    call = {"to": RECIPIENT, "value": "1"}
    error = fails(
        emu, emu.eth_send_transaction, from_=address, caip2=BASE, calls=[call], caller=key
    )
    assert error.status == 403
    emu.clock.advance(12)
    assert received == []


def test_balance_events_for_the_wallet_accounts_a_send_moves_ether_between(world):
    """BALANCE_CONFIRMED_UPDATES and _FINALIZED_UPDATES: a withdraw of the sender and a deposit
    of the recipient, each an account of the billing tree, confirmed at inclusion and
    finalized two block times later; an address outside the tree is not reported."""
    emu, parent, _ = world
    balances = "https://hooks.example.test/balances"
    got: list = []
    emu.webhooks.route(balances, got.append)
    emu.create_webhook_endpoint(
        url=balances,
        name="balances",
        subscriptions=[
            {"eventType": "BALANCE_CONFIRMED_UPDATES"},
            {"eventType": "BALANCE_FINALIZED_UPDATES"},
        ],
    )
    sub = emu.create_organization("Customer", parent_organization_id=parent.organization_id)
    sender = emu.create_wallet(
        wallet_name="from", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"][0]
    recipient = emu.create_wallet(
        wallet_name="to",
        accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")],
        organization_id=sub.organization_id,
    )["addresses"][0]
    emu.chains.fund(BASE, sender, 10**18)
    made = emu.eth_send_transaction(
        from_=sender, caip2=BASE, calls=[{"to": recipient, "value": "99"}]
    )
    assert got == []  # nothing before the chain includes it
    emu.clock.advance(12)
    status = emu.get_send_transaction_status(
        send_transaction_status_id=made["sendTransactionStatusId"]
    )
    receipt = emu.chains.evm(BASE).tester.get_transaction_receipt(status["eth"]["txHash"])
    confirmed = [json.loads(d.body) for d in got]
    assert [(e["type"], e["msg"]["operation"]) for e in confirmed] == [
        ("balances:confirmed", "withdraw"),
        ("balances:confirmed", "deposit"),
    ]
    withdraw, deposit = confirmed
    assert (withdraw["organizationId"], deposit["organizationId"]) == (
        parent.organization_id,
        sub.organization_id,
    )
    assert {e["parentOrganizationId"] for e in confirmed} == {parent.organization_id}
    assert (withdraw["msg"]["address"].lower(), deposit["msg"]["address"].lower()) == (
        sender.lower(),
        recipient.lower(),
    )
    assert deposit["msg"]["asset"] == {
        "symbol": "ETH",
        "name": "Ether",
        "decimals": "18",
        "caip19": "eip155:8453/slip44:60",
        "amount": "99",
    }
    assert deposit["msg"]["block"]["number"] == str(receipt["block_number"])
    assert deposit["msg"]["block"]["hash"] == receipt["block_hash"]
    assert got[0].headers["X-Turnkey-Event-Type"] == "BALANCE_CONFIRMED_UPDATES"
    emu.clock.advance(24)
    finalized = [json.loads(d.body) for d in got[2:]]
    assert [e["type"] for e in finalized] == ["balances:finalized"] * 2
    assert len({e["msg"]["idempotencyKey"] for e in confirmed + finalized}) == 4
    # to an address outside the billing tree: only the withdraw
    emu.eth_send_transaction(from_=sender, caip2=BASE, calls=[{"to": RECIPIENT, "value": "1"}])
    emu.clock.advance(36)
    later = [json.loads(d.body)["msg"]["operation"] for d in got[4:]]
    assert later == ["withdraw", "withdraw"]  # confirmed, then finalized
