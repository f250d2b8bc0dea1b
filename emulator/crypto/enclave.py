"""The emulator's own enclave keys, in the real service's three roles.

* the **signer** signs import and export bundles (``enclaveQuorumPublic``);
* the **notarizer** signs session JWTs (``stamp_login``, ``oauth_login``, ``otp_login``);
* the **TLS fetcher** signs OTP verification tokens, the OTP encryption target bundle and
  the OIDC tokens ``oauth2_authenticate`` issues;
* the **TLS fetcher's encryption key** receives what clients encrypt to the TLS fetcher's
  quorum key (an OAuth 2.0 client secret: ``encryptOauth2ClientSecret``); the real service
  has the same two keys (``PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY`` / ``_ENCRYPT_``);
* the **on-ramp encryption key** receives the fiat on-ramp providers' secret API keys
  (``encryptOnRampSecret``: HPKE, base58check); derived from the signer's scalar
  (``derived_secret``), so a saved state keeps it without a field of its own.

Clients pin the production public keys; against the emulator they pass these
instead (``dangerouslyOverrideSignerPublicKey``, ``verifySessionJwtSignature``'s
override, ...). A seeded emulator has the same keys on every run; otherwise they
are fresh. The private halves never leave this object.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from typing import TypeVar

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from ..ground.redact import Sealed
from .curves import P256_ORDER

SIGNER = "signer"
NOTARIZER = "notarizer"
TLS_FETCHER = "tls_fetcher"
TLS_FETCHER_ENCRYPT = "tls_fetcher_encrypt"
ON_RAMP_ENCRYPT = "on-ramp-encrypt"  # a derived key (``derived_secret``), not a role
ROLES = (SIGNER, NOTARIZER, TLS_FETCHER, TLS_FETCHER_ENCRYPT)
T = TypeVar("T")

_UNCOMPRESSED = (serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def _scalar(entropy: bytes) -> bytes:
    """A valid P-256 private scalar (32 bytes) from 32 bytes of entropy."""
    return (int.from_bytes(entropy, "big") % (P256_ORDER - 1) + 1).to_bytes(32, "big")


class EnclaveKeys:
    """One P-256 key per role; ``public_key(role)`` is its uncompressed SEC1 hex.

    The scalars are drawn when the object is made; the keys are built on first use
    (a fresh emulator that never signs a bundle pays nothing for them).
    """

    __slots__ = ("_derived", "_keys", "_secrets")

    def __init__(self, secrets: dict[str, bytes]) -> None:
        self._secrets = Sealed(secrets)  # shown by no repr
        self._keys: dict[str, ec.EllipticCurvePrivateKey] = {}
        self._derived: dict[str, object] = {}

    @classmethod
    def create(cls, seed: int | None = None) -> EnclaveKeys:
        def entropy(role: str) -> bytes:
            if seed is None:
                return os.urandom(32)
            return hashlib.blake2b(f"enclave:{role}:{seed}".encode(), digest_size=32).digest()

        return cls({role: _scalar(entropy(role)) for role in ROLES})

    @classmethod
    def from_secrets(cls, secrets: dict[str, bytes]) -> EnclaveKeys:
        """The keys whose 32-byte scalars ``secrets`` holds by role (a saved document's).
        A document from before the TLS fetcher had an encryption key gets one derived
        from its TLS fetcher key, the same on every load."""
        held = dict(secrets)
        if TLS_FETCHER_ENCRYPT not in held:
            derived = hashlib.blake2b(held[TLS_FETCHER], person=b"tls-encrypt").digest()[:32]
            held[TLS_FETCHER_ENCRYPT] = _scalar(derived)
        return cls({role: held[role] for role in ROLES})

    def secrets(self) -> dict[str, bytes]:
        """The 32-byte private scalars by role: for the state document only (it holds
        every other secret of the emulator too)."""
        return dict(self._secrets)

    def derived_secret(self, purpose: str) -> bytes:
        """32 bytes for another of the emulator's keys (the webhook signing key, the app
        proofs' ephemeral key, the boot proofs' attestation keys), derived from the signer's
        scalar: a seeded emulator has the same ones on every run, and a saved state keeps
        them without a field of its own."""
        return hashlib.blake2b(self._secrets[SIGNER], key=purpose.encode(), digest_size=32).digest()

    def cached(self, purpose: str, build: Callable[[bytes], T]) -> T:
        """``build(derived_secret(purpose))``, built once per purpose."""
        found = self._derived.get(purpose)
        if found is None:
            found = self._derived[purpose] = build(self.derived_secret(purpose))
        return found  # type: ignore[return-value]

    def key(self, role: str) -> ec.EllipticCurvePrivateKey:
        """The private key of ``role`` (for the services that sign with it)."""
        key = self._keys.get(role)
        if key is None:
            scalar = int.from_bytes(self._secrets[role], "big")
            key = self._keys[role] = ec.derive_private_key(scalar, ec.SECP256R1())
        return key

    def public_key(self, role: str) -> str:
        return self.key(role).public_key().public_bytes(*_UNCOMPRESSED).hex()

    @property
    def signer_public_key(self) -> str:
        return self.public_key(SIGNER)

    @property
    def notarizer_public_key(self) -> str:
        return self.public_key(NOTARIZER)

    @property
    def tls_fetcher_public_key(self) -> str:
        return self.public_key(TLS_FETCHER)

    @property
    def tls_fetcher_encrypt_public_key(self) -> str:
        """What a client encrypts an OAuth 2.0 client secret to (``encryptOauth2ClientSecret``'s
        ``dangerouslyOverrideTlsFetcherPublicKey``)."""
        return self.public_key(TLS_FETCHER_ENCRYPT)

    @property
    def on_ramp_encrypt_public_key(self) -> str:
        """What a client encrypts an on-ramp provider's secret to, compressed SEC1 hex
        (``encryptOnRampSecret``'s ``dangerouslyOverrideOnRampEncryptionPublicKey``, the form
        of ``PRODUCTION_ON_RAMP_CREDENTIALS_ENCRYPTION_PUBLIC_KEY``)."""
        key = self._on_ramp_key().public_key()
        return key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint
        ).hex()

    def _on_ramp_key(self) -> ec.EllipticCurvePrivateKey:
        def build(secret: bytes) -> ec.EllipticCurvePrivateKey:
            return ec.derive_private_key(int.from_bytes(_scalar(secret), "big"), ec.SECP256R1())

        return self.cached(ON_RAMP_ENCRYPT, build)

    def on_ramp_decrypt(self, sealed: bytes) -> bytes:
        """The plaintext of what ``encryptOnRampSecret`` sealed (the compressed encapsulated
        key, then the ciphertext; base58check already taken off): Turnkey's HPKE profile
        (``crypto/hpke.py``). ``HpkeError`` (a ``ValueError``) if it does not open."""
        from . import hpke  # loaded when first used

        if len(sealed) < 33 + 16:
            raise hpke.HpkeError("too short for an encapsulated key and a tag")
        scalar = _scalar(self.derived_secret(ON_RAMP_ENCRYPT))
        return hpke.open_sealed(scalar, sealed[:33], sealed[33:])

    def decrypt(self, role: str, envelope: bytes) -> bytes:
        """The plaintext of a quorum-key envelope sealed to ``role``'s key
        (``crypto/quorum.py``); ``QuorumEncryptionError`` if it does not open."""
        from . import quorum  # loaded when first used

        return quorum.decrypt(self._secrets[role], envelope)

    def sign(self, role: str, data: bytes) -> bytes:
        """A DER ECDSA P-256 signature over SHA-256(``data``), deterministic (RFC 6979)
        so that a seeded emulator signs the same bundle the same way on every run."""
        return self.key(role).sign(data, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))

    def __deepcopy__(self, memo: dict) -> EnclaveKeys:
        return self  # immutable: every copy of a world keeps its enclave

    def __repr__(self) -> str:
        return f"EnclaveKeys(signer={self.signer_public_key[:18]}…)"
