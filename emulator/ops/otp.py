"""OTP flows: init_otp_auth, otp_auth, init_otp, verify_otp, otp_login.

Two flows share the OTP records of ``services/otp.py``:

* OTP auth (legacy, still served): ``init_otp_auth`` sends a code and answers
  ``otpId``; ``otp_auth`` takes the code back and issues the user with that contact a
  ``CREDENTIAL_TYPE_OTP_AUTH_KEY_P256`` API key, its private half sealed to
  ``targetPublicKey`` as a credential bundle (``OTP Auth - <Timestamp>`` by default).
* Generic OTP: ``init_otp`` sends a code and, from V3 on, answers the signed
  ``otpEncryptionTargetBundle`` (TLS fetcher key) the client encrypts the code and its
  public key to; ``verify_otp`` V2 opens that bundle (V1 takes the code in plaintext),
  checks the code and answers a verification token (``services/verification.py``);
  ``otp_login`` spends the token, with the client's signature, on a session for the
  user with that contact (``services/sessions.py``). The legacy versions (INIT_OTP V1/V2,
  VERIFY_OTP V1) and the encrypted ones do not mix within one OTP (otp-migration-guide.mdx).

``otp_auth`` and ``otp_login`` mark the contact verified (``list_verified_suborgs``).
A user of the parent organization may run all five in a sub-organization (§11.3): the
usual flow verifies in the parent and logs in in the sub-organization, whose users
accept a parent's token. Versions: every ``ACTIVITY_TYPE_*`` of each, the TypeScript
core's unversioned OTP_LOGIN and VERIFY_OTP included.
"""

from __future__ import annotations

from typing import Any

from ..crypto import hpke
from ..crypto.enclave import TLS_FETCHER
from ..ground import jsontext, messages
from ..ground.errors import InvalidArgument
from ..ground.schema import Boolean, Enum, Integer, String, label, obj, opt, uuid
from ..services import bundles, sessions, verification
from ..services import otp as otps
from ..services.context import Context
from ..services.emails import EMAIL_CUSTOMIZATION, SENDER_PARAMS
from ..services.issuance import OTP_AUTH, default_key_name, issue_credential_bundle
from .registry import Version, activity
from .sub_organizations import CLIENT_SIGNATURE

Params = dict[str, Any]

OTP_AUTH_KEY_PREFIX = "OTP Auth"

# --- parameter shapes (names and required-ness as the SDK's models) -----------------------

EMAIL_CUSTOMIZATION_V2 = obj(  # v1EmailCustomizationParamsV2: appName moved out
    **{k: f for k, f in EMAIL_CUSTOMIZATION.fields.items() if k != "appName"}
)
SMS_CUSTOMIZATION = obj(template=opt(String()))  # v1SmsCustomizationParams

_SEND = {
    "otpType": Enum(otps.OTP_TYPES),
    "contact": String(),
    "emailCustomization": opt(EMAIL_CUSTOMIZATION),
    "smsCustomization": opt(SMS_CUSTOMIZATION),
    "userIdentifier": opt(String()),
    **SENDER_PARAMS,
}
_CODE_SHAPE = {
    "otpLength": opt(Integer(minimum=otps.MIN_LENGTH, maximum=otps.MAX_LENGTH)),
    "alphanumeric": opt(Boolean()),
}
_V3_SHAPE = {  # appName required, e-mail customization without it, OTP expiry
    "appName": label(),
    "emailCustomization": opt(EMAIL_CUSTOMIZATION_V2),
    "expirationSeconds": opt(String()),
}
INIT_OTP_AUTH_PARAMS = obj(**_SEND)  # v1InitOtpAuthIntent
INIT_OTP_AUTH_PARAMS_V2 = obj(**_SEND, **_CODE_SHAPE)
INIT_OTP_AUTH_PARAMS_V3 = obj(**{**_SEND, **_CODE_SHAPE, **_V3_SHAPE})
INIT_OTP_PARAMS = obj(**_SEND, **_CODE_SHAPE, expirationSeconds=opt(String()))  # v1InitOtpIntent
INIT_OTP_PARAMS_V2 = obj(**{**_SEND, **_CODE_SHAPE, **_V3_SHAPE})  # V2 and V3 alike

_EXPIRING = {"expirationSeconds": opt(String()), "invalidateExisting": opt(Boolean())}
OTP_AUTH_PARAMS = obj(
    otpId=uuid(), otpCode=String(), targetPublicKey=String(), apiKeyName=opt(label()), **_EXPIRING
)
VERIFY_OTP_PARAMS = obj(
    otpId=uuid(), otpCode=String(), expirationSeconds=opt(String()), publicKey=opt(String())
)
VERIFY_OTP_PARAMS_V2 = obj(
    otpId=uuid(), encryptedOtpBundle=String(), expirationSeconds=opt(String())
)
_LOGIN = {"verificationToken": String(), "publicKey": String(), "sessionProfileId": opt(String())}
OTP_LOGIN_PARAMS = obj(**_LOGIN, **_EXPIRING, clientSignature=opt(CLIENT_SIGNATURE))
OTP_LOGIN_PARAMS_V2 = obj(**_LOGIN, **_EXPIRING, clientSignature=CLIENT_SIGNATURE)


def _app_name_out_of_customization(params: Params) -> Params:
    """V1 e-mail customization carries ``appName``; later versions have it at the top."""
    customization = params.get("emailCustomization") or {}
    if "appName" not in customization:
        return params
    return {**params, "appName": customization["appName"]}


def _legacy(params: Params) -> Params:
    """A legacy version of the generic flow: INIT_OTP V1/V2 (no target bundle; verified by
    VERIFY_OTP V1 with the code in plaintext) and OTP_LOGIN V1 (takes legacy tokens; a
    client signature only for a token bound to a key)."""
    return {**_app_name_out_of_customization(params), "legacy": True}


# --- init_otp_auth / otp_auth --------------------------------------------------------------


@activity(
    "init_otp_auth",
    summary="Init OTP auth",
    in_seed=True,
    parent_may_run=True,
    default="ACTIVITY_TYPE_INIT_OTP_AUTH_V3",
    versions=[
        Version(
            "ACTIVITY_TYPE_INIT_OTP_AUTH",
            "initOtpAuthIntent",
            "initOtpAuthResult",
            INIT_OTP_AUTH_PARAMS,
            upgrade=_app_name_out_of_customization,
        ),
        Version(
            "ACTIVITY_TYPE_INIT_OTP_AUTH_V2",
            "initOtpAuthIntentV2",
            "initOtpAuthResultV2",
            INIT_OTP_AUTH_PARAMS_V2,
            upgrade=_app_name_out_of_customization,
        ),
        Version(
            "ACTIVITY_TYPE_INIT_OTP_AUTH_V3",
            "initOtpAuthIntentV3",
            "initOtpAuthResultV2",
            INIT_OTP_AUTH_PARAMS_V3,
        ),
    ],
)
def init_otp_auth(ctx: Context, params: Params) -> Params:
    """Send a code to ``contact``; ``otp_auth`` takes it back."""
    return {"otpId": otps.start(ctx, otps.AUTH_FLOW, params).otp_id}


@activity(
    "otp_auth",
    summary="OTP auth",
    parent_may_run=True,
    default="ACTIVITY_TYPE_OTP_AUTH",
    versions=[Version("ACTIVITY_TYPE_OTP_AUTH", "otpAuthIntent", "otpAuthResult", OTP_AUTH_PARAMS)],
)
def otp_auth(ctx: Context, params: Params) -> Params:
    """The code of an ``init_otp_auth`` OTP for an expiring API key of the user with its
    contact, sealed to ``targetPublicKey``."""
    otp = otps.find(ctx, params["otpId"], otps.AUTH_FLOW)
    otps.check_feature(ctx, otp.otp_type)
    target = params["targetPublicKey"]
    try:
        bundles.parse_target_public_key(target)
    except bundles.BundleError:
        raise InvalidArgument(
            messages.invalid_target_public_key(target), turnkey_error_code="REQUEST_INVALID"
        ) from None
    otps.check_code(ctx, otp, params["otpCode"])
    user = otps.user_with_contact(ctx.org, otp.otp_type, otp.contact)
    key, bundle = issue_credential_bundle(
        ctx,
        user,
        target_public_key=target,
        credential_type=OTP_AUTH,
        name=params.get("apiKeyName") or default_key_name(OTP_AUTH_KEY_PREFIX, ctx.now_ns),
        expiration_seconds=params.get("expirationSeconds"),
        invalidate_existing=bool(params.get("invalidateExisting")),
    )
    otps.mark_verified(ctx, user, otp.otp_type)
    return {"userId": user.user_id, "apiKeyId": key.api_key_id, "credentialBundle": bundle}


# --- init_otp / verify_otp / otp_login -----------------------------------------------------


@activity(
    "init_otp",
    summary="Init generic OTP",
    parent_may_run=True,
    default="ACTIVITY_TYPE_INIT_OTP_V3",
    versions=[
        Version(
            "ACTIVITY_TYPE_INIT_OTP", "initOtpIntent", "initOtpResult", INIT_OTP_PARAMS, _legacy
        ),
        # The Rust and Go SDKs' tables name initOtpIntentV3 for V2; the intent has a field
        # of its own for it (initOtpIntentV2), which is taken here.
        Version(
            "ACTIVITY_TYPE_INIT_OTP_V2",
            "initOtpIntentV2",
            "initOtpResult",
            INIT_OTP_PARAMS_V2,
            _legacy,
        ),
        Version(
            "ACTIVITY_TYPE_INIT_OTP_V3", "initOtpIntentV3", "initOtpResultV2", INIT_OTP_PARAMS_V2
        ),
    ],
)
def init_otp(ctx: Context, params: Params) -> Params:
    """Send a code to ``contact``; from V3 on, answer the target to encrypt it to."""
    legacy = bool(params.get("legacy"))
    otp = otps.start(ctx, otps.VERIFY_FLOW, params, legacy=legacy)
    result: Params = {"otpId": otp.otp_id}
    if not legacy:
        secret = otps.target_secret(ctx.world, otp.otp_id)
        result["otpEncryptionTargetBundle"] = bundles.target_bundle(
            ctx.world, secret, ctx.org.organization_id, role=TLS_FETCHER
        )
    return result


def _opened(ctx: Context, otp_id: str, encrypted: str) -> tuple[str, str]:
    """``(otp_code, public_key)`` of a client's encrypted OTP bundle."""
    try:
        plain = bundles.open_client_bundle(encrypted, otps.target_secret(ctx.world, otp_id))
        inner = jsontext.loads(plain)
        code, public_key = inner["otp_code"], inner["public_key"]
        bundles.parse_target_public_key(public_key)
    except (bundles.BundleError, ValueError, TypeError, KeyError):
        code = None
    if not isinstance(code, str):
        raise InvalidArgument(messages.INVALID_OTP_BUNDLE, turnkey_error_code="REQUEST_INVALID")
    return code, public_key


@activity(
    "verify_otp",
    summary="Verify generic OTP",
    parent_may_run=True,
    default="ACTIVITY_TYPE_VERIFY_OTP_V2",
    versions=[
        Version(
            "ACTIVITY_TYPE_VERIFY_OTP", "verifyOtpIntent", "verifyOtpResult", VERIFY_OTP_PARAMS
        ),
        Version(
            "ACTIVITY_TYPE_VERIFY_OTP_V2",
            "verifyOtpIntentV2",
            "verifyOtpResult",
            VERIFY_OTP_PARAMS_V2,
        ),
    ],
)
def verify_otp(ctx: Context, params: Params) -> Params:
    """Check the code of an ``init_otp`` OTP; answer a verification token for its contact,
    bound to the client's public key (V2: from the encrypted bundle)."""
    otp = otps.find(ctx, params["otpId"], otps.VERIFY_FLOW)
    otps.check_feature(ctx, otp.otp_type)
    encrypted = params.get("encryptedOtpBundle")
    if otp.legacy != (encrypted is None):
        expected = "VERIFY_OTP" if otp.legacy else "VERIFY_OTP_V2"
        raise InvalidArgument(messages.otp_flow_mismatch(otp.otp_id, expected))
    expiration = params.get("expirationSeconds")
    otps.lifetime_seconds(
        expiration, default=verification.DEFAULT_LIFETIME_S, maximum=verification.MAX_LIFETIME_S
    )
    if encrypted is not None:
        code, public_key = _opened(ctx, otp.otp_id, encrypted)
    else:
        code, public_key = params["otpCode"], params.get("publicKey")
        if public_key is not None:
            _checked_public_key(public_key)
    otps.check_code(ctx, otp, code)
    token = verification.issue(ctx, otp, public_key=public_key, expiration_seconds=expiration)
    return {"verificationToken": token}


def _checked_public_key(public_key: str) -> str:
    """A P-256 public key (hex, either form), as its compressed hex."""
    try:
        raw = bundles.parse_target_public_key(public_key)
    except bundles.BundleError:
        raise InvalidArgument(
            messages.invalid_session_public_key(public_key), turnkey_error_code="REQUEST_INVALID"
        ) from None
    return hpke.compress(raw).hex()


@activity(
    "otp_login",
    summary="Login with OTP",
    parent_may_run=True,
    default="ACTIVITY_TYPE_OTP_LOGIN_V2",
    versions=[
        Version(
            "ACTIVITY_TYPE_OTP_LOGIN",
            "otpLoginIntent",
            "otpLoginResult",
            OTP_LOGIN_PARAMS,
            upgrade=_legacy,
        ),
        Version(
            "ACTIVITY_TYPE_OTP_LOGIN_V2", "otpLoginIntentV2", "otpLoginResult", OTP_LOGIN_PARAMS_V2
        ),
    ],
)
def otp_login(ctx: Context, params: Params) -> Params:
    """Spend a verification token (and the client's signature) on a session for the user
    with its contact; ``publicKey`` becomes the session's login key."""
    token = verification.check(
        ctx, params["verificationToken"], encrypted_only=not params.get("legacy")
    )
    otp_type, contact = token.claims["verification_type"], token.claims["contact"]
    otps.check_feature(ctx, otp_type)
    public_key = _checked_public_key(params["publicKey"])
    verification.check_login_signature(token, params.get("clientSignature"), params["publicKey"])
    user = otps.user_with_contact(ctx.org, otp_type, contact)
    verification.consume(ctx, token)
    _, session = sessions.login(
        ctx,
        user,
        public_key=public_key,
        expiration_seconds=params.get("expirationSeconds"),
        invalidate_existing=bool(params.get("invalidateExisting")),
        session_profile_id=params.get("sessionProfileId"),
    )
    otps.mark_verified(ctx, user, otp_type)
    return {"session": session}
