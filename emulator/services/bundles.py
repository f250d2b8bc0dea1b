"""The encrypted bundles between the enclave and a client, in the real formats (§7).

* credential bundle: Base58Check of the compressed encapsulated key and the
  ciphertext, HPKE-sealed to the caller's ``targetPublicKey``; no signature;
* signed bundle (export bundles, import targets, the OTP target): a JSON string
  ``{"version": "v1.0.0", "data": <hex of inner JSON>, "dataSignature": <DER hex>,
  "enclaveQuorumPublic": <signing key>}``, the signature over the inner JSON bytes;
* client bundle (what import and verify_otp receive): JSON
  ``{"encappedPublic", "ciphertext"}``, sealed to a target key of the enclave.

Encryption is seeded like every other random choice of the emulator: the
ephemeral key comes from the world's secret stream.
"""

from __future__ import annotations

import json
from typing import Any

from ..crypto import hpke
from ..crypto.base58 import base58check_encode
from ..crypto.curves import P256_ORDER
from ..crypto.enclave import SIGNER
from ..engine_state.world import World
from ..ground import jsontext

BUNDLE_VERSION = "v1.0.0"
Json = dict[str, Any]


class BundleError(ValueError):
    """A client bundle that is not JSON of the right shape, or does not open."""


def _compact(value: Json) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def new_p256_secret(world: World) -> bytes:
    """A fresh P-256 private key (32 bytes) from the world's secret stream."""
    scalar = int.from_bytes(world.ids.secret_bytes(32), "big") % (P256_ORDER - 1) + 1
    return scalar.to_bytes(32, "big")


def public_key_of(secret: bytes, *, compressed: bool = True) -> str:
    """The hex public key of a P-256 private key."""
    public = hpke.uncompressed(hpke.private_key_from_bytes(secret).public_key())
    return (hpke.compress(public) if compressed else public).hex()


def parse_target_public_key(value: str) -> bytes:
    """A client's P-256 target key (hex, compressed or uncompressed); ``BundleError`` if not."""
    try:
        raw = bytes.fromhex(value)
        hpke.load_public_key(raw)
    except (ValueError, TypeError) as exc:  # HpkeError is a ValueError
        raise BundleError(f"not a P-256 public key: {value!r}") from exc
    return raw


def seal_to(world: World, target_public_key: str, plaintext: bytes) -> hpke.Sealed:
    """``plaintext`` sealed to the client's key with Turnkey's HPKE profile."""
    target = parse_target_public_key(target_public_key)
    return hpke.seal(target, plaintext, ephemeral_private=new_p256_secret(world))


def credential_bundle(world: World, target_public_key: str, secret: bytes) -> str:
    """The credential bundle that carries ``secret`` (an API key's private key)."""
    sealed = seal_to(world, target_public_key, secret)
    return base58check_encode(hpke.compress(sealed.enc) + sealed.ciphertext)


def signed_bundle(world: World, data: Json, role: str = SIGNER) -> str:
    """The enclave-signed JSON envelope around ``data`` (``role``'s key signs)."""
    inner = _compact(data)
    return json.dumps(
        {
            "version": BUNDLE_VERSION,
            "data": inner.hex(),
            "dataSignature": world.enclave.sign(role, inner).hex(),
            "enclaveQuorumPublic": world.enclave.public_key(role),
        },
        separators=(",", ":"),
    )


def export_bundle(
    world: World, organization_id: str, target_public_key: str, plaintext: bytes
) -> str:
    """An export bundle: ``plaintext`` sealed to the client, signed by the enclave."""
    sealed = seal_to(world, target_public_key, plaintext)
    return signed_bundle(
        world,
        {
            "encappedPublic": sealed.enc.hex(),
            "ciphertext": sealed.ciphertext.hex(),
            "organizationId": organization_id,
        },
    )


def target_bundle(
    world: World,
    target_secret: bytes,
    organization_id: str,
    user_id: str | None = None,
    role: str = SIGNER,
) -> str:
    """A signed target bundle: the enclave key a client encrypts to (import, OTP)."""
    data: Json = {
        "targetPublic": public_key_of(target_secret, compressed=False),
        "organizationId": organization_id,
    }
    if user_id is not None:
        data["userId"] = user_id
    return signed_bundle(world, data, role)


def open_client_bundle(encrypted_bundle: str, target_secret: bytes) -> bytes:
    """The plaintext of a client's ``{"encappedPublic", "ciphertext"}`` bundle."""
    try:
        parsed = jsontext.loads(encrypted_bundle)
        enc = bytes.fromhex(parsed["encappedPublic"])
        ciphertext = bytes.fromhex(parsed["ciphertext"])
    except (ValueError, TypeError, KeyError) as exc:
        raise BundleError(f"not an encrypted bundle: {exc}") from exc
    try:
        return hpke.open_sealed(target_secret, enc, ciphertext)
    except hpke.HpkeError as exc:
        raise BundleError(str(exc)) from exc
