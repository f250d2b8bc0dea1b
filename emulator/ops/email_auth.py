"""E-mail authentication: email_auth (V1, V2 and V3).

The parent organization's backend runs it with its own API key and the
sub-organization as ``organizationId`` (reference §11.3); the parent's policies
judge it. The user of the target organization with that e-mail address gets an
``EMAIL_AUTH`` API key (``Email Auth - <Timestamp>``, 15 minutes unless
``expirationSeconds``; ``invalidateExisting`` first removes their earlier
e-mail auth keys). Its private key is NOT in the result, which names only the
user and the key: it travels in the e-mail, as a credential bundle sealed to
``targetPublicKey`` (and in the magic link, when ``magicLinkTemplate`` is given).
The e-mail lands in the outbox (template ``email_auth``) once the activity
commits.

What the docs say, and the emulator does:

* "The email_auth activity can only be initiated by a parent organization for a
  sub-organization" (features/organizations.mdx): in a sub-organization, its own
  users are refused (INVALID_ACTIVITY_CALLER, "this activity cannot be called by
  sub-organizations").
* "Email auth cannot be initiated if disabled": ``FEATURE_NAME_EMAIL_AUTH`` must
  be enabled in the target organization (a 400 otherwise: the handler's refusal,
  not the policy engine's 403). Sub-organizations have it from their creation
  unless ``disableEmailAuth``; a top-level organization has it only once
  ``set_organization_feature`` sets it (email.mdx, "For top-level
  organizations"), and then its own users may run email_auth there.
* ``ACTIVITY_TYPE_EMAIL_AUTH_V2`` carries the seed document's intent name,
  ``emailAuthIntent``, beside the real ``emailAuthIntentV2``.
"""

from __future__ import annotations

from typing import Any

from ..ground import messages
from ..ground.errors import InvalidArgument
from ..ground.schema import Boolean, String, label, obj, opt
from ..services import issuance
from ..services.context import Context
from ..services.emails import (
    EMAIL_AUTH_CUSTOMIZATION,
    EMAIL_CUSTOMIZATION,
    SENDER_PARAMS,
    check_customization,
    send_email,
    sender_options,
    user_with_email,
)
from .registry import Version, activity
from .sessions import issue_bundle

Params = dict[str, Any]

EMAIL_AUTH_FEATURE = "FEATURE_NAME_EMAIL_AUTH"
EMAIL_AUTH_TEMPLATE = "email_auth"
EMAIL_AUTH_KEY_PREFIX = "Email Auth"

_COMMON = {
    "email": String(fmt="email"),
    "targetPublicKey": String(fmt="hex"),
    "apiKeyName": opt(label()),
    "expirationSeconds": opt(String()),
    "invalidateExisting": opt(Boolean()),
    **SENDER_PARAMS,
}
# v1EmailAuthIntent and V2: the customization optional; V3: required, with its appName.
EMAIL_AUTH_PARAMS = obj(emailCustomization=opt(EMAIL_CUSTOMIZATION), **_COMMON)
EMAIL_AUTH_PARAMS_V3 = obj(emailCustomization=EMAIL_AUTH_CUSTOMIZATION, **_COMMON)


def _seed_intent(params: Params) -> Params:
    """The seed's ``emailAuthIntent``: the same fields."""
    return {"emailAuthIntent": dict(params)}


def check_may_run(ctx: Context) -> None:
    """Only from the parent in a sub-organization; only where e-mail auth is enabled."""
    if ctx.org.parent_id is not None and ctx.caller.organization is ctx.org:
        raise InvalidArgument(
            messages.SUB_ORGANIZATION_CALLER, turnkey_error_code="INVALID_ACTIVITY_CALLER"
        )
    if EMAIL_AUTH_FEATURE not in ctx.org.features:
        raise InvalidArgument(messages.email_auth_disabled(ctx.org.organization_id))


@activity(
    "email_auth",
    summary="Perform email auth",
    in_seed=True,
    parent_may_run=True,
    default="ACTIVITY_TYPE_EMAIL_AUTH_V3",
    versions=[
        Version(
            "ACTIVITY_TYPE_EMAIL_AUTH", "emailAuthIntent", "emailAuthResult", EMAIL_AUTH_PARAMS
        ),
        Version(
            "ACTIVITY_TYPE_EMAIL_AUTH_V2",
            "emailAuthIntentV2",
            "emailAuthResult",
            EMAIL_AUTH_PARAMS,
            seed_intent_key="emailAuthIntent",
            seed_intent=_seed_intent,
        ),
        Version(
            "ACTIVITY_TYPE_EMAIL_AUTH_V3",
            "emailAuthIntentV3",
            "emailAuthResult",
            EMAIL_AUTH_PARAMS_V3,
        ),
    ],
)
def email_auth(ctx: Context, params: Params) -> Params:
    """An e-mail auth key for the user with ``email``; its bundle goes by e-mail."""
    check_may_run(ctx)
    user = user_with_email(ctx.org, params["email"])
    options = sender_options(params)
    check_customization(options["customization"])
    key, bundle = issue_bundle(
        ctx, user, params, credential_type=issuance.EMAIL_AUTH, name_prefix=EMAIL_AUTH_KEY_PREFIX
    )
    assert user.email is not None
    send_email(
        ctx,
        to=user.email,
        template=EMAIL_AUTH_TEMPLATE,
        fields={"credentialBundle": bundle, "apiKeyId": key.api_key_id, "userId": user.user_id},
        magic_link_value=bundle,
        **options,
    )
    return {"userId": user.user_id, "apiKeyId": key.api_key_id}
