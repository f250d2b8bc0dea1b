"""``durability.py``'s first part: the state file per write.

``sign_raw_payload`` and ``create_users`` through ``emulator.http.app.handle`` with the
durable journal attached (``--sync normal`` and ``--sync full``) and without it, in turn, each
call rolled back so that the state keeps its size; the compaction measured apart and shared
out over the rows it folds in. See ``durability.py``'s docstring.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

from durability_rows import ETH, Reps, Row, count_records, med, populate

from emulator import Emulator
from emulator.crypto.stamps import sign_stamp
from emulator.http.app import handle
from emulator.state.journal import COMPACTION_RATIO, MIN_COMPACTION_BYTES, Journal
from emulator.state.persistence import StateFile


class Wire:
    """Pre-signed requests through ``handle`` for one emulator."""

    def __init__(self, emu: Emulator, tag: str) -> None:
        self.emu, self.tag, self.n = emu, tag, 0
        self.org = emu.organization()
        self.address = emu.create_wallet(wallet_name=f"{tag}-signer", accounts=[ETH])["addresses"][
            0
        ]

    def _call(self, path: str, activity_type: str, parameters: dict) -> Callable[[], None]:
        """The request, pre-signed; calling it sends it (the stamp is the client's work)."""
        raw = json.dumps(
            {
                "type": activity_type,
                "timestampMs": str(self.emu.world.clock.now_ms()),
                "organizationId": self.org.organization_id,
                "parameters": parameters,
            }
        ).encode()
        headers = {"x-stamp": sign_stamp(raw, self.org.api_key).header_value()}
        world = self.emu.world

        def send() -> None:
            status, body = handle(world, "POST", path, headers, raw)
            if status != 200:
                raise SystemExit(f"durability: {path} answered {status}: {body[:200]!r}")

        return send

    def sign(self) -> Callable[[], None]:
        self.n += 1
        return self._call(
            "/public/v1/submit/sign_raw_payload",
            "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
            {
                "signWith": self.address,
                "payload": hashlib.sha256(f"{self.tag}{self.n}".encode()).hexdigest(),
                "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
                "hashFunction": "HASH_FUNCTION_NO_OP",
            },
        )

    def create_user(self) -> Callable[[], None]:
        self.n += 1
        user = {
            "userName": f"{self.tag}-user-{self.n}",
            "userTags": [],
            "apiKeys": [],
            "authenticators": [],
            "oauthProviders": [],
        }
        return self._call(
            "/public/v1/submit/create_users", "ACTIVITY_TYPE_CREATE_USERS_V3", {"users": [user]}
        )


def rolled_in_turn(
    emu: Emulator, prepare: Callable[[], Callable[[], None]], journals: list, reps: int
) -> list[list[float]]:
    """Timings in µs of a request ``prepare()`` makes (untimed), with each of ``journals``
    attached (``None``: in memory), one after the other, each call rolled back (untimed)
    so that the state keeps its size; the journal is then told the state is as it wrote
    it (the rows stay in its file)."""
    world = emu.world
    samples: list[list[float]] = [[] for _ in journals]
    clock = time.perf_counter
    for i in range(max(10, reps // 10) + reps):
        for j, journal in enumerate(journals):
            call = prepare()
            checkpoint = emu.checkpoint()
            if journal is not None:
                journal.attach()
            start = clock()
            call()
            elapsed = clock() - start
            world.commit_hook = None
            emu.rollback(checkpoint)
            if i >= max(10, reps // 10):
                samples[j].append(elapsed * 1e6)
    return samples


class RowSizes:
    """The bytes of each journal row a state file writes."""

    def __init__(self, state: StateFile) -> None:
        self.sizes: list[int] = []
        append = state.append

        def counted(row: dict) -> int:
            self.sizes.append(len(json.dumps(row, separators=(",", ":"))))
            return append(row)

        state.append = counted  # type: ignore[method-assign]


def state_file_rows(reps: Reps, progress: Callable[[str], None]) -> tuple[list[Row], dict]:
    rows: list[Row] = []
    info: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="durability-") as directory:
        for size in reps.sizes:
            progress(f"durability: the state file per write at {size:,} records")
            emu = populate(size, seed=size)
            wire = Wire(emu, f"s{size}")
            journals = {}
            for sync in ("full", "normal"):
                path = os.path.join(directory, f"{size}-{sync}.sqlite")
                state = StateFile.create(path, emu.to_document(), sync=sync)
                journals[sync] = Journal(emu, state, compact_every=10**9)
            emu.world.commit_hook = None
            sizes = RowSizes(journals["normal"].state)
            records = count_records(emu)
            compact = []
            for _ in range(3):
                start = time.perf_counter()
                journals["normal"].compact()
                compact.append((time.perf_counter() - start) * 1e6)
            emu.world.commit_hook = None
            for label, call in (
                ("sign_raw_payload", wire.sign),
                ("create_users", wire.create_user),
            ):
                # Each sync mode in turn with memory alone: an fsync slows the call after it.
                sizes.sizes.clear()
                memory, normal = rolled_in_turn(emu, call, [None, journals["normal"]], reps.writes)
                row_bytes = statistics.mean(sizes.sizes)
                memory_f, full = rolled_in_turn(emu, call, [None, journals["full"]], reps.writes)
                base = journals["normal"].state.base_bytes
                # rows per compaction, as the journal decides it
                folded = max(COMPACTION_RATIO * base, MIN_COMPACTION_BYTES) / row_bytes
                amortized = med(compact) / folded
                floor, floor_f = med(memory), med(memory_f)
                name = f"{label} at {records:,} records"
                note = f"compaction {med(compact) / 1e3:.1f} ms per {folded:,.0f} rows"
                rows += [
                    Row(f"{name}, in memory (floor)", floor, "memory", floor),
                    Row(f"{name}, --state (--sync normal)", med(normal), "memory", floor, "≤ 1.5x"),
                    Row(
                        f"{name}, --state + amortized compaction",
                        med(normal) + amortized,
                        "memory",
                        floor,
                        "≤ 1.5x",
                        note=note,
                    ),
                    Row(f"{name}, --state --sync full", med(full), "memory", floor_f),
                ]
                info[f"{label}@{size}"] = {
                    "records": records,
                    "row_bytes": round(row_bytes),
                    "base_bytes": base,
                    "compaction_us": round(med(compact)),
                    "rows_per_compaction": round(folded),
                }
            emu.world.commit_hook = None
            for journal in journals.values():
                journal.state.close()
    return rows, info
