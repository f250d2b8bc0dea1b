"""Records to wire JSON: the exact shapes the real service answers with.

Every list field the official SDKs require is always present (empty if need
be); timestamps are ``{"seconds": "<str>", "nanos": "<str>"}``.
"""

from __future__ import annotations

from typing import Any

from .clock import NANOS_PER_SECOND
from .compact import intent_of, result_of, seed_intent_of, timestamp_ms_of
from .controls import AuthMethod, MfaPolicy
from .models import (
    Activity,
    ApiKey,
    Authenticator,
    Invitation,
    OauthProvider,
    Organization,
    Policy,
    PrivateKey,
    Tag,
    User,
    Vote,
    Wallet,
    WalletAccount,
)

Json = dict[str, Any]

QUERY_ACTIVITY_TYPE = "ACTIVITY_TYPE_UNKNOWN_V1"
COMPLETED = "ACTIVITY_STATUS_COMPLETED"


# A timestamp's two strings by nanoseconds: records are rendered again and again with the
# same times (a caller's user and key in every vote), and an activity's times are equal.
# The strings are a function of the number alone, so the cache is never stale; each call
# builds a new dict. Two dicts of strings rather than one of pairs: a pair is an object
# the cyclic collector counts, strings are not. Bounded: emptied when full.
_SECONDS_TEXT: dict[int, str] = {}
_NANOS_TEXT: dict[int, str] = {}
_TIMESTAMP_TEXT_MAX = 4096


def forget_timestamps() -> None:
    """Empty the timestamp text cache (memory counts that should not see it fill)."""
    _SECONDS_TEXT.clear()
    _NANOS_TEXT.clear()


def timestamp(ns: int) -> Json:
    if type(ns) is not int:  # 5.0 == 5, but its text differs: not from the cache
        return {"seconds": str(ns // NANOS_PER_SECOND), "nanos": str(ns % NANOS_PER_SECOND)}
    seconds = _SECONDS_TEXT.get(ns)
    nanos = _NANOS_TEXT.get(ns)
    if seconds is None or nanos is None:
        if len(_SECONDS_TEXT) >= _TIMESTAMP_TEXT_MAX:
            _SECONDS_TEXT.clear()
            _NANOS_TEXT.clear()
        seconds = _SECONDS_TEXT[ns] = str(ns // NANOS_PER_SECOND)
        nanos = _NANOS_TEXT[ns] = str(ns % NANOS_PER_SECOND)
    return {"seconds": seconds, "nanos": nanos}


def api_key(key: ApiKey) -> Json:
    out: Json = {
        "credential": {"publicKey": key.public_key, "type": key.credential_type},
        "apiKeyId": key.api_key_id,
        "apiKeyName": key.name,
        "createdAt": timestamp(key.created_at),
        "updatedAt": timestamp(key.updated_at),
    }
    if key.expiration_seconds is not None:
        out["expirationSeconds"] = key.expiration_seconds
    if key.session_profile_id is not None:
        out["credential"]["sessionProfileId"] = key.session_profile_id
    return out


def authenticator(auth: Authenticator) -> Json:
    return {
        "transports": list(auth.transports),
        "attestationType": auth.attestation_type,
        "aaguid": auth.aaguid,
        "credentialId": auth.credential_id,
        "model": auth.model,
        "credential": {
            "publicKey": auth.public_key,
            "type": "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR",
        },
        "authenticatorId": auth.authenticator_id,
        "authenticatorName": auth.name,
        "createdAt": timestamp(auth.created_at),
        "updatedAt": timestamp(auth.updated_at),
    }


def oauth_provider(provider: OauthProvider) -> Json:
    return {
        "providerId": provider.provider_id,
        "providerName": provider.name,
        "issuer": provider.issuer,
        "audience": provider.audience,
        "subject": provider.subject,
        "createdAt": timestamp(provider.created_at),
        "updatedAt": timestamp(provider.updated_at),
    }


def auth_method(m: AuthMethod) -> Json:
    """``v1AuthenticationMethod``."""
    return {"type": m.type, "id": m.id} if m.id is not None else {"type": m.type}


def auth_steps(required: tuple[tuple[AuthMethod, ...], ...]) -> list[Json]:
    return [{"any": [auth_method(m) for m in step]} for step in required]


def mfa_policy(p: MfaPolicy) -> Json:
    """``v1MfaPolicy``."""
    return {
        "mfaPolicyId": p.mfa_policy_id,
        "mfaPolicyName": p.name,
        "condition": p.condition,
        "requiredAuthenticationMethods": auth_steps(p.required),
        "order": p.order,
        "notes": p.notes,
        "createdAt": timestamp(p.created_at),
        "updatedAt": timestamp(p.updated_at),
    }


def user(u: User, org: Organization | None = None) -> Json:
    """``v1User``; its ``mfaPolicies`` are read from ``org`` (the user's organization)."""
    out: Json = {
        "userId": u.user_id,
        "userName": u.name,
        # An empty collection skips its comprehension (a call of its own each time).
        "authenticators": (
            [authenticator(a) for a in u.authenticators.values()] if u.authenticators else []
        ),
        "apiKeys": [api_key(k) for k in u.api_keys.values()],
        "userTags": list(u.tag_ids),
        "oauthProviders": (
            [oauth_provider(p) for p in u.oauth_providers.values()] if u.oauth_providers else []
        ),
        "createdAt": timestamp(u.created_at),
        "updatedAt": timestamp(u.updated_at),
        "mfaPolicies": (
            [mfa_policy(p) for p in org.mfa_policies_of(u.user_id)]
            if org is not None and org.mfa_policies
            else []
        ),
    }
    if u.email is not None:
        out["userEmail"] = u.email
    if u.phone_number is not None:
        out["userPhoneNumber"] = u.phone_number
    return out


def policy(p: Policy) -> Json:
    rendered = {
        "policyId": p.policy_id,
        "policyName": p.name,
        "effect": p.effect,
        "createdAt": timestamp(p.created_at),
        "updatedAt": timestamp(p.updated_at),
        "notes": p.notes,
        "consensus": p.consensus,
        "condition": p.condition,
    }
    if p.time is not None:
        rendered["time"] = p.time
    return rendered


def tag(t: Tag) -> Json:
    return {
        "tagId": t.tag_id,
        "tagName": t.name,
        "tagType": t.tag_type,
        "createdAt": timestamp(t.created_at),
        "updatedAt": timestamp(t.updated_at),
    }


def invitation(i: Invitation) -> Json:
    """``v1Invitation``; an invitation the emulator holds has not been accepted or revoked."""
    return {
        "invitationId": i.invitation_id,
        "receiverUserName": i.receiver_user_name,
        "receiverEmail": i.receiver_user_email,
        "receiverUserTags": list(i.receiver_user_tags),
        "accessType": i.access_type,
        "status": "INVITATION_STATUS_CREATED",
        "createdAt": timestamp(i.created_at),
        "updatedAt": timestamp(i.updated_at),
        "senderUserId": i.sender_user_id,
    }


def wallet(w: Wallet) -> Json:
    return {
        "walletId": w.wallet_id,
        "walletName": w.name,
        "createdAt": timestamp(w.created_at),
        "updatedAt": timestamp(w.updated_at),
        "exported": w.exported,
        "imported": w.imported,
    }


# The CAIP-2 namespace of each chain family (v1WalletAccount.caip2Prefix).
_CAIP2_PREFIXES = {
    "ADDRESS_FORMAT_ETHEREUM": "eip155",
    "ADDRESS_FORMAT_SOLANA": "solana",
    "ADDRESS_FORMAT_COSMOS": "cosmos",
    "ADDRESS_FORMAT_SEI": "cosmos",
    "ADDRESS_FORMAT_TRON": "tron",
    "ADDRESS_FORMAT_SUI": "sui",
    "ADDRESS_FORMAT_APTOS": "aptos",
    "ADDRESS_FORMAT_XLM": "stellar",
    "ADDRESS_FORMAT_XRP": "xrpl",
    "ADDRESS_FORMAT_TON_V3R2": "tvm",
    "ADDRESS_FORMAT_TON_V4R2": "tvm",
    "ADDRESS_FORMAT_TON_V5R1": "tvm",
    "ADDRESS_FORMAT_DOGE_MAINNET": "bip122",
    "ADDRESS_FORMAT_DOGE_TESTNET": "bip122",
}


def _caip2_prefix(address_format: str) -> str | None:
    if address_format.startswith("ADDRESS_FORMAT_BITCOIN_"):
        return "bip122"
    return _CAIP2_PREFIXES.get(address_format)


def wallet_account(a: WalletAccount, details: Wallet | None = None) -> Json:
    out: Json = {
        "walletAccountId": a.wallet_account_id,
        "organizationId": a.organization_id,
        "walletId": a.wallet_id,
        "curve": a.curve,
        "pathFormat": a.path_format,
        "path": a.path,
        "addressFormat": a.address_format,
        "address": a.address,
        "createdAt": timestamp(a.created_at),
        "updatedAt": timestamp(a.updated_at),
        "publicKey": a.public_key,
    }
    if a.name is not None:
        out["name"] = a.name
    prefix = _caip2_prefix(a.address_format)
    if prefix is not None:
        out["caip2Prefix"] = prefix
    if details is not None:
        out["walletDetails"] = wallet(details)
    return out


def private_key(k: PrivateKey) -> Json:
    return {
        "privateKeyId": k.private_key_id,
        "publicKey": k.public_key,
        "privateKeyName": k.name,
        "curve": k.curve,
        "addresses": [{"format": a.address_format, "address": a.address} for a in k.addresses],
        "privateKeyTags": list(k.tag_ids),
        "createdAt": timestamp(k.created_at),
        "updatedAt": timestamp(k.updated_at),
        "exported": k.exported,
        "imported": k.imported,
    }


def vote(v: Vote, voter: Json) -> Json:
    return {
        "id": v.vote_id,
        "userId": v.user_id,
        "user": voter,
        "activityId": v.activity_id,
        "selection": v.selection,
        "message": v.message,
        "publicKey": v.public_key,
        "signature": v.signature,
        "scheme": v.scheme,
        "createdAt": timestamp(v.created_at),
    }


_AWAITING = ("ACTIVITY_STATUS_CONSENSUS_NEEDED", "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED")


def activity(a: Activity, org: Organization, viewer_id: str | None) -> Json:
    """An activity as the viewer (a user id, or nobody) sees it.

    Beside the real ``intent`` and ``result``, a completed activity carries the
    seed document's envelope ``result.activity = {type, intent, result}`` and
    ``timestampMs``, and a version whose seed intent name differs from the
    real one carries both intents. The SDKs ignore keys they do not know.
    """
    a_intent, a_seed, a_result = intent_of(a), seed_intent_of(a), result_of(a)
    intent = {**a_intent, **a_seed} if a_seed else dict(a_intent)
    result = dict(a_result)
    if a.status == COMPLETED and a_result:
        result["activity"] = {
            "type": a.activity_type,
            "intent": dict(a_seed or a_intent),
            "result": dict(a_result),
        }
    voted = False
    for v in a.votes:
        if v.user_id == viewer_id:
            voted = True
            break
    is_member = viewer_id is not None and viewer_id in org.users
    # One vote a user, on an activity that awaits votes: whoever may approve may reject,
    # and nobody else (the proposer has voted already).
    may_vote = a.status == "ACTIVITY_STATUS_CONSENSUS_NEEDED" and is_member and not voted
    status, may_present = a.status, False
    if a.mfa and a.status in _AWAITING:
        # A viewer who owes MFA on it sees it await their authenticators, and may approve
        # (each approval presents a method), not reject (their vote is cast already).
        may_present = any(p.user_id == viewer_id and not p.satisfied for p in a.mfa)
        if may_present:
            status = "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED"
    rendered = {
        "id": a.activity_id,
        "organizationId": a.organization_id,
        "status": status,
        "type": a.activity_type,
        "intent": intent,
        "result": result,
        "votes": [vote(v, _voter(v, org)) for v in a.votes],
        "fingerprint": a.fingerprint,
        "canApprove": may_vote or may_present,
        "canReject": may_vote,
        "createdAt": timestamp(a.created_at),
        "updatedAt": timestamp(a.updated_at),
        "timestampMs": timestamp_ms_of(a),
    }
    if a.failure is not None:  # optional in the official schema: absent unless it failed
        rendered["failure"] = a.failure
    if a.app_proofs:  # optional too: only when the request asked for them
        rendered["appProofs"] = [dict(p) for p in a.app_proofs]
    return rendered


def _voter(v: Vote, org: Organization) -> Json:
    current = org.users.get(v.user_id)
    voter = current if current is not None else v.voter
    return user(voter, org if current is not None else None) if voter is not None else {}


def query_envelope(data: Json, organization_id: str, envelope_id: str, timestamp_ms: int) -> Json:
    """The seed document's query envelope: the data wrapped in an activity."""
    return {
        "id": envelope_id,
        "organizationId": organization_id,
        "status": COMPLETED,
        "type": QUERY_ACTIVITY_TYPE,
        "timestampMs": str(timestamp_ms),
        "result": data,
    }
