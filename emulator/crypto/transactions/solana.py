"""Solana transactions: legacy and v0 messages, bare or inside a transaction with signature slots.

Wire format: a transaction is ``compact-u16 n ‖ n × 64-byte signatures ‖ message``; a message is
``[0x80 | version] ‖ header(3) ‖ account keys ‖ recent blockhash ‖ instructions
[‖ address table lookups (v0)]``. Checks follow the Solana SDK's message sanitisation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..base58 import base58_encode
from . import parse_error, sign_error, unsigned_bytes

_MAX_ACCOUNTS = 256


class _Malformed(ValueError):
    """Internal: why some bytes are not a message or transaction."""


def encode_compact_u16(value: int) -> bytes:
    """Solana's shortvec length: 7 bits per byte, little-endian, high bit = more."""
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, size: int, what: str) -> bytes:
        if self.pos + size > len(self.data):
            raise _Malformed(f"input ends inside {what}")
        chunk = self.data[self.pos : self.pos + size]
        self.pos += size
        return chunk

    def u8(self, what: str) -> int:
        return self.take(1, what)[0]

    def compact_u16(self, what: str) -> int:
        value = 0
        for index in range(3):
            byte = self.u8(what)
            if index == 2 and byte > 0x03:
                raise _Malformed(f"{what} overflows compact-u16")
            if index > 0 and byte == 0:
                raise _Malformed(f"{what} is a non-canonical compact-u16")
            value |= (byte & 0x7F) << (7 * index)
            if not byte & 0x80:
                break
        return value

    def byte_list(self, what: str) -> tuple[int, ...]:
        return tuple(self.take(self.compact_u16(what), what))

    def rest(self) -> bytes:
        return self.data[self.pos :]


@dataclass(frozen=True)
class CompiledInstruction:
    """An instruction with its program and accounts as indexes into the message's keys."""

    program_id_index: int
    accounts: tuple[int, ...]
    data: bytes


@dataclass(frozen=True)
class AddressTableLookup:
    """A v0 address-lookup-table reference."""

    account_key: bytes
    writable_indexes: tuple[int, ...]
    readonly_indexes: tuple[int, ...]


@dataclass(frozen=True)
class SolanaMessage:
    """A parsed message; ``existing_signatures`` has one slot per required signer."""

    version: str | int
    num_required_signatures: int
    account_keys: list[bytes]
    recent_blockhash: bytes
    message_bytes: bytes
    existing_signatures: list[bytes]
    num_readonly_signed_accounts: int
    num_readonly_unsigned_accounts: int
    instructions: list[CompiledInstruction]
    address_table_lookups: list[AddressTableLookup]
    bare_message: bool

    @property
    def account_addresses(self) -> list[str]:
        """The static account keys in base58."""
        return [base58_encode(key) for key in self.account_keys]

    @property
    def signer_keys(self) -> list[bytes]:
        """The keys whose signatures the message requires, in slot order."""
        return self.account_keys[: self.num_required_signatures]


def _parse_message(data: bytes, signatures: list[bytes] | None) -> SolanaMessage:
    reader = _Reader(data)
    first = reader.u8("message header")
    if first & 0x80:
        version: str | int = first & 0x7F
        if version != 0:
            raise _Malformed(f"unsupported message version {version}")
        num_required = reader.u8("message header")
    else:
        version, num_required = "legacy", first
    readonly_signed = reader.u8("message header")
    readonly_unsigned = reader.u8("message header")
    keys = [reader.take(32, "account keys") for _ in range(reader.compact_u16("account keys"))]
    blockhash = reader.take(32, "recent blockhash")
    instructions = []
    for _ in range(reader.compact_u16("instructions")):
        program = reader.u8("instruction")
        accounts = reader.byte_list("instruction accounts")
        payload = reader.take(reader.compact_u16("instruction data"), "instruction data")
        instructions.append(CompiledInstruction(program, accounts, payload))
    lookups = []
    if version == 0:
        for _ in range(reader.compact_u16("address table lookups")):
            table = reader.take(32, "address table lookup")
            writable = reader.byte_list("address table lookup")
            readonly = reader.byte_list("address table lookup")
            if not writable and not readonly:
                raise _Malformed("address table lookup selects no accounts")
            lookups.append(AddressTableLookup(table, writable, readonly))
    if reader.rest():
        raise _Malformed(f"trailing bytes after the message ({len(reader.rest())})")

    if readonly_signed >= num_required:
        raise _Malformed("message needs a writable fee payer among its required signers")
    if num_required + readonly_unsigned > len(keys):
        raise _Malformed("message header counts exceed its account keys")
    total = len(keys) + sum(len(lk.writable_indexes) + len(lk.readonly_indexes) for lk in lookups)
    if version == 0 and total > _MAX_ACCOUNTS:
        raise _Malformed(f"message loads {total} accounts, more than {_MAX_ACCOUNTS}")
    for ix in instructions:
        if not 0 < ix.program_id_index < len(keys):
            raise _Malformed("instruction program index out of range")
        if any(index >= total for index in ix.accounts):
            raise _Malformed("instruction account index out of range")

    bare = signatures is None
    if signatures is None:
        signatures = [bytes(64)] * num_required
    elif len(signatures) != num_required:
        raise _Malformed(
            f"transaction has {len(signatures)} signature slots, message requires {num_required}"
        )
    return SolanaMessage(
        version=version,
        num_required_signatures=num_required,
        account_keys=keys,
        recent_blockhash=blockhash,
        message_bytes=data,
        existing_signatures=signatures,
        num_readonly_signed_accounts=readonly_signed,
        num_readonly_unsigned_accounts=readonly_unsigned,
        instructions=instructions,
        address_table_lookups=lookups,
        bare_message=bare,
    )


def _parse_transaction(data: bytes) -> SolanaMessage:
    reader = _Reader(data)
    count = reader.compact_u16("signature count")
    signatures = [reader.take(64, "signatures") for _ in range(count)]
    return _parse_message(reader.rest(), signatures)


def parse_solana_transaction(unsigned_hex: str) -> SolanaMessage:
    """Parse a transaction (signature slots + message) or a bare message; prefer the former."""
    raw = unsigned_bytes(unsigned_hex)
    try:
        return _parse_transaction(raw)
    except _Malformed as as_transaction:
        try:
            return _parse_message(raw, None)
        except _Malformed as as_message:
            raise parse_error(
                f"not a Solana transaction ({as_transaction}) nor a message ({as_message})"
            ) from None


def sign_solana_transaction(
    unsigned_hex: str, signer_public_key: bytes, sign: Callable[[bytes], bytes]
) -> str:
    """Sign the message with ``sign(message) -> 64-byte signature`` into the signer's slot(s).

    Returns the full transaction hex (no ``0x``); other slots are kept as given (zeros for a
    bare message).
    """
    message = parse_solana_transaction(unsigned_hex)
    signer = bytes(signer_public_key)
    slots = [i for i, key in enumerate(message.signer_keys) if key == signer]
    if not slots:
        raise sign_error(f"{base58_encode(signer)} is not a required signer")
    signature = bytes(sign(message.message_bytes))
    if len(signature) != 64:
        raise sign_error("signer returned a signature that is not 64 bytes")
    signatures = list(message.existing_signatures)
    for slot in slots:
        signatures[slot] = signature
    count = encode_compact_u16(len(signatures))
    return (count + b"".join(signatures) + message.message_bytes).hex()
