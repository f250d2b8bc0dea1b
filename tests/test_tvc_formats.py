"""The formats of Verifiable Cloud against implementations other than the emulator's:
Shamir shares against QuorumOS's own and shamir-mnemonic's GF(256) interpolation; the QOS
manifest's Borsh encoding against borsh-construct with QOS's struct layout (``boot.rs``)
transcribed; the QOS key set's HKDF against PyCryptodome's."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from pathlib import Path

from borsh_construct import U8, U16, U32, Bool, CStruct, Enum, Option, String, Vec
from shamir_mnemonic.shamir import RawShare, _interpolate

from emulator.crypto import qos_keys, shamir
from emulator.crypto.qos_manifest import Manifest, Member, MemberSet, from_json

from .tvc_helpers import Operator

VECTORS = json.loads(
    (Path(__file__).parent.parent / "fixtures" / "qos-shamir-vectors.json").read_text()
)

NAMESPACE = CStruct("name" / String, "nonce" / U32, "quorum_key" / Vec(U8))
BRIDGE = Enum(
    "Server" / CStruct("port" / U16, "host" / String),
    "Client" / CStruct("port" / U16, "host" / Option(String)),
    enum_name="BridgeConfig",
)
RESTART = Enum("Never", "Always", enum_name="RestartPolicy")
PIVOT = CStruct(
    "hash" / U8[32],
    "restart" / RESTART,
    "bridge_config" / Vec(BRIDGE),
    "debug_mode" / Bool,
    "args" / Vec(String),
)
MEMBER = CStruct("alias" / String, "pub_key" / Vec(U8))
SET = CStruct("threshold" / U32, "members" / Vec(MEMBER))
NITRO = CStruct(
    "pcr0" / Vec(U8),
    "pcr1" / Vec(U8),
    "pcr2" / Vec(U8),
    "pcr3" / Vec(U8),
    "aws_root_certificate" / Vec(U8),
    "qos_commit" / String,
)
PATCH_SET = CStruct("threshold" / U32, "members" / Vec(CStruct("pub_key" / Vec(U8))))
MANIFEST = CStruct(
    "namespace" / NAMESPACE,
    "pivot" / PIVOT,
    "manifest_set" / SET,
    "share_set" / SET,
    "enclave" / NITRO,
    "patch_set" / PATCH_SET,
)


def test_qos_shares_rebuild_its_secret():
    shares = [bytes.fromhex(s) for s in VECTORS["shares"]]
    for pair in itertools.combinations(shares, 2):
        assert shamir.combine(list(pair)) == VECTORS["secret"].encode()


def test_splits_rebuild_with_another_interpolation():
    for count, threshold in ((5, 3), (3, 2), (1, 1), (7, 7)):
        secret = os.urandom(32)
        shares = shamir.split(secret, count, threshold)
        assert sorted(s[0] for s in shares) == list(range(1, count + 1))
        for chosen in itertools.islice(itertools.combinations(shares, threshold), 5):
            assert _interpolate([RawShare(s[0], s[1:]) for s in chosen], 0) == secret
        if threshold > 1:
            fewer = shares[: threshold - 1]
            assert _interpolate([RawShare(s[0], s[1:]) for s in fewer], 0) != secret


def test_key_set_matches_an_independent_derivation():
    operator = Operator()
    ours = qos_keys.KeySet.from_master_seed(operator.seed)
    assert ours.public.hex() == operator.public


def _sample(debug: bool) -> Manifest:
    members = tuple(Member(f"op{i}", bytes.fromhex(Operator().public)) for i in range(3))
    return Manifest(
        namespace="prod/tvc/00000000-0000-4000-8000-000000000000",
        nonce=4_000_000_000,
        quorum_key=bytes.fromhex(Operator().public),
        pivot_hash=hashlib.sha256(b"pivot").digest(),
        restart="Always",
        bridge_port=3000,
        bridge_host="0.0.0.0",
        debug_mode=debug,
        args=("--host", "0.0.0.0", "--port", "3000", "ünï"),
        manifest_set=MemberSet(2, members),
        share_set=MemberSet(2, members[:2]),
        pcrs=tuple(hashlib.sha384(bytes([i])).digest() for i in range(4)),  # type: ignore[arg-type]
        aws_root_certificate=b"\x30\x82der",
        qos_commit="0123456789abcdef0123456789abcdef01234567",
    )


def test_manifest_borsh_matches_borsh_construct():
    for debug in (False, True):
        manifest = _sample(debug)
        data = manifest.json()
        built = MANIFEST.build(
            {
                "namespace": {
                    "name": manifest.namespace,
                    "nonce": manifest.nonce,
                    "quorum_key": list(manifest.quorum_key),
                },
                "pivot": {
                    "hash": list(manifest.pivot_hash),
                    "restart": RESTART.enum.Always(),
                    "bridge_config": [BRIDGE.enum.Server(port=3000, host="0.0.0.0")],
                    "debug_mode": debug,
                    "args": list(manifest.args),
                },
                "manifest_set": _set(data["manifestSet"]),
                "share_set": _set(data["shareSet"]),
                "enclave": {
                    **{f"pcr{i}": list(manifest.pcrs[i]) for i in range(4)},
                    "aws_root_certificate": list(manifest.aws_root_certificate),
                    "qos_commit": manifest.qos_commit,
                },
                "patch_set": {"threshold": 0, "members": []},
            }
        )
        assert built == manifest.borsh()
        assert manifest.digest() == hashlib.sha256(built).digest()
        assert from_json(manifest.text()) == manifest


def _set(data: dict) -> dict:
    return {
        "threshold": data["threshold"],
        "members": [
            {"alias": m["alias"], "pub_key": list(bytes.fromhex(m["pubKey"]))}
            for m in data["members"]
        ],
    }
