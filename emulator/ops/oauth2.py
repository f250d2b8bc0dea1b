"""OAuth 2.0 credentials: create, update, delete, get and list them, and oauth2_authenticate.

An organization uploads the client id and secret an OAuth 2.0-only provider (X, Discord)
gave its app, the secret encrypted to the TLS fetcher's quorum key (``@turnkey/crypto``'s
``encryptOauth2ClientSecret``; ``crypto/quorum.py``). The enclave opens it on create and
update (an envelope that does not open is a 400) and again on each use; the record keeps
it as sent, encrypted, and answers it so (``v1Oauth2Credential.encryptedClientSecret``).
``oauth2_authenticate`` exchanges an end user's auth code with the provider using the
credential and answers an OIDC token that Turnkey mints (``services/oauth2.py``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..crypto.enclave import TLS_FETCHER_ENCRYPT
from ..crypto.quorum import QuorumEncryptionError
from ..ground import messages, render
from ..ground.errors import InvalidArgument, NotFound
from ..ground.external_records import Oauth2Credential
from ..ground.models import Organization
from ..ground.schema import Enum, String, obj, opt, uuid
from ..services import oauth2
from ..services.context import Context
from .registry import Version, activity, query

Params = dict[str, Any]

PROVIDER = Enum(tuple(oauth2.PROVIDERS))


def find_credential(org: Organization, credential_id: str) -> Oauth2Credential:
    found = org.oauth2_credentials.get(credential_id)
    if found is None:
        raise NotFound(
            messages.oauth2_credential_not_found(credential_id, org.organization_id),
            turnkey_error_code="OAUTH2_CREDENTIAL_NOT_FOUND",
        )
    return found


def client_secret(ctx: Context, encrypted_client_secret: str) -> str:
    """The client secret, opened by the TLS fetcher's encryption key; a 400 if it does not
    open (or is not text)."""
    try:
        envelope = bytes.fromhex(encrypted_client_secret)
        return ctx.world.enclave.decrypt(TLS_FETCHER_ENCRYPT, envelope).decode("utf-8")
    except (ValueError, QuorumEncryptionError):  # UnicodeDecodeError is a ValueError
        raise InvalidArgument(messages.INVALID_ENCRYPTED_CLIENT_SECRET) from None


def _client_id(params: Params) -> str:
    client_id = params["clientId"]
    if not client_id.strip():
        raise InvalidArgument(messages.EMPTY_CLIENT_ID)
    return client_id


def render_credential(org: Organization, credential: Oauth2Credential) -> Params:
    """``v1Oauth2Credential``."""
    return {
        "oauth2CredentialId": credential.oauth2_credential_id,
        "organizationId": org.organization_id,
        "provider": credential.provider,
        "clientId": credential.client_id,
        "encryptedClientSecret": credential.encrypted_client_secret,
        "createdAt": render.timestamp(credential.created_at),
        "updatedAt": render.timestamp(credential.updated_at),
    }


CREDENTIAL_PARAMS = {
    "provider": PROVIDER,
    "clientId": String(),
    "encryptedClientSecret": String(fmt="hex"),
}


@activity(
    "create_oauth2_credential",
    summary="Create an OAuth 2.0 Credential",
    default="ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL",
            "createOauth2CredentialIntent",
            "createOauth2CredentialResult",
            obj(**CREDENTIAL_PARAMS),
        )
    ],
)
def create_oauth2_credential(ctx: Context, params: Params) -> Params:
    client_id = _client_id(params)
    client_secret(ctx, params["encryptedClientSecret"])
    made = Oauth2Credential(
        oauth2_credential_id=ctx.new_id(),
        provider=params["provider"],
        client_id=client_id,
        encrypted_client_secret=params["encryptedClientSecret"],
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
    )
    ctx.tx.put(ctx.org.oauth2_credentials, made.oauth2_credential_id, made)
    return {"oauth2CredentialId": made.oauth2_credential_id}


@activity(
    "update_oauth2_credential",
    summary="Update an OAuth 2.0 Credential",
    default="ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL",
    versions=[
        Version(
            "ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL",
            "updateOauth2CredentialIntent",
            "updateOauth2CredentialResult",
            obj(oauth2CredentialId=uuid(), **CREDENTIAL_PARAMS),
        )
    ],
)
def update_oauth2_credential(ctx: Context, params: Params) -> Params:
    found = find_credential(ctx.org, params["oauth2CredentialId"])
    client_id = _client_id(params)
    client_secret(ctx, params["encryptedClientSecret"])
    updated = replace(
        found,
        provider=params["provider"],
        client_id=client_id,
        encrypted_client_secret=params["encryptedClientSecret"],
        updated_at=ctx.now_ns,
    )
    ctx.tx.put(ctx.org.oauth2_credentials, found.oauth2_credential_id, updated)
    return {"oauth2CredentialId": found.oauth2_credential_id}


@activity(
    "delete_oauth2_credential",
    summary="Delete an OAuth 2.0 Credential",
    default="ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL",
            "deleteOauth2CredentialIntent",
            "deleteOauth2CredentialResult",
            obj(oauth2CredentialId=uuid()),
        )
    ],
)
def delete_oauth2_credential(ctx: Context, params: Params) -> Params:
    found = find_credential(ctx.org, params["oauth2CredentialId"])
    ctx.tx.pop(ctx.org.oauth2_credentials, found.oauth2_credential_id)
    return {"oauth2CredentialId": found.oauth2_credential_id}


@query(
    "get_oauth2_credential",
    summary="Get OAuth 2.0 credential",
    body=obj(oauth2CredentialId=uuid()),
    result_keys=("oauth2Credential",),
)
def get_oauth2_credential(ctx: Context, body: Params) -> Params:
    found = find_credential(ctx.org, body["oauth2CredentialId"])
    return {"oauth2Credential": render_credential(ctx.org, found)}


@query(
    "list_oauth2_credentials",
    summary="List OAuth 2.0 Credentials",
    body=obj(),
    result_keys=("oauth2Credentials",),
)
def list_oauth2_credentials(ctx: Context, body: Params) -> Params:
    credentials = ctx.org.oauth2_credentials.values()
    return {"oauth2Credentials": [render_credential(ctx.org, c) for c in credentials]}


@activity(
    "oauth2_authenticate",
    summary="OAuth 2.0 authentication",
    default="ACTIVITY_TYPE_OAUTH2_AUTHENTICATE",
    versions=[
        Version(
            "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE",
            "oauth2AuthenticateIntent",
            "oauth2AuthenticateResult",
            obj(
                oauth2CredentialId=uuid(),
                authCode=String(),
                redirectUri=String(),
                codeVerifier=String(),
                nonce=String(),
                bearerTokenTargetPublicKey=opt(String(fmt="hex")),
            ),
        )
    ],
)
def oauth2_authenticate(ctx: Context, params: Params) -> Params:
    credential = find_credential(ctx.org, params["oauth2CredentialId"])
    grant = oauth2.exchange(
        ctx,
        provider=credential.provider,
        client_id=credential.client_id,
        client_secret=client_secret(ctx, credential.encrypted_client_secret),
        code=params["authCode"],
        redirect_uri=params["redirectUri"],
        code_verifier=params["codeVerifier"],
    )
    token = oauth2.mint_token(
        ctx,
        provider=credential.provider,
        client_id=credential.client_id,
        grant=grant,
        nonce=params["nonce"],
        bearer_token_target_public_key=params.get("bearerTokenTargetPublicKey"),
    )
    return {"oidcToken": token}
