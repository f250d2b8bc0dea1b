"""E-mail recovery (legacy): init_user_email_recovery, then recover_user.

``init_user_email_recovery`` finds the user of the target organization with the
given e-mail address, gives them a recovery credential (an expiring P-256 API
key of type ``CREDENTIAL_TYPE_RECOVER_USER_KEY_P256``, 15 minutes unless
``expirationSeconds``, named ``Email Recovery - <Timestamp>``) and mails its
private key as a credential bundle sealed to ``targetPublicKey`` (outbox
template ``email_recovery``; the magic link carries the bundle in place of the
``%s`` of ``magicLinkTemplate``). The result names only the user. The client
opens the bundle and, stamping with that key, runs ``recover_user`` to add a
new passkey to the user; the user then signs in with it.

What the docs say (the legacy "Email Recovery" page, features/organizations.mdx),
and the emulator does:

* "only if the feature is enabled": ``FEATURE_NAME_EMAIL_RECOVERY`` must be enabled
  in the target organization (403 otherwise). Sub-organizations have it from their
  creation unless ``disableEmailRecovery``; a top-level organization only once
  ``set_organization_feature`` sets it.
* It "can be performed by the root user or by any user in an organization if
  authorized by policy ... [and] can target any user in this organization or any
  sub-organization user": the organization's own users (judged by its policies)
  and the parent's (judged by the parent's policies, reference §11.3) may run it.
* "This email must be the email already attached to the user ... If you try to
  pass a different email address, the activity will fail": the 404 of
  ``user_with_email``.
* "recovery credentials ... are overridden when multiple INIT_USER_EMAIL_RECOVERY
  activities target the same user. Only the most recent recovery credential is
  valid": a new one removes the user's earlier recovery keys.
* recover_user: "a user is always able to add credentials to their own user. This
  includes adding a new authenticator when authenticated with a recovery
  credential": it is self-service, and it adds the authenticator, nothing more.
  The docs do not say the recovery key is used up nor limit what it may do: it
  stays, an ordinary expiring key of the user, until it expires or a new
  recovery replaces it.
* ``ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY`` (the seed document's type) carries
  ``initUserEmailRecoveryIntent``; ``_V2`` (the default, the real SDKs' type)
  ``initUserEmailRecoveryIntentV2``, whose ``emailCustomization`` and its
  ``appName`` are required.
"""

from __future__ import annotations

from typing import Any

from ..ground import messages
from ..ground.errors import InvalidArgument
from ..ground.schema import String, obj, opt, uuid
from ..services import issuance
from ..services.context import Context
from ..services.credentials import add_authenticator
from ..services.emails import (
    EMAIL_AUTH_CUSTOMIZATION,
    EMAIL_CUSTOMIZATION,
    SENDER_PARAMS,
    check_customization,
    send_email,
    sender_options,
    user_with_email,
)
from .params import AUTHENTICATOR_PARAMS_V2
from .registry import Version, activity
from .sessions import issue_bundle
from .users import find_user

Params = dict[str, Any]

EMAIL_RECOVERY_FEATURE = "FEATURE_NAME_EMAIL_RECOVERY"
RECOVERY_TEMPLATE = "email_recovery"
RECOVERY_KEY_PREFIX = "Email Recovery"

_COMMON = {
    "email": String(fmt="email"),
    "targetPublicKey": String(fmt="hex"),
    "expirationSeconds": opt(String()),
    **SENDER_PARAMS,
}
INIT_RECOVERY_PARAMS = obj(emailCustomization=opt(EMAIL_CUSTOMIZATION), **_COMMON)
INIT_RECOVERY_PARAMS_V2 = obj(emailCustomization=EMAIL_AUTH_CUSTOMIZATION, **_COMMON)


@activity(
    "init_user_email_recovery",
    summary="Init email recovery",
    in_seed=True,
    parent_may_run=True,
    default="ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2",
    versions=[
        Version(
            "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY",
            "initUserEmailRecoveryIntent",
            "initUserEmailRecoveryResult",
            INIT_RECOVERY_PARAMS,
        ),
        Version(
            "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2",
            "initUserEmailRecoveryIntentV2",
            "initUserEmailRecoveryResult",
            INIT_RECOVERY_PARAMS_V2,
        ),
    ],
)
def init_user_email_recovery(ctx: Context, params: Params) -> Params:
    """A recovery key for the user with ``email``; its bundle goes by e-mail."""
    if EMAIL_RECOVERY_FEATURE not in ctx.org.features:
        raise InvalidArgument(messages.email_recovery_disabled(ctx.org.organization_id))
    user = user_with_email(ctx.org, params["email"])
    options = sender_options(params)
    check_customization(options["customization"])
    key, bundle = issue_bundle(
        ctx,
        user,
        {**params, "invalidateExisting": True},  # only the newest recovery key is valid
        credential_type=issuance.RECOVER_USER,
        name_prefix=RECOVERY_KEY_PREFIX,
    )
    assert user.email is not None
    send_email(
        ctx,
        to=user.email,
        template=RECOVERY_TEMPLATE,
        fields={"credentialBundle": bundle, "apiKeyId": key.api_key_id, "userId": user.user_id},
        magic_link_value=bundle,
        **options,
    )
    return {"userId": user.user_id}


@activity(
    "recover_user",
    summary="Recover a user",
    in_seed=True,
    self_service=True,
    default="ACTIVITY_TYPE_RECOVER_USER",
    versions=[
        Version(
            "ACTIVITY_TYPE_RECOVER_USER",
            "recoverUserIntent",
            "recoverUserResult",
            obj(authenticator=AUTHENTICATOR_PARAMS_V2, userId=uuid()),
        )
    ],
)
def recover_user(ctx: Context, params: Params) -> Params:
    """Add the new passkey to the user (stamped, as a rule, by their recovery key)."""
    user = find_user(ctx.org, params["userId"])
    authenticator = add_authenticator(ctx, user, params["authenticator"], "authenticator")
    return {"authenticatorId": [authenticator.authenticator_id]}
