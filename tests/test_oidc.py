"""The built-in OIDC identity provider and OIDC token verification (services/oidc.py)."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from emulator import Emulator, TurnkeyApiError
from emulator.facade.oidc import DEFAULT_ISSUER, OidcProvider, nonce_for
from emulator.ground import messages
from emulator.services.oidc import OidcIdentity, verify_token

from .helpers import error_of

# reference §7.6 (social-logins.mdx): a public key and the nonce that binds a token to it
VECTOR_PUBLIC_KEY = "0394e549c71fa99dd5cf752fba623090be314949b74e4cdf7ca72031dd638e281a"
VECTOR_NONCE = "1663bba492a323085b13895634a3618792c4ec6896f3c34ef3c26396df22ef82"
NOW_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
NOW_S = NOW_MS // 1000
INVALID = (400, 3, messages.INVALID_OIDC_TOKEN, "INVALID_OIDC_TOKEN")


def _b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _parts(token: str) -> tuple[dict, dict, bytes]:
    header, payload, signature = token.split(".")
    return json.loads(_b64decode(header)), json.loads(_b64decode(payload)), _b64decode(signature)


@pytest.fixture
def emu() -> Emulator:
    emulator = Emulator(seed=11)
    emulator.clock.freeze(NOW_MS)
    return emulator


def verify(emu: Emulator, token: str, public_key: str | None = None) -> OidcIdentity:
    return verify_token(emu.world, token, emu.clock.now_ns(), public_key=public_key)


def rejected(emu: Emulator, token: object, public_key: str | None = None) -> tuple:
    with pytest.raises(TurnkeyApiError) as caught:
        verify_token(emu.world, token, emu.clock.now_ns(), public_key=public_key)
    return error_of(caught.value)


def test_nonce_is_sha256_of_the_public_key_hex():
    assert nonce_for(VECTOR_PUBLIC_KEY) == VECTOR_NONCE
    assert OidcProvider.nonce_for(VECTOR_PUBLIC_KEY) == VECTOR_NONCE
    assert Emulator().oidc.nonce_for(VECTOR_PUBLIC_KEY) == VECTOR_NONCE


def test_token_claims_and_header(emu):
    nonce = nonce_for(VECTOR_PUBLIC_KEY)
    token = emu.oidc.token(
        sub="user-1", aud="app", nonce=nonce, email="ann@example.test", email_verified=True
    )
    header, claims, signature = _parts(token)
    assert header == {"alg": "RS256", "kid": emu.oidc.key_id, "typ": "JWT"}
    assert claims == {
        "iss": DEFAULT_ISSUER,
        "aud": "app",
        "sub": "user-1",
        "email": "ann@example.test",
        "email_verified": True,
        "nonce": VECTOR_NONCE,
        "iat": NOW_S,
        "exp": NOW_S + 3600,
    }
    assert len(signature) == 256  # RS256 with a 2048-bit key
    short = _parts(
        emu.oidc.token(sub="u", aud=None, expires_in=60, issued_at=5, extra_claims={"iat": None})
    )[1]
    assert short == {"iss": DEFAULT_ISSUER, "sub": "u", "exp": 65}


def test_jwks_verifies_the_token_independently(emu):
    token = emu.oidc.token(sub="user-1", aud="app")
    (jwk,) = emu.oidc.jwks()["keys"]
    assert sorted(jwk) == ["alg", "e", "kid", "kty", "n", "use"]
    assert (jwk["kty"], jwk["alg"], jwk["use"], jwk["e"]) == ("RSA", "RS256", "sig", "AQAB")
    modulus = int.from_bytes(_b64decode(jwk["n"]), "big")
    assert modulus.bit_length() == 2048
    public = rsa.RSAPublicNumbers(65537, modulus).public_key()
    head, body, signature = token.split(".")
    public.verify(
        _b64decode(signature), f"{head}.{body}".encode(), padding.PKCS1v15(), hashes.SHA256()
    )
    with pytest.raises(InvalidSignature):
        public.verify(
            _b64decode(signature), f"{head}.{body}x".encode(), padding.PKCS1v15(), hashes.SHA256()
        )
    # kid is the RFC 7638 thumbprint of the key
    canonical = json.dumps({"e": jwk["e"], "kty": "RSA", "n": jwk["n"]}, separators=(",", ":"))
    assert jwk["kid"] == _b64encode(hashlib.sha256(canonical.encode()).digest())


def test_es256_provider_jwks_verifies_independently():
    provider = OidcProvider("https://es.example.invalid", seed=3, algorithm="ES256")
    token = provider.token(sub="s", aud="a", issued_at=100)
    (jwk,) = provider.jwks()["keys"]
    assert (jwk["kty"], jwk["crv"], jwk["alg"]) == ("EC", "P-256", "ES256")
    x, y = (int.from_bytes(_b64decode(jwk[c]), "big") for c in ("x", "y"))
    public = ec.EllipticCurvePublicNumbers(x, y, ec.SECP256R1()).public_key()
    head, body, signature = token.split(".")
    raw = _b64decode(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
    assert _parts(token)[0]["alg"] == "ES256"


def test_a_seeded_provider_has_the_same_key_on_every_run():
    first, second = Emulator(seed=11), Emulator(seed=11)
    assert first.oidc.jwks() == second.oidc.jwks()
    assert first.oidc.key_id == "Fa49RoojYm0ctq__IZtg068AVg22i14-_4Qc-n7dsb8"
    assert Emulator(seed=12).oidc.key_id != first.oidc.key_id
    assert Emulator().oidc.key_id != Emulator().oidc.key_id
    assert (
        OidcProvider("https://a.invalid", seed=1, algorithm="ES256").key_id
        != OidcProvider("https://b.invalid", seed=1, algorithm="ES256").key_id
    )


def test_the_emulator_trusts_its_own_provider(emu):
    nonce = nonce_for(VECTOR_PUBLIC_KEY)
    token = emu.oidc.token(
        sub="user-1", aud="app", nonce=nonce, email="Ann@Gmail.test", email_verified=True
    )
    identity = verify(emu, token, VECTOR_PUBLIC_KEY)
    assert (identity.issuer, identity.subject, identity.audiences) == (
        DEFAULT_ISSUER,
        "user-1",
        ("app",),
    )
    assert (identity.email, identity.email_verified, identity.is_google) == (
        "Ann@Gmail.test",
        True,
        False,
    )
    assert emu.oidc.trusted_issuers == (DEFAULT_ISSUER,)
    # without a key to bind, the nonce is not looked at
    assert verify(emu, emu.oidc.token(sub="u", aud="app")).subject == "u"


def test_accepted_variants(emu):
    bound = nonce_for(VECTOR_PUBLIC_KEY)
    tknonce = emu.oidc.token(sub="u", aud="app", extra_claims={"tknonce": bound})
    assert verify(emu, tknonce, VECTOR_PUBLIC_KEY).subject == "u"
    either = emu.oidc.token(sub="u", aud="app", nonce="other", extra_claims={"tknonce": bound})
    assert verify(emu, either, VECTOR_PUBLIC_KEY).subject == "u"
    audiences = emu.oidc.token(sub="u", aud=["web", "ios"])
    assert verify(emu, audiences).audiences == ("web", "ios")
    assert verify(emu, audiences).audience == "web"
    apple = emu.oidc.token(
        sub="u", aud="app", email="a@b.test", extra_claims={"email_verified": "true"}
    )
    assert verify(emu, apple).email_verified is True
    no_kid = emu.oidc.sign(
        {"iss": DEFAULT_ISSUER, "sub": "u", "aud": "a", "exp": NOW_S + 1}, {"alg": "RS256"}
    )
    assert verify(emu, no_kid).subject == "u"
    not_before_now = emu.oidc.token(sub="u", aud="a", extra_claims={"nbf": NOW_S})
    assert verify(emu, not_before_now).subject == "u"


def _tamper_signature(token: str) -> str:
    head, body, signature = token.split(".")
    raw = bytearray(_b64decode(signature))
    raw[10] ^= 1
    return f"{head}.{body}.{_b64encode(bytes(raw))}"


def _tamper_claims(token: str, **changes) -> str:
    head, body, signature = token.split(".")
    claims = {**json.loads(_b64decode(body)), **changes}
    return f"{head}.{_b64encode(json.dumps(claims).encode())}.{signature}"


def test_every_failure_is_invalid_oidc_token(emu):
    stranger = OidcProvider("https://stranger.invalid")
    good = emu.oidc.token(sub="u", aud="app", nonce=VECTOR_NONCE)
    assert verify(emu, good, VECTOR_PUBLIC_KEY).subject == "u"
    unsigned = _b64encode(json.dumps({"alg": "none"}).encode())
    cases = {
        "tampered signature": _tamper_signature(good),
        "tampered claims": _tamper_claims(good, sub="mallory"),
        "unknown issuer": stranger.token(sub="u", aud="app", nonce=VECTOR_NONCE),
        "issuer renamed": _tamper_claims(good, iss="https://stranger.invalid"),
        "signed by another key": stranger.sign(
            {
                "iss": DEFAULT_ISSUER,
                "sub": "u",
                "aud": "app",
                "nonce": VECTOR_NONCE,
                "exp": NOW_S + 9,
            }
        ),
        "alg none": f"{unsigned}.{good.split('.')[1]}.",
        "wrong nonce": emu.oidc.token(sub="u", aud="app", nonce=nonce_for("02" + "ab" * 32)),
        "no nonce": emu.oidc.token(sub="u", aud="app"),
        "missing aud": emu.oidc.token(sub="u", aud=None, nonce=VECTOR_NONCE),
        "empty aud list": emu.oidc.token(sub="u", aud=[], nonce=VECTOR_NONCE),
        "missing sub": emu.oidc.token(sub=None, aud="app", nonce=VECTOR_NONCE),
        "missing exp": emu.oidc.token(
            sub="u", aud="app", nonce=VECTOR_NONCE, extra_claims={"exp": None}
        ),
        "exp now": emu.oidc.token(sub="u", aud="app", nonce=VECTOR_NONCE, expires_in=0),
        "exp not a number": emu.oidc.token(
            sub="u", aud="app", nonce=VECTOR_NONCE, extra_claims={"exp": str(NOW_S + 60)}
        ),
        "not yet valid": emu.oidc.token(
            sub="u", aud="app", nonce=VECTOR_NONCE, extra_claims={"nbf": NOW_S + 1}
        ),
        "two parts": "a.b",
        "not base64": "!!.??.**",
    }
    for name, token in cases.items():
        assert rejected(emu, token, VECTOR_PUBLIC_KEY) == INVALID, name
    assert rejected(emu, None) == INVALID


def test_a_token_expires_on_the_virtual_clock(emu):
    token = emu.oidc.token(sub="u", aud="app", expires_in=60)
    emu.clock.advance(59)
    assert verify(emu, token).subject == "u"
    emu.clock.advance(1)
    assert rejected(emu, token) == INVALID


def test_trust_another_issuer(emu):
    es = OidcProvider("https://es.example.invalid", seed=3, algorithm="ES256", clock=emu.clock)
    token = es.token(sub="s", aud="a")
    assert rejected(emu, token) == INVALID
    emu.oidc.trust(es.issuer, es.jwks())  # a JWK set, as an issuer publishes it
    assert verify(emu, token).issuer == "https://es.example.invalid"
    assert emu.oidc.trusted_issuers == (DEFAULT_ISSUER, "https://es.example.invalid")
    # tampering with an ES256 signature is caught as well
    assert rejected(emu, _tamper_signature(token)) == INVALID
    emu.oidc.distrust(es)
    assert rejected(emu, token) == INVALID
    rs = OidcProvider("https://rs.example.invalid", clock=emu.clock)
    emu.oidc.trust(rs)  # a provider brings its own keys
    assert verify(emu, rs.token(sub="s", aud="a")).subject == "s"
    # keys that are not the issuer's do not verify its tokens
    emu.oidc.trust(rs.issuer, es.jwks())
    assert rejected(emu, rs.token(sub="s", aud="a")) == INVALID


def test_trust_checks_its_arguments(emu):
    with pytest.raises(ValueError, match="unusable JWKS"):
        emu.oidc.trust("https://x.invalid", {"keys": [{"kty": "oct", "k": "c2VjcmV0"}]})
    with pytest.raises(ValueError, match="unusable JWKS"):
        emu.oidc.trust("https://x.invalid", {"kid": "no keys"})
    with pytest.raises(TypeError):
        emu.oidc.trust("https://x.invalid")
    with pytest.raises(TypeError):
        emu.oidc.trust(OidcProvider(), {"keys": []})
    with pytest.raises(ValueError):
        OidcProvider(algorithm="HS256")
    assert emu.oidc.trusted_issuers == (DEFAULT_ISSUER,)


def test_rollback_undoes_a_trust(emu):
    other = OidcProvider("https://other.invalid", clock=emu.clock, algorithm="ES256")
    checkpoint = emu.checkpoint()
    emu.oidc.trust(other)
    assert verify(emu, other.token(sub="s", aud="a")).subject == "s"
    emu.rollback(checkpoint)
    assert emu.oidc.trusted_issuers == (DEFAULT_ISSUER,)
    assert rejected(emu, other.token(sub="s", aud="a")) == INVALID
