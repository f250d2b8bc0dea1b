"""The model ``TurnkeyStateMachine`` checks the emulator against: what each user, wallet
account, private key and tag should be, and the paths no curve accepts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from . import strategies as ts

Json = dict[str, Any]

SIGN_RAW_PAYLOAD_V1 = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD"
SIGN_RAW_PAYLOAD_V2 = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
CREATE_USERS_TYPES = ("ACTIVITY_TYPE_CREATE_USERS_V3", "ACTIVITY_TYPE_CREATE_USERS_V4")


# --- the model ---------------------------------------------------------------------------


class Account(NamedTuple):
    """A wallet account the machine created (kept in the ``accounts`` bundle)."""

    address: str
    curve: str
    wallet_id: str
    address_format: str
    path: str
    public_key: str
    wallet_account_id: str


class PrivateKeyRef(NamedTuple):
    """A private key the machine created (kept in the ``private_keys`` bundle)."""

    private_key_id: str
    curve: str


@dataclass
class UserModel:
    name: str
    email: str | None = None
    phone_number: str | None = None
    api_keys: set[str] = field(default_factory=set)  # public keys


@dataclass
class KeyModel:
    name: str
    curve: str
    public_key: str
    addresses: dict[str, str]  # address format -> address
    tags: set[str] = field(default_factory=set)


@dataclass
class Model:
    """What the organization should hold; the invariants compare it with the list queries."""

    users: dict[str, UserModel] = field(default_factory=dict)
    wallets: dict[str, str] = field(default_factory=dict)  # wallet id -> name
    accounts: dict[str, list[Account]] = field(default_factory=dict)  # wallet id -> accounts
    private_keys: dict[str, KeyModel] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)  # private key tag id -> name

    def api_public_keys(self) -> set[str]:
        return {k for user in self.users.values() for k in user.api_keys}

    def live_account(self, address: str) -> Account | None:
        """The account that signs for ``address`` (the oldest holder), if any."""
        for accounts in self.accounts.values():
            for account in accounts:
                if account.address == address:
                    return account
        return None


def _account_key(spec_or_account: Any) -> tuple[str, str, str]:
    if isinstance(spec_or_account, Account):
        a = spec_or_account
        return (a.curve, a.path, a.address_format)
    return ts.account_key(spec_or_account)


_BAD_PATHS = {
    # any curve: not a path
    "no m": "44'/60'/0'/0/0",
    "empty step": "m//0",
    "not a number": "m/44'/x/0",
    "too large": "m/2147483648",
    "too large hardened": "m/2147483648'",
    "negative": "m/-1",
}
