"""The activity lifecycle: fingerprints, liveness of ``timestampMs``, records, votes.

An activity's fingerprint is ``sha256:`` and the hex SHA-256 of the exact body
bytes; the same body again is the same activity. An allowed activity completes
synchronously: the submit response already says COMPLETED. One that needs
more approvals is recorded CONSENSUS_NEEDED (``consensus.py``), and an
injected fault (``emulator.recorders.faults``) records one as FAILED,
CONSENSUS_NEEDED or PENDING instead.
"""

from __future__ import annotations

import hashlib
import sys
from typing import Any

from ..engine_state.world import World
from ..ground import messages
from ..ground.controls import MfaProgress
from ..ground.errors import InvalidArgument, ValidationFailed
from ..ground.models import Activity, Organization, PolicyOutcome, Vote
from ..ground.numbers import integer
from ..ground.schema import Violations
from .auth import Caller

COMPLETED = "ACTIVITY_STATUS_COMPLETED"
APPROVED = "VOTE_SELECTION_APPROVED"


def fingerprint(body: bytes) -> str:
    return "sha256:" + hashlib.sha256(body).hexdigest()


def check_timestamp(world: World, raw: object) -> str:
    """``timestampMs`` as a string, after checking it is recent on the emulator's clock."""
    milliseconds = integer(raw)  # ASCII digits only: not "١٢٣", "²" or " 1"
    if milliseconds is None:
        errors = Violations()
        errors.add("timestampMs", "must be a string of milliseconds since the epoch")
        raise ValidationFailed(errors)
    window = world.settings.timestamp_window_s
    if window is not None:
        now_ms = world.clock.now_ms()
        future = min(window, world.settings.timestamp_future_s)
        drift_ms = milliseconds - now_ms
        if drift_ms <= -window * 1000 or drift_ms > future * 1000:  # "less than an hour old"
            raise InvalidArgument(
                messages.timestamp_outside_window(milliseconds, now_ms, window, future),
                turnkey_error_code="INVALID_TIME",
            )
    return raw if isinstance(raw, str) else str(milliseconds)


def new_vote(
    world: World, caller: Caller, activity_id: str, selection: str, body: bytes, now_ns: int
) -> Vote:
    """The caller's vote on an activity: their stamp over the body they sent."""
    stamp = caller.stamp
    return Vote(
        vote_id=world.ids.uuid4(),
        user_id=caller.user.user_id,
        activity_id=activity_id,
        selection=selection,
        message=body.decode("utf-8"),
        # One string per key and scheme, not one per request (parsed from each X-Stamp).
        public_key=sys.intern(stamp.public_key),
        signature=stamp.signature,
        scheme=sys.intern(stamp.scheme),
        created_at=now_ns,
        voter=caller.user,
    )


def record_activity(
    world: World,
    org: Organization,
    caller: Caller,
    *,
    status: str,
    activity_type: str,
    intent: dict[str, Any],
    seed_intent: dict[str, Any] | None,
    body: bytes,
    fingerprint: str,
    timestamp_ms: str,
    now_ns: int,
    result: dict[str, Any] | None = None,
    failure: dict[str, Any] | None = None,
    outcomes: list[PolicyOutcome] | None = None,
    mfa: list[MfaProgress] | None = None,
) -> Activity:
    """An activity in ``status`` with the proposer's vote: COMPLETED with its ``result``,
    or (fault injection) FAILED with its ``failure``, CONSENSUS_NEEDED or PENDING with
    neither."""
    activity_id = world.ids.uuid7(now_ns // 1_000_000)
    vote = new_vote(world, caller, activity_id, APPROVED, body, now_ns)
    if outcomes is not None:
        vote.policy_outcomes = outcomes
    return Activity(
        activity_id=activity_id,
        organization_id=org.organization_id,
        activity_type=activity_type,
        status=status,
        intent=intent,
        result=result if result is not None else {},
        fingerprint=fingerprint,
        timestamp_ms=timestamp_ms,
        created_at=now_ns,
        updated_at=now_ns,
        votes=[vote],
        failure=failure,
        seed_intent=seed_intent,
        mfa=mfa or [],
    )
