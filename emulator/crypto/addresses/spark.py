"""Spark addresses: bech32m over the canonical protobuf ``SparkAddress`` with only field 1
(``identity_public_key``, the 33-byte compressed identity key), under ``spark`` (mainnet)
or ``sparkrt`` (regtest), as the Spark SDK's ``encodeSparkAddress`` writes them
(``@buildonspark/spark-sdk`` ``src/utils/address.ts``; vectors in
``fixtures/spark_addresses.json``).
"""

from __future__ import annotations

from .encodings import BECH32M, bech32_decode, bech32_encode, from_5bit, to_5bit

MAINNET_HRP = "spark"
REGTEST_HRP = "sparkrt"
_FIELD_1_BYTES = 0x0A  # field 1, wire type 2 (length-delimited)


def encode(identity_public_key: bytes, hrp: str) -> str:
    if len(identity_public_key) != 33:
        raise ValueError("a Spark address takes a 33-byte compressed key")
    payload = bytes([_FIELD_1_BYTES, len(identity_public_key)]) + identity_public_key
    return bech32_encode(hrp, to_5bit(payload), BECH32M)


def decode(address: str) -> tuple[str, bytes]:
    """``(hrp, identity public key)`` of a Spark address with no invoice fields."""
    hrp, data, constant = bech32_decode(address)
    if constant != BECH32M:
        raise ValueError("a Spark address is bech32m")
    payload = from_5bit(data)
    if len(payload) != 35 or payload[0] != _FIELD_1_BYTES or payload[1] != 33:
        raise ValueError("not a Spark address of an identity key")
    return hrp, payload[2:]
