"""Snapshots: an independent copy of a world's state, restorable any number of times.

A snapshot is the store pickled (records, indexes, vault) with the id and clock
states, its bulk collections (private keys, wallets, the signers index, the
vault's key bytes) packed into one string each by the snapshot's own pickler
(``packing.py``): linear in the records, where a deep copy walks every object in
Python. Wallet secrets are not pickled but shared: a
``WalletSecret`` never changes once made (its keychain is a cache of a pure
function of the mnemonic), so a restored wallet signs at once, without deriving
its seed again. The pickle is the emulator's own, made and read in this process
only; it is never written anywhere. For the per-test isolation of the pytest
plugin, ``World.checkpoint``/``rollback`` is cheaper: it undoes only what
changed since.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any

from ..engine_state.store import Store
from ..engine_state.vault import WalletSecret
from ..engine_state.world import World
from ..ground.gc_tuning import paused, settled
from . import packing


@dataclass(frozen=True)
class Snapshot:
    pickled: bytes  # the store, its wallet secrets left out
    wallet_secrets: dict[str, WalletSecret]
    organizations: int
    ids: object
    clock: object
    facade: dict
    # The state file whose archive holds the activities that left memory
    # (``state/archive.py``), and the archive's mark then, if any.
    archive: str | None = None
    archived: Any = None

    @property
    def store(self) -> Store:
        """A fresh copy of the saved store."""
        with settled():  # the records are state: not scanned young (gc_tuning.py)
            store: Store = packing.loads(self.pickled)
        store.vault.wallets = dict(self.wallet_secrets)
        return store

    def __repr__(self) -> str:
        return f"Snapshot(organizations={self.organizations})"


def take(world: World, facade: dict) -> Snapshot:
    with world.lock:
        store = world.store
        bare = dataclasses.replace(store, vault=dataclasses.replace(store.vault, wallets={}))
        with paused():
            pickled = packing.dumps(bare)
        return Snapshot(
            pickled,
            dict(store.vault.wallets),
            len(store.organizations),
            world.ids.getstate(),
            world.clock.getstate(),
            copy.deepcopy(facade),
            world.archive.key if world.archive is not None else None,
            world.archive.mark() if world.archive is not None else None,
        )


def put_back(world: World, snapshot: Snapshot) -> dict:
    """Make ``snapshot`` the world's state (a fresh copy, so it can be restored again)."""
    if (
        snapshot.archive is not None
        and snapshot.archived[0] > 0
        and (world.archive is None or snapshot.archive != world.archive.key)
    ):
        raise ValueError(
            "this snapshot's older activities are in another emulator's state file:"
            " restore it into the emulator it was taken from"
        )
    store = snapshot.store
    with world.lock:
        world.store = store
        world.ids.setstate(snapshot.ids)
        world.clock.setstate(snapshot.clock)
        world.journal = None  # earlier checkpoints point into the replaced store
        return copy.deepcopy(snapshot.facade)


def rewind_archive(world: World, snapshot: Snapshot) -> None:
    """The archive as it was with the snapshot (none of it, for a snapshot taken without),
    written with the restored state (``Journal.rewind``)."""
    if world.archive is not None:
        same = snapshot.archive == world.archive.key
        world.archive.rewind(snapshot.archived if same else None)
