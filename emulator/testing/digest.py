"""One string for everything observable in an emulator's state (secrets hashed).

Two equal digests mean no record, index, activity or id stream changed in
between: the check that a failed request changes nothing.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from ..ground import render

if TYPE_CHECKING:
    from ..facade.api import Emulator


def state_digest(emu: Emulator) -> str:
    """Everything observable about an emulator's state, as one string (secrets hashed).

    Two equal digests mean no record, index, activity or id stream changed in between.
    """
    world = emu.world
    store = world.store
    orgs = {
        org_id: {
            "name": org.name,
            "parent": org.parent_id,
            "subs": list(org.sub_organization_ids),
            "quorum": [org.root_quorum.threshold, list(org.root_quorum.user_ids)],
            "features": org.features,
            "users": [render.user(u, org) for u in org.users.values()],
            "user_tags": [render.tag(t) for t in org.user_tags.values()],
            "activities": [render.activity(a, org, None) for a in org.activities.values()],
            "wallets": [
                [render.wallet(w), [render.wallet_account(a) for a in w.accounts.values()]]
                for w in org.wallets.values()
            ],
            "private_keys": [render.private_key(k) for k in org.private_keys.values()],
            "private_key_tags": [render.tag(t) for t in org.private_key_tags.values()],
            "signers": {value: repr(ref) for value, ref in org.signers.items()},
            "policies": [render.policy(p) for p in org.policies.values()],
            "invitations": [repr(i) for i in org.invitations.values()],
            "ip_allowlists": [repr(a) for a in org.ip_allowlists.values()],
            "session_profiles": [repr(p) for p in org.session_profiles.values()],
            "contract_interfaces": [repr(i) for i in org.smart_contract_interfaces.values()],
            "secrets": [repr(s) for s in org.secrets.values()],
            "tvc": [
                [repr(r) for r in getattr(org, name).values()]
                for name in (
                    "tvc_operators",
                    "tvc_operator_sets",
                    "tvc_quorum_keys",
                    "tvc_quorum_key_shares",
                    "tvc_apps",
                    "tvc_deployments",
                    "tvc_manifest_approvals",
                    "tvc_provisioning_shares",
                )
            ],
            "mfa_policies": [render.mfa_policy(p) for p in org.mfa_policies.values()],
            "oauth2_credentials": [  # the encrypted secret is out of the repr: hashed
                repr(c) + hashlib.sha256(c.encrypted_client_secret.encode()).hexdigest()
                for c in org.oauth2_credentials.values()
            ],
            "fiat_on_ramp_credentials": [  # the encrypted keys are out of the repr: hashed
                repr(c)
                + hashlib.sha256(
                    repr((c.encrypted_secret_api_key, c.encrypted_private_api_key)).encode()
                ).hexdigest()
                for c in org.fiat_on_ramp_credentials.values()
            ],
            "fiat_on_ramp_quotes": [repr(q) for q in org.fiat_on_ramp_quotes.values()],
            "on_ramp_transactions": [repr(t) for t in org.on_ramp_transactions.values()],
            "otps": [  # attempts, use and tokens included; the code (out of the repr) hashed
                repr(o) + hashlib.sha256(o.code.encode()).hexdigest() for o in org.otps.values()
            ],
            "verified": [
                (u.user_id, u.email_verified, u.phone_number_verified) for u in org.users.values()
            ],
            "policy_outcomes": [
                [repr(list(v.policy_outcomes)) for v in a.votes] for a in org.activities.values()
            ],
            "mfa_progress": [repr(list(a.mfa)) for a in org.activities.values() if a.mfa],
        }
        for org_id, org in store.organizations.items()
    }

    def hashed(secret: str | bytes) -> str:
        data = secret.encode() if isinstance(secret, str) else bytes(secret)
        return hashlib.sha256(data).hexdigest()

    indexes = {
        "api_keys": {
            key: [(o.organization_id, o.user_id, o.api_key_id) for o in owners]
            for key, owners in store.api_keys_by_public_key.items()
        },
        "fingerprints": sorted(store.activities_by_fingerprint),
        "activity_ids": sorted(store.activities_by_id),
        "vault": [
            {w: hashed(s.mnemonic) for w, s in store.vault.wallets.items()},
            {k: hashed(v) for k, v in store.vault.private_keys.items()},
            {"/".join(slot): hashed(v) for slot, v in store.vault.import_targets.items()},
            {k: hashed(v) for k, v in store.vault.secrets.items()},
        ],
    }
    return json.dumps([orgs, indexes, repr(world.ids.getstate())], sort_keys=True, default=str)
