"""May this caller run this activity in this organization, and with whose approval?

Voters must be users of the organization the activity targets: a credential
of the parent organization may read a sub-organization but not write there
(ORGANIZATION_MISMATCH). Then the policy engine (``policy_engine.py``) judges
the approvals: allow, consensus needed, or a denial, which is the real 403
(code 7) with a ``PolicyEnginePermissionError`` detail listing the policy
outcomes, never an activity.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..ground import messages
from ..ground.errors import InvalidArgument, PermissionDenied
from ..ground.models import Organization
from .auth import Caller
from .policy_engine import DENY_EXPLICIT, DENY_IMPLICIT, Approval, Verdict, judge

POLICY_ENGINE_DETAIL = "type.googleapis.com/errors.v1.PolicyEnginePermissionError"


def check_voter_organization(caller: Caller, target: Organization) -> None:
    """ORGANIZATION_MISMATCH unless the caller is a user of ``target`` itself."""
    if caller.organization is not target:
        raise InvalidArgument(
            messages.organization_mismatch(
                target.organization_id, caller.organization.organization_id
            ),
            turnkey_error_code="ORGANIZATION_MISMATCH",
        )


def approval_of(caller: Caller) -> Approval:
    """The caller's approval: their user, and the public key and scheme their stamp records
    (an API key's hex key and ``SIGNATURE_SCHEME_TK_API_*``; a passkey's COSE key, base64url
    as ``credential.publicKey`` shows it, and ``SIGNATURE_SCHEME_TK_WEBAUTHN``)."""
    return Approval(caller.user, caller.stamp.public_key, caller.stamp.scheme)


def authorize(
    target: Organization,
    activity_type: str,
    params: Mapping[str, Any],
    approvals: Sequence[Approval],
    now_ns: int,
    *,
    proposer_id: str,
    root_quorum_only: bool,
    self_service: bool,
) -> Verdict:
    """The engine's verdict (ALLOW or CONSENSUS_NEEDED); the real 403 for a denial."""
    verdict = judge(
        target,
        activity_type,
        params,
        approvals,
        now_ns,
        proposer_id=proposer_id,
        root_quorum_only=root_quorum_only,
        self_service=self_service,
    )
    if verdict.decision in (DENY_EXPLICIT, DENY_IMPLICIT):
        raise denial(verdict)
    return verdict


def denial(verdict: Verdict) -> PermissionDenied:
    """The real 403s: an explicit deny carries no details (as captured live); an implicit
    one names the outcome it missed and lists the policies that took part."""
    if verdict.decision == DENY_EXPLICIT:
        return PermissionDenied(messages.EXPLICIT_DENY)
    evaluations = [{"policyId": p, "outcome": o} for p, o in verdict.outcomes]
    return PermissionDenied(
        messages.IMPLICIT_DENY,
        details=[
            {
                "@type": POLICY_ENGINE_DETAIL,
                "message": messages.NO_POLICY_ALLOWED,
                "policyEvaluations": evaluations,
            }
        ],
    )
