"""Raw-payload signing: every curve × encoding × hash function, checked with other libraries."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, encode_dss_signature
from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_keys import keys as eth_keys
from eth_utils import keccak
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.crypto.signing import (
    ED25519,
    HASH_FUNCTIONS,
    P256,
    PAYLOAD_ENCODINGS,
    SECP256K1,
    Signature,
    SigningError,
    message_to_sign,
    payload_bytes,
    sign_digest_p256,
    sign_digest_secp256k1,
    sign_ed25519,
    sign_payload,
)

from .typed_data import MAIL, field

HEX = "PAYLOAD_ENCODING_HEXADECIMAL"
TEXT = "PAYLOAD_ENCODING_TEXT_UTF8"
EIP712 = "PAYLOAD_ENCODING_EIP712"
EIP7702 = "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION"
NO_OP = "HASH_FUNCTION_NO_OP"
SHA256 = "HASH_FUNCTION_SHA256"
KECCAK = "HASH_FUNCTION_KECCAK256"
NOT_APPLICABLE = "HASH_FUNCTION_NOT_APPLICABLE"
CURVES = (SECP256K1, P256, ED25519)

SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
P256_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551

KEYS = {
    SECP256K1: bytes.fromhex("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"),
    P256: bytes.fromhex("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"),
    ED25519: bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"),
}


# A viem-style Permit (serializeTypedData: bigints as decimal strings, no EIP712Domain type).
PERMIT = {
    "domain": {
        "name": "USD Coin",
        "version": "2",
        "chainId": "8453",
        "verifyingContract": "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
    },
    "message": {
        "owner": "0x" + "11" * 20,
        "spender": "0x" + "22" * 20,
        "value": "1000000",
        "nonce": "0",
        "deadline": "115792089237316195423570985008687907853269984665640564039457584007913129639935",
    },
    "primaryType": "Permit",
    "types": {
        "Permit": [
            field("owner", "address"),
            field("spender", "address"),
            field("value", "uint256"),
            field("nonce", "uint256"),
            field("deadline", "uint256"),
        ]
    },
}
AUTHORIZATION = {
    "address": "0x5ce9454909639d2d17a3f753ce7d93fa0b9ab12e",
    "chainId": 1337,
    "nonce": 7,
}

DIGEST = keccak(b"a digest to sign")
TEXT_32 = "exactly thirty-two bytes of text"
PAYLOADS = {
    HEX: "0x" + DIGEST.hex(),
    TEXT: TEXT_32,
    EIP712: json.dumps(MAIL),
    EIP7702: json.dumps(AUTHORIZATION),
}


def typed_digest(document: dict) -> bytes:
    signable = encode_typed_data(full_message=copy.deepcopy(document))
    return keccak(b"\x19" + signable.version + signable.header + signable.body)


def authorization_digest(authorization: dict) -> bytes:
    return bytes(Account.sign_authorization(authorization, KEYS[SECP256K1]).authorization_hash)


def expected_outcome(curve: str, encoding: str, hash_function: str) -> str | None:
    """The API error for a combination, or None when it signs (the rules of §8.1)."""
    structured = encoding in (EIP712, EIP7702)
    if curve == ED25519:
        if structured:
            return "invalid payload encoding"
        return None if hash_function == NOT_APPLICABLE else "invalid hash function"
    if hash_function == NOT_APPLICABLE:
        return "invalid hash function"
    if structured and hash_function == SHA256:
        return "invalid hash function"
    return None


def expected_message(curve: str, encoding: str, hash_function: str) -> bytes:
    """What should be signed, computed without the emulator."""
    if encoding == EIP712:
        return typed_digest(MAIL)
    if encoding == EIP7702:
        return authorization_digest(AUTHORIZATION)
    data = DIGEST if encoding == HEX else TEXT_32.encode()
    if curve == ED25519 or hash_function == NO_OP:
        return data
    return hashlib.sha256(data).digest() if hash_function == SHA256 else keccak(data)


# --- independent verifiers -----------------------------------------------------------------

_P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
_B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
_G = (
    0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
    0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5,
)


def _add(p1, p2):
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2 and (y1 + y2) % _P == 0:
        return None
    if p1 == p2:
        slope = (3 * x1 * x1 - 3) * pow(2 * y1, -1, _P) % _P
    else:
        slope = (y2 - y1) * pow(x2 - x1, -1, _P) % _P
    x3 = (slope * slope - x1 - x2) % _P
    return x3, (slope * (x1 - x3) - y1) % _P


def _mul(k, point):
    result = None
    while k:
        if k & 1:
            result = _add(result, point)
        point, k = _add(point, point), k >> 1
    return result


def p256_recover(digest: bytes, sig: Signature) -> tuple[int, int]:
    """Textbook public-key recovery (SEC 1 §4.1.6) from r, s and the recovery id v."""
    r, s, v = int(sig.r, 16), int(sig.s, 16), int(sig.v, 16)
    x = r + (P256_N if v & 2 else 0)
    y = pow((x**3 - 3 * x + _B) % _P, (_P + 1) // 4, _P)
    if y & 1 != v & 1:
        y = _P - y
    e = int.from_bytes(digest, "big") % P256_N
    return _mul(pow(r, -1, P256_N), _add(_mul(s, (x, y)), _mul(-e % P256_N, _G)))


def p256_public(private_key: bytes) -> ec.EllipticCurvePublicKey:
    return ec.derive_private_key(int.from_bytes(private_key, "big"), ec.SECP256R1()).public_key()


def verify(curve: str, private_key: bytes, message: bytes, sig: Signature) -> None:
    """Check a signature with libraries other than the one that made it."""
    assert all(len(part) == 64 and part == part.lower() for part in (sig.r, sig.s))
    assert int(sig.r, 16) and int(sig.s, 16)
    if curve == ED25519:
        assert sig.v == "00"
        Ed25519PrivateKey.from_private_bytes(private_key).public_key().verify(
            sig.to_bytes(), message
        )
        return
    assert sig.v in ("00", "01")
    assert len(message) == 32
    if curve == SECP256K1:
        assert int(sig.s, 16) <= SECP256K1_N // 2
        eth_sig = eth_keys.Signature(vrs=(int(sig.v, 16), int(sig.r, 16), int(sig.s, 16)))
        recovered = eth_sig.recover_public_key_from_msg_hash(message)
        assert recovered == eth_keys.PrivateKey(private_key).public_key
        return
    assert int(sig.s, 16) <= P256_N // 2
    public = p256_public(private_key)
    der = encode_dss_signature(int(sig.r, 16), int(sig.s, 16))
    public.verify(der, message, ec.ECDSA(Prehashed(hashes.SHA256())))
    numbers = public.public_numbers()
    assert p256_recover(message, sig) == (numbers.x, numbers.y)
    flipped = Signature(sig.r, sig.s, f"{int(sig.v, 16) ^ 1:02x}")
    assert p256_recover(message, flipped) != (numbers.x, numbers.y)


# --- the matrix ----------------------------------------------------------------------------


@pytest.mark.parametrize("hash_function", HASH_FUNCTIONS)
@pytest.mark.parametrize("encoding", PAYLOAD_ENCODINGS)
@pytest.mark.parametrize("curve", CURVES)
def test_every_combination(curve: str, encoding: str, hash_function: str) -> None:
    error = expected_outcome(curve, encoding, hash_function)
    args = (curve, KEYS[curve], PAYLOADS[encoding], encoding, hash_function)
    if error is not None:
        with pytest.raises(SigningError) as caught:
            sign_payload(*args)
        assert str(caught.value) == error
        return
    sig = sign_payload(*args)
    message = expected_message(curve, encoding, hash_function)
    assert message_to_sign(curve, PAYLOADS[encoding], encoding, hash_function) == message
    verify(curve, KEYS[curve], message, sig)
    assert sign_payload(*args) == sig  # deterministic


def test_the_matrix_has_both_outcomes() -> None:
    outcomes = [
        expected_outcome(c, e, h) for c in CURVES for e in PAYLOAD_ENCODINGS for h in HASH_FUNCTIONS
    ]
    assert len(outcomes) == 48
    assert outcomes.count(None) == 22


def test_constants() -> None:
    assert (SECP256K1, ED25519, P256) == ("CURVE_SECP256K1", "CURVE_ED25519", "CURVE_P256")
    assert PAYLOAD_ENCODINGS == (HEX, TEXT, EIP712, EIP7702)
    assert HASH_FUNCTIONS == (NO_OP, SHA256, KECCAK, NOT_APPLICABLE)
    assert issubclass(SigningError, ValueError)


# --- error texts ---------------------------------------------------------------------------


@pytest.mark.parametrize("curve", [SECP256K1, P256])
@pytest.mark.parametrize(
    ("payload", "encoding"),
    [("", HEX), ("0x", HEX), ("00" * 31, HEX), ("0x" + "00" * 33, HEX), ("short", TEXT)],
)
def test_no_op_needs_a_32_byte_digest(curve: str, payload: str, encoding: str) -> None:
    with pytest.raises(SigningError) as caught:
        sign_payload(curve, KEYS[curve], payload, encoding, NO_OP)
    assert str(caught.value) == "expected a 32-bytes-long digest"


@pytest.mark.parametrize("curve", CURVES)
def test_unknown_encoding_and_hash_function(curve: str) -> None:
    with pytest.raises(SigningError) as caught:
        sign_payload(curve, KEYS[curve], "00", "PAYLOAD_ENCODING_BASE64", NOT_APPLICABLE)
    assert str(caught.value) == "invalid payload encoding"
    with pytest.raises(SigningError) as caught:
        sign_payload(curve, KEYS[curve], "00", HEX, "HASH_FUNCTION_SHA3")
    assert str(caught.value) == "invalid hash function"
    with pytest.raises(SigningError) as caught:
        sign_payload(curve, KEYS[curve], "00", "", "")
    assert str(caught.value) == "invalid payload encoding"


@pytest.mark.parametrize("payload", ["0xzz", "abc", "0x0", " 00", "00 ", "0x 00", "0x0x00", "ä0"])
@pytest.mark.parametrize("curve", CURVES)
def test_bad_hex(curve: str, payload: str) -> None:
    hash_function = NOT_APPLICABLE if curve == ED25519 else SHA256
    with pytest.raises(SigningError) as caught:
        sign_payload(curve, KEYS[curve], payload, HEX, hash_function)
    assert str(caught.value) == "invalid payload encoding: payload is not valid hexadecimal"


@pytest.mark.parametrize(
    "payload",
    [
        "",
        "not json",
        "[]",
        json.dumps({**MAIL, "primaryType": "Letter"}),
        json.dumps({**MAIL, "message": {"contents": "x"}}),
        "[" * 50_000,
    ],
)
@pytest.mark.parametrize("curve", [SECP256K1, P256])
def test_bad_typed_data(curve: str, payload: str) -> None:
    with pytest.raises(SigningError) as caught:
        sign_payload(curve, KEYS[curve], payload, EIP712, NO_OP)
    message = str(caught.value)
    assert message.startswith("invalid payload encoding: ")
    assert len(message) > len("invalid payload encoding: ")


def test_bad_typed_data_names_the_field() -> None:
    doc = copy.deepcopy(MAIL)
    doc["message"]["to"]["wallet"] = "0x1234"
    with pytest.raises(SigningError, match=r"^invalid payload encoding: .*message\.to\.wallet"):
        sign_payload(SECP256K1, KEYS[SECP256K1], json.dumps(doc), EIP712, NO_OP)


@pytest.mark.parametrize(
    "authorization",
    [
        "not json",
        "[]",
        {"chainId": 1, "nonce": 0},
        {"address": "0x1234", "chainId": 1, "nonce": 0},
        {
            "address": AUTHORIZATION["address"],
            "contractAddress": "0x" + "00" * 20,
            "chainId": 1,
            "nonce": 0,
        },
        {"address": AUTHORIZATION["address"], "nonce": 0},
        {"address": AUTHORIZATION["address"], "chainId": 1, "nonce": 2**64},
        {"address": AUTHORIZATION["address"], "chainId": -1, "nonce": 0},
        {"address": AUTHORIZATION["address"], "chainId": True, "nonce": 0},
        {"address": AUTHORIZATION["address"], "chainId": "one", "nonce": 0},
        "[" * 50_000,
    ],
)
def test_bad_authorizations(authorization) -> None:
    payload = authorization if isinstance(authorization, str) else json.dumps(authorization)
    with pytest.raises(SigningError) as caught:
        sign_payload(SECP256K1, KEYS[SECP256K1], payload, EIP7702, NO_OP)
    assert str(caught.value).startswith("invalid payload encoding: ")


def test_lone_surrogate_text_is_an_encoding_error() -> None:
    with pytest.raises(SigningError, match=r"^invalid payload encoding"):
        sign_payload(SECP256K1, KEYS[SECP256K1], "\ud800", TEXT, SHA256)


@pytest.mark.parametrize("bad_key", [b"", b"\x01" * 31, b"\x00" * 32, b"\xff" * 32])
@pytest.mark.parametrize("curve", [SECP256K1, P256])
def test_bad_ecdsa_private_keys(curve: str, bad_key: bytes) -> None:
    with pytest.raises(SigningError, match=r"^invalid private key$"):
        sign_payload(curve, bad_key, PAYLOADS[HEX], HEX, NO_OP)


def test_bad_ed25519_seed() -> None:
    with pytest.raises(SigningError, match=r"^invalid private key$"):
        sign_ed25519(b"\x01" * 31, b"message")


@pytest.mark.parametrize("digest", [b"", b"\x00" * 31, b"\x00" * 33])
def test_digest_signers_need_32_bytes(digest: bytes) -> None:
    for sign, curve in ((sign_digest_secp256k1, SECP256K1), (sign_digest_p256, P256)):
        with pytest.raises(SigningError, match=r"^expected a 32-bytes-long digest$"):
            sign(KEYS[curve], digest)


# --- payload decoding ----------------------------------------------------------------------


def test_hex_spellings_agree() -> None:
    raw = DIGEST.hex()
    spellings = [raw, raw.upper(), "0x" + raw, "0X" + raw, "0x" + raw.upper()]
    assert {payload_bytes(s, HEX) for s in spellings} == {DIGEST}
    assert len({sign_payload(SECP256K1, KEYS[SECP256K1], s, HEX, NO_OP) for s in spellings}) == 1


@pytest.mark.parametrize("payload", ["", "0x"])
def test_empty_hex_is_an_empty_payload(payload: str) -> None:
    assert payload_bytes(payload, HEX) == b""
    sig = sign_payload(SECP256K1, KEYS[SECP256K1], payload, HEX, SHA256)
    verify(SECP256K1, KEYS[SECP256K1], hashlib.sha256(b"").digest(), sig)
    sig = sign_payload(ED25519, KEYS[ED25519], payload, HEX, NOT_APPLICABLE)
    verify(ED25519, KEYS[ED25519], b"", sig)


def test_text_is_utf8() -> None:
    assert payload_bytes("héllo ✓", TEXT) == "héllo ✓".encode()
    assert payload_bytes("", TEXT) == b""


def test_typed_data_payload_is_its_digest() -> None:
    assert payload_bytes(json.dumps(MAIL), EIP712) == typed_digest(MAIL)
    assert payload_bytes(json.dumps(PERMIT), EIP712) == typed_digest(PERMIT)
    assert payload_bytes(json.dumps(AUTHORIZATION), EIP7702) == authorization_digest(AUTHORIZATION)


def test_keccak_is_raw_keccak_without_eip191_prefix() -> None:
    assert message_to_sign(SECP256K1, "hello", TEXT, KECCAK) == keccak(b"hello")


def test_structured_keccak_signs_the_digest_itself() -> None:
    for encoding in (EIP712, EIP7702):
        with_keccak = sign_payload(SECP256K1, KEYS[SECP256K1], PAYLOADS[encoding], encoding, KECCAK)
        with_no_op = sign_payload(SECP256K1, KEYS[SECP256K1], PAYLOADS[encoding], encoding, NO_OP)
        assert with_keccak == with_no_op


# --- agreement with known signatures -------------------------------------------------------


def test_eip712_spec_signature() -> None:
    # EIP-712's example signs Mail with keccak256("cow"): v 28, r 0x4355c47d…, s 0x07299936….
    sig = sign_payload(SECP256K1, keccak(b"cow"), json.dumps(MAIL), EIP712, NO_OP)
    assert sig.r == "4355c47d63924e8a72e509b65029052eb6c299d53a04e167c5775fd466751c9d"
    assert sig.s == "07299936d304c153f6443dfa05f40ff007d72911b6f72307f996231605b91562"
    assert sig.v == "01"


@pytest.mark.parametrize("document", [MAIL, PERMIT], ids=["mail", "permit"])
def test_typed_data_signature_equals_eth_account(document: dict) -> None:
    key = KEYS[SECP256K1]
    sig = sign_payload(SECP256K1, key, json.dumps(document), EIP712, NO_OP)
    expected = Account.sign_typed_data(key, full_message=copy.deepcopy(document))
    assert (int(sig.r, 16), int(sig.s, 16), int(sig.v, 16) + 27) == (
        expected.r,
        expected.s,
        expected.v,
    )


def test_authorization_signature_equals_eth_account() -> None:
    key = KEYS[SECP256K1]
    for payload in (
        AUTHORIZATION,
        {"contractAddress": AUTHORIZATION["address"], "chainId": "1337", "nonce": "0x7"},
    ):
        sig = sign_payload(SECP256K1, key, json.dumps(payload), EIP7702, NO_OP)
        expected = Account.sign_authorization(AUTHORIZATION, key)
        assert (int(sig.r, 16), int(sig.s, 16), int(sig.v, 16)) == (
            expected.r,
            expected.s,
            expected.y_parity,
        )


def test_p256_rfc6979_vector() -> None:
    # RFC 6979 A.2.5, P-256 with SHA-256, message "sample"; S is reported low-normalised.
    sig = sign_payload(P256, KEYS[P256], "sample", TEXT, SHA256)
    assert sig.r == "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716"
    high_s = 0xF7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8
    assert int(sig.s, 16) == P256_N - high_s
    verify(P256, KEYS[P256], hashlib.sha256(b"sample").digest(), sig)


def test_ed25519_rfc8032_vector() -> None:
    # RFC 8032 §7.1, TEST 1 (empty message).
    sig = sign_payload(ED25519, KEYS[ED25519], "", HEX, NOT_APPLICABLE)
    assert sig.to_bytes().hex() == (
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc6"
        "1e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
    )
    assert sig.v == "00"


def test_ed25519_does_not_verify_a_changed_message() -> None:
    sig = sign_payload(ED25519, KEYS[ED25519], "hello", TEXT, NOT_APPLICABLE)
    with pytest.raises(InvalidSignature):
        verify(ED25519, KEYS[ED25519], b"hellO", sig)


def test_signature_value() -> None:
    sig = sign_payload(SECP256K1, KEYS[SECP256K1], PAYLOADS[HEX], HEX, NO_OP)
    assert sig.to_bytes() == bytes.fromhex(sig.r + sig.s) and len(sig.to_bytes()) == 64
    assert sig.recovery_id == int(sig.v, 16)
    with pytest.raises(AttributeError):
        sig.r = "00"  # type: ignore[misc]


# --- properties ----------------------------------------------------------------------------

secp256k1_keys = st.integers(1, SECP256K1_N - 1).map(lambda k: k.to_bytes(32, "big"))
p256_keys = st.integers(1, P256_N - 1).map(lambda k: k.to_bytes(32, "big"))
ed25519_seeds = st.binary(min_size=32, max_size=32)
KEY_STRATEGIES = {SECP256K1: secp256k1_keys, P256: p256_keys, ED25519: ed25519_seeds}


@pytest.mark.parametrize("curve", CURVES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_payload_signs_and_verifies(curve: str, data) -> None:
    key = data.draw(KEY_STRATEGIES[curve])
    if data.draw(st.booleans()):
        raw = data.draw(st.binary(max_size=200))
        payload, encoding = data.draw(st.sampled_from(["", "0x", "0X"])) + raw.hex(), HEX
    else:
        payload, encoding = data.draw(st.text(max_size=100)), TEXT
        raw = payload.encode()
    if curve == ED25519:
        hash_function, message = NOT_APPLICABLE, raw
    else:
        hash_function = data.draw(st.sampled_from([SHA256, KECCAK]))
        message = hashlib.sha256(raw).digest() if hash_function == SHA256 else keccak(raw)
    sig = sign_payload(curve, key, payload, encoding, hash_function)
    verify(curve, key, message, sig)


@settings(max_examples=60, deadline=None)
@given(key=secp256k1_keys, digest=st.binary(min_size=32, max_size=32))
def test_secp256k1_matches_eth_account_byte_for_byte(key: bytes, digest: bytes) -> None:
    sig = sign_digest_secp256k1(key, digest)
    expected = Account.unsafe_sign_hash(digest, key)
    assert (int(sig.r, 16), int(sig.s, 16), int(sig.v, 16) + 27) == (
        expected.r,
        expected.s,
        expected.v,
    )
    verify(SECP256K1, key, digest, sig)


@settings(max_examples=60, deadline=None)
@given(key=p256_keys, digest=st.binary(min_size=32, max_size=32))
def test_p256_is_low_s_with_a_meaningful_recovery_id(key: bytes, digest: bytes) -> None:
    sig = sign_digest_p256(key, digest)
    verify(P256, key, digest, sig)
    assert sign_digest_p256(key, digest) == sig
