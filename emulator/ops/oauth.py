"""Social logins: oauth, oauth_login, and a user's OAuth providers.

* ``oauth`` (BETA) and ``oauth_login`` take an OIDC ID token, verify it
  (``services/oidc.py``: signature under the issuer's JWKS, ``exp``, ``sub``,
  ``aud``, and a ``nonce``/``tknonce`` equal to SHA-256 of the client key's hex),
  and find the organization's user with an OAuth provider of the token's
  ``iss``, ``sub`` and ``aud``. ``oauth`` issues that user an ``OAUTH`` API key
  and answers its private key as a credential bundle sealed to
  ``targetPublicKey`` (the nonce binds that key, as the client sent it);
  ``oauth_login`` registers the client's ``publicKey`` as the user's login key
  and answers the session JWT. A user of the parent organization may run both
  in a sub-organization (reference §11.3), under the parent's policies.
* ``create_oauth_providers`` (BETA; V1 in the seed, V2 takes ``oidcClaims`` too)
  adds providers to a user: at most 10 per user, each identity one user's in the
  organization, tokens verified as above without a nonce. A user may add their
  own without a policy. The parent organization may add one only from a Google
  token whose e-mail Google verified and that is the user's e-mail (TS
  ``sdk-server`` ``createOauthProviders``); anything else from the parent is the
  usual organization mismatch.
* ``delete_oauth_providers`` and the query ``get_oauth_providers``.
"""

from __future__ import annotations

from typing import Any

from ..ground import messages, render
from ..ground.errors import NotFound
from ..ground.models import Organization, User
from ..ground.schema import Array, Boolean, String, label, obj, opt, uuid
from ..services import issuance
from ..services import sessions as session_service
from ..services.authorization import check_voter_organization
from ..services.context import Context
from ..services.credentials import add_oauth_provider
from ..services.oidc import OidcIdentity, verify_token
from .params import OAUTH_PROVIDER_PARAMS, OAUTH_PROVIDER_PARAMS_V2
from .registry import Version, activity, query
from .sessions import check_login_public_key, check_target_public_key, issue_bundle
from .users import find_user

Params = dict[str, Any]

OAUTH_KEY_PREFIX = "Oauth"
OAUTH_PARAMS = obj(
    oidcToken=String(),
    targetPublicKey=String(fmt="hex"),
    apiKeyName=opt(label()),
    expirationSeconds=opt(String()),
    invalidateExisting=opt(Boolean()),
)
OAUTH_LOGIN_PARAMS = obj(
    oidcToken=String(),
    publicKey=String(fmt="hex"),
    expirationSeconds=opt(String()),
    invalidateExisting=opt(Boolean()),
    sessionProfileId=opt(String()),
)


def user_with_identity(org: Organization, identity: OidcIdentity) -> User:
    """The user whose OAuth provider is the token's ``iss``, ``sub`` and (one of) ``aud``."""
    for user in org.users.values():
        if any(identity.names(p) for p in user.oauth_providers.values()):
            return user
    raise NotFound(messages.oauth_user_not_found(org.organization_id))


def _authenticated_user(ctx: Context, token: str, public_key: str) -> User:
    identity = verify_token(ctx.world, token, ctx.now_ns, public_key=public_key)
    return user_with_identity(ctx.org, identity)


@activity(
    "oauth",
    summary="Oauth",
    in_seed=True,
    parent_may_run=True,
    default="ACTIVITY_TYPE_OAUTH",
    versions=[Version("ACTIVITY_TYPE_OAUTH", "oauthIntent", "oauthResult", OAUTH_PARAMS)],
)
def oauth(ctx: Context, params: Params) -> Params:
    """A credential bundle of a new OAUTH key for the token's user."""
    check_target_public_key(params["targetPublicKey"])
    user = _authenticated_user(ctx, params["oidcToken"], params["targetPublicKey"])
    key, bundle = issue_bundle(
        ctx, user, params, credential_type=issuance.OAUTH, name_prefix=OAUTH_KEY_PREFIX
    )
    return {"userId": user.user_id, "apiKeyId": key.api_key_id, "credentialBundle": bundle}


@activity(
    "oauth_login",
    summary="Login with Oauth",
    parent_may_run=True,
    default="ACTIVITY_TYPE_OAUTH_LOGIN",
    versions=[
        Version(
            "ACTIVITY_TYPE_OAUTH_LOGIN", "oauthLoginIntent", "oauthLoginResult", OAUTH_LOGIN_PARAMS
        )
    ],
)
def oauth_login(ctx: Context, params: Params) -> Params:
    """The token's user's new login key and its session JWT."""
    public_key = check_login_public_key(params["publicKey"])
    user = _authenticated_user(ctx, params["oidcToken"], params["publicKey"])
    _, session = session_service.login(
        ctx,
        user,
        public_key=public_key,
        expiration_seconds=params.get("expirationSeconds"),
        invalidate_existing=params.get("invalidateExisting", False),
        session_profile_id=params.get("sessionProfileId") or None,
    )
    return {"session": session}


def _check_parent_may_add(ctx: Context, user: User, providers: list[Params]) -> None:
    """From the parent organization, only Google tokens of the user's verified e-mail."""
    if ctx.caller.organization is ctx.org:
        return
    for spec in providers:
        token = spec.get("oidcToken")
        identity = verify_token(ctx.world, token, ctx.now_ns) if token else None
        if not (
            identity is not None
            and identity.is_google
            and identity.email_verified
            and identity.email is not None
            and user.email is not None
            and identity.email.casefold() == user.email.casefold()
        ):
            check_voter_organization(ctx.caller, ctx.org)


@activity(
    "create_oauth_providers",
    summary="Create Oauth providers",
    in_seed=True,
    self_service=True,
    parent_may_run=True,
    default="ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
            "createOauthProvidersIntent",
            "createOauthProvidersResult",
            obj(userId=uuid(), oauthProviders=Array(OAUTH_PROVIDER_PARAMS, min_items=1)),
        ),
        Version(
            "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2",
            "createOauthProvidersIntentV2",
            "createOauthProvidersResultV2",
            obj(userId=uuid(), oauthProviders=Array(OAUTH_PROVIDER_PARAMS_V2, min_items=1)),
        ),
    ],
)
def create_oauth_providers(ctx: Context, params: Params) -> Params:
    user = find_user(ctx.org, params["userId"])
    _check_parent_may_add(ctx, user, params["oauthProviders"])
    made = [add_oauth_provider(ctx, user, spec) for spec in params["oauthProviders"]]
    return {"providerIds": [p.provider_id for p in made]}


@activity(
    "delete_oauth_providers",
    summary="Delete Oauth providers",
    self_service=True,
    default="ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS",
            "deleteOauthProvidersIntent",
            "deleteOauthProvidersResult",
            obj(userId=uuid(), providerIds=Array(uuid(), min_items=1)),
        )
    ],
)
def delete_oauth_providers(ctx: Context, params: Params) -> Params:
    user = find_user(ctx.org, params["userId"])
    provider_ids = list(dict.fromkeys(params["providerIds"]))
    for provider_id in provider_ids:
        if provider_id not in user.oauth_providers:
            raise NotFound(messages.oauth_provider_not_found(provider_id, ctx.org.organization_id))
        ctx.tx.pop(user.oauth_providers, provider_id)
    return {"providerIds": provider_ids}


@query(
    "get_oauth_providers",
    summary="Get Oauth providers",
    body=obj(userId=opt(uuid())),
    result_keys=("oauthProviders",),
)
def get_oauth_providers(ctx: Context, body: Params) -> Params:
    """The providers of ``userId``, or of the caller when it is not given."""
    if not body.get("userId") and ctx.caller.organization is not ctx.org:
        return {"oauthProviders": []}
    user = find_user(ctx.org, body.get("userId") or ctx.caller.user.user_id)
    return {"oauthProviders": [render.oauth_provider(p) for p in user.oauth_providers.values()]}
