"""Snapshots: an independent copy of a world's state, restorable any number of times.

A snapshot is the store pickled (records, indexes, vault) with the id and clock
states: one pass of C code each way, linear in the records, where a deep copy
walks every object in Python. Wallet secrets are not pickled but shared: a
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
import pickle
from dataclasses import dataclass

from ..engine_state.store import Store
from ..engine_state.vault import WalletSecret
from ..engine_state.world import World
from ..ground.gc_tuning import paused, settled


@dataclass(frozen=True)
class Snapshot:
    pickled: bytes  # the store, its wallet secrets left out
    wallet_secrets: dict[str, WalletSecret]
    organizations: int
    ids: object
    clock: object
    facade: dict

    @property
    def store(self) -> Store:
        """A fresh copy of the saved store."""
        with settled():  # the records are state: not scanned young (gc_tuning.py)
            store: Store = pickle.loads(self.pickled)
        store.vault.wallets = dict(self.wallet_secrets)
        return store

    def __repr__(self) -> str:
        return f"Snapshot(organizations={self.organizations})"


def take(world: World, facade: dict) -> Snapshot:
    with world.lock:
        store = world.store
        bare = dataclasses.replace(store, vault=dataclasses.replace(store.vault, wallets={}))
        with paused():
            pickled = pickle.dumps(bare, protocol=pickle.HIGHEST_PROTOCOL)
        return Snapshot(
            pickled,
            dict(store.vault.wallets),
            len(store.organizations),
            world.ids.getstate(),
            world.clock.getstate(),
            copy.deepcopy(facade),
        )


def put_back(world: World, snapshot: Snapshot) -> dict:
    """Make ``snapshot`` the world's state (a fresh copy, so it can be restored again)."""
    store = snapshot.store
    with world.lock:
        world.store = store
        world.ids.setstate(snapshot.ids)
        world.clock.setstate(snapshot.clock)
        world.journal = None  # earlier checkpoints point into the replaced store
        return copy.deepcopy(snapshot.facade)
