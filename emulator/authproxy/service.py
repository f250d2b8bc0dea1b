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
* ``/v1/oauth2_authenticate`` (OAUTH2_AUTHENTICATE): the parent's OAuth 2.0 credential
  of that provider and client id exchanges an X or Discord code (the emulator's built-in
  provider, ``emu.oauth2``) for an OIDC token Turnkey minted;
* ``/v1/account``: the sub-organization of a filter (GET_SUB_ORG_IDS), or none;
* ``/v1/wallet_kit_config`` and ``/v1/wallet_kit_client_params``: the configuration.

A method the configuration does not enable is refused (403) before anything runs. Errors are the API's ``{code, message, details,
turnkeyErrorCode}`` (the proxy's ``rpcStatus`` with the API's extra field).
"""

from __future__ import annotations

import threading
from typing import Any

from ..ground import jsontext
from ..ground.errors import NOT_FOUND, InvalidArgument, TurnkeyApiError, Unauthenticated
from .config import AuthProxyConfig, config_id_for, new_config
from .endpoints import ENDPOINTS
from .run import Emulator, Run

Json = dict[str, Any]
CONFIG_HEADER = "X-Auth-Proxy-Config-ID"


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
            handler = ENDPOINTS.get(endpoint)
            if handler is None:
                raise TurnkeyApiError(NOT_FOUND, f"no Auth Proxy endpoint {endpoint}")
            try:
                params = jsontext.loads(body) if body.strip() else {}
            except (ValueError, UnicodeDecodeError):
                raise InvalidArgument("the request body is not valid JSON") from None
            if not isinstance(params, dict):
                raise InvalidArgument("the request body must be a JSON object")
            return 200, handler(Run(self.emulator, config), params)
        except TurnkeyApiError as error:
            return error.status, error.body()

    def _config_of(self, config_id: str | None) -> AuthProxyConfig:
        if not config_id:
            raise Unauthenticated(f"missing {CONFIG_HEADER} header")
        config = self._configs.get(config_id.strip())
        if config is None:
            raise Unauthenticated(f"unknown Auth Proxy config id {config_id.strip()}")
        return config
