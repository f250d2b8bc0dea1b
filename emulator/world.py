"""One emulated world: the state, its clock, its id source and its settings."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from .clock import Clock
from .crypto.addresses import AddressOptions
from .ids import IdSource
from .store import Store

DEFAULT_TIMESTAMP_WINDOW_S = 600.0


@dataclass
class Settings:
    """Knobs of the emulator (the real service's values by default)."""

    # How far ``timestampMs`` of an activity may be from the emulator's clock,
    # either way, in seconds; ``None`` turns the liveness check off.
    timestamp_window_s: float | None = DEFAULT_TIMESTAMP_WINDOW_S
    max_users_per_organization: int = 100
    max_api_keys_per_user: int = 10
    max_authenticators_per_user: int = 10
    max_tags_per_organization: int = 100
    max_wallets_per_organization: int = 100
    max_private_keys_per_organization: int = 1000
    # The conventions behind *_P2SH, *_P2WSH and TON addresses (not public; see AddressOptions).
    address_options: AddressOptions = field(default_factory=AddressOptions)


@dataclass
class World:
    clock: Clock = field(default_factory=Clock)
    ids: IdSource = field(default_factory=IdSource)
    settings: Settings = field(default_factory=Settings)
    store: Store = field(default_factory=Store)
    lock: threading.RLock = field(default_factory=threading.RLock)
