"""What the dashboard shows, as JSON: each view reads only what it shows.

Every function here (and in ``observations.py``) runs under the world's lock and reads the
records directly (the API's renderers where the page shows an API record, so the shapes and
the public parts are the service's own: a user's API keys, passkeys and OAuth providers are
their public halves, never a secret). Lists are pages (``offset``, ``limit``, capped at ``MAX_LIMIT``), newest
first, so a view costs its page, not the world: the activities of all organizations are
read backwards from the store's index, those of one from the organization's own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from itertools import islice
from typing import TYPE_CHECKING, Any

from ..crypto.api_keys import ApiKeyPair
from ..engine_state.world import World
from ..ground import render
from ..ground.clock import NANOS_PER_MILLI
from ..ground.models import Activity, Organization, Wallet
from ..services import activity_lookup
from .observations import clock, webhook_state, webhooks_of
from .params import ViewError, page, text

if TYPE_CHECKING:
    from ..facade.api import Emulator

Json = dict[str, Any]

MAX_CHILDREN = 200  # sub-organizations listed under one node of the tree
MAX_ACCOUNTS = 25  # accounts listed under one wallet
MAX_PURCHASES = 25  # on-ramp purchases listed under one organization
MAX_PRIVATE_KEYS = 200  # private keys listed for one organization
# The statuses of an activity that awaits votes (the second: issue 15's MFA policies).
AWAITING_VOTES = ("ACTIVITY_STATUS_CONSENSUS_NEEDED", "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED")


def version(emulator: Emulator) -> Json:
    """What changes whenever anything the dashboard shows changes: the page polls this and
    reloads its view when it differs. Constant time: counters and identities, no walk."""
    world = emulator.world
    clock_offset, clock_frozen = world.clock.getstate()
    parts = [
        id(world.store),
        world.generation,
        world.commits,
        world.calls.total,
        id(world.outbox._messages),  # a new list on clear()
        len(world.outbox),
        clock_offset,
        clock_frozen,
        len(world.faults),
        webhook_state(webhooks_of(emulator)),
    ]
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).hexdigest()
    return {"version": digest}


# ----- organizations ---------------------------------------------------------------------


def overview(emulator: Emulator) -> Json:
    """The tree of organizations (roots, their sub-organizations), the clock and the
    counts the page's header shows."""
    world = emulator.world
    store = world.store
    roots = [org for org in store.organizations.values() if org.parent_id is None]
    return {
        "organizations": [_node(world, org) for org in roots[:MAX_CHILDREN]],
        "moreOrganizations": max(0, len(roots) - MAX_CHILDREN),
        "organizationCount": len(store.organizations),
        "activityCount": activity_lookup.count(world, store.organizations.values()),
        "clock": clock(world),
        "faultCount": len(world.faults),
        "callCount": world.calls.total,
        "messageCount": len(world.outbox),
        "webhooks": webhooks_of(emulator) is not None,
    }


def _node(world: World, org: Organization) -> Json:
    organizations = world.store.organizations
    children = [organizations[i] for i in org.sub_organization_ids if i in organizations]
    return {
        "organizationId": org.organization_id,
        "name": org.name,
        "users": len(org.users),
        "wallets": len(org.wallets),
        "privateKeys": len(org.private_keys),
        "policies": len(org.policies),
        "activities": activity_lookup.count(world, org),
        "children": [_node(world, child) for child in children[:MAX_CHILDREN]],
        "moreChildren": max(0, len(children) - MAX_CHILDREN),
    }


def organization(emulator: Emulator, params: Json) -> Json:
    """One organization: its users and their credentials (public parts), wallets with their
    accounts, private keys, policies, tags, invitations and root quorum."""
    org = _organization(emulator.world, text(params, "organizationId"))
    held = _held_users(emulator, org)
    return {
        "organizationId": org.organization_id,
        "name": org.name,
        "parentId": org.parent_id,
        "rootQuorum": {
            "threshold": org.root_quorum.threshold,
            "userIds": list(org.root_quorum.user_ids),
        },
        "users": [
            {**render.user(user), "keyHeld": user.user_id in held} for user in org.users.values()
        ],
        "wallets": [_wallet(wallet) for wallet in org.wallets.values()],
        "privateKeys": [
            render.private_key(key) for key in islice(org.private_keys.values(), MAX_PRIVATE_KEYS)
        ],
        "privateKeyCount": len(org.private_keys),
        "policies": [render.policy(policy) for policy in org.policies.values()],
        "userTags": [render.tag(tag) for tag in org.user_tags.values()],
        "privateKeyTags": [render.tag(tag) for tag in org.private_key_tags.values()],
        "invitations": [render.invitation(i) for i in org.invitations.values()],
        "subOrganizationCount": len(org.sub_organization_ids),
        "activityCount": activity_lookup.count(emulator.world, org),
        **onramp_view(org),
    }


def onramp_view(org: Organization) -> Json:
    """The fiat on-ramp's credentials (the public parts: never a secret, not even sealed)
    and its purchases, newest first."""
    credentials = [
        {
            "fiatOnrampCredentialId": c.fiat_onramp_credential_id,
            "onrampProvider": c.onramp_provider,
            "publishableApiKey": c.publishable_api_key,
            "projectId": c.project_id,
            "sandboxMode": c.sandbox_mode,
        }
        for c in org.fiat_on_ramp_credentials.values()
    ]
    newest = sorted(org.on_ramp_transactions.values(), key=lambda t: -t.created_at)
    purchases = [
        {
            "transactionId": t.transaction_id,
            "onrampProvider": t.onramp_provider,
            "cryptoCurrencyCode": t.crypto_currency_code,
            "caip2": t.caip2,
            "walletAddress": t.wallet_address,
            "fiatAmount": t.paid_fiat_amount or t.fiat_currency_amount,
            "providerStatus": t.provider_status,
            "status": t.status,
            "deliveredAmount": t.delivered_amount,
        }
        for t in newest[:MAX_PURCHASES]
    ]
    return {"onRampCredentials": credentials, "onRampTransactions": purchases}


def _wallet(wallet: Wallet) -> Json:
    accounts = list(islice(wallet.accounts.values(), MAX_ACCOUNTS))
    return {
        **render.wallet(wallet),
        "accounts": [render.wallet_account(account) for account in accounts],
        "accountCount": len(wallet.accounts),
    }


def _organization(world: World, organization_id: str) -> Organization:
    org = world.store.organizations.get(organization_id)
    if org is None:
        raise ViewError(404, f"no organization {organization_id}")
    return org


# ----- activities ------------------------------------------------------------------------


def activities(emulator: Emulator, params: Json) -> Json:
    """A page of activities, newest first: of every organization, or of one
    (``organizationId``), optionally of one ``status``."""
    world = emulator.world
    store = world.store
    offset, limit = page(params)
    org_id = params.get("organizationId")
    status = params.get("status")
    org = _organization(world, text(params, "organizationId")) if org_id is not None else None
    if world.archive is not None:  # serve --state: some may be in the state file
        newest: Iterable[Any] = activity_lookup.newest_first(world, org)
    else:
        source = store.activities_by_id if org is None else org.activities
        newest = reversed(source.values())
    if status is not None:
        text(params, "status")
        matching: Iterable[Any] = (a for a in newest if a.status == status)
        total = None  # counting them would walk every activity: the page says if more follow
    else:
        matching = newest
        total = activity_lookup.count(world, store.organizations.values() if org is None else org)
    rows = list(islice(matching, offset, offset + limit + 1))
    organizations = store.organizations
    return {
        "activities": [
            _activity_row(activity_lookup.loaded(world, a), organizations) for a in rows[:limit]
        ],
        "offset": offset,
        "limit": limit,
        "total": total,
        "more": len(rows) > limit,
    }


def _activity_row(activity: Activity, organizations: Mapping[str, Organization]) -> Json:
    org = organizations.get(activity.organization_id)
    proposer = activity.votes[0] if activity.votes else None
    return {
        "id": activity.activity_id,
        "organizationId": activity.organization_id,
        "organizationName": org.name if org is not None else None,
        "type": activity.activity_type,
        "status": activity.status,
        "createdAtMs": activity.created_at // NANOS_PER_MILLI,
        "votes": len(activity.votes),
        "approvals": sum(v.selection == "VOTE_SELECTION_APPROVED" for v in activity.votes),
        "rejections": sum(v.selection == "VOTE_SELECTION_REJECTED" for v in activity.votes),
        "proposer": _user_name(org, proposer.user_id, proposer.voter) if proposer else None,
    }


def activity(emulator: Emulator, params: Json) -> Json:
    """One activity as the API renders it, with each vote's policy outcomes (policies by
    name) and the users it can be approved or rejected as (users of its organization who
    have not voted and whose API key the emulator holds)."""
    store = emulator.world.store
    activity_id = text(params, "activityId")
    found = activity_lookup.by_id(emulator.world, activity_id)
    org = store.organizations.get(found.organization_id) if found is not None else None
    if found is None or org is None:
        raise ViewError(404, f"no activity {activity_id}")
    voted = {vote.user_id for vote in found.votes}
    voters = []
    if found.status in AWAITING_VOTES:
        held = _held_users(emulator, org)
        voters = [
            {"userId": user_id, "userName": org.users[user_id].name, "apiKeyId": key_id}
            for user_id, (key_id, _) in held.items()
            if user_id not in voted and user_id in org.users
        ]
    return {
        "activity": render.activity(found, org, None),
        "organizationName": org.name,
        "votes": [
            {
                "voteId": vote.vote_id,
                "userId": vote.user_id,
                "userName": _user_name(org, vote.user_id, vote.voter),
                "selection": vote.selection,
                "scheme": vote.scheme,
                "createdAtMs": vote.created_at // NANOS_PER_MILLI,
                "policyOutcomes": [
                    {
                        "policyId": outcome.policy_id,
                        "policyName": _policy_name(org, outcome.policy_id),
                        "outcome": outcome.outcome,
                    }
                    for outcome in vote.policy_outcomes
                ],
            }
            for vote in found.votes
        ],
        "canVoteAs": voters,
    }


def _user_name(org: Organization | None, user_id: str, former: Any) -> str | None:
    user = org.users.get(user_id) if org is not None else None
    user = user if user is not None else former
    return user.name if user is not None else None


def _policy_name(org: Organization, policy_id: str) -> str | None:
    policy = org.policies.get(policy_id)
    return policy.name if policy is not None else None


def _held_users(emulator: Emulator, org: Organization) -> dict[str, tuple[str, ApiKeyPair]]:
    """Users of ``org`` whose API key the emulator holds: user id -> (API key id, pair)."""
    store = emulator.world.store
    held: dict[str, tuple[str, ApiKeyPair]] = {}
    for pair in emulator.held_keys():
        for owner in store.key_owners(pair.public_key):
            if owner.organization_id == org.organization_id:
                held.setdefault(owner.user_id, (owner.api_key_id, pair))
    return held


def held_key_of(emulator: Emulator, org: Organization, user_id: str) -> ApiKeyPair | None:
    """The key pair the emulator holds for ``user_id`` of ``org``, if any."""
    found = _held_users(emulator, org).get(user_id)
    return found[1] if found is not None else None
