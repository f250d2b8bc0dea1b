"""What a handler is given: the world, the target organization, the caller."""

from __future__ import annotations

from dataclasses import dataclass

from ..engine_state.store import Store
from ..engine_state.world import Settings, World
from ..ground.models import Organization
from ..ground.transaction import Transaction
from .auth import Caller


@dataclass
class Context:
    world: World
    org: Organization
    caller: Caller
    now_ns: int
    tx: Transaction
    raw: bytes = b""  # the exact request body (a vote records it as its message)

    @property
    def store(self) -> Store:
        return self.world.store

    @property
    def settings(self) -> Settings:
        return self.world.settings

    def new_id(self) -> str:
        """A fresh UUIDv4 for a new resource."""
        return self.world.ids.uuid4()
