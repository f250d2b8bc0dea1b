"""Exports: export_wallet, export_private_key, export_wallet_account.

Each seals the key material to the caller's ``targetPublicKey`` (P-256,
compressed or uncompressed hex) in an enclave-signed export bundle (reference
§7.3): a wallet's mnemonic as UTF-8 text, a private key's or a wallet
account's raw 32 bytes (an ed25519 key's seed). The material appears nowhere
else: not in the activity, its result or an error. The wallet, private key
or account is then flagged ``exported``, which lets it be deleted without
``deleteWithoutExport``; exporting a wallet covers its accounts, exporting an
account does not flag its wallet.
"""

from __future__ import annotations

from typing import Any

from ..ground import messages
from ..ground.errors import InvalidArgument, NotFound
from ..ground.models import Organization, Wallet, WalletAccount
from ..ground.schema import Enum, String, obj, opt, uuid
from ..services import bundles, keys
from ..services.context import Context
from .private_keys import find_private_key
from .registry import Version, activity
from .wallets import find_wallet

Params = dict[str, Any]

ENGLISH = "MNEMONIC_LANGUAGE_ENGLISH"
# v1MnemonicLanguage, and the name of each list in bip_utils (which has no Japanese list).
MNEMONIC_LANGUAGES = {
    ENGLISH: "ENGLISH",
    "MNEMONIC_LANGUAGE_SIMPLIFIED_CHINESE": "CHINESE_SIMPLIFIED",
    "MNEMONIC_LANGUAGE_TRADITIONAL_CHINESE": "CHINESE_TRADITIONAL",
    "MNEMONIC_LANGUAGE_CZECH": "CZECH",
    "MNEMONIC_LANGUAGE_FRENCH": "FRENCH",
    "MNEMONIC_LANGUAGE_ITALIAN": "ITALIAN",
    "MNEMONIC_LANGUAGE_JAPANESE": None,
    "MNEMONIC_LANGUAGE_KOREAN": "KOREAN",
    "MNEMONIC_LANGUAGE_SPANISH": "SPANISH",
}
TARGET_PUBLIC_KEY = String(fmt="hex")


def _sealed(ctx: Context, target_public_key: str, plaintext: bytes) -> str:
    """The export bundle of ``plaintext`` for ``target_public_key``; 400 for a bad key."""
    try:
        return bundles.export_bundle(
            ctx.world, ctx.org.organization_id, target_public_key, plaintext
        )
    except bundles.BundleError:
        raise InvalidArgument(messages.invalid_target_public_key(target_public_key)) from None


def _in_language(mnemonic: str, language: str) -> str:
    """``mnemonic``'s entropy in the words of ``language`` (BIP39 lists)."""
    list_name = MNEMONIC_LANGUAGES[language]
    if language == ENGLISH:
        return mnemonic
    if list_name is None:
        raise InvalidArgument(messages.unsupported_mnemonic_language(language))
    from bip_utils import Bip39Languages, Bip39MnemonicDecoder, Bip39MnemonicEncoder

    entropy = Bip39MnemonicDecoder(Bip39Languages.ENGLISH).Decode(mnemonic)
    return str(Bip39MnemonicEncoder(Bip39Languages[list_name]).Encode(entropy))


def find_account(org: Organization, address: str) -> tuple[Wallet, WalletAccount]:
    """The wallet account ``address`` names (the one that signs for it); 404 if none."""
    for ref in org.signers.get(address, ()):
        if ref.wallet_account_id is not None:
            wallet = org.wallets[ref.wallet_id]  # type: ignore[index]
            return wallet, wallet.accounts[ref.wallet_account_id]
    raise NotFound(messages.wallet_account_not_found(address))


@activity(
    "export_wallet",
    summary="Export wallet",
    default="ACTIVITY_TYPE_EXPORT_WALLET",
    versions=[
        Version(
            "ACTIVITY_TYPE_EXPORT_WALLET",
            "exportWalletIntent",
            "exportWalletResult",
            obj(
                walletId=uuid(),
                targetPublicKey=TARGET_PUBLIC_KEY,
                language=opt(Enum(tuple(MNEMONIC_LANGUAGES))),
            ),
        )
    ],
)
def export_wallet(ctx: Context, params: Params) -> Params:
    """The wallet's mnemonic (in ``language``, English by default), sealed to the caller."""
    wallet = find_wallet(ctx.org, params["walletId"])
    mnemonic = ctx.store.vault.wallets[wallet.wallet_id].mnemonic
    words = _in_language(mnemonic, params.get("language") or ENGLISH)
    bundle = _sealed(ctx, params["targetPublicKey"], words.encode("utf-8"))
    ctx.tx.set(wallet, "exported", True)
    return {"walletId": wallet.wallet_id, "exportBundle": bundle}


@activity(
    "export_private_key",
    summary="Export private key",
    default="ACTIVITY_TYPE_EXPORT_PRIVATE_KEY",
    versions=[
        Version(
            "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY",
            "exportPrivateKeyIntent",
            "exportPrivateKeyResult",
            obj(privateKeyId=uuid(), targetPublicKey=TARGET_PUBLIC_KEY),
        )
    ],
)
def export_private_key(ctx: Context, params: Params) -> Params:
    """The private key's raw 32 bytes, sealed to the caller."""
    key = find_private_key(ctx.org, params["privateKeyId"])
    secret = ctx.store.vault.private_keys[key.private_key_id]
    bundle = _sealed(ctx, params["targetPublicKey"], secret)
    ctx.tx.set(key, "exported", True)
    return {"privateKeyId": key.private_key_id, "exportBundle": bundle}


@activity(
    "export_wallet_account",
    summary="Export wallet account",
    default="ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",
    versions=[
        Version(
            "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",
            "exportWalletAccountIntent",
            "exportWalletAccountResult",
            obj(address=String(), targetPublicKey=TARGET_PUBLIC_KEY),
        )
    ],
)
def export_wallet_account(ctx: Context, params: Params) -> Params:
    """The raw private key of the account ``address`` names, sealed to the caller."""
    wallet, account = find_account(ctx.org, params["address"])
    secret = ctx.store.vault.wallets[wallet.wallet_id]
    node = keys.derive(secret, account.curve, account.path)
    bundle = _sealed(ctx, params["targetPublicKey"], node.private_key)
    ctx.tx.set(account, "exported", True)
    return {"address": account.address, "exportBundle": bundle}
