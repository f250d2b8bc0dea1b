"""One Auth Proxy configuration: which sign-in methods it serves, and how.

The fields are the real configuration's, by their wire names (the public API's
``v1UpdateAuthProxyConfigIntent`` and the proxy's ``v1GetWalletKitConfigResponse``):
``organizationId`` (the parent organization, whose sub-organizations the proxy
signs users up into), ``enabledProviders`` (``passkey``, ``email``, ``sms``,
``wallet``, and OAuth providers such as ``google``), ``sessionExpirationSeconds``,
``otpLength``, ``otpAlphanumeric``, ``otpExpirationSeconds``,
``verificationTokenExpirationSeconds``, ``appName`` (the name in the OTP e-mails),
``allowedOrigins`` (CORS), the sender fields, ``oauthClientIds``, ``oauthRedirectUrl``
and ``verificationTokenRequiredForGetAccountPii``. ``configId`` is what a client sends
as ``X-Auth-Proxy-Config-ID``.
"""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass, field
from typing import Any

Json = dict[str, Any]

PASSKEY, EMAIL, SMS, WALLET = "passkey", "email", "sms", "wallet"
OAUTH_PROVIDERS = ("google", "apple", "facebook", "x", "discord", "oauth")
METHODS = (PASSKEY, EMAIL, SMS, WALLET, *OAUTH_PROVIDERS)
DEFAULT_SESSION_SECONDS = 900  # @turnkey/core's DEFAULT_SESSION_EXPIRATION_IN_SECONDS
_NAMESPACE = uuid.UUID("6f1c2a52-8d0e-4b8e-9a55-2d7c3f0a9b11")


@dataclass(frozen=True)
class AuthProxyConfig:
    """An Auth Proxy configuration (see the module's docstring for each field)."""

    config_id: str
    organization_id: str
    enabled_providers: tuple[str, ...] = METHODS
    session_expiration_seconds: int = DEFAULT_SESSION_SECONDS
    otp_length: int = 6
    otp_alphanumeric: bool = False
    otp_expiration_seconds: int = 300
    verification_token_expiration_seconds: int = 3600
    app_name: str = "Emulated App"
    allowed_origins: tuple[str, ...] = ("*",)
    send_from_email_address: str | None = None
    send_from_email_sender_name: str | None = None
    reply_to_email_address: str | None = None
    oauth_client_ids: dict[str, str] = field(default_factory=dict)
    oauth_redirect_url: str = ""
    verification_token_required_for_get_account_pii: bool = False

    def __post_init__(self) -> None:
        unknown = [p for p in self.enabled_providers if p not in METHODS]
        if unknown:
            raise ValueError(f"unknown sign-in method {unknown[0]!r}: one of {', '.join(METHODS)}")
        if not 6 <= self.otp_length <= 9:
            raise ValueError("otpLength must be 6 to 9")
        if not 0 < self.otp_expiration_seconds <= 600:
            raise ValueError("otpExpirationSeconds must be 1 to 600")
        if not 0 < self.verification_token_expiration_seconds <= 86400:
            raise ValueError("verificationTokenExpirationSeconds must be 1 to 86400")
        if self.session_expiration_seconds <= 0:
            raise ValueError("sessionExpirationSeconds must be positive")

    def allows(self, method: str) -> bool:
        return method in self.enabled_providers

    @property
    def allows_oauth(self) -> bool:
        return any(p in OAUTH_PROVIDERS for p in self.enabled_providers)

    def allows_origin(self, origin: str) -> bool:
        return "*" in self.allowed_origins or origin in self.allowed_origins

    def to_json(self) -> Json:
        """The configuration by its wire names."""
        return {
            _camel(f.name): list(value) if isinstance(value, tuple) else value
            for f in dataclasses.fields(self)
            if (value := getattr(self, f.name)) is not None
        }

    def updated(self, changes: Json) -> AuthProxyConfig:
        """This configuration with ``changes`` (wire names) applied; ``ValueError`` names
        an unknown field."""
        return dataclasses.replace(self, **_fields_of(changes, allow_ids=False))


def config_id_for(organization_id: str, number: int) -> str:
    """A configuration id: the same for the same organization and count on every run."""
    return str(uuid.uuid5(_NAMESPACE, f"{organization_id}/{number}"))


def new_config(config_id: str, organization_id: str, settings: Json) -> AuthProxyConfig:
    """A configuration from wire-named ``settings`` (``ValueError`` if one is bad)."""
    return AuthProxyConfig(config_id, organization_id, **_fields_of(settings, allow_ids=False))


_FIELDS = {_f.name for _f in dataclasses.fields(AuthProxyConfig)}
_IDS = {"config_id", "organization_id"}
_TUPLES = {"enabled_providers", "allowed_origins"}
_BOOLS = {"otp_alphanumeric", "verification_token_required_for_get_account_pii"}
_INTS = {
    "session_expiration_seconds",
    "otp_length",
    "otp_expiration_seconds",
    "verification_token_expiration_seconds",
}
_ALIASES = {"allowedAuthMethods": "enabled_providers", "enabledMethods": "enabled_providers"}


def _fields_of(settings: Json, *, allow_ids: bool) -> Json:
    if not isinstance(settings, dict):
        raise ValueError("the configuration must be a JSON object")
    out: Json = {}
    for key, value in settings.items():
        name = _ALIASES.get(key) or _snake(key)
        if name not in _FIELDS or (name in _IDS and not allow_ids):
            raise ValueError(f"unknown Auth Proxy setting {key!r}")
        if name in _TUPLES:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError(f"{key} must be a list of strings")
            value = tuple(value)
        elif name == "oauth_client_ids":
            if not isinstance(value, dict):
                raise ValueError(f"{key} must be an object")
        elif name in _BOOLS and not isinstance(value, bool):
            raise ValueError(f"{key} must be true or false")
        elif name in _INTS and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"{key} must be an integer")
        elif name not in _BOOLS | _INTS and not isinstance(value, str):
            raise ValueError(f"{key} must be a string")
        out[name] = value
    return out


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)
