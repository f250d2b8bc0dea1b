"""The Auth Proxy: sign-up and sign-in for browser apps, over the emulator's own engine.

Turnkey's Auth Proxy (``authproxy.turnkey.com``; the ``AuthProxyService`` OpenAPI in
``tkhq/sdk``, ``packages/core/src/__inputs__/auth_proxy.swagger.json``) takes
unauthenticated requests from a web page, names its configuration by the
``X-Auth-Proxy-Config-ID`` header, and runs the activities in the configuration's
parent organization with a credential of its own. Here each endpoint is a few
activities of the engine, run as the parent organization's root API key (the one the
emulator bootstrapped or was told of), so they are recorded, journaled and judged like
any other:

* ``/v1/signup`` (CREATE_SUB_ORGANIZATION_V7) and ``/v1/signup_v2`` (V8): a
  sub-organization with one root user and the given passkeys, API keys, OAuth
  providers, wallet, verification token and client signature;
* ``/v1/otp_init`` (INIT_OTP_V2, legacy) and ``/v1/otp_init_v2`` (INIT_OTP_V3, with the
  encryption target bundle), with the configuration's app name, code length, alphabet
  and lifetime: the code lands in the outbox;
* ``/v1/otp_verify`` (VERIFY_OTP) and ``/v1/otp_verify_v2`` (VERIFY_OTP_V2): a
  verification token that lives ``verificationTokenExpirationSeconds``;
* ``/v1/otp_login`` (OTP_LOGIN) and ``/v1/otp_login_v2`` (OTP_LOGIN_V2), and
  ``/v1/oauth_login`` (OAUTH_LOGIN): a session of ``sessionExpirationSeconds`` in the
  user's sub-organization (``organizationId``, or the verified sub-organization of the
  token's contact, or the sub-organization of the OIDC identity);
* ``/v1/account``: the sub-organization of a filter (GET_SUB_ORG_IDS), or none;
* ``/v1/wallet_kit_config`` and ``/v1/wallet_kit_client_params``: the configuration.

``/v1/oauth2_authenticate`` (an OAuth 2.0 code exchange with X or Discord) is not
emulated: it answers 501. A method the configuration does not enable is refused (403)
before anything runs. Errors are the API's ``{code, message, details,
turnkeyErrorCode}`` (the proxy's ``rpcStatus`` with the API's extra field).
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import jsontext
from ..errors import (
    NOT_FOUND,
    UNIMPLEMENTED,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    TurnkeyApiError,
    Unauthenticated,
)
from ..schema import Array, Boolean, Enum, Object, String, check, obj, opt
from .config import EMAIL, PASSKEY, SMS, WALLET, AuthProxyConfig, config_id_for, new_config

if TYPE_CHECKING:
    from ..api import Emulator

Json = dict[str, Any]
CONFIG_HEADER = "X-Auth-Proxy-Config-ID"
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


class AuthProxy:
    """The Auth Proxy of one emulator: its configurations and its endpoints."""

    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator
        self._configs: dict[str, AuthProxyConfig] = {}
        self._lock = threading.Lock()

    # ----- configurations ------------------------------------------------------------

    def configure(self, settings: Json | None = None, **kwargs: Any) -> AuthProxyConfig:
        """A new configuration from wire-named ``settings`` (``organizationId`` defaults to
        the emulator's first organization); ``ValueError`` if a setting is bad."""
        settings = {**(settings or {}), **kwargs}
        org_id = settings.pop("organizationId", None) or self.emulator._first_org_id
        if not isinstance(org_id, str) or org_id not in self.emulator.world.store.organizations:
            raise ValueError(f"no organization {org_id!r} to serve")
        with self._lock:
            config_id = config_id_for(org_id, len(self._configs) + 1)
            config = new_config(config_id, org_id, settings)
            self._configs[config_id] = config
        return config

    def update(self, config_id: str, changes: Json) -> AuthProxyConfig:
        """The configuration with ``changes`` applied (``KeyError`` if unknown)."""
        with self._lock:
            config = self._configs[config_id].updated(changes)
            self._configs[config_id] = config
        return config

    def config(self, config_id: str) -> AuthProxyConfig | None:
        return self._configs.get(config_id)

    def configs(self) -> list[AuthProxyConfig]:
        return list(self._configs.values())

    # ----- requests ------------------------------------------------------------------

    def handle(self, endpoint: str, config_id: str | None, body: bytes) -> tuple[int, Json]:
        """The answer to one request of ``endpoint`` (``/v1/...``): ``(status, JSON)``."""
        try:
            config = self._config_of(config_id)
            handler = _ENDPOINTS.get(endpoint)
            if handler is None:
                raise TurnkeyApiError(NOT_FOUND, f"no Auth Proxy endpoint {endpoint}")
            try:
                params = jsontext.loads(body) if body.strip() else {}
            except (ValueError, UnicodeDecodeError):
                raise InvalidArgument("the request body is not valid JSON") from None
            if not isinstance(params, dict):
                raise InvalidArgument("the request body must be a JSON object")
            return 200, handler(_Run(self.emulator, config), params)
        except TurnkeyApiError as error:
            return error.status, error.body()

    def _config_of(self, config_id: str | None) -> AuthProxyConfig:
        if not config_id:
            raise Unauthenticated(f"missing {CONFIG_HEADER} header")
        config = self._configs.get(config_id.strip())
        if config is None:
            raise Unauthenticated(f"unknown Auth Proxy config id {config_id.strip()}")
        return config


class _Run:
    """One request's engine calls, as the configuration's parent organization."""

    def __init__(self, emulator: Emulator, config: AuthProxyConfig) -> None:
        self.emulator = emulator
        self.config = config

    def activity(
        self, name: str, activity_type: str, params: Json, org_id: str | None = None
    ) -> Json:
        return self.emulator.call(
            name,
            params,
            organization_id=org_id or self.config.organization_id,
            activity_type=activity_type,
        )

    def query(self, name: str, params: Json) -> Json:
        return self.emulator.call(name, params, organization_id=self.config.organization_id)

    def require(self, method: str) -> None:
        if not self.config.allows(method):
            raise _disabled(method)

    def sub_organization(self, org_id: str) -> str:
        """``org_id`` once it is the parent or one of its sub-organizations."""
        org = self.emulator.world.store.organizations.get(org_id)
        parent = self.config.organization_id
        if org is None or (org.organization_id != parent and org.parent_id != parent):
            raise NotFound(f"organization {org_id} is not served by this Auth Proxy config")
        return org_id

    def first_sub_org(self, filter_type: str, value: str, *, verified: bool = False) -> str | None:
        name = "list_verified_suborgs" if verified else "list_suborgs"
        found = self.query(name, {"filterType": filter_type, "filterValue": value})
        ids = found.get("organizationIds") or []
        return ids[0] if ids else None


def _disabled(method: str) -> PermissionDenied:
    return PermissionDenied(f"{method} sign-in is not enabled in this Auth Proxy config")


def _checked(spec: Object, params: Json) -> Json:
    from ..errors import ValidationFailed

    cleaned, errors = check(spec, params)
    if errors:
        raise ValidationFailed(errors)
    return cleaned  # type: ignore[return-value]


def _token_claims(token: str) -> Json:
    """The claims of a verification token, unverified (the engine verifies it)."""
    try:
        payload = token.split(".")[1]
        claims = jsontext.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError, UnicodeDecodeError):
        raise InvalidArgument("invalid verification token") from None
    if not isinstance(claims, dict):
        raise InvalidArgument("invalid verification token")
    return claims


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


def _signup(run: _Run, params: Json, version: int) -> Json:
    params = _checked(_signup_spec(version), params)
    token = params.get("verificationToken")
    if params["authenticators"]:
        run.require(PASSKEY)
    if token:
        otp_type = _token_claims(token).get("verification_type")
        run.require(OTP_METHODS.get(str(otp_type), EMAIL))
    if params["oauthProviders"] and not run.config.allows_oauth:
        raise _disabled("OAuth")
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


def _otp_init(run: _Run, params: Json, version: int) -> Json:
    params = _checked(_OTP_INIT, params)
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


def _otp_verify(run: _Run, params: Json, version: int) -> Json:
    params = _checked(_OTP_VERIFY_V2 if version == 2 else _OTP_VERIFY, params)
    expiration = str(run.config.verification_token_expiration_seconds)
    activity_type = "ACTIVITY_TYPE_VERIFY_OTP_V2" if version == 2 else "ACTIVITY_TYPE_VERIFY_OTP"
    result = run.activity("verify_otp", activity_type, {**params, "expirationSeconds": expiration})
    return {"verificationToken": result["verificationToken"]}


def _otp_login(run: _Run, params: Json, version: int) -> Json:
    from ..ops.sub_organizations import CLIENT_SIGNATURE

    signature = CLIENT_SIGNATURE if version == 2 else opt(CLIENT_SIGNATURE)
    spec = obj(
        verificationToken=String(),
        publicKey=String(),
        invalidateExisting=opt(Boolean()),
        organizationId=opt(String()),
        clientSignature=signature,
    )
    params = _checked(spec, params)
    claims = _token_claims(params["verificationToken"])
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


def _oauth_login(run: _Run, params: Json) -> Json:
    params = _checked(_OAUTH_LOGIN, params)
    if not run.config.allows_oauth:
        raise _disabled("OAuth")
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


def _oauth2_authenticate(run: _Run, params: Json) -> Json:
    raise TurnkeyApiError(
        UNIMPLEMENTED,
        "OAuth 2.0 code exchange (/v1/oauth2_authenticate) is not emulated: sign in with an "
        "OIDC token of the built-in test issuer",
    )


# ----- account and configuration -------------------------------------------------------

_ACCOUNT = obj(
    filterType=Enum(ACCOUNT_FILTERS),
    filterValue=String(),
    verificationToken=opt(String()),
    oidcToken=opt(String()),
)


def _account(run: _Run, params: Json) -> Json:
    params = _checked(_ACCOUNT, params)
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


def _check_token_contact(run: _Run, token: str, otp_type: str, contact: str) -> None:
    from ..crypto import jwt
    from ..enclave import TLS_FETCHER

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


def _wallet_kit_config(run: _Run, params: Json) -> Json:
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


def _wallet_kit_client_params(run: _Run, params: Json) -> Json:
    return {}  # no captcha: no Turnstile site key


_ENDPOINTS: dict[str, Callable[[_Run, Json], Json]] = {
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
ENDPOINTS = tuple(_ENDPOINTS)
