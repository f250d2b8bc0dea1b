"""The client's side of the encrypted bundles, in Python: what ``@turnkey/crypto`` does.

A test that runs an authentication, import or export flow against the emulator
needs to do what the real client does with the answers: open a credential
bundle with its target key, check and open an export bundle, encrypt a
mnemonic or key to an import bundle, check a session JWT. These functions do
that with the emulator's enclave keys (``emu.enclave``) in place of the
production keys the official SDKs pin.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from ..crypto import hpke, jwt
from ..crypto.api_keys import ApiKeyPair, key_pair_from_private
from ..crypto.base58 import base58check_decode
from ..crypto.curves import P256_ORDER

Json = dict[str, Any]


class ClientBundleError(ValueError):
    """A bundle the client refuses: bad signature, wrong organization or user, bad shape."""


@dataclass(frozen=True)
class TargetKey:
    """A client's P-256 key pair that bundles are encrypted to (``targetPublicKey``)."""

    private_key: bytes

    @classmethod
    def generate(cls, entropy: bytes | None = None) -> TargetKey:
        raw = entropy if entropy is not None else os.urandom(32)
        return cls((int.from_bytes(raw, "big") % (P256_ORDER - 1) + 1).to_bytes(32, "big"))

    @property
    def public_key(self) -> str:
        """Uncompressed SEC1 hex (130 characters), as the SDKs send ``targetPublicKey``."""
        return hpke.uncompressed(hpke.private_key_from_bytes(self.private_key).public_key()).hex()

    @property
    def compressed_public_key(self) -> str:
        return hpke.compress(bytes.fromhex(self.public_key)).hex()

    @property
    def api_key(self) -> ApiKeyPair:
        """The same key as a P-256 API key pair (a login session key stamps with it)."""
        return key_pair_from_private(self.private_key.hex())

    def __repr__(self) -> str:
        return f"TargetKey(public_key={self.public_key[:18]}…)"


def decrypt_credential_bundle(bundle: str, target: TargetKey) -> ApiKeyPair:
    """The API key a credential bundle carries (``decryptCredentialBundle``)."""
    try:
        raw = base58check_decode(bundle)
        secret = hpke.open_sealed(target.private_key, raw[:33], raw[33:])
    except (ValueError, hpke.HpkeError) as exc:
        raise ClientBundleError(f"credential bundle does not open: {exc}") from exc
    return key_pair_from_private(secret.hex())


def verify_signed_bundle(bundle: str, signer_public_key: str) -> Json:
    """The inner data of an enclave-signed bundle once its signature and signer check out."""
    try:
        outer = json.loads(bundle)
        inner_bytes = bytes.fromhex(outer["data"])
        signature = bytes.fromhex(outer["dataSignature"])
        signer = outer["enclaveQuorumPublic"]
    except (ValueError, TypeError, KeyError) as exc:
        raise ClientBundleError(f"not a signed bundle: {exc}") from exc
    if outer.get("version") != "v1.0.0":
        raise ClientBundleError(f"unsupported bundle version {outer.get('version')!r}")
    if signer.lower() != signer_public_key.lower():
        raise ClientBundleError("bundle signed by an unexpected enclave key")
    key = hpke.load_public_key(bytes.fromhex(signer_public_key))
    try:
        key.verify(signature, inner_bytes, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature as exc:
        raise ClientBundleError("bundle signature does not verify") from exc
    return json.loads(inner_bytes)


def decrypt_export_bundle(
    bundle: str, target: TargetKey, *, organization_id: str, signer_public_key: str
) -> bytes:
    """The plaintext of an export bundle (mnemonic text, or raw private key bytes)."""
    inner = verify_signed_bundle(bundle, signer_public_key)
    if inner.get("organizationId") != organization_id:
        raise ClientBundleError("export bundle is for another organization")
    try:
        return hpke.open_sealed(
            target.private_key,
            bytes.fromhex(inner["encappedPublic"]),
            bytes.fromhex(inner["ciphertext"]),
        )
    except (ValueError, KeyError, hpke.HpkeError) as exc:
        raise ClientBundleError(f"export bundle does not open: {exc}") from exc


def encrypt_to_bundle(target_public_key: str, plaintext: bytes) -> str:
    """``{"encappedPublic", "ciphertext"}`` sealed to an enclave target key (hex)."""
    sealed = hpke.seal(bytes.fromhex(target_public_key), plaintext)
    return json.dumps({"encappedPublic": sealed.enc.hex(), "ciphertext": sealed.ciphertext.hex()})


def encrypt_for_import(
    import_bundle: str,
    plaintext: bytes,
    *,
    organization_id: str,
    user_id: str,
    signer_public_key: str,
) -> str:
    """An ``encryptedBundle`` for import_wallet / import_private_key
    (``encryptWalletToBundle`` / ``encryptPrivateKeyToBundle``)."""
    inner = verify_signed_bundle(import_bundle, signer_public_key)
    if inner.get("organizationId") != organization_id or inner.get("userId") != user_id:
        raise ClientBundleError("import bundle is for another organization or user")
    return encrypt_to_bundle(inner["targetPublic"], plaintext)


def verify_session_jwt(session: str, notarizer_public_key: str) -> Json:
    """The claims of a session JWT once the notarizer's signature verifies."""
    key = hpke.load_public_key(bytes.fromhex(notarizer_public_key))
    return jwt.verify_es256(session, key, double_hash=True)
