"""The same sends to a real node: a local Anvil named by ``Settings.chain_rpc_urls`` (skipped
where Anvil cannot be installed). The node is read back with plain JSON-RPC."""

from __future__ import annotations

import json
import urllib.request

import pytest

from emulator import Emulator, Settings
from emulator.accounts import account_spec

from .anvil_node import anvil

BASE = "eip155:8453"
RECIPIENT = "0x" + "44" * 20


def rpc(url: str, method: str, *params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})
    request = urllib.request.Request(url, body.encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["result"]


@pytest.fixture(scope="module")
def node():
    with anvil(8453) as url:
        yield url


def test_sends_go_to_the_node(node):
    emu = Emulator(seed=21, settings=Settings(chain_rpc_urls={BASE: node}))
    emu.create_organization()
    (alice,) = emu.create_wallet(
        wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"]
    emu.chains.fund(BASE, alice, 10**18)  # anvil_setBalance
    assert emu.chains.evm(BASE).kind == "rpc"
    assert int(rpc(node, "eth_getBalance", alice, "latest"), 16) == 10**18
    done = emu.eth_send_transaction(
        from_=alice, caip2=BASE, calls=[{"to": RECIPIENT, "value": "77"}]
    )
    answer = emu.get_send_transaction_status(
        send_transaction_status_id=done["sendTransactionStatusId"]
    )
    assert answer["txStatus"] == "INCLUDED"
    receipt = rpc(node, "eth_getTransactionReceipt", answer["eth"]["txHash"])
    assert receipt["status"] == "0x1" and receipt["from"].lower() == alice.lower()
    assert int(rpc(node, "eth_getBalance", RECIPIENT, "latest"), 16) == 77
    nonces = emu.get_nonces(address=alice, caip2=BASE, nonce=True)
    assert nonces["nonce"] == str(int(rpc(node, "eth_getTransactionCount", alice, "latest"), 16))
    # sponsored: the sender pays nothing but the value
    before = int(rpc(node, "eth_getBalance", alice, "latest"), 16)
    sponsored = emu.eth_send_transaction(
        from_=alice, caip2=BASE, sponsor=True, calls=[{"to": RECIPIENT, "value": "3"}]
    )
    status = emu.get_send_transaction_status(
        send_transaction_status_id=sponsored["sendTransactionStatusId"]
    )
    assert status["txStatus"] == "INCLUDED"
    assert int(rpc(node, "eth_getBalance", alice, "latest"), 16) == before - 3
    (newest, _) = emu.list_eth_transaction_history(address=alice, caip2=BASE)["transactions"]
    assert newest["transactionHash"] == status["eth"]["txHash"] and newest["turnkey"]["sponsored"]


def test_the_nodes_refusal_is_the_status_error(node):
    emu = Emulator(seed=22, settings=Settings(chain_rpc_urls={BASE: node}))
    emu.create_organization()
    (bob,) = emu.create_wallet(
        wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM", 3)]
    )["addresses"]
    done = emu.eth_send_transaction(from_=bob, caip2=BASE, calls=[{"to": RECIPIENT, "value": "1"}])
    answer = emu.get_send_transaction_status(
        send_transaction_status_id=done["sendTransactionStatusId"]
    )
    assert answer["txStatus"] == "FAILED"
    assert "insufficient funds" in answer["error"]["message"].lower()


def test_serve_sends_to_the_node_it_is_given(node):
    """``serve --chain-rpc``: the official Python SDK over HTTP sends; Anvil has it."""
    pytest.importorskip("turnkey_http")
    from turnkey_sdk_types import (
        CreateWalletBody,
        EthSendTransactionBody,
        GetSendTransactionStatusBody,
    )

    from .test_cli import start

    process, info = start("--chain-rpc", f"{BASE}={node}", "--chain-block-time", "0")
    try:
        from turnkey_api_key_stamper import ApiKeyStamper, ApiKeyStamperConfig
        from turnkey_http import TurnkeyClient

        client = TurnkeyClient(
            base_url=info["baseUrl"],
            stamper=ApiKeyStamper(ApiKeyStamperConfig(info["apiPublicKey"], info["apiPrivateKey"])),
            organization_id=info["organizationId"],
        )
        made = client.create_wallet(
            CreateWalletBody(walletName="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM", 7)])
        )
        (address,) = made.activity.result.createWalletResult.addresses
        rpc(node, "anvil_setBalance", address, hex(10**18))
        sent = client.eth_send_transaction(
            EthSendTransactionBody(
                **{"from": address}, caip2=BASE, calls=[{"to": RECIPIENT, "value": "5"}]
            )
        )
        status_id = sent.activity.result.ethSendTransactionResultV2.sendTransactionStatusId
        status = client.get_send_transaction_status(
            GetSendTransactionStatusBody(sendTransactionStatusId=status_id)
        )
        assert status.txStatus == "INCLUDED"
        tx = rpc(node, "eth_getTransactionByHash", status.eth.txHash)
        assert tx["from"].lower() == address.lower() and int(tx["value"], 16) == 5
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_serve_refuses_a_malformed_chain_option():
    from .test_cli import serve_fails

    assert "--chain-rpc wants CAIP2=URL" in serve_fails("--port", "0", "--chain-rpc", "eip155:1")
    assert "is not a network Turnkey broadcasts to" in serve_fails(
        "--port", "0", "--chain-rpc", "eip155:999=http://127.0.0.1:1"
    )
