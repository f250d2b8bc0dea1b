"""Import targets of the enclave, and what an imported bundle may carry.

``init_import_wallet`` / ``init_import_private_key`` make a fresh P-256 key of the
enclave for the requesting user (one per user and kind; a second init replaces
the first) and answer its public half in a signed target bundle. The client
seals a mnemonic or a raw private key to it; ``import_wallet`` /
``import_private_key`` open that bundle with the secret and consume it. The
secret is used once: it goes when the import succeeds, and stays when the import
fails (the activity's changes are undone, this one included).

"All import requests must target your own user" (the docs' policy rules):
``userId`` must be the requesting user's. Errors never quote the material.
"""

from __future__ import annotations

from ..crypto import hd
from ..crypto.curves import ORDERS
from ..engine_state.vault import IMPORT_PRIVATE_KEY, IMPORT_SECRET_TARGET, IMPORT_WALLET
from ..ground import messages
from ..ground.errors import InvalidArgument
from . import bundles
from .context import Context

WALLET = IMPORT_WALLET
PRIVATE_KEY = IMPORT_PRIVATE_KEY
SECRET_TARGET = IMPORT_SECRET_TARGET  # import_secrets' targets: "secret:<target public key>"
PRIVATE_KEY_BYTES = 32


def check_own_user(ctx: Context, user_id: str) -> None:
    """400 unless ``user_id`` is the requesting user (the proposer, for a consensus run)."""
    requester = ctx.caller.user.user_id
    if user_id != requester:
        raise InvalidArgument(messages.import_not_own_user(user_id, requester))


def _slot(ctx: Context, kind: str, user_id: str) -> tuple[str, str, str]:
    return (ctx.org.organization_id, user_id, kind)


def issue_target(ctx: Context, kind: str, user_id: str) -> str:
    """A new import target of ``kind`` for ``user_id``, kept in the vault; its signed bundle."""
    check_own_user(ctx, user_id)
    secret = bundles.new_p256_secret(ctx.world)
    ctx.tx.put(ctx.store.vault.import_targets, _slot(ctx, kind, user_id), secret)
    return bundles.target_bundle(ctx.world, secret, ctx.org.organization_id, user_id)


def open_import(ctx: Context, kind: str, user_id: str, encrypted_bundle: str) -> bytes:
    """The plaintext of a client's ``encryptedBundle``, sealed to ``user_id``'s target of
    ``kind``; the target is consumed (undone with the rest if the activity fails)."""
    check_own_user(ctx, user_id)
    slot = _slot(ctx, kind, user_id)
    secret = ctx.store.vault.import_targets.get(slot)
    if secret is None:
        raise InvalidArgument(messages.import_target_not_found(kind, user_id))
    try:
        plaintext = bundles.open_client_bundle(encrypted_bundle, secret)
    except bundles.BundleError:
        raise InvalidArgument(messages.IMPORT_BUNDLE_DOES_NOT_OPEN) from None
    ctx.tx.pop(ctx.store.vault.import_targets, slot)
    return plaintext


def mnemonic_of(plaintext: bytes) -> str:
    """The BIP39 English mnemonic an import bundle carries, its words single-spaced."""
    try:
        words = plaintext.decode("utf-8").split()
    except UnicodeDecodeError:
        raise InvalidArgument(messages.invalid_mnemonic("it is not UTF-8 text")) from None
    if len(words) not in hd.MNEMONIC_LENGTHS:
        raise InvalidArgument(messages.invalid_mnemonic(f"it has {len(words)} words"))
    mnemonic = " ".join(words)
    if not hd.is_valid_mnemonic(mnemonic):
        raise InvalidArgument(
            messages.invalid_mnemonic("a word is not in the word list or the checksum is wrong")
        )
    return mnemonic


def private_key_of(plaintext: bytes, curve: str) -> bytes:
    """The raw private key an import bundle carries: 32 bytes, a valid key on ``curve``
    (a scalar in [1, n) for secp256k1 and P-256; any 32-byte seed for ed25519)."""
    if len(plaintext) != PRIVATE_KEY_BYTES:
        raise InvalidArgument(
            messages.invalid_import_private_key(
                curve, f"expected {PRIVATE_KEY_BYTES} bytes, got {len(plaintext)}"
            )
        )
    order = ORDERS.get(curve)
    if order is not None and not 0 < int.from_bytes(plaintext, "big") < order:
        raise InvalidArgument(
            messages.invalid_import_private_key(curve, "the scalar is out of range")
        )
    return plaintext
