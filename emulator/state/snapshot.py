"""Snapshots: an independent copy of a world's state, restorable any number of times.

A snapshot deep-copies the store (records, indexes, vault) and keeps the id
and clock states. Wallet keychains are caches of a pure function of the
mnemonic, so copies share them. For the per-test isolation of the pytest
plugin, ``World.checkpoint``/``rollback`` is cheaper: it undoes only what
changed since.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from ..store import Store
from ..world import World


@dataclass(frozen=True)
class Snapshot:
    store: Store
    ids: object
    clock: object
    facade: dict

    def __repr__(self) -> str:
        return f"Snapshot(organizations={len(self.store.organizations)})"


def take(world: World, facade: dict) -> Snapshot:
    with world.lock:
        return Snapshot(
            copy.deepcopy(world.store),
            world.ids.getstate(),
            world.clock.getstate(),
            copy.deepcopy(facade),
        )


def put_back(world: World, snapshot: Snapshot) -> dict:
    """Make ``snapshot`` the world's state (a fresh copy, so it can be restored again)."""
    with world.lock:
        world.store = copy.deepcopy(snapshot.store)
        world.ids.setstate(snapshot.ids)
        world.clock.setstate(snapshot.clock)
        world.journal = None  # earlier checkpoints point into the replaced store
        return copy.deepcopy(snapshot.facade)
