"""Finding activities wherever they are: in memory, or archived in the state file.

Without ``serve --state`` every activity is in memory and these are the plain look-ups.
With it, the activities beyond ``Settings.activities_in_memory`` are in the state file's
archive (``state/archive.py``) and are read back here, so every reader (get_activity,
list_activities, votes, resubmitted bodies, the dashboard) answers as if they were not.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..engine_state.world import World
from ..ground.models import Activity, Organization


def find(world: World, org: Organization, activity_id: str) -> Activity | None:
    """The organization's activity with that id, or ``None``."""
    found = org.activities.get(activity_id)
    archive = world.archive
    if found is None and archive is not None and archive.counts:
        found = archive.load(world.store, org.organization_id, activity_id)
    return found


def by_id(world: World, activity_id: str) -> Activity | None:
    """The activity with that id, of whichever organization still there."""
    found = world.store.activities_by_id.get(activity_id)
    archive = world.archive
    if found is None and archive is not None and archive.counts:
        found = archive.by_id(world.store, activity_id)
    return found


def by_fingerprint(world: World, fingerprint: str) -> Activity | None:
    """The activity of the body with that fingerprint (of an organization still there)."""
    found = world.store.activities_by_fingerprint.get(fingerprint)
    archive = world.archive
    if found is None and archive is not None:
        found = archive.by_fingerprint(world.store, fingerprint)
    return found


def known(world: World, fingerprint: str) -> bool:
    return by_fingerprint(world, fingerprint) is not None


def newest_first(world: World, org: Organization | None) -> list[Any]:
    """The activities of ``org`` (``None``: of every organization), newest first: each an
    ``Activity`` if in memory, else an ``Archived`` entry (``activity_id``, ``status``,
    ``activity_type``, ``organization_id``) for ``loaded``."""
    source = world.store.activities_by_id if org is None else org.activities
    archive = world.archive
    if archive is None or not archive.counts:
        return list(reversed(source.values()))
    from ..state.archive import Archived

    pinned = archive.pinned
    organizations = world.store.organizations
    merged: list[Any] = []
    for org_id, activity_id, status, activity_type in archive.rows(
        None if org is None else org.organization_id
    ):
        if org is None and org_id not in organizations:
            continue  # its organization is gone, and its activities with it
        if activity_id in pinned:
            live = source.get(activity_id)
            if live is not None:
                merged.append(live)
            continue
        merged.append(Archived(archive, org_id, activity_id, status, activity_type))
    merged.extend(a for i, a in source.items() if i not in pinned)
    merged.reverse()
    return merged


def loaded(world: World, item: Any) -> Activity:
    """The record of an entry of ``newest_first``."""
    if type(item) is Activity:
        return item
    found = item.archive.load(world.store, item.organization_id, item.activity_id)
    if found is None:
        raise LookupError(f"activity {item.activity_id} left the archive")
    return found


def count(world: World, orgs: Iterable[Organization] | Organization) -> int:
    """How many activities these organizations have, in memory and archived."""
    group = [orgs] if isinstance(orgs, Organization) else list(orgs)
    held = sum(len(o.activities) for o in group)
    archive = world.archive
    if archive is None or not archive.counts:
        return held
    return held + archive.count({o.organization_id for o in group})
