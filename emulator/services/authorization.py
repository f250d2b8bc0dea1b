"""May this caller run this activity in this organization?

Root quorum members may do anything; any user may manage their own
credentials; everything else is the real implicit deny (403). A credential of
the parent organization may read a sub-organization but not write there.
Policies (issue: policies and consensus) will slot in before the deny.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import messages
from ..errors import InvalidArgument, PermissionDenied
from ..models import Organization
from .auth import Caller

POLICY_ENGINE_DETAIL = "type.googleapis.com/errors.v1.PolicyEnginePermissionError"


def authorize_activity(
    caller: Caller, target: Organization, params: Mapping[str, Any], *, self_service: bool
) -> None:
    """Raise the real service's error unless ``caller`` may run the activity."""
    if caller.organization is not target:
        raise InvalidArgument(
            messages.organization_mismatch(
                target.organization_id, caller.organization.organization_id
            ),
            turnkey_error_code="ORGANIZATION_MISMATCH",
        )
    user_id = caller.user.user_id
    if user_id in target.root_quorum.user_ids:
        return
    if self_service and params.get("userId") == user_id:
        return
    raise PermissionDenied(
        messages.IMPLICIT_DENY,
        details=[
            {
                "@type": POLICY_ENGINE_DETAIL,
                "message": messages.NO_POLICY_ALLOWED,
                "policyEvaluations": [],
            }
        ],
    )
