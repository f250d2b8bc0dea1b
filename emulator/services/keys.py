"""Keys of wallets and private keys: generation, derivation, addresses, signers.

The one place where key material is made and read. Errors come out as the
real service's answers (``invalid path``, ``invalid address format``, ``Could
not find any resource to sign with.``); secrets never appear in them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from ..crypto import hd
from ..crypto.addresses import (
    InvalidPublicKey,
    UnsupportedAddressFormat,
    curves_for,
    encode_address,
)
from ..crypto.curves import ORDERS
from ..engine_state.vault import WalletSecret
from ..ground import messages
from ..ground.errors import InvalidArgument, NotFound
from ..ground.models import Address, SignerRef, Wallet, WalletAccount
from .context import Context

ENTROPY_BYTES = {12: 16, 15: 20, 18: 24, 21: 28, 24: 32}


@dataclass(frozen=True, slots=True)
class Signer:
    """A key that a ``signWith`` value names, ready to sign."""

    curve: str
    private_key: bytes
    public_key: bytes
    ref: SignerRef
    address_format: str | None = None  # the format of the address that named it, if any

    @property
    def is_taproot(self) -> bool:
        """Named by a P2TR address: Turnkey then signs Schnorr with the BIP86 tweak."""
        return self.address_format is not None and self.address_format.endswith("_P2TR")

    @property
    def is_spark(self) -> bool:
        """Named by a Spark address: Turnkey then signs plain (untweaked) BIP340 Schnorr."""
        return self.address_format is not None and self.address_format.startswith(
            "ADDRESS_FORMAT_SPARK_"
        )


# --- making keys ----------------------------------------------------------------------


def new_mnemonic(ctx: Context, words: int) -> str:
    if words not in ENTROPY_BYTES:
        raise InvalidArgument(messages.invalid_mnemonic_length(words))
    return hd.mnemonic_from_entropy(ctx.world.ids.secret_bytes(ENTROPY_BYTES[words]))


def new_private_key(ctx: Context, curve: str) -> bytes:
    """A fresh private key on ``curve`` (a valid scalar, or an ed25519 seed)."""
    order = ORDERS.get(curve)
    while True:
        key = ctx.world.ids.secret_bytes(32)
        if order is None or 0 < int.from_bytes(key, "big") < order:
            return key


def public_key_hex(curve: str, private_key: bytes) -> str:
    return hd.public_key(curve, private_key).hex()


# --- addresses ------------------------------------------------------------------------


def check_format(address_format: str, curve: str) -> None:
    """400 ``invalid address format`` unless ``address_format`` is made from ``curve`` keys."""
    try:
        fits = curve in curves_for(address_format)
    except UnsupportedAddressFormat:
        fits = False
    if not fits:
        raise InvalidArgument(
            messages.invalid_address_format(address_format, curve),
            turnkey_error_code="REQUEST_INVALID",
        )


def address(ctx: Context, address_format: str, curve: str, public_key: bytes) -> str:
    try:
        return encode_address(address_format, curve, public_key, ctx.settings.address_options)
    except (UnsupportedAddressFormat, InvalidPublicKey):
        raise InvalidArgument(
            messages.invalid_address_format(address_format, curve),
            turnkey_error_code="REQUEST_INVALID",
        ) from None


def addresses(ctx: Context, formats: list[str], curve: str, public_key: bytes) -> list[Address]:
    return [Address(f, address(ctx, f, curve, public_key)) for f in dict.fromkeys(formats)]


# --- wallet accounts ------------------------------------------------------------------


@lru_cache(maxsize=4096)
def parse_path(path: str) -> tuple[int, ...]:
    try:
        return hd.parse_path(path)
    except hd.InvalidPath as exc:
        raise InvalidArgument(
            messages.invalid_path(path, str(exc)), turnkey_error_code="REQUEST_INVALID"
        ) from None


def derive(secret: WalletSecret, curve: str, path: str) -> hd.Node:
    """The node of ``secret``'s wallet at ``path`` on ``curve`` (400 for a path it cannot take)."""
    indices = parse_path(path)
    try:
        return secret.keychain.derive(curve, indices)
    except hd.InvalidPath as exc:
        raise InvalidArgument(
            messages.invalid_path(path, str(exc)), turnkey_error_code="REQUEST_INVALID"
        ) from None


def derive_account(
    ctx: Context, wallet: Wallet, secret: WalletSecret, spec: dict, taken: set[tuple]
) -> WalletAccount:
    """A new account of ``wallet`` from one ``v1WalletAccountParams``; not yet stored.

    ``taken`` holds the ``(curve, path, addressFormat)`` of the wallet's
    accounts; a repeat is the real "invalid path" (a path reused in one wallet).
    """
    curve, path, address_format = spec["curve"], spec["path"], spec["addressFormat"]
    check_format(address_format, curve)
    node = derive(secret, curve, path)
    key = (curve, canonical_path(path), address_format)
    if key in taken:
        raise InvalidArgument(
            messages.invalid_path(path, "this path and address format are already in the wallet"),
            turnkey_error_code="REQUEST_INVALID",
        )
    taken.add(key)
    return WalletAccount(
        wallet_account_id=ctx.new_id(),
        organization_id=ctx.org.organization_id,
        wallet_id=wallet.wallet_id,
        curve=curve,
        path_format=spec["pathFormat"],
        path=path,
        address_format=address_format,
        address=address(ctx, address_format, curve, node.public_key),
        public_key=node.public_key.hex(),
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
        name=spec.get("name"),
    )


def canonical_path(path: str) -> str:
    """``path`` with ``'`` for hardened steps (``m/44h/0`` and ``m/44'/0`` are one path)."""
    return hd.format_path(parse_path(path))


def account_keys(wallet: Wallet) -> set[tuple]:
    return {(a.curve, canonical_path(a.path), a.address_format) for a in wallet.accounts.values()}


# --- signers --------------------------------------------------------------------------


def index_signer(ctx: Context, value: str, ref: SignerRef) -> None:
    """Make ``value`` (an address or a private key id) name ``ref`` too.

    One address may belong to several holders (testnet and signet P2WPKH at
    one path, two wallets of one mnemonic); the oldest signs, and the next
    one takes over when it is deleted.
    """
    holders = ctx.org.signers.get(value, ())
    ctx.tx.put(ctx.org.signers, value, (*holders, ref))


def unindex_signers(ctx: Context, doomed: Callable[[SignerRef], bool]) -> None:
    for value, holders in list(ctx.org.signers.items()):
        remaining = tuple(ref for ref in holders if not doomed(ref))
        if len(remaining) == len(holders):
            continue
        if remaining:
            ctx.tx.put(ctx.org.signers, value, remaining)
        else:
            ctx.tx.pop(ctx.org.signers, value)


def resolve_signer(ctx: Context, sign_with: str) -> Signer:
    """The key ``sign_with`` names: a wallet account address, a private key address or id.

    Addresses match exactly, as the real service's do (a lower-cased EVM
    address does not find its checksummed account).
    """
    holders = ctx.org.signers.get(sign_with)
    ref = holders[0] if holders else None
    vault = ctx.store.vault
    if ref is not None and ref.private_key_id is not None:
        key = ctx.org.private_keys[ref.private_key_id]
        private_key = vault.private_keys[key.private_key_id]
        named_by = next((a.address_format for a in key.addresses if a.address == sign_with), None)
        return Signer(key.curve, private_key, bytes.fromhex(key.public_key), ref, named_by)
    if ref is not None and ref.wallet_account_id is not None:
        account = ctx.org.wallets[ref.wallet_id].accounts[ref.wallet_account_id]
        node = derive(vault.wallets[ref.wallet_id], account.curve, account.path)
        return Signer(account.curve, node.private_key, node.public_key, ref, account.address_format)
    raise NotFound(messages.NO_SIGNING_RESOURCE)
