"""Broadcasting on the embedded EVM: transfers, a contract deployed and called, the gas station,
statuses on the emulator's clock, the nodes' refusals and reverts, and policies on sends. Every
effect is read back with eth-tester's own API on the same chain (an independent client)."""

from __future__ import annotations

import pytest

pytest.importorskip("eth_tester")

from eth_abi import encode

from emulator import Emulator, Settings
from emulator.accounts import account_spec

from .helpers import add_user, error_of, fails

BASE = "eip155:8453"
ONE_ETH = 10**18
RECIPIENT = "0x" + "22" * 20
# runtime: PUSH1 0 CALLDATALOAD PUSH1 0 SSTORE STOP (stores its first calldata word in slot 0)
STORE_RUNTIME = bytes.fromhex("60003560005500")


def _deployment(runtime: bytes) -> bytes:
    """Init code that returns ``runtime`` (CODECOPY it to memory, RETURN it)."""
    size = len(runtime)
    return bytes([0x60, size, 0x60, 12, 0x60, 0, 0x39, 0x60, size, 0x60, 0, 0xF3]) + runtime


def _reverting_runtime(reason: str) -> bytes:
    """Runtime that reverts every call with ``Error(reason)``."""
    data = bytes.fromhex("08c379a0") + encode(["string"], [reason])
    return bytes([0x60, len(data), 0x60, 12, 0x60, 0, 0x39, 0x60, len(data), 0x60, 0, 0xFD]) + data


@pytest.fixture(scope="module")
def world():
    emu = Emulator(seed=7)
    emu.create_organization("Chains")
    wallet = emu.create_wallet(
        wallet_name="hot",
        accounts=[
            account_spec("ADDRESS_FORMAT_ETHEREUM"),
            account_spec("ADDRESS_FORMAT_ETHEREUM", 1),
        ],
    )
    return emu, wallet["addresses"]


def send(emu, sender, *calls, **options):
    done = emu.eth_send_transaction(from_=sender, caip2=BASE, calls=list(calls), **options)
    assert done["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    return done["sendTransactionStatusId"]


def status(emu, status_id):
    answer = emu.get_send_transaction_status(send_transaction_status_id=status_id)
    answer.pop("activity")
    return answer


def test_a_transfer_lands_on_the_chain(world):
    emu, (alice, _) = world
    emu.chains.fund(BASE, alice, ONE_ETH)
    tester = emu.chains.evm(BASE).tester
    before = tester.get_balance(RECIPIENT)
    status_id = send(emu, alice, {"to": RECIPIENT, "value": "12345"})
    answer = status(emu, status_id)
    assert answer["txStatus"] == "INCLUDED"
    receipt = tester.get_transaction_receipt(answer["eth"]["txHash"])
    assert receipt["status"] == 1 and receipt["from"] == alice and receipt["to"] == RECIPIENT
    tx = tester.get_transaction_by_hash(answer["eth"]["txHash"])
    assert tx["chain_id"] == 8453 and tx["value"] == 12345 and tx["type"] == "0x2"
    assert tester.get_balance(RECIPIENT) == before + 12345
    fee = receipt["gas_used"] * receipt["effective_gas_price"]
    assert tester.get_balance(alice) == ONE_ETH - 12345 - fee
    nonces = emu.get_nonces(address=alice, caip2=BASE, nonce=True, gas_station_nonce=True)
    assert (nonces["nonce"], nonces["gasStationNonce"]) == (str(tester.get_nonce(alice)), "0")


def test_a_contract_deployed_raw_and_called_through_a_send(world):
    emu, (alice, _) = world
    emu.chains.fund(BASE, alice, ONE_ETH)
    node = emu.chains.evm(BASE)
    from emulator.chains.evm_tx import unsigned_1559

    nonce = node.nonce(alice)
    unsigned = unsigned_1559(
        8453, nonce, 10**9, 10**10, 200_000, None, 0, _deployment(STORE_RUNTIME)
    )
    signed = emu.sign_transaction(
        sign_with=alice, unsigned_transaction=unsigned, type="TRANSACTION_TYPE_ETHEREUM"
    )["signedTransaction"]
    sent = emu.eth_send_raw_transaction(signed_transaction="0x" + signed, caip2=BASE)
    receipt = node.tester.get_transaction_receipt(sent["transactionHash"])
    contract = receipt["contract_address"]
    assert receipt["status"] == 1 and node.tester.get_code(contract) == "0x" + STORE_RUNTIME.hex()
    status_id = send(emu, alice, {"to": contract, "data": "0x" + (42).to_bytes(32, "big").hex()})
    assert status(emu, status_id)["txStatus"] == "INCLUDED"
    assert int(node.tester.get_storage_at(contract, "0x0"), 16) == 42


def test_a_reverted_call_is_included_with_its_revert_chain(world):
    emu, (alice, _) = world
    emu.chains.fund(BASE, alice, ONE_ETH)
    node = emu.chains.evm(BASE)
    deployed = send(emu, alice, {"to": RECIPIENT, "value": "0"})  # the nonce moves on
    assert status(emu, deployed)["txStatus"] == "INCLUDED"
    from emulator.chains.evm_tx import unsigned_1559

    unsigned = unsigned_1559(
        8453,
        node.nonce(alice),
        10**9,
        10**10,
        300_000,
        None,
        0,
        _deployment(_reverting_runtime("not allowed")),
    )
    signed = emu.sign_transaction(
        sign_with=alice, unsigned_transaction=unsigned, type="TRANSACTION_TYPE_ETHEREUM"
    )["signedTransaction"]
    tx_hash = emu.eth_send_raw_transaction(signed_transaction=signed, caip2=BASE)["transactionHash"]
    contract = node.tester.get_transaction_receipt(tx_hash)["contract_address"]
    answer = status(emu, send(emu, alice, {"to": contract, "data": "0x"}, gasLimit="60000"))
    assert answer["txStatus"] == "INCLUDED"
    assert node.tester.get_transaction_receipt(answer["eth"]["txHash"])["status"] == 0
    entry = {
        "address": contract,
        "errorType": "native",
        "displayMessage": "not allowed",
        "native": {"nativeType": "error_string", "message": "not allowed"},
    }
    assert answer["error"] == {
        "message": "Execution reverted on chain: not allowed",
        "revertChain": [entry],
        "eth": {"revertChain": [entry]},
    }
    assert answer["txError"] == "Execution reverted on chain: not allowed"


def test_too_little_to_pay_fails_and_changes_nothing(world):
    emu, (_, bob) = world
    emu.chains.fund(BASE, bob, 0)
    nonce = emu.chains.evm(BASE).nonce(bob)
    answer = status(emu, send(emu, bob, {"to": RECIPIENT, "value": "1"}))
    assert answer == {
        "txStatus": "FAILED",
        "txError": "insufficient funds for gas * price + value",
        "error": {"message": "insufficient funds for gas * price + value"},
    }
    assert emu.chains.evm(BASE).nonce(bob) == nonce


@pytest.mark.parametrize(
    ("offset", "message"),
    [
        (-1, "nonce too low: next nonce {n}, tx nonce {m}"),
        (3, "nonce too high: next nonce {n}, tx nonce {m}"),
    ],
)
def test_a_bad_nonce_fails_with_the_nodes_words(world, offset, message):
    emu, (alice, _) = world
    emu.chains.fund(BASE, alice, ONE_ETH)
    node = emu.chains.evm(BASE)
    if node.nonce(alice) == 0:
        send(emu, alice, {"to": RECIPIENT})
    n = node.nonce(alice)
    answer = status(emu, send(emu, alice, {"to": RECIPIENT}, nonce=str(n + offset)))
    assert answer["txStatus"] == "FAILED"
    assert answer["error"]["message"] == message.format(n=n, m=n + offset)
    assert "eth" not in answer


def test_a_raw_send_the_node_refuses_is_a_400_and_records_nothing(world):
    emu, (_, bob) = world
    emu.chains.fund(BASE, bob, 0)
    from emulator.chains.evm_tx import unsigned_1559

    unsigned = unsigned_1559(8453, 0, 10**9, 10**10, 21000, RECIPIENT, 1, b"")
    signed = emu.sign_transaction(
        sign_with=bob, unsigned_transaction=unsigned, type="TRANSACTION_TYPE_ETHEREUM"
    )["signedTransaction"]
    error = fails(emu, emu.eth_send_raw_transaction, signed_transaction=signed, caip2=BASE)
    assert error_of(error)[:2] == (400, 3)
    assert error.message == (
        "failed to broadcast transaction: insufficient funds for gas * price + value"
    )


def test_the_status_is_broadcasting_until_the_block_time_passes():
    emu = Emulator(seed=3, settings=Settings(chain_block_time_s=12))
    emu.create_organization()
    (alice,) = emu.create_wallet(
        wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"]
    emu.chains.fund(BASE, alice, ONE_ETH)
    emu.clock.freeze()
    status_id = send(emu, alice, {"to": RECIPIENT, "value": "1"})
    assert status(emu, status_id) == {"txStatus": "BROADCASTING"}
    history = emu.list_eth_transaction_history(address=alice, caip2=BASE)
    assert history["transactions"] == []
    emu.clock.advance(12)
    answer = status(emu, status_id)
    assert answer["txStatus"] == "INCLUDED" and answer["eth"]["txHash"].startswith("0x")
    (item,) = emu.list_eth_transaction_history(address=alice, caip2=BASE)["transactions"]
    assert item["transactionHash"] == answer["eth"]["txHash"]
    assert item["transfers"][0]["direction"] == "OUT" and item["transfers"][0]["amount"] == "1"
    assert item["turnkey"]["sponsored"] is False and item["origin"] == "TURNKEY"


def test_the_gas_station_pays_the_fee_and_counts_its_nonce_and_usage():
    emu = Emulator(seed=4)
    emu.create_organization()
    (carol,) = emu.create_wallet(
        wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"]
    emu.chains.fund(BASE, carol, 1000)  # no gas money at all
    node = emu.chains.evm(BASE)
    sponsor_before = node.tester.get_balance(emu.chains.evm_sponsor_address)
    answer = status(emu, send(emu, carol, {"to": RECIPIENT, "value": "10"}, sponsor=True))
    assert answer["txStatus"] == "INCLUDED"
    receipt = node.tester.get_transaction_receipt(answer["eth"]["txHash"])
    fee = receipt["gas_used"] * receipt["effective_gas_price"]
    assert node.tester.get_balance(carol) == 990
    assert node.tester.get_balance(emu.chains.evm_sponsor_address) == sponsor_before - fee
    nonces = emu.get_nonces(address=carol, caip2=BASE, gas_station_nonce=True)
    assert nonces["gasStationNonce"] == "1" and "nonce" not in nonces
    usage = emu.get_gas_usage()
    # reference/faq.mdx: Pro's sponsorship is "up to $50/day"
    assert (usage["windowDurationMinutes"], usage["windowLimitUsd"]) == (1440, "50")
    assert float(usage["usageUsd"]) == pytest.approx(fee / 10**18 * 3000, abs=1e-6)
    # a stale gas station nonce is refused before anything is signed
    error = fails(
        emu,
        emu.eth_send_transaction,
        from_=carol,
        caip2=BASE,
        sponsor=True,
        calls=[{"to": RECIPIENT}],
        gas_station_nonce="0",
    )
    assert error.status == 400 and error.message == "invalid gas station nonce: expected 1, got 0"
    (item,) = emu.list_eth_transaction_history(address=carol, caip2=BASE)["transactions"]
    assert item["turnkey"]["sponsored"] is True


def test_sponsoring_stops_at_the_window_limit():
    emu = Emulator(seed=5, settings=Settings(gas_org_window_limit_usd="0"))
    emu.create_organization()
    (dave,) = emu.create_wallet(
        wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"]
    error = fails(
        emu,
        emu.eth_send_transaction,
        from_=dave,
        caip2=BASE,
        sponsor=True,
        calls=[{"to": RECIPIENT}],
    )
    assert error.status == 400
    assert error.message == "gas sponsorship limit of $0 reached for the current window"
    assert emu.get_gas_usage()["usageUsd"] == "0"


def test_a_policy_sees_the_send_as_eth_tx(world):
    emu, (alice, _) = world
    emu.chains.fund(BASE, alice, ONE_ETH)
    _, key = add_user(emu, "sender")
    emu.create_policy(
        policy_name="only to the recipient",
        effect="EFFECT_ALLOW",
        condition=f"eth.tx.to == '{RECIPIENT}' && eth.tx.value < 100 && eth.tx.chain_id == 8453",
        notes="",
    )
    allowed = emu.eth_send_transaction(
        from_=alice, caip2=BASE, calls=[{"to": RECIPIENT, "value": "99"}], caller=key
    )
    assert status(emu, allowed["sendTransactionStatusId"])["txStatus"] == "INCLUDED"
    nonce = emu.chains.evm(BASE).nonce(alice)
    for call in ({"to": RECIPIENT, "value": "100"}, {"to": "0x" + "33" * 20, "value": "1"}):
        error = fails(
            emu, emu.eth_send_transaction, from_=alice, caip2=BASE, calls=[call], caller=key
        )
        assert error.status == 403
    batch = [{"to": RECIPIENT, "value": "1"}, {"to": RECIPIENT, "value": "1"}]
    assert (
        fails(
            emu, emu.eth_send_transaction, from_=alice, caip2=BASE, calls=batch, caller=key
        ).status
        == 403
    )
    assert emu.chains.evm(BASE).nonce(alice) == nonce  # nothing was sent


def test_undelegation_sends_a_set_code_transaction(world):
    emu, (alice, _) = world
    emu.chains.fund(BASE, alice, ONE_ETH)
    node = emu.chains.evm(BASE)
    # a batch delegates the account to the gas station's contract (EIP-7702)
    batch = send(emu, alice, {"to": RECIPIENT, "value": "1"}, {"to": RECIPIENT, "value": "2"})
    assert status(emu, batch)["txStatus"] == "INCLUDED"
    delegate = emu.chains.delegates[BASE]
    assert node.code(alice) == bytes.fromhex("ef0100" + delegate[2:].lower())
    nonce = node.nonce(alice)
    done = emu.eth_undelegate_7702(from_=alice, caip2=BASE)
    answer = status(emu, done["sendTransactionStatusId"])
    assert answer["txStatus"] == "INCLUDED"
    tx = node.tester.get_transaction_by_hash(answer["eth"]["txHash"])
    assert tx["type"] == "0x4" and tx["authorization_list"][0]["address"] == "0x" + "00" * 20
    assert node.nonce(alice) == nonce + 2  # the transaction's and the authorization's
    assert node.code(alice) == b""


def test_balances_assets_and_bad_requests(world):
    emu, (alice, _) = world
    emu.chains.fund(BASE, alice, 5 * 10**17)
    (balance,) = emu.get_wallet_address_balances(address=alice, caip2=BASE)["balances"]
    assert balance == {
        "caip19": "eip155:8453/slip44:60",
        "symbol": "ETH",
        "name": "Ether",
        "decimals": 18,
        "balance": str(5 * 10**17),
        "display": {"usd": "1500.00", "crypto": "0.5"},
    }
    emu.chains.fund(BASE, alice, 0)
    assert emu.get_wallet_address_balances(address=alice, caip2=BASE)["balances"] == []
    assets = emu.list_supported_assets(caip2="eip155:137")["assets"]
    assert (assets[0]["caip19"], assets[0]["symbol"]) == ("eip155:137/slip44:966", "POL")
    error = fails(emu, emu.get_wallet_address_balances, address=RECIPIENT, caip2=BASE)
    assert error.status == 400
    error = fails(emu, emu.get_send_transaction_status, send_transaction_status_id="nope")
    assert error.status == 404
    error = fails(
        emu, emu.eth_send_transaction, from_=alice, caip2="eip155:999", calls=[{"to": RECIPIENT}]
    )
    assert error.status == 400
    error = fails(emu, emu.eth_send_transaction, from_=alice, caip2=BASE, calls=[])
    assert error.message == "calls must contain between 1 and 50 entries"
    error = fails(emu, emu.eth_send_transaction, from_=alice, caip2=BASE, calls=[{"to": "0x12"}])
    assert (error.status, error.message) == (
        400,
        "invalid calls[0].to: '0x12' is not an EVM address (0x and 40 hex digits)",
    )
    error = fails(emu, emu.get_nonces, address="0", caip2=BASE, nonce=True)
    assert error.status == 400


def test_the_official_python_sdk_sends_and_polls(world):
    pytest.importorskip("turnkey_http")
    from turnkey_sdk_types import EthSendTransactionBody, GetSendTransactionStatusBody

    emu, (alice, _) = world
    emu.chains.fund(BASE, alice, ONE_ETH)
    client = emu.client(emu.organization())
    with emu.intercept():
        sent = client.eth_send_transaction(
            EthSendTransactionBody(
                **{"from": alice}, caip2=BASE, calls=[{"to": RECIPIENT, "value": "7"}]
            )
        )
        status_id = sent.activity.result.ethSendTransactionResultV2.sendTransactionStatusId
        polled = client.get_send_transaction_status(
            GetSendTransactionStatusBody(sendTransactionStatusId=status_id)
        )
    assert polled.txStatus == "INCLUDED"
    assert emu.chains.evm(BASE).tester.get_transaction_by_hash(polled.eth.txHash)["value"] == 7


def test_send_statuses_survive_state_documents_and_snapshots(world):
    emu, (alice, _) = world
    emu.chains.fund(BASE, alice, 0)
    failed = send(emu, alice, {"to": RECIPIENT, "value": "1"})
    emu.chains.fund(BASE, alice, ONE_ETH)
    included = send(emu, alice, {"to": RECIPIENT, "value": "1"})
    expected = {sid: status(emu, sid) for sid in (failed, included)}
    loaded = Emulator.from_document(emu.to_document())
    for sid, answer in expected.items():
        again = loaded.get_send_transaction_status(send_transaction_status_id=sid)
        again.pop("activity")
        assert again == answer
    saved = emu.snapshot()
    emu.reset()
    emu.restore(saved)
    assert status(emu, included) == expected[included]


# runtime: CALLER PUSH1 0 SSTORE STOP (stores who called it in slot 0)
CALLER_RUNTIME = bytes.fromhex("3360005500")


def _deploy(emu, sender, runtime: bytes) -> str:
    from emulator.chains.evm_tx import unsigned_1559

    node = emu.chains.evm(BASE)
    unsigned = unsigned_1559(
        8453, node.nonce(sender), 10**9, 10**10, 300_000, None, 0, _deployment(runtime)
    )
    signed = emu.sign_transaction(
        sign_with=sender, unsigned_transaction=unsigned, type="TRANSACTION_TYPE_ETHEREUM"
    )["signedTransaction"]
    tx_hash = emu.eth_send_raw_transaction(signed_transaction=signed, caip2=BASE)["transactionHash"]
    return node.tester.get_transaction_receipt(tx_hash)["contract_address"]


def test_a_sponsored_call_runs_as_the_account_through_its_delegation():
    emu = Emulator(seed=41)
    emu.create_organization()
    deployer, erin = emu.create_wallet(
        wallet_name="w",
        accounts=[
            account_spec("ADDRESS_FORMAT_ETHEREUM"),
            account_spec("ADDRESS_FORMAT_ETHEREUM", 1),
        ],
    )["addresses"]
    emu.chains.fund(BASE, deployer, ONE_ETH)
    contract = _deploy(emu, deployer, CALLER_RUNTIME)
    node = emu.chains.evm(BASE)
    first = status(emu, send(emu, erin, {"to": contract}, sponsor=True))
    tx = node.tester.get_transaction_by_hash(first["eth"]["txHash"])
    assert tx["from"] == emu.chains.evm_sponsor_address and tx["to"] == erin
    assert tx["type"] == "0x4"  # the first time, the delegation rides along
    assert int(node.tester.get_storage_at(contract, "0x0"), 16) == int(erin, 16)
    second = status(emu, send(emu, erin, {"to": contract}, sponsor=True, gasStationNonce="1"))
    assert node.tester.get_transaction_by_hash(second["eth"]["txHash"])["type"] == "0x2"
    assert (
        emu.get_nonces(address=erin, caip2=BASE, gas_station_nonce=True)["gasStationNonce"] == "2"
    )
    assert node.tester.get_balance(erin) == 0  # never held any gas money


def test_a_batch_is_atomic_and_names_the_call_that_reverted():
    emu = Emulator(seed=42)
    emu.create_organization()
    (frank,) = emu.create_wallet(
        wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"]
    emu.chains.fund(BASE, frank, ONE_ETH)
    reverting = _deploy(emu, frank, _reverting_runtime("no thanks"))
    node = emu.chains.evm(BASE)
    before = node.tester.get_balance(RECIPIENT)
    answer = status(emu, send(emu, frank, {"to": RECIPIENT, "value": "5"}, {"to": reverting}))
    assert answer["txStatus"] == "INCLUDED"
    assert node.tester.get_transaction_receipt(answer["eth"]["txHash"])["status"] == 0
    assert node.tester.get_balance(RECIPIENT) == before  # the first call was undone too
    (entry,) = answer["error"]["revertChain"]
    assert entry["address"] == reverting and entry["displayMessage"] == "no thanks"
    done = status(
        emu, send(emu, frank, {"to": RECIPIENT, "value": "5"}, {"to": RECIPIENT, "value": "6"})
    )
    assert done["txStatus"] == "INCLUDED" and "error" not in done
    assert node.tester.get_balance(RECIPIENT) == before + 11


def test_send_statuses_are_journaled(tmp_path):
    from emulator.state.journal import Journal
    from emulator.state.persistence import StateFile

    emu = Emulator(seed=43)
    state = StateFile.create(tmp_path / "state.sqlite", emu.to_document())
    Journal(emu, state, compact_every=10**9).attach()
    emu.create_organization()
    (gina,) = emu.create_wallet(
        wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"]
    emu.chains.fund(BASE, gina, ONE_ETH)
    status_id = send(emu, gina, {"to": RECIPIENT, "value": "1"})
    expected = status(emu, status_id)
    reread = StateFile.open(tmp_path / "state.sqlite")
    try:
        document = reread.read()
    finally:
        reread.close()
    assert document == emu.to_document()
    again = Emulator.from_document(document, exact_order=False)
    answer = again.get_send_transaction_status(send_transaction_status_id=status_id)
    answer.pop("activity")
    assert answer == expected


def _token_runtime() -> bytes:
    """Runtime that logs an ERC-20 ``Transfer(caller, word 0, word 1)`` and stops."""
    topic = bytes.fromhex("ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")
    return (
        bytes.fromhex("602035600052")  # mstore(0, calldataload(32)): the amount
        + bytes.fromhex("600035")  # calldataload(0): the recipient (topic 2)
        + bytes.fromhex("33")  # caller (topic 1)
        + b"\x7f"
        + topic  # the event's signature (topic 0)
        + bytes.fromhex("60206000a300")  # log3(0, 32, ...), stop
    )


def test_the_history_shows_batch_and_token_transfers_on_both_sides():
    emu = Emulator(seed=44)
    emu.create_organization()
    hana, ivan = emu.create_wallet(
        wallet_name="w",
        accounts=[
            account_spec("ADDRESS_FORMAT_ETHEREUM"),
            account_spec("ADDRESS_FORMAT_ETHEREUM", 1),
        ],
    )["addresses"]
    emu.chains.fund(BASE, hana, ONE_ETH)
    token = _deploy(emu, hana, _token_runtime())
    data = "0x" + encode(["address", "uint256"], [ivan, 500]).hex()
    batch = send(emu, hana, {"to": ivan, "value": "7"}, {"to": token, "data": data}, sponsor=True)
    tx_hash = status(emu, batch)["eth"]["txHash"]
    logs = emu.chains.evm(BASE).tester.get_transaction_receipt(tx_hash)["logs"]
    assert [log["address"] for log in logs] == [token]
    newest = emu.list_eth_transaction_history(address=hana, caip2=BASE)["transactions"][0]
    assert newest["transactionHash"] == tx_hash and newest["turnkey"]["sponsored"] is True
    assert newest["from"] == emu.chains.evm_sponsor_address  # the gas station sent it
    assert [
        (t["direction"], t["amount"], t["counterparty"], "asset" in t) for t in newest["transfers"]
    ] == [
        ("OUT", "7", ivan, True),
        ("OUT", "500", ivan, False),  # a token the emulator cannot name: no asset
    ]
    (received,) = emu.list_eth_transaction_history(address=ivan, caip2=BASE)["transactions"]
    assert [(t["direction"], t["amount"], t["counterparty"]) for t in received["transfers"]] == [
        ("IN", "7", hana),
        ("IN", "500", hana),
    ]
    page = emu.list_eth_transaction_history(
        address=hana, caip2=BASE, pagination_options={"limit": "1"}
    )
    assert len(page["transactions"]) == 1 and page["pageInfo"]["hasNextPage"] is True
    rest = emu.list_eth_transaction_history(
        address=hana, caip2=BASE, pagination_options={"after": page["pageInfo"]["endCursor"]}
    )
    assert [t["transactionHash"] for t in rest["transactions"]] != [tx_hash]
    assert rest["pageInfo"]["hasPreviousPage"] is True


def test_the_same_body_twice_is_one_activity_and_one_transaction():
    emu = Emulator(seed=45)
    emu.create_organization()
    key = emu.create_private_keys(
        private_keys=[
            {
                "privateKeyName": "hot key",
                "curve": "CURVE_SECP256K1",
                "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
                "privateKeyTags": [],
            }
        ]
    )["privateKeys"][0]
    (address,) = [a["address"] for a in key["addresses"]]
    emu.chains.fund(BASE, address, ONE_ETH)  # a private key's address sends as well
    call = [{"to": RECIPIENT, "value": "3"}]
    when = emu.clock.now_ms()
    first = emu.eth_send_transaction(from_=address, caip2=BASE, calls=call, timestamp_ms=when)
    again = emu.eth_send_transaction(from_=address, caip2=BASE, calls=call, timestamp_ms=when)
    assert first["activity"]["id"] == again["activity"]["id"]
    assert first["sendTransactionStatusId"] == again["sendTransactionStatusId"]
    assert emu.chains.evm(BASE).nonce(address) == 1


def test_a_send_that_needs_two_approvals_broadcasts_on_the_second():
    emu = Emulator(seed=46)
    emu.create_organization()
    (jill,) = emu.create_wallet(
        wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"]
    emu.chains.fund(BASE, jill, ONE_ETH)
    (_, alice), (_, bob) = add_user(emu, "alice"), add_user(emu, "bob")
    emu.create_policy(
        policy_name="two to send",
        effect="EFFECT_ALLOW",
        condition="activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'",
        consensus="approvers.count() >= 2",
        notes="",
    )
    node = emu.chains.evm(BASE)
    proposal = emu.eth_send_transaction(
        from_=jill, caip2=BASE, calls=[{"to": RECIPIENT, "value": "8"}], caller=alice
    )["activity"]
    assert proposal["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    assert node.nonce(jill) == 0  # nothing broadcast yet
    done = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=bob)["activity"]
    assert done["status"] == "ACTIVITY_STATUS_COMPLETED"
    status_id = done["result"]["ethSendTransactionResultV2"]["sendTransactionStatusId"]
    answer = status(emu, status_id)
    assert answer["txStatus"] == "INCLUDED"
    assert node.tester.get_transaction_by_hash(answer["eth"]["txHash"])["value"] == 8
