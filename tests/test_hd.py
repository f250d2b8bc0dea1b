"""BIP39, BIP32 and SLIP-10 derivation against public vectors and bip_utils."""

from __future__ import annotations

import json
import unicodedata

import pytest
from bip_utils import (
    Bip32Slip10Ed25519,
    Bip32Slip10Nist256p1,
    Bip32Slip10Secp256k1,
    Bip39Languages,
    Bip39MnemonicGenerator,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.crypto.hd import (
    ED25519,
    HARDENED,
    MNEMONIC_LENGTHS,
    P256,
    SECP256K1,
    InvalidPath,
    Keychain,
    Node,
    child_node,
    extended_key,
    format_path,
    is_valid_mnemonic,
    master_node,
    mnemonic_from_entropy,
    mnemonic_to_seed,
    parse_path,
)
from tests.vectors import FIXTURES, vector_id, vectors

H = HARDENED
ABANDON_ABOUT = " ".join(["abandon"] * 11 + ["about"])


def nist256p1_vectors() -> list[dict]:
    return json.loads((FIXTURES / "slip10-nist256p1.json").read_text())["vectors"]


def derive(curve: str, seed_hex: str, path: str) -> Node:
    node = master_node(curve, bytes.fromhex(seed_hex))
    for index in parse_path(path):
        node = child_node(node, index)
    return node


# --- public vectors ----------------------------------------------------------------------


@pytest.mark.parametrize("vector", vectors("bip32"), ids=vector_id)
def test_bip32_vectors(vector):
    node = derive(SECP256K1, vector["seed_hex"], vector["path"])
    assert extended_key(node, private=True) == vector["expected"]["xprv"]
    assert extended_key(node, private=False) == vector["expected"]["xpub"]


@pytest.mark.parametrize("vector", vectors("bip39"), ids=vector_id)
def test_bip39_vectors(vector):
    mnemonic = mnemonic_from_entropy(bytes.fromhex(vector["entropy_hex"]))
    assert mnemonic == vector["mnemonic"]
    assert is_valid_mnemonic(mnemonic)
    seed = mnemonic_to_seed(mnemonic, vector["passphrase"])
    assert seed.hex() == vector["expected"]["seed_hex"]
    assert extended_key(master_node(SECP256K1, seed), private=True) == vector["expected"]["xprv"]


SLIP10_CURVES = {
    "slip10_secp256k1": SECP256K1,
    "slip10_ed25519": ED25519,
    "slip10_nist256p1": P256,
}


@pytest.mark.parametrize(
    "vector",
    vectors("slip10_secp256k1", "slip10_ed25519") + nist256p1_vectors(),
    ids=vector_id,
)
def test_slip10_vectors(vector):
    curve = SLIP10_CURVES[vector["kind"]]
    node = derive(curve, vector["seed_hex"], vector["path"])
    serialized_public = b"\x00" + node.public_key if curve == ED25519 else node.public_key
    expected = vector["expected"]
    assert node.parent_fingerprint.hex() == expected["fingerprint"]
    assert node.chain_code.hex() == expected["chain_code"]
    assert node.private_key.hex() == expected["private"]
    assert serialized_public.hex() == expected["public"]
    assert node.depth == len(parse_path(vector["path"]))


def test_nist256p1_fixture_covers_both_retry_rules():
    names = {v["name"] for v in nist256p1_vectors()}
    assert "SLIP-0010 seed retry nist256p1 m" in names
    assert "SLIP-0010 derivation retry nist256p1 m/28578'/33941" in names
    assert all("/blob/" in v["source"] for v in nist256p1_vectors())


# --- paths -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "indices"),
    [
        ("m", ()),
        ("m/0", (0,)),
        ("m/0'", (H,)),
        ("m/0h", (H,)),
        ("m/44'/60'/0'/0/0", (44 | H, 60 | H, H, 0, 0)),
        ("m/44h/501h/0h/0h", (44 | H, 501 | H, H, H)),
        ("m/2147483647", (2**31 - 1,)),
        ("m/2147483647'", (2**32 - 1,)),
        ("m/007", (7,)),
        ("m" + "/1" * 255, (1,) * 255),
    ],
)
def test_parse_path_accepts(text, indices):
    assert parse_path(text) == indices


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", 'must start with "m"'),
        ("M/0", 'must start with "m"'),
        ("/0", 'must start with "m"'),
        ("44'/60'", 'must start with "m"'),
        ("m/", "not a decimal index"),
        ("m//0", "not a decimal index"),
        ("m/0/", "not a decimal index"),
        ("m/-1", "not a decimal index"),
        ("m/+1", "not a decimal index"),
        ("m/ 1", "not a decimal index"),
        ("m/1 ", "not a decimal index"),
        ("m/0x10", "not a decimal index"),
        ("m/1H", "not a decimal index"),
        ("m/1''", "not a decimal index"),
        ("m/1'h", "not a decimal index"),
        ("m/'", "not a decimal index"),
        ("m/\u0661", "not a decimal index"),  # Arabic-Indic digit one
        ("m/2147483648", "not below 2\\*\\*31"),
        ("m/2147483648'", "not below 2\\*\\*31"),
        ("m/99999999999999999999", "not below 2\\*\\*31"),
        ("m" + "/1" * 256, "deeper than 255"),
    ],
)
def test_parse_path_rejects(text, reason):
    with pytest.raises(InvalidPath, match=reason):
        parse_path(text)


def test_invalid_path_is_a_value_error():
    assert issubclass(InvalidPath, ValueError)


def test_format_path():
    assert format_path(()) == "m"
    assert format_path((44 | H, 60 | H, H, 0, 0)) == "m/44'/60'/0'/0/0"
    with pytest.raises(InvalidPath):
        format_path((2**32,))


@given(st.lists(st.integers(0, 2**32 - 1), max_size=8).map(tuple))
def test_format_then_parse_round_trips(indices):
    assert parse_path(format_path(indices)) == indices


# --- derivation rules --------------------------------------------------------------------


def test_ed25519_refuses_non_hardened_steps():
    master = master_node(ED25519, bytes(range(16)))
    with pytest.raises(InvalidPath, match="ed25519 derivation supports hardened steps only"):
        child_node(master, 0)
    with pytest.raises(InvalidPath, match="hardened steps only"):
        Keychain(bytes(range(16))).derive(ED25519, (44 | H, 0))


@pytest.mark.parametrize("index", [-1, 2**32, True, "0"])
def test_child_index_out_of_range(index):
    with pytest.raises(InvalidPath, match="child index"):
        child_node(master_node(SECP256K1, bytes(16)), index)


def test_unknown_curve_and_bad_seed_lengths():
    with pytest.raises(ValueError, match="unsupported curve"):
        master_node("CURVE_SECP256R1", bytes(16))
    for size in (15, 65):
        with pytest.raises(ValueError, match="seed"):
            master_node(SECP256K1, bytes(size))
        with pytest.raises(ValueError, match="seed"):
            Keychain(bytes(size))


@pytest.mark.parametrize("curve", [ED25519, P256])
def test_extended_keys_are_secp256k1_only(curve):
    with pytest.raises(ValueError, match="secp256k1"):
        extended_key(master_node(curve, bytes(16)), private=False)


@pytest.mark.parametrize("curve", [SECP256K1, P256, ED25519])
def test_node_shape(curve):
    node = child_node(master_node(curve, bytes(range(32))), 7 | H)
    assert len(node.private_key) == 32
    assert len(node.chain_code) == 32
    assert len(node.public_key) == (32 if curve == ED25519 else 33)
    assert (node.depth, node.index, node.curve) == (1, 7 | H, curve)
    assert len(node.fingerprint) == 4


# --- keychain ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("curve", "path"),
    [
        (SECP256K1, "m/44'/60'/0'/0/0"),
        (SECP256K1, "m/0/1/2"),
        (P256, "m/44'/1'/0'/0/5"),
        (ED25519, "m/44'/501'/0'/0'"),
        (ED25519, "m"),
    ],
)
def test_keychain_matches_step_by_step(curve, path):
    seed = bytes(range(64))
    chain = Keychain(seed)
    node = chain.derive(curve, parse_path(path))
    assert node == derive(curve, seed.hex(), path)
    assert chain.derive(curve, parse_path(path)) == node


def test_keychain_reuses_prefixes():
    seed = bytes(range(64))
    chain = Keychain(seed)
    nodes = [chain.derive(SECP256K1, (44 | H, 60 | H, i | H, 0, 0)) for i in range(5)]
    for i, node in enumerate(nodes):
        assert node == derive(SECP256K1, seed.hex(), f"m/44'/60'/{i}'/0/0")
    # Prefixes come from the cache: the same objects, not recomputations.
    account = chain.derive(SECP256K1, (44 | H, 60 | H, 3 | H))
    assert chain.derive(SECP256K1, (44 | H, 60 | H, 3 | H)) is account
    assert child_node(child_node(account, 0), 0) == nodes[3]
    # Curves do not share nodes.
    assert chain.derive(P256, ()) != chain.derive(SECP256K1, ())


# --- mnemonics ---------------------------------------------------------------------------


@pytest.mark.parametrize("words", MNEMONIC_LENGTHS)
def test_every_mnemonic_length_round_trips(words):
    entropy = bytes(range(1, 1 + words * 4 // 3))
    mnemonic = mnemonic_from_entropy(entropy)
    assert len(mnemonic.split(" ")) == words
    assert is_valid_mnemonic(mnemonic)
    assert mnemonic == str(Bip39MnemonicGenerator(Bip39Languages.ENGLISH).FromEntropy(entropy))


@pytest.mark.parametrize("size", [0, 12, 15, 17, 33, 36])
def test_mnemonic_entropy_sizes(size):
    with pytest.raises(ValueError, match="entropy"):
        mnemonic_from_entropy(bytes(size))


@pytest.mark.parametrize(
    "mnemonic",
    [
        " ".join(["abandon"] * 12),  # bad checksum
        " ".join(["abandon"] * 11 + ["zoo"]),  # bad checksum
        " ".join(["abandon"] * 11 + ["abount"]),  # unknown word
        " ".join(["abandon"] * 11 + ["About"]),  # words are lower case
        " ".join(["abandon"] * 8 + ["about"]),  # 9 words
        " ".join(["abandon"] * 24 + ["about"]),  # 25 words
        " ".join(["abandon"] * 23 + ["about"]),  # 24 words, bad checksum
        "",
    ],
)
def test_invalid_mnemonics_are_rejected(mnemonic):
    assert not is_valid_mnemonic(mnemonic)


def test_valid_mnemonic_examples():
    assert is_valid_mnemonic(ABANDON_ABOUT)
    assert is_valid_mnemonic(" ".join(["abandon"] * 23 + ["art"]))
    assert is_valid_mnemonic(" ".join(["zoo"] * 11 + ["wrong"]))


def test_mnemonic_to_seed_normalizes_nfkd():
    passphrase = "caf\u00e9"
    decomposed = unicodedata.normalize("NFKD", passphrase)
    assert passphrase != decomposed
    assert mnemonic_to_seed(ABANDON_ABOUT, passphrase) == mnemonic_to_seed(
        ABANDON_ABOUT, decomposed
    )
    assert mnemonic_to_seed(ABANDON_ABOUT) != mnemonic_to_seed(ABANDON_ABOUT, "TREZOR")
    assert len(mnemonic_to_seed(ABANDON_ABOUT)) == 64


@settings(max_examples=50, deadline=None)
@given(st.sampled_from([16, 20, 24, 28, 32]).flatmap(lambda n: st.binary(min_size=n, max_size=n)))
def test_mnemonics_match_bip_utils(entropy):
    mnemonic = mnemonic_from_entropy(entropy)
    assert mnemonic == str(Bip39MnemonicGenerator(Bip39Languages.ENGLISH).FromEntropy(entropy))
    assert is_valid_mnemonic(mnemonic)


# --- against bip_utils -------------------------------------------------------------------

BIP_UTILS = {
    SECP256K1: Bip32Slip10Secp256k1,
    ED25519: Bip32Slip10Ed25519,
    P256: Bip32Slip10Nist256p1,
}
ANY_INDEX = st.integers(0, 2**32 - 1)
HARDENED_INDEX = st.integers(H, 2**32 - 1)


@st.composite
def curves_and_paths(draw):
    curve = draw(st.sampled_from([SECP256K1, ED25519, P256]))
    index = HARDENED_INDEX if curve == ED25519 else ANY_INDEX
    return curve, tuple(draw(st.lists(index, max_size=5)))


@settings(max_examples=50, deadline=None)
@given(st.binary(min_size=16, max_size=64), curves_and_paths())
def test_derivation_matches_bip_utils(seed, curve_and_path):
    curve, path = curve_and_path
    ours = Keychain(seed).derive(curve, path)
    theirs = BIP_UTILS[curve].FromSeed(seed)
    for index in path:
        theirs = theirs.ChildKey(index)
    public = theirs.PublicKey().RawCompressed().ToBytes()
    assert ours.public_key == (public[1:] if curve == ED25519 else public)
    assert ours.private_key == theirs.PrivateKey().Raw().ToBytes()
    assert ours.chain_code == theirs.ChainCode().ToBytes()
    assert ours.parent_fingerprint == theirs.ParentFingerPrint().ToBytes()
    assert ours.index == theirs.Index().ToInt()
    assert ours.depth == theirs.Depth().ToInt()


# --- secrets stay out of repr ------------------------------------------------------------


@pytest.mark.parametrize("curve", [SECP256K1, P256, ED25519])
def test_repr_hides_secrets(curve):
    seed = bytes(range(100, 164))
    chain = Keychain(seed)
    node = chain.derive(curve, (44 | H, 1 | H))
    for text in (repr(node), str(node), repr(chain), str(chain)):
        for secret in (node.private_key, node.chain_code, seed):
            assert secret.hex() not in text
            assert repr(secret) not in text
