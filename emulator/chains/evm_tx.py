"""EVM transactions the emulator builds for a send: unsigned EIP-1559 and EIP-7702 encodings,
and the unsigned form of a signed transaction (what ``eth.tx`` reads of a raw send)."""

from __future__ import annotations

from ..crypto import rlp
from ..crypto.hashing import keccak256

EIP1559 = 2
EIP7702 = 4
# EIP-7702's authorization magic: keccak256(0x05 || rlp([chain_id, address, nonce])).
AUTHORIZATION_MAGIC = b"\x05"


def _to(address: str | None) -> bytes:
    return b"" if not address else bytes.fromhex(address[2:])


def unsigned_1559(
    chain_id: int,
    nonce: int,
    max_priority_fee: int,
    max_fee: int,
    gas: int,
    to: str | None,
    value: int,
    data: bytes,
) -> str:
    fields = [chain_id, nonce, max_priority_fee, max_fee, gas, _to(to), value, data, []]
    return (bytes([EIP1559]) + rlp.encode(fields)).hex()


def authorization_digest(chain_id: int, address: str, nonce: int) -> bytes:
    return keccak256(AUTHORIZATION_MAGIC + rlp.encode([chain_id, _to(address), nonce]))


def unsigned_7702(
    chain_id: int,
    nonce: int,
    max_priority_fee: int,
    max_fee: int,
    gas: int,
    to: str,
    authorizations: list[tuple[int, str, int, int, int, int]],
) -> str:
    """``authorizations``: (chain_id, address, nonce, y_parity, r, s) each."""
    auth_list = [[c, _to(a), n, y, r, s] for c, a, n, y, r, s in authorizations]
    fields = [chain_id, nonce, max_priority_fee, max_fee, gas, _to(to), 0, b"", [], auth_list]
    return (bytes([EIP7702]) + rlp.encode(fields)).hex()


def unsigned_of_signed(signed_hex: str) -> str:
    """The unsigned encoding of a signed typed (EIP-2718) or legacy transaction."""
    raw = bytes.fromhex(signed_hex.removeprefix("0x"))
    if raw and raw[0] < 0x7F:
        fields = rlp.decode(raw[1:])
        if not isinstance(fields, list) or len(fields) < 4:
            raise ValueError("not a signed typed transaction")
        return (raw[:1] + rlp.encode(fields[:-3])).hex()
    fields = rlp.decode(raw)
    if not isinstance(fields, list) or len(fields) != 9:
        raise ValueError("not a signed legacy transaction")
    v = rlp.decode_uint(fields[6]) if isinstance(fields[6], bytes) else 0
    if v >= 35:  # EIP-155: the unsigned form carries the chain id
        return rlp.encode([*fields[:6], (v - 35) // 2, b"", b""]).hex()
    return rlp.encode(fields[:6]).hex()
