"""The emulator's own enclave keys, in the real service's three roles.

* the **signer** signs import and export bundles (``enclaveQuorumPublic``);
* the **notarizer** signs session JWTs (``stamp_login``, ``oauth_login``, ``otp_login``);
* the **TLS fetcher** signs OTP verification tokens and the OTP encryption target bundle.

Clients pin the production public keys; against the emulator they pass these
instead (``dangerouslyOverrideSignerPublicKey``, ``verifySessionJwtSignature``'s
override, ...). A seeded emulator has the same keys on every run; otherwise they
are fresh. The private halves never leave this object.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from .crypto.curves import P256_ORDER

SIGNER = "signer"
NOTARIZER = "notarizer"
TLS_FETCHER = "tls_fetcher"
ROLES = (SIGNER, NOTARIZER, TLS_FETCHER)

_UNCOMPRESSED = (serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def _private_key(entropy: bytes) -> ec.EllipticCurvePrivateKey:
    scalar = int.from_bytes(entropy, "big") % (P256_ORDER - 1) + 1
    return ec.derive_private_key(scalar, ec.SECP256R1())


@dataclass(frozen=True, eq=False)
class EnclaveKeys:
    """One P-256 key per role; ``public_key(role)`` is its uncompressed SEC1 hex."""

    _keys: dict[str, ec.EllipticCurvePrivateKey]

    @classmethod
    def create(cls, seed: int | None = None) -> EnclaveKeys:
        def entropy(role: str) -> bytes:
            if seed is None:
                return os.urandom(32)
            return hashlib.blake2b(f"enclave:{role}:{seed}".encode(), digest_size=32).digest()

        return cls({role: _private_key(entropy(role)) for role in ROLES})

    def key(self, role: str) -> ec.EllipticCurvePrivateKey:
        """The private key of ``role`` (for the services that sign with it)."""
        return self._keys[role]

    def public_key(self, role: str) -> str:
        return self._keys[role].public_key().public_bytes(*_UNCOMPRESSED).hex()

    @property
    def signer_public_key(self) -> str:
        return self.public_key(SIGNER)

    @property
    def notarizer_public_key(self) -> str:
        return self.public_key(NOTARIZER)

    @property
    def tls_fetcher_public_key(self) -> str:
        return self.public_key(TLS_FETCHER)

    def sign(self, role: str, data: bytes) -> bytes:
        """A DER ECDSA P-256 signature over SHA-256(``data``)."""
        return self._keys[role].sign(data, ec.ECDSA(hashes.SHA256()))

    def __deepcopy__(self, memo: dict) -> EnclaveKeys:
        return self  # immutable: every copy of a world keeps its enclave

    def __repr__(self) -> str:
        return f"EnclaveKeys(signer={self.signer_public_key[:18]}…)"
