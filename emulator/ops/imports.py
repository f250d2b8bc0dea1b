"""Imports: init_import_wallet, import_wallet, init_import_private_key, import_private_key.

An init answers a signed target bundle: a fresh key of the enclave for the
requesting user (reference §7.4). The client seals a BIP39 mnemonic or a raw
32-byte private key to it and sends the result as ``encryptedBundle``; the
import opens it once and makes the wallet or private key exactly as
create_wallet / create_private_keys do (same derivation, limits and name
rules), flagged ``imported``. Target keys and material live in the vault
(``services/imports.py``); neither appears in an activity or an error.
"""

from __future__ import annotations

from typing import Any

from ..ground import messages
from ..ground.enums import ADDRESS_FORMATS, CURVES
from ..ground.errors import ValidationFailed
from ..ground.schema import Array, Enum, String, Violations, label, obj, uuid
from ..services import imports
from ..services.context import Context
from .private_keys import new_private_key
from .registry import Version, activity
from .wallets import WALLET_ACCOUNT_PARAMS, new_wallet

Params = dict[str, Any]


@activity(
    "init_import_wallet",
    summary="Init import wallet",
    default="ACTIVITY_TYPE_INIT_IMPORT_WALLET",
    versions=[
        Version(
            "ACTIVITY_TYPE_INIT_IMPORT_WALLET",
            "initImportWalletIntent",
            "initImportWalletResult",
            obj(userId=uuid()),
        )
    ],
)
def init_import_wallet(ctx: Context, params: Params) -> Params:
    """A new wallet import target for the requesting user (replacing an earlier one)."""
    return {"importBundle": imports.issue_target(ctx, imports.WALLET, params["userId"])}


@activity(
    "init_import_private_key",
    summary="Init import private key",
    default="ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY",
    versions=[
        Version(
            "ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY",
            "initImportPrivateKeyIntent",
            "initImportPrivateKeyResult",
            obj(userId=uuid()),
        )
    ],
)
def init_import_private_key(ctx: Context, params: Params) -> Params:
    """A new private key import target for the requesting user (replacing an earlier one)."""
    return {"importBundle": imports.issue_target(ctx, imports.PRIVATE_KEY, params["userId"])}


@activity(
    "import_wallet",
    summary="Import wallet",
    default="ACTIVITY_TYPE_IMPORT_WALLET",
    versions=[
        Version(
            "ACTIVITY_TYPE_IMPORT_WALLET",
            "importWalletIntent",
            "importWalletResult",
            obj(
                userId=uuid(),
                walletName=label(),
                encryptedBundle=String(),
                accounts=Array(WALLET_ACCOUNT_PARAMS),
            ),
        )
    ],
)
def import_wallet(ctx: Context, params: Params) -> Params:
    """A wallet of the mnemonic in ``encryptedBundle``, with ``accounts``."""
    plaintext = imports.open_import(
        ctx, imports.WALLET, params["userId"], params["encryptedBundle"]
    )
    mnemonic = imports.mnemonic_of(plaintext)
    wallet, addresses = new_wallet(
        ctx, params["walletName"], mnemonic, params["accounts"], imported=True
    )
    return {"walletId": wallet.wallet_id, "addresses": addresses}


@activity(
    "import_private_key",
    summary="Import private key",
    default="ACTIVITY_TYPE_IMPORT_PRIVATE_KEY",
    versions=[
        Version(
            "ACTIVITY_TYPE_IMPORT_PRIVATE_KEY",
            "importPrivateKeyIntent",
            "importPrivateKeyResult",
            obj(
                userId=uuid(),
                privateKeyName=label(),
                encryptedBundle=String(),
                curve=Enum(CURVES),
                addressFormats=Array(Enum(ADDRESS_FORMATS)),
            ),
        )
    ],
)
def import_private_key(ctx: Context, params: Params) -> Params:
    """A private key of the raw key in ``encryptedBundle``, on ``curve``."""
    plaintext = imports.open_import(
        ctx, imports.PRIVATE_KEY, params["userId"], params["encryptedBundle"]
    )
    curve, name = params["curve"], params["privateKeyName"]
    secret = imports.private_key_of(plaintext, curve)
    if name in ctx.org.private_key_names:
        errors = Violations()  # the field of this intent, not create's privateKeys.N
        errors.add("privateKeyName", messages.MUST_BE_UNIQUE)
        raise ValidationFailed(errors)
    spec = {
        "privateKeyName": name,
        "curve": curve,
        "privateKeyTags": [],
        "addressFormats": params["addressFormats"],
    }
    key = new_private_key(ctx, spec, "privateKey", secret, imported=True)
    addresses = [{"format": a.address_format, "address": a.address} for a in key.addresses]
    return {"privateKeyId": key.private_key_id, "addresses": addresses}
