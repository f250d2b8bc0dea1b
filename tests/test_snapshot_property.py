"""A snapshot is a true snapshot (issue 28, item 3), by property.

Random operations through the facade, then ``snapshot()``, then more random operations
(records renamed in place, tags changed, keys deleted, enough signatures for the settled
activities to be compacted in place, a checkpoint rolled back), then ``restore()``: the
state document is the one taken at the snapshot. Restoring again from the same snapshot,
after more changes, gives the same document again; and a restored state changed after its
restore leaves the snapshot as it was.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from emulator import Emulator
from emulator.ground import compact
from emulator.ground.errors import TurnkeyApiError
from emulator.state import packing

# Each property runs with the snapshot's packing as it is (collections of 16 records or
# more packed: rarely reached by a dozen steps) and with every collection packed.
PACKING = pytest.mark.parametrize("min_packed", [packing.MIN_PACKED, 0], ids=["as-is", "packed"])

ETH = {
    "curve": "CURVE_SECP256K1",
    "pathFormat": "PATH_FORMAT_BIP32",
    "path": "m/44'/60'/0'/0/0",
    "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
}
OPS = (
    "create_key",
    "rename_tag",
    "tag_keys",
    "create_user",
    "rename_user",
    "create_wallet",
    "rename_wallet",
    "add_account",
    "delete_key",
    "sign",
    "sign_burst",
    "feature",
    "rolled_back",
)
steps = st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 1_000)), max_size=12)


class Driver:
    """Applies the drawn steps to one emulator, keeping the ids it made."""

    def __init__(self, emu: Emulator) -> None:
        self.emu = emu
        self.keys: list[str] = []
        self.tags: list[str] = []
        self.users: list[str] = [emu.organization().user_id]
        self.wallets: list[str] = []
        self.n = 0

    def run(self, drawn: list[tuple[str, int]]) -> None:
        for name, pick in drawn:
            self.n += 1
            # A refused request changes nothing; the property still holds.
            with contextlib.suppress(TurnkeyApiError):
                getattr(self, name)(pick)

    @staticmethod
    def _one(items: list[str], pick: int) -> str | None:
        return items[pick % len(items)] if items else None

    def create_key(self, pick: int) -> None:
        made = self.emu.create_private_keys(
            private_keys=[
                {
                    "privateKeyName": f"key {self.n}",
                    "curve": "CURVE_SECP256K1",
                    "privateKeyTags": [],
                    "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
                }
            ]
        )
        self.keys.append(made["privateKeys"][0]["privateKeyId"])
        if not self.tags:
            tag = self.emu.create_private_key_tag(
                private_key_tag_name=f"tag {self.n}", private_key_ids=[]
            )
            self.tags.append(tag["privateKeyTagId"])

    def rename_tag(self, pick: int) -> None:
        tag = self._one(self.tags, pick)
        if tag is not None:  # sets the tag record's name in place
            self.emu.update_private_key_tag(
                private_key_tag_id=tag,
                new_private_key_tag_name=f"renamed {self.n}",
                add_private_key_ids=[],
                remove_private_key_ids=[],
            )

    def tag_keys(self, pick: int) -> None:
        tag, key = self._one(self.tags, pick), self._one(self.keys, pick)
        if tag is not None and key is not None:  # the key's list of tags, replaced
            self.emu.update_private_key_tag(
                private_key_tag_id=tag, add_private_key_ids=[key], remove_private_key_ids=[]
            )

    def create_user(self, pick: int) -> None:
        made = self.emu.create_users(
            users=[
                {
                    "userName": f"user {self.n}",
                    "apiKeys": [],
                    "authenticators": [],
                    "oauthProviders": [],
                    "userTags": [],
                }
            ]
        )
        self.users.extend(made["userIds"])

    def rename_user(self, pick: int) -> None:
        user = self._one(self.users, pick)
        if user is not None:
            self.emu.update_user_name(user_id=user, user_name=f"name {self.n}")

    def create_wallet(self, pick: int) -> None:
        made = self.emu.create_wallet(wallet_name=f"wallet {self.n}", accounts=[ETH])
        self.wallets.append(made["walletId"])

    def rename_wallet(self, pick: int) -> None:
        wallet = self._one(self.wallets, pick)
        if wallet is not None:
            self.emu.update_wallet(wallet_id=wallet, wallet_name=f"wallet {self.n}")

    def add_account(self, pick: int) -> None:
        wallet = self._one(self.wallets, pick)
        if wallet is not None:
            path = f"m/44'/60'/0'/0/{1 + pick}"
            self.emu.create_wallet_accounts(wallet_id=wallet, accounts=[{**ETH, "path": path}])

    def delete_key(self, pick: int) -> None:
        key = self._one(self.keys, pick)
        if key is not None:
            self.emu.delete_private_keys(private_key_ids=[key], delete_without_export=True)
            self.keys.remove(key)

    def sign(self, pick: int) -> None:
        key = self._one(self.keys, pick)
        if key is not None:
            self.emu.sign_raw_payload(
                sign_with=key,
                payload=f"{pick:064x}",
                encoding="PAYLOAD_ENCODING_HEXADECIMAL",
                hash_function="HASH_FUNCTION_NO_OP",
            )

    def sign_burst(self, pick: int) -> None:
        # More activities than ``compact.YOUNG``: the settled ones before are compacted in
        # place (their intents and results dropped, their votes packed).
        for i in range(compact.YOUNG + 2):
            self.sign(pick + i)

    def feature(self, pick: int) -> None:
        self.emu.set_organization_feature(
            name="FEATURE_NAME_WEBHOOK", value=f"https://example.com/hook/{pick}"
        )

    def rolled_back(self, pick: int) -> None:
        mark = self.emu.checkpoint()
        self.create_key(pick)
        self.rename_user(pick)
        self.emu.rollback(mark)
        self.keys.pop()


def document(emu: Emulator) -> str:
    """The state document, but for the facade's last timestamp: a high-water mark that
    restores and rollbacks leave alone on purpose, so that no call after them repeats the
    body of an earlier one (tests/test_facade_timestamps.py)."""
    saved = emu.to_document()
    saved["facade"].pop("lastTimestampMs")
    return json.dumps(saved, sort_keys=True)


def records(emu: Emulator) -> str:
    """The document without the activities (whose bodies carry the facade's timestamps)."""
    saved = json.loads(document(emu))
    for org in saved["organizations"]:
        org.pop("activities")
    return json.dumps(saved, sort_keys=True)


def fresh(*, frozen: bool = False) -> Driver:
    emu = Emulator(seed=28)
    if frozen:  # the same steps then give the same timestamps, and so the same state
        emu.clock.freeze(1_700_000_000_000)
    emu.create_organization("Snapshots")
    return Driver(emu)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(before=steps, after=steps, later=steps)
@example(  # the snapshot's settled activities compacted in place after it, records renamed
    before=[("create_key", 0), ("sign", 1), ("create_wallet", 0), ("create_user", 0)],
    after=[("sign_burst", 2), ("rename_tag", 0), ("rename_wallet", 0), ("rename_user", 1)],
    later=[("tag_keys", 0), ("delete_key", 0), ("add_account", 3), ("rolled_back", 0)],
)
@PACKING
def test_restore_brings_back_the_state_at_the_snapshot(
    min_packed: int,
    before: list[tuple[str, Any]],
    after: list[tuple[str, Any]],
    later: list[tuple[str, Any]],
) -> None:
    with mock.patch.object(packing, "MIN_PACKED", min_packed):
        restore_brings_back_the_state_at_the_snapshot(before, after, later)


def restore_brings_back_the_state_at_the_snapshot(
    before: list[tuple[str, Any]], after: list[tuple[str, Any]], later: list[tuple[str, Any]]
) -> None:
    driver = fresh()
    emu = driver.emu
    driver.run(before)
    at_snapshot = document(emu)
    saved = emu.snapshot()

    driver.run(after)  # nothing done now may reach the snapshot
    emu.restore(saved)
    assert document(emu) == at_snapshot

    driver.run(later)  # the restored state, changed: the snapshot is still as it was
    emu.restore(saved)
    assert document(emu) == at_snapshot
    emu.restore(saved)  # twice in a row: the same state twice
    assert document(emu) == at_snapshot


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(before=steps, after=steps)
@PACKING
def test_a_restored_emulator_works_on(
    min_packed: int, before: list[tuple[str, Any]], after: list[tuple[str, Any]]
) -> None:
    """After a restore, the same further steps give the same records as they gave after
    the snapshot: restored records are as live as the ones they copy (ids and clock
    included)."""
    with mock.patch.object(packing, "MIN_PACKED", min_packed):
        a_restored_emulator_works_on(before, after)


def a_restored_emulator_works_on(
    before: list[tuple[str, Any]], after: list[tuple[str, Any]]
) -> None:
    driver = fresh(frozen=True)
    emu = driver.emu
    driver.run(before)
    saved = emu.snapshot()
    kept = (list(driver.keys), list(driver.tags), list(driver.users), list(driver.wallets))
    n = driver.n
    driver.run(after)
    first = records(emu)

    emu.restore(saved)
    driver.keys, driver.tags, driver.users, driver.wallets = (list(x) for x in kept)
    driver.n = n
    driver.run(after)
    assert records(emu) == first
