"""A software passkey: registers and stamps the way a browser's WebAuthn does.

``VirtualAuthenticator`` holds one P-256 (ES256) credential. ``register`` makes
the ``attestation`` the API's ``create_authenticators``, ``create_users``,
``create_sub_organization`` and ``recover_user`` take (``credentialId``,
``clientDataJson``, ``attestationObject``, ``transports``; a "none"
attestation). ``stamp`` signs a request body as ``@turnkey/webauthn-stamper``
does: a WebAuthn assertion whose challenge is the UTF-8 of the lowercase hex
SHA-256 of the body, sent as the plain-JSON ``X-Stamp-Webauthn`` header. Each
assertion counts up the authenticator's sign counter.

``sdk_stamper()`` adapts it to the official Python SDK's stamper interface, so a
``TurnkeyClient`` can act as the passkey's user.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from .encoding import b64url_encode
from .webauthn import ASSERTION_TYPE, WEBAUTHN_STAMP_HEADER, WebauthnStamp, challenge_of

_UP, _UV, _AT = 0x01, 0x04, 0x40
REGISTRATION_TYPE = "webauthn.create"


@dataclass(frozen=True)
class SdkStamp:
    """What the official SDK's ``TurnkeyClient`` reads from ``stamper.stamp(body)``."""

    stamp_header_name: str
    stamp_header_value: str


class SdkStamper:
    """The authenticator as a ``turnkey_http`` stamper (``stamp(content) -> SdkStamp``)."""

    def __init__(self, authenticator: VirtualAuthenticator) -> None:
        self.authenticator = authenticator

    def stamp(self, content: str) -> SdkStamp:
        return SdkStamp(WEBAUTHN_STAMP_HEADER, self.authenticator.stamp(content))


class VirtualAuthenticator:
    """One authenticator device holding one P-256 credential for ``rp_id``.

    ``origin`` is what its client data names (``https://<rp_id>`` by default);
    ``sign_count`` is the counter the next assertion carries after counting up
    (``counter=False`` keeps it at 0, as many platform passkeys do).
    """

    def __init__(
        self,
        *,
        rp_id: str = "localhost",
        origin: str | None = None,
        aaguid: bytes = bytes(16),
        credential_id: bytes | None = None,
        transports: tuple[str, ...] = ("AUTHENTICATOR_TRANSPORT_INTERNAL",),
        counter: bool = True,
    ) -> None:
        self.rp_id = rp_id
        self.origin = origin or f"https://{rp_id}"
        self.aaguid = aaguid
        self.credential_id = credential_id or os.urandom(16)
        self.transports = list(transports)
        self.counter = counter
        self.sign_count = 0
        self._key = ec.generate_private_key(ec.SECP256R1())

    def __repr__(self) -> str:
        return f"VirtualAuthenticator(rp_id={self.rp_id!r}, credential_id={self.credential_id_b64})"

    @property
    def credential_id_b64(self) -> str:
        return b64url_encode(self.credential_id)

    def cose_public_key(self) -> bytes:
        """The credential's public key as a COSE_Key (EC2, ES256, P-256)."""
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

    # ----- registration -----------------------------------------------------------

    def register(self, challenge: str) -> dict[str, Any]:
        """The ``attestation`` of a registration for ``challenge`` (the string the relying
        party sent): ``{credentialId, clientDataJson, attestationObject, transports}``."""
        auth_data = (
            self._rp_id_hash()
            + bytes([_UP | _UV | _AT])
            + (0).to_bytes(4, "big")
            + self.aaguid
            + len(self.credential_id).to_bytes(2, "big")
            + self.credential_id
            + self.cose_public_key()
        )
        attestation_object = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = self._client_data(REGISTRATION_TYPE, challenge.encode())
        return {
            "credentialId": self.credential_id_b64,
            "clientDataJson": b64url_encode(client_data),
            "attestationObject": b64url_encode(attestation_object),
            "transports": list(self.transports),
        }

    def authenticator_params(self, name: str, challenge: str = "registration") -> dict[str, Any]:
        """``AuthenticatorParamsV2``: ``{authenticatorName, challenge, attestation}``."""
        return {
            "authenticatorName": name,
            "challenge": b64url_encode(challenge.encode()),
            "attestation": self.register(challenge),
        }

    # ----- assertions ---------------------------------------------------------------

    def assertion(self, challenge: bytes) -> WebauthnStamp:
        """A WebAuthn assertion over ``challenge`` (raw bytes), counting the counter up."""
        if self.counter:
            self.sign_count += 1
        auth_data = self._rp_id_hash() + bytes([_UP | _UV]) + self.sign_count.to_bytes(4, "big")
        client_data = self._client_data(ASSERTION_TYPE, challenge)
        signed = auth_data + hashlib.sha256(client_data).digest()
        signature = self._key.sign(signed, ec.ECDSA(hashes.SHA256()))
        return WebauthnStamp(
            authenticator_data=b64url_encode(auth_data),
            client_data_json=b64url_encode(client_data),
            credential_id=self.credential_id_b64,
            signature=b64url_encode(signature),
        )

    def stamp(self, body: bytes | str) -> str:
        """The ``X-Stamp-Webauthn`` header value for a request ``body``."""
        raw = body.encode() if isinstance(body, str) else body
        return self.assertion(challenge_of(raw)).header_value()

    def headers(self, body: bytes | str) -> dict[str, str]:
        """``{"X-Stamp-Webauthn": ..., "Content-Type": "application/json"}`` for ``body``."""
        return {WEBAUTHN_STAMP_HEADER: self.stamp(body), "Content-Type": "application/json"}

    def sdk_stamper(self) -> SdkStamper:
        """A stamper for the official SDK: ``TurnkeyClient(..., stamper=device.sdk_stamper())``."""
        return SdkStamper(self)

    # ----- internals ----------------------------------------------------------------

    def _rp_id_hash(self) -> bytes:
        return hashlib.sha256(self.rp_id.encode()).digest()

    def _client_data(self, kind: str, challenge: bytes) -> bytes:
        return json.dumps(
            {
                "type": kind,
                "challenge": b64url_encode(challenge),
                "origin": self.origin,
                "crossOrigin": False,
            },
            separators=(",", ":"),
        ).encode()
