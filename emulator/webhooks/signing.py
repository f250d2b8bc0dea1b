"""How a webhook delivery is signed (features/webhooks/verify-signatures.mdx).

Ed25519 over ``v1.ed25519.<signing_key_id>.<timestamp_ms>.<event_id>.<raw_body>``; the
signature is hex in ``X-Turnkey-Signature``, beside ``X-Turnkey-Signature-Key-Id``,
``-Algorithm`` (``ed25519``), ``-Version`` (``v1``), ``X-Turnkey-Timestamp`` and
``X-Turnkey-Event-Id``. The public key is published as a JWKS (``GET
/public/v1/discovery/webhooks/jwks`` on the server, ``emu.webhooks.jwks()``), exactly as
``@turnkey/crypto``'s ``verifyTurnkeyWebhookSignature`` takes it once hex-decoded.

The emulator's key is derived from its enclave signer (``EnclaveKeys.derived_secret``), so a
seeded emulator and a saved state keep it; its key id is ``emulator-`` and the first 16 hex
digits of the SHA-256 of the public key (the real ids are not documented).
"""

from __future__ import annotations

import base64
import hashlib

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ..crypto.enclave import EnclaveKeys

SIGNATURE_VERSION = "v1"
SIGNATURE_ALGORITHM = "ed25519"
WEBHOOK_VERSION = "1"
JWKS_PATH = "/public/v1/discovery/webhooks/jwks"
_PURPOSE = "webhook-signing-v1"


class WebhookSigner:
    """The Ed25519 key that signs deliveries; the private half never leaves it."""

    __slots__ = ("_key", "key_id", "public_key")

    def __init__(self, secret: bytes) -> None:
        self._key = Ed25519PrivateKey.from_private_bytes(secret)
        raw = self._key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self.public_key = raw.hex()
        self.key_id = "emulator-" + hashlib.sha256(raw).hexdigest()[:16]

    def signed_input(self, timestamp_ms: str, event_id: str, body: bytes) -> bytes:
        prefix = (
            f"{SIGNATURE_VERSION}.{SIGNATURE_ALGORITHM}.{self.key_id}.{timestamp_ms}.{event_id}."
        )
        return prefix.encode() + body

    def headers(
        self,
        *,
        organization_id: str,
        event_type: str,
        event_id: str,
        timestamp_ms: int,
        body: bytes,
    ) -> dict[str, str]:
        """The delivery headers of one attempt, signed at ``timestamp_ms``."""
        stamp = str(timestamp_ms)
        signature = self._key.sign(self.signed_input(stamp, event_id, body)).hex()
        return {
            "Content-Type": "application/json",
            "X-Turnkey-Organization-Id": organization_id,
            "X-Turnkey-Event-Type": event_type,
            "X-Turnkey-Timestamp": stamp,
            "X-Turnkey-Webhook-Version": WEBHOOK_VERSION,
            "X-Turnkey-Event-Id": event_id,
            "X-Turnkey-Signature-Key-Id": self.key_id,
            "X-Turnkey-Signature-Algorithm": SIGNATURE_ALGORITHM,
            "X-Turnkey-Signature-Version": SIGNATURE_VERSION,
            "X-Turnkey-Signature": signature,
        }

    def jwks(self) -> dict[str, list[dict[str, str]]]:
        """The JSON Web Key Set of the discovery endpoint."""
        x = base64.urlsafe_b64encode(bytes.fromhex(self.public_key)).rstrip(b"=").decode()
        return {
            "keys": [
                {
                    "kid": self.key_id,
                    "kty": "OKP",
                    "crv": "Ed25519",
                    "alg": "EdDSA",
                    "use": "sig",
                    "x": x,
                    "turnkey_signature_algorithm": SIGNATURE_ALGORITHM,
                    "turnkey_signature_version": SIGNATURE_VERSION,
                }
            ]
        }

    def __repr__(self) -> str:
        return f"WebhookSigner(key_id={self.key_id!r})"


def webhook_signer(enclave: EnclaveKeys) -> WebhookSigner:
    return enclave.cached(_PURPOSE, WebhookSigner)
