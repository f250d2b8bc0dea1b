"""Published HD-wallet vectors, run through the engine rather than the crypto helpers.

Each mnemonic vector of ``fixtures/crypto-vectors.json`` goes in twice: once with the
test-only seam ``emu.backdoor.import_wallet`` (accounts given at import), once as a bare
import followed by the public ``create_wallet_accounts``. Both must answer the published
address, ``get_wallet_account`` must find it, and the secrets the vectors publish (Stellar
``S…`` seeds, Sui flagged keys, Aptos keys, a Tron key) must be the ones behind it.

The second half pins the addresses of "abandon … about" at the SDKs' default paths and the
unconfirmed address conventions (``AddressOptions``). Those values are COMPUTED (with
bip-utils and by hand), NOT published by Turnkey: they are regression fixtures.
"""

from __future__ import annotations

import base64
import binascii
import hashlib

import pytest
from bip_utils import (
    Base58Encoder,
    Bip39SeedGenerator,
    Bip44,
    Bip44Changes,
    Bip44Coins,
    Hash160,
    SegwitBech32Encoder,
)

from emulator import Emulator, Settings
from emulator.accounts import account_spec
from emulator.crypto.addresses import AddressOptions

from .vectors import vector_id, vectors

ABANDON = (
    "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
)
MNEMONIC_KINDS = (
    "abandon_chain",
    "bip84_abandon",
    "bip86_abandon",
    "bip49_abandon",
    "sep0005",
    "sui",
    "aptos",
)
CURVES = {"secp256k1": "CURVE_SECP256K1", "ed25519": "CURVE_ED25519"}

# Vectors whose kind fixes the address format, with the prefix their address must have.
FORMAT_BY_KIND = {
    "bip84_abandon": ("ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH", "bc1q"),
    "bip86_abandon": ("ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR", "bc1p"),
    # BIP49's example is testnet P2SH-P2WPKH: the emulator's default P2SH script.
    "bip49_abandon": ("ADDRESS_FORMAT_BITCOIN_TESTNET_P2SH", "2M"),
    "sep0005": ("ADDRESS_FORMAT_XLM", "G"),
    "sui": ("ADDRESS_FORMAT_SUI", "0x"),
    "aptos": ("ADDRESS_FORMAT_APTOS", "0x"),
}
# Ledger's abandon-seed list (and two widely cited ones), one by one.
FORMAT_BY_NAME = {
    "abandon..about Bitcoin P2PKH": ("ADDRESS_FORMAT_BITCOIN_MAINNET_P2PKH", "1"),
    "abandon..about Bitcoin testnet P2PKH": ("ADDRESS_FORMAT_BITCOIN_TESTNET_P2PKH", "m"),
    "abandon..about Dogecoin": ("ADDRESS_FORMAT_DOGE_MAINNET", "D"),
    "abandon..about Cosmos": ("ADDRESS_FORMAT_COSMOS", "cosmos1"),
    "abandon..about XRP": ("ADDRESS_FORMAT_XRP", "r"),
    "abandon..about Solana (Phantom/Turnkey path)": ("ADDRESS_FORMAT_SOLANA", ""),
    "abandon..about Ethereum": ("ADDRESS_FORMAT_ETHEREUM", "0x"),
    "abandon..about Tron private key": ("ADDRESS_FORMAT_TRON", "T"),
}

MNEMONIC_VECTORS = vectors(*MNEMONIC_KINDS)


def address_format(vector: dict) -> str:
    """The address format a vector's address is in; a vector not mapped here fails."""
    if vector["kind"] == "abandon_chain":
        fmt, prefix = FORMAT_BY_NAME[vector["name"]]
    else:
        fmt, prefix = FORMAT_BY_KIND[vector["kind"]]
    published = vector["expected"].get("address")
    assert published is None or published.startswith(prefix), (vector["name"], prefix)
    return fmt


def spec_of(vector: dict) -> dict:
    return {
        "curve": CURVES[vector["curve"]],
        "pathFormat": "PATH_FORMAT_BIP32",
        "path": vector["path"],
        "addressFormat": address_format(vector),
    }


@pytest.fixture
def emu() -> Emulator:
    emulator = Emulator()
    emulator.create_organization("vectors")
    return emulator


# --- independent encoders -------------------------------------------------------------


def crc16_xmodem(data: bytes) -> int:
    return binascii.crc_hqx(data, 0)


def strkey(version: int, payload: bytes) -> str:
    """Stellar StrKey: base32(version ‖ payload ‖ CRC16-XModem little-endian)."""
    body = bytes([version]) + payload
    return base64.b32encode(body + crc16_xmodem(body).to_bytes(2, "little")).decode()


def strkey_decode(text: str, version: int) -> bytes:
    raw = base64.b32decode(text)
    body, checksum = raw[:-2], raw[-2:]
    assert body[0] == version
    assert crc16_xmodem(body).to_bytes(2, "little") == checksum
    return body[1:]


STRKEY_ACCOUNT = 6 << 3  # "G…"
STRKEY_SEED = 18 << 3  # "S…"


# --- the published vectors ------------------------------------------------------------


def test_every_mnemonic_vector_has_a_format():
    for vector in MNEMONIC_VECTORS:
        assert address_format(vector).startswith("ADDRESS_FORMAT_")
    assert set(FORMAT_BY_NAME) == {v["name"] for v in vectors("abandon_chain")}


@pytest.mark.parametrize("vector", MNEMONIC_VECTORS, ids=vector_id)
def test_vector_through_the_engine(emu, vector):
    if vector.get("passphrase", ""):
        pytest.skip(
            f"BIP39 passphrase {vector['passphrase']!r}: Turnkey wallets have no passphrase, "
            "so this seed cannot be imported"
        )
    spec = spec_of(vector)
    expected = vector["expected"]

    imported = emu.backdoor.import_wallet(vector["mnemonic"], name="seam", accounts=[spec])
    (address,) = imported["addresses"]
    if "address" in expected:
        assert address == expected["address"]

    # The same mnemonic again, its account made through the public API.
    bare = emu.backdoor.import_wallet(vector["mnemonic"], name="api")
    made = emu.create_wallet_accounts(wallet_id=bare["walletId"], accounts=[spec])
    assert made["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert made["addresses"] == [address]
    account = emu.get_wallet_account(wallet_id=bare["walletId"], address=address)["account"]
    assert account["walletId"] == bare["walletId"]
    assert account["address"] == address
    assert (account["curve"], account["path"], account["addressFormat"]) == (
        spec["curve"],
        spec["path"],
        spec["addressFormat"],
    )
    first = emu.get_wallet_account(wallet_id=imported["walletId"], address=address)["account"]
    assert first["publicKey"] == account["publicKey"]

    secret = bytes.fromhex(emu.backdoor.private_key(address))
    public_key = bytes.fromhex(account["publicKey"])
    if vector["kind"] == "sep0005":
        assert strkey_decode(address, STRKEY_ACCOUNT) == public_key
        assert strkey(STRKEY_SEED, secret) == expected["secret"]
    if "flagged_privkey_b64" in expected:  # Sui: base64(flag 0x00 ‖ seed)
        assert base64.b64encode(b"\x00" + secret).decode() == expected["flagged_privkey_b64"]
        assert "0x" + hashlib.blake2b(b"\x00" + public_key, digest_size=32).hexdigest() == address
    if "public_key" in expected:  # Aptos
        assert "0x" + account["publicKey"] == expected["public_key"]
        assert "0x" + hashlib.sha3_256(public_key + b"\x00").hexdigest() == address
    if "private_key" in expected:  # Aptos, Tron
        assert secret.hex() == expected["private_key"].removeprefix("0x")


@pytest.mark.parametrize("vector", vectors("ton"), ids=vector_id)
def test_ton_vector_through_the_engine(vector):
    assert "public_key_hex" in vector and "mnemonic" not in vector
    pytest.skip(
        "publishes a public key only: the engine derives addresses from keys it holds "
        "(the default-path TON fixtures below cover TON through the engine)"
    )


# --- computed regression fixtures (NOT published by Turnkey) ----------------------------

# "abandon … about" at emulator.accounts.account_spec(fmt), the SDKs' default paths.
# Computed with bip-utils and hand-written encoders; no Turnkey source publishes them.
DEFAULT_PATH_ADDRESSES = {
    "ADDRESS_FORMAT_ETHEREUM": "0x9858EfFD232B4033E47d90003D41EC34EcaEda94",
    "ADDRESS_FORMAT_SOLANA": "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk",
    "ADDRESS_FORMAT_TRON": "TGrLpry8MNqMuMUTe2VXv5wYkRuFEsbKsE",
    "ADDRESS_FORMAT_SEI": "sei16m0ql9u5y53kqla3uc3wfe87gwgqwdp3pswwyw",
    "ADDRESS_FORMAT_XRP": "rBf4bFAbwf13E9A25GRkCYNaTj4G9z2WNL",
    "ADDRESS_FORMAT_SUI": "0x5e93a736d04fbb25737aa40bee40171ef79f65fae833749e3c089fe7cc2161f1",
    "ADDRESS_FORMAT_APTOS": "0xeb663b681209e7087d681c5d3eed12aaa8e1915e7c87794542c3f96e94b3d3bf",
    "ADDRESS_FORMAT_XLM": "GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX",
    "ADDRESS_FORMAT_TON_V3R2": "UQC4_unJ-jlbLt-3UO46cvKkyYI2-5LT9ZI3OpAvda2MpioL",
    "ADDRESS_FORMAT_TON_V4R2": "UQDxAUFadQXDd3EXGa3TLF_EF66gMc9h3_aZ0j0zXNoIYUCc",
    "ADDRESS_FORMAT_DOGE_TESTNET": "naxvmcKgLi92MJkVvNBGVPooeJKY4wHDxY",
    "ADDRESS_FORMAT_BITCOIN_TESTNET_P2WPKH": "tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl",
    "ADDRESS_FORMAT_BITCOIN_TESTNET_P2TR": (
        "tb1p8wpt9v4frpf3tkn0srd97pksgsxc5hs52lafxwru9kgeephvs7rqlqt9zj"
    ),
    "ADDRESS_FORMAT_BITCOIN_REGTEST_P2WPKH": "bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk",
}

# The unconfirmed conventions (AddressOptions), also computed: mainnet P2SH at the SDK default
# path m/44'/0'/0'/0/0 and P2WSH at m/48'/0'/0'/2'/0/0, by redeem / witness script.
P2SH_ADDRESSES = {
    "p2wpkh": "3HkzTaFbEMWeJPLyNCNhPyGfZsVLDwdD3G",
    "p2pk": "35BJa5auufbKPRxLwwowNwiV7LyT5WnCCk",
    "multisig": "3BwSPMasz7VvxdeBwNtL5jAZwNhtczJuXM",
}
P2WSH_ADDRESSES = {
    "p2pk": "bc1q9ar96k2zh9j5xf8vewfzgr7tvtl0x089gaagvucq74er953jayrsw58h7a",
    "multisig": "bc1qfkr69c99c5s2qkfrukzyrlx5eqlml5mc5lmmatwh6jm8xde8u2wqs7jae5",
}


def import_abandon(emu: Emulator, fmt: str) -> dict:
    """The default-path account of ``fmt`` in "abandon … about", through both ways in."""
    spec = account_spec(fmt)
    (address,) = emu.backdoor.import_wallet(ABANDON, name=f"seam {fmt}", accounts=[spec])[
        "addresses"
    ]
    bare = emu.backdoor.import_wallet(ABANDON, name=f"api {fmt}")["walletId"]
    assert emu.create_wallet_accounts(wallet_id=bare, accounts=[spec])["addresses"] == [address]
    return emu.get_wallet_account(wallet_id=bare, address=address)["account"]


@pytest.mark.parametrize("fmt", sorted(DEFAULT_PATH_ADDRESSES))
def test_abandon_at_the_default_path(emu, fmt):
    account = import_abandon(emu, fmt)
    assert account["address"] == DEFAULT_PATH_ADDRESSES[fmt]
    assert account["path"] == account_spec(fmt)["path"]


def test_abandon_default_paths_agree_with_bip_utils():
    """Cross-check two fixtures with bip-utils' own BIP44 coins (same seed, same paths)."""
    seed = Bip39SeedGenerator(ABANDON).Generate()
    ethereum = Bip44.FromSeed(seed, Bip44Coins.ETHEREUM).Purpose().Coin().Account(0)
    address = ethereum.Change(Bip44Changes.CHAIN_EXT).AddressIndex(0).PublicKey().ToAddress()
    assert address == DEFAULT_PATH_ADDRESSES["ADDRESS_FORMAT_ETHEREUM"]
    solana = Bip44.FromSeed(seed, Bip44Coins.SOLANA).Purpose().Coin().Account(0)
    assert (
        solana.Change(Bip44Changes.CHAIN_EXT).PublicKey().ToAddress()
        == (DEFAULT_PATH_ADDRESSES["ADDRESS_FORMAT_SOLANA"])
    )


def ton_raw(address: str) -> tuple[int, bytes]:
    """A user-friendly TON address's flag byte and workchain ‖ hash, checksum checked."""
    raw = base64.urlsafe_b64decode(address)
    assert len(raw) == 36
    assert crc16_xmodem(raw[:34]).to_bytes(2, "big") == raw[34:]
    return raw[0], raw[1:34]


@pytest.mark.parametrize("fmt", ["ADDRESS_FORMAT_TON_V3R2", "ADDRESS_FORMAT_TON_V4R2"])
def test_ton_bounceable_setting(fmt):
    bounceable = Emulator(settings=Settings(address_options=AddressOptions(ton_bounceable=True)))
    bounceable.create_organization("ton")
    address = import_abandon(bounceable, fmt)["address"]
    assert address.startswith("EQ")
    flag, body = ton_raw(address)
    default_flag, default_body = ton_raw(DEFAULT_PATH_ADDRESSES[fmt])
    assert (flag, default_flag) == (0x11, 0x51)  # bounceable / non-bounceable, mainnet
    assert body == default_body  # the same contract, only the flag differs


def p2sh(redeem_script: bytes) -> str:
    return Base58Encoder.CheckEncode(b"\x05" + Hash160.QuickDigest(redeem_script))


def p2wsh(witness_script: bytes) -> str:
    return SegwitBech32Encoder.Encode("bc", 0, hashlib.sha256(witness_script).digest())


def scripts(public_key: bytes) -> dict[str, bytes]:
    push = bytes([len(public_key)]) + public_key
    return {
        "p2wpkh": b"\x00\x14" + Hash160.QuickDigest(public_key),
        "p2pk": push + b"\xac",  # <pk> OP_CHECKSIG
        "multisig": b"\x51" + push + b"\x51\xae",  # OP_1 <pk> OP_1 OP_CHECKMULTISIG
    }


@pytest.mark.parametrize("script", sorted(P2SH_ADDRESSES))
def test_p2sh_script_setting(script):
    emu = Emulator(settings=Settings(address_options=AddressOptions(p2sh_script=script)))
    emu.create_organization("p2sh")
    account = import_abandon(emu, "ADDRESS_FORMAT_BITCOIN_MAINNET_P2SH")
    assert account["path"] == "m/44'/0'/0'/0/0"
    assert account["address"] == P2SH_ADDRESSES[script]
    assert p2sh(scripts(bytes.fromhex(account["publicKey"]))[script]) == P2SH_ADDRESSES[script]


def test_p2sh_default_is_p2sh_p2wpkh(emu):
    account = import_abandon(emu, "ADDRESS_FORMAT_BITCOIN_MAINNET_P2SH")
    assert account["address"] == P2SH_ADDRESSES["p2wpkh"]


@pytest.mark.parametrize("script", sorted(P2WSH_ADDRESSES))
def test_p2wsh_script_setting(script):
    emu = Emulator(settings=Settings(address_options=AddressOptions(p2wsh_script=script)))
    emu.create_organization("p2wsh")
    account = import_abandon(emu, "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WSH")
    assert account["path"] == "m/48'/0'/0'/2'/0/0"
    assert account["address"] == P2WSH_ADDRESSES[script]
    assert p2wsh(scripts(bytes.fromhex(account["publicKey"]))[script]) == P2WSH_ADDRESSES[script]


def test_p2wsh_default_is_p2pk(emu):
    account = import_abandon(emu, "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WSH")
    assert account["address"] == P2WSH_ADDRESSES["p2pk"]
