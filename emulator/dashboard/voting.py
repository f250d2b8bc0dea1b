"""Approve or reject an activity from the dashboard, as a user whose key the emulator holds.

The vote is the API's own: an ``approve_activity`` or ``reject_activity`` request for the
activity's fingerprint, in its organization, stamped (``X-Stamp``) with the user's API key
and answered by the same ``handle`` the wire uses. So the policy engine judges it, the
vote records the real stamp, and the call log shows it like any client's request.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..crypto.stamps import sign_stamp
from ..ground import jsontext
from ..http.app import handle
from ..ops.registry import SUBMIT_PREFIX
from ..services import activity_lookup
from .params import ViewError, text
from .views import held_key_of

if TYPE_CHECKING:
    from ..facade.api import Emulator

Json = dict[str, Any]

DECISIONS = {
    "approve": ("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY"),
    "reject": ("reject_activity", "ACTIVITY_TYPE_REJECT_ACTIVITY"),
}


def vote(emulator: Emulator, params: Json) -> Json:
    """``{activityId, userId, decision: "approve" | "reject"}`` → ``{httpStatus, activity}``
    (the API's answer), or ``{httpStatus, error}`` when the API refused the vote."""
    decision = params.get("decision")
    if decision not in DECISIONS:
        raise ViewError(400, "decision must be 'approve' or 'reject'")
    activity_id, user_id = text(params, "activityId"), text(params, "userId")
    world = emulator.world
    with world.lock:
        store = world.store
        target = activity_lookup.by_id(world, activity_id)
        org = store.organizations.get(target.organization_id) if target is not None else None
        if target is None or org is None:
            raise ViewError(404, f"no activity {activity_id}")
        key = held_key_of(emulator, org, user_id)
        if key is None:
            raise ViewError(
                400, f"the emulator holds no API key of user {user_id} in {org.organization_id}"
            )
        operation, activity_type = DECISIONS[decision]
        body = json.dumps(
            {
                "type": activity_type,
                "timestampMs": str(world.clock.now_ms()),
                "organizationId": org.organization_id,
                "parameters": {"fingerprint": target.fingerprint},
            }
        ).encode()
        headers = {
            "content-type": "application/json",
            "x-stamp": sign_stamp(body, key).header_value(),
        }
        status, answer = handle(world, "POST", SUBMIT_PREFIX + operation, headers, body)
    parsed = jsontext.loads(answer)
    if status != 200:
        return {"httpStatus": status, "error": parsed}
    return {"httpStatus": status, "activity": parsed["activity"]}
