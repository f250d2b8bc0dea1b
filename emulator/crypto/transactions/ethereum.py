"""Ethereum transactions: legacy (pre-EIP-155 and EIP-155) and EIP-2718 types 1, 2, 3 and 4.

The input is the unsigned serialisation; the output is the signed one (EIP-155 ``v`` for legacy,
``[yParity, r, s]`` appended for typed transactions). Integer widths follow go-ethereum:
``nonce`` and ``gas`` are 64-bit, other integers 256-bit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import rlp
from ..curves import SECP256K1_ORDER
from ..hashing import keccak256
from . import parse_error, sign_error, unsigned_bytes

_LEGACY_FIELDS = ("nonce", "gas_price", "gas", "to", "value", "data")
_EIP155_FIELDS = (*_LEGACY_FIELDS, "chain_id", "eip155_r", "eip155_s")
_FEE_FIELDS = ("chain_id", "nonce", "max_priority_fee_per_gas", "max_fee_per_gas", "gas")
_TX_TAIL = ("to", "value", "data", "access_list")

# type byte -> (name, unsigned field layout)
_TYPED: dict[int, tuple[str, tuple[str, ...]]] = {
    1: ("EIP-2930", ("chain_id", "nonce", "gas_price", "gas", *_TX_TAIL)),
    2: ("EIP-1559", (*_FEE_FIELDS, *_TX_TAIL)),
    3: ("EIP-4844", (*_FEE_FIELDS, *_TX_TAIL, "max_fee_per_blob_gas", "blob_versioned_hashes")),
    4: ("EIP-7702", (*_FEE_FIELDS, *_TX_TAIL, "authorization_list")),
}

_U64_FIELDS = frozenset({"nonce", "gas"})


@dataclass(frozen=True)
class AccessListEntry:
    """One EIP-2930 access-list entry."""

    address: str
    storage_keys: tuple[bytes, ...]


@dataclass(frozen=True)
class Authorization:
    """One EIP-7702 signed authorization tuple."""

    chain_id: int
    address: str
    nonce: int
    y_parity: int
    r: int
    s: int


@dataclass(frozen=True)
class EthereumTransaction:
    """A parsed unsigned Ethereum transaction; ``tx_type`` 0 is legacy."""

    tx_type: int
    chain_id: int | None
    nonce: int
    to: str | None
    value: int
    data: bytes
    gas: int
    gas_price: int | None
    max_fee_per_gas: int | None
    max_priority_fee_per_gas: int | None
    signing_digest: bytes
    access_list: tuple[AccessListEntry, ...] = ()
    max_fee_per_blob_gas: int | None = None
    blob_versioned_hashes: tuple[bytes, ...] = ()
    authorization_list: tuple[Authorization, ...] = ()
    unsigned_payload: bytes = b""

    @property
    def type_name(self) -> str:
        """The policy engine's name for the type: ``LEGACY`` or ``TYPE_1`` .. ``TYPE_4``."""
        return "LEGACY" if self.tx_type == 0 else f"TYPE_{self.tx_type}"


def _uint(item: object, what: str, max_bits: int = 256) -> int:
    if not isinstance(item, bytes):
        raise parse_error(f"{what} must be an integer, not a list")
    try:
        value = rlp.decode_uint(item)
    except rlp.RlpError as exc:
        raise parse_error(f"invalid {what}: {exc}") from None
    if value.bit_length() > max_bits:
        raise parse_error(f"{what} does not fit in {max_bits} bits")
    return value


def _fixed(item: object, size: int, what: str) -> bytes:
    if not isinstance(item, bytes) or len(item) != size:
        raise parse_error(f"{what} must be {size} bytes")
    return item


def _address(item: object, what: str) -> str:
    return "0x" + _fixed(item, 20, what).hex()


def _list(item: object, what: str) -> list:
    if not isinstance(item, list):
        raise parse_error(f"{what} must be a list")
    return item


def _access_list(item: object) -> tuple[AccessListEntry, ...]:
    entries = []
    for entry in _list(item, "access list"):
        pair = _list(entry, "access list entry")
        if len(pair) != 2:
            raise parse_error("access list entry must be [address, storageKeys]")
        keys = tuple(_fixed(k, 32, "storage key") for k in _list(pair[1], "storage keys"))
        entries.append(AccessListEntry(_address(pair[0], "access list address"), keys))
    return tuple(entries)


def _authorization_list(item: object) -> tuple[Authorization, ...]:
    auths = []
    for entry in _list(item, "authorization list"):
        fields = _list(entry, "authorization")
        if len(fields) != 6:
            raise parse_error("authorization must be [chainId, address, nonce, yParity, r, s]")
        auths.append(
            Authorization(
                chain_id=_uint(fields[0], "authorization chain id"),
                address=_address(fields[1], "authorization address"),
                nonce=_uint(fields[2], "authorization nonce", 64),
                y_parity=_uint(fields[3], "authorization y parity", 8),
                r=_uint(fields[4], "authorization r"),
                s=_uint(fields[5], "authorization s"),
            )
        )
    if not auths:
        raise parse_error("EIP-7702 authorization list is empty")
    return tuple(auths)


def _blob_hashes(item: object) -> tuple[bytes, ...]:
    hashes = tuple(_fixed(h, 32, "blob versioned hash") for h in _list(item, "blob hashes"))
    if not hashes:
        raise parse_error("EIP-4844 transaction has no blob versioned hashes")
    return hashes


def _read_field(name: str, item: object) -> object:
    if name == "to":
        if item == b"":
            return None
        return _address(item, "to")
    if name == "data":
        if not isinstance(item, bytes):
            raise parse_error("data must be a byte string, not a list")
        return item
    if name == "access_list":
        return _access_list(item)
    if name == "authorization_list":
        return _authorization_list(item)
    if name == "blob_versioned_hashes":
        return _blob_hashes(item)
    return _uint(item, name.replace("_", " "), 64 if name in _U64_FIELDS else 256)


def _decode_list(payload: bytes, what: str) -> list:
    try:
        fields = rlp.decode(payload)
    except rlp.RlpError as exc:
        raise parse_error(f"invalid RLP: {exc}") from None
    if not isinstance(fields, list):
        raise parse_error(f"{what} must be an RLP list")
    return fields


def _parse(unsigned_hex: str) -> tuple[EthereumTransaction, list]:
    """Parse and validate; return the transaction and its raw RLP field list."""
    raw = unsigned_bytes(unsigned_hex)
    if raw[0] >= 0xC0:
        tx_type = 0
        fields = _decode_list(raw, "legacy transaction")
        if len(fields) == 6:
            names = _LEGACY_FIELDS
        elif len(fields) == 9:
            names = _EIP155_FIELDS
        else:
            raise parse_error(
                f"legacy transaction has {len(fields)} fields, expected 6 or 9 "
                "([nonce, gasPrice, gasLimit, to, value, data] or EIP-155 [..., chainId, 0, 0])"
            )
    elif raw[0] in _TYPED:
        tx_type = raw[0]
        label, names = _TYPED[tx_type]
        fields = _decode_list(raw[1:], f"{label} transaction payload")
        if len(fields) != len(names):
            extra = " (unsigned transactions must not contain v, r, s)"
            raise parse_error(
                f"{label} transaction has {len(fields)} fields, expected {len(names)}"
                + (extra if len(fields) == len(names) + 3 else "")
            )
    elif raw[0] >= 0x80:
        raise parse_error("legacy transaction must be an RLP list")
    else:
        raise parse_error(f"unknown transaction type 0x{raw[0]:02x}")

    values = {name: _read_field(name, item) for name, item in zip(names, fields, strict=True)}
    if tx_type == 0 and len(fields) == 9:
        if (values.pop("eip155_r"), values.pop("eip155_s")) != (0, 0):
            raise parse_error("transaction is already signed (EIP-155 r and s must be 0)")
        if values["chain_id"] == 0:
            raise parse_error("EIP-155 chain id must not be 0")
    if tx_type in (3, 4) and values["to"] is None:
        raise parse_error(f"{_TYPED[tx_type][0]} transaction cannot create a contract")
    tx = EthereumTransaction(
        tx_type=tx_type,
        chain_id=values.get("chain_id"),
        nonce=values["nonce"],
        to=values["to"],
        value=values["value"],
        data=values["data"],
        gas=values["gas"],
        gas_price=values.get("gas_price"),
        max_fee_per_gas=values.get("max_fee_per_gas"),
        max_priority_fee_per_gas=values.get("max_priority_fee_per_gas"),
        signing_digest=keccak256(raw),
        access_list=values.get("access_list", ()),
        max_fee_per_blob_gas=values.get("max_fee_per_blob_gas"),
        blob_versioned_hashes=values.get("blob_versioned_hashes", ()),
        authorization_list=values.get("authorization_list", ()),
        unsigned_payload=raw,
    )
    return tx, fields


def parse_ethereum_transaction(unsigned_hex: str) -> EthereumTransaction:
    """Parse an unsigned transaction (hex, optional ``0x``); raise ``TransactionError``."""
    return _parse(unsigned_hex)[0]


def _normalise(signature: tuple[int, int, int]) -> tuple[int, int, int]:
    """Check ``(r, s, recovery_id)`` and make ``s`` low (EIP-2), flipping the parity to match."""
    r, s, recovery_id = signature
    if not (0 < r < SECP256K1_ORDER and 0 < s < SECP256K1_ORDER and recovery_id in (0, 1, 2, 3)):
        raise sign_error("signer returned an invalid secp256k1 signature")
    if s > SECP256K1_ORDER // 2:
        s, recovery_id = SECP256K1_ORDER - s, recovery_id ^ 1
    if recovery_id > 1:
        raise sign_error("recovery id cannot be encoded in an Ethereum signature")
    return r, s, recovery_id


def sign_ethereum_transaction(
    unsigned_hex: str, sign_digest: Callable[[bytes], tuple[int, int, int]]
) -> str:
    """Sign with ``sign_digest(digest) -> (r, s, recovery_id)``; return signed hex, no ``0x``."""
    tx, fields = _parse(unsigned_hex)
    r, s, recovery_id = _normalise(sign_digest(tx.signing_digest))
    if tx.tx_type == 0:
        chain_id = tx.chain_id
        v = 27 + recovery_id if chain_id is None else 35 + 2 * chain_id + recovery_id
        signed = rlp.encode([*fields[:6], v, r, s])
    else:
        signed = bytes([tx.tx_type]) + rlp.encode([*fields, recovery_id, r, s])
    return signed.hex()
