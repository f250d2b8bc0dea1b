"""The answer to a fused signature (``fused.py``), made from its parts.

Made twice from the same parts: once for the caller, and again by the call log when the
call is first read (``recorders.calls.Deferred``). The log's row then keeps the parts, not
the answer: the dicts around them (the activity, its intents and results, the vote, the
timestamps: about a dozen) are freed with the caller's copy while they are still in the
cache, not a thousand calls later when the log drops the bodies. The parts' dicts (the
parameters, the seed intent, the result, the voter as rendered) are the same objects in
both, as a log row's response is the caller's.
"""

from __future__ import annotations

from typing import Any

from .activities import APPROVED, COMPLETED

Json = dict[str, Any]


def answer(
    activity_id: str,
    organization_id: str,
    activity_type: str,
    intent_key: str,
    params: Json,
    seed_intent: Json | None,
    result: Json,
    vote_id: str,
    user_id: str,
    voter: Json,
    message: bytes,
    public_key: str,
    signature: str,
    scheme: str,
    seconds: str,
    nanos: str,
    fingerprint: str,
    timestamp_ms: str,
) -> Json:
    """``render.activity``'s answer for a completed activity of one vote, its proposer's
    (``voter``: ``render.user`` of them), with the seed's envelope."""
    return {
        "activity": {
            "id": activity_id,
            "organizationId": organization_id,
            "status": COMPLETED,
            "type": activity_type,
            "intent": (
                {intent_key: params, **seed_intent} if seed_intent else {intent_key: params}
            ),
            "result": {
                **result,
                "activity": {
                    "type": activity_type,
                    "intent": seed_intent if seed_intent else {intent_key: params},
                    "result": result,
                },
            },
            "votes": [
                {
                    "id": vote_id,
                    "userId": user_id,
                    "user": voter,
                    "activityId": activity_id,
                    "selection": APPROVED,
                    "message": message.decode(),
                    "publicKey": public_key,
                    "signature": signature,
                    "scheme": scheme,
                    "createdAt": {"seconds": seconds, "nanos": nanos},
                }
            ],
            "fingerprint": fingerprint,
            "canApprove": False,
            "canReject": False,
            "createdAt": {"seconds": seconds, "nanos": nanos},
            "updatedAt": {"seconds": seconds, "nanos": nanos},
            "timestampMs": timestamp_ms,
        }
    }
