"""HPKE (``emulator/crypto/hpke.py``) and Base58Check (``emulator/crypto/base58.py``).

The RFC 9180 vector fixes the general base mode byte for byte; the independent
``pyhpke`` library checks Turnkey's profile (AES-256-GCM, info ``turnkey_hpke``,
AAD ``enc ‖ pkR``) both ways; then the refusals.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from emulator.crypto import hpke
from emulator.crypto.base58 import (
    base58_decode,
    base58_encode,
    base58check_decode,
    base58check_encode,
)

from .vectors import FIXTURES

pyhpke = pytest.importorskip("pyhpke")


@cache
def hpke_vectors() -> dict[str, Any]:
    return json.loads((FIXTURES / "hpke-vectors.json").read_text())


def rfc_vector() -> dict[str, Any]:
    (vector,) = hpke_vectors()["rfc9180"]
    return vector


def key_pair(scalar: int) -> tuple[bytes, bytes]:
    """``(private 32 bytes, uncompressed public 65 bytes)`` of a fixed P-256 scalar."""
    private = scalar.to_bytes(32, "big")
    return private, hpke.uncompressed(hpke.private_key_from_bytes(private).public_key())


def turnkey_suite():
    return pyhpke.CipherSuite.new(
        pyhpke.KEMId.DHKEM_P256_HKDF_SHA256, pyhpke.KDFId.HKDF_SHA256, pyhpke.AEADId.AES256_GCM
    )


# ----- RFC 9180 A.3.1 ---------------------------------------------------------


def test_rfc9180_vector_is_the_suite_this_module_implements():
    vector = rfc_vector()
    assert (vector["mode"], vector["kem_id"], vector["kdf_id"], vector["aead_id"]) == (
        hpke.MODE_BASE,
        hpke.KEM_P256_HKDF_SHA256,
        hpke.KDF_HKDF_SHA256,
        hpke.AEAD_AES_128_GCM,
    )


def test_seal_base_with_the_vectors_ephemeral_key_gives_its_enc_and_ciphertext():
    vector = rfc_vector()
    sealed = hpke.seal_base(
        bytes.fromhex(vector["pkRm"]),
        bytes.fromhex(vector["plaintext"]),
        info=bytes.fromhex(vector["info"]),
        aad=bytes.fromhex(vector["aad"]),
        aead_id=vector["aead_id"],
        ephemeral_private=bytes.fromhex(vector["skEm"]),
    )
    assert sealed == hpke.Sealed(bytes.fromhex(vector["pkEm"]), bytes.fromhex(vector["ciphertext"]))


def test_open_base_with_the_vectors_recipient_key_gives_its_plaintext():
    vector = rfc_vector()
    opened = hpke.open_base(
        bytes.fromhex(vector["skRm"]),
        bytes.fromhex(vector["pkEm"]),
        bytes.fromhex(vector["ciphertext"]),
        info=bytes.fromhex(vector["info"]),
        aad=bytes.fromhex(vector["aad"]),
        aead_id=vector["aead_id"],
    )
    assert opened == bytes.fromhex(vector["plaintext"]) == b"Beauty is truth, truth beauty"


def test_the_vectors_key_pairs_are_each_others():
    vector = rfc_vector()
    for private, public in (("skEm", "pkEm"), ("skRm", "pkRm")):
        assert key_pair(int(vector[private], 16))[1].hex() == vector[public]


def test_open_base_refuses_another_info_or_aad_or_aead():
    vector = rfc_vector()
    args = (
        bytes.fromhex(vector["skRm"]),
        bytes.fromhex(vector["pkEm"]),
        bytes.fromhex(vector["ciphertext"]),
    )
    info, aad = bytes.fromhex(vector["info"]), bytes.fromhex(vector["aad"])
    for kwargs in (
        {"info": info + b"!", "aad": aad, "aead_id": hpke.AEAD_AES_128_GCM},
        {"info": info, "aad": b"Count-1", "aead_id": hpke.AEAD_AES_128_GCM},
        {"info": info, "aad": aad, "aead_id": hpke.AEAD_AES_256_GCM},
    ):
        with pytest.raises(hpke.HpkeError, match=r"does not open"):
            hpke.open_base(*args, **kwargs)


def test_seal_base_agrees_with_pyhpke_on_the_rfc_suite():
    vector = rfc_vector()
    suite = pyhpke.CipherSuite.new(
        pyhpke.KEMId.DHKEM_P256_HKDF_SHA256, pyhpke.KDFId.HKDF_SHA256, pyhpke.AEADId.AES128_GCM
    )
    receiver = suite.kem.deserialize_private_key(bytes.fromhex(vector["skRm"]))
    context = suite.create_recipient_context(
        bytes.fromhex(vector["pkEm"]), receiver, info=bytes.fromhex(vector["info"])
    )
    assert context.open(
        bytes.fromhex(vector["ciphertext"]), bytes.fromhex(vector["aad"])
    ) == bytes.fromhex(vector["plaintext"])


# ----- Turnkey's profile, against pyhpke ----------------------------------------


@pytest.mark.parametrize("plaintext", [b"", b"x", b"a mnemonic of twelve words " * 20])
def test_what_pyhpke_seals_with_turnkeys_profile_open_sealed_opens(plaintext):
    private, public = key_pair(0x1234_5678_9ABC_DEF0)
    suite = turnkey_suite()
    enc, sender = suite.create_sender_context(
        suite.kem.deserialize_public_key(public), info=b"turnkey_hpke"
    )
    assert len(enc) == 65 and enc[0] == 4
    ciphertext = sender.seal(plaintext, enc + public)
    assert hpke.open_sealed(private, enc, ciphertext) == plaintext
    assert hpke.open_sealed(private, hpke.compress(enc), ciphertext) == plaintext


@pytest.mark.parametrize("plaintext", [b"", b"x", b"a mnemonic of twelve words " * 20])
def test_what_seal_makes_pyhpke_opens_with_turnkeys_profile(plaintext):
    private, public = key_pair(0xFEDC_BA98_7654_3210)
    sealed = hpke.seal(public, plaintext)
    assert len(sealed.enc) == 65 and sealed.enc[0] == 4
    assert len(sealed.ciphertext) == len(plaintext) + 16
    suite = turnkey_suite()
    context = suite.create_recipient_context(
        sealed.enc, suite.kem.deserialize_private_key(private), info=b"turnkey_hpke"
    )
    assert context.open(sealed.ciphertext, sealed.enc + public) == plaintext


def test_seal_to_a_compressed_recipient_key_uses_the_uncompressed_one_in_the_aad():
    private, public = key_pair(99)
    sealed = hpke.seal(hpke.compress(public), b"secret")
    suite = turnkey_suite()
    context = suite.create_recipient_context(
        sealed.enc, suite.kem.deserialize_private_key(private), info=b"turnkey_hpke"
    )
    assert context.open(sealed.ciphertext, sealed.enc + public) == b"secret"


def test_seal_is_the_profile_of_seal_base():
    private, public = key_pair(7)
    ephemeral = (123456789).to_bytes(32, "big")
    sealed = hpke.seal(public, b"same", ephemeral_private=ephemeral)
    assert sealed == hpke.seal_base(
        public,
        b"same",
        info=b"turnkey_hpke",
        aad=sealed.enc + public,
        aead_id=hpke.AEAD_AES_256_GCM,
        ephemeral_private=ephemeral,
    )
    assert sealed.enc == key_pair(123456789)[1]
    # A fixed ephemeral key makes the same sealing; a fresh one another.
    assert hpke.seal(public, b"same", ephemeral_private=ephemeral) == sealed
    assert hpke.seal(public, b"same").enc != sealed.enc
    assert hpke.open_sealed(private, sealed.enc, sealed.ciphertext) == b"same"


# ----- refusals ----------------------------------------------------------------


@pytest.fixture
def sealed_pair() -> tuple[bytes, hpke.Sealed]:
    private, public = key_pair(0xC0FFEE)
    return private, hpke.seal(public, b"the plaintext")


def test_a_tampered_ciphertext_does_not_open(sealed_pair):
    private, sealed = sealed_pair
    for index in (0, len(sealed.ciphertext) - 1):
        tampered = bytearray(sealed.ciphertext)
        tampered[index] ^= 1
        with pytest.raises(hpke.HpkeError, match=r"^the ciphertext does not open with this key$"):
            hpke.open_sealed(private, sealed.enc, bytes(tampered))
    for short in (b"", sealed.ciphertext[:15], sealed.ciphertext[:-1]):
        with pytest.raises(hpke.HpkeError, match=r"does not open"):
            hpke.open_sealed(private, sealed.enc, short)


def test_another_enc_does_not_open(sealed_pair):
    private, sealed = sealed_pair
    with pytest.raises(hpke.HpkeError, match=r"does not open"):
        hpke.open_sealed(private, key_pair(5)[1], sealed.ciphertext)
    tampered = bytearray(sealed.enc)
    tampered[10] ^= 1  # almost surely off the curve; either way it must not open
    with pytest.raises(hpke.HpkeError):
        hpke.open_sealed(private, bytes(tampered), sealed.ciphertext)


def test_the_wrong_private_key_does_not_open(sealed_pair):
    _, sealed = sealed_pair
    with pytest.raises(hpke.HpkeError, match=r"does not open"):
        hpke.open_sealed(key_pair(0xC0FFEF)[0], sealed.enc, sealed.ciphertext)


def test_compressed_enc_opens(sealed_pair):
    private, sealed = sealed_pair
    compressed = hpke.compress(sealed.enc)
    assert len(compressed) == 33 and compressed[0] in (2, 3)
    assert hpke.open_sealed(private, compressed, sealed.ciphertext) == b"the plaintext"


@pytest.mark.parametrize(
    "encoded",
    [
        b"",
        b"\x04",
        b"\x04" + bytes(64),  # (0, 0) is not on the curve
        b"\x04" + b"\x01" * 64,
        b"\x05" + b"\x01" * 64,
        b"\x06" + key_pair(3)[1][1:],  # hybrid form
        key_pair(3)[1][:-1],
        key_pair(3)[1] + b"\x00",
        hpke.compress(key_pair(3)[1])[:-1],
        bytes.fromhex("02" + "ff" * 32),  # x >= p
    ],
    ids=lambda value: value.hex()[:16] or "empty",
)
def test_invalid_public_keys_are_refused(encoded):
    with pytest.raises(hpke.HpkeError, match=r"^not a P-256 public key: "):
        hpke.load_public_key(encoded)
    with pytest.raises(hpke.HpkeError, match=r"^not a P-256 public key: "):
        hpke.seal(encoded, b"x")
    with pytest.raises(hpke.HpkeError, match=r"^not a P-256 public key: "):
        hpke.open_sealed(key_pair(3)[0], encoded, bytes(16))
    assert issubclass(hpke.HpkeError, ValueError)


def test_a_public_key_on_another_curve_is_refused():
    k1 = ec.generate_private_key(ec.SECP256K1()).public_key()
    encoded = k1.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    with pytest.raises(hpke.HpkeError):
        hpke.seal(encoded, b"x")


@pytest.mark.parametrize(
    "scalar", [0, int("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551", 16)]
)
def test_private_keys_out_of_range_are_refused(scalar):
    with pytest.raises(hpke.HpkeError, match=r"^not a P-256 private key$"):
        hpke.private_key_from_bytes(scalar.to_bytes(32, "big"))
    with pytest.raises(hpke.HpkeError, match=r"^not a P-256 private key$"):
        hpke.open_sealed(scalar.to_bytes(32, "big"), key_pair(3)[1], bytes(16))


def test_compress_and_uncompressed_round_trip():
    _, public = key_pair(0xABCDEF)
    compressed = hpke.compress(public)
    assert compressed[1:] == public[1:33] and compressed[0] == 2 + (public[-1] & 1)
    assert hpke.uncompressed(hpke.load_public_key(compressed)) == public
    assert hpke.compress(compressed) == compressed


# ----- Base58Check -------------------------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [b"", b"\x00", b"\x00\x00\x01", bytes(5), b"\xff" * 81, bytes(range(256))[:81]],
    ids=lambda value: value.hex()[:12] or "empty",
)
def test_base58check_round_trip(payload):
    text = base58check_encode(payload)
    assert base58check_decode(text) == payload
    zeros = len(payload) - len(payload.lstrip(b"\0"))
    assert text.startswith("1" * zeros) and not text.startswith("1" * (zeros + 1))


def test_base58_known_values():
    # Bitcoin's well-known examples.
    assert base58_encode(b"Hello World!") == "2NEpo7TZRRrLZSi2U"
    assert base58_decode("2NEpo7TZRRrLZSi2U") == b"Hello World!"
    assert base58_encode(b"\x00\x00\x28\x7f\xb4\xcd") == "11233QC4"
    assert base58_decode("11233QC4") == b"\x00\x00\x28\x7f\xb4\xcd"
    assert base58check_encode(b"") == "3QJmnh"
    assert base58_decode("") == b"" and base58_decode("1") == b"\x00"
    # The version-0 address of the hash160 of zero bytes.
    assert base58check_encode(bytes(21)) == "1111111111111111111114oLvT2"
    assert base58check_decode("1111111111111111111114oLvT2") == bytes(21)


def test_base58check_refuses_a_bad_checksum():
    text = base58check_encode(b"\x00turnkey")
    last = text[-1]
    changed = text[:-1] + ("2" if last != "2" else "3")
    with pytest.raises(ValueError, match=r"^base58check checksum mismatch$"):
        base58check_decode(changed)
    for short in ("", "1", "111", "2"):
        with pytest.raises(ValueError, match=r"checksum mismatch"):
            base58check_decode(short)


@pytest.mark.parametrize("char", ["0", "O", "I", "l", "+", "/", " ", "é"])
def test_base58_refuses_foreign_characters(char):
    text = base58check_encode(b"payload")
    with pytest.raises(ValueError, match=r"^not a base58 character: "):
        base58check_decode(text[:3] + char + text[3:])
    with pytest.raises(ValueError, match=r"^not a base58 character: "):
        base58_decode(char)
