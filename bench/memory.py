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
import json
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


# ----- per signature activity --------------------------------------------------------

SIGN_WARM = 11_000  # past the call log's 10,000 entries: its share is then constant
SIGN_FULL, SIGN_QUICK = 20_000, 1_000
SIGN_GOAL = 1024  # bytes retained per signature activity


def run_signatures(quick: bool, progress: Callable[[str], None]) -> dict[str, Any]:
    """Bytes the emulator keeps per ``sign_raw_payload`` activity, in memory only (no state
    file): through the wire entry point (``emulator.http.app.handle``, a real P-256 stamp
    per request, what ``serve`` holds) and through the facade.

    tracemalloc runs from before a warm-up of ``SIGN_WARM`` signatures (so that what the
    warm-up frees later counts as freed: the call log's oldest entries and bodies), then,
    the timestamp text cache emptied (a cache, bounded), counts the heap grown over the next ``count`` signatures
    (dict growth of the activity indexes included, amortized), after ``gc.collect()``.
    ``--quick`` warms up with 1,100 signatures and a call log of 1,000 entries."""
    from emulator.ground import render
    from emulator.recorders.calls import CallLog

    count = SIGN_QUICK if quick else SIGN_FULL
    warm = 1_100 if quick else SIGN_WARM
    out: dict[str, Any] = {"count": count, "warm_up": warm, "goal_bytes": SIGN_GOAL}
    for path in ("wire", "facade"):
        progress(f"memory of {count:,} sign_raw_payload activities ({path}, tracemalloc)")
        was_tracing = tracemalloc.is_tracing()
        if not was_tracing:
            tracemalloc.start()
        try:
            emu = Emulator()
            if quick:
                emu.world.calls = CallLog(max_entries=1_000, max_bodies=100)
            sign = _signer(emu, path)
            for i in range(warm):
                sign(i)
            render.forget_timestamps()
            before = tracemalloc.take_snapshot()
            base = traced()
            for i in range(warm, warm + count):
                sign(i)
            render.forget_timestamps()
            grown = traced() - base
            after = tracemalloc.take_snapshot()
            top = [_line(s, count) for s in after.compare_to(before, "lineno")[:8]]
            del before, after
        finally:
            if not was_tracing:
                tracemalloc.stop()
        out[path] = {"bytes_per_activity": round(grown / count, 1), "top_lines": top}
    return out


def _signer(emu: Emulator, path: str) -> Callable[[int], None]:
    """One new signature per call (payload ``i``), by the root user, through ``path``."""
    from emulator.accounts import account_spec
    from emulator.crypto.stamps import sign_stamp
    from emulator.http.app import handle

    org = emu.create_organization("Acme")
    wallet = emu.create_wallet(wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")])
    address = wallet["addresses"][0]

    def sign(i: int) -> None:
        params = {
            "signWith": address,
            "payload": f"{i:064x}",
            "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
            "hashFunction": "HASH_FUNCTION_NO_OP",
        }
        if path == "facade":
            emu.sign_raw_payload(**{_snake(k): v for k, v in params.items()})
            return
        raw = json.dumps(
            {
                "type": "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
                "timestampMs": str(emu.clock.now_ms()),
                "organizationId": org.organization_id,
                "parameters": params,
            }
        ).encode()
        headers = {"x-stamp": sign_stamp(raw, org.api_key).header_value()}
        status, _ = handle(emu.world, "POST", "/public/v1/submit/sign_raw_payload", headers, raw)
        assert status == 200

    return sign


def _line(stat: Any, count: int) -> tuple[str, float]:
    frame = stat.traceback[0]
    return f"{frame.filename.split('/emulator/')[-1]}:{frame.lineno}", round(
        stat.size_diff / count, 1
    )


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def print_signatures(figures: dict[str, Any]) -> None:
    for path in ("wire", "facade"):
        row = figures[path]
        ratio = row["bytes_per_activity"] / figures["goal_bytes"]
        print(
            f"memory: sign_raw_payload via the {path}: {row['bytes_per_activity']:,.0f} B per"
            f" activity retained = {ratio:.2f}x the {figures['goal_bytes']:,} B goal"
            f" (tracemalloc over {figures['count']:,} after {figures['warm_up']:,})"
        )
        print("  by line: " + ", ".join(f"{where} {b:,.0f}" for where, b in row["top_lines"]))


if __name__ == "__main__":
    import sys

    quick_run = "--quick" in sys.argv
    print_memory(run(quick_run, lambda line: print(line, file=sys.stderr)))
    print_signatures(run_signatures(quick_run, lambda line: print(line, file=sys.stderr)))
