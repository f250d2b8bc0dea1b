"""Consensus: votes on an activity, and running it once its approvals suffice.

An activity the policy engine does not allow yet waits in
``ACTIVITY_STATUS_CONSENSUS_NEEDED`` with its proposer's approval. More
approvals come from ``approve_activity`` (by fingerprint) or from another user
submitting the identical body; each is judged again with every live approval.
Once allowed, the activity runs then, as its proposer, and ends COMPLETED, or
FAILED if it can no longer run (its ``failure`` says why). One rejection
(``reject_activity``) ends it REJECTED. Approvals count for 24 hours on the
emulator's clock (the real approval window); after that they must be cast
again, and the activity itself never expires.

MFA (``services/mfa.py``): an activity whose proposer owes MFA waits in
``ACTIVITY_STATUS_AUTHENTICATORS_NEEDED``, and only the proposer may approve it,
each approval presenting the method its stamp proves; once their steps are all
satisfied it is judged as above. An approver who owes MFA on the activity has
their vote recorded but not counted until they have presented their methods the
same way.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..crypto.stamps import ApiKeyStamp
from ..engine_state.world import World
from ..events import activity_updates
from ..ground import jsontext
from ..ground.compact import intent_of
from ..ground.errors import TurnkeyApiError
from ..ground.models import Activity, Organization, PolicyOutcome, Vote
from ..ground.operation_table import OperationLike as Operation
from ..ground.operation_table import VersionLike as Version
from ..ground.operation_table import find_by_activity_type
from ..ground.transaction import Transaction
from . import app_proofs, velocity
from .auth import Caller
from .authorization import authorize
from .context import Context
from .mfa import presented, progress_for, progress_of, unsatisfied_users
from .policy_engine import ALLOW, Approval, Verdict

APPROVED = "VOTE_SELECTION_APPROVED"
REJECTED = "VOTE_SELECTION_REJECTED"
COMPLETED_STATUS = "ACTIVITY_STATUS_COMPLETED"
FAILED_STATUS = "ACTIVITY_STATUS_FAILED"
CONSENSUS_NEEDED_STATUS = "ACTIVITY_STATUS_CONSENSUS_NEEDED"
REJECTED_STATUS = "ACTIVITY_STATUS_REJECTED"
AUTHENTICATORS_NEEDED_STATUS = "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED"

APPROVAL_WINDOW_NS = 24 * 3600 * 1_000_000_000

Json = dict[str, Any]


def execute(
    world: World,
    org: Organization,
    caller: Caller,
    op: Operation,
    version: Version,
    params: Json,
    now_ns: int,
    tx: Transaction,
    judged_in: Organization | None = None,
    raw: bytes = b"",
) -> Json:
    """Run the activity's handler; its result under the version's result key. Its velocity
    points go to the organization whose policies judged it (``judged_in``: the parent's, for a
    flow the parent runs in a sub-organization). ``raw`` is the proposal's body."""
    ledger = org if judged_in is None else judged_in
    in_force = tuple(ledger.velocity_controls.values())  # the controls the activity ran under
    result = op.handler(Context(world, org, caller, now_ns, tx, raw), params)
    if in_force:  # a completed activity: the data points it leaves
        velocity.record(
            tx, ledger, in_force, version.activity_type, params, caller.user.user_id, now_ns
        )
    if version.downgrade_result is not None:
        result = version.downgrade_result(result)
    return {version.result_key: result}


def outcomes_of(verdict: Verdict) -> list[PolicyOutcome]:
    return [PolicyOutcome(policy_id, outcome) for policy_id, outcome in verdict.outcomes]


def live_vote(activity: Activity, user_id: str, now_ns: int) -> Vote | None:
    """The user's vote that still counts: a rejection, or an approval in its window."""
    for vote in reversed(activity.votes):
        if vote.user_id == user_id and (vote.selection == REJECTED or _in_window(vote, now_ns)):
            return vote
    return None


def live_approvals(org: Organization, activity: Activity, now_ns: int) -> list[Approval]:
    """One approval per user still in the organization whose approval is in its window,
    and who owes no MFA on the activity."""
    approvals, seen = [], set()
    owing = unsatisfied_users(activity) if activity.mfa else frozenset()
    for vote in activity.votes:
        user = org.users.get(vote.user_id)
        if vote.selection != APPROVED or not _in_window(vote, now_ns) or user is None:
            continue
        if vote.user_id in owing:
            continue
        if vote.user_id not in seen:
            seen.add(vote.user_id)
            approvals.append(Approval(user, vote.public_key, vote.scheme))
    return approvals


def _in_window(vote: Vote, now_ns: int) -> bool:
    return now_ns - vote.created_at < APPROVAL_WINDOW_NS


def cast(
    world: World,
    org: Organization,
    activity: Activity,
    vote: Vote,
    now_ns: int,
    tx: Transaction,
    caller: Caller | None = None,
) -> None:
    """Add ``vote`` to ``activity``; reject it, or judge it again and run it once allowed.
    An approval by a ``caller`` whose MFA policy holds for the activity is recorded with
    what they owe, and counts once they have presented it.

    A denial raises the real 403 with nothing changed (the caller rolls ``tx`` back)."""
    tx.set(activity, "votes", [*activity.votes, vote])
    tx.set(activity, "updated_at", now_ns)
    if vote.selection == REJECTED:
        tx.set(activity, "status", REJECTED_STATUS)
        activity_updates.note(world, tx, org, activity)
        return
    if caller is not None:
        _, _, canonical = _intent(activity)
        progress = progress_for(caller, org, activity.activity_type, canonical, now_ns)
        if progress is not None:
            tx.set(activity, "mfa", [*activity.mfa, progress])
    judge_again(world, org, activity, now_ns, tx, vote)


def present(
    world: World,
    org: Organization,
    activity: Activity,
    caller: Caller,
    now_ns: int,
    tx: Transaction,
) -> None:
    """The caller, who owes MFA on ``activity``, presents the method their stamp proves;
    once their steps are all satisfied the activity is judged again."""
    progress = progress_of(activity, caller.user.user_id)
    assert progress is not None
    method = presented(caller)
    if method not in progress.presented:  # records are replaced, never changed in place
        grown = replace(progress, presented=[*progress.presented, method])
        tx.set(activity, "mfa", [grown if p is progress else p for p in activity.mfa])
    tx.set(activity, "updated_at", now_ns)
    if caller.user.user_id not in unsatisfied_users(activity):
        judge_again(world, org, activity, now_ns, tx)


def judge_again(
    world: World,
    org: Organization,
    activity: Activity,
    now_ns: int,
    tx: Transaction,
    vote: Vote | None = None,
) -> None:
    """Judge the activity with its live approvals: run it once allowed, else it awaits
    consensus (or still its proposer's MFA). ``vote`` records the evaluation."""
    proposer = activity.votes[0]
    if proposer.user_id in unsatisfied_users(activity):
        return
    op, version, canonical = _intent(activity)
    verdict = authorize(
        org,
        activity.activity_type,
        canonical,
        live_approvals(org, activity, now_ns),
        now_ns,
        proposer_id=proposer.user_id,
        root_quorum_only=op.root_quorum_only,
        self_service=op.self_service,
    )
    if vote is not None:
        vote.policy_outcomes = outcomes_of(verdict)
    if verdict.decision == ALLOW:
        _run_approved(world, org, activity, op, version, canonical, now_ns, tx)
        if activity.status == COMPLETED_STATUS and _asked_for_proofs(proposer):
            raw = proposer.message.encode()
            proofs = app_proofs.for_activity(world, org, activity, raw, canonical)
            tx.set(activity, "app_proofs", proofs)
        activity_updates.note(world, tx, org, activity)
    elif activity.status != CONSENSUS_NEEDED_STATUS:  # its proposer's MFA is met
        tx.set(activity, "status", CONSENSUS_NEEDED_STATUS)
        activity_updates.note(world, tx, org, activity)


def _intent(activity: Activity) -> tuple[Operation, Version, Json]:
    found = find_by_activity_type(activity.activity_type)
    assert found is not None, activity.activity_type
    op, version = found
    params = intent_of(activity)[version.intent_key]
    return op, version, (version.upgrade(params) if version.upgrade else params)


def _asked_for_proofs(proposal: Vote) -> bool:
    """Whether the proposer's request body had ``generateAppProofs: true``."""
    try:
        body = jsontext.loads(proposal.message)
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("generateAppProofs") is True


def _run_approved(
    world: World,
    org: Organization,
    activity: Activity,
    op: Operation,
    version: Version,
    params: Json,
    now_ns: int,
    tx: Transaction,
) -> None:
    """Run an activity whose consensus is reached: COMPLETED, or FAILED with what stopped it
    (its proposer gone, or the handler's error; the handler's changes are then undone)."""
    proposal = activity.votes[0]
    user = org.users.get(proposal.user_id)
    savepoint = tx.savepoint()
    try:
        if user is None:
            raise TurnkeyApiError(5, f"proposer {proposal.user_id} is no longer a user")
        key = next((k for k in user.api_keys.values() if k.public_key == proposal.public_key), None)
        stamp = ApiKeyStamp(proposal.public_key, proposal.signature, proposal.scheme)
        caller = Caller(user, org, key, stamp)
        raw = proposal.message.encode()
        result = execute(world, org, caller, op, version, params, now_ns, tx, raw=raw)
    except TurnkeyApiError as error:
        tx.rollback_to(savepoint)
        failure = {"code": error.code, "message": error.message, "details": list(error.details)}
        tx.set(activity, "status", FAILED_STATUS)
        tx.set(activity, "failure", failure)
        return
    tx.set(activity, "status", COMPLETED_STATUS)
    tx.set(activity, "result", result)
