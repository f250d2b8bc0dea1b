"""The Auth Proxy's endpoints (``service.py`` says what each runs), by their paths."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ground.errors import InvalidArgument, NotFound, PermissionDenied
from ..ground.schema import Array, Boolean, Enum, Object, String, obj, opt
from .config import EMAIL, PASSKEY, SMS, WALLET
from .run import Run, checked, disabled, token_claims

Json = dict[str, Any]
OTP_METHODS = {"OTP_TYPE_EMAIL": EMAIL, "OTP_TYPE_SMS": SMS}
ACCOUNT_FILTERS = (
    "CREDENTIAL_ID",
    "NAME",
    "USERNAME",
    "EMAIL",
    "PHONE_NUMBER",
    "OIDC_TOKEN",
    "PUBLIC_KEY",
)
_PII_FILTERS = {"EMAIL": "OTP_TYPE_EMAIL", "PHONE_NUMBER": "OTP_TYPE_SMS"}


# ----- sign-up ------------------------------------------------------------------------


def _signup_spec(version: int) -> Object:
    from ..ops.params import (
        API_KEY_PARAMS_V2,
        AUTHENTICATOR_PARAMS_V2,
        OAUTH_PROVIDER_PARAMS,
        OAUTH_PROVIDER_PARAMS_V2,
    )
    from ..ops.sub_organizations import CLIENT_SIGNATURE, WALLET_PARAMS

    return obj(
        userEmail=opt(String()),
        userPhoneNumber=opt(String()),
        userTag=opt(String()),
        userName=opt(String()),
        organizationName=opt(String()),
        verificationToken=opt(String()),
        apiKeys=Array(API_KEY_PARAMS_V2),
        authenticators=Array(AUTHENTICATOR_PARAMS_V2),
        oauthProviders=Array(OAUTH_PROVIDER_PARAMS_V2 if version == 2 else OAUTH_PROVIDER_PARAMS),
        wallet=opt(WALLET_PARAMS),
        clientSignature=opt(CLIENT_SIGNATURE),
    )


def _signup(run: Run, params: Json, version: int) -> Json:
    params = checked(_signup_spec(version), params)
    token = params.get("verificationToken")
    if params["authenticators"]:
        run.require(PASSKEY)
    if token:
        otp_type = token_claims(token).get("verification_type")
        run.require(OTP_METHODS.get(str(otp_type), EMAIL))
    if params["oauthProviders"] and not run.config.allows_oauth:
        raise disabled("OAuth")
    if not (params["authenticators"] or token or params["oauthProviders"]):
        if not params["apiKeys"]:
            raise InvalidArgument(
                "a sign-up needs a passkey, an API key, a verification token or an OAuth provider"
            )
        run.require(WALLET)
    root_user = {
        "userName": params.get("userName")
        or params.get("userEmail")
        or params.get("userPhoneNumber")
        or "user",
        "apiKeys": params["apiKeys"],
        "authenticators": params["authenticators"],
        "oauthProviders": params["oauthProviders"],
    }
    for field in ("userEmail", "userPhoneNumber"):
        if params.get(field):
            root_user[field] = params[field]
    intent: Json = {
        "subOrganizationName": params.get("organizationName")
        or f"sub-org-{run.emulator.clock.now_ms()}",
        "rootUsers": [root_user],
        "rootQuorumThreshold": 1,
    }
    for field in ("wallet", "verificationToken", "clientSignature"):
        if params.get(field) is not None:
            intent[field] = params[field]
    activity_type = f"ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V{8 if version == 2 else 7}"
    result = run.activity("create_sub_organization", activity_type, intent)
    answer: Json = {
        "organizationId": result["subOrganizationId"],
        "userId": result["rootUserIds"][0],
        "appProofs": [],
    }
    if result.get("wallet"):
        answer["wallet"] = result["wallet"]
    return answer


# ----- OTP ------------------------------------------------------------------------------

_OTP_INIT = obj(
    otpType=Enum(tuple(OTP_METHODS)),
    contact=String(),
    emailCustomization=opt(obj(templateId=opt(String()))),
)


def _otp_init(run: Run, params: Json, version: int) -> Json:
    params = checked(_OTP_INIT, params)
    run.require(OTP_METHODS[params["otpType"]])
    config = run.config
    intent: Json = {
        "otpType": params["otpType"],
        "contact": params["contact"],
        "appName": config.app_name,
        "otpLength": config.otp_length,
        "alphanumeric": config.otp_alphanumeric,
        "expirationSeconds": str(config.otp_expiration_seconds),
        "sendFromEmailAddress": config.send_from_email_address,
        "sendFromEmailSenderName": config.send_from_email_sender_name,
        "replyToEmailAddress": config.reply_to_email_address,
    }
    intent = {k: v for k, v in intent.items() if v is not None}
    activity_type = "ACTIVITY_TYPE_INIT_OTP_V3" if version == 2 else "ACTIVITY_TYPE_INIT_OTP_V2"
    result = run.activity("init_otp", activity_type, intent)
    answer = {"otpId": result["otpId"]}
    if version == 2:
        answer["otpEncryptionTargetBundle"] = result["otpEncryptionTargetBundle"]
    return answer


_OTP_VERIFY = obj(otpId=String(), otpCode=String(), publicKey=opt(String()))
_OTP_VERIFY_V2 = obj(otpId=String(), encryptedOtpBundle=String())


def _otp_verify(run: Run, params: Json, version: int) -> Json:
    params = checked(_OTP_VERIFY_V2 if version == 2 else _OTP_VERIFY, params)
    expiration = str(run.config.verification_token_expiration_seconds)
    activity_type = "ACTIVITY_TYPE_VERIFY_OTP_V2" if version == 2 else "ACTIVITY_TYPE_VERIFY_OTP"
    result = run.activity("verify_otp", activity_type, {**params, "expirationSeconds": expiration})
    return {"verificationToken": result["verificationToken"]}


def _otp_login(run: Run, params: Json, version: int) -> Json:
    from ..ops.sub_organizations import CLIENT_SIGNATURE

    signature = CLIENT_SIGNATURE if version == 2 else opt(CLIENT_SIGNATURE)
    spec = obj(
        verificationToken=String(),
        publicKey=String(),
        invalidateExisting=opt(Boolean()),
        organizationId=opt(String()),
        clientSignature=signature,
    )
    params = checked(spec, params)
    claims = token_claims(params["verificationToken"])
    otp_type = str(claims.get("verification_type"))
    run.require(OTP_METHODS.get(otp_type, EMAIL))
    org_id = params.pop("organizationId", None)
    if org_id:
        org_id = run.sub_organization(org_id)
    else:
        filter_type = "PHONE_NUMBER" if otp_type == "OTP_TYPE_SMS" else "EMAIL"
        org_id = run.first_sub_org(filter_type, str(claims.get("contact")), verified=True)
        if org_id is None:
            raise NotFound("no verified sub-organization for this verification token's contact")
    params["expirationSeconds"] = str(run.config.session_expiration_seconds)
    activity_type = "ACTIVITY_TYPE_OTP_LOGIN_V2" if version == 2 else "ACTIVITY_TYPE_OTP_LOGIN"
    return {"session": run.activity("otp_login", activity_type, params, org_id)["session"]}


# ----- OAuth ----------------------------------------------------------------------------

_OAUTH_LOGIN = obj(
    oidcToken=String(),
    publicKey=String(),
    invalidateExisting=opt(Boolean()),
    organizationId=opt(String()),
)


def _oauth_login(run: Run, params: Json) -> Json:
    params = checked(_OAUTH_LOGIN, params)
    if not run.config.allows_oauth:
        raise disabled("OAuth")
    org_id = params.pop("organizationId", None)
    if org_id:
        org_id = run.sub_organization(org_id)
    else:
        org_id = run.first_sub_org("OIDC_TOKEN", params["oidcToken"])
        if org_id is None:
            raise NotFound("no sub-organization has a user with this OIDC token's identity")
    params["expirationSeconds"] = str(run.config.session_expiration_seconds)
    result = run.activity("oauth_login", "ACTIVITY_TYPE_OAUTH_LOGIN", params, org_id)
    return {"session": result["session"]}


OAUTH2_PROVIDERS = {"OAUTH2_PROVIDER_X": "x", "OAUTH2_PROVIDER_DISCORD": "discord"}
_OAUTH2_AUTHENTICATE = obj(
    provider=Enum(tuple(OAUTH2_PROVIDERS)),
    authCode=String(),
    redirectUri=String(),
    codeVerifier=String(),
    nonce=String(),
    clientId=String(),
)


def _oauth2_authenticate(run: Run, params: Json) -> Json:
    """The parent's OAuth 2.0 credential of this provider and client id exchanges the code
    (``oauth2_authenticate``): an OIDC token Turnkey minted, for ``oauth_login``."""
    params = checked(_OAUTH2_AUTHENTICATE, params)
    run.require(OAUTH2_PROVIDERS[params["provider"]])
    credentials = run.query("list_oauth2_credentials", {})["oauth2Credentials"]
    found = [
        c
        for c in credentials
        if (c["provider"], c["clientId"]) == (params["provider"], params["clientId"])
    ]
    if not found:
        raise NotFound(
            f"no OAuth 2.0 credential for {params['provider']} client {params['clientId']} in "
            "the Auth Proxy config's organization",
            turnkey_error_code="OAUTH2_PROVIDER_NOT_CONFIGURED",
        )
    intent = {
        "oauth2CredentialId": found[0]["oauth2CredentialId"],
        "authCode": params["authCode"],
        "redirectUri": params["redirectUri"],
        "codeVerifier": params["codeVerifier"],
        "nonce": params["nonce"],
    }
    result = run.activity("oauth2_authenticate", "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE", intent)
    return {"oidcToken": result["oidcToken"]}


# ----- account and configuration -------------------------------------------------------

_ACCOUNT = obj(
    filterType=Enum(ACCOUNT_FILTERS),
    filterValue=String(),
    verificationToken=opt(String()),
    oidcToken=opt(String()),
)


def _account(run: Run, params: Json) -> Json:
    params = checked(_ACCOUNT, params)
    filter_type, value = params["filterType"], params["filterValue"]
    otp_type = _PII_FILTERS.get(filter_type)
    if otp_type is not None and run.config.verification_token_required_for_get_account_pii:
        token = params.get("verificationToken")
        if not token:
            raise InvalidArgument(
                f"a verificationToken is required to look up an account by {filter_type}"
            )
        _check_token_contact(run, token, otp_type, value)
    org_id = run.first_sub_org(filter_type, value)
    return {"organizationId": org_id} if org_id else {}


def _check_token_contact(run: Run, token: str, otp_type: str, contact: str) -> None:
    from ..crypto import jwt
    from ..crypto.enclave import TLS_FETCHER

    key = run.emulator.world.enclave.key(TLS_FETCHER).public_key()
    try:
        claims = jwt.verify_es256(token, key)
    except jwt.JwtError:
        raise InvalidArgument("invalid verification token") from None
    if (
        claims.get("verification_type") != otp_type
        or str(claims.get("contact", "")).lower() != contact.lower()
    ):
        raise PermissionDenied("the verification token is not for this contact")


def _wallet_kit_config(run: Run, params: Json) -> Json:
    config = run.config
    return {
        "enabledProviders": list(config.enabled_providers),
        "sessionExpirationSeconds": str(config.session_expiration_seconds),
        "organizationId": config.organization_id,
        "oauthClientIds": dict(config.oauth_client_ids),
        "oauthRedirectUrl": config.oauth_redirect_url,
        "otpAlphanumeric": config.otp_alphanumeric,
        "otpLength": str(config.otp_length),
    }


def _wallet_kit_client_params(run: Run, params: Json) -> Json:
    return {}  # no captcha: no Turnstile site key


ENDPOINTS: dict[str, Callable[[Run, Json], Json]] = {
    "/v1/signup": lambda run, p: _signup(run, p, 1),
    "/v1/signup_v2": lambda run, p: _signup(run, p, 2),
    "/v1/otp_init": lambda run, p: _otp_init(run, p, 1),
    "/v1/otp_init_v2": lambda run, p: _otp_init(run, p, 2),
    "/v1/otp_verify": lambda run, p: _otp_verify(run, p, 1),
    "/v1/otp_verify_v2": lambda run, p: _otp_verify(run, p, 2),
    "/v1/otp_login": lambda run, p: _otp_login(run, p, 1),
    "/v1/otp_login_v2": lambda run, p: _otp_login(run, p, 2),
    "/v1/oauth_login": _oauth_login,
    "/v1/oauth2_authenticate": _oauth2_authenticate,
    "/v1/account": _account,
    "/v1/wallet_kit_config": _wallet_kit_config,
    "/v1/wallet_kit_client_params": _wallet_kit_client_params,
}
