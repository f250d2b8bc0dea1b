"""X-Stamp: every scheme signs and verifies; signatures checked by other libraries."""

from __future__ import annotations

import base64
import hashlib
import json

import coincurve
import nacl.signing
import pytest
from eth_keys import keys as eth_keys_module

from emulator.crypto.api_keys import ED25519, P256, SECP256K1, generate_key_pair
from emulator.crypto.stamps import (
    SCHEME_ED25519,
    SCHEME_P256,
    SCHEME_SECP256K1,
    SCHEME_SECP256K1_EIP191,
    ApiKeyStamp,
    MalformedStamp,
    eip191_digest,
    parse_stamp_header,
    sign_stamp,
    verify_stamp,
)

BODY = b'{"organizationId": "x", "parameters": {"a": 1}}'

# Turnkey docs (api-reference/overview/stamps.mdx): a stamp of this body made by the CLI.
DOCS_BODY = b'{"payload": "hello from TKHQ"}'
DOCS_STAMP = ApiKeyStamp(
    public_key="0327a50032e6f0631d5605b6ada32b779074f346e81b68e12801640f1c9ee03dae",
    signature="304402203623defd618eb3e219970496407ebe92447317dad75e412bd4a6267c3b5e22230220245b740848a72d08b60d6c84f339737b63db3bcbadb3bd0dcb1bfb865715d8b5",
    scheme=SCHEME_P256,
)


def test_docs_vector_verifies():
    assert verify_stamp(DOCS_STAMP, DOCS_BODY)
    assert not verify_stamp(DOCS_STAMP, DOCS_BODY + b" ")


@pytest.mark.parametrize(
    ("curve", "scheme"),
    [
        (P256, SCHEME_P256),
        (SECP256K1, SCHEME_SECP256K1),
        (ED25519, SCHEME_ED25519),
        (SECP256K1, SCHEME_SECP256K1_EIP191),
    ],
)
def test_every_scheme_round_trips_and_rejects_tampering(curve, scheme):
    key = generate_key_pair(curve)
    stamp = sign_stamp(BODY, key, scheme)
    assert stamp.scheme == scheme and stamp.public_key == key.public_key
    assert verify_stamp(stamp, BODY)
    assert not verify_stamp(stamp, BODY.replace(b"1", b"2"))
    other = generate_key_pair(curve)
    assert not verify_stamp(ApiKeyStamp(other.public_key, stamp.signature, scheme), BODY)


def test_secp256k1_stamp_verified_by_coincurve():
    key = generate_key_pair(SECP256K1)
    stamp = sign_stamp(BODY, key, SCHEME_SECP256K1)
    # libsecp256k1 insists on low-S; normalise the DER signature first.
    signature = coincurve.PublicKey(bytes.fromhex(key.public_key))
    der = bytes.fromhex(stamp.signature)
    from cryptography.hazmat.primitives.asymmetric.utils import (
        decode_dss_signature,
        encode_dss_signature,
    )

    r, s = decode_dss_signature(der)
    n = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
    low = encode_dss_signature(r, min(s, n - s))
    assert signature.verify(low, BODY, hasher=lambda m: hashlib.sha256(m).digest())


def test_high_s_signatures_are_accepted():
    key = generate_key_pair(SECP256K1)
    stamp = sign_stamp(BODY, key, SCHEME_SECP256K1)
    from cryptography.hazmat.primitives.asymmetric.utils import (
        decode_dss_signature,
        encode_dss_signature,
    )

    r, s = decode_dss_signature(bytes.fromhex(stamp.signature))
    n = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
    high = encode_dss_signature(r, max(s, n - s)).hex()
    assert verify_stamp(ApiKeyStamp(key.public_key, high, SCHEME_SECP256K1), BODY)


def test_ed25519_stamp_verified_by_pynacl():
    key = generate_key_pair(ED25519)
    stamp = sign_stamp(BODY, key)
    nacl.signing.VerifyKey(bytes.fromhex(key.public_key)).verify(
        BODY, bytes.fromhex(stamp.signature)
    )


def test_eip191_stamp_matches_eth_keys():
    key = generate_key_pair(SECP256K1)
    stamp = sign_stamp(BODY, key, SCHEME_SECP256K1_EIP191)
    private = eth_keys_module.PrivateKey(bytes.fromhex(key.private_key))
    # eth-keys computes the same personal_sign digest and verifies our (r, s) under it.
    prefix = b"\x19Ethereum Signed Message:\n" + str(len(BODY)).encode()
    from eth_utils import keccak

    assert eip191_digest(BODY) == keccak(prefix + BODY)
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    r, s = decode_dss_signature(bytes.fromhex(stamp.signature))
    n = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
    s = min(s, n - s)
    assert any(
        eth_keys_module.Signature(vrs=(v, r, s)).recover_public_key_from_msg_hash(
            eip191_digest(BODY)
        )
        == private.public_key
        for v in (0, 1)
    )


def test_header_round_trip_with_and_without_padding():
    stamp = sign_stamp(BODY, generate_key_pair(P256))
    value = stamp.header_value()
    assert "=" not in value
    assert parse_stamp_header(value) == stamp
    padded = base64.urlsafe_b64encode(
        json.dumps(
            {"publicKey": stamp.public_key, "signature": stamp.signature, "scheme": stamp.scheme}
        ).encode()
    ).decode()
    assert parse_stamp_header(padded) == stamp


@pytest.mark.parametrize(
    "value",
    [
        "",
        "!!!",
        base64.urlsafe_b64encode(b"[]").decode(),
        base64.urlsafe_b64encode(b'{"publicKey": "02"}').decode(),
        base64.urlsafe_b64encode(
            b'{"publicKey": "02", "signature": "30", "scheme": "SIGNATURE_SCHEME_NOPE"}'
        ).decode(),
    ],
)
def test_malformed_headers_are_rejected(value):
    with pytest.raises(MalformedStamp):
        parse_stamp_header(value)


def test_key_pair_repr_hides_private_key():
    key = generate_key_pair(P256)
    assert key.private_key not in repr(key)
