"""Test-only seams into an emulator's key material. NOT part of Turnkey's API.

``emu.backdoor`` puts a wallet of a known mnemonic or a private key of a known
value straight into an organization (for fixtures and published vectors), reads
a secret back (to check a signature against an independent library), and marks
a user's e-mail or phone number verified (``verify_contact``: the shortcut past
the OTP flows, ``otp_auth`` and ``otp_login``, that do it through the API;
``list_verified_suborgs`` reads it).
The real service can do none of this: no request reaches these methods, no
activity records them, and nothing they return travels on the wire.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..crypto import hd
from ..ground.codec import to_wire
from ..ground.errors import ValidationFailed
from ..ground.models import Organization
from ..ground.schema import Array, check
from ..ops.private_keys import new_private_key
from ..ops.wallets import WALLET_ACCOUNT_PARAMS, new_wallet
from ..services import keys
from ..services.context import Context

if TYPE_CHECKING:
    from ..crypto.api_keys import ApiKeyPair
    from ..engine_state.world import World

Json = dict[str, Any]


class Emulator(Protocol):
    """What the backdoor needs of its emulator (``Emulator`` is one: ``emu.backdoor``); named
    here so that the facade's modules do not import one another in a circle."""

    @property
    def world(self) -> World: ...
    def _default_organization_id(self) -> str: ...
    def _stamp_of(self, key: Any) -> Any: ...


class Backdoor:
    """Seams for tests: known keys in, secrets out. Never reachable over the wire."""

    def __init__(self, emulator: Emulator) -> None:
        self._emulator = emulator

    def __repr__(self) -> str:
        return "<Backdoor: test-only seams, not part of the API>"

    # ----- known keys in -------------------------------------------------------------

    def import_wallet(
        self,
        mnemonic: str,
        *,
        name: str = "Imported Wallet",
        accounts: Sequence[Json] = (),
        organization_id: str | None = None,
        imported: bool = True,
    ) -> Json:
        """Store a wallet of ``mnemonic`` with ``accounts``; answer ``{walletId, addresses}``.

        ``accounts`` are ``v1WalletAccountParams`` (snake_case or camelCase), for
        example ``emulator.accounts.account_spec("ADDRESS_FORMAT_ETHEREUM")``.
        """
        words = " ".join(mnemonic.split())
        if not hd.is_valid_mnemonic(words):
            raise ValueError("not a valid BIP39 English mnemonic")
        specs = _checked_accounts(accounts)
        with self._transaction(organization_id) as ctx:
            wallet, addresses = new_wallet(ctx, name, words, specs, imported=imported)
        return {"walletId": wallet.wallet_id, "addresses": addresses}

    def import_private_key(
        self,
        private_key: str,
        *,
        curve: str = hd.SECP256K1,
        name: str = "Imported Private Key",
        address_formats: Sequence[str] = (),
        tags: Sequence[str] = (),
        organization_id: str | None = None,
        imported: bool = True,
    ) -> Json:
        """Store a private key of ``private_key`` (32-byte hex); answer ``{privateKeyId, addresses}``."""
        secret = _key_bytes(private_key, curve)
        spec = {
            "privateKeyName": name,
            "curve": curve,
            "privateKeyTags": list(tags),
            "addressFormats": list(address_formats),
        }
        with self._transaction(organization_id) as ctx:
            key = new_private_key(ctx, spec, "privateKey", secret, imported=imported)
        addresses = [{"format": a.address_format, "address": a.address} for a in key.addresses]
        return {"privateKeyId": key.private_key_id, "addresses": addresses}

    # ----- facts the API cannot set yet ----------------------------------------------

    def hold_key(self, key: ApiKeyPair) -> None:
        """Keep ``key`` (its private half too) among the keys the emulator holds
        (``emu.held_keys()``): the dashboard can then approve or reject activities as its
        user, stamped with it. Using it as ``caller=`` does the same."""
        if not key.private_key:
            raise ValueError("hold_key needs the private key of the pair")
        self._emulator._stamp_of(key)  # the facade's cache of the keys it signs as

    def set_client_ip(self, address: str | None) -> None:
        """The source address IP allowlists judge in-process calls by (the facade, and
        requests through ``emu.intercept()``); ``None``: unknown, which the allowlist's
        ``onEvaluationError`` decides. Requests over a socket use their real peer address."""
        self._emulator.world.client_ip = address

    def verify_contact(
        self,
        user_id: str,
        *,
        email: bool = True,
        phone_number: bool = False,
        organization_id: str | None = None,
    ) -> None:
        """Mark a user's e-mail address (and/or phone number) verified, as an OTP or a
        verification token would: ``list_verified_suborgs`` then finds the user's
        sub-organization. ``organization_id`` defaults to the one holding the user. The
        change is state (a checkpoint rollback undoes it); no activity records it."""
        org = self._organization_of_user(user_id, organization_id)
        user = org.users[user_id]
        if email and user.email is None:
            raise ValueError(f"user {user_id} has no e-mail address to verify")
        if phone_number and user.phone_number is None:
            raise ValueError(f"user {user_id} has no phone number to verify")
        with _Transaction(self._emulator, org) as ctx:
            if email:
                ctx.tx.set(user, "email_verified", True)
            if phone_number:
                ctx.tx.set(user, "phone_number_verified", True)

    # ----- secrets out ---------------------------------------------------------------

    def mnemonic(self, wallet_id: str, *, organization_id: str | None = None) -> str:
        """The mnemonic of a wallet."""
        org = self._organization(organization_id)
        if wallet_id not in org.wallets:
            raise KeyError(f"no wallet {wallet_id} in organization {org.organization_id}")
        return self._emulator.world.store.vault.wallets[wallet_id].mnemonic

    def private_key(self, sign_with: str, *, organization_id: str | None = None) -> str:
        """The private key (hex) behind a ``signWith`` value: an address or a private key id."""
        with self._transaction(organization_id) as ctx:
            return keys.resolve_signer(ctx, sign_with).private_key.hex()

    # ----- plumbing ------------------------------------------------------------------

    def _organization(self, organization_id: str | None) -> Organization:
        world = self._emulator.world
        org_id = organization_id or self._emulator._default_organization_id()
        return world.store.organizations[org_id]

    def _organization_of_user(self, user_id: str, organization_id: str | None) -> Organization:
        if organization_id is not None:
            org = self._organization(organization_id)
            if user_id not in org.users:
                raise KeyError(f"no user {user_id} in organization {org.organization_id}")
            return org
        for org in self._emulator.world.store.organizations.values():
            if user_id in org.users:
                return org
        raise KeyError(f"no user {user_id} in any organization")

    def _transaction(self, organization_id: str | None) -> _Transaction:
        return _Transaction(self._emulator, self._organization(organization_id))


class _Transaction:
    """A handler context outside any request: all or nothing, under the world's lock."""

    def __init__(self, emulator: Emulator, org: Organization) -> None:
        self._world = emulator.world
        self._org = org
        self._tx = self._world.transaction()

    def __enter__(self) -> Context:
        self._world.lock.acquire()
        ids, state = self._world.ids, self._world.ids.getstate()
        self._tx.on_rollback(lambda: ids.setstate(state))
        now_ns = self._world.clock.now_ns()
        return Context(self._world, self._org, None, now_ns, self._tx)  # type: ignore[arg-type]

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                self._tx.commit()
            else:
                self._tx.rollback()
        finally:
            self._world.lock.release()


def _checked_accounts(accounts: Sequence[Json]) -> list[Json]:
    cleaned, errors = check(Array(WALLET_ACCOUNT_PARAMS), [to_wire(a) for a in accounts])
    if errors:
        raise ValidationFailed(errors)
    return cleaned  # type: ignore[return-value]


def _key_bytes(private_key: str, curve: str) -> bytes:
    text = private_key.removeprefix("0x")
    try:
        secret = bytes.fromhex(text)
    except ValueError:
        raise ValueError("private_key must be hex") from None
    if len(secret) != 32:
        raise ValueError("private_key must be 32 bytes")
    try:
        hd.public_key(curve, secret)
    except Exception:
        raise ValueError(f"not a valid {curve} private key") from None
    return secret
