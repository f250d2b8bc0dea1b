"""The policy view of a Solana transaction: ``solana.tx``.

A plain ``dict`` with the field names of the docs' Solana structs
(https://docs.turnkey.com/features/policies/language, "Nested structs"): the account keys, the
program keys, each instruction with its accounts and data, the lamport transfers of the System
Program and the SPL Token / Token-2022 transfers, the recent blockhash and the address table
lookups. Keys are base58, whose case is significant; ``instruction_data_hex`` is lowercase hex
without a prefix (the docs compare it with ``'09'``). Unparsable transactions raise the parser's
``TransactionError`` unchanged. The Ethereum views are in ``chains.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..crypto.base58 import base58_encode
from ..crypto.transactions.solana import SolanaMessage, parse_solana_transaction

# Turnkey's stand-in for an account loaded from an address lookup table ("Account address
# lookups": the addresses are not resolved).
ADDRESS_TABLE_LOOKUP = "ADDRESS_TABLE_LOOKUP"

SYSTEM_PROGRAM = "11111111111111111111111111111111"
TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"

# System Program instructions that move lamports between two given accounts:
# discriminant (u32 LE) -> (index of the sender account, index of the recipient account).
# Transfer is [from, to]; TransferWithSeed is [from (derived), base, to].
_SYSTEM_TRANSFERS = {2: (0, 1), 11: (0, 2)}

# SPL Token and Token-2022 transfers: instruction prefix -> (the data's minimum length, where
# its u64 amount starts, and the account indexes of source, mint (None: the instruction names
# none), destination and owner; any multisig signers follow the owner). Transfer is 3 + amount,
# TransferChecked 12 + amount + decimals, TransferCheckedWithFee (Token-2022 only) 26 1 + amount
# + decimals + fee. Like the token programs, trailing bytes are ignored.
_SplLayout = tuple[int, int, tuple[int, int | None, int, int]]
_SPL_LAYOUTS: dict[bytes, _SplLayout] = {
    b"\x03": (9, 1, (0, None, 1, 2)),
    b"\x0c": (10, 1, (0, 1, 2, 3)),
}
_SPL_2022_LAYOUTS = {**_SPL_LAYOUTS, b"\x1a\x01": (19, 2, (0, 1, 2, 3))}
_SPL_PROGRAMS = {TOKEN_PROGRAM: _SPL_LAYOUTS, TOKEN_2022_PROGRAM: _SPL_2022_LAYOUTS}


def solana_view(
    unsigned_transaction_hex: str,
    program_call: Callable[[str, bytes, list[str]], dict[str, Any] | None] | None = None,
) -> dict[str, Any]:
    """``solana.tx`` for a ``TRANSACTION_TYPE_SOLANA`` sign_transaction (legacy or v0).

    ``program_call(program, data, account keys)``, where given, answers an instruction's
    ``parsed_instruction_data`` through an uploaded IDL (``policy/idl.py``; ``None``: none).

    ``account_keys`` lists the static keys, then one ``ADDRESS_TABLE_LOOKUP`` per account a v0
    message loads from lookup tables (writable ones first, the order the runtime loads them).
    ``program_keys`` lists each program the instructions invoke, once, in order of first use.
    ``transfers`` and ``spl_transfers`` cover only top-level instructions, as the docs say:
    System Program ``Transfer`` / ``TransferWithSeed``, and SPL Token / Token-2022 ``Transfer``,
    ``TransferChecked`` and (Token-2022) ``TransferCheckedWithFee``; ``token_mint`` is ``''``
    for a plain ``Transfer``, which names no mint.
    """
    message = parse_solana_transaction(unsigned_transaction_hex)
    accounts = _accounts(message)
    keys = [account["account_key"] for account in accounts]
    origins = _lookup_origins(message)
    instructions = []
    program_keys: list[str] = []
    transfers = []
    spl_transfers = []
    for compiled in message.instructions:
        program = keys[compiled.program_id_index]
        if program not in program_keys:
            program_keys.append(program)
        involved = [keys[index] for index in compiled.accounts]
        instruction = {
            "program_key": program,
            "accounts": [dict(accounts[index]) for index in compiled.accounts],
            "instruction_data_hex": compiled.data.hex(),
            "address_table_lookups": _instruction_lookups(message, origins, compiled.accounts),
        }
        parsed = None if program_call is None else program_call(program, compiled.data, involved)
        if parsed is not None:
            instruction["parsed_instruction_data"] = parsed
        instructions.append(instruction)
        if program == SYSTEM_PROGRAM:
            transfer = _system_transfer(compiled.data, involved)
            if transfer is not None:
                transfers.append(transfer)
        elif program in _SPL_PROGRAMS:
            spl_transfer = _spl_transfer(_SPL_PROGRAMS[program], compiled.data, involved)
            if spl_transfer is not None:
                spl_transfers.append(spl_transfer)
    return {
        "account_keys": keys,
        "program_keys": program_keys,
        "instructions": instructions,
        "transfers": transfers,
        "recent_blockhash": base58_encode(message.recent_blockhash),
        "spl_transfers": spl_transfers,
        "address_table_lookups": [
            {
                "address_table_key": base58_encode(lookup.account_key),
                "writable_indexes": list(lookup.writable_indexes),
                "readonly_indexes": list(lookup.readonly_indexes),
            }
            for lookup in message.address_table_lookups
        ],
    }


def _accounts(message: SolanaMessage) -> list[dict[str, Any]]:
    """Every account the message can reference, as the docs' Account struct, by index.

    The message header decides: the first ``num_required_signatures`` keys sign, and of those
    the last ``num_readonly_signed_accounts`` are read-only; of the rest, the last
    ``num_readonly_unsigned_accounts`` are read-only. Lookup-table accounts never sign.
    """
    count = len(message.account_keys)
    signers = message.num_required_signatures
    writable_signers = signers - message.num_readonly_signed_accounts
    writable_end = count - message.num_readonly_unsigned_accounts
    accounts = [
        {
            "account_key": base58_encode(key),
            "signer": index < signers,
            "writable": index < writable_signers or signers <= index < writable_end,
        }
        for index, key in enumerate(message.account_keys)
    ]
    for writable in (True, False):
        for lookup in message.address_table_lookups:
            loaded = lookup.writable_indexes if writable else lookup.readonly_indexes
            accounts.extend(
                {"account_key": ADDRESS_TABLE_LOOKUP, "signer": False, "writable": writable}
                for _ in loaded
            )
    return accounts


def _lookup_origins(message: SolanaMessage) -> list[tuple[int, bool, int]]:
    """For each loaded account (message index ``len(account_keys) + i``): its table's position,
    whether it is writable, and its index within the table."""
    origins = []
    for writable in (True, False):
        for position, lookup in enumerate(message.address_table_lookups):
            loaded = lookup.writable_indexes if writable else lookup.readonly_indexes
            origins.extend((position, writable, index) for index in loaded)
    return origins


def _instruction_lookups(
    message: SolanaMessage, origins: list[tuple[int, bool, int]], indexes: tuple[int, ...]
) -> list[dict[str, Any]]:
    """The lookups an instruction's accounts come from, cut down to the entries it uses."""
    static = len(message.account_keys)
    used: dict[int, dict[str, Any]] = {}
    for index in indexes:
        if index < static:
            continue
        position, writable, table_index = origins[index - static]
        entry = used.get(position)
        if entry is None:
            key = base58_encode(message.address_table_lookups[position].account_key)
            entry = {"address_table_key": key, "writable_indexes": [], "readonly_indexes": []}
            used[position] = entry
        chosen = entry["writable_indexes" if writable else "readonly_indexes"]
        if table_index not in chosen:
            chosen.append(table_index)
    return [used[position] for position in sorted(used)]


def _u64(data: bytes, start: int) -> int | None:
    chunk = data[start : start + 8]
    return int.from_bytes(chunk, "little") if len(chunk) == 8 else None


def _system_transfer(data: bytes, involved: list[str]) -> dict[str, Any] | None:
    """A System Program lamport transfer, or None for any other instruction."""
    if len(data) < 4:
        return None
    layout = _SYSTEM_TRANSFERS.get(int.from_bytes(data[:4], "little"))
    amount = _u64(data, 4)
    if layout is None or amount is None or len(involved) <= max(layout):
        return None
    sender, recipient = layout
    return {"from": involved[sender], "to": involved[recipient], "amount": amount}


def _spl_transfer(
    layouts: Mapping[bytes, _SplLayout], data: bytes, involved: list[str]
) -> dict[str, Any] | None:
    """An SPL Token / Token-2022 transfer, or None for any other instruction."""
    for prefix, (size, amount_at, (source, mint, destination, owner)) in layouts.items():
        if not data.startswith(prefix):
            continue
        amount = _u64(data, amount_at)
        if len(data) < size or amount is None or len(involved) <= owner:
            return None
        return {
            "from": involved[source],
            "to": involved[destination],
            "amount": amount,
            "owner": involved[owner],
            "signers": involved[owner + 1 :],
            "token_mint": "" if mint is None else involved[mint],
        }
    return None
