"""OIDC token verification, as Turnkey's enclaves do it (social-logins.mdx).

A token is accepted when:

* it is a compact JWT signed with RS256 (Google, Apple...) or ES256;
* its ``iss`` is an issuer the emulator trusts (``World.oidc_issuers``: the
  built-in test provider and whatever a test trusts with ``emu.oidc.trust``;
  the real service fetches any issuer's JWKS, the emulator has no network), or
  Turnkey itself, for the tokens ``oauth2_authenticate`` mints (``services/oauth2.py``);
* the signature verifies under a key of that issuer's JWKS (the one its ``kid``
  names, else any key of the algorithm);
* ``exp`` is a number still ahead of the emulator's clock, and ``nbf``, when
  present, is not;
* ``sub`` and ``aud`` are present (``aud`` a string or a list of strings);
* for the flows that bind a token to a client key (``oauth``, ``oauth_login``),
  ``nonce`` or ``tknonce`` equals hex(SHA-256(the public key's hex string, as the
  client sent it)).

Any failure is the real ``invalid OIDC token`` (400, ``INVALID_OIDC_TOKEN``).
Registration (``create_oauth_providers``, ``create_users``,
``create_sub_organization``) verifies the same way without the nonce.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from ..crypto.encoding import b64url_decode
from ..ground import jsontext, messages
from ..ground.errors import InvalidArgument
from ..ground.models import OauthProvider

if TYPE_CHECKING:
    from ..engine_state.world import World

Json = dict[str, Any]
PublicKey = rsa.RSAPublicKey | ec.EllipticCurvePublicKey
# What ``World.oidc_issuers`` holds per issuer: its JWKS, or a function giving it.
JwksSource = Json | Callable[[], Json]

RS256 = "RS256"
ES256 = "ES256"
ALGORITHMS = (RS256, ES256)
GOOGLE_ISSUERS = ("https://accounts.google.com", "accounts.google.com")


class JwkError(ValueError):
    """A JWK or JWK set the emulator cannot use."""


@dataclass(frozen=True)
class OidcIdentity:
    """The verified claims that identify a user: ``iss``, ``sub``, ``aud`` (and e-mail)."""

    issuer: str
    subject: str
    audiences: tuple[str, ...]
    email: str | None
    email_verified: bool
    claims: Json

    @property
    def audience(self) -> str:
        """The ``aud`` a new OAuth provider records (the first, when a list is given)."""
        return self.audiences[0]

    @property
    def is_google(self) -> bool:
        return self.issuer in GOOGLE_ISSUERS

    def names(self, provider: OauthProvider) -> bool:
        """Whether ``provider`` is this identity: its ``iss``, ``sub`` and one of its ``aud``."""
        return (
            provider.issuer == self.issuer
            and provider.subject == self.subject
            and provider.audience in self.audiences
        )


def nonce_for(public_key: str) -> str:
    """hex(SHA-256(ASCII of ``public_key``)): the ``nonce`` binding a token to a key."""
    return hashlib.sha256(public_key.encode("ascii")).hexdigest()


def invalid_token() -> InvalidArgument:
    return InvalidArgument(messages.INVALID_OIDC_TOKEN, turnkey_error_code="INVALID_OIDC_TOKEN")


# ----- JWKs -----------------------------------------------------------------------


def _b64url_int(value: object) -> int:
    if not isinstance(value, str) or not value:
        raise JwkError("a JWK number must be a base64url string")
    try:
        return int.from_bytes(b64url_decode(value), "big")
    except ValueError as exc:
        raise JwkError(str(exc)) from exc


def jwk_public_key(jwk: Mapping[str, Any]) -> tuple[str, PublicKey]:
    """``(algorithm, public key)`` of an RSA or P-256 JWK; ``JwkError`` for anything else."""
    kty = jwk.get("kty")
    if kty == "RSA":
        key: PublicKey = rsa.RSAPublicNumbers(
            _b64url_int(jwk.get("e")), _b64url_int(jwk.get("n"))
        ).public_key()
        algorithm = RS256
    elif kty == "EC" and jwk.get("crv") == "P-256":
        try:
            key = ec.EllipticCurvePublicNumbers(
                _b64url_int(jwk.get("x")), _b64url_int(jwk.get("y")), ec.SECP256R1()
            ).public_key()
        except ValueError as exc:
            raise JwkError(f"not a P-256 point: {exc}") from exc
        algorithm = ES256
    else:
        raise JwkError(f"unsupported JWK: kty={kty!r} crv={jwk.get('crv')!r}")
    if jwk.get("alg") not in (None, algorithm):
        raise JwkError(f"JWK alg {jwk.get('alg')!r} does not fit its key type {kty}")
    return algorithm, key


def check_jwks(jwks: object) -> Json:
    """``jwks`` if it is a JWK set of usable keys; ``JwkError`` otherwise."""
    if not isinstance(jwks, Mapping) or not isinstance(jwks.get("keys"), list):
        raise JwkError('a JWK set is an object with a "keys" list')
    for jwk in jwks["keys"]:
        if not isinstance(jwk, Mapping):
            raise JwkError("a JWK is an object")
        jwk_public_key(jwk)
    return dict(jwks)


def _candidate_keys(jwks: Json, algorithm: str, kid: object) -> list[PublicKey]:
    keys = []
    for jwk in jwks.get("keys", []):
        if kid is not None and jwk.get("kid") != kid:
            continue
        try:
            key_algorithm, key = jwk_public_key(jwk)
        except (JwkError, ValueError):
            continue
        if key_algorithm == algorithm:
            keys.append(key)
    return keys


def _signature_verifies(key: PublicKey, algorithm: str, signing_input: bytes, sig: bytes) -> bool:
    try:
        if algorithm == RS256:
            assert isinstance(key, rsa.RSAPublicKey)
            key.verify(sig, signing_input, padding.PKCS1v15(), hashes.SHA256())
        else:
            assert isinstance(key, ec.EllipticCurvePublicKey)
            if len(sig) != 64:
                return False
            der = encode_dss_signature(
                int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big")
            )
            key.verify(der, signing_input, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return False
    return True


# ----- tokens -----------------------------------------------------------------------


def _decode(token: object) -> tuple[Json, Json, bytes, bytes]:
    parts = token.split(".") if isinstance(token, str) else []
    if len(parts) != 3:
        raise invalid_token()
    try:
        header = jsontext.loads(b64url_decode(parts[0]))
        claims = jsontext.loads(b64url_decode(parts[1]))
        signature = b64url_decode(parts[2])
    except ValueError as exc:
        raise invalid_token() from exc
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise invalid_token()
    return header, claims, f"{parts[0]}.{parts[1]}".encode(), signature


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _audiences(value: object) -> tuple[str, ...]:
    values = value if isinstance(value, list) else [value]
    if not values or not all(isinstance(v, str) and v for v in values):
        raise invalid_token()
    return tuple(values)


def trusted_jwks(world: World, issuer: object) -> Json | None:
    """The JWKS of ``issuer`` if the emulator trusts it. Turnkey's own issuer (the tokens
    ``oauth2_authenticate`` mints, ``Settings.oauth2_issuer``) is always trusted, under
    the TLS fetcher's key."""
    if isinstance(issuer, str) and issuer == world.settings.oauth2_issuer:
        from .oauth2 import turnkey_jwks

        return turnkey_jwks(world)
    source = world.oidc_issuers.get(issuer) if isinstance(issuer, str) else None
    if source is None:
        return None
    return source() if callable(source) else source


def verify_token(
    world: World, token: object, now_ns: int, *, public_key: str | None = None
) -> OidcIdentity:
    """The identity in ``token`` once every check above passes; ``invalid OIDC token``
    otherwise. ``public_key``, when given, must be what the token's nonce binds."""
    header, claims, signing_input, signature = _decode(token)
    algorithm = header.get("alg")
    issuer = claims.get("iss")
    jwks = trusted_jwks(world, issuer)
    if algorithm not in ALGORITHMS or jwks is None:
        raise invalid_token()
    keys = _candidate_keys(jwks, algorithm, header.get("kid"))
    if not any(_signature_verifies(k, algorithm, signing_input, signature) for k in keys):
        raise invalid_token()
    now_s = now_ns / 1_000_000_000
    expires, not_before = claims.get("exp"), claims.get("nbf")
    if not _number(expires) or expires <= now_s:
        raise invalid_token()
    if not_before is not None and (not _number(not_before) or not_before > now_s):
        raise invalid_token()
    subject = claims.get("sub")
    if not isinstance(subject, str) or not subject:
        raise invalid_token()
    audiences = _audiences(claims.get("aud"))
    if public_key is not None:
        expected = nonce_for(public_key)
        if expected not in (claims.get("nonce"), claims.get("tknonce")):
            raise invalid_token()
    email = claims.get("email")
    verified = claims.get("email_verified")
    return OidcIdentity(
        issuer=str(issuer),
        subject=subject,
        audiences=audiences,
        email=email if isinstance(email, str) and email else None,
        email_verified=verified is True or verified == "true",
        claims=claims,
    )
