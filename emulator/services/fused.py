"""The fused path of the facade's signing activities: the simple case in one body.

A facade call of an activity the operation table marks as fused (``ops/fused_table.py``:
``sign_raw_payload``, ``sign_raw_payloads``, ``sign_transaction``, their current versions)
would go ``dispatch._dispatch`` → ``_submit`` → ``authorize`` → ``consensus.execute`` →
the handler → ``record_activity`` → ``add_activity`` → ``activity_updates.note`` →
``render.activity`` → ``young.note`` → ``calls.record``: about 290 Python calls, each a
general step for every activity and every case. ``submit`` does what they do, in one
straight body, **only when every precondition of the simple case holds**, each checked
up front without changing anything:

* the world: no rate limits, no fault armed, no durable journal (``serve --state``: its
  commit hook and archive), the organization exists;
* the caller: an API key's stamp (not a passkey's), of a user of the target organization
  itself (not of its parent), not a session key with a profile scope, no IP allowlist
  applies;
* the request: ``timestampMs`` inside the liveness window, parameters that pass the
  version's schema, no ``generateAppProofs``;
* the policy engine's verdict is ALLOW with no policy evaluated: the caller alone is the
  root quorum (``policy_engine.judge``'s first rule); no MFA policy in the organization, no
  velocity control, no webhook endpoint that hears the organization;
* the handler (read-only: it signs, it writes nothing) answers without an error, in a
  transaction that refuses any change (``_ReadOnly``).

Anything else answers ``None`` and the facade takes the plain path, which then does
everything, errors included, exactly as before. What the fused body makes is the plain
path's, step for step: the same ids drawn in the same order, the same records and
indexes, the same undo steps' effect in the journal (one step for the activity's three
index entries and the ids, replayed in the plain path's reverse order), the same commit
count, the same compaction (``world.young``), the same call log row, the same response.
``tests/test_fused.py`` runs random sequences through two seeded emulators, one with the
fused path off, and compares everything.
"""

from __future__ import annotations

import marshal
import time
from functools import partial
from sys import intern
from typing import Any

from ..crypto.stamps import ApiKeyStamp
from ..engine_state.world import World
from ..events.activity_updates import subscribed
from ..ground.clock import NANOS_PER_MILLI, NANOS_PER_SECOND
from ..ground.compact import VERIFY, compacts_as, settled_record, verify_settled
from ..ground.models import Organization
from ..ground.render import user
from ..ground.schema import Enum, Object, String, check
from ..ground.transaction import Transaction
from ..recorders.calls import Deferred
from .activities import APPROVED, COMPLETED
from .auth import Caller, authenticate
from .context import Context
from .fused_answer import answer
from .ip_allowlists import applicable

Json = dict[str, Any]
_ABSENT = object()


def submit(
    world: World,
    op: Any,
    version: Any,
    org_id: str,
    stamp: object,
    body: Json,
    raw: bytes,
    fingerprint: str,
    callers: dict[Any, Any],
) -> Json | None:
    """The response ``dispatch`` would give for this new activity (the facade made ``raw``
    and its ``fingerprint``, unseen, under the world's lock, which it still holds), or
    ``None`` where the simple case does not hold: then nothing has changed. ``callers`` is
    the facade's cache of authenticated callers (``_authenticated``)."""
    # One reading of the clock: the call's time, the liveness check's and the activity's
    # (the plain path reads it three times, microseconds apart).
    now_ns = world.clock.now_ns()
    started_wall_ns = time.perf_counter_ns()
    if (
        world.settings.rate_limits is not None
        or world.commit_hook is not None
        or world.archive is not None
        or len(world.faults)
        or type(stamp) is not ApiKeyStamp
        or body.get("generateAppProofs") is True
    ):
        return None
    store = world.store
    org = store.organizations.get(org_id)
    if org is None:
        return None
    caller = _authenticated(world, org, stamp, raw, callers)
    if caller is None:
        return None
    proposer = caller.user
    quorum = org.root_quorum
    if (
        caller.api_key.session_profile_id is not None  # type: ignore[union-attr]
        or (1 if proposer.user_id in quorum.user_ids else 0) < quorum.threshold
        or org.mfa_policies
        or org.velocity_controls
        or (org.parent_id is None and org.ip_allowlists and applicable(org, caller) is not None)
        or ((org.webhook_endpoints or org.parent_id is not None) and subscribed(store, org))
    ):
        return None
    timestamp_ms = body["timestampMs"]
    # ASCII digits, and not many (else ``check_timestamp``'s ``integer`` decides, plainly).
    if not (timestamp_ms.isascii() and timestamp_ms.isdigit()) or len(timestamp_ms) > 16:
        return None
    window = world.settings.timestamp_window_s
    if window is not None:
        drift_ms = int(timestamp_ms) - now_ns // NANOS_PER_MILLI
        if (
            drift_ms <= -window * 1000
            or drift_ms > min(window, world.settings.timestamp_future_s) * 1000
        ):
            return None
    params = _checked(version.params, body["parameters"])
    if params is None:
        return None
    canonical = version.upgrade(params) if version.upgrade else params
    try:
        result = op.handler(Context(world, org, caller, now_ns, _READ_ONLY, raw), canonical)
    except (Exception, _Writes):  # a refusal, a write: the plain path answers it
        return None
    if version.downgrade_result is not None:
        result = version.downgrade_result(result)
    result = {version.result_key: result}

    seed_intent = version.seed_intent(params) if version.seed_intent else None
    try:
        marshalled = marshal.dumps(result)
    except ValueError:  # a value marshal cannot hold: ``compact`` keeps it as it is
        return None
    if not compacts_as(version.activity_type, version):  # ``note`` would not compact it
        return None

    # record_activity's ids: the activity's, then its vote's. The record is made as
    # ``compact`` leaves it (settled: it never changes); ``young.note`` keeps its place.
    ids = world.ids
    ids_before = ids.getstate()
    activity_id = ids.uuid7(now_ns // NANOS_PER_MILLI)
    vote_id = ids.uuid4()
    public_key, scheme = intern(stamp.public_key), intern(stamp.scheme)
    activity = settled_record(
        activity_id,
        org_id,
        version.activity_type,
        COMPLETED,
        fingerprint,
        now_ns,
        raw,
        marshalled,
        seed_intent is not None,
        (vote_id, proposer.user_id, APPROVED, public_key, stamp.signature, scheme, proposer),
    )
    if VERIFY:
        verify_settled(activity, {version.intent_key: params}, seed_intent, timestamp_ms, result)
    # add_activity, with the journal's undo of the transaction it would have run in.
    by_id, by_fingerprint, own = (
        store.activities_by_id,
        store.activities_by_fingerprint,
        org.activities,
    )
    journal = world.journal
    if journal is not None:
        journal.append(
            partial(
                _undo,
                ids,
                ids_before,
                (
                    (by_fingerprint, fingerprint, by_fingerprint.get(fingerprint, _ABSENT)),
                    (by_id, activity_id, by_id.get(activity_id, _ABSENT)),
                    (own, activity_id, own.get(activity_id, _ABSENT)),
                ),
            )
        )
    own[activity_id] = activity
    by_id[activity_id] = activity
    by_fingerprint[fingerprint] = activity
    world.commits += 1

    # render.activity, for this activity as it stands: completed, one vote, the caller's;
    # the timestamps as render.timestamp writes them (not kept in its cache: this time is
    # rendered once). The call log keeps the parts and makes the answer when first read.
    whole, part = divmod(now_ns, NANOS_PER_SECOND)
    parts = (
        activity_id,
        org_id,
        version.activity_type,
        version.intent_key,
        params,
        seed_intent,
        result,
        vote_id,
        proposer.user_id,
        user(proposer, org),
        raw,
        public_key,
        stamp.signature,
        scheme,
        str(whole),
        str(part),
        fingerprint,
        timestamp_ms,
    )
    response = answer(*parts)
    world.young.note(activity, version)
    world.calls.record_answered(
        now_ns,
        op.name,
        version.activity_type,
        org_id,
        proposer.user_id,
        stamp.public_key,
        activity_id,
        COMPLETED,
        Deferred(answer, parts),
        body,
        time.perf_counter_ns() - started_wall_ns,
    )
    return response


def _authenticated(
    world: World, org: Organization, stamp: ApiKeyStamp, raw: bytes, callers: dict[Any, Any]
) -> Caller | None:
    """``authenticate``'s caller when it is a user of ``org`` itself by an API key, else
    ``None`` (a refusal, a key of the parent organization: the plain path's cases).

    Kept per stamp with what it was found from: the store's tuple of the key's owners (a
    change to any owner of the key replaces it, and an undo puts the old tuple back with the
    old state), the organization, its user and the user's key, all by identity; any of them
    changed, it is found again. The key's curve and expiry are checked on every call (the
    clock moves)."""
    found = callers.get(stamp)
    if found is not None:
        owners, cached_org, caller = found
        user, key = caller.user, caller.api_key
        if (
            cached_org is org
            and world.store.key_owners(stamp.public_key) is owners
            and org.users.get(user.user_id) is user
            and user.api_keys.get(key.api_key_id) is key
        ):
            if key.curve != stamp.curve:
                return None
            expires_at = key.expires_at_ns()
            if expires_at is not None and world.clock.now_ns() >= expires_at:
                return None
            return caller  # type: ignore[no-any-return]
    try:
        caller = authenticate(world, org, stamp, raw, is_activity=True, check_signature=False)
    except Exception:  # the plain path answers the same error
        return None
    if caller.organization is not org or caller.api_key is None:
        return None
    if len(callers) >= _CALLERS_KEPT:
        callers.clear()
    callers[stamp] = (world.store.key_owners(stamp.public_key), org, caller)
    return caller


# Spec -> the plan of its flat check (``_checked``), or None: not flat.
_PLANS: dict[
    int, tuple[Object, tuple[tuple[str, bool, bool, frozenset[str] | None], ...] | None]
] = {}
_CALLERS_KEPT = 256


def _checked(spec: Object, value: Json) -> Json | None:
    """``schema.check(spec, value)``'s cleaned value, or ``None`` where it finds a violation.

    A flat object of plain strings and enums (the signing versions) is checked in one loop
    over a plan made once: the same rules in the same order (a missing or empty required
    field, a value that is not a string, an enum value not listed), and the same output
    (its fields in the spec's order, unknown keys dropped). Any other spec goes to
    ``check``."""
    known = _PLANS.get(id(spec))
    if known is None or known[0] is not spec:
        known = _PLANS[id(spec)] = (spec, _plan(spec))
    plan = known[1]
    if plan is None:
        cleaned, errors = check(spec, value)
        return None if errors else cleaned  # type: ignore[return-value]
    out = {}
    for name, required, empty_allowed, allowed in plan:
        raw = value.get(name)
        if raw is None:
            if required:
                return None
            continue
        if type(raw) is not str or (raw == "" and not empty_allowed):
            return None
        if allowed is not None and raw not in allowed:
            return None
        out[name] = raw
    return out


def _plan(spec: Object) -> tuple[tuple[str, bool, bool, frozenset[str] | None], ...] | None:
    """Per field: its name, whether required, whether ``""`` passes, the enum's values."""
    plan = []
    for name, fld in spec.fields.items():
        inner = fld.spec
        if type(inner) is Enum:
            plan.append((name, fld.required, False, frozenset(inner.values)))
        elif type(inner) is String and inner.fmt is None and inner.max_length is None:
            # "" passes a string that allows it, or an optional one (check skips the
            # required-empty rule for it and ``String.check`` takes "").
            plan.append((name, fld.required, inner.allow_empty or not fld.required, None))
        else:
            return None
    return tuple(plan)


class _Writes(BaseException):
    """A handler of the fused path tried to change something (``_ReadOnly``). Not an
    ``Exception``: no handler's ``except`` takes it for its own error."""


class _ReadOnly(Transaction):
    """The transaction a fused handler runs in: read-only handlers never use it, and any
    change through it is refused before it is made (the plain path then runs the handler
    in a real one). One for every world: it holds nothing."""

    __slots__ = ()

    def put(self, mapping: Any, key: Any, value: Any) -> None:
        raise _Writes

    def pop(self, mapping: Any, key: Any) -> Any:
        raise _Writes

    def set(self, obj: object, attribute: str, value: Any) -> None:
        raise _Writes

    def on_rollback(self, undo: Any) -> None:
        raise _Writes

    def on_commit(self, hook: Any) -> None:
        raise _Writes


_READ_ONLY = _ReadOnly()


def _undo(ids: Any, ids_before: Any, entries: tuple[tuple[Any, Any, Any], ...]) -> None:
    """The plain path's undo steps of the activity's transaction, in its order: the index
    entries last put first, then the ids."""
    for mapping, key, previous in entries:
        if previous is _ABSENT:
            mapping.pop(key, None)
        else:
            mapping[key] = previous
    ids.setstate(ids_before)
