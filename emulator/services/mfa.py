"""MFA policies at work: which one holds for an activity, and what a stamp presents.

The docs (features/authentication/mfa) are followed throughout:

* MFA is evaluated for the user who stamped, root users included, before the policy
  engine lets a root user through. Their policies are read in ``order`` (lower first; the
  older first on a tie); the first whose ``condition`` holds for the activity is the one
  enforced, and the only one. A condition that fails to evaluate does not hold, as in
  the policy engine.
* A policy's steps are each satisfied by any one of its methods; every step must be. A
  credential is not used up: each step is checked against everything the user has
  presented on the activity (the stamp that proposed it, then each ``approve_activity``).
* What a stamp presents: an attested stamp (``X-Stamp-Attested``) what its token proves,
  ``AUTHENTICATION_TYPE_EMAIL_OTP`` or ``_SMS_OTP`` (no id) for a verification token,
  ``AUTHENTICATION_TYPE_OAUTH`` (the matching OAuth provider's id) for an OIDC token; a
  passkey stamp ``AUTHENTICATION_TYPE_PASSKEY`` (its authenticator's id); a long-lived API key ``AUTHENTICATION_TYPE_API_KEY`` (its id); a
  key that a login or auth flow issued ``AUTHENTICATION_TYPE_SESSION`` (the id of the
  session profile it was issued with, or the default session's all-zero id). Sessions
  are not transitive: a session made with a passkey presents only the session.
* A policy must be one its user can meet when it is written (a type's credential must
  exist, a pinned id must name it), so a policy cannot lock a user out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..engine_state.store import Store
from ..ground import messages
from ..ground.controls import AuthMethod, MfaPolicy, MfaProgress
from ..ground.errors import InvalidArgument, NotFound
from ..ground.models import API_KEY_CREDENTIAL_TYPES, Activity, Organization, User
from ..policy import PolicyEvaluationError, PolicySyntaxError, parse
from . import session_profiles
from .auth import Caller
from .policy_environment import condition_environment

PASSKEY = "AUTHENTICATION_TYPE_PASSKEY"
API_KEY = "AUTHENTICATION_TYPE_API_KEY"
SESSION = "AUTHENTICATION_TYPE_SESSION"
EMAIL_OTP = "AUTHENTICATION_TYPE_EMAIL_OTP"
SMS_OTP = "AUTHENTICATION_TYPE_SMS_OTP"
OAUTH = "AUTHENTICATION_TYPE_OAUTH"
TYPES = (EMAIL_OTP, SMS_OTP, PASSKEY, API_KEY, OAUTH, SESSION)
# The session a login issues when it names no session profile (the docs' example id).
DEFAULT_SESSION_PROFILE_ID = "00000000-0000-0000-0000-000000000000"
# How the creation error names each type ("Passkey" is the docs' own example).
_LABELS = {
    PASSKEY: "Passkey",
    API_KEY: "ApiKey",
    SESSION: "Session",
    EMAIL_OTP: "EmailOtp",
    SMS_OTP: "SmsOtp",
    OAUTH: "Oauth",
}
_LONG_LIVED = frozenset(API_KEY_CREDENTIAL_TYPES.values())

Steps = tuple[tuple[AuthMethod, ...], ...]


def presented(caller: Caller) -> AuthMethod:
    """The method the caller's stamp proves."""
    if caller.attested is not None:
        return caller.attested
    if caller.authenticator is not None:
        return AuthMethod(PASSKEY, caller.authenticator.authenticator_id)
    key = caller.api_key
    if key is None:  # a proposer whose key is gone presents nothing that can match
        return AuthMethod(API_KEY, None)
    if key.credential_type in _LONG_LIVED:
        return AuthMethod(API_KEY, key.api_key_id)
    return AuthMethod(SESSION, key.session_profile_id or DEFAULT_SESSION_PROFILE_ID)


def satisfying(required: Steps, methods: Iterable[AuthMethod]) -> list[AuthMethod]:
    """The presented methods that satisfy some step, each once, in the order presented."""
    out: list[AuthMethod] = []
    for method in methods:
        if method not in out and any(method.satisfies(w) for step in required for w in step):
            out.append(method)
    return out


def enforced(
    caller: Caller,
    target: Organization,
    activity_type: str,
    params: Mapping[str, Any],
    now_ns: int,
) -> MfaPolicy | None:
    """The caller's first MFA policy whose condition holds for this activity, or None."""
    holder = caller.organization
    if not holder.mfa_policies:
        return None
    env = None
    for policy in holder.mfa_policies_of(caller.user.user_id):
        if env is None:
            env = condition_environment(target, activity_type, params, now_ns)
        try:
            held = parse(policy.condition).test(env)
        except PolicyEvaluationError:
            held = False
        if held is True:
            return policy
    return None


def progress_for(
    caller: Caller,
    target: Organization,
    activity_type: str,
    params: Mapping[str, Any],
    now_ns: int,
) -> MfaProgress | None:
    """The caller's MFA on this activity, with the stamp they sent it with; None when no
    MFA policy of theirs holds for it."""
    policy = enforced(caller, target, activity_type, params, now_ns)
    if policy is None:
        return None
    return MfaProgress(
        caller.user.user_id, policy.mfa_policy_id, policy.required, [presented(caller)]
    )


def progress_of(activity: Activity, user_id: str) -> MfaProgress | None:
    return next((p for p in activity.mfa if p.user_id == user_id), None)


def owes(activity: Activity, user_id: str) -> bool:
    """Whether the user's MFA on the activity is still unsatisfied."""
    progress = progress_of(activity, user_id)
    return progress is not None and not progress.satisfied


def unsatisfied_users(activity: Activity) -> frozenset[str]:
    return frozenset(p.user_id for p in activity.mfa if not p.satisfied)


# ----- writing a policy ----------------------------------------------------------------


def steps_from(params: list[Mapping[str, Any]]) -> Steps:
    """``requiredAuthenticationMethods`` as steps; a step with no method is refused."""
    if not params:
        raise InvalidArgument(messages.MFA_NO_REQUIRED_METHODS)
    steps = []
    for index, step in enumerate(params):
        methods = tuple(AuthMethod(m["type"], m.get("id") or None) for m in step["any"])
        if not methods:
            raise InvalidArgument(messages.mfa_empty_step(index))
        steps.append(methods)
    return tuple(steps)


def check_condition(condition: str) -> None:
    try:
        parse(condition)
    except PolicySyntaxError as error:
        raise InvalidArgument(messages.invalid_mfa_condition(str(error))) from None


def check_satisfiable(
    store: Store, org: Organization, user: User, name: str, required: Steps
) -> None:
    """Refuse a policy ``user`` has no way to meet today (the docs' creation-time check)."""
    for step in required:
        if not any(_can_present(store, org, user, method) for method in step):
            labels = ", ".join(f'"{_LABELS[m.type]}"' for m in step)
            raise InvalidArgument(messages.mfa_unsatisfiable(user.user_id, name, labels))


def _can_present(store: Store, org: Organization, user: User, method: AuthMethod) -> bool:
    if method.type == PASSKEY:
        return bool(user.authenticators) and (method.id is None or method.id in user.authenticators)
    if method.type == API_KEY:
        keys = [k for k in user.api_keys.values() if k.credential_type in _LONG_LIVED]
        return any(method.id is None or k.api_key_id == method.id for k in keys)
    if method.type == EMAIL_OTP:
        return bool(user.email)
    if method.type == SMS_OTP:
        return bool(user.phone_number)
    if method.type == OAUTH:
        return bool(user.oauth_providers) and (
            method.id is None or method.id in user.oauth_providers
        )
    # a session is always obtainable; a pinned one names a session profile
    if method.id is None or method.id == DEFAULT_SESSION_PROFILE_ID:
        return True
    try:
        session_profiles.find(store, org, method.id)
    except NotFound:
        return False
    return True
