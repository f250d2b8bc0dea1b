"""What ``toolkit.py``'s parts share: their repetitions, the goal of a fixture, the baseline a
test starts from, and the worlds of records the snapshot rows copy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from measuring import Goal

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.crypto.api_keys import P256, generate_key_pair

FIXTURE_GOAL = Goal(1000, "us")
EMPTY = "empty test"  # the floors' short names in the table
DEEPCOPY = "deepcopy N"
BASELINE_USERS = 10
BASELINE_WALLETS = 10
PYTEST_TESTS = 500  # a full run's tests per session


@dataclass(frozen=True)
class Reps:
    fixture: int  # per-test cycles on the shared emulator
    rebuild: int  # fresh emulators with the baseline
    pytest_rounds: int  # pairs of sessions (empty, turnkey_org), then one more empty
    floor: int  # deepcopy floor, per half
    state: int  # snapshot, restore, to_document, from_document each
    pytest_tests: int = 500  # tests in each pytest session
    big: bool = True  # the state of about 10,000 records (else about 1,000)


FULL = Reps(fixture=5000, rebuild=200, pytest_rounds=2, floor=20, state=20)
QUICK = Reps(fixture=100, rebuild=5, pytest_rounds=1, floor=2, state=2, pytest_tests=20, big=False)


@dataclass(frozen=True)
class StateSize:
    users: int  # each with one P-256 API key, made 10 per create_users
    wallets: int
    accounts: int  # Ethereum accounts per wallet
    private_keys: int  # secp256k1 with an Ethereum address, made 100 per call


BIG = StateSize(users=100, wallets=50, accounts=150, private_keys=2_200)
MEDIUM = StateSize(users=20, wallets=5, accounts=150, private_keys=200)


def user(name: str, api_keys: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "userName": name,
        "apiKeys": api_keys or [],
        "authenticators": [],
        "oauthProviders": [],
        "userTags": [],
    }


def build_baseline(emu: Emulator, tag: str) -> None:
    """The baseline of the fixture rows: 10 users, 10 wallets of one Ethereum account."""
    emu.create_users(users=[user(f"{tag}-user-{i}") for i in range(BASELINE_USERS)])
    for i in range(BASELINE_WALLETS):
        emu.create_wallet(
            wallet_name=f"{tag}-wallet-{i}", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
        )


def count_records(emu: Emulator) -> dict[str, int]:
    orgs = emu.world.store.organizations.values()
    counts = {
        "organizations": len(orgs),
        "users": sum(len(o.users) for o in orgs),
        "api_keys": sum(len(u.api_keys) for o in orgs for u in o.users.values()),
        "wallets": sum(len(o.wallets) for o in orgs),
        "wallet_accounts": sum(len(w.accounts) for o in orgs for w in o.wallets.values()),
        "private_keys": sum(len(o.private_keys) for o in orgs),
        "activities": sum(len(o.activities) for o in orgs),
    }
    counts["total"] = sum(counts.values())
    return counts


def populate(size: StateSize, tag: str) -> Emulator:
    """A fresh emulator of one organization holding ``size`` (limits raised)."""
    emu = Emulator()
    s = emu.settings
    s.max_users_per_organization = s.max_wallets_per_organization = 10**9
    s.max_private_keys_per_organization = 10**9
    emu.create_organization("Acme")
    for batch in range(0, size.users, 10):
        emu.create_users(
            users=[
                user(
                    f"{tag}-user-{i}",
                    [
                        {
                            "apiKeyName": "k",
                            "publicKey": generate_key_pair(P256).public_key,
                            "curveType": P256,
                        }
                    ],
                )
                for i in range(batch, min(batch + 10, size.users))
            ]
        )
    for w in range(size.wallets):
        emu.create_wallet(
            wallet_name=f"{tag}-wallet-{w}",
            accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM", i) for i in range(size.accounts)],
        )
    for batch in range(0, size.private_keys, 100):
        emu.create_private_keys(
            private_keys=[
                {
                    "privateKeyName": f"{tag}-key-{i}",
                    "curve": "CURVE_SECP256K1",
                    "privateKeyTags": [],
                    "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
                }
                for i in range(batch, min(batch + 100, size.private_keys))
            ]
        )
    counts = count_records(emu)
    expected = size.users + size.wallets * (1 + size.accounts) + size.private_keys
    if (
        counts["users"] + counts["wallets"] + counts["wallet_accounts"] + counts["private_keys"]
        != expected + 1
    ):  # + the root user
        raise SystemExit(f"toolkit: populating made {counts}, not {size}")
    return emu
