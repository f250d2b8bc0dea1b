"""Compact records of settled activities: what a long run keeps per activity.

A new activity holds its intent (with the seed document's intent beside it, for some
versions) and result as dicts, as the handler made them: fast to render in the answer to
its own request. Once it is settled (COMPLETED, FAILED or REJECTED) and a few newer ones
were recorded (``YOUNG``), it is compacted in place:

* ``intent`` and ``seed_intent`` become ``DERIVED``: both are functions of the body the
  proposer sent, which its vote keeps as ``message``; they are derived again (parsed,
  checked against the version's schema, and mapped to the seed intent, as at submission)
  when asked for, instead of kept twice as dicts;
* ``result`` becomes bytes (``marshal``: the fastest exact encoding of plain values in the
  standard library, about a fifth of a JSON encoding's cost; made and read in this process
  only, never written anywhere), loaded when asked for;
* an activity of one vote (its proposer's) keeps that vote as a ``PackedVote``
  (``packed.py``): the vote's message, signature and id and the marshalled result in one
  compressed string (the result is then ``IN_VOTE``), read back through the same attributes;
* empty lists (``mfa``, ``app_proofs``, the proposer's ``policy_outcomes``) become the
  shared empty tuple.

Readers go through ``intent_of``, ``seed_intent_of`` and ``result_of`` (``render.py``, the
state document's codec); the answers are the same. Only activities recorded by the
dispatcher are compacted (``note``: it knows their version); a record loaded from a
document keeps its dicts. ``VERIFY`` (set by the test suite) checks each derivation
against the record's own dicts before dropping them.
"""

from __future__ import annotations

import json
import marshal
from collections import deque
from typing import Any

from . import jsontext
from .models import Activity, Vote
from .packed import PackedVote, pack_message, unpack

Json = dict[str, Any]
YOUNG = 64  # activities recorded since, before one is compacted
SETTLED = frozenset(
    {"ACTIVITY_STATUS_COMPLETED", "ACTIVITY_STATUS_FAILED", "ACTIVITY_STATUS_REJECTED"}
)
VERIFY = False  # the test suite sets it: each derivation checked before dicts are dropped
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False).encode


class _Derived:
    """The marker of an intent derived from the proposer's body when asked for."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "DERIVED"

    def __repr__(self) -> str:
        return "DERIVED"


DERIVED: Any = _Derived()


class _InVote:
    """The marker of a result kept in the proposer's ``PackedVote``."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "IN_VOTE"

    def __repr__(self) -> str:
        return "IN_VOTE"


IN_VOTE: Any = _InVote()


# activity type -> the version that records it (as the dispatcher found it)
_VERSIONS: dict[str, Any] = {}


class Young:
    """The activities recorded last, not compacted yet (one per world).

    ``serve``'s server writes its answer before it compacts (``deferring``, then ``settle``,
    before it reads the next request: the compaction of an activity 64 back is no part of
    the answer, and the client's wake-up then overlaps it; ``WireOptions.compact_after_answer``);
    every other caller compacts as it records."""

    __slots__ = ("deferring", "recent")

    def __init__(self) -> None:
        self.recent: deque[Activity] = deque()
        self.deferring = False

    def note(self, activity: Activity, version: Any) -> None:
        """Called by the dispatcher with each activity it records and its version."""
        known = _VERSIONS.setdefault(activity.activity_type, version)
        recent = self.recent
        if known is version:
            recent.append(activity)
        if len(recent) > YOUNG and not self.deferring:
            compact(recent.popleft())

    def settle(self) -> None:
        """Compact what ``note`` left while ``deferring`` (the caller holds the world's lock)."""
        recent = self.recent
        while len(recent) > YOUNG:
            compact(recent.popleft())


def compact(a: Activity) -> None:
    """Compact ``a`` in place if settled (else it stays as it is: votes may change it)."""
    if a.status not in SETTLED or type(a.intent) is not dict or not a.votes:
        return
    if VERIFY:
        _verify(a)
    a.intent = DERIVED
    if a.seed_intent is not None:
        a.seed_intent = DERIVED
    marshalled = None
    if type(a.result) is dict:  # marshalled: bytes (no record holds bytes otherwise)
        try:  # noqa: SIM105 (not contextlib.suppress: half a microsecond on every activity)
            marshalled = marshal.dumps(a.result)
        except ValueError:  # a value marshal cannot hold: kept as it is
            pass
    a.timestamp_ms = DERIVED
    proposer = a.votes[0]
    if not proposer.policy_outcomes:
        proposer.policy_outcomes = ()  # type: ignore[assignment]
    if len(a.votes) == 1 and type(proposer) is Vote:
        # Its message, signature, id and the result: one compressed string (``packed.py``).
        plain = _parts(proposer) if VERIFY else None
        packed = PackedVote.of(proposer, a.activity_type, marshalled or b"")
        if plain is not None:
            _verify_packed(plain, packed, marshalled or b"")
        a.votes = (packed,)  # type: ignore[assignment]
        if marshalled is not None:
            a.result = IN_VOTE
    elif marshalled is not None:
        a.result = marshalled  # type: ignore[assignment]
    if not a.mfa:
        a.mfa = ()  # type: ignore[assignment]
    if not a.app_proofs:
        a.app_proofs = ()  # type: ignore[assignment]


def compacts_as(activity_type: str, version: Any) -> bool:
    """Whether ``note`` keeps and compacts an activity of ``activity_type`` recorded by
    ``version`` (the first version seen for a type is the one its records derive from)."""
    return _VERSIONS.setdefault(activity_type, version) is version


_ACTIVITY_FIELDS = (
    "activity_id", "organization_id", "activity_type", "status", "intent", "result",
    "fingerprint", "timestamp_ms", "created_at", "updated_at", "votes", "failure",
    "seed_intent", "mfa", "app_proofs",
)  # fmt: skip
if tuple(Activity.__dataclass_fields__) != _ACTIVITY_FIELDS:  # type: ignore[attr-defined]
    raise ImportError("Activity's fields changed: settled_record passes them by position")


def settled_record(
    activity_id: str,
    organization_id: str,
    activity_type: str,
    status: str,
    fingerprint: str,
    now_ns: int,
    message: bytes,
    result: bytes,
    has_seed_intent: bool,
    vote: tuple[str, str, str, str, str, str, Any],
) -> Activity:
    """The record ``compact`` makes of a settled activity of one vote, made at once from
    its parts (the fused path's, ``services/fused.py``: nothing built to be dropped).

    ``message`` is the proposer's body as sent, ``result`` the marshalled result, ``vote``
    the proposer's vote as ``(vote_id, user_id, selection, public_key, signature, scheme,
    voter)``, with no policy outcome. The caller checks the derivations
    against what it holds (``verify_settled``, where ``VERIFY``)."""
    vote_id, user_id, selection, public_key, signature, scheme, voter = vote
    frame = pack_message(activity_type, message, result, signature, vote_id)
    packed = PackedVote.made(
        frame, user_id, activity_id, selection, public_key, scheme, now_ns, voter
    )
    if VERIFY and unpack(frame) != (message.decode(), result, signature, vote_id):
        raise AssertionError(f"vote {vote_id}: its frame does not give back its parts")
    return Activity(
        activity_id, organization_id, activity_type, status, DERIVED,
        IN_VOTE, fingerprint, DERIVED, now_ns, now_ns, (packed,),
        None, DERIVED if has_seed_intent else None, (), (),
    )  # fmt: skip


def verify_settled(a: Activity, intent: Json, seed: Json | None, ts: str, result: Json) -> None:
    """Where ``VERIFY``: ``a`` (``settled_record``'s) derives ``intent``, ``seed``, ``ts``
    and ``result`` again, as ``compact`` checks a record before it drops its dicts."""
    derived_intent, derived_seed = _derive(a)
    derived = (derived_intent, derived_seed, timestamp_ms_of(a), result_of(a))
    if _dumps(derived) != _dumps((intent, seed, ts, result)):
        raise AssertionError(f"activity {a.activity_id}: derived {derived} != {intent, seed}")


def _derive(a: Activity) -> tuple[Json, Json | None]:
    from .schema import check

    version = _VERSIONS[a.activity_type]
    body = jsontext.loads(a.votes[0].message)
    raw = body.get("parameters")
    params, errors = check(version.params, {} if raw is None else raw)
    if errors:
        raise ValueError(f"activity {a.activity_id}: its body no longer checks ({errors})")
    seed = version.seed_intent(params) if version.seed_intent else None
    return {version.intent_key: params}, seed


def _verify(a: Activity) -> None:
    intent, seed = _derive(a)
    raw = jsontext.loads(a.votes[0].message)["timestampMs"]
    derived = (intent, seed, str(raw) if isinstance(raw, int) else raw, a.result)
    kept = (a.intent, a.seed_intent, a.timestamp_ms, marshal.loads(marshal.dumps(a.result)))
    if _dumps(derived) != _dumps(kept) or type(derived[2]) is not str:
        raise AssertionError(f"activity {a.activity_id}: derived {derived} != {kept}")


def _parts(vote: Vote) -> dict[str, Any]:
    return {name: getattr(vote, name) for name in Vote.__dataclass_fields__}  # type: ignore[attr-defined]


def _verify_packed(plain: dict[str, Any], packed: PackedVote, result: bytes) -> None:
    if packed.result() != result or _parts(packed) != plain:
        raise AssertionError(f"vote {plain['vote_id']}: packed {_parts(packed)} != {plain}")
    for name, value in plain.items():
        if name not in ("message", "signature", "vote_id") and getattr(packed, name) is not value:
            raise AssertionError(f"vote {plain['vote_id']}: {name} not kept")


def intent_of(a: Activity) -> Json:
    return _derive(a)[0] if a.intent is DERIVED else a.intent


def seed_intent_of(a: Activity) -> Json | None:
    return _derive(a)[1] if a.seed_intent is DERIVED else a.seed_intent


def result_of(a: Activity) -> Json:
    result = a.result
    if result is IN_VOTE:
        return marshal.loads(a.votes[0].result())  # type: ignore[attr-defined]
    return marshal.loads(result) if type(result) is bytes else result


def timestamp_ms_of(a: Activity) -> str:
    if a.timestamp_ms is not DERIVED:
        return a.timestamp_ms
    raw = jsontext.loads(a.votes[0].message)["timestampMs"]
    return str(raw) if isinstance(raw, int) else raw


def expanded(a: Activity) -> Activity:
    """``a`` itself, or a copy with its intents and result as dicts again."""
    if a.intent is not DERIVED and type(a.result) is not bytes and a.result is not IN_VOTE:
        return a
    intent, seed = _derive(a) if a.intent is DERIVED else (a.intent, a.seed_intent)
    copy = Activity(
        activity_id=a.activity_id,
        organization_id=a.organization_id,
        activity_type=a.activity_type,
        status=a.status,
        intent=intent,
        result=result_of(a),
        fingerprint=a.fingerprint,
        timestamp_ms=timestamp_ms_of(a),
        created_at=a.created_at,
        updated_at=a.updated_at,
        votes=list(a.votes),
        failure=a.failure,
        seed_intent=seed,
        mfa=list(a.mfa),
        app_proofs=list(a.app_proofs),
    )
    return copy
