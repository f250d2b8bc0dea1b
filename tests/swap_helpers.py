"""Shared pieces of the swap tests: the assets, a funded world, independent balance reads."""

from __future__ import annotations

from fractions import Fraction

from eth_abi import decode, encode
from solders.pubkey import Pubkey
from solders.token.associated import get_associated_token_address
from solders.token.state import TokenAccount

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.crypto.hashing import keccak256

BASE = "eip155:8453"
ARBITRUM = "eip155:42161"
SOLANA = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
USDC = f"{BASE}/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
USDT = f"{BASE}/erc20:0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2"
WETH = f"{BASE}/erc20:0x4200000000000000000000000000000000000006"
ETH = f"{BASE}/slip44:60"
ARB_USDC = f"{ARBITRUM}/erc20:0xaf88d065e77c8cC2239327C5EDb3A432268e5831"
SOL = f"{SOLANA}/slip44:501"
SOL_USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
SOL_USDC = f"{SOLANA}/token:{SOL_USDC_MINT}"
ONE_ETH = 10**18
HUNDRED_USDC = 100_000_000


def new_world(seed: int = 61, settings=None):
    """An organization with a wallet (two Ethereum accounts, one Solana), funded with gas."""
    emu = Emulator(seed=seed, settings=settings)
    emu.create_organization("Swaps")
    emu.clock.freeze()
    wallet = emu.create_wallet(
        wallet_name="trader",
        accounts=[
            account_spec("ADDRESS_FORMAT_ETHEREUM"),
            account_spec("ADDRESS_FORMAT_ETHEREUM", 1),
            account_spec("ADDRESS_FORMAT_SOLANA"),
        ],
    )
    alice, bob, sol = wallet["addresses"]
    emu.chains.fund(BASE, alice, ONE_ETH)
    return emu, alice, bob, sol


def erc20_balance(emu, caip19: str, holder: str) -> int:
    """``balanceOf`` through eth-tester's own ``call`` (an independent client)."""
    caip2, _, token = caip19.partition("/erc20:")
    data = keccak256(b"balanceOf(address)")[:4] + encode(["address"], [holder])
    request = {"from": emu.chains.evm_sponsor_address, "to": token, "data": "0x" + data.hex()}
    out = emu.chains.evm(caip2).tester.call(request)
    if out in ("0x", b""):
        return 0  # no code at the address: the token was never written on this chain
    return decode(["uint256"], bytes.fromhex(out[2:]))[0]


def native_balance(emu, caip2: str, holder: str) -> int:
    return int(emu.chains.evm(caip2).tester.get_balance(holder))


def spl_balance(emu, mint: str, owner: str) -> int:
    """The owner's associated token account, decoded by solders (0 if it has none)."""
    ata = get_associated_token_address(Pubkey.from_string(owner), Pubkey.from_string(mint))
    account = emu.chains.solana(SOLANA).svm.get_account(ata)
    return 0 if account is None else TokenAccount.from_bytes(bytes(account.data)).amount


def lamports(emu, owner: str) -> int:
    return int(emu.chains.solana(SOLANA).svm.get_balance(Pubkey.from_string(owner)) or 0)


def expected_output(
    amount_in: int,
    price_in: Fraction,
    decimals_in: int,
    price_out: Fraction,
    decimals_out: int,
    fee_bps: int,
) -> int:
    """The quote's output computed apart from the emulator: value at the prices, less fees."""
    gross = Fraction(amount_in, 10**decimals_in) * price_in / price_out * 10**decimals_out
    return int(gross * (10_000 - fee_bps) / 10_000)


def quote(emu, sign_with: str, token_in: str, token_out: str, amount: int, **extra):
    return emu.create_swap_quote(
        sign_with=sign_with,
        input_token=token_in,
        output_token=token_out,
        input_amount=str(amount),
        **extra,
    )["quotes"][0]


def execute(emu, q: dict, token_in: str, token_out: str, amount: int, sponsor=False, **extra):
    return emu.execute_swap(
        quote_id=q["quoteId"],
        input_token=token_in,
        output_token=token_out,
        input_amount=str(amount),
        quoted_output_amount=q["outputAmount"],
        min_output_amount=q["minOutputAmount"],
        sponsor=sponsor,
        **extra,
    )


def status(emu, swap_request_id: str) -> dict:
    answer = emu.get_swap_status(swap_request_id=swap_request_id)
    answer.pop("activity", None)
    return answer
