"""Tokens on the embedded chains: writing them there, funding holders, reading balances.

EVM: the ``EmulatorToken`` ERC-20 (``contracts/EmulatorToken.sol``) is written at the token's
real address the first time the token is used, as Anvil's ``setCode`` does, with its name,
symbol and decimals in their storage slots. Funding writes the holder's balance slot and the
total supply (Anvil's ``setStorageAt``; Foundry's ``deal`` does the same). Balances are read
back with ``eth_call balanceOf``, as any client would.

Solana: the mint is an SPL Token program account at the real mint address (no mint or freeze
authority: supply only changes through the funding seam); a holder's tokens sit in its
associated token account. Both are written in the Token program's own layouts (82-byte mint,
165-byte account), so the Token program itself moves them in a transaction.

Funding *sets* a balance (as ``fund`` does for native assets) and keeps the supply the sum of
what was funded.
"""

from __future__ import annotations

import struct
from typing import Any

from eth_abi import encode

from ..crypto.hashing import keccak256
from . import contracts
from .tokens import Token

TOKEN_CONTRACT = "EmulatorToken"
TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
ASSOCIATED_TOKEN_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL"

# EmulatorToken's storage layout (the order of its state variables)
NAME_SLOT, SYMBOL_SLOT, DECIMALS_SLOT, SUPPLY_SLOT, BALANCES_SLOT, ALLOWANCES_SLOT = range(6)

TRANSFER = keccak256(b"transfer(address,uint256)")[:4]
APPROVE = keccak256(b"approve(address,uint256)")[:4]

MINT_SIZE = 82
ACCOUNT_SIZE = 165
_INITIALIZED = 1


# ----- EVM ---------------------------------------------------------------------------------


def _short_string(text: str) -> int:
    """A Solidity ``string`` under 32 bytes as its one storage word."""
    raw = text.encode()
    if len(raw) > 31:
        raise ValueError("token names and symbols here are under 32 bytes")
    return int.from_bytes(raw.ljust(31, b"\0") + bytes([len(raw) * 2]), "big")


def balance_slot(owner: str) -> int:
    key = bytes(12) + bytes.fromhex(owner[2:])
    return int.from_bytes(keccak256(key + BALANCES_SLOT.to_bytes(32, "big")), "big")


def deploy_erc20(node: Any, token: Token) -> None:
    """Write the token's code and metadata at its address (its balances untouched)."""
    node.write_account(
        token.address,
        contracts.runtime_code(TOKEN_CONTRACT),
        {
            NAME_SLOT: _short_string(token.name),
            SYMBOL_SLOT: _short_string(token.symbol),
            DECIMALS_SLOT: token.decimals,
        },
    )


def erc20_balance(node: Any, token: Token, owner: str) -> int:
    """The holder's balance, read from the token's balance slot (the contract's own layout;
    tests read it back through ``balanceOf`` as an independent client would)."""
    return int(node.storage(token.address, balance_slot(owner)))


def fund_erc20(node: Any, token: Token, owner: str, amount: int) -> None:
    current = erc20_balance(node, token, owner)
    supply = node.storage(token.address, SUPPLY_SLOT)
    node.write_account(
        token.address,
        None,
        {balance_slot(owner): amount, SUPPLY_SLOT: supply - current + amount},
    )


def transfer_data(to: str, amount: int) -> bytes:
    return TRANSFER + encode(["address", "uint256"], [to, amount])


def approve_data(spender: str, amount: int) -> bytes:
    return APPROVE + encode(["address", "uint256"], [spender, amount])


# ----- Solana ------------------------------------------------------------------------------


def associated_token_address(owner: str, mint: str) -> str:
    from solders.pubkey import Pubkey

    address, _ = Pubkey.find_program_address(
        [
            bytes(Pubkey.from_string(owner)),
            bytes(Pubkey.from_string(TOKEN_PROGRAM)),
            bytes(Pubkey.from_string(mint)),
        ],
        Pubkey.from_string(ASSOCIATED_TOKEN_PROGRAM),
    )
    return str(address)


def _none_option(size: int) -> bytes:
    return bytes(4 + size)  # COption::None: a zero tag and zeroed room for the value


def mint_data(decimals: int, supply: int) -> bytes:
    """The Token program's ``Mint``: no mint authority, supply, decimals, initialized, no
    freeze authority."""
    data = _none_option(32) + struct.pack("<QBB", supply, decimals, _INITIALIZED)
    return data + _none_option(32)


def token_account_data(mint: str, owner: str, amount: int) -> bytes:
    """The Token program's ``Account``: mint, owner, amount, no delegate, initialized, not
    native, nothing delegated, no close authority."""
    from solders.pubkey import Pubkey

    data = bytes(Pubkey.from_string(mint)) + bytes(Pubkey.from_string(owner))
    data += struct.pack("<Q", amount) + _none_option(32) + bytes([_INITIALIZED])
    data += _none_option(8) + struct.pack("<Q", 0) + _none_option(32)
    assert len(data) == ACCOUNT_SIZE
    return data


def deploy_mint(node: Any, token: Token) -> None:
    if node.account_data(token.address) is None:
        node.write_account(token.address, mint_data(token.decimals, 0), TOKEN_PROGRAM)


def spl_balance(node: Any, token: Token, owner: str) -> int:
    data = node.account_data(associated_token_address(owner, token.address))
    if data is None or len(data) < 72:
        return 0
    return int(struct.unpack_from("<Q", data, 64)[0])


def fund_spl(node: Any, token: Token, owner: str, amount: int) -> None:
    if amount >= 2**64:
        raise ValueError("an SPL amount is a u64")
    current = spl_balance(node, token, owner)
    mint = node.account_data(token.address) or mint_data(token.decimals, 0)
    supply = int(struct.unpack_from("<Q", mint, 36)[0]) - current + amount
    node.write_account(token.address, mint_data(token.decimals, supply), TOKEN_PROGRAM)
    node.write_account(
        associated_token_address(owner, token.address),
        token_account_data(token.address, owner, amount),
        TOKEN_PROGRAM,
    )
