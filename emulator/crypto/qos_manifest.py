"""QuorumOS manifests (v1): the Borsh encoding QOS hashes, and the JSON QOS reads.

``tkhq/qos`` ``src/qos_core/src/protocol/services/boot.rs``: a ``Manifest`` is
``namespace`` (name, nonce u32, quorum key bytes), ``pivot`` (hash [u8; 32], restart
policy, bridge config, debug mode, args), ``manifest_set`` and ``share_set`` (threshold
u32, members: alias and a 130-byte public key set each), ``enclave`` (``NitroConfig``:
pcr0 to pcr3, the AWS root certificate, the QOS commit) and ``patch_set`` (threshold,
member public keys). Its digest is ``qos_hash``: SHA-256 of its Borsh encoding
(``protocol/mod.rs``); an approval is a member's signature over that digest
(``ManifestEnvelope::check_approvals``). Borsh, as the ``borsh`` crate writes it: integers
little-endian, a ``String`` or ``Vec`` a u32 length then its items, a fixed array its bytes,
an enum a u8 variant index then its fields, ``Option`` a 0 or 1 byte then the value.

The JSON is serde's: camelCase field names, byte fields as lower-case hex, enums by
variant name, ``BridgeConfig`` tagged by ``type`` (``server``/``client``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from ..ground import jsontext

RESTART_NEVER, RESTART_ALWAYS = "Never", "Always"
_RESTART_INDEX = {RESTART_NEVER: 0, RESTART_ALWAYS: 1}


def _u8(value: int) -> bytes:
    return value.to_bytes(1, "little")


def _u16(value: int) -> bytes:
    return value.to_bytes(2, "little")


def _u32(value: int) -> bytes:
    return value.to_bytes(4, "little")


def _bytes(value: bytes) -> bytes:
    return _u32(len(value)) + value


def _string(value: str) -> bytes:
    return _bytes(value.encode())


@dataclass(frozen=True)
class Member:
    alias: str
    pub_key: bytes

    def borsh(self) -> bytes:
        return _string(self.alias) + _bytes(self.pub_key)

    def json(self) -> dict[str, Any]:
        return {"alias": self.alias, "pubKey": self.pub_key.hex()}


@dataclass(frozen=True)
class MemberSet:
    threshold: int
    members: tuple[Member, ...]

    def borsh(self) -> bytes:
        return (
            _u32(self.threshold)
            + _u32(len(self.members))
            + b"".join(m.borsh() for m in self.members)
        )

    def json(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "members": [m.json() for m in self.members]}


@dataclass(frozen=True)
class Manifest:
    """A v1 manifest (``boot.rs`` ``Manifest``); the bridge config is one server bridge."""

    namespace: str
    nonce: int
    quorum_key: bytes
    pivot_hash: bytes
    restart: str
    bridge_port: int
    bridge_host: str
    debug_mode: bool
    args: tuple[str, ...]
    manifest_set: MemberSet
    share_set: MemberSet
    pcrs: tuple[bytes, bytes, bytes, bytes]
    aws_root_certificate: bytes
    qos_commit: str
    patch_set_threshold: int = 0

    def borsh(self) -> bytes:
        namespace = _string(self.namespace) + _u32(self.nonce) + _bytes(self.quorum_key)
        bridge = _u32(1) + _u8(0) + _u16(self.bridge_port) + _string(self.bridge_host)
        pivot = (
            self.pivot_hash
            + _u8(_RESTART_INDEX[self.restart])
            + bridge
            + _u8(1 if self.debug_mode else 0)
            + _u32(len(self.args))
            + b"".join(_string(a) for a in self.args)
        )
        enclave = b"".join(_bytes(p) for p in self.pcrs) + _bytes(self.aws_root_certificate)
        enclave += _string(self.qos_commit)
        patch_set = _u32(self.patch_set_threshold) + _u32(0)
        return (
            namespace
            + pivot
            + self.manifest_set.borsh()
            + self.share_set.borsh()
            + enclave
            + patch_set
        )

    def digest(self) -> bytes:
        """``qos_hash``: SHA-256 of the Borsh encoding."""
        return hashlib.sha256(self.borsh()).digest()

    def json(self) -> dict[str, Any]:
        pcr0, pcr1, pcr2, pcr3 = (p.hex() for p in self.pcrs)
        return {
            "namespace": {
                "name": self.namespace,
                "nonce": self.nonce,
                "quorumKey": self.quorum_key.hex(),
            },
            "pivot": {
                "hash": self.pivot_hash.hex(),
                "restart": self.restart,
                "bridgeConfig": [
                    {"type": "server", "port": self.bridge_port, "host": self.bridge_host}
                ],
                "debugMode": self.debug_mode,
                "args": list(self.args),
            },
            "manifestSet": self.manifest_set.json(),
            "shareSet": self.share_set.json(),
            "enclave": {
                "pcr0": pcr0,
                "pcr1": pcr1,
                "pcr2": pcr2,
                "pcr3": pcr3,
                "awsRootCertificate": self.aws_root_certificate.hex(),
                "qosCommit": self.qos_commit,
            },
            "patchSet": {"threshold": self.patch_set_threshold, "members": []},
        }

    def text(self) -> str:
        return json.dumps(self.json(), separators=(",", ":"))


def _member_set(data: Any) -> MemberSet:
    return MemberSet(
        int(data["threshold"]),
        tuple(Member(m["alias"], bytes.fromhex(m["pubKey"])) for m in data["members"]),
    )


def from_json(text: str | bytes) -> Manifest:
    """The manifest of its JSON (this module's shape); ValueError when it is not one."""
    try:
        data = jsontext.loads(text)
        namespace, pivot, enclave = data["namespace"], data["pivot"], data["enclave"]
        (bridge,) = pivot["bridgeConfig"]
        manifest = Manifest(
            namespace=namespace["name"],
            nonce=int(namespace["nonce"]),
            quorum_key=bytes.fromhex(namespace["quorumKey"]),
            pivot_hash=bytes.fromhex(pivot["hash"]),
            restart=pivot["restart"],
            bridge_port=int(bridge["port"]),
            bridge_host=bridge["host"],
            debug_mode=bool(pivot["debugMode"]),
            args=tuple(str(a) for a in pivot["args"]),
            manifest_set=_member_set(data["manifestSet"]),
            share_set=_member_set(data["shareSet"]),
            pcrs=tuple(bytes.fromhex(enclave[f"pcr{i}"]) for i in range(4)),  # type: ignore[arg-type]
            aws_root_certificate=bytes.fromhex(enclave["awsRootCertificate"]),
            qos_commit=enclave["qosCommit"],
            patch_set_threshold=int(data["patchSet"]["threshold"]),
        )
        manifest.borsh()  # every field encodable
    except (KeyError, TypeError, ValueError, OverflowError, AttributeError) as exc:
        raise ValueError(f"not a QOS manifest: {exc}") from None
    return manifest
