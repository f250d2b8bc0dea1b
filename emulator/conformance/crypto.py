"""The client's cryptography, from the crypto libraries alone (never the engine's).

* Enclave bundles: an import or export bundle is ``{version, data, dataSignature,
  enclaveQuorumPublic}``, ``data`` the hex of a JSON document signed (ECDSA P-256, SHA-256,
  DER) by the enclave's signer key (``@turnkey/crypto``'s ``verifyEnclaveSignature``). The
  payload is sealed with HPKE (RFC 9180, base mode, DHKEM(P-256, HKDF-SHA256), HKDF-SHA256,
  AES-256-GCM, ``info = "turnkey_hpke"``, associated data ``enc ‖ pkR``), by ``pyhpke``.
* Addresses from a mnemonic (``bip-utils``; Ethereum cross-checked with ``eth-account``).
* Signatures of ``sign_raw_payload``: secp256k1 recovered with ``coincurve`` and
  ``eth-keys``, Ed25519 verified with ``pynacl``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from bip_utils import (
    Bip32Slip10Ed25519,
    Bip32Slip10Secp256k1,
    Bip39SeedGenerator,
    EthAddrEncoder,
    P2WPKHAddrEncoder,
    SolAddrEncoder,
)
from coincurve import PublicKey
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from eth_hash.auto import keccak
from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey
from pyhpke import AEADId, CipherSuite, KDFId, KEMId

from ..ground import jsontext  # json.loads with a bound on nesting (standard library only)

#: The signer key of Turnkey's production enclaves, pinned by the official SDKs
#: (``@turnkey/crypto`` ``PRODUCTION_SIGNER_SIGN_PUBLIC_KEY``).
PRODUCTION_SIGNER_PUBLIC_KEY = (
    "04cf288fe433cc4e1aa0ce1632feac4ea26bf2f5a09dcfe5a42c398e06898710330f0572882f4dbdf0f53"
    "04b8fc8703acd69adca9a4bbf7f5d00d20a5e364b2569"
)
HPKE_INFO = b"turnkey_hpke"
_SUITE = CipherSuite.new(KEMId.DHKEM_P256_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.AES256_GCM)

Json = dict[str, Any]


class BundleError(ValueError):
    """A bundle the client refuses (bad signature, other signer, bad shape)."""


def open_signed_bundle(bundle: str, signer_public_key: str) -> Json:
    """The inner document of an enclave-signed bundle, once its signer and signature check."""
    try:
        outer = jsontext.loads(bundle)
        data = bytes.fromhex(outer["data"])
        signature = bytes.fromhex(outer["dataSignature"])
        signer = str(outer["enclaveQuorumPublic"])
    except (ValueError, TypeError, KeyError) as exc:
        raise BundleError(f"not a signed bundle ({exc})") from None
    if signer.lower() != signer_public_key.lower():
        raise BundleError(f"signed by {signer[:16]}…, not the expected signer key")
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(signer))
    try:
        key.verify(signature, data, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise BundleError("the bundle's signature does not verify") from None
    try:
        inner = jsontext.loads(data)
    except ValueError as exc:
        raise BundleError(f"the bundle's data is not JSON ({exc})") from None
    if not isinstance(inner, dict):
        raise BundleError("the bundle's data is not a JSON object")
    return inner


def seal_to(target_public_key: str, plaintext: bytes) -> str:
    """An ``encryptedBundle``: ``plaintext`` sealed to an enclave target key (hex)."""
    receiver = bytes.fromhex(target_public_key)
    enc, context = _SUITE.create_sender_context(
        _SUITE.kem.deserialize_public_key(receiver), info=HPKE_INFO
    )
    ciphertext = context.seal(plaintext, aad=enc + receiver)
    return json.dumps({"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex()})


class TargetKey:
    """A P-256 key pair of ours that an export is encrypted to."""

    def __init__(self) -> None:
        self._key = ec.generate_private_key(ec.SECP256R1())

    @property
    def public_key(self) -> str:
        """Uncompressed SEC1 hex, as ``targetPublicKey``."""
        point = self._key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return point.hex()

    def open(self, encapped_public: str, ciphertext: str) -> bytes:
        secret = self._key.private_numbers().private_value.to_bytes(32, "big")
        enc = bytes.fromhex(encapped_public)
        context = _SUITE.create_recipient_context(
            enc, _SUITE.kem.deserialize_private_key(secret), info=HPKE_INFO
        )
        return context.open(bytes.fromhex(ciphertext), aad=enc + bytes.fromhex(self.public_key))

    def __repr__(self) -> str:
        return f"TargetKey({self.public_key[:18]}…)"


class P256ApiKey:
    """A fresh P-256 API key pair (compressed public hex, private hex) for a test user."""

    def __init__(self) -> None:
        key = ec.generate_private_key(ec.SECP256R1())
        self.private_key = key.private_numbers().private_value.to_bytes(32, "big").hex()
        self.public_key = (
            key.public_key()
            .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint)
            .hex()
        )

    def __repr__(self) -> str:
        return f"P256ApiKey({self.public_key})"


# ----- addresses -------------------------------------------------------------------------


def seed_of(mnemonic: str) -> bytes:
    return bytes(Bip39SeedGenerator(mnemonic).Generate())


def ethereum_address(seed: bytes, path: str) -> str:
    node = Bip32Slip10Secp256k1.FromSeed(seed).DerivePath(path)
    return EthAddrEncoder.EncodeKey(node.PublicKey().RawCompressed().ToBytes())


def ethereum_address_by_eth_account(mnemonic: str, path: str) -> str:
    """The same address by a second library (``eth-account``'s HD wallet)."""
    from eth_account import Account

    Account.enable_unaudited_hdwallet_features()
    return str(Account.from_mnemonic(mnemonic, account_path=path).address)


def solana_address(seed: bytes, path: str) -> str:
    node = Bip32Slip10Ed25519.FromSeed(seed).DerivePath(path)
    return SolAddrEncoder.EncodeKey(node.PublicKey().RawCompressed().ToBytes()[1:])


def bitcoin_p2wpkh_address(seed: bytes, path: str) -> str:
    node = Bip32Slip10Secp256k1.FromSeed(seed).DerivePath(path)
    return P2WPKHAddrEncoder.EncodeKey(node.PublicKey().RawCompressed().ToBytes(), hrp="bc")


# ----- signatures ------------------------------------------------------------------------


def digest(payload: bytes, hash_function: str) -> bytes:
    if hash_function == "HASH_FUNCTION_KECCAK256":
        return bytes(keccak(payload))
    if hash_function == "HASH_FUNCTION_SHA256":
        return hashlib.sha256(payload).digest()
    if hash_function == "HASH_FUNCTION_NO_OP":
        return payload
    raise ValueError(f"no digest for {hash_function}")


def recover_secp256k1(digest32: bytes, r: str, s: str, v: str) -> str:
    """The compressed public key (hex) that signed ``digest32``, by ``coincurve``."""
    signature = bytes.fromhex(r.rjust(64, "0") + s.rjust(64, "0")) + bytes([int(v, 16) % 27])
    return PublicKey.from_signature_and_message(signature, digest32, hasher=None).format().hex()


def ethereum_address_of(public_key_hex: str) -> str:
    """The checksummed address of a secp256k1 public key, by ``eth-keys``."""
    from eth_keys import keys

    point = PublicKey(bytes.fromhex(public_key_hex)).format(compressed=False)[1:]
    return str(keys.PublicKey(point).to_checksum_address())


def ed25519_verifies(public_key: bytes, message: bytes, r: str, s: str) -> bool:
    try:
        VerifyKey(public_key).verify(message, bytes.fromhex(r + s))
    except (BadSignatureError, ValueError):
        return False
    return True


def base58_decode(text: str) -> bytes:
    from bip_utils import Base58Decoder

    return bytes(Base58Decoder.Decode(text))
