"""Activities beyond the in-memory bound, kept in the state file and read back when asked for.

With ``serve --state``, a long run would otherwise keep every activity it ever made in
memory. Once more than ``Settings.activities_in_memory`` activities are in memory, the
oldest leave it, a tenth of the bound at a time, for the ``activity_archive`` table of
the state file (``state/persistence.py``), one row each: the record as the state
document encodes it (``state/records.py``), with its organization, id, fingerprint,
status and type beside it. ``seq`` numbers the rows in the order they left, which is
the order the activities were made in (they leave oldest first).

An activity that still awaits something (consensus, authenticators: any status but
COMPLETED, FAILED and REJECTED) gets its row, which holds its place in the order, but
stays in memory, *pinned*, the live record: votes change it there and the journal writes
it as before. Once settled it leaves memory at the next pass (its row rewritten).

Reading (``find``, ``by_fingerprint``, ``listing``): memory first, then the archive;
a listing is the archive's rows (pinned ones as their live record) followed by the
activities in memory that were never archived, the same order as an unbounded world's.
Rows of an organization that is gone are not read (its activities left the indexes
with it), but kept: a snapshot restored may bring it back.

Snapshots (``state/snapshot.py``) remember the last row (``mark``); restoring one, or
``reset`` (back to no rows), drops the rows after it in the same SQLite transaction as
the compaction that writes the restored state (``Journal.rewind``). Nothing leaves
memory while a checkpoint is open (``World.checkpoint``): its rollback undoes changes
in memory only.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from itertools import islice
from typing import TYPE_CHECKING, Any

from ..ground import jsontext
from ..ground.models import Activity, Organization, User
from .records import CURRENT, Context, record

if TYPE_CHECKING:
    from ..engine_state.store import Store
    from ..engine_state.world import World
    from .persistence import StateFile

Json = dict[str, Any]
SETTLED = frozenset(
    {"ACTIVITY_STATUS_COMPLETED", "ACTIVITY_STATUS_FAILED", "ACTIVITY_STATUS_REJECTED"}
)
TABLE = "activity_archive"
# At most this many leave memory in one pass: a pass holds the world's lock while it encodes
# and writes them, a pause for the requests waiting (about 30 us each).
MAX_PASS = 256
_SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (seq INTEGER PRIMARY KEY,"
    " organization_id TEXT NOT NULL, activity_id TEXT NOT NULL UNIQUE,"
    " fingerprint TEXT NOT NULL, status TEXT NOT NULL, type TEXT NOT NULL,"
    " voters TEXT NOT NULL, record TEXT NOT NULL)",
    f"CREATE INDEX IF NOT EXISTS {TABLE}_org ON {TABLE} (organization_id, seq)",
    f"CREATE INDEX IF NOT EXISTS {TABLE}_fingerprint ON {TABLE} (fingerprint)",
)
_ACTIVITY = record(Activity)
_USER = record(User)


class Archived:
    """An activity of a listing that is not in memory: what filters read, and its loader."""

    __slots__ = ("activity_id", "activity_type", "archive", "organization_id", "status")

    def __init__(self, archive: ActivityArchive, org_id: str, activity_id: str, status: str,
                 activity_type: str) -> None:  # fmt: skip
        self.archive, self.organization_id, self.activity_id = archive, org_id, activity_id
        self.status, self.activity_type = status, activity_type


class ActivityArchive:
    """The ``activity_archive`` table of one state file, and what memory knows of it."""

    def __init__(self, state: StateFile) -> None:
        self.state = state
        self.key = os.path.realpath(state.path)  # what snapshots name it by
        with state.using() as db:
            for statement in _SCHEMA:
                db.execute(statement)
            (last,) = db.execute(f"SELECT COALESCE(MAX(seq), 0) FROM {TABLE}").fetchone()
        self.last = last  # the last row's seq
        self.counts: dict[str, int] = {}  # organization id -> its rows
        self.pinned: dict[str, str] = {}  # activity id -> organization id: rows kept in memory
        self.evicted = 0
        # Set by the journal: drop the rows after a mark, with the compaction that writes the
        # state they belong to (``Journal.rewind``).
        self.rewinder: Callable[[int], None] | None = None
        self._recount()

    # ----- bookkeeping ---------------------------------------------------------------

    def _recount(self) -> None:
        with self.state.using() as db:
            rows = db.execute(f"SELECT organization_id, COUNT(*) FROM {TABLE} GROUP BY 1")
            self.counts = dict(rows.fetchall())

    def adopt(self, store: Store) -> None:
        """After loading: activities in memory that have a row are pinned (a crash between
        writing rows and letting go of the records leaves some); the next pass settles them."""
        ids = list(store.activities_by_id)
        self.pinned = {}
        with self.state.using() as db:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ",".join("?" * len(chunk))
                query = f"SELECT activity_id, organization_id FROM {TABLE} WHERE activity_id IN ({marks})"
                self.pinned.update(db.execute(query, chunk).fetchall())

    def mark(self) -> tuple[int, dict[str, str]]:
        return self.last, dict(self.pinned)

    def rewind(self, mark: tuple[int, dict[str, str]] | None) -> None:
        """Back to ``mark`` (``None``: no rows), the store being already the one it goes
        with; the rows after it go with the compaction that writes that store."""
        last, pinned = mark if mark is not None else (0, {})
        if self.rewinder is not None:
            self.rewinder(last)  # compacts, and deletes the rows in the same transaction
        else:
            self.drop_after(None, last)
        self.last, self.pinned = last, dict(pinned)
        self._recount()

    def drop_after(self, db: sqlite3.Connection | None, last: int) -> None:
        if db is None:
            with self.state.using() as own:
                own.execute(f"DELETE FROM {TABLE} WHERE seq > ?", (last,))
        else:
            db.execute(f"DELETE FROM {TABLE} WHERE seq > ?", (last,))

    # ----- letting go of activities ----------------------------------------------------

    def after_commit(self, world: World, touched: list) -> None:
        """The journal's step after each commit: votes of users who left keep their last
        record, and the activities beyond the bound leave memory."""
        try:
            self._freeze_voters(world.store, touched)
            if world.journal is None:  # a checkpoint's rollback works in memory only
                self.evict(world.store, world.settings.activities_in_memory)
        except Exception as exc:  # the records stay in memory: nothing is lost
            print(f"state file: archiving activities failed ({exc})", file=sys.stderr)

    def evict(self, store: Store, bound: int | None) -> int:
        """Let the oldest activities go once more than ``bound`` are in memory (pinned ones
        aside), a tenth of it at a time (at most ``MAX_PASS``); the number that left."""
        index = store.activities_by_id
        pinned = self.pinned
        if bound is None or len(index) - len(pinned) <= bound:
            return 0
        target = bound - min(bound // 10, MAX_PASS)
        settled = [a for i in pinned if (a := index.get(i)) is not None and a.status in SETTLED]
        fresh = islice(
            (a for i, a in index.items() if i not in pinned), len(index) - len(pinned) - target
        )
        victims = [*settled, *fresh]
        rows, last = [], self.last
        for activity in victims:
            seq = None  # a pinned one keeps its row's place
            if activity.activity_id not in pinned:
                last += 1
                seq = last
            rows.append(self._row(seq, activity, store.organizations[activity.organization_id]))
        with self.state.using() as db:
            db.execute("BEGIN")
            try:
                db.executemany(
                    f"INSERT INTO {TABLE} (seq, organization_id, activity_id, fingerprint,"
                    " status, type, voters, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (activity_id) DO UPDATE SET status = excluded.status,"
                    " voters = excluded.voters, record = excluded.record",
                    rows,
                )
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        self.last, left = last, 0
        for activity in victims:
            activity_id, org_id = activity.activity_id, activity.organization_id
            if activity_id not in pinned:
                self.counts[org_id] = self.counts.get(org_id, 0) + 1
            if activity.status not in SETTLED:
                pinned[activity_id] = org_id
                continue
            pinned.pop(activity_id, None)
            store.organizations[org_id].activities.pop(activity_id, None)
            del index[activity_id]
            if store.activities_by_fingerprint.get(activity.fingerprint) is activity:
                del store.activities_by_fingerprint[activity.fingerprint]
            left += 1
        self.evicted += left
        return left

    @staticmethod
    def _row(seq: int | None, activity: Activity, org: Organization) -> tuple:
        encoded = _ACTIVITY.encode(activity, Context(org))
        voters = " ".join(v["userId"] for v in encoded["votes"] if v["voter"] == "current")
        return (
            seq,
            activity.organization_id,
            activity.activity_id,
            activity.fingerprint,
            activity.status,
            activity.activity_type,
            f" {voters} " if voters else "",
            jsontext.dumps(encoded),
        )

    def _freeze_voters(self, store: Store, touched: list) -> None:
        """A user removed from an organization: the archived votes that named them as a
        current member keep their last record instead (as ``Vote.voter`` does in memory)."""
        for target, key, value in touched:
            if type(value) is not User or not self.counts:
                continue
            org = next((o for o in store.organizations.values() if o.users is target), None)
            if org is None or key in org.users:
                continue
            user = _USER.encode(value, None)
            with self.state.using() as db:
                rows = db.execute(
                    f"SELECT seq, record FROM {TABLE} WHERE organization_id = ? AND voters LIKE ?",
                    (org.organization_id, f"% {key} %"),
                ).fetchall()
                for seq, text in rows:
                    encoded = jsontext.loads(text)
                    for vote in encoded["votes"]:
                        if vote["userId"] == key and vote["voter"] == "current":
                            vote["voter"] = user
                    voters = " ".join(
                        v["userId"] for v in encoded["votes"] if v["voter"] == "current"
                    )
                    db.execute(
                        f"UPDATE {TABLE} SET record = ?, voters = ? WHERE seq = ?",
                        (jsontext.dumps(encoded), f" {voters} " if voters else "", seq),
                    )

    # ----- reading back ----------------------------------------------------------------

    def load(self, store: Store, org_id: str, activity_id: str) -> Activity | None:
        with self.state.using() as db:
            row = db.execute(
                f"SELECT record FROM {TABLE} WHERE activity_id = ? AND organization_id = ?",
                (activity_id, org_id),
            ).fetchone()
        return None if row is None else self._decoded(store, org_id, row[0])

    def by_id(self, store: Store, activity_id: str) -> Activity | None:
        with self.state.using() as db:
            row = db.execute(
                f"SELECT organization_id, record FROM {TABLE} WHERE activity_id = ?",
                (activity_id,),
            ).fetchone()
        if row is None or row[0] not in store.organizations or activity_id in self.pinned:
            return None
        return self._decoded(store, row[0], row[1])

    def by_fingerprint(self, store: Store, fingerprint: str) -> Activity | None:
        if not self.counts:
            return None
        with self.state.using() as db:
            rows = db.execute(
                f"SELECT organization_id, activity_id, record FROM {TABLE}"
                " WHERE fingerprint = ? ORDER BY seq DESC",
                (fingerprint,),
            ).fetchall()
        for org_id, activity_id, text in rows:
            if org_id in store.organizations and activity_id not in self.pinned:
                return self._decoded(store, org_id, text)
        return None

    def _decoded(self, store: Store, org_id: str, text: str) -> Activity:
        activity: Activity = _ACTIVITY.decode(jsontext.loads(text), "archived activity")
        org = store.organizations.get(org_id)
        for vote in activity.votes:
            if vote.voter is CURRENT:
                vote.voter = org.users.get(vote.user_id) if org is not None else None
        return activity

    def rows(self, org_id: str | None) -> Iterator[tuple[str, str, str, str]]:
        """``(organization id, activity id, status, type)`` of the rows, oldest first."""
        with self.state.using() as db:
            if org_id is None:
                found = db.execute(
                    f"SELECT organization_id, activity_id, status, type FROM {TABLE} ORDER BY seq"
                ).fetchall()
            else:
                found = db.execute(
                    f"SELECT organization_id, activity_id, status, type FROM {TABLE}"
                    " WHERE organization_id = ? ORDER BY seq",
                    (org_id,),
                ).fetchall()
        return iter(found)

    def records(self, org_id: str) -> list[Json]:
        """The encoded records of an organization's rows, oldest first (``to_document``)."""
        with self.state.using() as db:
            found = db.execute(
                f"SELECT activity_id, record FROM {TABLE} WHERE organization_id = ? ORDER BY seq",
                (org_id,),
            ).fetchall()
        return [(activity_id, jsontext.loads(text)) for activity_id, text in found]

    def merge_into(self, document: Json) -> None:
        """Put the archived activities back into a document of the state in memory."""
        if not self.counts:
            return
        for org in document["organizations"]:
            resident = {a["activityId"]: a for a in org.get("activities") or ()}
            merged = [
                resident.get(i, encoded) for i, encoded in self.records(org["organizationId"])
            ]
            merged.extend(a for i, a in resident.items() if i not in self.pinned)
            org["activities"] = merged

    def count(self, org_ids: Any) -> int:
        """Rows of these organizations that are not in memory."""
        total = sum(self.counts.get(o, 0) for o in org_ids)
        return total - sum(1 for o in self.pinned.values() if o in org_ids)
