"""SPL token transfers sent through the emulator on the embedded Solana runtime: the SPL Token
program (LiteSVM ships it) moves the tokens, the policy engine sees ``solana.tx.spl_transfers``."""

from __future__ import annotations

import struct

import pytest

pytest.importorskip("solders.litesvm")

from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.message import Message
from solders.pubkey import Pubkey
from solders.system_program import CreateAccountParams, create_account
from solders.token.state import TokenAccount
from solders.transaction import Transaction

from emulator import Emulator
from emulator.accounts import account_spec

from .helpers import add_user, fails

DEVNET = "solana:devnet"
TOKEN_PROGRAM = Pubkey.from_string("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")
MINT_SIZE, ACCOUNT_SIZE = 82, 165


def _token(data: bytes, *accounts: tuple[Pubkey, bool, bool]) -> Instruction:
    metas = [AccountMeta(key, is_signer=s, is_writable=w) for key, s, w in accounts]
    return Instruction(TOKEN_PROGRAM, data, metas)


def _send_directly(svm, payer: Keypair, instructions, *signers: Keypair) -> None:
    blockhash = svm.latest_blockhash()
    message = Message.new_with_blockhash(instructions, payer.pubkey(), blockhash)
    result = svm.send_transaction(Transaction([payer, *signers], message, blockhash))
    assert not hasattr(result, "err"), result


def _new_account(svm, payer: Keypair, size: int) -> tuple[Keypair, Instruction]:
    account = Keypair()
    lamports = svm.minimum_balance_for_rent_exemption(size)
    return account, create_account(
        CreateAccountParams(
            from_pubkey=payer.pubkey(),
            to_pubkey=account.pubkey(),
            lamports=lamports,
            space=size,
            owner=TOKEN_PROGRAM,
        )
    )


@pytest.fixture
def token_world():
    """A mint of 6 decimals and a token account each for alice and bob (alice holds 1,000,000)."""
    emu = Emulator(seed=51)
    emu.create_organization()
    alice, bob = emu.create_wallet(
        wallet_name="sol",
        accounts=[account_spec("ADDRESS_FORMAT_SOLANA"), account_spec("ADDRESS_FORMAT_SOLANA", 1)],
    )["addresses"]
    emu.chains.fund(DEVNET, alice, 10**9)
    svm = emu.chains.solana(DEVNET).svm
    payer = Keypair()
    svm.airdrop(payer.pubkey(), 10**10)
    mint, create_mint = _new_account(svm, payer, MINT_SIZE)
    # InitializeMint2: decimals 6, the payer as mint authority, no freeze authority
    init_mint = _token(
        bytes([20, 6]) + bytes(payer.pubkey()) + b"\x00", (mint.pubkey(), False, True)
    )
    _send_directly(svm, payer, [create_mint, init_mint], mint)
    holdings = {}
    for owner in (alice, bob):
        account, create = _new_account(svm, payer, ACCOUNT_SIZE)
        # InitializeAccount3: the owner in the data
        init = _token(
            bytes([18]) + bytes(Pubkey.from_string(owner)),
            (account.pubkey(), False, True),
            (mint.pubkey(), False, False),
        )
        _send_directly(svm, payer, [create, init], account)
        holdings[owner] = account.pubkey()
    mint_to = _token(
        bytes([7]) + struct.pack("<Q", 1_000_000),
        (mint.pubkey(), False, True),
        (holdings[alice], False, True),
        (payer.pubkey(), True, False),
    )
    _send_directly(svm, payer, [mint_to])
    return emu, alice, bob, mint.pubkey(), holdings


def _amount(svm, account: Pubkey) -> int:
    return TokenAccount.from_bytes(bytes(svm.get_account(account).data)).amount


def _transfer(emu, alice, mint, source, destination, amount: int) -> str:
    runtime = emu.chains.solana(DEVNET)
    owner = Pubkey.from_string(alice)
    # TransferChecked: amount, decimals; source, mint, destination, owner (signer)
    instruction = _token(
        bytes([12]) + struct.pack("<Q", amount) + bytes([6]),
        (source, False, True),
        (mint, False, False),
        (destination, False, True),
        (owner, True, False),
    )
    message = Message.new_with_blockhash(
        [instruction], owner, Hash.from_string(runtime.latest_blockhash())
    )
    return bytes(Transaction.new_unsigned(message)).hex()


def test_an_spl_transfer_moves_the_tokens(token_world):
    emu, alice, bob, mint, holdings = token_world
    unsigned = _transfer(emu, alice, mint, holdings[alice], holdings[bob], 250_000)
    done = emu.sol_send_transaction(unsigned_transaction=unsigned, sign_withs=[alice], caip2=DEVNET)
    status = emu.get_send_transaction_status(
        send_transaction_status_id=done["sendTransactionStatusId"]
    )
    assert status["txStatus"] == "INCLUDED"
    svm = emu.chains.solana(DEVNET).svm
    assert _amount(svm, holdings[alice]) == 750_000
    assert _amount(svm, holdings[bob]) == 250_000


def test_too_many_tokens_fail_the_preflight(token_world):
    emu, alice, bob, mint, holdings = token_world
    unsigned = _transfer(emu, alice, mint, holdings[alice], holdings[bob], 2_000_000)
    done = emu.sol_send_transaction(unsigned_transaction=unsigned, sign_withs=[alice], caip2=DEVNET)
    status = emu.get_send_transaction_status(
        send_transaction_status_id=done["sendTransactionStatusId"]
    )
    assert status["txStatus"] == "FAILED"
    assert any("insufficient funds" in line for line in status["error"]["solana"]["logs"])
    assert _amount(emu.chains.solana(DEVNET).svm, holdings[alice]) == 1_000_000


def test_a_policy_limits_spl_transfers(token_world):
    emu, alice, bob, mint, holdings = token_world
    _, key = add_user(emu, "payer")
    emu.create_policy(
        policy_name="small token transfers",
        effect="EFFECT_ALLOW",
        condition=f"solana.tx.spl_transfers.all(t, t.amount <= 100000 && t.token_mint == '{mint}')",
        notes="",
    )
    small = _transfer(emu, alice, mint, holdings[alice], holdings[bob], 100_000)
    done = emu.sol_send_transaction(
        unsigned_transaction=small, sign_withs=[alice], caip2=DEVNET, caller=key
    )
    assert done["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    large = _transfer(emu, alice, mint, holdings[alice], holdings[bob], 100_001)
    error = fails(
        emu,
        emu.sol_send_transaction,
        unsigned_transaction=large,
        sign_withs=[alice],
        caip2=DEVNET,
        caller=key,
    )
    assert error.status == 403
    assert _amount(emu.chains.solana(DEVNET).svm, holdings[bob]) == 100_000
