"""Exports: export_wallet, export_private_key, export_wallet_account; and all seven export
and import operations once through the official Python SDK.

The client's side is ``emulator.testing.client_crypto``; what comes out of a
bundle is checked with libraries other than the emulator's own derivation and
signing code (eth-account, eth-keys, coincurve, ``cryptography``, bip_utils'
SLIP-10, solders). The helpers here serve ``test_export_import_imports.py``
(imports) and ``test_export_import_errors.py`` (error paths) too.
"""

from __future__ import annotations

import json
from pathlib import Path

import bip_utils
import coincurve
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from eth_account import Account
from eth_keys import keys as eth_keys
from solders.keypair import Keypair

from emulator.accounts import account_spec
from emulator.ground import messages
from emulator.testing.client_crypto import (
    TargetKey,
    decrypt_export_bundle,
    encrypt_for_import,
)

from .helpers import add_user, fails

Account.enable_unaudited_hdwallet_features()

ETH, SOL = "ADDRESS_FORMAT_ETHEREUM", "ADDRESS_FORMAT_SOLANA"
SECP256K1, ED25519, P256 = "CURVE_SECP256K1", "CURVE_ED25519", "CURVE_P256"
COMPLETED = "ACTIVITY_STATUS_COMPLETED"
ABANDON = "abandon " * 11 + "about"
# eth-account's documented example key and its address.
ETH_DOC_KEY = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
ETH_DOC_ADDRESS = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
BUNDLE_KEYS = {"version", "data", "dataSignature", "enclaveQuorumPublic"}


@pytest.fixture
def emu(turnkey_emulator, turnkey_org):
    return turnkey_emulator


@pytest.fixture
def target() -> TargetKey:
    return TargetKey.generate(b"\x07" * 32)


# ----- helpers (shared with the imports and errors tests) ---------------------------


def opened(emu, org, bundle: str, target: TargetKey) -> bytes:
    """What an export bundle carries, as the client opens it."""
    return decrypt_export_bundle(
        bundle,
        target,
        organization_id=org.organization_id,
        signer_public_key=emu.enclave.signer_public_key,
    )


def sealed_for_import(emu, org, import_bundle: str, plaintext: bytes, user_id=None) -> str:
    """The ``encryptedBundle`` a client makes of ``plaintext`` for ``import_bundle``."""
    return encrypt_for_import(
        import_bundle,
        plaintext,
        organization_id=org.organization_id,
        user_id=user_id or org.user_id,
        signer_public_key=emu.enclave.signer_public_key,
    )


def wallet_bundle(emu, org, mnemonic: str = ABANDON) -> str:
    """init_import_wallet for the root user, and ``mnemonic`` sealed to its target."""
    init = emu.init_import_wallet(user_id=org.user_id)["importBundle"]
    return sealed_for_import(emu, org, init, mnemonic.encode())


def key_bundle(emu, org, private_key: bytes) -> str:
    """init_import_private_key for the root user, and ``private_key`` sealed to its target."""
    init = emu.init_import_private_key(user_id=org.user_id)["importBundle"]
    return sealed_for_import(emu, org, init, private_key)


def signed_data(emu, bundle: str) -> dict:
    """The inner JSON of an enclave-signed bundle, its signature checked with
    ``cryptography`` alone against the emulator's signer key."""
    outer = json.loads(bundle)
    assert set(outer) == BUNDLE_KEYS
    assert outer["version"] == "v1.0.0"
    assert outer["enclaveQuorumPublic"] == emu.enclave.signer_public_key
    signer = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), bytes.fromhex(emu.enclave.signer_public_key)
    )
    data = bytes.fromhex(outer["data"])
    signer.verify(bytes.fromhex(outer["dataSignature"]), data, ec.ECDSA(hashes.SHA256()))
    return json.loads(data)


def eth_address(private_key: bytes) -> str:
    return eth_keys.PrivateKey(private_key).public_key.to_checksum_address()


def solana_address_at(mnemonic: str, path: str) -> str:
    """SLIP-10 ed25519 with bip_utils, the address with solders."""
    seed = bip_utils.Bip39SeedGenerator(mnemonic).Generate()
    node = bip_utils.Bip32Slip10Ed25519.FromSeed(seed).DerivePath(path)
    return str(Keypair.from_seed(node.PrivateKey().Raw().ToBytes()).pubkey())


def public_key_of(curve: str, private_key: bytes) -> str:
    """A private key's public key as Turnkey renders it, by independent libraries."""
    if curve == SECP256K1:
        return coincurve.PrivateKey(private_key).public_key.format(compressed=True).hex()
    if curve == ED25519:
        key = ed25519.Ed25519PrivateKey.from_private_bytes(private_key)
        return key.public_key().public_bytes_raw().hex()
    key = ec.derive_private_key(int.from_bytes(private_key, "big"), ec.SECP256R1())
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint)
        .hex()
    )


def leaks(emu, *secrets: str) -> list[str]:
    """Which of ``secrets`` appear in any activity, query answer or call-log entry."""
    org_ids = list(emu.world.store.organizations)
    seen = [json.dumps(emu.list_activities(organization_id=o), default=str) for o in org_ids] + [
        json.dumps([c.request, c.result, c.error_message], default=str) for c in emu.calls
    ]
    text = "\n".join(seen).lower()
    return [s for s in secrets if s.lower() in text]


# ----- export_wallet ------------------------------------------------------------------


def test_export_wallet_seals_the_mnemonic_to_the_target(emu, turnkey_org, target):
    made = emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH), account_spec(SOL)])
    out = emu.export_wallet(wallet_id=made["walletId"], target_public_key=target.public_key)
    assert set(out) == {"activity", "walletId", "exportBundle"}
    activity = out["activity"]
    assert (activity["type"], activity["status"]) == ("ACTIVITY_TYPE_EXPORT_WALLET", COMPLETED)
    assert activity["intent"] == {
        "exportWalletIntent": {"walletId": made["walletId"], "targetPublicKey": target.public_key}
    }
    assert activity["result"]["exportWalletResult"] == {
        "walletId": made["walletId"],
        "exportBundle": out["exportBundle"],
    }
    inner = signed_data(emu, out["exportBundle"])
    assert set(inner) == {"encappedPublic", "ciphertext", "organizationId"}
    assert inner["organizationId"] == turnkey_org.organization_id
    assert len(inner["encappedPublic"]) == 130 and inner["encappedPublic"].startswith("04")
    mnemonic = opened(emu, turnkey_org, out["exportBundle"], target).decode()
    assert mnemonic == emu.backdoor.mnemonic(made["walletId"])
    eth, sol = made["addresses"]
    assert Account.from_mnemonic(mnemonic, account_path=account_spec(ETH)["path"]).address == eth
    assert solana_address_at(mnemonic, account_spec(SOL)["path"]) == sol
    assert leaks(emu, mnemonic, target.public_key) == [target.public_key]  # it sees intents


def test_export_marks_the_wallet_exported_and_it_can_then_be_deleted(emu, target):
    made = emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH)])
    wallet_id = made["walletId"]
    flags = emu.get_wallet(wallet_id=wallet_id)["wallet"]
    assert (flags["exported"], flags["imported"]) == (False, False)
    updated_at = flags["updatedAt"]
    emu.export_wallet(wallet_id=wallet_id, target_public_key=target.public_key)
    wallet = emu.get_wallet(wallet_id=wallet_id)["wallet"]
    assert (wallet["exported"], wallet["imported"], wallet["updatedAt"]) == (
        True,
        False,
        updated_at,
    )
    listed = emu.list_wallet_accounts(wallet_id=wallet_id, include_wallet_details=True)
    assert listed["accounts"][0]["walletDetails"]["exported"] is True
    # The wallet's export covers its accounts, and itself.
    account_id = listed["accounts"][0]["walletAccountId"]
    assert emu.delete_wallet_accounts(wallet_account_ids=[account_id])["walletAccountIds"] == [
        account_id
    ]
    assert emu.delete_wallets(wallet_ids=[wallet_id])["walletIds"] == [wallet_id]


def test_export_wallet_to_a_compressed_target_key(emu, turnkey_org, target):
    wallet_id = emu.backdoor.import_wallet(ABANDON)["walletId"]
    out = emu.export_wallet(wallet_id=wallet_id, target_public_key=target.compressed_public_key)
    assert len(target.compressed_public_key) == 66
    assert opened(emu, turnkey_org, out["exportBundle"], target).decode() == ABANDON


WORD_LISTS = {
    "MNEMONIC_LANGUAGE_SIMPLIFIED_CHINESE": "chinese_simplified",
    "MNEMONIC_LANGUAGE_TRADITIONAL_CHINESE": "chinese_traditional",
    "MNEMONIC_LANGUAGE_CZECH": "czech",
    "MNEMONIC_LANGUAGE_FRENCH": "french",
    "MNEMONIC_LANGUAGE_ITALIAN": "italian",
    "MNEMONIC_LANGUAGE_KOREAN": "korean",
    "MNEMONIC_LANGUAGE_SPANISH": "spanish",
}


def word_list(name: str) -> list[str]:
    root = Path(bip_utils.__file__).parent / "bip" / "bip39" / "wordlist"
    return (root / f"{name}.txt").read_text(encoding="utf-8").split()


@pytest.mark.parametrize("language", sorted(WORD_LISTS))
def test_export_wallet_in_another_language_keeps_the_entropy(emu, turnkey_org, target, language):
    """All-zero entropy is word 0 eleven times and word 3 (the checksum) in every list."""
    wallet_id = emu.backdoor.import_wallet(ABANDON)["walletId"]
    out = emu.export_wallet(
        wallet_id=wallet_id, target_public_key=target.public_key, language=language
    )
    words = word_list(WORD_LISTS[language])
    assert opened(emu, turnkey_org, out["exportBundle"], target).decode() == " ".join(
        [words[0]] * 11 + [words[3]]
    )
    english = emu.export_wallet(
        wallet_id=wallet_id,
        target_public_key=target.public_key,
        language="MNEMONIC_LANGUAGE_ENGLISH",
    )
    assert opened(emu, turnkey_org, english["exportBundle"], target).decode() == ABANDON


# ----- export_private_key -------------------------------------------------------------


@pytest.mark.parametrize(
    ("curve", "formats"),
    [
        (SECP256K1, [ETH]),
        (ED25519, [SOL]),
        (P256, ["ADDRESS_FORMAT_COMPRESSED"]),
    ],
)
def test_export_private_key_seals_the_raw_key(emu, turnkey_org, target, curve, formats):
    spec = {"privateKeyName": "k", "curve": curve, "privateKeyTags": [], "addressFormats": formats}
    made = emu.create_private_keys(private_keys=[spec])["privateKeys"][0]
    key_id = made["privateKeyId"]
    out = emu.export_private_key(private_key_id=key_id, target_public_key=target.public_key)
    assert set(out) == {"activity", "privateKeyId", "exportBundle"}
    assert out["activity"]["intent"] == {
        "exportPrivateKeyIntent": {"privateKeyId": key_id, "targetPublicKey": target.public_key}
    }
    assert out["activity"]["result"]["exportPrivateKeyResult"] == {
        "privateKeyId": key_id,
        "exportBundle": out["exportBundle"],
    }
    secret = opened(emu, turnkey_org, out["exportBundle"], target)
    assert len(secret) == 32
    rendered = emu.get_private_key(private_key_id=key_id)["privateKey"]
    assert rendered["publicKey"] == public_key_of(curve, secret)
    address = made["addresses"][0]["address"]
    if curve == SECP256K1:
        assert eth_address(secret) == address
    if curve == ED25519:
        assert str(Keypair.from_seed(secret).pubkey()) == address
    assert (rendered["exported"], rendered["imported"]) == (True, False)
    assert leaks(emu, secret.hex()) == []
    assert emu.delete_private_keys(private_key_ids=[key_id])["privateKeyIds"] == [key_id]


# ----- export_wallet_account ----------------------------------------------------------


def test_export_wallet_account_seals_the_accounts_key(emu, turnkey_org, target):
    made = emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH), account_spec(SOL)])
    eth, sol = made["addresses"]
    out = emu.export_wallet_account(address=eth, target_public_key=target.public_key)
    assert set(out) == {"activity", "address", "exportBundle"}
    assert out["activity"]["intent"] == {
        "exportWalletAccountIntent": {"address": eth, "targetPublicKey": target.public_key}
    }
    assert out["activity"]["result"]["exportWalletAccountResult"] == {
        "address": eth,
        "exportBundle": out["exportBundle"],
    }
    secret = opened(emu, turnkey_org, out["exportBundle"], target)
    assert eth_address(secret) == eth
    mnemonic = emu.backdoor.mnemonic(made["walletId"])
    path = account_spec(ETH)["path"]
    assert Account.from_mnemonic(mnemonic, account_path=path).key == secret
    sol_out = emu.export_wallet_account(address=sol, target_public_key=target.public_key)
    seed = opened(emu, turnkey_org, sol_out["exportBundle"], target)
    assert str(Keypair.from_seed(seed).pubkey()) == sol
    assert leaks(emu, secret.hex(), seed.hex(), mnemonic) == []


def test_an_exported_account_can_be_deleted_but_its_wallet_is_not_exported(emu, target):
    made = emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH), account_spec(SOL)])
    eth, _ = made["addresses"]
    emu.export_wallet_account(address=eth, target_public_key=target.public_key)
    assert emu.get_wallet(wallet_id=made["walletId"])["wallet"]["exported"] is False
    accounts = emu.list_wallet_accounts(wallet_id=made["walletId"])["accounts"]
    by_address = {a["address"]: a["walletAccountId"] for a in accounts}
    account_id = by_address[eth]
    assert emu.delete_wallet_accounts(wallet_account_ids=[account_id])["walletAccountIds"] == [
        account_id
    ]


def test_a_policy_may_allow_the_export_of_one_account(emu, turnkey_org, target):
    """The documented example: ``activity.action == 'EXPORT' && wallet_account.address == …``."""
    user_id, key = add_user(emu, "exporter")
    made = emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH), account_spec(SOL)])
    eth, sol = made["addresses"]
    emu.create_policy(
        policy_name="one account",
        effect="EFFECT_ALLOW",
        condition=f"activity.action == 'EXPORT' && wallet_account.address == '{eth}'",
        consensus=f"approvers.any(user, user.id == '{user_id}')",
        notes="",
    )
    out = emu.export_wallet_account(address=eth, target_public_key=target.public_key, caller=key)
    assert eth_address(opened(emu, turnkey_org, out["exportBundle"], target)) == eth
    for call, params in (
        (emu.export_wallet_account, {"address": sol}),
        (emu.export_wallet, {"wallet_id": made["walletId"]}),
    ):
        error = fails(emu, call, target_public_key=target.public_key, caller=key, **params)
        assert (error.status, error.code, error.message) == (403, 7, messages.IMPLICIT_DENY)


# ----- the official Python SDK ----------------------------------------------------------


def test_the_seven_operations_through_the_official_sdk(emu, turnkey_org, target):
    """init/import a wallet and a private key, export both and an account, with the SDK's
    typed bodies and response models; and one refusal as the SDK surfaces it."""
    pytest.importorskip("turnkey_http")
    from turnkey_sdk_types import (
        ExportPrivateKeyBody,
        ExportWalletAccountBody,
        ExportWalletBody,
        GetPrivateKeyBody,
        GetWalletBody,
        ImportPrivateKeyBody,
        ImportWalletBody,
        InitImportPrivateKeyBody,
        InitImportWalletBody,
        TurnkeyNetworkError,
        v1WalletAccountParams,
    )

    def value(field):
        return getattr(field, "value", field)

    user_id, abandon_eth = turnkey_org.user_id, "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
    with emu.intercept():
        client = emu.client(turnkey_org)
        init = client.init_import_wallet(InitImportWalletBody(userId=user_id))
        assert value(init.activity.type) == "ACTIVITY_TYPE_INIT_IMPORT_WALLET"
        encrypted = sealed_for_import(emu, turnkey_org, init.importBundle, ABANDON.encode())
        wallet = client.import_wallet(
            ImportWalletBody(
                userId=user_id,
                walletName="sdk wallet",
                encryptedBundle=encrypted,
                accounts=[v1WalletAccountParams(**account_spec(ETH))],
            )
        )
        assert value(wallet.activity.status) == COMPLETED
        assert wallet.addresses == [abandon_eth]
        with pytest.raises(TurnkeyNetworkError) as refused:
            client.import_wallet(
                ImportWalletBody(
                    userId=user_id, walletName="again", encryptedBundle=encrypted, accounts=[]
                )
            )
        assert refused.value.status_code == 400
        assert messages.import_target_not_found("wallet", user_id) in str(refused.value)

        exported = client.export_wallet(
            ExportWalletBody(walletId=wallet.walletId, targetPublicKey=target.public_key)
        )
        assert exported.walletId == wallet.walletId
        assert opened(emu, turnkey_org, exported.exportBundle, target).decode() == ABANDON
        account = client.export_wallet_account(
            ExportWalletAccountBody(address=abandon_eth, targetPublicKey=target.public_key)
        )
        assert account.address == abandon_eth
        secret = opened(emu, turnkey_org, account.exportBundle, target)
        assert eth_address(secret) == abandon_eth
        rendered = client.get_wallet(GetWalletBody(walletId=wallet.walletId)).wallet
        assert (rendered.exported, rendered.imported) == (True, True)

        init_key = client.init_import_private_key(InitImportPrivateKeyBody(userId=user_id))
        assert value(init_key.activity.type) == "ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY"
        key = client.import_private_key(
            ImportPrivateKeyBody(
                userId=user_id,
                privateKeyName="sdk key",
                encryptedBundle=sealed_for_import(
                    emu, turnkey_org, init_key.importBundle, bytes.fromhex(ETH_DOC_KEY)
                ),
                curve=SECP256K1,
                addressFormats=[ETH],
            )
        )
        assert [(value(a.format), a.address) for a in key.addresses] == [(ETH, ETH_DOC_ADDRESS)]
        out = client.export_private_key(
            ExportPrivateKeyBody(
                privateKeyId=key.privateKeyId, targetPublicKey=target.compressed_public_key
            )
        )
        assert out.privateKeyId == key.privateKeyId
        assert opened(emu, turnkey_org, out.exportBundle, target).hex() == ETH_DOC_KEY
        flags = client.get_private_key(GetPrivateKeyBody(privateKeyId=key.privateKeyId))
        assert (flags.privateKey.exported, flags.privateKey.imported) == (True, True)
    assert leaks(emu, ABANDON, ETH_DOC_KEY, secret.hex()) == []
