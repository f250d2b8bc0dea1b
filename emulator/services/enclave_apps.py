"""The emulator's enclave apps: their Ephemeral Keys (which sign app proofs) and boot proofs.

security/turnkey-verified.mdx and products/verifiable-cloud/proofs-and-verification.mdx:
an enclave makes an Ephemeral Key at boot; its public half is 130 bytes, an encryption
key then a signing key (each an uncompressed P-256 point), as ``@turnkey/crypto``'s
``verifyAppProofSignature`` reads it. A boot proof binds that key to the enclave: an AWS
Nitro attestation document (a COSE_Sign1, ES384, in CBOR) whose ``public_key`` is the
Ephemeral Key and whose ``user_data`` is the SHA-256 of the QOS manifest, with the
manifest, its envelope and the app's names.

The emulator is no Nitro enclave, so its attestation documents are signed by a
certificate chain of its own (a self-signed P-384 root, "not AWS", and a leaf), not by
the AWS Nitro PKI: the COSE signature, the manifest digest, the key binding and the PCR17
commitment verify with the official code, and the chain to the pinned AWS root fails, as
it must for anything that is not AWS. The manifest is a JSON document
(``qosManifestVersion`` ``emulator-json-v1``), not QOS's Borsh encoding. Every key is
derived from the enclave signer (``EnclaveKeys.derived_secret``): a seeded emulator has
the same ones on every run.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
from dataclasses import dataclass

import cbor2
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID

from ..crypto.enclave import EnclaveKeys

SIGNER_APP = "signer"
POLICY_ENGINE_APP = "policy-engine"
APPS = (SIGNER_APP, POLICY_ENGINE_APP)
OWNER = "tkhq"
MANIFEST_VERSION = "emulator-json-v1"
BOOTED_AT_NS = 1_735_689_600 * 1_000_000_000  # 2025-01-01T00:00:00Z: a fixed boot time
LIVE_PCR_DOMAIN = "qos-live-manifest-pcr-commitment-v1"
_UNCOMPRESSED = (serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def _p256(secret: bytes) -> ec.EllipticCurvePrivateKey:
    scalar = int.from_bytes(secret, "big") % (_P256_ORDER - 1) + 1
    return ec.derive_private_key(scalar, ec.SECP256R1())


def _p384(secret: bytes) -> ec.EllipticCurvePrivateKey:
    wide = hashlib.sha512(secret).digest()
    scalar = int.from_bytes(wide, "big") % (_P384_ORDER - 1) + 1
    return ec.derive_private_key(scalar, ec.SECP384R1())


_P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
_P384_ORDER = int(
    "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973",
    16,
)


@dataclass(frozen=True)
class EnclaveApp:
    """One enclave app: its Ephemeral Key (encryption and signing halves) and boot proof."""

    name: str
    encryption_key: ec.EllipticCurvePrivateKey
    signing_key: ec.EllipticCurvePrivateKey
    boot_proof: dict

    @property
    def ephemeral_public_key(self) -> str:
        """The 130-byte public Ephemeral Key, hex: encryption key then signing key."""
        return (
            self.encryption_key.public_key().public_bytes(*_UNCOMPRESSED)
            + self.signing_key.public_key().public_bytes(*_UNCOMPRESSED)
        ).hex()

    def sign(self, payload: bytes) -> str:
        """P-256 ECDSA over SHA-256(``payload``) as 64 bytes ``r‖s``, hex (deterministic)."""
        der = self.signing_key.sign(payload, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
        r, s = decode_dss_signature(der)
        return (r.to_bytes(32, "big") + s.to_bytes(32, "big")).hex()


def app(enclave: EnclaveKeys, name: str) -> EnclaveApp:
    """The enclave app ``name`` (one of ``APPS``), built once per enclave."""
    return enclave.cached(f"enclave-app:{name}", lambda secret: _build(enclave, name, secret))


def find_by_ephemeral_key(enclave: EnclaveKeys, public_key: str) -> EnclaveApp | None:
    for name in APPS:
        found = app(enclave, name)
        if found.ephemeral_public_key == public_key.lower():
            return found
    return None


def _build(enclave: EnclaveKeys, name: str, secret: bytes) -> EnclaveApp:
    encryption = _p256(hashlib.blake2b(secret, key=b"encryption", digest_size=32).digest())
    signing = _p256(hashlib.blake2b(secret, key=b"signing", digest_size=32).digest())
    partial = EnclaveApp(name, encryption, signing, {})
    return EnclaveApp(name, encryption, signing, _boot_proof(enclave, partial))


def _boot_proof(enclave: EnclaveKeys, made: EnclaveApp) -> dict:
    ephemeral = bytes.fromhex(made.ephemeral_public_key)
    manifest_data = {
        "namespace": {"name": f"emulator/{made.name}", "nonce": 1},
        "pivot": {
            "hash": hashlib.sha256(f"turnkey-emulator {made.name}".encode()).hexdigest(),
            "args": [],
        },
        "note": "turnkey-emulator: not a QOS manifest, not an enclave",
    }
    manifest = json.dumps(manifest_data, separators=(",", ":")).encode()
    envelope = json.dumps(
        {"manifest": manifest_data, "manifestSetApprovals": [], "shareSetApprovals": []},
        separators=(",", ":"),
    ).encode()
    digest = hashlib.sha256(manifest).digest()
    pcrs = {i: hashlib.sha384(f"{made.name}:pcr{i}".encode()).digest() for i in range(32)}
    pcrs[17] = live_manifest_pcr(digest, ephemeral)
    cose = attestation_document(
        enclave, made.name, pcrs, ephemeral, digest, BOOTED_AT_NS // 1_000_000
    )
    return {
        "ephemeralPublicKeyHex": made.ephemeral_public_key,
        "awsAttestationDocB64": base64.b64encode(cose).decode(),
        "qosManifestB64": base64.b64encode(manifest).decode(),
        "qosManifestEnvelopeB64": base64.b64encode(envelope).decode(),
        "deploymentLabel": f"emulator-{made.name}",
        "enclaveApp": made.name,
        "owner": OWNER,
        "createdAt": {
            "seconds": str(BOOTED_AT_NS // 1_000_000_000),
            "nanos": "0",
        },
        "qosManifestVersion": MANIFEST_VERSION,
    }


def attestation_document(
    enclave: EnclaveKeys,
    label: str,
    pcrs: dict[int, bytes],
    public_key: bytes,
    user_data: bytes,
    timestamp_ms: int,
) -> bytes:
    """A Nitro-shaped attestation document (COSE_Sign1, ES384, CBOR) signed by the
    emulator's leaf ``label`` under its own root (not AWS): ``public_key`` and
    ``user_data`` as QOS fills them."""
    root_key, root = _root(enclave)
    leaf_key = _p384(enclave.derived_secret(f"attestation-leaf:{label}"))
    leaf = _certificate(leaf_key, f"{label}.enclave.turnkey-emulator", root_key, root)
    document = {
        "module_id": f"turnkey-emulator-{label}",
        "digest": "SHA384",
        "timestamp": timestamp_ms,
        "pcrs": pcrs,
        "certificate": leaf.public_bytes(serialization.Encoding.DER),
        "cabundle": [root.public_bytes(serialization.Encoding.DER)],
        "public_key": public_key,
        "user_data": user_data,
        "nonce": None,
    }
    protected = cbor2.dumps({1: -35})  # alg: ES384
    payload = cbor2.dumps(document)
    to_sign = cbor2.dumps(["Signature1", protected, b"", payload])
    der = leaf_key.sign(to_sign, ec.ECDSA(hashes.SHA384(), deterministic_signing=True))
    r, s = decode_dss_signature(der)
    signature = r.to_bytes(48, "big") + s.to_bytes(48, "big")
    return cbor2.dumps([protected, {}, payload, signature])


def root_certificate(enclave: EnclaveKeys) -> bytes:
    """The DER of the emulator's attestation root (it stands where AWS's would)."""
    return _root(enclave)[1].public_bytes(serialization.Encoding.DER)


def live_manifest_pcr(manifest_digest: bytes, ephemeral_public_key: bytes) -> bytes:
    """PCR17: QOS's commitment to the live manifest and the Ephemeral Key (the value
    ``computeQosLiveManifestCommitmentPcr`` of ``@turnkey/crypto`` expects)."""
    preimage = (
        f'{{"domain":"{LIVE_PCR_DOMAIN}","ephemeralPublicKey":"{ephemeral_public_key.hex()}",'
        f'"manifestHash":"{manifest_digest.hex()}"}}'
    ).encode()
    commitment = hashlib.sha384(preimage).digest()
    return hashlib.sha384(bytes(48) + commitment).digest()


def _root(enclave: EnclaveKeys) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    def build(secret: bytes) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
        key = _p384(secret)
        return key, _certificate(key, "turnkey-emulator attestation root (not AWS)", key, None)

    return enclave.cached("attestation-root", build)


def _certificate(
    key: ec.EllipticCurvePrivateKey,
    common_name: str,
    issuer_key: ec.EllipticCurvePrivateKey,
    issuer: x509.Certificate | None,
) -> x509.Certificate:
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    serial = int.from_bytes(hashlib.sha256(common_name.encode()).digest()[:16], "big") >> 1
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer.subject if issuer is not None else subject)
        .public_key(key.public_key())
        .serial_number(serial or 1)
        .not_valid_before(datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc))
        .not_valid_after(datetime.datetime(2100, 1, 1, tzinfo=datetime.timezone.utc))
        .add_extension(x509.BasicConstraints(ca=issuer is None, path_length=None), critical=True)
    )
    return builder.sign(issuer_key, hashes.SHA384(), ecdsa_deterministic=True)
