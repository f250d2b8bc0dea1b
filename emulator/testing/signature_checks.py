"""Signatures checked with libraries other than the emulator's signers.

``eth_keys`` recovers secp256k1 signatures, ``cryptography`` verifies P-256 and
Ed25519, a plain-Python BIP340 verifier (``bip340``) checks P2TR signatures,
and ``eth_account`` hashes EIP-712 documents. Each is imported when first
needed (the package's ``test`` or ``hypothesis`` extra installs them).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..crypto.curves import P256_ORDER, SECP256K1_ORDER
from . import bip340
from . import strategies as ts

Json = dict[str, Any]
SPARK_FORMAT_PREFIX = "ADDRESS_FORMAT_SPARK_"  # signed with plain BIP340 (docs/spark.md)


def _keccak(data: bytes) -> bytes:
    from eth_utils import keccak

    return keccak(data)


def signed_message(curve: str, payload: str, encoding: str, hash_function: str) -> bytes:
    """What a key signs for a payload, computed without the emulator: the message itself for
    Ed25519, else the 32-byte digest (EIP-712 hashed by ``eth_account``)."""
    if encoding == ts.EIP712:
        from eth_account.messages import encode_typed_data

        message = encode_typed_data(full_message=json.loads(payload))
        return _keccak(b"\x19" + message.version + message.header + message.body)
    if encoding == ts.HEXADECIMAL:
        data = bytes.fromhex(payload[2:] if payload[:2] in ("0x", "0X") else payload)
    elif encoding == ts.TEXT_UTF8:
        data = payload.encode()
    else:
        raise ValueError(f"no independent check for {encoding}")
    if curve == ts.ED25519 or hash_function == ts.NO_OP:
        return data
    if hash_function == ts.SHA256:
        return hashlib.sha256(data).digest()
    if hash_function == ts.KECCAK256:
        return _keccak(data)
    raise ValueError(f"no independent check for {hash_function}")


def check_signature(
    signature: Json,
    *,
    curve: str,
    public_key: str,
    payload: str,
    encoding: str,
    hash_function: str,
    taproot_address: str | None = None,
    address_format: str | None = None,
) -> None:
    """Assert that ``{r, s, v}`` signs the payload with ``public_key`` (hex, as the API lists
    it); a P2TR ``taproot_address`` means BIP340 Schnorr with its output key, a Spark
    ``address_format`` plain BIP340 Schnorr with the key itself (docs/spark.md)."""
    r, s, v = signature["r"], signature["s"], signature["v"]
    assert len(r) == len(s) == 64, signature
    message = signed_message(curve, payload, encoding, hash_function)
    raw = bytes.fromhex(r + s)
    key = bytes.fromhex(public_key)
    if curve == ts.ED25519:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        assert v == "00", signature
        Ed25519PublicKey.from_public_bytes(key).verify(raw, message)
    elif taproot_address is not None:
        from bip_utils import SegwitBech32Decoder

        hrp = taproot_address.rsplit("1", 1)[0]
        version, program = SegwitBech32Decoder.Decode(hrp, taproot_address)
        assert version == 1 and bytes(program) == bip340.bip86_output_key(key), taproot_address
        assert v == "00", signature
        assert bip340.verify(bytes(program), message, raw), "BIP340 signature does not verify"
    elif address_format is not None and address_format.startswith(SPARK_FORMAT_PREFIX):
        assert v == "00", signature
        assert bip340.verify(key[1:], message, raw), "BIP340 signature does not verify"
    elif curve == ts.SECP256K1:
        from eth_keys import keys

        assert int(s, 16) <= SECP256K1_ORDER // 2, "high S"
        recovered = keys.Signature(vrs=(int(v, 16), int(r, 16), int(s, 16)))
        signer = recovered.recover_public_key_from_msg_hash(message)
        assert signer.to_compressed_bytes() == key, "secp256k1 signature recovers another key"
    elif curve == ts.P256:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import (
            Prehashed,
            encode_dss_signature,
        )

        assert int(s, 16) <= P256_ORDER // 2, "high S"
        point = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), key)
        der = encode_dss_signature(int(r, 16), int(s, 16))
        point.verify(der, message, ec.ECDSA(Prehashed(hashes.SHA256())))
    else:
        raise ValueError(f"unknown curve {curve!r}")


def check_address(address_format: str, curve: str, public_key: str, address: str) -> None:
    """An Ethereum address is the key's, computed by ``eth_keys``."""
    if address_format == "ADDRESS_FORMAT_ETHEREUM" and curve == ts.SECP256K1:
        from eth_keys import keys

        expected = keys.PublicKey.from_compressed_bytes(bytes.fromhex(public_key))
        assert expected.to_checksum_address() == address, (address, public_key)
