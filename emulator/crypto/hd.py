"""Hierarchical deterministic keys: BIP39 mnemonics, BIP32 and SLIP-10 derivation.

secp256k1 follows BIP32 ("Bitcoin seed"); ed25519 and P-256 follow SLIP-10 ("ed25519 seed",
"Nist256p1 seed"), including SLIP-10's retry rule for invalid keys, which for secp256k1 agrees
with BIP32 except with probability below 2**-127. The math is written here; bip_utils is only
the source of the BIP39 English word list (read from its package data, without importing it).
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import unicodedata
from functools import cache, lru_cache
from pathlib import Path

import coincurve
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from nacl.bindings import crypto_sign_seed_keypair

from .base58 import base58check_encode
from .curves import ED25519, P256, P256_ORDER, SECP256K1, SECP256K1_ORDER

HARDENED = 0x80000000
MAX_DEPTH = 255


# HMAC key of the master step, and group order n (None: every 32-byte string is a valid key).
_CURVES: dict[str, tuple[bytes, int | None]] = {
    SECP256K1: (b"Bitcoin seed", SECP256K1_ORDER),
    ED25519: (b"ed25519 seed", None),
    P256: (b"Nist256p1 seed", P256_ORDER),
}


class InvalidPath(ValueError):
    """A derivation path or index that cannot be derived; ``str()`` says why."""


# --- paths -------------------------------------------------------------------------------


def parse_path(path: str) -> tuple[int, ...]:
    """``"m/44'/60'/0'/0/0"`` -> ``(44|H, 60|H, 0|H, 0, 0)``; hardened mark ``'`` or ``h``.

    A path parsed once is kept (``_PARSED``): an account's path is parsed on every
    signature with it, and the parse cost about a tenth of one."""
    if type(path) is str:
        parsed = _PARSED.get(path)
        if parsed is None:
            parsed = _parse_path(path)
            if len(_PARSED) >= _PARSED_KEPT:
                _PARSED.clear()
            _PARSED[path] = parsed
        return parsed
    return _parse_path(path)


_PARSED: dict[str, tuple[int, ...]] = {}  # valid paths only: an invalid one raises each time
_PARSED_KEPT = 4096


def _parse_path(path: str) -> tuple[int, ...]:
    if not isinstance(path, str):
        raise InvalidPath("path must be a string")
    head, *segments = path.split("/")
    if head != "m":
        raise InvalidPath('path must start with "m"')
    if len(segments) > MAX_DEPTH:
        raise InvalidPath(f"path is deeper than {MAX_DEPTH} steps")
    indices = []
    for segment in segments:
        hardened = segment.endswith(("'", "h"))
        digits = segment[:-1] if hardened else segment
        if not (digits.isascii() and digits.isdigit()):
            raise InvalidPath(f"path segment {segment!r} is not a decimal index")
        index = int(digits)
        if index >= HARDENED:
            raise InvalidPath(f"path segment {segment!r} is not below 2**31")
        indices.append(index | HARDENED if hardened else index)
    return tuple(indices)


def format_path(indices: tuple[int, ...]) -> str:
    """The canonical text of a path, hardened steps marked with ``'``."""
    parts = ["m"]
    for index in indices:
        _check_index(index)
        parts.append(f"{index - HARDENED}'" if index >= HARDENED else str(index))
    return "/".join(parts)


def _check_index(index: int) -> None:
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < 2**32:
        raise InvalidPath(f"child index {index!r} is not in 0..2**32-1")


# --- BIP39 -------------------------------------------------------------------------------

MNEMONIC_LENGTHS = (12, 15, 18, 21, 24)
_WORDLIST_SHA256 = "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"


@cache
def _wordlist() -> tuple[tuple[str, ...], dict[str, int]]:
    """The BIP39 English list from bip_utils' package data, checked against its known hash."""
    spec = importlib.util.find_spec("bip_utils")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("bip_utils is not installed; it supplies the BIP39 word list")
    root = Path(next(iter(spec.submodule_search_locations)))
    data = (root / "bip" / "bip39" / "wordlist" / "english.txt").read_bytes()
    if hashlib.sha256(data).hexdigest() != _WORDLIST_SHA256:
        raise RuntimeError("the BIP39 English word list does not match its published hash")
    words = tuple(data.decode("ascii").split())
    return words, {word: i for i, word in enumerate(words)}


def mnemonic_from_entropy(entropy: bytes) -> str:
    """The BIP39 English mnemonic of 16..32 bytes of entropy (a multiple of 4)."""
    if len(entropy) not in (16, 20, 24, 28, 32):
        raise ValueError("entropy must be 16, 20, 24, 28 or 32 bytes")
    checksum_bits = len(entropy) // 4
    checksum = hashlib.sha256(entropy).digest()[0] >> (8 - checksum_bits)
    value = (int.from_bytes(entropy, "big") << checksum_bits) | checksum
    count = (len(entropy) * 8 + checksum_bits) // 11
    words, _ = _wordlist()
    return " ".join(words[(value >> (11 * (count - 1 - i))) & 0x7FF] for i in range(count))


def is_valid_mnemonic(mnemonic: str) -> bool:
    """True for a BIP39 English mnemonic of 12..24 words with a correct checksum."""
    words = unicodedata.normalize("NFKD", mnemonic).split()
    if len(words) not in MNEMONIC_LENGTHS:
        return False
    _, index_of = _wordlist()
    value = 0
    for word in words:
        index = index_of.get(word)
        if index is None:
            return False
        value = (value << 11) | index
    checksum_bits = len(words) // 3
    entropy = (value >> checksum_bits).to_bytes(checksum_bits * 4, "big")
    expected = hashlib.sha256(entropy).digest()[0] >> (8 - checksum_bits)
    return value & ((1 << checksum_bits) - 1) == expected


@lru_cache(maxsize=64)  # PBKDF2 is 1-2 ms: fixtures re-import the same mnemonics
def mnemonic_to_seed(mnemonic: str, passphrase: str = "") -> bytes:
    """The 64-byte BIP39 seed: PBKDF2-HMAC-SHA512, 2048 rounds, over NFKD text."""
    password = unicodedata.normalize("NFKD", mnemonic).encode("utf-8")
    salt = unicodedata.normalize("NFKD", "mnemonic" + passphrase).encode("utf-8")
    return hashlib.pbkdf2_hmac("sha512", password, salt, 2048)


# --- nodes -------------------------------------------------------------------------------


def _hash160(data: bytes) -> bytes:
    sha = hashlib.sha256(data).digest()
    try:
        return hashlib.new("ripemd160", sha).digest()
    except ValueError:  # OpenSSL builds without RIPEMD-160
        from Crypto.Hash import RIPEMD160

        return RIPEMD160.new(sha).digest()


class Node:
    """One derived key with its chain code; ``repr`` shows neither secret.

    The public key (and so the fingerprint children record) is computed on first
    use: a hardened child needs only its parent's private key, so the nodes above
    the last hardened step of a path never pay for a point multiplication.
    """

    __slots__ = ("_parent", "_public_key", "chain_code", "curve", "depth", "index", "private_key")

    def __init__(
        self,
        curve: str,
        private_key: bytes,
        chain_code: bytes,
        depth: int = 0,
        index: int = 0,
        parent: Node | None = None,
    ) -> None:
        self.curve = curve
        self.private_key = private_key
        self.chain_code = chain_code
        self.depth = depth
        self.index = index
        self._parent = parent
        self._public_key: bytes | None = None

    @property
    def public_key(self) -> bytes:
        """33-byte compressed SEC1; the raw 32 bytes for ed25519."""
        if self._public_key is None:
            self._public_key = public_key(self.curve, self.private_key)
        return self._public_key

    @property
    def parent_fingerprint(self) -> bytes:
        return self._parent.fingerprint if self._parent is not None else bytes(4)

    @property
    def fingerprint(self) -> bytes:
        """First 4 bytes of HASH160 of the SLIP-10 serP of the public key."""
        ser = b"\x00" + self.public_key if self.curve == ED25519 else self.public_key
        return _hash160(ser)[:4]

    def _identity(self) -> tuple:
        return (self.curve, self.private_key, self.chain_code, self.depth, self.index)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Node):
            return NotImplemented
        return self._identity() == other._identity() and (
            self.parent_fingerprint == other.parent_fingerprint
        )

    def __hash__(self) -> int:
        return hash(self._identity())

    def __repr__(self) -> str:
        return (
            f"Node(curve={self.curve!r}, public_key={self.public_key.hex()!r}, "
            f"depth={self.depth}, index={self.index})"
        )


def public_key(curve: str, private_key: bytes) -> bytes:
    """The public key of a private key on ``curve``, in the form ``Node.public_key`` uses."""
    if curve == SECP256K1:
        return coincurve.PublicKey.from_secret(private_key).format(compressed=True)
    if curve == ED25519:
        return crypto_sign_seed_keypair(private_key)[0][:32]
    key = ec.derive_private_key(int.from_bytes(private_key, "big"), ec.SECP256R1())
    return key.public_key().public_bytes(Encoding.X962, PublicFormat.CompressedPoint)


def _curve(curve: str) -> tuple[bytes, int | None]:
    try:
        return _CURVES[curve]
    except (KeyError, TypeError):
        raise ValueError(f"unsupported curve {curve!r}") from None


def master_node(curve: str, seed: bytes) -> Node:
    """The master node of ``seed`` (16..64 bytes) on ``curve``."""
    hmac_key, order = _curve(curve)
    if not 16 <= len(seed) <= 64:
        raise ValueError("seed must be 16 to 64 bytes")
    digest = hmac.digest(hmac_key, seed, "sha512")
    # SLIP-10: while I_L is not a valid key, hash again with I as the seed.
    while order is not None and not 0 < int.from_bytes(digest[:32], "big") < order:
        digest = hmac.digest(hmac_key, digest, "sha512")
    private_key = digest[:32]
    return Node(curve, private_key, digest[32:])


def child_node(parent: Node, index: int) -> Node:
    """The child of ``parent`` at ``index`` (hardened when ``index >= HARDENED``)."""
    _check_index(index)
    _, order = _curve(parent.curve)
    if parent.depth >= MAX_DEPTH:
        raise InvalidPath(f"cannot derive deeper than {MAX_DEPTH} steps")
    suffix = index.to_bytes(4, "big")
    if index >= HARDENED:
        data = b"\x00" + parent.private_key + suffix
    elif order is None:
        raise InvalidPath("ed25519 derivation supports hardened steps only")
    else:
        data = parent.public_key + suffix
    digest = hmac.digest(parent.chain_code, data, "sha512")
    if order is None:
        private_key = digest[:32]
    else:
        parent_key = int.from_bytes(parent.private_key, "big")
        while True:
            tweak = int.from_bytes(digest[:32], "big")
            key = (tweak + parent_key) % order
            if tweak < order and key:
                break
            # SLIP-10: retry with 0x01 || I_R || ser32(i).
            digest = hmac.digest(parent.chain_code, b"\x01" + digest[32:] + suffix, "sha512")
        private_key = key.to_bytes(32, "big")
    return Node(parent.curve, private_key, digest[32:], parent.depth + 1, index, parent)


# --- extended keys -----------------------------------------------------------------------

_XPRV = bytes.fromhex("0488ade4")
_XPUB = bytes.fromhex("0488b21e")


def extended_key(node: Node, *, private: bool) -> str:
    """The mainnet ``xprv`` (``private=True``) or ``xpub`` of a secp256k1 node."""
    if node.curve != SECP256K1:
        raise ValueError("extended keys are defined for secp256k1 only")
    key = b"\x00" + node.private_key if private else node.public_key
    return base58check_encode(
        (_XPRV if private else _XPUB)
        + bytes([node.depth])
        + node.parent_fingerprint
        + node.index.to_bytes(4, "big")
        + node.chain_code
        + key
    )


# --- keychain ----------------------------------------------------------------------------


class Keychain:
    """One wallet seed, with every node it has derived cached by ``(curve, path prefix)``.

    The cache grows with each new prefix; it is never evicted. Concurrent derivations of
    the same path may both compute it, with equal results.
    """

    __slots__ = ("_nodes", "_seed")

    def __init__(self, seed: bytes) -> None:
        if not 16 <= len(seed) <= 64:
            raise ValueError("seed must be 16 to 64 bytes")
        self._seed = bytes(seed)
        self._nodes: dict[tuple[str, tuple[int, ...]], Node] = {}

    def __repr__(self) -> str:
        return f"<Keychain: {len(self._nodes)} cached nodes>"

    def derive(self, curve: str, path: tuple[int, ...]) -> Node:
        """The node at ``path`` on ``curve``, reusing the longest cached prefix."""
        path = tuple(path)
        if len(path) > MAX_DEPTH:
            raise InvalidPath(f"path is deeper than {MAX_DEPTH} steps")
        nodes = self._nodes
        node = nodes.get((curve, path))
        if node is not None:
            return node
        depth = len(path) - 1
        while depth >= 0 and (curve, path[:depth]) not in nodes:
            depth -= 1
        if depth < 0:
            node = master_node(curve, self._seed)
            nodes[(curve, ())] = node
            depth = 0
        else:
            node = nodes[(curve, path[:depth])]
        for i in range(depth, len(path)):
            node = child_node(node, path[i])
            nodes[(curve, path[: i + 1])] = node
        return node
