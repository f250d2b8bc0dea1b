"""The built-in OAuth 2.0 provider's test seam: ``emu.oauth2`` (X and Discord, in-process).

``oauth2_authenticate`` exchanges an end user's authorization code at the provider's token
endpoint. The emulator has no network, so it plays the provider itself
(``services/oauth2.py``), and this seam does what the provider's developer portal and its
consent screen do:

* ``register_client(provider)`` registers an app and answers its client id and secret (the
  secret is what a test encrypts with ``client_crypto.encrypt_oauth2_client_secret``);
* ``authorize(client, user_id=..., redirect_uri=..., code_challenge=...)`` is the end user
  granting the app access: it answers the authorization code the provider would append to
  the redirect URI, bound to the PKCE challenge, valid 10 minutes on the emulator's clock;
* ``pkce()`` makes a verifier and its S256 challenge, as the SDKs do.

The provider's state is another party's, not the organization's: a rollback (and so the
pytest plugin after each test) undoes it, but snapshots and state files do not carry it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..crypto.encoding import b64url_encode
from ..ground.external_records import AuthorizationCode, ProviderClient
from ..services.oauth2 import (
    DEFAULT_CODE_LIFETIME_S,
    PLAIN,
    PROVIDERS,
    S256,
    X,
    code_challenge,
    subject,
)

if TYPE_CHECKING:
    from ..engine_state.world import World

__all__ = ["EmulatorOAuth2", "ProviderClient", "pkce", "subject"]


def pkce(verifier: str | None = None) -> tuple[str, str]:
    """``(code_verifier, code_challenge)``: a fresh 43-character verifier (or the one given)
    and its S256 challenge (RFC 7636 §4.1–4.2)."""
    code_verifier = verifier if verifier is not None else b64url_encode(os.urandom(32))
    return code_verifier, code_challenge(code_verifier, S256)


class EmulatorOAuth2:
    """``emu.oauth2``: the OAuth 2.0 provider built into the emulator (test-only)."""

    def __init__(self, world: World) -> None:
        self._world = world

    def __repr__(self) -> str:
        return (
            f"EmulatorOAuth2(clients={len(self._world.oauth2_clients)}, "
            f"codes={len(self._world.oauth2_codes)})"
        )

    pkce = staticmethod(pkce)
    subject = staticmethod(subject)

    def register_client(
        self,
        provider: str = X,
        *,
        client_id: str | None = None,
        client_secret: str | None = None,
        redirect_uris: tuple[str, ...] | list[str] = (),
    ) -> ProviderClient:
        """Register an app with ``provider`` (``OAUTH2_PROVIDER_X`` or ``_DISCORD``); the
        id and secret are made when not given. ``redirect_uris``, when given, are the only
        ones ``authorize`` accepts. Registering an id again replaces that app."""
        if provider not in PROVIDERS:
            raise ValueError(f"provider must be one of {sorted(PROVIDERS)}")
        ids = self._world.ids
        client = ProviderClient(
            provider=provider,
            client_id=client_id if client_id is not None else b64url_encode(ids.random_bytes(16)),
            client_secret=(
                client_secret if client_secret is not None else b64url_encode(ids.secret_bytes(32))
            ),
            redirect_uris=tuple(redirect_uris),
        )
        self._put(self._world.oauth2_clients, (provider, client.client_id), client)
        return client

    def authorize(
        self,
        client: ProviderClient,
        *,
        user_id: str,
        redirect_uri: str,
        code_challenge: str,
        code_challenge_method: str = S256,
        expires_in: int = DEFAULT_CODE_LIFETIME_S,
    ) -> str:
        """The authorization code for the provider's user ``user_id`` (the ``sub`` of the
        token Turnkey then mints is ``x:<user_id>`` / ``discord:<user_id>``)."""
        registered = self._world.oauth2_clients.get((client.provider, client.client_id))
        if registered is None:
            raise ValueError(f"no client {client.client_id!r} is registered with {client.provider}")
        if registered.redirect_uris and redirect_uri not in registered.redirect_uris:
            raise ValueError(f"redirect URI {redirect_uri!r} is not registered for this client")
        if code_challenge_method not in (S256, PLAIN):
            raise ValueError(f"code_challenge_method must be {S256} or {PLAIN}")
        if not user_id:
            raise ValueError("user_id must not be empty")
        code = b64url_encode(self._world.ids.secret_bytes(24))
        issued = AuthorizationCode(
            provider=client.provider,
            client_id=client.client_id,
            redirect_uri=redirect_uri,
            code_challenge=code_challenge,
            code_challenge_method=code_challenge_method,
            user_id=user_id,
            expires_at_ns=self._world.clock.now_ns() + expires_in * 1_000_000_000,
        )
        self._put(self._world.oauth2_codes, code, issued)
        return code

    def code_used(self, code: str) -> bool:
        """Whether a code was exchanged already (``KeyError`` for a code never issued)."""
        return self._world.oauth2_codes[code].used

    def _put(self, mapping: dict, key: object, value: object) -> None:
        with self._world.lock:
            tx = self._world.transaction()
            tx.put(mapping, key, value)
            tx.commit()
