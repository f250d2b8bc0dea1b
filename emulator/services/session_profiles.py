"""Session profiles: sessions limited to a scope (features/authentication/sessions/session-profiles).

A profile is made once and never changed or deleted. A login activity given its
``sessionProfileId`` issues a session whose key carries the profile: the session's
expiry is the shorter of the login's and the profile's (900 s when neither is set),
its JWT names the profile, its scope and, as ``session_type``, the profile's name.
Every activity stamped with that key is judged by the scope, an expression of the
policy language over the same keywords as a policy's condition; unless it holds, the
request is refused (403) before the policy engine runs. Queries are not judged: the
scope's keywords (``activity.*``, ``wallet``...) describe activities.

An organization sees its own profiles and its parent's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine_state.store import Store
from ..ground import messages
from ..ground.controls import SessionProfile
from ..ground.errors import NotFound, PermissionDenied
from ..ground.models import Organization
from ..ground.numbers import integer
from ..policy import PolicyEvaluationError, parse
from .auth import Caller
from .policy_environment import condition_environment


def visible(store: Store, org: Organization) -> list[SessionProfile]:
    """The profiles ``org`` sees: its parent's, then its own, oldest first."""
    parent = store.organizations.get(org.parent_id or "")
    inherited = list(parent.session_profiles.values()) if parent is not None else []
    return [*inherited, *org.session_profiles.values()]


def find(store: Store, org: Organization, session_profile_id: str) -> SessionProfile:
    for profile in visible(store, org):
        if profile.session_profile_id == session_profile_id:
            return profile
    raise NotFound(messages.session_profile_not_found(session_profile_id, org.organization_id))


def session_expiration(requested: int | None, profile: SessionProfile | None) -> str | None:
    """The session's lifetime: the shorter of the login's (read by
    ``credentials.api_key_expiration``) and the profile's (``None``: neither is set, and
    the login's default applies)."""
    given = [requested, integer(profile.expiration_seconds) if profile else None]
    known = [seconds for seconds in given if seconds]
    return str(min(known)) if known else None


def check_scope(
    store: Store,
    target: Organization,
    caller: Caller,
    activity_type: str,
    params: Mapping[str, Any],
    now_ns: int,
) -> None:
    """Refuse an activity stamped with a session key whose profile's scope does not hold."""
    key = caller.api_key
    if key is None or key.session_profile_id is None:
        return
    try:
        profile = find(store, caller.organization, key.session_profile_id)
    except NotFound:
        raise PermissionDenied(
            messages.session_scope_denied(key.session_profile_id),
            turnkey_error_code="REQUEST_NOT_AUTHORIZED",
        ) from None
    env = condition_environment(target, activity_type, params, now_ns)
    try:
        held = parse(profile.scope).test(env)
    except PolicyEvaluationError:
        held = False
    if held is not True:
        raise PermissionDenied(
            messages.session_scope_denied(profile.session_profile_id),
            turnkey_error_code="REQUEST_NOT_AUTHORIZED",
        )
