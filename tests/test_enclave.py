"""The emulator's enclave keys (``emulator/crypto/enclave.py``) and the ES256 JWTs they sign
(``emulator/crypto/jwt.py``).

Turnkey's own tokens (``fixtures/hpke-vectors.json``: a session JWT signed by the
production notarizer, an OTP verification token signed by the production TLS
fetcher) check the verifier; PyJWT and ``cryptography`` check what we sign.
"""

from __future__ import annotations

import copy
import hashlib
import json
from functools import cache
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, encode_dss_signature

from emulator import Emulator
from emulator.crypto import jwt
from emulator.crypto.enclave import (
    NOTARIZER,
    ROLES,
    SIGNER,
    TLS_FETCHER,
    TLS_FETCHER_ENCRYPT,
    EnclaveKeys,
)
from emulator.crypto.encoding import b64url_decode, b64url_encode
from emulator.testing import client_crypto

from .vectors import FIXTURES

pyjwt = pytest.importorskip("jwt")


@cache
def turnkey_vectors() -> dict[str, Any]:
    return json.loads((FIXTURES / "hpke-vectors.json").read_text())["turnkey"]


def public_key(hex_key: str) -> ec.EllipticCurvePublicKey:
    return ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(hex_key))


def production_key(role: str) -> ec.EllipticCurvePublicKey:
    return public_key(turnkey_vectors()["production_keys"][role])


def pem(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def raw_signature_ok(token: str, key: ec.EllipticCurvePublicKey, digest: bytes) -> bool:
    """Whether the token's raw ``r ‖ s`` signs ``digest``, checked by ``cryptography``."""
    signature = b64url_decode(token.rsplit(".", 1)[1])
    der = encode_dss_signature(
        int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    )
    try:
        key.verify(der, digest, ec.ECDSA(Prehashed(hashes.SHA256())))
    except InvalidSignature:
        return False
    return True


def signing_input(token: str) -> bytes:
    return token.rsplit(".", 1)[0].encode()


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def private_scalar_hex(keys: EnclaveKeys, role: str) -> str:
    return f"{keys.key(role).private_numbers().private_value:064x}"


# ----- EnclaveKeys -------------------------------------------------------------------


def test_a_seed_makes_the_same_keys_and_each_role_its_own():
    one, two = EnclaveKeys.create(7), EnclaveKeys.create(7)
    assert [one.public_key(role) for role in ROLES] == [two.public_key(role) for role in ROLES]
    assert len({one.public_key(role) for role in ROLES}) == 4
    other = EnclaveKeys.create(8)
    assert not {one.public_key(r) for r in ROLES} & {other.public_key(r) for r in ROLES}
    assert EnclaveKeys.create(0).signer_public_key != one.signer_public_key


def test_unseeded_keys_are_fresh():
    one, two = EnclaveKeys.create(), EnclaveKeys.create(None)
    assert not {one.public_key(r) for r in ROLES} & {two.public_key(r) for r in ROLES}
    assert len({one.public_key(role) for role in ROLES}) == 4


def test_public_keys_are_uncompressed_p256_hex_and_match_the_properties():
    keys = EnclaveKeys.create(7)
    assert ROLES == (SIGNER, NOTARIZER, TLS_FETCHER, TLS_FETCHER_ENCRYPT)
    assert ROLES == ("signer", "notarizer", "tls_fetcher", "tls_fetcher_encrypt")
    assert keys.signer_public_key == keys.public_key(SIGNER)
    assert keys.notarizer_public_key == keys.public_key(NOTARIZER)
    assert keys.tls_fetcher_public_key == keys.public_key(TLS_FETCHER)
    assert keys.tls_fetcher_encrypt_public_key == keys.public_key(TLS_FETCHER_ENCRYPT)
    for role in ROLES:
        hex_key = keys.public_key(role)
        assert len(hex_key) == 130 and hex_key.startswith("04") and hex_key == hex_key.lower()
        assert public_key(hex_key).public_numbers() == keys.key(role).public_key().public_numbers()
    with pytest.raises(KeyError):
        keys.public_key("root")


def test_a_document_without_the_encryption_key_gets_one_derived_from_the_tls_fetcher():
    keys = EnclaveKeys.create(7)
    older = {role: s for role, s in keys.secrets().items() if role != TLS_FETCHER_ENCRYPT}
    one, two = EnclaveKeys.from_secrets(older), EnclaveKeys.from_secrets(older)
    assert one.tls_fetcher_encrypt_public_key == two.tls_fetcher_encrypt_public_key
    assert one.tls_fetcher_encrypt_public_key not in {keys.public_key(r) for r in ROLES}
    assert one.tls_fetcher_public_key == keys.tls_fetcher_public_key


def test_repr_shows_no_private_key():
    keys = EnclaveKeys.create(7)
    text = repr(keys) + str(keys)
    assert text == f"EnclaveKeys(signer={keys.signer_public_key[:18]}…)" * 2
    for role in ROLES:
        assert private_scalar_hex(keys, role) not in text
        assert private_scalar_hex(keys, role)[:16] not in text


def test_deepcopy_returns_the_same_object_and_keys_are_built_once():
    keys = EnclaveKeys.create(7)
    assert copy.deepcopy(keys) is keys
    assert copy.deepcopy({"k": keys})["k"] is keys
    assert keys.key(SIGNER) is keys.key(SIGNER)  # built on first use, then kept
    with pytest.raises(AttributeError):
        keys.extra = 1  # type: ignore[attr-defined]


def test_emulator_with_a_seed_has_the_same_enclave_every_time():
    one, two = Emulator(seed=7), Emulator(seed=7)
    assert one.enclave is not two.enclave
    for role in ROLES:
        assert one.enclave.public_key(role) == two.enclave.public_key(role)
        assert one.enclave.public_key(role) == EnclaveKeys.create(7).public_key(role)
    assert Emulator(seed=8).enclave.signer_public_key != one.enclave.signer_public_key
    assert Emulator().enclave.signer_public_key != Emulator().enclave.signer_public_key
    assert one.enclave is one.world.enclave


def test_the_enclave_outlives_snapshots_checkpoints_and_reset():
    emu = Emulator(seed=7)
    enclave = emu.enclave
    mark = emu.checkpoint()
    emu.create_organization("Acme")
    emu.rollback(mark)
    saved = emu.snapshot()
    emu.create_organization("Acme")
    emu.restore(saved)
    emu.reset()
    assert emu.enclave is enclave


@pytest.mark.parametrize("seed", [7, None])
def test_a_saved_emulator_comes_back_with_its_enclave_keys(seed):
    emu = Emulator(seed=seed)
    emu.create_organization("Acme")
    document = emu.to_document()
    again = Emulator.from_document(document)
    assert [again.enclave.public_key(r) for r in ROLES] == [
        emu.enclave.public_key(r) for r in ROLES
    ]
    # A document from before the keys were saved: a seeded emulator makes them again.
    del document["enclave"]
    older = Emulator.from_document(document)
    same = [older.enclave.public_key(r) == emu.enclave.public_key(r) for r in ROLES]
    assert same == [seed is not None] * len(ROLES)


def test_a_document_with_a_bad_enclave_key_is_refused():
    document = Emulator(seed=7).to_document()
    document["enclave"]["notarizer"] = "00"
    with pytest.raises(ValueError, match=r"enclave\.notarizer: a 32-byte private key as hex"):
        Emulator.from_document(document)


@pytest.mark.parametrize("role", ROLES)
def test_signatures_verify_against_the_roles_public_key_only(role):
    keys = Emulator(seed=7).enclave
    data = b'{"organizationId":"o"}'
    signature = keys.sign(role, data)
    public_key(keys.public_key(role)).verify(signature, data, ec.ECDSA(hashes.SHA256()))
    with pytest.raises(InvalidSignature):
        public_key(keys.public_key(role)).verify(signature, data + b" ", ec.ECDSA(hashes.SHA256()))
    for other in ROLES:
        if other != role:
            with pytest.raises(InvalidSignature):
                public_key(keys.public_key(other)).verify(
                    signature, data, ec.ECDSA(hashes.SHA256())
                )
    # RFC 6979: the same data, the same signature (a seeded emulator repeats itself).
    assert keys.sign(role, data) == signature
    assert EnclaveKeys.create(7).sign(role, data) == signature


# ----- Turnkey's tokens ------------------------------------------------------------


SESSION_CLAIMS = {
    "exp": 1748876837,
    "public_key": "0399fe2ace6208af0adf848f44bc48210b594b7e69ecd91ec968fd75b3bb448336",
    "session_type": "SESSION_TYPE_READ_WRITE",
    "user_id": "6912b819-f4df-40f4-a192-20ee43090974",
    "organization_id": "c75ecb07-c84a-4dd5-932c-539dfafc6864",
}

OTP_CLAIMS = {
    "exp": "1782919651261",
    "id": "eb39b199-3352-4289-b31f-57194c79609c",
    "organization_id": "7ff189fb-df7d-452e-8540-57632e380b77",
    "verification_type": "OTP_TYPE_EMAIL",
    "contact": "user@example.com",
    "public_key": "036335b78f92736e32e99dc6aed979aff0b5c24192e76b1628aa54edaf58c8c15d",
}


def test_turnkeys_session_jwt_verifies_under_the_production_notarizer_key():
    token = turnkey_vectors()["session_jwt"]["jwt"]
    notarizer = turnkey_vectors()["production_keys"]["notarizer"]
    claims = client_crypto.verify_session_jwt(token, notarizer)
    assert claims == SESSION_CLAIMS and list(claims) == list(SESSION_CLAIMS)
    assert jwt.decode(token)[0] == {"alg": "ES256", "typ": "JWT"}
    # Independently: the signature is over SHA-256(SHA-256(header.payload)), not one hash.
    assert raw_signature_ok(
        token, production_key("notarizer"), sha256(sha256(signing_input(token)))
    )
    assert not raw_signature_ok(token, production_key("notarizer"), sha256(signing_input(token)))
    with pytest.raises(jwt.JwtError, match=r"^signature is invalid$"):
        jwt.verify_es256(token, production_key("notarizer"))  # single hash


def test_turnkeys_session_jwt_fails_under_another_key():
    token = turnkey_vectors()["session_jwt"]["jwt"]
    keys = turnkey_vectors()["production_keys"]
    for other in (
        keys["signer"],
        keys["tls_fetcher"],
        Emulator(seed=7).enclave.notarizer_public_key,
    ):
        with pytest.raises(jwt.JwtError, match=r"^signature is invalid$"):
            client_crypto.verify_session_jwt(token, other)


def test_turnkeys_otp_token_verifies_with_a_single_hash_under_the_tls_fetcher_key():
    token = turnkey_vectors()["otp_verification_token"]["jwt"]
    claims = jwt.verify_es256(token, production_key("tls_fetcher"))
    assert claims == OTP_CLAIMS and list(claims) == list(OTP_CLAIMS)
    assert jwt.decode(token)[0] == {"typ": "JWT", "alg": "ES256"}
    assert raw_signature_ok(token, production_key("tls_fetcher"), sha256(signing_input(token)))
    with pytest.raises(jwt.JwtError, match=r"^signature is invalid$"):
        jwt.verify_es256(token, production_key("tls_fetcher"), double_hash=True)
    with pytest.raises(jwt.JwtError, match=r"^signature is invalid$"):
        jwt.verify_es256(token, production_key("notarizer"))


def test_pyjwt_agrees_on_turnkeys_tokens():
    otp = turnkey_vectors()["otp_verification_token"]["jwt"]
    decoded = pyjwt.decode(
        otp, pem(production_key("tls_fetcher")), algorithms=["ES256"], options={"verify_exp": False}
    )
    assert decoded == OTP_CLAIMS
    # The session JWT's double hash is not standard ES256: PyJWT cannot check it.
    session = turnkey_vectors()["session_jwt"]["jwt"]
    with pytest.raises(pyjwt.InvalidSignatureError):
        pyjwt.decode(
            session,
            pem(production_key("notarizer")),
            algorithms=["ES256"],
            options={"verify_exp": False},
        )


# ----- our tokens -------------------------------------------------------------------


CLAIMS = {"z": 1, "a": "two", "m": [3, {"k": None}], "exp": 1700000000}


@pytest.fixture(scope="module")
def notarizer() -> ec.EllipticCurvePrivateKey:
    return EnclaveKeys.create(7).key(NOTARIZER)


def test_sign_es256_is_standard_es256_that_pyjwt_verifies(notarizer):
    token = jwt.sign_es256(CLAIMS, notarizer)
    decoded = pyjwt.decode(
        token, pem(notarizer.public_key()), algorithms=["ES256"], options={"verify_exp": False}
    )
    assert decoded == CLAIMS
    assert pyjwt.get_unverified_header(token) == {"alg": "ES256", "typ": "JWT"}
    assert jwt.verify_es256(token, notarizer.public_key()) == CLAIMS


def test_header_and_claims_are_compact_json_in_the_order_given(notarizer):
    token = jwt.sign_es256(CLAIMS, notarizer)
    header, payload, signature = token.split(".")
    assert b64url_decode(header) == b'{"alg":"ES256","typ":"JWT"}'
    assert header == turnkey_vectors()["session_jwt"]["jwt"].split(".")[0]
    assert b64url_decode(payload) == b'{"z":1,"a":"two","m":[3,{"k":null}],"exp":1700000000}'
    assert "=" not in token and len(b64url_decode(signature)) == 64
    assert b64url_encode(b64url_decode(signature)) == signature
    custom = jwt.sign_es256({"b": 1}, notarizer, header={"typ": "JWT", "alg": "ES256"})
    assert b64url_decode(custom.split(".")[0]) == b'{"typ":"JWT","alg":"ES256"}'
    assert jwt.decode(custom)[:2] == ({"typ": "JWT", "alg": "ES256"}, {"b": 1})


def test_double_hash_tokens_verify_only_as_double_hash(notarizer):
    token = jwt.sign_es256(CLAIMS, notarizer, double_hash=True)
    public = notarizer.public_key()
    assert jwt.verify_es256(token, public, double_hash=True) == CLAIMS
    assert raw_signature_ok(token, public, sha256(sha256(signing_input(token))))
    with pytest.raises(jwt.JwtError, match=r"^signature is invalid$"):
        jwt.verify_es256(token, public)
    with pytest.raises(pyjwt.InvalidSignatureError):
        pyjwt.decode(token, pem(public), algorithms=["ES256"], options={"verify_exp": False})
    single = jwt.sign_es256(CLAIMS, notarizer)
    with pytest.raises(jwt.JwtError, match=r"^signature is invalid$"):
        jwt.verify_es256(single, public, double_hash=True)


def test_signing_is_deterministic(notarizer):
    assert jwt.sign_es256(CLAIMS, notarizer) == jwt.sign_es256(CLAIMS, notarizer)
    assert jwt.sign_es256(CLAIMS, notarizer, double_hash=True) == jwt.sign_es256(
        CLAIMS, notarizer, double_hash=True
    )


def test_the_notarizer_session_token_verifies_with_the_client_side(notarizer):
    keys = EnclaveKeys.create(7)
    token = jwt.sign_es256(SESSION_CLAIMS, keys.key(NOTARIZER), double_hash=True)
    assert client_crypto.verify_session_jwt(token, keys.notarizer_public_key) == SESSION_CLAIMS
    with pytest.raises(jwt.JwtError):
        client_crypto.verify_session_jwt(token, keys.signer_public_key)


def with_header(token: str, header: dict[str, Any]) -> str:
    _, payload, signature = token.split(".")
    return ".".join([b64url_encode(json.dumps(header).encode()), payload, signature])


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ({"alg": "none", "typ": "JWT"}, "^unsupported alg 'none'$"),
        ({"alg": "HS256", "typ": "JWT"}, "^unsupported alg 'HS256'$"),
        ({"alg": "es256", "typ": "JWT"}, "^unsupported alg 'es256'$"),
        ({"typ": "JWT"}, "^unsupported alg None$"),
    ],
)
def test_verify_refuses_another_alg(notarizer, header, message):
    token = with_header(jwt.sign_es256(CLAIMS, notarizer), header)
    with pytest.raises(jwt.JwtError, match=message):
        jwt.verify_es256(token, notarizer.public_key())


def test_verify_refuses_a_signature_of_the_wrong_length(notarizer):
    token = jwt.sign_es256(CLAIMS, notarizer)
    head, signature = token.rsplit(".", 1)
    raw = b64url_decode(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    for bad in (raw[:-1], raw + b"\0", b"", der):
        with pytest.raises(jwt.JwtError, match=r"^an ES256 signature is 64 bytes$"):
            jwt.verify_es256(f"{head}.{b64url_encode(bad)}", notarizer.public_key())


def test_verify_refuses_tampering(notarizer):
    token = jwt.sign_es256(CLAIMS, notarizer)
    header, payload, signature = token.split(".")
    forged = b64url_encode(json.dumps({**CLAIMS, "exp": 1900000000}).encode())
    raw = bytearray(b64url_decode(signature))
    raw[5] ^= 1
    for bad in (
        f"{header}.{forged}.{signature}",
        f"{header}.{payload}.{b64url_encode(bytes(raw))}",
        f"{header}.{payload}.{b64url_encode(bytes(64))}",
        f"{header}.{payload}.{b64url_encode(bytes([255]) * 64)}",
    ):
        with pytest.raises(jwt.JwtError, match=r"^signature is invalid$"):
            jwt.verify_es256(bad, notarizer.public_key())
    with pytest.raises(jwt.JwtError, match=r"^signature is invalid$"):
        jwt.verify_es256(token, EnclaveKeys.create(7).key(SIGNER).public_key())


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("", "^a JWT has three dot-separated parts$"),
        ("a.b", "^a JWT has three dot-separated parts$"),
        ("a.b.c.d", "^a JWT has three dot-separated parts$"),
        (None, "^a JWT has three dot-separated parts$"),
        (b"a.b.c", "^a JWT has three dot-separated parts$"),
        ("e30.bm90IGpzb24.AA", "^unreadable JWT: "),  # payload "not json"
        ("bm90IGpzb24.e30.AA", "^unreadable JWT: "),  # header "not json"
        ("e30.e30.A", "^unreadable JWT: "),  # one base64 character is no byte
        ("e30.__8.AA", "^unreadable JWT: "),  # payload not UTF-8
        ("W10.e30.AA", "^JWT header and payload must be JSON objects$"),  # header []
        ("e30.MQ.AA", "^JWT header and payload must be JSON objects$"),  # payload 1
    ],
)
def test_verify_refuses_what_is_not_a_jwt(notarizer, token, message):
    with pytest.raises(jwt.JwtError, match=message):
        jwt.verify_es256(token, notarizer.public_key())
    assert issubclass(jwt.JwtError, ValueError)
