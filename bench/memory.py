"""Memory held per private key: secp256k1 keys with one Ethereum address each.

``create_private_keys`` through the facade, ``BATCH`` keys per call, in one
organization of a fresh emulator (``max_private_keys_per_organization``
raised). ``tracemalloc`` counts the Python heap the emulator still holds
afterwards (after ``gc.collect()``), started after a warm-up in a throwaway
emulator so that imports and module caches are not counted.

The split is by teardown: the activities of those calls are dropped first
(the three activity maps are rebuilt without them), then the vault's
secrets, then the ``signWith`` index, then the key records; each drop's
freed bytes are its share. An object two parts share (an id string, say)
counts for the part dropped last. What is left is "other" (state that
grew but is none of these).
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from typing import Any

from emulator import Emulator

BATCH = 100
FULL_KEYS = 10_000
QUICK_KEYS = 200
PER = 10_000  # the figure is stated per this many keys


def key_spec(batch: int, i: int) -> dict[str, Any]:
    return {
        "privateKeyName": f"key-{batch}-{i}",
        "curve": "CURVE_SECP256K1",
        "privateKeyTags": [],
        "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
    }


def create_keys(emu: Emulator, count: int) -> None:
    for batch in range(count // BATCH):
        emu.create_private_keys(private_keys=[key_spec(batch, i) for i in range(BATCH)])


def traced() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def run(quick: bool, progress: Callable[[str], None]) -> dict[str, Any]:
    count = QUICK_KEYS if quick else FULL_KEYS
    progress(f"memory of {count:,} private keys (tracemalloc)")

    warm = Emulator()
    warm.create_organization("Warm-up")
    create_keys(warm, 2 * BATCH)
    del warm

    emu = Emulator()
    emu.settings.max_private_keys_per_organization = 2 * count
    org = emu.create_organization("Acme")
    store = emu.world.store
    o = store.organizations[org.organization_id]
    old_activities = set(o.activities)

    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        base = traced()
        create_keys(emu, count)
        total = traced() - base
        if len(o.private_keys) != count:
            raise SystemExit(f"memory: made {len(o.private_keys)} private keys, not {count}")
        calls = len(o.activities) - len(old_activities)

        shares: dict[str, int] = {}
        mark = traced()

        def dropped(part: str) -> None:
            nonlocal mark
            now = traced()
            shares[part] = mark - now
            mark = now

        new_ids = set(o.activities) - old_activities
        fingerprints = {o.activities[i].fingerprint for i in new_ids}
        o.activities = {k: v for k, v in o.activities.items() if k not in new_ids}
        store.activities_by_id = {
            k: v for k, v in store.activities_by_id.items() if k not in new_ids
        }
        store.activities_by_fingerprint = {
            k: v for k, v in store.activities_by_fingerprint.items() if k not in fingerprints
        }
        del new_ids, fingerprints
        dropped("activities")
        store.vault.private_keys = {}
        dropped("vault")
        o.signers = {}
        dropped("signWith index")
        o.private_keys = {}
        dropped("key records")
        shares["other"] = total - sum(shares.values())
    finally:
        if not was_tracing:
            tracemalloc.stop()

    return {
        "keys": count,
        "batch": BATCH,
        "calls": calls,
        "total_bytes": total,
        "bytes_per_key": round(total / count, 1),
        f"mb_per_{PER}_keys": round(total / count * PER / 1e6, 2),
        "split_bytes_per_key": {part: round(b / count, 1) for part, b in shares.items()},
    }


def print_memory(memory: dict[str, Any]) -> None:
    split = ", ".join(f"{part} {b:,.0f}" for part, b in memory["split_bytes_per_key"].items())
    print(
        f"memory: {memory['keys']:,} secp256k1 private keys (1 ETH address each) via "
        f"create_private_keys, {memory['batch']} per call ({memory['calls']} activities): "
        f"{memory['bytes_per_key']:,.0f} B/key = {memory[f'mb_per_{PER}_keys']:.1f} MB per "
        f"{PER:,} keys (tracemalloc)"
    )
    print(f"  per key by part: {split}")
