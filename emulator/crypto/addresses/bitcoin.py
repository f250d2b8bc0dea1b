"""Bitcoin-family addresses from one compressed secp256k1 key: P2PKH, P2SH, P2WPKH, P2WSH, P2TR.

The P2SH redeem script and the P2WSH witness script are choices (see ``AddressOptions``); they
are not confirmed against the live service. P2TR is a BIP86 key-path-only output.
"""

from __future__ import annotations

from dataclasses import dataclass

from coincurve import PublicKeyXOnly

from ..base58 import base58check_encode
from .encodings import segwit_encode
from .hashes import hash160, sha256, tagged_hash_prefix


@dataclass(frozen=True)
class Network:
    """Version bytes and bech32 prefix of one Bitcoin network."""

    name: str
    p2pkh_version: bytes
    p2sh_version: bytes
    hrp: str


MAINNET = Network("MAINNET", b"\x00", b"\x05", "bc")
TESTNET = Network("TESTNET", b"\x6f", b"\xc4", "tb")
SIGNET = Network("SIGNET", b"\x6f", b"\xc4", "tb")  # byte-identical to testnet
REGTEST = Network("REGTEST", b"\x6f", b"\xc4", "bcrt")
NETWORKS = (MAINNET, TESTNET, SIGNET, REGTEST)

DOGE_MAINNET_P2PKH = b"\x1e"
DOGE_TESTNET_P2PKH = b"\x71"

_OP_0, _OP_1, _OP_DUP, _OP_HASH160 = b"\x00", b"\x51", b"\x76", b"\xa9"
_OP_EQUALVERIFY, _OP_CHECKSIG, _OP_CHECKMULTISIG = b"\x88", b"\xac", b"\xae"


def _push(data: bytes) -> bytes:
    return bytes([len(data)]) + data  # direct push: every push here is under 76 bytes


def p2pkh_script(public_key: bytes) -> bytes:
    """``OP_DUP OP_HASH160 <hash160> OP_EQUALVERIFY OP_CHECKSIG``."""
    return _OP_DUP + _OP_HASH160 + _push(hash160(public_key)) + _OP_EQUALVERIFY + _OP_CHECKSIG


def p2wpkh_script(public_key: bytes) -> bytes:
    """``OP_0 <hash160>``, the witness program P2SH-P2WPKH wraps."""
    return _OP_0 + _push(hash160(public_key))


def p2pk_script(public_key: bytes) -> bytes:
    """``<pk> OP_CHECKSIG``."""
    return _push(public_key) + _OP_CHECKSIG


def multisig_script(public_key: bytes) -> bytes:
    """1-of-1 bare multisig: ``OP_1 <pk> OP_1 OP_CHECKMULTISIG``."""
    return _OP_1 + _push(public_key) + _OP_1 + _OP_CHECKMULTISIG


P2SH_REDEEM_SCRIPTS = {
    "p2wpkh": p2wpkh_script,
    "p2pk": p2pk_script,
    "multisig": multisig_script,
    "p2pkh": p2pkh_script,
}
P2WSH_WITNESS_SCRIPTS = {"p2pk": p2pk_script, "multisig": multisig_script}


def p2pkh(public_key: bytes, version: bytes) -> str:
    """Base58Check(version ‖ hash160(pk)); also Dogecoin's address with its own version."""
    return base58check_encode(version + hash160(public_key))


def p2sh(public_key: bytes, version: bytes, script: str) -> str:
    """Base58Check(version ‖ hash160(redeem script)), the script named by ``script``."""
    return base58check_encode(version + hash160(P2SH_REDEEM_SCRIPTS[script](public_key)))


def p2wpkh(public_key: bytes, hrp: str) -> str:
    """Segwit v0 with the 20-byte hash160 of the key."""
    return segwit_encode(hrp, 0, hash160(public_key))


def p2wsh(public_key: bytes, hrp: str, script: str) -> str:
    """Segwit v0 with the SHA-256 of the witness script named by ``script``."""
    return segwit_encode(hrp, 0, sha256(P2WSH_WITNESS_SCRIPTS[script](public_key)))


_TAP_TWEAK = tagged_hash_prefix("TapTweak")


def taproot_output_key(public_key: bytes) -> bytes:
    """x(Q) for Q = lift_x(x(P)) + H_TapTweak(x(P))·G: BIP86, no script tree."""
    internal = public_key[1:33]
    point = PublicKeyXOnly(internal)
    point.tweak_add(sha256(_TAP_TWEAK + internal))  # mutates in place
    return point.format()


def p2tr(public_key: bytes, hrp: str) -> str:
    """Segwit v1 (bech32m) with the BIP86-tweaked x-only key."""
    return segwit_encode(hrp, 1, taproot_output_key(public_key))
