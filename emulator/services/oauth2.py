"""Social logins through OAuth 2.0-only providers (X, Discord): the exchange and the token.

social-logins.mdx ("OAuth-Only Providers"): these providers issue no OIDC token, so
Turnkey's TLS fetcher opens the app's client secret, runs the Authorization Code + PKCE
exchange at the provider's token endpoint, asks the provider who the user is, and mints a
short-lived OIDC token itself: ``iss`` Turnkey, ``aud`` the app's client id, ``sub`` derived
from the provider's user id (``x:123456789``), the ``nonce`` the caller sent, and, when a
``bearerTokenTargetPublicKey`` is given, the provider's bearer token encrypted to it
(``encrypted_bearer_token``, a credential bundle that ``decryptCredentialBundle`` opens).
That token then works like any OIDC token: ``oauth_login``, ``create_sub_organization``'s
OAuth providers, ``get_sub_org_ids`` by OIDC token.

The emulator has no network, so the provider is built in: ``World.oauth2_clients`` (the
apps registered with it) and ``World.oauth2_codes`` (the codes it issued), which the test
seam ``emu.oauth2`` fills (``facade/oauth2.py``). Its token endpoint checks what a real one
checks (RFC 6749 §4.1.3 and §5.2, RFC 7636 §4.6), in that order: the client and its
secret (``invalid_client``), the verifier's form (``invalid_request``), then the code:
known to this provider, unused, unexpired on the emulator's clock, issued to this client
for this redirect URI, and its challenge met by the verifier (``invalid_grant``). A code
is used up only when the exchange succeeds. The tokens are signed ES256 by the TLS
fetcher's key; the emulator trusts their issuer (``services/oidc.py``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

from ..crypto import jwt
from ..crypto.enclave import TLS_FETCHER
from ..crypto.encoding import b64url_encode
from ..engine_state.world import World
from ..ground import messages
from ..ground.errors import InvalidArgument
from . import bundles
from .context import Context

Json = dict[str, Any]

X = "OAUTH2_PROVIDER_X"
DISCORD = "OAUTH2_PROVIDER_DISCORD"
# The provider and the prefix of the subjects of its users (``x:123456789``).
PROVIDERS = {X: "x", DISCORD: "discord"}
S256 = "S256"
PLAIN = "plain"
# RFC 6749 §4.1.2 recommends "a maximum authorization code lifetime of 10 minutes".
DEFAULT_CODE_LIFETIME_S = 600
BEARER_TOKEN_CLAIM = "encrypted_bearer_token"
_VERIFIER = re.compile(r"[A-Za-z0-9\-._~]{43,128}")


@dataclass(frozen=True)
class Grant:
    """What the provider's token and who-am-I endpoints answer for a good code."""

    user_id: str
    access_token: str = field(repr=False)


def code_challenge(code_verifier: str, method: str = S256) -> str:
    """The PKCE ``code_challenge`` of a verifier (RFC 7636 §4.2)."""
    if method == PLAIN:
        return code_verifier
    digest = hashlib.sha256(code_verifier.encode("ascii", "replace")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def subject(provider: str, user_id: str) -> str:
    """The ``sub`` of the token minted for a provider's user."""
    return f"{PROVIDERS[provider]}:{user_id}"


def _refused(provider: str, error: str, description: str) -> InvalidArgument:
    # A client the provider does not know (or a wrong secret) is the credential's
    # misconfiguration (INVALID_OAUTH2_PROVIDER); a bad code or verifier is the request's.
    message = messages.oauth2_exchange_failed(provider, error, description)
    if error == "invalid_client":
        return InvalidArgument(message, turnkey_error_code="INVALID_OAUTH2_PROVIDER")
    return InvalidArgument(message, turnkey_error_code="REQUEST_INVALID")


def exchange(
    ctx: Context,
    *,
    provider: str,
    client_id: str,
    client_secret: str,
    code: str,
    redirect_uri: str,
    code_verifier: str,
) -> Grant:
    """The built-in provider's answer to an authorization code grant; the code is used up
    in ``ctx.tx``. Any refusal is a 400 naming the provider's RFC 6749 error."""
    client = ctx.world.oauth2_clients.get((provider, client_id))
    if client is None or not hmac.compare_digest(
        client.client_secret.encode(), client_secret.encode()
    ):
        raise _refused(provider, "invalid_client", "client authentication failed")
    if not _VERIFIER.fullmatch(code_verifier):
        raise _refused(
            provider, "invalid_request", "code_verifier must be 43 to 128 of [A-Za-z0-9-._~]"
        )
    issued = ctx.world.oauth2_codes.get(code)
    if issued is None or issued.provider != provider:
        raise _refused(provider, "invalid_grant", "authorization code is invalid")
    if issued.used:
        raise _refused(provider, "invalid_grant", "authorization code was already used")
    if issued.expires_at_ns <= ctx.now_ns:
        raise _refused(provider, "invalid_grant", "authorization code expired")
    if issued.client_id != client_id:
        raise _refused(provider, "invalid_grant", "authorization code was issued to another client")
    if issued.redirect_uri != redirect_uri:
        raise _refused(provider, "invalid_grant", "redirect_uri does not match the authorization")
    expected = code_challenge(code_verifier, issued.code_challenge_method)
    if not hmac.compare_digest(expected.encode(), issued.code_challenge.encode()):
        raise _refused(provider, "invalid_grant", "code_verifier does not match the code_challenge")
    ctx.tx.put(ctx.world.oauth2_codes, code, replace(issued, used=True))
    return Grant(issued.user_id, b64url_encode(ctx.world.ids.secret_bytes(32)))


# ----- the OIDC token Turnkey mints ------------------------------------------------------------


def _jwk(world: World) -> Json:
    point = bytes.fromhex(world.enclave.tls_fetcher_public_key)
    return {
        "crv": "P-256",
        "kty": "EC",
        "x": b64url_encode(point[1:33]),
        "y": b64url_encode(point[33:]),
    }


def key_id(world: World) -> str:
    """The ``kid`` of the TLS fetcher's signing key: its RFC 7638 thumbprint."""
    canonical = json.dumps(_jwk(world), separators=(",", ":"), sort_keys=True)
    return b64url_encode(hashlib.sha256(canonical.encode()).digest())


def turnkey_jwks(world: World) -> Json:
    """The JWK set the tokens of ``Settings.oauth2_issuer`` verify under."""
    return {"keys": [{**_jwk(world), "alg": "ES256", "kid": key_id(world), "use": "sig"}]}


def mint_token(
    ctx: Context,
    *,
    provider: str,
    client_id: str,
    grant: Grant,
    nonce: str,
    bearer_token_target_public_key: str | None,
) -> str:
    """The OIDC token for the provider's user, signed by the TLS fetcher."""
    now_s = ctx.now_ns // 1_000_000_000
    claims: Json = {
        "iss": ctx.settings.oauth2_issuer,
        "sub": subject(provider, grant.user_id),
        "aud": client_id,
        "nonce": nonce,
        "iat": now_s,
        "exp": now_s + ctx.settings.oauth2_token_lifetime_s,
    }
    if bearer_token_target_public_key is not None:
        try:
            claims[BEARER_TOKEN_CLAIM] = bundles.credential_bundle(
                ctx.world, bearer_token_target_public_key, grant.access_token.encode()
            )
        except bundles.BundleError:
            raise InvalidArgument(
                messages.invalid_target_public_key(bearer_token_target_public_key)
            ) from None
    header = {"alg": "ES256", "kid": key_id(ctx.world), "typ": "JWT"}
    return jwt.sign_es256(claims, ctx.world.enclave.key(TLS_FETCHER), header=header)
