"""What ``durability.py``'s parts share: their repetitions, a row of the table, and a world of
about N records (``populate``; ``snapshots.py`` builds its worlds with it too)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.engine_state.world import Settings

ETH = account_spec("ADDRESS_FORMAT_ETHEREUM")


@dataclass(frozen=True)
class Reps:
    writes: int
    creates: int
    snapshots: int
    signatures: int
    sizes: tuple[int, ...]
    large: int


FULL = Reps(
    writes=300, creates=150, snapshots=7, signatures=2000, sizes=(100, 1000, 10000), large=10000
)
QUICK = Reps(writes=60, creates=40, snapshots=3, signatures=400, sizes=(100, 1000), large=1000)


@dataclass
class Row:
    name: str
    median_us: float
    floor_name: str
    floor_us: float
    goal: str = ""
    met: bool | None = None
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.median_us / self.floor_us


def med(samples: list[float]) -> float:
    return statistics.median(samples)


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def roomy() -> Settings:
    return Settings(
        max_users_per_organization=10**6,
        max_wallets_per_organization=10**6,
        max_private_keys_per_organization=10**6,
    )


def populate(records: int, seed: int) -> Emulator:
    """One organization of about ``records`` records: keys (100 a call) and activities."""
    emu = Emulator(seed=seed, settings=roomy())
    emu.create_organization("Acme")
    keys = max(0, records - records // 100 - 3)
    made = 0
    while made < keys:
        batch = min(100, keys - made)
        emu.create_private_keys(
            private_keys=[
                {
                    "privateKeyName": f"k{made + i}",
                    "curve": "CURVE_SECP256K1",
                    "privateKeyTags": [],
                    "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
                }
                for i in range(batch)
            ]
        )
        made += batch
    return emu


def count_records(emu: Emulator) -> int:
    total = 0
    for org in emu.world.store.organizations.values():
        total += len(org.users) + len(org.wallets) + len(org.private_keys) + len(org.activities)
        total += sum(len(w.accounts) for w in org.wallets.values())
    return total
