"""Parameter shapes shared by several operations, per version.

Names and required-ness follow the official SDK's models (``v1UserParamsV3``,
``v1ApiKeyParamsV2``...). The ``upgrade_*`` functions turn an older shape into
the newest one, which is what handlers take.
"""

from __future__ import annotations

from typing import Any

from ..ground.enums import API_KEY_CURVES, AUTHENTICATOR_TRANSPORTS
from ..ground.schema import Array, Boolean, Enum, Object, String, label, obj, opt, uuid

Params = dict[str, Any]

# --- API keys ------------------------------------------------------------------

API_KEY_PARAMS = obj(  # apiApiKeyParams: the V1 shape, P-256 only
    apiKeyName=label(),
    publicKey=String(fmt="hex"),
    expirationSeconds=opt(String()),
)
API_KEY_PARAMS_V2 = obj(
    apiKeyName=label(),
    publicKey=String(fmt="hex"),
    curveType=Enum(API_KEY_CURVES),
    expirationSeconds=opt(String()),
)


def upgrade_api_key(params: Params) -> Params:
    return {**params, "curveType": params.get("curveType", "API_KEY_CURVE_P256")}


# --- authenticators ------------------------------------------------------------

TRANSPORTS = Array(Enum(AUTHENTICATOR_TRANSPORTS))
ATTESTATION = obj(  # v1Attestation
    credentialId=String(max_length=256),
    clientDataJson=String(),
    attestationObject=String(),
    transports=TRANSPORTS,
)
AUTHENTICATOR_PARAMS_V2 = obj(
    authenticatorName=label(),
    challenge=String(max_length=256),
    attestation=ATTESTATION,
)
PUBLIC_KEY_CREDENTIAL = obj(  # v1PublicKeyCredentialWithAttestation (the V1 shape)
    id=String(max_length=256),
    type=Enum(("public-key",)),
    rawId=String(max_length=256),
    authenticatorAttachment=opt(Enum(("cross-platform", "platform"))),
    response=obj(
        clientDataJson=String(),
        attestationObject=String(),
        transports=opt(TRANSPORTS),
        authenticatorAttachment=opt(Enum(("cross-platform", "platform"))),
    ),
    clientExtensionResults=obj(
        appid=opt(Boolean()),
        appidExclude=opt(Boolean()),
        credProps=opt(obj(rk=Boolean())),
    ),
)
AUTHENTICATOR_PARAMS = obj(
    authenticatorName=label(),
    userId=uuid(),
    attestation=PUBLIC_KEY_CREDENTIAL,
    challenge=String(max_length=256),
)


def upgrade_authenticator(params: Params) -> Params:
    """The V1 shape (a browser ``PublicKeyCredential``) to the V2 shape."""
    credential = params["attestation"]
    response = credential["response"]
    return {
        "authenticatorName": params["authenticatorName"],
        "challenge": params["challenge"],
        "attestation": {
            "credentialId": credential["id"],
            "clientDataJson": response["clientDataJson"],
            "attestationObject": response["attestationObject"],
            "transports": response.get("transports", []),
        },
    }


def downgrade_authenticator(params: Params, user_id: str) -> Params:
    """The V2 shape in the V1 (seed) form: a ``PublicKeyCredential`` with attestation."""
    attestation = params["attestation"]
    return {
        "authenticatorName": params["authenticatorName"],
        "userId": user_id,
        "challenge": params["challenge"],
        "attestation": {
            "id": attestation["credentialId"],
            "type": "public-key",
            "rawId": attestation["credentialId"],
            "response": {
                "clientDataJson": attestation["clientDataJson"],
                "attestationObject": attestation["attestationObject"],
                "transports": list(attestation["transports"]),
            },
            "clientExtensionResults": {},
        },
    }


# --- OAuth providers -------------------------------------------------------------

OAUTH_PROVIDER_PARAMS = obj(providerName=label(), oidcToken=String())
OIDC_CLAIMS = obj(iss=String(), sub=String(), aud=String())
OAUTH_PROVIDER_PARAMS_V2 = obj(
    providerName=label(), oidcToken=opt(String()), oidcClaims=opt(OIDC_CLAIMS)
)

# --- users -----------------------------------------------------------------------

_NAME_AND_CONTACT = {
    "userName": label(),
    "userEmail": opt(String(fmt="email", max_length=256)),
}
USER_PARAMS = obj(  # v1UserParams
    **_NAME_AND_CONTACT,
    accessType=Enum(("ACCESS_TYPE_WEB", "ACCESS_TYPE_API", "ACCESS_TYPE_ALL")),
    apiKeys=Array(API_KEY_PARAMS),
    authenticators=Array(AUTHENTICATOR_PARAMS),
    userTags=Array(uuid()),
)
USER_PARAMS_V2 = obj(
    **_NAME_AND_CONTACT,
    apiKeys=Array(API_KEY_PARAMS),
    authenticators=Array(AUTHENTICATOR_PARAMS_V2),
    userTags=Array(uuid()),
)
USER_PARAMS_V3 = obj(
    **_NAME_AND_CONTACT,
    userPhoneNumber=opt(String(fmt="e164")),
    apiKeys=Array(API_KEY_PARAMS_V2),
    authenticators=Array(AUTHENTICATOR_PARAMS_V2),
    oauthProviders=Array(OAUTH_PROVIDER_PARAMS),
    userTags=Array(uuid()),
)
USER_PARAMS_V4 = obj(
    **_NAME_AND_CONTACT,
    userPhoneNumber=opt(String(fmt="e164")),
    apiKeys=Array(API_KEY_PARAMS_V2),
    authenticators=Array(AUTHENTICATOR_PARAMS_V2),
    oauthProviders=Array(OAUTH_PROVIDER_PARAMS_V2),
    userTags=Array(uuid()),
)


def upgrade_user(params: Params) -> Params:
    """Any version of user params to the V4 shape."""
    authenticators = [
        upgrade_authenticator(a) if "id" in a.get("attestation", {}) else a
        for a in params.get("authenticators", [])
    ]
    out = {
        **params,
        "apiKeys": [upgrade_api_key(k) for k in params.get("apiKeys", [])],
        "authenticators": authenticators,
        "oauthProviders": params.get("oauthProviders", []),
        "userTags": params.get("userTags", []),
    }
    out.pop("accessType", None)
    return out


def user_list(spec: Object) -> Object:
    """``{users: [spec]}`` with at least one user."""
    return obj(users=Array(spec, min_items=1))
