"""Imports: init_import_wallet, import_wallet, init_import_private_key, import_private_key.

Round trips with the client's side (``emulator.testing.client_crypto``), checked
against published vectors and libraries other than the emulator's own; the
single use of a target; policies; a pending target in the state document. The
shared helpers are in ``test_export_import.py``, error paths in
``test_export_import_errors.py``.
"""

from __future__ import annotations

import bip_utils
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from eth_account import Account
from solders.keypair import Keypair

from emulator.accounts import account_spec
from emulator.testing.client_crypto import TargetKey

from .helpers import add_user
from .test_export_import import (
    ABANDON,
    COMPLETED,
    ED25519,
    ETH,
    ETH_DOC_ADDRESS,
    ETH_DOC_KEY,
    P256,
    SECP256K1,
    SOL,
    eth_address,
    key_bundle,
    leaks,
    opened,
    public_key_of,
    sealed_for_import,
    signed_data,
    wallet_bundle,
)
from .vectors import vectors


@pytest.fixture
def emu(turnkey_emulator, turnkey_org):
    return turnkey_emulator


@pytest.fixture
def target() -> TargetKey:
    return TargetKey.generate(b"\x08" * 32)


# ----- init_import_* --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("operation", "intent_key", "result_key", "activity_type"),
    [
        (
            "init_import_wallet",
            "initImportWalletIntent",
            "initImportWalletResult",
            "ACTIVITY_TYPE_INIT_IMPORT_WALLET",
        ),
        (
            "init_import_private_key",
            "initImportPrivateKeyIntent",
            "initImportPrivateKeyResult",
            "ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY",
        ),
    ],
)
def test_init_import_answers_a_signed_target_bundle(
    emu, turnkey_org, operation, intent_key, result_key, activity_type
):
    out = emu.call(operation, user_id=turnkey_org.user_id)
    assert set(out) == {"activity", "importBundle"}
    activity = out["activity"]
    assert (activity["type"], activity["status"]) == (activity_type, COMPLETED)
    assert activity["intent"] == {intent_key: {"userId": turnkey_org.user_id}}
    assert activity["result"][result_key] == {"importBundle": out["importBundle"]}
    inner = signed_data(emu, out["importBundle"])
    assert list(inner) == ["targetPublic", "organizationId", "userId"]
    assert (inner["organizationId"], inner["userId"]) == (
        turnkey_org.organization_id,
        turnkey_org.user_id,
    )
    assert len(inner["targetPublic"]) == 130 and inner["targetPublic"].startswith("04")
    ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), bytes.fromhex(inner["targetPublic"])
    )
    # Each init is a fresh key.
    again = signed_data(emu, emu.call(operation, user_id=turnkey_org.user_id)["importBundle"])
    assert again["targetPublic"] != inner["targetPublic"]


# ----- import_wallet ------------------------------------------------------------------

# Published addresses of the all-zero-entropy mnemonic and the formats that make them.
FORMAT_OF = {
    "abandon..about Bitcoin P2PKH": "ADDRESS_FORMAT_BITCOIN_MAINNET_P2PKH",
    "abandon..about Bitcoin testnet P2PKH": "ADDRESS_FORMAT_BITCOIN_TESTNET_P2PKH",
    "abandon..about Dogecoin": "ADDRESS_FORMAT_DOGE_MAINNET",
    "abandon..about Cosmos": "ADDRESS_FORMAT_COSMOS",
    "abandon..about XRP": "ADDRESS_FORMAT_XRP",
    "abandon..about Solana (Phantom/Turnkey path)": SOL,
    "abandon..about Ethereum": ETH,
    "BIP84 example m/84'/0'/0'/0/0": "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH",
    "BIP84 example m/84'/0'/0'/0/1": "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH",
    "BIP86 example m/86'/0'/0'/0/0": "ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR",
    "BIP86 example m/86'/0'/0'/0/1": "ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR",
}


def test_import_wallet_of_a_published_mnemonic_derives_the_published_addresses(emu, turnkey_org):
    published = [
        v
        for v in vectors("abandon_chain", "bip84_abandon", "bip86_abandon")
        if v["name"] in FORMAT_OF
    ]
    assert len(published) == len(FORMAT_OF)
    assert {v["mnemonic"] for v in published} == {ABANDON}
    accounts = [
        {
            "curve": f"CURVE_{v['curve'].upper()}",
            "pathFormat": "PATH_FORMAT_BIP32",
            "path": v["path"],
            "addressFormat": FORMAT_OF[v["name"]],
        }
        for v in published
    ]
    encrypted = wallet_bundle(emu, turnkey_org)
    out = emu.import_wallet(
        user_id=turnkey_org.user_id,
        wallet_name="abandon",
        encrypted_bundle=encrypted,
        accounts=accounts,
    )
    assert set(out) == {"activity", "walletId", "addresses"}
    assert out["addresses"] == [v["expected"]["address"] for v in published]
    activity = out["activity"]
    assert (activity["type"], activity["status"]) == ("ACTIVITY_TYPE_IMPORT_WALLET", COMPLETED)
    assert activity["intent"] == {
        "importWalletIntent": {
            "userId": turnkey_org.user_id,
            "walletName": "abandon",
            "encryptedBundle": encrypted,
            "accounts": accounts,
        }
    }
    assert activity["result"]["importWalletResult"] == {
        "walletId": out["walletId"],
        "addresses": out["addresses"],
    }
    wallet = emu.get_wallet(wallet_id=out["walletId"])["wallet"]
    assert (wallet["walletName"], wallet["exported"], wallet["imported"]) == (
        "abandon",
        False,
        True,
    )
    assert emu.backdoor.mnemonic(out["walletId"]) == ABANDON
    assert leaks(emu, ABANDON) == []


def test_an_imported_wallet_is_an_ordinary_wallet(emu, turnkey_org):
    """It signs, grows accounts like a created wallet, and must be exported before deletion."""
    words = "  ".join(ABANDON.split()) + "\n"  # spacing is not part of the phrase
    out = emu.import_wallet(
        user_id=turnkey_org.user_id,
        wallet_name="w",
        encrypted_bundle=wallet_bundle(emu, turnkey_org, words),
        accounts=[],
    )
    assert out["addresses"] == []
    assert emu.backdoor.mnemonic(out["walletId"]) == ABANDON
    (eth,) = emu.create_wallet_accounts(wallet_id=out["walletId"], accounts=[account_spec(ETH)])[
        "addresses"
    ]
    assert eth == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
    signed = emu.sign_raw_payload(
        sign_with=eth,
        payload="ab" * 32,
        encoding="PAYLOAD_ENCODING_HEXADECIMAL",
        hash_function="HASH_FUNCTION_NO_OP",
    )
    assert signed["activity"]["status"] == COMPLETED
    assert emu.delete_wallets(wallet_ids=[out["walletId"]], delete_without_export=True)


@pytest.mark.parametrize("length", [12, 15, 18, 21, 24])
def test_import_wallet_takes_every_mnemonic_length(emu, turnkey_org, length):
    entropy = bytes([0x7F]) * (length * 4 // 3)
    mnemonic = str(bip_utils.Bip39MnemonicEncoder().Encode(entropy))
    assert len(mnemonic.split()) == length
    out = emu.import_wallet(
        user_id=turnkey_org.user_id,
        wallet_name=f"w{length}",
        encrypted_bundle=wallet_bundle(emu, turnkey_org, mnemonic),
        accounts=[account_spec(ETH)],
    )
    path = account_spec(ETH)["path"]
    assert out["addresses"] == [Account.from_mnemonic(mnemonic, account_path=path).address]


# ----- import_private_key -------------------------------------------------------------


def test_import_private_key_of_a_published_secp256k1_key(emu, turnkey_org, target):
    encrypted = key_bundle(emu, turnkey_org, bytes.fromhex(ETH_DOC_KEY))
    out = emu.import_private_key(
        user_id=turnkey_org.user_id,
        private_key_name="doc key",
        encrypted_bundle=encrypted,
        curve=SECP256K1,
        address_formats=[ETH],
    )
    assert set(out) == {"activity", "privateKeyId", "addresses"}
    assert out["addresses"] == [{"format": ETH, "address": ETH_DOC_ADDRESS}]
    assert Account.from_key(bytes.fromhex(ETH_DOC_KEY)).address == ETH_DOC_ADDRESS
    activity = out["activity"]
    assert (activity["type"], activity["status"]) == ("ACTIVITY_TYPE_IMPORT_PRIVATE_KEY", COMPLETED)
    assert activity["intent"] == {
        "importPrivateKeyIntent": {
            "userId": turnkey_org.user_id,
            "privateKeyName": "doc key",
            "encryptedBundle": encrypted,
            "curve": SECP256K1,
            "addressFormats": [ETH],
        }
    }
    assert activity["result"]["importPrivateKeyResult"] == {
        "privateKeyId": out["privateKeyId"],
        "addresses": out["addresses"],
    }
    key = emu.get_private_key(private_key_id=out["privateKeyId"])["privateKey"]
    assert (key["privateKeyName"], key["curve"], key["exported"], key["imported"]) == (
        "doc key",
        SECP256K1,
        False,
        True,
    )
    assert key["publicKey"] == public_key_of(SECP256K1, bytes.fromhex(ETH_DOC_KEY))
    assert key["privateKeyTags"] == []
    assert leaks(emu, ETH_DOC_KEY) == []
    # And back out again, byte for byte.
    exported = emu.export_private_key(
        private_key_id=out["privateKeyId"], target_public_key=target.public_key
    )
    assert opened(emu, turnkey_org, exported["exportBundle"], target).hex() == ETH_DOC_KEY
    flags = emu.get_private_key(private_key_id=out["privateKeyId"])["privateKey"]
    assert (flags["exported"], flags["imported"]) == (True, True)


def test_import_private_key_of_a_published_ed25519_key(emu, turnkey_org):
    (aptos,) = vectors("aptos")
    secret = bytes.fromhex(aptos["expected"]["private_key"].removeprefix("0x"))
    out = emu.import_private_key(
        user_id=turnkey_org.user_id,
        private_key_name="aptos",
        encrypted_bundle=key_bundle(emu, turnkey_org, secret),
        curve=ED25519,
        address_formats=["ADDRESS_FORMAT_APTOS", SOL],
    )
    assert out["addresses"] == [
        {"format": "ADDRESS_FORMAT_APTOS", "address": aptos["expected"]["address"]},
        {"format": SOL, "address": str(Keypair.from_seed(secret).pubkey())},
    ]
    key = emu.get_private_key(private_key_id=out["privateKeyId"])["privateKey"]
    assert "0x" + key["publicKey"] == aptos["expected"]["public_key"]


def test_import_private_key_on_p256(emu, turnkey_org):
    secret = bytes.fromhex("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721")
    out = emu.import_private_key(
        user_id=turnkey_org.user_id,
        private_key_name="p256",
        encrypted_bundle=key_bundle(emu, turnkey_org, secret),
        curve=P256,
        address_formats=["ADDRESS_FORMAT_COMPRESSED", "ADDRESS_FORMAT_UNCOMPRESSED"],
    )
    compressed = public_key_of(P256, secret)
    key = ec.derive_private_key(int.from_bytes(secret, "big"), ec.SECP256R1()).public_key()
    uncompressed = key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    ).hex()
    assert out["addresses"] == [
        {"format": "ADDRESS_FORMAT_COMPRESSED", "address": compressed},
        {"format": "ADDRESS_FORMAT_UNCOMPRESSED", "address": uncompressed},
    ]


# ----- single-use targets, policies, state ----------------------------------------------


def test_a_target_serves_one_import_and_a_new_init_replaces_it(emu, turnkey_org):
    first = emu.init_import_wallet(user_id=turnkey_org.user_id)["importBundle"]
    second = emu.init_import_wallet(user_id=turnkey_org.user_id)["importBundle"]
    vault = emu.world.store.vault.import_targets
    assert list(vault) == [(turnkey_org.organization_id, turnkey_org.user_id, "wallet")]
    to_second = sealed_for_import(emu, turnkey_org, second, ABANDON.encode())
    out = emu.import_wallet(
        user_id=turnkey_org.user_id, wallet_name="w", encrypted_bundle=to_second, accounts=[]
    )
    assert out["activity"]["status"] == COMPLETED
    assert vault == {}
    assert signed_data(emu, first)["targetPublic"] != signed_data(emu, second)["targetPublic"]


def test_wallet_and_private_key_targets_are_separate(emu, turnkey_org):
    emu.init_import_wallet(user_id=turnkey_org.user_id)
    emu.init_import_private_key(user_id=turnkey_org.user_id)
    slots = sorted(k[2] for k in emu.world.store.vault.import_targets)
    assert slots == ["private_key", "wallet"]


def test_a_user_with_a_policy_imports_and_exports_their_own(emu, turnkey_org, target):
    user_id, key = add_user(emu, "importer")
    emu.create_policy(
        policy_name="import and export",
        effect="EFFECT_ALLOW",
        condition="activity.action == 'IMPORT' || activity.action == 'EXPORT'",
        consensus=f"approvers.any(user, user.id == '{user_id}')",
        notes="",
    )
    init = emu.init_import_wallet(user_id=user_id, caller=key)["importBundle"]
    encrypted = sealed_for_import(emu, turnkey_org, init, ABANDON.encode(), user_id=user_id)
    out = emu.import_wallet(
        user_id=user_id,
        wallet_name="mine",
        encrypted_bundle=encrypted,
        accounts=[account_spec(ETH)],
        caller=key,
    )
    (eth,) = out["addresses"]
    exported = emu.export_wallet_account(
        address=eth, target_public_key=target.public_key, caller=key
    )
    assert eth_address(opened(emu, turnkey_org, exported["exportBundle"], target)) == eth


def test_a_pending_target_survives_save_and_load(emu, turnkey_org, tmp_path):
    init = emu.init_import_private_key(user_id=turnkey_org.user_id)["importBundle"]
    encrypted = sealed_for_import(emu, turnkey_org, init, bytes.fromhex(ETH_DOC_KEY))
    document = emu.to_document()
    assert [
        {k: v for k, v in entry.items() if k != "secret"}
        for entry in document["vault"]["importTargets"]
    ] == [
        {
            "organizationId": turnkey_org.organization_id,
            "userId": turnkey_org.user_id,
            "kind": "private_key",
        }
    ]
    path = tmp_path / "state.json"
    emu.save(path)
    loaded = type(emu).load(path)
    out = loaded.import_private_key(
        user_id=turnkey_org.user_id,
        private_key_name="k",
        encrypted_bundle=encrypted,
        curve=SECP256K1,
        address_formats=[ETH],
    )
    assert out["addresses"] == [{"format": ETH, "address": ETH_DOC_ADDRESS}]
    assert loaded.to_document()["vault"]["importTargets"] == []


def test_a_rollback_takes_back_a_target(emu, turnkey_org):
    saved = emu.checkpoint()
    emu.init_import_wallet(user_id=turnkey_org.user_id)
    assert len(emu.world.store.vault.import_targets) == 1
    emu.rollback(saved)
    assert emu.world.store.vault.import_targets == {}


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ({"organizationId": "o", "userId": "u", "kind": "seed", "secret": "11" * 32}, "a kind"),
        ({"organizationId": "o", "userId": 7, "kind": "wallet", "secret": "11" * 32}, "a kind"),
        ({"organizationId": "o", "userId": "u", "kind": "wallet", "secret": "11"}, "32-byte"),
        ({"organizationId": "o", "userId": "u", "kind": "wallet"}, "32-byte"),
        ("wallet", "object"),
    ],
)
def test_a_document_with_a_malformed_import_target_is_refused(emu, entry, why):
    document = emu.to_document()
    document["vault"]["importTargets"] = [entry]
    with pytest.raises(ValueError, match=r"^vault\.importTargets\[0\]") as caught:
        type(emu).from_document(document)
    assert why in str(caught.value)
