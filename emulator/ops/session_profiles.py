"""Session profiles: create_session_profile, get_session_profile, get_session_profiles.

What a profile does to the sessions issued with it is ``services/session_profiles.py``'s.
"""

from __future__ import annotations

from typing import Any

from ..ground import messages, render
from ..ground.controls import SessionProfile
from ..ground.errors import InvalidArgument
from ..ground.schema import String, label, obj, opt, uuid
from ..policy import PolicySyntaxError, parse
from ..services import session_profiles
from ..services.context import Context
from .registry import Version, activity, query

Params = dict[str, Any]


def render_profile(profile: SessionProfile) -> Params:
    """``v1SessionProfile``."""
    out: Params = {
        "sessionProfileId": profile.session_profile_id,
        "sessionProfileName": profile.name,
        "scope": profile.scope,
        "notes": profile.notes,
        "createdAt": render.timestamp(profile.created_at),
        "updatedAt": render.timestamp(profile.created_at),  # immutable: never updated
    }
    if profile.expiration_seconds is not None:
        out["expirationSeconds"] = profile.expiration_seconds
    return out


@activity(
    "create_session_profile",
    summary="Create session profile",
    default="ACTIVITY_TYPE_CREATE_SESSION_PROFILE",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_SESSION_PROFILE",
            "createSessionProfileIntent",
            "createSessionProfileResult",
            obj(
                sessionProfileName=label(),
                scope=String(),
                expirationSeconds=opt(String(fmt="uint")),
                notes=opt(String(allow_empty=True)),
            ),
        )
    ],
)
def create_session_profile(ctx: Context, params: Params) -> Params:
    scope = params["scope"]
    try:
        parse(scope)
    except PolicySyntaxError as error:
        raise InvalidArgument(messages.invalid_session_profile_scope(str(error))) from None
    expiration = params.get("expirationSeconds")
    if expiration is not None and int(expiration) == 0:
        raise InvalidArgument(messages.SESSION_PROFILE_EXPIRATION_ZERO)
    profile = SessionProfile(
        session_profile_id=ctx.new_id(),
        name=params["sessionProfileName"],
        scope=scope,
        created_at=ctx.now_ns,
        expiration_seconds=expiration,
        notes=params.get("notes", ""),
    )
    ctx.tx.put(ctx.org.session_profiles, profile.session_profile_id, profile)
    return {"sessionProfileId": profile.session_profile_id}


@query(
    "get_session_profile",
    summary="Get session profile",
    body=obj(sessionProfileId=uuid()),
    result_keys=("sessionProfile",),
)
def get_session_profile(ctx: Context, body: Params) -> Params:
    profile = session_profiles.find(ctx.store, ctx.org, body["sessionProfileId"])
    return {"sessionProfile": render_profile(profile)}


@query(
    "get_session_profiles",
    summary="List session profiles",
    body=obj(),
    result_keys=("sessionProfiles",),
)
def get_session_profiles(ctx: Context, body: Params) -> Params:
    return {
        "sessionProfiles": [render_profile(p) for p in session_profiles.visible(ctx.store, ctx.org)]
    }
