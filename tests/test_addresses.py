"""Address encoders: published vectors, and bip-utils as an independent reference on random keys."""

from __future__ import annotations

import hashlib
from functools import cache

import coincurve
import nacl.signing
import pytest
from bip_utils import (
    AptosAddrEncoder,
    AtomAddrEncoder,
    Bip32Slip10Ed25519,
    Bip32Slip10Secp256k1,
    Bip39SeedGenerator,
    EthAddrEncoder,
    P2PKHAddrEncoder,
    P2SHAddrEncoder,
    P2TRAddrEncoder,
    P2WPKHAddrEncoder,
    Secp256k1PublicKey,
    SegwitBech32Encoder,
    SolAddrEncoder,
    SuiAddrEncoder,
    TonAddrEncoder,
    TonAddrVersions,
    TrxAddrEncoder,
    XlmAddrEncoder,
    XlmAddrTypes,
    XrpAddrEncoder,
)
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from hypothesis import given, settings
from hypothesis import strategies as st
from pytoniq_core import Address

from emulator.crypto.addresses import (
    ADDRESS_FORMATS,
    DEFAULT_OPTIONS,
    ED25519,
    P256,
    SECP256K1,
    AddressOptions,
    InvalidPublicKey,
    UnsupportedAddressFormat,
    curves_for,
    encode_address,
    segwit_decode,
    segwit_encode,
    segwit_script_pubkey,
)
from emulator.crypto.addresses.chains import eip55
from tests.vectors import vector_id, vectors

F = "ADDRESS_FORMAT_"
NETWORKS = {  # name: (P2PKH version, P2SH version, hrp)
    "MAINNET": (b"\x00", b"\x05", "bc"),
    "TESTNET": (b"\x6f", b"\xc4", "tb"),
    "SIGNET": (b"\x6f", b"\xc4", "tb"),
    "REGTEST": (b"\x6f", b"\xc4", "bcrt"),
}
ABANDON = "abandon " * 11 + "about"
SECP256K1_ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
FAST = settings(max_examples=25, deadline=None)

secp256k1_keys = st.integers(1, SECP256K1_ORDER - 1).map(
    lambda k: coincurve.PrivateKey.from_int(k).public_key.format()
)
ed25519_keys = st.binary(min_size=32, max_size=32).map(
    lambda seed: bytes(nacl.signing.SigningKey(seed).verify_key)
)


def address(fmt: str, curve: str, key: bytes, **options) -> str:
    return encode_address(F + fmt, curve, key, AddressOptions(**options))


@cache
def seed(mnemonic: str, passphrase: str = "") -> bytes:
    return Bip39SeedGenerator(mnemonic).Generate(passphrase)


def derive(mnemonic: str, path: str, curve: str, passphrase: str = "") -> bytes:
    """The public key at ``path``, by bip-utils (an implementation independent of ours)."""
    if curve in ("secp256k1", SECP256K1):
        node = Bip32Slip10Secp256k1.FromSeed(seed(mnemonic, passphrase)).DerivePath(path)
        return node.PublicKey().RawCompressed().ToBytes()
    node = Bip32Slip10Ed25519.FromSeed(seed(mnemonic, passphrase)).DerivePath(path)
    return node.PublicKey().RawCompressed().ToBytes()[1:]


# --- the table ---

EXPECTED_CURVES = {
    "UNCOMPRESSED": frozenset({SECP256K1, P256}),
    "COMPRESSED": frozenset({SECP256K1, P256, ED25519}),
    **dict.fromkeys(["ETHEREUM", "COSMOS", "TRON", "SEI", "XRP"], frozenset({SECP256K1})),
    **dict.fromkeys(["DOGE_MAINNET", "DOGE_TESTNET"], frozenset({SECP256K1})),
    **dict.fromkeys(["SPARK_MAINNET", "SPARK_REGTEST"], frozenset({SECP256K1})),
    **{
        f"BITCOIN_{net}_{kind}": frozenset({SECP256K1})
        for net in NETWORKS
        for kind in ("P2PKH", "P2SH", "P2WPKH", "P2WSH", "P2TR")
    },
    **dict.fromkeys(["SOLANA", "SUI", "APTOS", "XLM"], frozenset({ED25519})),
    **dict.fromkeys(["TON_V3R2", "TON_V4R2", "TON_V5R1"], frozenset({ED25519})),
}


def test_the_table_lists_every_format_with_its_curves():
    assert {name: spec.curves for name, spec in ADDRESS_FORMATS.items()} == {
        F + name: curves for name, curves in EXPECTED_CURVES.items()
    }
    for name in ADDRESS_FORMATS:
        assert curves_for(name) == ADDRESS_FORMATS[name].curves


def test_every_format_that_does_not_fit_the_curve_is_refused():
    keys = {SECP256K1: bytes.fromhex("02" + "79be667e" * 8), P256: b"\x02" + bytes(32)}
    keys[ED25519] = bytes(32)
    refused = 0
    for name, spec in ADDRESS_FORMATS.items():
        for curve in {SECP256K1, ED25519, P256} - spec.curves:
            with pytest.raises(UnsupportedAddressFormat):
                encode_address(name, curve, keys[curve])
            refused += 1
    assert refused == 38 * 3 - sum(len(c) for c in EXPECTED_CURVES.values())


@pytest.mark.parametrize(
    ("fmt", "curve"),
    [("ETHEREUM", ED25519), ("SOLANA", SECP256K1), ("UNCOMPRESSED", ED25519), ("XRP", P256)],
)
def test_examples_of_refused_pairs(fmt, curve):
    with pytest.raises(UnsupportedAddressFormat):
        address(fmt, curve, bytes(33))


def test_unknown_formats_and_curves_are_refused():
    for bad in ("ADDRESS_FORMAT_SPARK_TESTNET", "ADDRESS_FORMAT_UNKNOWN", "ETHEREUM"):
        with pytest.raises(UnsupportedAddressFormat):
            curves_for(bad)
        with pytest.raises(UnsupportedAddressFormat):
            encode_address(bad, SECP256K1, bytes(33))
    with pytest.raises(UnsupportedAddressFormat):
        encode_address(F + "ETHEREUM", "CURVE_SECP256R1", bytes(33))


def test_a_spec_needs_the_curve_only_when_several_fit():
    key = derive(ABANDON, "m/44'/60'/0'/0/0", SECP256K1)
    spec = ADDRESS_FORMATS[F + "ETHEREUM"]
    assert spec.encode(key, DEFAULT_OPTIONS) == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
    assert ADDRESS_FORMATS[F + "COMPRESSED"].encode(key, curve=SECP256K1) == key.hex()
    with pytest.raises(UnsupportedAddressFormat):
        ADDRESS_FORMATS[F + "UNCOMPRESSED"].encode(key)


@pytest.mark.parametrize(
    ("curve", "key"),
    [
        (SECP256K1, b"\x02" + b"\xff" * 32),  # x >= p
        (SECP256K1, b"\x04" + bytes(32)),
        (SECP256K1, bytes.fromhex("02" + "79be667e" * 8)[:32]),
        (P256, b"\x03" + b"\xff" * 32),
        (P256, b"\x05" + bytes(32)),
        (ED25519, bytes(33)),
        (ED25519, bytes(31)),
    ],
)
def test_malformed_keys_are_refused(curve, key):
    for name, spec in ADDRESS_FORMATS.items():
        if curve in spec.curves:
            with pytest.raises(InvalidPublicKey):
                encode_address(name, curve, key)


# --- bech32 / bech32m (BIP173, BIP350) ---

NETWORK_HRPS = ("bc", "tb", "bcrt")


def own_hrp(address: str) -> str:
    return address.lower().rsplit("1", 1)[0]


@pytest.mark.parametrize(
    "vector", vectors("bip173_segwit_valid", "bip350_segwit_valid"), ids=vector_id
)
def test_valid_segwit_addresses_decode_to_their_script(vector):
    addr = vector["address"]
    version, program = segwit_decode(own_hrp(addr), addr)
    assert segwit_script_pubkey(version, program).hex() == vector["expected"]["scriptPubKey"]
    assert segwit_encode(own_hrp(addr), version, program) == addr.lower()


@pytest.mark.parametrize(
    "vector",
    vectors("bip173_segwit_invalid", "bip350_segwit_invalid", "bip173_superseded"),
    ids=vector_id,
)
def test_invalid_segwit_addresses_are_rejected(vector):
    addr = vector["address"]
    # Decoded against each network's expected hrp (never the hrp read from the address itself).
    for hrp in NETWORK_HRPS:
        with pytest.raises(ValueError):
            segwit_decode(hrp, addr)
    if "human-readable part" not in vector["name"]:
        with pytest.raises(ValueError):
            segwit_decode(own_hrp(addr), addr)


@FAST
@given(
    st.sampled_from((*NETWORK_HRPS, "cosmos")),
    st.integers(0, 16),
    st.binary(min_size=2, max_size=40),
)
def test_segwit_encoding_round_trips(hrp, version, program):
    if version == 0 and len(program) not in (20, 32):
        program = program.ljust(20, b"\0")[:20]
    addr = segwit_encode(hrp, version, program)
    assert segwit_decode(hrp, addr) == (version, program)
    assert segwit_decode(hrp, addr.upper()) == (version, program)


# --- EIP-55, TON ---


@pytest.mark.parametrize("vector", vectors("eip55"), ids=vector_id)
def test_eip55_vectors(vector):
    assert eip55(bytes.fromhex(vector["input_lower"][2:])) == vector["expected"]


TON_VECTORS = {"TON V3R2 bounceable": "TON_V3R2", "TON V4 non-bounceable": "TON_V4R2"}


@pytest.mark.parametrize("vector", vectors("ton"), ids=vector_id)
def test_ton_vectors(vector):
    assert vector["workchain"] == 0
    assert vector["subwallet_id"] == 698983191
    expected = vector["expected"]["address"]
    bounceable = expected.startswith("EQ")
    key = bytes.fromhex(vector["public_key_hex"])
    assert address(TON_VECTORS[vector["name"]], ED25519, key, ton_bounceable=bounceable) == expected


def test_ton_v5r1_vector():
    # trustwallet/wallet-core, rust tw_ton test "test_ton_v5r1_address_derive" (mainnet V5R1).
    secret = bytes.fromhex("3570e35f54cfb843f2cfaf2b8cae7ceeb7b32225d7dbbd86f611056d74d9073e")
    key = bytes(nacl.signing.SigningKey(secret).verify_key)
    assert address("TON_V5R1", ED25519, key) == "UQAU3o5-Sp1MYRpw3U7b_wmARxqI49LxiFhEoVCxpUKjTYXk"


# --- mnemonic vectors: key by bip-utils, address by us ---

ABANDON_CHAIN_FORMATS = {
    "abandon..about Bitcoin P2PKH": "BITCOIN_MAINNET_P2PKH",
    "abandon..about Bitcoin testnet P2PKH": "BITCOIN_TESTNET_P2PKH",
    "abandon..about Dogecoin": "DOGE_MAINNET",
    "abandon..about Cosmos": "COSMOS",
    "abandon..about XRP": "XRP",
    "abandon..about Solana (Phantom/Turnkey path)": "SOLANA",
    "abandon..about Ethereum": "ETHEREUM",
}
KIND_FORMATS = {
    "bip84_abandon": "BITCOIN_MAINNET_P2WPKH",
    "bip86_abandon": "BITCOIN_MAINNET_P2TR",
    "bip49_abandon": "BITCOIN_TESTNET_P2SH",  # BIP49's example is testnet P2SH-P2WPKH
    "sep0005": "XLM",
    "sui": "SUI",
    "aptos": "APTOS",
}
MNEMONIC_VECTORS = [
    v
    for v in vectors("abandon_chain", *KIND_FORMATS)
    if "address" in v["expected"]  # the Tron entry holds only a private key (below)
]


@pytest.mark.parametrize("vector", MNEMONIC_VECTORS, ids=vector_id)
def test_mnemonic_vectors(vector):
    fmt = ABANDON_CHAIN_FORMATS.get(vector["name"]) or KIND_FORMATS[vector["kind"]]
    curve = SECP256K1 if vector["curve"] == "secp256k1" else ED25519
    key = derive(vector["mnemonic"], vector["path"], curve, vector.get("passphrase", ""))
    if "public_key" in vector["expected"]:
        assert "0x" + key.hex() == vector["expected"]["public_key"]
    assert address(fmt, curve, key) == vector["expected"]["address"]


def test_tron_abandon_key():
    (vector,) = [v for v in vectors("abandon_chain") if "Tron" in v["name"]]
    node = Bip32Slip10Secp256k1.FromSeed(seed(vector["mnemonic"])).DerivePath(vector["path"])
    assert node.PrivateKey().Raw().ToHex() == vector["expected"]["private_key"]
    key = node.PublicKey().RawCompressed().ToBytes()
    assert address("TRON", SECP256K1, key) == TrxAddrEncoder.EncodeKey(key)


# Computed for abandon..about at the Turnkey SDK's default paths (reference notes §5): regression
# values from bip-utils, NOT published by Turnkey.
TURNKEY_DEFAULT_COMPUTED = [
    ("TRON", "m/44'/195'/0'", "TGrLpry8MNqMuMUTe2VXv5wYkRuFEsbKsE"),
    ("SEI", "m/44'/118'/0'/0'/0'", "sei16m0ql9u5y53kqla3uc3wfe87gwgqwdp3pswwyw"),
    ("XRP", "m/44'/144'/0'/0'/0'", "rBf4bFAbwf13E9A25GRkCYNaTj4G9z2WNL"),
    (
        "SUI",
        "m/44'/784'/0'/0'/0'",
        "0x5e93a736d04fbb25737aa40bee40171ef79f65fae833749e3c089fe7cc2161f1",
    ),
    (
        "APTOS",
        "m/44'/637'/0'/0'/0'",
        "0xeb663b681209e7087d681c5d3eed12aaa8e1915e7c87794542c3f96e94b3d3bf",
    ),
    ("XLM", "m/44'/148'/0'", "GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX"),
    ("TON_V3R2", "m/44'/607'/0'/0'/0'", "UQC4_unJ-jlbLt-3UO46cvKkyYI2-5LT9ZI3OpAvda2MpioL"),
    ("TON_V4R2", "m/44'/607'/0'/0'/0'", "UQDxAUFadQXDd3EXGa3TLF_EF66gMc9h3_aZ0j0zXNoIYUCc"),
    ("DOGE_TESTNET", "m/44'/3'/0'/0/0", "naxvmcKgLi92MJkVvNBGVPooeJKY4wHDxY"),
    ("BITCOIN_TESTNET_P2WPKH", "m/84'/1'/0'/0/0", "tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl"),
    ("BITCOIN_REGTEST_P2WPKH", "m/84'/1'/0'/0/0", "bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk"),
    (
        "BITCOIN_TESTNET_P2TR",
        "m/86'/1'/0'/0/0",
        "tb1p8wpt9v4frpf3tkn0srd97pksgsxc5hs52lafxwru9kgeephvs7rqlqt9zj",
    ),
]


@pytest.mark.parametrize(("fmt", "path", "expected"), TURNKEY_DEFAULT_COMPUTED)
def test_turnkey_default_paths_computed(fmt, path, expected):
    curve = next(iter(EXPECTED_CURVES[fmt]))
    assert address(fmt, curve, derive(ABANDON, path, curve)) == expected


# --- P2SH / P2WSH scripts and TON flags: the options ---

# Reference notes §3.1: candidates computed for abandon..about (P2SH at m/44'/0'/0'/0/0, P2WSH at
# m/48'/0'/0'/2'/0/0). Computed, not published: Turnkey's choice of script is unconfirmed.
P2SH_CANDIDATES = {
    "p2wpkh": "3HkzTaFbEMWeJPLyNCNhPyGfZsVLDwdD3G",
    "p2pk": "35BJa5auufbKPRxLwwowNwiV7LyT5WnCCk",
    "multisig": "3BwSPMasz7VvxdeBwNtL5jAZwNhtczJuXM",
    "p2pkh": "3Hggo5JYqytA5k5As5XuADi6TYGQmMZrND",
}
P2WSH_CANDIDATES = {
    "p2pk": "bc1q9ar96k2zh9j5xf8vewfzgr7tvtl0x089gaagvucq74er953jayrsw58h7a",
    "multisig": "bc1qfkr69c99c5s2qkfrukzyrlx5eqlml5mc5lmmatwh6jm8xde8u2wqs7jae5",
}


@pytest.mark.parametrize(("script", "expected"), P2SH_CANDIDATES.items())
def test_p2sh_script_option(script, expected):
    key = derive(ABANDON, "m/44'/0'/0'/0/0", SECP256K1)
    assert address("BITCOIN_MAINNET_P2SH", SECP256K1, key, p2sh_script=script) == expected


@pytest.mark.parametrize(("script", "expected"), P2WSH_CANDIDATES.items())
def test_p2wsh_script_option(script, expected):
    key = derive(ABANDON, "m/48'/0'/0'/2'/0/0", SECP256K1)
    assert address("BITCOIN_MAINNET_P2WSH", SECP256K1, key, p2wsh_script=script) == expected


def test_option_defaults():
    assert AddressOptions() == DEFAULT_OPTIONS
    assert (DEFAULT_OPTIONS.p2sh_script, DEFAULT_OPTIONS.p2wsh_script) == ("p2wpkh", "p2pk")
    assert not DEFAULT_OPTIONS.ton_bounceable
    assert not DEFAULT_OPTIONS.ton_test_only
    p2sh_key = derive(ABANDON, "m/44'/0'/0'/0/0", SECP256K1)
    p2wsh_key = derive(ABANDON, "m/48'/0'/0'/2'/0/0", SECP256K1)
    p2sh = encode_address(F + "BITCOIN_MAINNET_P2SH", SECP256K1, p2sh_key)
    p2wsh = encode_address(F + "BITCOIN_MAINNET_P2WSH", SECP256K1, p2wsh_key)
    assert (p2sh, p2wsh) == (P2SH_CANDIDATES["p2wpkh"], P2WSH_CANDIDATES["p2pk"])


@pytest.mark.parametrize("bad", [{"p2sh_script": "p2wsh"}, {"p2wsh_script": "p2wpkh"}])
def test_unknown_scripts_are_refused(bad):
    with pytest.raises(ValueError):
        AddressOptions(**bad)


@pytest.mark.parametrize(
    ("bounceable", "test_only", "prefix"),
    [(False, False, "UQ"), (True, False, "EQ"), (False, True, "0Q"), (True, True, "kQ")],
)
def test_ton_flags(bounceable, test_only, prefix):
    key = derive(ABANDON, "m/44'/607'/0'/0'/0'", ED25519)
    for fmt in ("TON_V3R2", "TON_V4R2", "TON_V5R1"):
        ours = address(fmt, ED25519, key, ton_bounceable=bounceable, ton_test_only=test_only)
        assert ours.startswith(prefix)
        assert len(ours) == 48
        # Same account, flags as pytoniq-core writes them.
        plain = address(fmt, ED25519, key)
        assert ours == Address(plain).to_str(is_bounceable=bounceable, is_test_only=test_only)


# --- random keys against bip-utils ---


@FAST
@given(secp256k1_keys)
def test_account_chains_match_bip_utils(key):
    assert address("ETHEREUM", SECP256K1, key) == EthAddrEncoder.EncodeKey(key)
    assert address("TRON", SECP256K1, key) == TrxAddrEncoder.EncodeKey(key)
    assert address("COSMOS", SECP256K1, key) == AtomAddrEncoder.EncodeKey(key, hrp="cosmos")
    assert address("SEI", SECP256K1, key) == AtomAddrEncoder.EncodeKey(key, hrp="sei")
    assert address("XRP", SECP256K1, key) == XrpAddrEncoder.EncodeKey(key)


@FAST
@given(secp256k1_keys)
def test_base58_bitcoin_and_doge_match_bip_utils(key):
    for net, (p2pkh_version, p2sh_version, _) in NETWORKS.items():
        p2pkh = P2PKHAddrEncoder.EncodeKey(key, net_ver=p2pkh_version)
        assert address(f"BITCOIN_{net}_P2PKH", SECP256K1, key) == p2pkh
        p2sh_p2wpkh = P2SHAddrEncoder.EncodeKey(key, net_ver=p2sh_version)
        assert address(f"BITCOIN_{net}_P2SH", SECP256K1, key) == p2sh_p2wpkh
    assert address("DOGE_MAINNET", SECP256K1, key) == P2PKHAddrEncoder.EncodeKey(
        key, net_ver=b"\x1e"
    )
    assert address("DOGE_TESTNET", SECP256K1, key) == P2PKHAddrEncoder.EncodeKey(
        key, net_ver=b"\x71"
    )


@FAST
@given(secp256k1_keys)
def test_segwit_bitcoin_matches_bip_utils(key):
    witness_scripts = {
        "p2pk": b"\x21" + key + b"\xac",
        "multisig": b"\x51\x21" + key + b"\x51\xae",
    }
    for net, (_, _, hrp) in NETWORKS.items():
        assert address(f"BITCOIN_{net}_P2WPKH", SECP256K1, key) == P2WPKHAddrEncoder.EncodeKey(
            key, hrp=hrp
        )
        assert address(f"BITCOIN_{net}_P2TR", SECP256K1, key) == P2TRAddrEncoder.EncodeKey(
            key, hrp=hrp
        )
        for script, witness_script in witness_scripts.items():
            expected = SegwitBech32Encoder.Encode(hrp, 0, hashlib.sha256(witness_script).digest())
            ours = address(f"BITCOIN_{net}_P2WSH", SECP256K1, key, p2wsh_script=script)
            assert ours == expected


@FAST
@given(secp256k1_keys)
def test_secp256k1_hex_forms(key):
    uncompressed = Secp256k1PublicKey.FromBytes(key).RawUncompressed().ToHex()
    assert address("UNCOMPRESSED", SECP256K1, key) == uncompressed
    assert address("COMPRESSED", SECP256K1, key) == key.hex()


@FAST
@given(st.integers(1, P256_ORDER - 1))
def test_p256_hex_forms(secret):
    public = ec.derive_private_key(secret, ec.SECP256R1()).public_key()
    compressed = public.public_bytes(Encoding.X962, PublicFormat.CompressedPoint)
    numbers = public.public_numbers()
    uncompressed = "04" + numbers.x.to_bytes(32, "big").hex() + numbers.y.to_bytes(32, "big").hex()
    assert address("UNCOMPRESSED", P256, compressed) == uncompressed
    assert address("COMPRESSED", P256, compressed) == compressed.hex()


@FAST
@given(ed25519_keys)
def test_ed25519_chains_match_bip_utils(key):
    assert address("SOLANA", ED25519, key) == SolAddrEncoder.EncodeKey(key)
    assert address("SUI", ED25519, key) == SuiAddrEncoder.EncodeKey(key)
    assert address("APTOS", ED25519, key) == AptosAddrEncoder.EncodeKey(key)
    assert address("XLM", ED25519, key) == XlmAddrEncoder.EncodeKey(
        key, addr_type=XlmAddrTypes.PUB_KEY
    )
    assert address("COMPRESSED", ED25519, key) == key.hex()


TON_VERSIONS = {
    "TON_V3R2": TonAddrVersions.V3R2,
    "TON_V4R2": TonAddrVersions.V4,
    "TON_V5R1": TonAddrVersions.V5R1,
}


@FAST
@given(ed25519_keys, st.booleans())
def test_ton_matches_bip_utils(key, bounceable):
    for fmt, version in TON_VERSIONS.items():
        expected = TonAddrEncoder.EncodeKey(key, version=version, is_bounceable=bounceable)
        assert address(fmt, ED25519, key, ton_bounceable=bounceable) == expected
