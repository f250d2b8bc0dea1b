"""Run one request against the world: the path every way in goes through.

The order is the real service's: the target organization (400 malformed, 404
unknown), with rate limits on its buckets (429, ``ratelimits.py``: a refused request
changes nothing), then the caller's stamp (401), then for an activity its
fingerprint (the same body is the same activity, and from another user while
it awaits consensus, their approval), type, ``timestampMs``, parameters (400
naming each bad field), the voter's organization and the policy engine (403,
or CONSENSUS_NEEDED), and finally the handler inside a transaction, so a
failure changes nothing. Votes (approve_activity, reject_activity) are not
judged by the engine: their handler votes on the activity they name and
answers it.

Every request is recorded in ``world.calls`` (``recorders/calls.py``), however it
ends. An injected fault (``world.faults``, ``recorders/faults.py``) takes the
handler's place once every check has passed: it raises its HTTP error, or
records the activity as FAILED, CONSENSUS_NEEDED or PENDING without running
the handler.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from .crypto.attested import AttestedStamp
from .crypto.stamps import ApiKeyStamp
from .crypto.webauthn import WebauthnStamp
from .engine_state import ratelimits
from .engine_state.world import World
from .events import activity_updates
from .ground import messages, render
from .ground.errors import INTERNAL, InvalidArgument, NotFound, TurnkeyApiError, ValidationFailed
from .ground.ids import is_uuid, uuid7_from
from .ground.models import Activity, Organization
from .ground.schema import Violations, check
from .ground.transaction import Transaction
from .ops import ACTIVITY, Operation
from .recorders.faults import FAILED, Fault
from .services import app_proofs, ip_allowlists, mfa, session_profiles
from .services.activities import COMPLETED, check_timestamp, fingerprint, new_vote, record_activity
from .services.attestation import authenticate_attested
from .services.auth import Caller, authenticate
from .services.authorization import approval_of, authorize, check_voter_organization
from .services.consensus import (
    APPROVED,
    AUTHENTICATORS_NEEDED_STATUS,
    CONSENSUS_NEEDED_STATUS,
    cast,
    execute,
    live_vote,
    outcomes_of,
    present,
)
from .services.context import Context
from .services.policy_engine import ALLOW
from .webhooks.deliveries import deliver_synchronously

Json = dict[str, Any]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Request:
    """A parsed request: the operation, the JSON body, its exact bytes, the stamp (an API
    key's ``X-Stamp``, a passkey's ``X-Stamp-Webauthn`` or a token's ``X-Stamp-Attested``)."""

    operation: Operation
    body: Json
    raw: bytes
    stamp: ApiKeyStamp | WebauthnStamp | AttestedStamp | None
    check_signature: bool = True
    # The source address on the wire; None in-process (then ``world.client_ip``, a test seam).
    client_ip: str | None = None
    # ``fingerprint(raw)`` where the caller has it already (the facade computes it).
    fingerprint: str | None = None


def dispatch(world: World, request: Request) -> Json:
    """The response body for ``request``; raise ``TurnkeyApiError`` for an error answer.
    Either way the request is recorded in ``world.calls``. Webhook deliveries the request
    caused are sent in the background, or here once the world is let go of when they are
    synchronous (``webhooks/deliveries.py``)."""
    try:
        return _dispatch(world, request)
    finally:
        deliver_synchronously(world)


def _dispatch(world: World, request: Request) -> Json:
    op = request.operation
    with world.lock:
        started_ns = world.clock.now_ns()
        started_wall_ns = time.perf_counter_ns()
        caller: Caller | None = None
        response: Json | None = None
        error: TurnkeyApiError | None = None
        try:
            if not isinstance(request.body, dict):
                raise InvalidArgument(
                    messages.BAD_REQUEST_BODY, turnkey_error_code="REQUEST_INVALID"
                )
            org = target_organization(world, request.body.get("organizationId"))
            if world.settings.rate_limits is not None:  # off by default: no other cost
                ratelimits.admit(world, org, op.name, started_ns)
            if isinstance(request.stamp, AttestedStamp):
                caller = authenticate_attested(world, org, request.stamp, request.raw, op.name)
                org = caller.organization  # a login addressed to the parent: the user's own
            else:
                caller = authenticate(
                    world,
                    org,
                    request.stamp,
                    request.raw,
                    is_activity=op.kind == ACTIVITY,
                    check_signature=request.check_signature,
                    login=op.name == "stamp_login",
                )
                if caller.organization.parent_id == org.organization_id:  # a passkey login
                    org = caller.organization
            ip_allowlists.enforce(
                org, caller, request.client_ip if request.client_ip is not None else world.client_ip
            )
            if op.kind == ACTIVITY:
                response = _submit(world, org, caller, request)
            else:
                response = _query(world, org, caller, request)
            return response
        except TurnkeyApiError as failure:
            error = failure
            raise
        except Exception:  # a bug of ours: the wire answers 500, code 13
            error = TurnkeyApiError(INTERNAL, "internal server error")
            raise
        finally:
            world.calls.record(
                time_ns=started_ns,
                operation=op.name,
                kind=op.kind,
                request=request.body,
                caller=caller,
                response=response,
                error=error,
                duration_ns=time.perf_counter_ns() - started_wall_ns,
            )
            error = None  # the traceback holds this frame: no cycle for the collector to find


def target_organization(world: World, organization_id: object) -> Organization:
    if not is_uuid(organization_id):
        raise InvalidArgument(
            messages.MALFORMED_ORGANIZATION_ID, turnkey_error_code="INVALID_ORGANIZATION_ID"
        )
    org = world.store.organizations.get(organization_id)  # type: ignore[arg-type]
    if org is None:
        raise NotFound(
            messages.organization_not_found(str(organization_id)),
            turnkey_error_code="ORGANIZATION_NOT_FOUND",
        )
    return org


def _submit(world: World, org: Organization, caller: Caller, request: Request) -> Json:
    op, body = request.operation, request.body
    # The path decides the operation: a body of another type is refused here, a resent
    # one included (its fingerprint names an activity of another operation).
    version = op.version(body.get("type"))
    if version is None:
        errors = Violations()
        mismatch = f" ({body['type']} is not an activity of {op.path})" if body.get("type") else ""
        errors.add("type", f"must be one of {', '.join(op.activity_types)}{mismatch}")
        raise ValidationFailed(errors)
    request_fingerprint = request.fingerprint or fingerprint(request.raw)
    existing = world.store.activities_by_fingerprint.get(request_fingerprint)
    if existing is None and world.archive is not None:  # serve --state: left memory?
        existing = world.archive.by_fingerprint(world.store, request_fingerprint)
    if existing is not None and existing.organization_id == org.organization_id:
        return _resubmitted(world, org, caller, existing, request.raw)
    timestamp_ms = check_timestamp(world, body.get("timestampMs"))
    params = _checked(version.params, body.get("parameters"), "parameters")
    canonical = version.upgrade(params) if version.upgrade else params
    from_parent = op.parent_may_run and caller.organization.organization_id == org.parent_id
    if not from_parent:
        check_voter_organization(caller, org)
    now_ns = world.clock.now_ns()
    session_profiles.check_scope(world.store, org, caller, version.activity_type, canonical, now_ns)
    if op.vote_selection is not None:  # a vote answers the activity it is cast on
        return _in_transaction(
            world,
            lambda tx: op.handler(Context(world, org, caller, now_ns, tx, request.raw), canonical),
        )
    judge_org = caller.organization if from_parent else org
    verdict = authorize(
        judge_org,
        version.activity_type,
        canonical,
        [approval_of(caller)],
        now_ns,
        proposer_id=caller.user.user_id,
        root_quorum_only=op.root_quorum_only,
        self_service=op.self_service,
    )
    fault = world.faults.take(op.name, op.kind, org.organization_id)
    if fault is not None:
        return _faulted(
            world, org, caller, request, fault, params, request_fingerprint, timestamp_ms
        )

    # MFA: the proposer's own policy, if one holds, must be satisfied before anything runs.
    progress = mfa.progress_for(caller, org, version.activity_type, canonical, now_ns)
    owes = progress is not None and not progress.satisfied

    def run(tx: Transaction) -> Activity:
        # Allowed: the handler runs now. Otherwise the activity waits for approvals.
        allowed = verdict.decision == ALLOW and not owes
        result = (
            execute(world, org, caller, op, version, canonical, now_ns, tx, judge_org, request.raw)
            if allowed
            else None
        )
        waiting = AUTHENTICATORS_NEEDED_STATUS if owes else CONSENSUS_NEEDED_STATUS
        activity = record_activity(
            world,
            org,
            caller,
            status=COMPLETED if allowed else waiting,
            activity_type=version.activity_type,
            intent={version.intent_key: params},
            seed_intent=version.seed_intent(params) if version.seed_intent else None,
            result=result,
            body=request.raw,
            fingerprint=request_fingerprint,
            timestamp_ms=timestamp_ms,
            now_ns=now_ns,
            outcomes=outcomes_of(verdict),
            mfa=[progress] if progress is not None else None,
        )
        if allowed and body.get("generateAppProofs") is True:
            activity.app_proofs = app_proofs.for_activity(
                world, org, activity, request.raw, canonical
            )
        world.store.add_activity(tx, org, activity)
        activity_updates.note(world, tx, org, activity)
        return activity

    activity = _in_transaction(world, run)
    answer = {"activity": render.activity(activity, org, caller.user.user_id)}
    world.young.note(activity, version)  # compacted once settled and older (compact.py)
    return answer


def _resubmitted(
    world: World, org: Organization, caller: Caller, activity: Activity, raw: bytes
) -> Json:
    """The same body again is the same activity; from another user of the organization
    while it awaits consensus, it is also their approval, and from a user who owes MFA on
    it, the method their stamp presents."""
    now_ns = world.clock.now_ns()
    user_id = caller.user.user_id
    if caller.organization is org and mfa.owes(activity, user_id):
        _in_transaction(world, lambda tx: present(world, org, activity, caller, now_ns, tx))
    elif (
        activity.status == CONSENSUS_NEEDED_STATUS
        and caller.organization is org
        and live_vote(activity, user_id, now_ns) is None
    ):
        vote = new_vote(world, caller, activity.activity_id, APPROVED, raw, now_ns)
        _in_transaction(world, lambda tx: cast(world, org, activity, vote, now_ns, tx, caller))
    return {"activity": render.activity(activity, org, user_id)}


def _in_transaction(world: World, change: Callable[[Transaction], T]) -> T:
    """``change(tx)``, all or nothing, ids included."""
    tx = world.transaction()
    tx.on_rollback(functools.partial(world.ids.setstate, world.ids.getstate()))
    try:
        outcome = change(tx)
    except BaseException:
        tx.rollback()
        raise
    tx.commit()
    return outcome


def _faulted(
    world: World,
    org: Organization,
    caller: Caller,
    request: Request,
    fault: Fault,
    params: Json,
    request_fingerprint: str,
    timestamp_ms: str,
) -> Json:
    """A fault's answer in the handler's place: its HTTP error, or the activity recorded
    in its status (FAILED with a ``failure``), with no result; the handler does not run."""
    if fault.activity_status is None:
        fault.raise_error()
    version = request.operation.version(request.body.get("type"))
    assert version is not None
    now_ns = world.clock.now_ns()

    def run(tx: Transaction) -> Activity:
        activity = record_activity(
            world,
            org,
            caller,
            status=fault.activity_status,
            activity_type=version.activity_type,
            intent={version.intent_key: params},
            seed_intent=version.seed_intent(params) if version.seed_intent else None,
            body=request.raw,
            fingerprint=request_fingerprint,
            timestamp_ms=timestamp_ms,
            now_ns=now_ns,
            failure=fault.failure() if fault.activity_status == FAILED else None,
        )
        world.store.add_activity(tx, org, activity)
        activity_updates.note(world, tx, org, activity)
        return activity

    activity = _in_transaction(world, run)
    answer = {"activity": render.activity(activity, org, caller.user.user_id)}
    world.young.note(activity, version)  # compacted once settled and older (compact.py)
    return answer


def _query(world: World, org: Organization, caller: Caller, request: Request) -> Json:
    op = request.operation
    fields = {k: v for k, v in request.body.items() if k != "organizationId"}
    assert op.body is not None
    cleaned = _checked(op.body, fields, "")
    fault = world.faults.take(op.name, op.kind, org.organization_id)
    if fault is not None:
        fault.raise_error()
    now_ns = world.clock.now_ns()
    data = op.handler(Context(world, org, caller, now_ns, Transaction()), cleaned)
    if "activity" in op.result_keys:
        return data
    entropy = hashlib.sha256(request.raw + now_ns.to_bytes(8, "big")).digest()
    envelope_id = uuid7_from(now_ns // 1_000_000, entropy)
    envelope = render.query_envelope(data, org.organization_id, envelope_id, now_ns // 1_000_000)
    return {**data, "activity": envelope}


def _checked(spec, value: object, path: str) -> Json:
    if value is None:
        value = {}
    if not isinstance(value, dict):
        errors = Violations()
        errors.add(path, "must be an object")
        raise ValidationFailed(errors)
    cleaned, errors = check(spec, value)
    if errors:
        raise ValidationFailed(errors)
    return cleaned  # type: ignore[return-value]
