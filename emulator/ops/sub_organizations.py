"""Sub-organizations: create_sub_organization, delete_sub_organization, list_suborgs,
list_verified_suborgs.

A new sub-organization is built inside the parent's activity, in its one
transaction: the organization, its root users with their credentials (the
``create_users`` helpers, run in a context whose organization is the new one),
its root quorum, and its first wallet (V4 and later) or private keys (V3). Any
failure leaves nothing behind.

Versions V1 to V8 are accepted; each is upgraded to the V8 shape (root users as
V4 user params) and answers its own result key. Older results differ only in
what they carry: V1 and V2 have no wallet, V3 private keys instead of a wallet.
V1 names only a passkey (``rootAuthenticator``): its one root user is named
``Root User`` (the real service's name for it is not public), quorum one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..ground.models import Organization, Quorum
from ..ground.schema import Array, Boolean, Enum, Integer, Object, String, label, obj, opt
from ..services import keys
from ..services import sub_organizations as sub_orgs
from ..services.context import Context
from ..services.organizations import SUB_ORGANIZATION_FEATURES, check_quorum, initial_features
from ..services.otp import EMAIL_OTP, mark_verified
from ..services.pagination import PAGINATION, paginate
from ..services.verification import check_signup
from .params import (
    API_KEY_PARAMS,
    API_KEY_PARAMS_V2,
    AUTHENTICATOR_PARAMS_V2,
    OAUTH_PROVIDER_PARAMS,
    OAUTH_PROVIDER_PARAMS_V2,
    upgrade_user,
)
from .private_keys import PRIVATE_KEY_PARAMS, new_private_key
from .registry import Version, activity, query
from .users import create_user
from .wallets import DEFAULT_MNEMONIC_LENGTH, WALLET_ACCOUNT_PARAMS, new_wallet

Params = dict[str, Any]

# --- parameter shapes, per version (names and required-ness as the SDK's models) ---------

_EMAIL = String(fmt="email", max_length=256)
ROOT_USER_PARAMS = obj(  # v1RootUserParams: V2, V3 and V4
    userName=label(),
    userEmail=opt(_EMAIL),
    apiKeys=Array(API_KEY_PARAMS),
    authenticators=Array(AUTHENTICATOR_PARAMS_V2),
)
# Each later shape is the one before with one change.
ROOT_USER_PARAMS_V2 = obj(  # V5: OAuth providers
    **{**ROOT_USER_PARAMS.fields, "oauthProviders": Array(OAUTH_PROVIDER_PARAMS)}
)
ROOT_USER_PARAMS_V3 = obj(  # V6: V2 API key params
    **{**ROOT_USER_PARAMS_V2.fields, "apiKeys": Array(API_KEY_PARAMS_V2)}
)
ROOT_USER_PARAMS_V4 = obj(  # V7: a phone number
    **{**ROOT_USER_PARAMS_V3.fields, "userPhoneNumber": opt(String(fmt="e164"))}
)
ROOT_USER_PARAMS_V5 = obj(  # V8: V2 OAuth provider params
    **{**ROOT_USER_PARAMS_V4.fields, "oauthProviders": Array(OAUTH_PROVIDER_PARAMS_V2)}
)
WALLET_PARAMS = obj(  # v1WalletParams
    walletName=label(),
    accounts=Array(WALLET_ACCOUNT_PARAMS),
    mnemonicLength=opt(Integer()),
)
CLIENT_SIGNATURE = obj(  # v1ClientSignature: accepted, not checked yet (the OTP issue will)
    publicKey=String(),
    scheme=Enum(("CLIENT_SIGNATURE_SCHEME_API_P256",)),
    message=String(),
    signature=String(),
)


def _intent(root_user: Object, *, extra: dict | None = None) -> Object:
    return obj(
        subOrganizationName=label(),
        rootUsers=Array(root_user, min_items=1),
        rootQuorumThreshold=Integer(),
        **(extra or {}),
    )


_V4_EXTRA = {
    "wallet": opt(WALLET_PARAMS),
    "disableEmailRecovery": opt(Boolean()),
    "disableEmailAuth": opt(Boolean()),
}
_V7_EXTRA = {
    **_V4_EXTRA,
    "disableSmsAuth": opt(Boolean()),
    "disableOtpEmailAuth": opt(Boolean()),
    "verificationToken": opt(String()),  # checked by services/verification.check_signup
    "clientSignature": opt(CLIENT_SIGNATURE),
}


V1_ROOT_USER_NAME = "Root User"


def _upgrade_v1(params: Params) -> Params:
    """V1 (``{name, rootAuthenticator}``) in the V8 shape: one root user with the passkey."""
    root_user = {
        "userName": V1_ROOT_USER_NAME,
        "apiKeys": [],
        "authenticators": [params["rootAuthenticator"]],
        "oauthProviders": [],
        "userTags": [],
    }
    return {
        "subOrganizationName": params["name"],
        "rootUsers": [root_user],
        "rootQuorumThreshold": 1,
    }


def _upgrade(params: Params) -> Params:
    """Any version to the V8 shape: root users as V4 user params (no tags)."""
    return {**params, "rootUsers": [upgrade_user(u) for u in params["rootUsers"]]}


# What the handler is told of V8 beyond its shape: it takes verification tokens of the
# encrypted OTP flow only (otp-migration-guide.mdx). Not a wire field; not in the intent.
ENCRYPTED_TOKENS_ONLY = "_encryptedTokensOnly"


def _upgrade_v8(params: Params) -> Params:
    return {**_upgrade(params), ENCRYPTED_TOKENS_ONLY: True}


def _version(number: int, root_user: Object, extra: dict | None, result: str) -> Version:
    suffix = f"_V{number}"
    return Version(
        f"ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION{suffix}",
        f"createSubOrganizationIntentV{number}",
        result,
        _intent(root_user, extra=extra),
        upgrade=_upgrade_v8 if number == 8 else _upgrade,
    )


@activity(
    "create_sub_organization",
    summary="Create sub-organization",
    default="ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION",
            "createSubOrganizationIntent",
            "createSubOrganizationResult",
            obj(name=label(), rootAuthenticator=AUTHENTICATOR_PARAMS_V2),
            upgrade=_upgrade_v1,
        ),
        _version(2, ROOT_USER_PARAMS, None, "createSubOrganizationResult"),
        _version(
            3,
            ROOT_USER_PARAMS,
            {"privateKeys": Array(PRIVATE_KEY_PARAMS)},
            "createSubOrganizationResultV3",
        ),
        _version(4, ROOT_USER_PARAMS, _V4_EXTRA, "createSubOrganizationResultV4"),
        _version(5, ROOT_USER_PARAMS_V2, _V4_EXTRA, "createSubOrganizationResultV5"),
        _version(6, ROOT_USER_PARAMS_V3, _V4_EXTRA, "createSubOrganizationResultV6"),
        _version(7, ROOT_USER_PARAMS_V4, _V7_EXTRA, "createSubOrganizationResultV7"),
        _version(8, ROOT_USER_PARAMS_V5, _V7_EXTRA, "createSubOrganizationResultV8"),
    ],
)
def create_sub_organization(ctx: Context, params: Params) -> Params:
    """A sub-organization of the caller's organization, with its root users, root quorum,
    features (each ``disable*`` flag leaves one out) and first wallet or private keys."""
    sub_orgs.check_may_create(ctx)
    token = check_signup(ctx, params, encrypted_only=bool(params.get(ENCRYPTED_TOKENS_ONLY)))
    root_users, threshold = params["rootUsers"], params["rootQuorumThreshold"]
    check_quorum(threshold, len(root_users))
    disabled = [flag for flag in SUB_ORGANIZATION_FEATURES if params.get(flag)]
    org = Organization(
        organization_id=ctx.new_id(),
        name=params["subOrganizationName"],
        created_at=ctx.now_ns,
        root_quorum=Quorum(threshold=threshold, user_ids=[]),
        parent_id=ctx.org.organization_id,
        features=initial_features(ctx.org.organization_id, disabled),
    )
    ctx.store.add_organization(ctx.tx, org)
    inside = dataclasses.replace(ctx, org=org)  # the same caller, clock and transaction
    users = [create_user(inside, spec, f"rootUsers.{i}") for i, spec in enumerate(root_users)]
    user_ids = [u.user_id for u in users]
    ctx.tx.set(org, "root_quorum", Quorum(threshold=threshold, user_ids=user_ids))
    result: Params = {"subOrganizationId": org.organization_id}
    wallet_params = params.get("wallet")
    if wallet_params is not None:
        length = wallet_params.get("mnemonicLength") or DEFAULT_MNEMONIC_LENGTH
        mnemonic = keys.new_mnemonic(inside, length)
        wallet, addresses = new_wallet(
            inside, wallet_params["walletName"], mnemonic, wallet_params["accounts"]
        )
        result["wallet"] = {"walletId": wallet.wallet_id, "addresses": addresses}
    if "privateKeys" in params:  # V3
        made = [
            new_private_key(inside, spec, f"privateKeys.{i}")
            for i, spec in enumerate(params["privateKeys"])
        ]
        result["privateKeys"] = [
            {
                "privateKeyId": k.private_key_id,
                "addresses": [
                    {"format": a.address_format, "address": a.address} for a in k.addresses
                ],
            }
            for k in made
        ]
    if token is not None:  # the proven contact: its root user is verified
        otp_type = token.claims["verification_type"]
        contact = token.claims["contact"].lower()
        attribute = "email" if otp_type == EMAIL_OTP else "phone_number"
        for user in users:
            if (getattr(user, attribute) or "").lower() == contact:
                mark_verified(inside, user, otp_type)
    result["rootUserIds"] = user_ids
    return result


@activity(
    "delete_sub_organization",
    summary="Delete sub organization",
    default="ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION",
            "deleteSubOrganizationIntent",
            "deleteSubOrganizationResult",
            obj(deleteWithoutExport=opt(Boolean())),
        )
    ],
)
def delete_sub_organization(ctx: Context, params: Params) -> Params:
    """Run in the sub-organization itself, by its own users; every wallet and private key
    must have been exported unless ``deleteWithoutExport`` is set."""
    without_export = bool(params.get("deleteWithoutExport"))
    return {"subOrganizationUuid": sub_orgs.delete(ctx, without_export=without_export)}


# --- queries ----------------------------------------------------------------------------

_FILTERED = obj(
    filterType=opt(String()),
    filterValue=opt(String()),
    paginationOptions=opt(PAGINATION),
)


@query(
    "list_suborgs",
    sdk_method="get_sub_org_ids",
    summary="Get suborgs",
    body=_FILTERED,
    result_keys=("organizationIds",),
)
def list_suborgs(ctx: Context, body: Params) -> Params:
    """The target organization's sub-organizations that match the filter, paginated."""
    filter_type, value = body.get("filterType"), body.get("filterValue")
    sub_orgs.check_filter(filter_type, value, sub_orgs.FILTER_TYPES)
    found = sub_orgs.matching(sub_orgs.sub_organizations(ctx), filter_type, value)
    page = paginate(found, body.get("paginationOptions"), lambda o: o.organization_id)
    return {"organizationIds": [o.organization_id for o in page]}


@query(
    "list_verified_suborgs",
    sdk_method="get_verified_sub_org_ids",
    summary="Get verified suborgs",
    body=_FILTERED,
    result_keys=("organizationIds",),
)
def list_verified_suborgs(ctx: Context, body: Params) -> Params:
    """The sub-organizations with a user whose e-mail or phone number is verified, that
    match the filter, paginated."""
    filter_type, value = body.get("filterType"), body.get("filterValue")
    sub_orgs.check_filter(filter_type, value, sub_orgs.VERIFIED_FILTER_TYPES)
    found = sub_orgs.verified(sub_orgs.sub_organizations(ctx), filter_type, value)
    page = paginate(found, body.get("paginationOptions"), lambda o: o.organization_id)
    return {"organizationIds": [o.organization_id for o in page]}
