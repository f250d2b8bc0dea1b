"""A software passkey: makes WebAuthn registrations the way a browser would.

``register`` returns the ``attestation`` object the API's
``create_authenticators`` expects (``credentialId``, ``clientDataJson``,
``attestationObject``, ``transports``), with a "none" attestation over a real
P-256 credential key.
"""

from __future__ import annotations

import hashlib
import json
import os

import cbor2
from cryptography.hazmat.primitives.asymmetric import ec

from ..crypto.encoding import b64url_encode

_FLAGS_UP_UV_AT = 0x01 | 0x04 | 0x40


class VirtualAuthenticator:
    """One authenticator device holding one P-256 credential."""

    def __init__(
        self,
        *,
        rp_id: str = "localhost",
        origin: str | None = None,
        aaguid: bytes = bytes(16),
        credential_id: bytes | None = None,
        transports: tuple[str, ...] = ("AUTHENTICATOR_TRANSPORT_INTERNAL",),
    ) -> None:
        self.rp_id = rp_id
        self.origin = origin or f"https://{rp_id}"
        self.aaguid = aaguid
        self.credential_id = credential_id or os.urandom(16)
        self.transports = list(transports)
        self._key = ec.generate_private_key(ec.SECP256R1())

    @property
    def credential_id_b64(self) -> str:
        return b64url_encode(self.credential_id)

    def cose_public_key(self) -> bytes:
        numbers = self._key.public_key().public_numbers()
        return cbor2.dumps(
            {
                1: 2,  # kty: EC2
                3: -7,  # alg: ES256
                -1: 1,  # crv: P-256
                -2: numbers.x.to_bytes(32, "big"),
                -3: numbers.y.to_bytes(32, "big"),
            }
        )

    def register(self, challenge: str) -> dict[str, object]:
        """A registration for ``challenge`` (the string the relying party sent)."""
        auth_data = (
            hashlib.sha256(self.rp_id.encode()).digest()
            + bytes([_FLAGS_UP_UV_AT])
            + (0).to_bytes(4, "big")
            + self.aaguid
            + len(self.credential_id).to_bytes(2, "big")
            + self.credential_id
            + self.cose_public_key()
        )
        attestation_object = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = {
            "type": "webauthn.create",
            "challenge": b64url_encode(challenge.encode()),
            "origin": self.origin,
            "crossOrigin": False,
        }
        return {
            "credentialId": self.credential_id_b64,
            "clientDataJson": b64url_encode(json.dumps(client_data).encode()),
            "attestationObject": b64url_encode(attestation_object),
            "transports": list(self.transports),
        }
