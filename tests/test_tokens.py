"""The token layer: ERC-20s and SPL mints at their real addresses on the embedded chains,
written on first use, funded through ``emu.chains.fund`` and ``POST /emulator/v1/chains/fund``,
moved by real transactions, listed by ``get_wallet_address_balances``. Every balance is read
back with a client other than the one that wrote it: eth-tester's ``call`` (``balanceOf``,
``name``, ``totalSupply``) and solders' ``TokenAccount`` / ``Mint`` decoders."""

from __future__ import annotations

import struct
from collections.abc import Iterator

import pytest

pytest.importorskip("eth_tester")
pytest.importorskip("solders.litesvm")

import requests
from eth_abi import decode, encode
from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.message import Message
from solders.pubkey import Pubkey
from solders.token.associated import get_associated_token_address
from solders.token.state import Mint, TokenAccount
from solders.transaction import Transaction

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.chains import tokens
from emulator.chains.tokens import UnknownAsset
from emulator.crypto.hashing import keccak256
from emulator.http.control import Control
from emulator.http.server import serving

BASE = "eip155:8453"
BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
USDC = f"{BASE}/erc20:{BASE_USDC}"
WETH = f"{BASE}/erc20:0x4200000000000000000000000000000000000006"
SOLANA = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
SOL_USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
SOL_USDC = f"{SOLANA}/token:{SOL_USDC_MINT}"
TOKEN_PROGRAM = Pubkey.from_string("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")
OTHER = "0x" + "33" * 20


@pytest.fixture
def world():
    emu = Emulator(seed=21)
    emu.create_organization("Tokens")
    wallet = emu.create_wallet(
        wallet_name="hot",
        accounts=[
            account_spec("ADDRESS_FORMAT_ETHEREUM"),
            account_spec("ADDRESS_FORMAT_SOLANA"),
            account_spec("ADDRESS_FORMAT_SOLANA", 1),
        ],
    )
    return emu, wallet["addresses"]


def eth_call(emu, to: str, signature: str, types=(), args=()) -> bytes:
    """``eth_call`` through eth-tester's own API (from the funded gas station account)."""
    data = keccak256(signature.encode())[:4] + encode(list(types), list(args))
    request = {"from": emu.chains.evm_sponsor_address, "to": to, "data": "0x" + data.hex()}
    return bytes.fromhex(emu.chains.evm(BASE).tester.call(request)[2:])


def balance_of(emu, holder: str) -> int:
    return decode(
        ["uint256"], eth_call(emu, BASE_USDC, "balanceOf(address)", ["address"], [holder])
    )[0]


def spl_account(emu, owner: str) -> TokenAccount:
    ata = get_associated_token_address(Pubkey.from_string(owner), Pubkey.from_string(SOL_USDC_MINT))
    account = emu.chains.solana(SOLANA).svm.get_account(ata)
    return TokenAccount.from_bytes(bytes(account.data))


def test_the_catalog_names_real_addresses():
    asset = tokens.parse(f"{BASE}/erc20:{BASE_USDC.lower()}")
    assert (asset.caip19, asset.symbol, asset.decimals, asset.stable) == (USDC, "USDC", 6, True)
    assert tokens.parse(f"{SOLANA}/spl:{SOL_USDC_MINT}").caip19 == SOL_USDC
    assert tokens.parse("solana:mainnet/slip44:501").token is None
    assert {t.symbol for t in tokens.tokens_of(BASE)} >= {"USDC", "USDT", "WETH"}
    for bad in (
        "eip155:8453",
        "eip155:8453/erc20:0x" + "12" * 20,
        "eip155:999/slip44:60",
        "eip155:8453/slip44:501",
        f"{SOLANA}/erc20:{SOL_USDC_MINT}",
        7,
    ):
        with pytest.raises(UnknownAsset):
            tokens.parse(bad)


def test_an_erc20_is_written_on_first_use_and_funded(world):
    emu, (alice, _, _) = world
    node = emu.chains.evm(BASE)
    assert node.tester.get_code(BASE_USDC) in ("0x", b"", "0x0")  # nothing there before
    emu.chains.fund(USDC, alice, 250_000_000)
    assert decode(["string"], eth_call(emu, BASE_USDC, "name()"))[0] == "USD Coin"
    assert decode(["string"], eth_call(emu, BASE_USDC, "symbol()"))[0] == "USDC"
    assert decode(["uint8"], eth_call(emu, BASE_USDC, "decimals()"))[0] == 6
    assert balance_of(emu, alice) == 250_000_000
    emu.chains.fund(USDC, OTHER, 5)
    emu.chains.fund(USDC, alice, 100)  # funding sets the balance; the supply follows
    assert balance_of(emu, alice) == 100
    assert decode(["uint256"], eth_call(emu, BASE_USDC, "totalSupply()"))[0] == 105


def test_a_wallet_moves_its_tokens_with_a_real_transaction(world):
    emu, (alice, _, _) = world
    emu.chains.fund(BASE, alice, 10**18)
    emu.chains.fund(USDC, alice, 7_000_000)
    data = keccak256(b"transfer(address,uint256)")[:4] + encode(
        ["address", "uint256"], [OTHER, 2_500_000]
    )
    done = emu.eth_send_transaction(
        from_=alice, caip2=BASE, calls=[{"to": BASE_USDC, "data": "0x" + data.hex()}]
    )
    status = emu.get_send_transaction_status(
        send_transaction_status_id=done["sendTransactionStatusId"]
    )
    assert status["txStatus"] == "INCLUDED"
    assert (balance_of(emu, alice), balance_of(emu, OTHER)) == (4_500_000, 2_500_000)
    (item,) = emu.list_eth_transaction_history(address=alice, caip2=BASE)["transactions"]
    (transfer,) = [t for t in item["transfers"] if t.get("asset", {}).get("symbol") == "USDC"]
    assert transfer["amount"] == "2500000" and transfer["display"] == {
        "crypto": "2.5",
        "usd": "2.50",
    }
    # more than it holds: the token refuses, and nothing moves
    too_much = keccak256(b"transfer(address,uint256)")[:4] + encode(
        ["address", "uint256"], [OTHER, 10**12]
    )
    done = emu.eth_send_transaction(
        from_=alice, caip2=BASE, calls=[{"to": BASE_USDC, "data": "0x" + too_much.hex()}]
    )
    status = emu.get_send_transaction_status(
        send_transaction_status_id=done["sendTransactionStatusId"]
    )
    assert status["txStatus"] == "INCLUDED"  # mined and reverted, as the API reports it
    receipt = emu.chains.evm(BASE).tester.get_transaction_receipt(status["eth"]["txHash"])
    assert receipt["status"] == 0
    assert (
        status["txError"] == "Execution reverted on chain: ERC20: transfer amount exceeds balance"
    )
    assert balance_of(emu, alice) == 4_500_000


def test_balances_list_tokens_read_from_the_chain(world):
    emu, (alice, _, _) = world
    assert emu.get_wallet_address_balances(address=alice, caip2=BASE)["balances"] == []
    emu.chains.fund(BASE, alice, 10**17)
    emu.chains.fund(USDC, alice, 12_340_000)
    emu.chains.fund(WETH, alice, 0)
    balances = emu.get_wallet_address_balances(address=alice, caip2=BASE)["balances"]
    assert balances == [
        {
            "caip19": "eip155:8453/slip44:60",
            "symbol": "ETH",
            "name": "Ether",
            "decimals": 18,
            "balance": str(10**17),
            "display": {"usd": "300.00", "crypto": "0.1"},
        },
        {
            "caip19": USDC,
            "symbol": "USDC",
            "name": "USD Coin",
            "decimals": 6,
            "balance": "12340000",
            "display": {"usd": "12.34", "crypto": "12.34"},
        },
    ]
    assets = emu.list_supported_assets(caip2=BASE)["assets"]
    flags = {a["symbol"]: a["stable"] for a in assets}
    assert flags["ETH"] is False and flags["USDC"] is True and flags["WETH"] is False
    assert next(a for a in assets if a["symbol"] == "USDC")["caip19"] == USDC


def test_an_spl_mint_is_written_and_funded(world):
    emu, (_, sol_a, _) = world
    emu.chains.fund(SOL_USDC, sol_a, 9_000_000)
    account = spl_account(emu, sol_a)
    assert (str(account.mint), str(account.owner), account.amount) == (
        SOL_USDC_MINT,
        sol_a,
        9_000_000,
    )
    svm = emu.chains.solana(SOLANA).svm
    mint = Mint.from_bytes(bytes(svm.get_account(Pubkey.from_string(SOL_USDC_MINT)).data))
    assert (mint.decimals, mint.supply, mint.mint_authority) == (6, 9_000_000, None)
    (balance,) = [
        b
        for b in emu.get_wallet_address_balances(address=sol_a, caip2=SOLANA)["balances"]
        if b["symbol"] == "USDC"
    ]
    assert (balance["caip19"], balance["balance"]) == (SOL_USDC, "9000000")


def test_the_token_program_moves_funded_tokens(world):
    emu, (_, sol_a, sol_b) = world
    emu.chains.fund(SOLANA, sol_a, 10**9)
    emu.chains.fund(SOL_USDC, sol_a, 5_000_000)
    emu.chains.fund(SOL_USDC, sol_b, 0)  # its token account exists, empty
    mint = Pubkey.from_string(SOL_USDC_MINT)
    owner = Pubkey.from_string(sol_a)
    source = get_associated_token_address(owner, mint)
    target = get_associated_token_address(Pubkey.from_string(sol_b), mint)
    instruction = Instruction(
        TOKEN_PROGRAM,
        bytes([3]) + struct.pack("<Q", 1_250_000),  # the Token program's Transfer
        [
            AccountMeta(source, False, True),
            AccountMeta(target, False, True),
            AccountMeta(owner, True, False),
        ],
    )
    blockhash = Hash.from_string(emu.chains.solana(SOLANA).latest_blockhash())
    unsigned = bytes(
        Transaction.new_unsigned(Message.new_with_blockhash([instruction], owner, blockhash))
    )
    done = emu.sol_send_transaction(
        unsigned_transaction=unsigned.hex(), sign_withs=[sol_a], caip2=SOLANA
    )
    status = emu.get_send_transaction_status(
        send_transaction_status_id=done["sendTransactionStatusId"]
    )
    assert status["txStatus"] == "INCLUDED"
    assert (spl_account(emu, sol_a).amount, spl_account(emu, sol_b).amount) == (
        3_750_000,
        1_250_000,
    )


@pytest.fixture
def served(world) -> Iterator[tuple[Emulator, str, list[str]]]:
    emu, addresses = world
    with serving(emu.world, control=Control(emu)) as url:
        yield emu, url, addresses


def fund(url: str, body) -> tuple[int, dict]:
    answer = requests.post(f"{url}/emulator/v1/chains/fund", json=body, timeout=30)
    return answer.status_code, answer.json()


def test_the_control_plane_funds_any_asset(served):
    emu, url, (alice, sol_a, _) = served
    assert fund(url, {"caip19": USDC, "address": alice, "amount": "42000000"}) == (
        200,
        {"caip19": USDC, "address": alice, "balance": "42000000"},
    )
    assert balance_of(emu, alice) == 42_000_000
    native = "eip155:8453/slip44:60"
    assert fund(url, {"caip19": native, "address": alice, "amount": str(10**18)})[1][
        "balance"
    ] == str(10**18)
    assert emu.chains.evm(BASE).tester.get_balance(alice) == 10**18
    assert (
        fund(url, {"caip19": f"{SOLANA}/spl:{SOL_USDC_MINT}", "address": sol_a, "amount": "7"})[1][
            "caip19"
        ]
        == SOL_USDC
    )
    assert spl_account(emu, sol_a).amount == 7


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "caip19 (an asset) or caip2 (a network's native asset) is required"),
        (
            {"caip19": "eip155:8453/erc20:0x" + "12" * 20, "address": OTHER, "amount": "1"},
            "unsupported asset: eip155:8453/erc20:0x" + "12" * 20,
        ),
        (
            {"caip19": USDC, "address": "0x1234", "amount": "1"},
            "invalid address for eip155:8453: '0x1234'",
        ),
        (
            {"caip19": SOL_USDC, "address": OTHER, "amount": "1"},
            f"invalid address for {SOLANA}: '{OTHER}'",
        ),
        (
            {"caip19": USDC, "address": OTHER, "amount": 5},
            "amount must be a string of base units (digits only)",
        ),
        (
            {"caip19": USDC, "address": OTHER, "amount": "-5"},
            "amount must be a string of base units (digits only)",
        ),
        (
            {"caip19": USDC, "address": OTHER, "amount": "1.5"},
            "amount must be a string of base units (digits only)",
        ),
        (
            {"caip19": USDC, "address": OTHER, "amount": "15\n"},
            "amount must be a string of base units (digits only)",
        ),
        (
            {
                "caip19": SOL_USDC,
                "address": "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
                "amount": str(2**64),
            },
            f"amount exceeds the largest balance of {SOL_USDC}",
        ),
    ],
)
def test_bad_funding_is_refused_in_the_error_shape(served, body, message):
    emu, url, _ = served
    status, answer = fund(url, body)
    assert status == 400
    assert answer == {
        "code": 3,
        "message": f"bad control request: {message}",
        "details": [],
        "turnkeyErrorCode": "",
    }
    assert balance_of(emu, OTHER) == 0 if emu.chains.tokens_deployed else True
