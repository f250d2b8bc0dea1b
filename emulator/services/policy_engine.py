"""The policy engine: may these approvals run this activity in this organization?

The order is the real service's (Turnkey docs, policy engine overview):

1. the root quorum is met (``threshold`` distinct root users approve): allow,
   bypassing every policy;
2. a policy whose condition and consensus hold says DENY: explicit deny
   (root-quorum-only activities stop here: no policy can grant them);
3. a policy whose condition and consensus hold says ALLOW: allow;
4. a user managing their own credentials: allow;
5. an ALLOW policy whose condition holds but whose consensus does not yet, or
   root users approving short of the threshold: consensus needed;
6. otherwise implicit deny.

A policy whose condition or consensus fails to evaluate (a missing field, a
type error; the engine does not short-circuit) takes no part, with outcome
``OUTCOME_ERROR``; so does one whose ``time`` is false (``OUTCOME_TIME_INACTIVE``).
Each verdict lists the outcomes of the policies that took part, which become
the activity's policy evaluations.

Which policies can apply is worked out once per activity type and set of
policies, from the clauses of each condition's top-level conjunction:
``activity.type/kind/resource/action`` for the type, and ``wallet.id`` or
``label``, ``private_key.id`` or ``label`` and ``wallet_account.address`` for the
target, which the request then looks up. Policies about other activities or other targets cost
nothing and are not listed among the outcomes (their condition could only be
false or an error).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from ..ground.models import Organization, Policy
from ..policy import Expression, PolicyEvaluationError, parse
from ..policy.catalog import activity_kind, resource_action
from .policy_environment import Approval, condition_environment, consensus_environment

ALLOW = "ALLOW"
CONSENSUS_NEEDED = "CONSENSUS_NEEDED"
DENY_EXPLICIT = "DENY_EXPLICIT"
DENY_IMPLICIT = "DENY_IMPLICIT"

OUTCOME_ALLOW = "OUTCOME_ALLOW"
OUTCOME_DENY_EXPLICIT = "OUTCOME_DENY_EXPLICIT"
OUTCOME_REQUIRES_CONSENSUS = "OUTCOME_REQUIRES_CONSENSUS"
OUTCOME_ERROR = "OUTCOME_ERROR"
OUTCOME_TIME_INACTIVE = "OUTCOME_TIME_INACTIVE"

EFFECT_DENY = "EFFECT_DENY"


@dataclass(frozen=True, slots=True)
class Verdict:
    decision: str  # ALLOW | CONSENSUS_NEEDED | DENY_EXPLICIT | DENY_IMPLICIT
    outcomes: tuple[
        tuple[str, str], ...
    ] = ()  # (policy id, OUTCOME_*) of the policies that took part


_ROOT_QUORUM = Verdict(ALLOW)  # met: no policy is evaluated


@dataclass(frozen=True, slots=True)
class _Compiled:
    policy: Policy
    condition: Expression | None
    consensus: Expression | None
    time: Expression | None
    # The condition's clauses (``Expression.clauses``): the comparisons of a path with a
    # literal, and the others. None at all: the condition holds.
    comparisons: tuple[tuple[Any, ...], ...] = ()
    others: tuple[Any, ...] = ()


def judge(
    org: Organization,
    activity_type: str,
    params: Mapping[str, Any],
    approvals: Sequence[Approval],
    now_ns: int,
    *,
    proposer_id: str,
    root_quorum_only: bool = False,
    self_service: bool = False,
) -> Verdict:
    """The engine's verdict on the live ``approvals`` of an activity ``proposer_id`` made."""
    quorum = org.root_quorum
    root_ids = quorum.user_ids
    root_approvers = {a.user.user_id for a in approvals if a.user.user_id in root_ids}
    if len(root_approvers) >= quorum.threshold:
        return _ROOT_QUORUM
    outcomes = _outcomes(org, activity_type, params, approvals, now_ns, proposer_id)
    found = {outcome for _, outcome in outcomes}
    if OUTCOME_DENY_EXPLICIT in found:
        return Verdict(DENY_EXPLICIT, outcomes)
    if root_quorum_only:
        return Verdict(CONSENSUS_NEEDED if root_approvers else DENY_IMPLICIT, outcomes)
    if OUTCOME_ALLOW in found:
        return Verdict(ALLOW, outcomes)
    if self_service and params.get("userId") == proposer_id:
        return Verdict(ALLOW, outcomes)
    if OUTCOME_REQUIRES_CONSENSUS in found or root_approvers:
        return Verdict(CONSENSUS_NEEDED, outcomes)
    return Verdict(DENY_IMPLICIT, outcomes)


def _outcomes(
    org: Organization,
    activity_type: str,
    params: Mapping[str, Any],
    approvals: Sequence[Approval],
    now_ns: int,
    proposer_id: str,
) -> tuple[tuple[str, str], ...]:
    candidates = _candidates(activity_type, tuple(org.policies.values()))
    if not candidates.free and not candidates.pinned:
        return ()
    condition_env = condition_environment(org, activity_type, params, now_ns, proposer_id)
    consensus_env = consensus_environment(approvals)
    outcomes = []
    # The hot loop: every candidate policy of every activity. A condition is the
    # conjunction of its clauses; a clause's value (or error) is the same for every policy
    # that has it, so each distinct clause is evaluated once per request.
    values: dict[Any, Any] = {}  # path readers and clauses -> their value in this request
    get = values.get
    for compiled in candidates.for_targets(_targets(condition_env)):
        held, failed = True, False
        for reader, kind, literal, equal, slow in compiled.comparisons:  # path == literal
            value = get(reader, _UNSEEN)
            if value is _UNSEEN:
                value = values[reader] = _value_of(reader, condition_env)
            if type(value) is kind:
                if (value == literal) is not equal:
                    held = False
            elif value is _FAILED:
                failed = True
            else:
                try:
                    if slow(value) is False:
                        held = False
                except PolicyEvaluationError:
                    failed = True
        for clause in compiled.others:
            value = get(clause, _UNSEEN)
            if value is _UNSEEN:
                value = values[clause] = _value_of(clause, condition_env)
            if value is not True:
                if value is False:
                    held = False
                else:  # an error, or not a bool: the condition fails to evaluate
                    failed = True
        if failed:
            outcomes.append((compiled.policy.policy_id, OUTCOME_ERROR))
            continue
        if not held:
            continue
        outcome = _evaluate(compiled, condition_env, consensus_env, condition_held=True)
        if outcome is not None:
            outcomes.append((compiled.policy.policy_id, outcome))
    return tuple(outcomes)


_TARGET_FIELDS = (
    ("wallet", "id"),
    ("wallet", "label"),
    ("private_key", "id"),
    ("private_key", "label"),
    ("wallet_account", "address"),
)


def _value_of(function: Any, env: Mapping[str, Any]) -> Any:
    try:
        return function(env, None)
    except (PolicyEvaluationError, RecursionError):
        return _FAILED


def _targets(env: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The request's pinned facts: ``("wallet.id", id)`` and the like, where present."""
    found = []
    for root, name in _TARGET_FIELDS:
        target = env.get(root)
        if target is not None:
            found.append((f"{root}.{name}", target[name]))
    return found


def _evaluate(
    compiled: _Compiled, condition_env: dict, consensus_env: dict, *, condition_held: bool = False
) -> str | None:
    """One policy's outcome, or ``None`` when its condition does not hold (its consensus
    is then not read: it could only matter to a policy that applies)."""
    try:
        if (
            not condition_held
            and compiled.condition is not None
            and not compiled.condition.test(condition_env)
        ):
            return None
        active = compiled.time is None or compiled.time.test(condition_env)
        agreed = compiled.consensus is None or compiled.consensus.test(consensus_env)
    except PolicyEvaluationError:
        return OUTCOME_ERROR
    if not active:
        return OUTCOME_TIME_INACTIVE
    deny = compiled.policy.effect == EFFECT_DENY
    if not agreed:
        return None if deny else OUTCOME_REQUIRES_CONSENSUS
    return OUTCOME_DENY_EXPLICIT if deny else OUTCOME_ALLOW


# ----- which policies can apply ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Candidates:
    """The policies that may apply to one activity type: ``free`` ones, and ``pinned`` ones
    whose condition names the wallet, private key or wallet account it is about, indexed
    by that ``(field, value)``: a request about another target skips them at no cost."""

    free: tuple[tuple[int, _Compiled], ...]
    pinned: dict[tuple[str, str], tuple[tuple[int, _Compiled], ...]]
    free_policies: tuple[_Compiled, ...]  # ``free`` without the order: no target matched

    def for_targets(self, targets: list[tuple[str, str]]) -> Sequence[_Compiled]:
        found = [entries for target in targets if (entries := self.pinned.get(target))]
        if not found:
            return self.free_policies
        chosen = list(self.free)
        for entries in found:
            chosen.extend(entries)
        chosen.sort(key=_ORDER)  # in the organization's order of policies
        return [compiled for _, compiled in chosen]


_ORDER = itemgetter(0)
_UNSEEN = object()  # a clause not yet evaluated for this request
_FAILED = object()  # a clause that failed to evaluate
_CACHE: dict[tuple[str, tuple[Policy, ...]], _Candidates] = {}
_CACHE_LIMIT = 512


def _candidates(activity_type: str, policies: tuple[Policy, ...]) -> _Candidates:
    key = (activity_type, policies)
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        found = _index(activity_type, policies)
        _CACHE[key] = found
    return found


def _index(activity_type: str, policies: tuple[Policy, ...]) -> _Candidates:
    facts = _activity_facts(activity_type)
    free: list[tuple[int, _Compiled]] = []
    pinned: dict[tuple[str, str], list[tuple[int, _Compiled]]] = {}
    for order, policy in enumerate(policies):
        condition = _expression(policy.condition)
        if condition is not None and not condition.admits(facts):
            continue
        entry = (order, _compile(policy))
        requirements = condition.target_requirements if condition is not None else {}
        if not requirements:
            free.append(entry)
            continue
        field, allowed = next(iter(requirements.items()))
        for value in allowed:
            pinned.setdefault((field, value), []).append(entry)
    pinned_tuples = {k: tuple(v) for k, v in pinned.items()}
    return _Candidates(tuple(free), pinned_tuples, tuple(compiled for _, compiled in free))


def _activity_facts(activity_type: str) -> dict[str, str | None]:
    resource, action = resource_action(activity_type) or (None, None)
    return {
        "type": activity_type,
        "kind": activity_kind(activity_type),
        "resource": resource,
        "action": action,
    }


def _compile(policy: Policy) -> _Compiled:
    condition = _expression(policy.condition)
    clauses = condition.clauses if condition is not None else ()
    return _Compiled(
        policy,
        condition,
        _expression(policy.consensus),
        _expression(policy.time),
        tuple(clause for clause in clauses if clause[0] is not None),
        tuple(clause[1] for clause in clauses if clause[0] is None),
    )


def _expression(text: str | None) -> Expression | None:
    """The parsed expression (cached by the parser), or ``None`` for an absent one."""
    return parse(text) if text else None
