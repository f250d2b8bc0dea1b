"""A test OIDC identity provider: the Google of the emulated world.

Social logins (``oauth``, ``oauth_login``, ``create_oauth_providers``) take an
OIDC ID token signed by the user's identity provider. ``OidcProvider`` issues
such tokens: RS256 (as Google signs) or ES256, with its key published as a JWK
set (``jwks()``). Every emulator has one built in and trusts it (``emu.oidc``,
issuer ``https://oidc.turnkey-emulator.invalid``); a test may make more (say, one
whose issuer is ``https://accounts.google.com``) and have the emulator trust
them with ``emu.oidc.trust(provider)`` or ``emu.oidc.trust(issuer, jwks)``.

A provider's key is derived from its seed when it has one (a seeded emulator's
built-in provider has the same key on every run), otherwise fresh; the key is
made when first needed. Token times come from the provider's clock (the
emulator's clock for ``emu.oidc``). ``nonce_for(public_key)`` is the ``nonce``
that binds a token to a client key: hex(SHA-256(ASCII of the key's hex)).

Trust is configuration, not state, like the settings: ``checkpoint``/``rollback``
(and so the pytest plugin, after each test) undo a ``trust``, but snapshots and
saved documents do not carry it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import lru_cache
from math import gcd, prod
from typing import TYPE_CHECKING, Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from ..crypto.curves import P256_ORDER
from ..crypto.encoding import b64url_encode
from ..ground.clock import Clock
from ..services.oidc import ES256, RS256, JwkError, check_jwks, nonce_for

if TYPE_CHECKING:
    from ..engine_state.world import World

Json = dict[str, Any]

DEFAULT_ISSUER = "https://oidc.turnkey-emulator.invalid"
DEFAULT_EXPIRES_IN = 3600
RSA_BITS = 2048
RSA_EXPONENT = 65537

__all__ = ["DEFAULT_ISSUER", "EmulatorOidc", "OidcProvider", "nonce_for"]


class _Stream:
    """Deterministic bytes from a seed (SHA-256 in counter mode)."""

    def __init__(self, seed: bytes) -> None:
        self._seed, self._counter = seed, 0

    def read(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            out += hashlib.sha256(self._seed + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
        return out[:n]

    def integer(self, bits: int) -> int:
        return int.from_bytes(self.read((bits + 7) // 8), "big") >> (-bits % 8)


def _small_primes(limit: int) -> list[int]:
    sieve = bytearray([1]) * limit
    sieve[:2] = b"\x00\x00"
    for i in range(2, int(limit**0.5) + 1):
        if sieve[i]:
            sieve[i * i :: i] = bytearray(len(sieve[i * i :: i]))
    return [i for i in range(3, limit) if sieve[i]]


# The product of the odd primes below 2**15: one gcd sieves a candidate.
_PRIMORIAL = prod(_small_primes(1 << 15))


def _probably_prime(n: int, stream: _Stream, rounds: int = 8) -> bool:
    """Miller-Rabin for a large odd ``n`` (base 2, then random bases): the candidates are
    random, not adversarial, so a few rounds leave a negligible error."""
    if gcd(n, _PRIMORIAL) != 1:
        return False
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for index in range(rounds):
        base = 2 if index == 0 else 2 + stream.integer(n.bit_length()) % (n - 3)
        x = pow(base, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


def _prime(stream: _Stream, bits: int) -> int:
    """A prime of exactly ``bits`` bits whose top two bits are set, with p - 1 prime to e."""
    candidate = stream.integer(bits) | (3 << (bits - 2)) | 1
    while not (gcd(candidate - 1, RSA_EXPONENT) == 1 and _probably_prime(candidate, stream)):
        candidate += 2
    return candidate


@lru_cache(maxsize=32)
def _seeded_rsa_key(seed: bytes) -> rsa.RSAPrivateKey:
    stream = _Stream(b"oidc-rsa:" + seed)
    p = _prime(stream, RSA_BITS // 2)
    q = _prime(stream, RSA_BITS // 2)
    while q == p:
        q = _prime(stream, RSA_BITS // 2)
    d = pow(RSA_EXPONENT, -1, (p - 1) * (q - 1))
    return rsa.RSAPrivateNumbers(
        p=p,
        q=q,
        d=d,
        dmp1=rsa.rsa_crt_dmp1(d, p),
        dmq1=rsa.rsa_crt_dmq1(d, q),
        iqmp=rsa.rsa_crt_iqmp(p, q),
        public_numbers=rsa.RSAPublicNumbers(RSA_EXPONENT, p * q),
    ).private_key()


def _new_key(algorithm: str, seed: bytes | None) -> rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey:
    if algorithm == RS256:
        if seed is None:
            return rsa.generate_private_key(RSA_EXPONENT, RSA_BITS)
        return _seeded_rsa_key(seed)
    if seed is None:
        return ec.generate_private_key(ec.SECP256R1())
    scalar = int.from_bytes(_Stream(b"oidc-p256:" + seed).read(32), "big") % (P256_ORDER - 1)
    return ec.derive_private_key(scalar + 1, ec.SECP256R1())


def _segment(value: Json) -> str:
    return b64url_encode(json.dumps(value, separators=(",", ":")).encode())


class OidcProvider:
    """An OIDC identity provider for tests: one signing key, its JWKS, and ID tokens."""

    def __init__(
        self,
        issuer: str = DEFAULT_ISSUER,
        *,
        seed: int | str | bytes | None = None,
        clock: Clock | None = None,
        algorithm: str = RS256,
    ) -> None:
        if algorithm not in (RS256, ES256):
            raise ValueError(f"algorithm must be {RS256} or {ES256}")
        self.issuer = issuer
        self.algorithm = algorithm
        self._clock = clock or Clock()
        self._seed = None if seed is None else f"{issuer}|{algorithm}|{seed!r}".encode()
        self._key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey | None = None

    def __repr__(self) -> str:
        return f"OidcProvider(issuer={self.issuer!r}, algorithm={self.algorithm!r})"

    def _private_key(self) -> rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey:
        if self._key is None:
            self._key = _new_key(self.algorithm, self._seed)
        return self._key

    def _public_jwk(self) -> Json:
        public = self._private_key().public_key()
        if isinstance(public, rsa.RSAPublicKey):
            numbers = public.public_numbers()
            return {"e": _b64(numbers.e), "kty": "RSA", "n": _b64(numbers.n)}
        point = public.public_numbers()
        return {"crv": "P-256", "kty": "EC", "x": _b64(point.x, 32), "y": _b64(point.y, 32)}

    @property
    def key_id(self) -> str:
        """The key's ``kid``: its RFC 7638 thumbprint."""
        canonical = json.dumps(self._public_jwk(), separators=(",", ":"), sort_keys=True)
        return b64url_encode(hashlib.sha256(canonical.encode()).digest())

    def jwks(self) -> Json:
        """The JWK set an issuer publishes at its ``jwks_uri``."""
        jwk = {**self._public_jwk(), "alg": self.algorithm, "kid": self.key_id, "use": "sig"}
        return {"keys": [jwk]}

    def oidc_claims(self, *, sub: str, aud: str) -> Json:
        """``{iss, sub, aud}`` of this issuer: an ``oidcClaims`` parameter."""
        return {"iss": self.issuer, "sub": sub, "aud": aud}

    def token(
        self,
        *,
        sub: str | None,
        aud: str | list[str] | None,
        nonce: str | None = None,
        email: str | None = None,
        email_verified: bool | None = None,
        expires_in: int = DEFAULT_EXPIRES_IN,
        issued_at: int | None = None,
        extra_claims: Json | None = None,
    ) -> str:
        """A signed ID token. ``sub``, ``aud``, ``nonce``, ``email`` and ``email_verified``
        set to ``None`` are left out; ``issued_at`` (Unix seconds) defaults to the clock's
        now and ``exp`` is ``issued_at + expires_in``; ``extra_claims`` are added last
        (a ``None`` value removes that claim)."""
        now = issued_at if issued_at is not None else self._clock.now_ns() // 1_000_000_000
        claims: Json = {
            "iss": self.issuer,
            "aud": aud,
            "sub": sub,
            "email": email,
            "email_verified": email_verified,
            "nonce": nonce,
            "iat": now,
            "exp": now + expires_in,
        }
        claims.update(extra_claims or {})
        claims = {k: v for k, v in claims.items() if v is not None}
        return self.sign(claims)

    def sign(self, claims: Json, header: Json | None = None) -> str:
        """Any claims (and header), signed with this provider's key."""
        head = header or {"alg": self.algorithm, "kid": self.key_id, "typ": "JWT"}
        signing_input = f"{_segment(head)}.{_segment(claims)}".encode()
        key = self._private_key()
        if isinstance(key, rsa.RSAPrivateKey):
            signature = key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        else:
            r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
            signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
        return f"{signing_input.decode()}.{b64url_encode(signature)}"

    @staticmethod
    def nonce_for(public_key: str) -> str:
        """hex(SHA-256(ASCII of ``public_key``)): the nonce binding a token to that key."""
        return nonce_for(public_key)


class EmulatorOidc(OidcProvider):
    """``emu.oidc``: the emulator's built-in provider, and the issuers it trusts."""

    def __init__(self, world: World, seed: int | None = None) -> None:
        super().__init__(
            DEFAULT_ISSUER, seed=None if seed is None else f"emulator:{seed}", clock=world.clock
        )
        self._world = world
        world.oidc_issuers[self.issuer] = self.jwks

    def __repr__(self) -> str:
        return f"EmulatorOidc(issuer={self.issuer!r}, trusted={list(self.trusted_issuers)})"

    @property
    def trusted_issuers(self) -> tuple[str, ...]:
        return tuple(self._world.oidc_issuers)

    def trust(self, issuer: str | OidcProvider, jwks: Json | None = None) -> None:
        """Accept tokens of ``issuer`` signed by a key of ``jwks`` (a provider brings its
        own JWKS). Trusting an issuer again replaces its keys."""
        source: Json | Callable[[], Json]
        if isinstance(issuer, OidcProvider):
            if jwks is not None:
                raise TypeError("a provider brings its own JWKS: pass the provider alone")
            name, source = issuer.issuer, issuer.jwks
        else:
            if jwks is None:
                raise TypeError("trust(issuer, jwks): the JWKS of the issuer is missing")
            try:
                name, source = issuer, check_jwks(json.loads(json.dumps(jwks)))
            except JwkError as exc:
                raise ValueError(f"unusable JWKS for {issuer}: {exc}") from exc
        self._change(lambda tx: tx.put(self._world.oidc_issuers, name, source))

    def distrust(self, issuer: str | OidcProvider) -> None:
        """Refuse tokens of ``issuer`` from now on."""
        name = issuer.issuer if isinstance(issuer, OidcProvider) else issuer
        self._change(lambda tx: tx.pop(self._world.oidc_issuers, name))

    def _change(self, change: Callable[[Any], object]) -> None:
        with self._world.lock:
            tx = self._world.transaction()
            change(tx)
            tx.commit()


def _b64(value: int, length: int | None = None) -> str:
    size = length if length is not None else (value.bit_length() + 7) // 8
    return b64url_encode(value.to_bytes(size, "big"))
