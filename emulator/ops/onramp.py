"""The fiat on-ramp (features/transaction-management/fiat-on-ramp): credentials, the
provider's URL, the session of a saved quote, and the transaction's status.

``create/update/delete_fiat_on_ramp_credential`` and ``list_fiat_on_ramp_credentials``
keep a provider's API keys, the secret (and Coinbase's private) key encrypted to the
on-ramp encryption key (``encryptOnRampSecret``); the enclave opens them on create and
update (an envelope that does not open is a 400) and answers them as sent, encrypted.
``init_fiat_on_ramp`` and the session activity answer an ``onRampUrl`` on the emulator's
own provider page and the ``onRampTransactionId`` that ``get_onramp_transaction_status``
follows. The logic is ``services/onramp.py``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ground import render
from ..ground.errors import InvalidArgument, NotFound
from ..ground.models import Organization
from ..ground.onramp import PENDING, PROVIDERS, FiatOnRampCredential, OnRampTransaction
from ..ground.schema import Boolean, Enum, String, obj, opt, uuid
from ..services import onramp
from ..services.context import Context
from .registry import Version, activity, query

Params = dict[str, Any]

PROVIDER = Enum(PROVIDERS)
CREDENTIAL_PARAMS = {
    "onrampProvider": PROVIDER,
    "projectId": opt(String()),
    "publishableApiKey": String(),
    "encryptedSecretApiKey": String(),
    "encryptedPrivateApiKey": opt(String()),
}


def find_credential(org: Organization, credential_id: str) -> FiatOnRampCredential:
    found = org.fiat_on_ramp_credentials.get(credential_id)
    if found is None:
        raise NotFound(
            f"no fiat on-ramp credential {credential_id} in organization {org.organization_id}"
        )
    return found


def render_credential(org: Organization, credential: FiatOnRampCredential) -> Params:
    """``v1FiatOnRampCredential``."""
    out: Params = {
        "fiatOnrampCredentialId": credential.fiat_onramp_credential_id,
        "organizationId": org.organization_id,
        "onrampProvider": credential.onramp_provider,
        "publishableApiKey": credential.publishable_api_key,
        "encryptedSecretApiKey": credential.encrypted_secret_api_key,
        "createdAt": render.timestamp(credential.created_at),
        "updatedAt": render.timestamp(credential.updated_at),
    }
    if credential.project_id is not None:
        out["projectId"] = credential.project_id
    if credential.encrypted_private_api_key is not None:
        out["encryptedPrivateApiKey"] = credential.encrypted_private_api_key
    if credential.sandbox_mode is not None:
        out["sandboxMode"] = credential.sandbox_mode
    return out


def _checked_keys(ctx: Context, params: Params) -> None:
    """The documented rules: a publishable key; Coinbase's project id and private key; the
    encrypted keys open with the on-ramp encryption key."""
    if not params["publishableApiKey"].strip():
        raise InvalidArgument("publishableApiKey must not be empty")
    onramp.open_secret(ctx.world, params["encryptedSecretApiKey"])
    if params["onrampProvider"] == onramp.COINBASE:
        if not params.get("projectId", "").strip():
            raise InvalidArgument("projectId is required for FIAT_ON_RAMP_PROVIDER_COINBASE")
        if "encryptedPrivateApiKey" not in params:
            raise InvalidArgument(
                "encryptedPrivateApiKey is required for FIAT_ON_RAMP_PROVIDER_COINBASE"
            )
    if "encryptedPrivateApiKey" in params:
        onramp.open_secret(ctx.world, params["encryptedPrivateApiKey"])


@activity(
    "create_fiat_on_ramp_credential",
    summary="Create a Fiat On Ramp Credential",
    default="ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_CREDENTIAL",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_CREDENTIAL",
            "createFiatOnRampCredentialIntent",
            "createFiatOnRampCredentialResult",
            obj(**CREDENTIAL_PARAMS, sandboxMode=opt(Boolean())),
        )
    ],
)
def create_fiat_on_ramp_credential(ctx: Context, params: Params) -> Params:
    _checked_keys(ctx, params)
    made = FiatOnRampCredential(
        fiat_onramp_credential_id=ctx.new_id(),
        onramp_provider=params["onrampProvider"],
        publishable_api_key=params["publishableApiKey"],
        encrypted_secret_api_key=params["encryptedSecretApiKey"],
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
        project_id=params.get("projectId"),
        encrypted_private_api_key=params.get("encryptedPrivateApiKey"),
        sandbox_mode=params.get("sandboxMode"),
    )
    ctx.tx.put(ctx.org.fiat_on_ramp_credentials, made.fiat_onramp_credential_id, made)
    return {"fiatOnRampCredentialId": made.fiat_onramp_credential_id}


@activity(
    "update_fiat_on_ramp_credential",
    summary="Update a Fiat On Ramp Credential",
    default="ACTIVITY_TYPE_UPDATE_FIAT_ON_RAMP_CREDENTIAL",
    versions=[
        Version(
            "ACTIVITY_TYPE_UPDATE_FIAT_ON_RAMP_CREDENTIAL",
            "updateFiatOnRampCredentialIntent",
            "updateFiatOnRampCredentialResult",
            obj(fiatOnrampCredentialId=uuid(), **CREDENTIAL_PARAMS),
        )
    ],
)
def update_fiat_on_ramp_credential(ctx: Context, params: Params) -> Params:
    found = find_credential(ctx.org, params["fiatOnrampCredentialId"])
    _checked_keys(ctx, params)
    updated = replace(
        found,
        onramp_provider=params["onrampProvider"],
        publishable_api_key=params["publishableApiKey"],
        encrypted_secret_api_key=params["encryptedSecretApiKey"],
        project_id=params.get("projectId"),
        encrypted_private_api_key=params.get("encryptedPrivateApiKey"),
        updated_at=ctx.now_ns,
    )
    ctx.tx.put(ctx.org.fiat_on_ramp_credentials, found.fiat_onramp_credential_id, updated)
    return {"fiatOnRampCredentialId": found.fiat_onramp_credential_id}


@activity(
    "delete_fiat_on_ramp_credential",
    summary="Delete a Fiat On Ramp Credential",
    default="ACTIVITY_TYPE_DELETE_FIAT_ON_RAMP_CREDENTIAL",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_FIAT_ON_RAMP_CREDENTIAL",
            "deleteFiatOnRampCredentialIntent",
            "deleteFiatOnRampCredentialResult",
            obj(fiatOnrampCredentialId=uuid()),
        )
    ],
)
def delete_fiat_on_ramp_credential(ctx: Context, params: Params) -> Params:
    found = find_credential(ctx.org, params["fiatOnrampCredentialId"])
    ctx.tx.pop(ctx.org.fiat_on_ramp_credentials, found.fiat_onramp_credential_id)
    return {"fiatOnRampCredentialId": found.fiat_onramp_credential_id}


@query(
    "list_fiat_on_ramp_credentials",
    summary="List Fiat On Ramp Credentials",
    body=obj(),
    result_keys=("fiatOnRampCredentials",),
)
def list_fiat_on_ramp_credentials(ctx: Context, body: Params) -> Params:
    credentials = ctx.org.fiat_on_ramp_credentials.values()
    return {"fiatOnRampCredentials": [render_credential(ctx.org, c) for c in credentials]}


def _open(ctx: Context, tx: OnRampTransaction, url_for_signature: str | None = None) -> Params:
    """Store a new transaction and answer its URL (and the signature asked for)."""
    credential = onramp.credential_for(ctx.org, tx.onramp_provider, tx.sandbox_mode)
    if credential is not None:
        tx = replace(tx, fiat_onramp_credential_id=credential.fiat_onramp_credential_id)
    site = ctx.settings.onramp_site_url or onramp.DEFAULT_SITE
    out: Params = {
        "onRampUrl": onramp.on_ramp_url(site, tx, credential, ctx.world),
        "onRampTransactionId": tx.transaction_id,
    }
    if url_for_signature is not None:
        if tx.onramp_provider != onramp.MOONPAY:
            raise InvalidArgument("urlForSignature is for FIAT_ON_RAMP_PROVIDER_MOONPAY only")
        if credential is None:
            raise InvalidArgument(
                "urlForSignature needs a MoonPay fiat on-ramp credential in this mode: its "
                "secret key signs the URL"
            )
        secret = onramp.open_secret(ctx.world, credential.encrypted_secret_api_key)
        out["onRampUrlSignature"] = onramp.moonpay_signature(secret, url_for_signature)
    ctx.tx.put(ctx.org.on_ramp_transactions, tx.transaction_id, tx)
    return out


@activity(
    "init_fiat_on_ramp",
    summary="Init fiat on ramp",
    default="ACTIVITY_TYPE_INIT_FIAT_ON_RAMP",
    versions=[
        Version(
            "ACTIVITY_TYPE_INIT_FIAT_ON_RAMP",
            "initFiatOnRampIntent",
            "initFiatOnRampResult",
            obj(
                onrampProvider=PROVIDER,
                walletAddress=String(),
                network=Enum(onramp.NETWORKS),
                cryptoCurrencyCode=Enum(onramp.CRYPTO_CURRENCIES),
                fiatCurrencyCode=opt(Enum(onramp.FIAT_CURRENCIES)),
                fiatCurrencyAmount=opt(String()),
                paymentMethod=opt(Enum(tuple(onramp.PAYMENT_METHODS))),
                countryCode=opt(String()),
                countrySubdivisionCode=opt(String()),
                sandboxMode=opt(Boolean()),
                urlForSignature=opt(String()),
            ),
        )
    ],
)
def init_fiat_on_ramp(ctx: Context, params: Params) -> Params:
    provider, network = params["onrampProvider"], params["network"]
    onramp.checked_pair(network, params["cryptoCurrencyCode"])
    address = onramp.checked_address(network, params["walletAddress"])
    amount = params.get("fiatCurrencyAmount")
    if amount is not None:
        onramp.checked_amount(amount)
    onramp.checked_country(params.get("countryCode"), params.get("countrySubdivisionCode"))
    onramp.checked_payment_method(provider, params.get("paymentMethod"))
    sandbox = params.get("sandboxMode", False)
    tx = OnRampTransaction(
        transaction_id=ctx.new_id(),
        onramp_provider=provider,
        wallet_address=address,
        network=network,
        crypto_currency_code=params["cryptoCurrencyCode"],
        caip2=onramp.caip2_of(network, sandbox),
        sandbox_mode=sandbox,
        status=PENDING,
        provider_status=PENDING,
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
        fiat_currency_code=params.get("fiatCurrencyCode"),
        fiat_currency_amount=amount,
        payment_method=params.get("paymentMethod"),
        country_code=params.get("countryCode"),
        country_subdivision_code=params.get("countrySubdivisionCode"),
    )
    return _open(ctx, tx, params.get("urlForSignature"))


@activity(
    "create_fiat_on_ramp_session",
    summary="Create Fiat On Ramp Session",
    default="ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_SESSION",
    in_python_sdk=False,
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_SESSION",
            "createFiatOnRampSessionIntent",
            "createFiatOnRampSessionResult",
            obj(quoteId=String(), walletAddress=String()),
        )
    ],
)
def create_fiat_on_ramp_session(ctx: Context, params: Params) -> Params:
    quote = ctx.org.fiat_on_ramp_quotes.get(params["quoteId"])
    if quote is None:
        raise NotFound(f"no fiat on-ramp quote {params['quoteId']} in this organization")
    if quote.expires_at <= ctx.now_ns:
        raise InvalidArgument(f"fiat on-ramp quote {quote.quote_id} has expired: get a new one")
    address = onramp.checked_address(quote.network, params["walletAddress"])
    tx = OnRampTransaction(
        transaction_id=ctx.new_id(),
        onramp_provider=quote.onramp_provider,
        wallet_address=address,
        network=quote.network,
        crypto_currency_code=quote.crypto_currency_code,
        caip2=onramp.caip2_of(quote.network, quote.sandbox_mode),
        sandbox_mode=quote.sandbox_mode,
        status=PENDING,
        provider_status=PENDING,
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
        fiat_currency_code=quote.fiat_currency_code,
        fiat_currency_amount=quote.fiat_currency_amount,
        payment_method=quote.payment_method,
        quote_id=quote.quote_id,
    )
    ctx.tx.pop(ctx.org.fiat_on_ramp_quotes, quote.quote_id)  # a quote opens one session
    return _open(ctx, tx)


@query(
    "get_onramp_transaction_status",
    summary="Get On Ramp transaction status",
    sdk_method="get_on_ramp_transaction_status",
    body=obj(transactionId=String(), refresh=opt(Boolean())),
    result_keys=("transactionStatus",),
)
def get_onramp_transaction_status(ctx: Context, body: Params) -> Params:
    tx = ctx.org.on_ramp_transactions.get(body["transactionId"])
    if tx is None:
        raise NotFound(f"no on-ramp transaction {body['transactionId']} in this organization")
    if body.get("refresh"):
        tx = onramp.refreshed(ctx.world, ctx.org, tx)
    return {"transactionStatus": tx.status}
