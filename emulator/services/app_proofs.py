"""App proofs of an activity (``generateAppProofs: true``; security/turnkey-verified.mdx).

Each proof is ``v1AppProof``: ``scheme`` ``SIGNATURE_SCHEME_EPHEMERAL_KEY_P256``, the
enclave app's 130-byte Ephemeral public key, ``proofPayload`` (a JSON text) and the hex
``r‖s`` P-256 signature over its SHA-256 (``services/enclave_apps.py``). Two types, as
documented:

* ``APP_PROOF_TYPE_POLICY_OUTCOME`` for every activity that ran, signed by the policy
  engine app: ``{organizationId, outcome, decisionContextDigest, organizationDataDigest,
  parentOrganizationDataDigest, userRequestApprovals}``. The digests' preimages are not
  public; the emulator's are the hex SHA-256 of the request body (the decision context) and
  of the organization's policies and root quorum as JSON; ``userRequestApprovals`` is the
  approvals' stamps (public key, scheme, signature) as a JSON text.
* ``APP_PROOF_TYPE_ADDRESS_DERIVATION`` for each address a wallet activity derived
  (``create_wallet``, ``create_wallet_accounts``), signed by the signer app:
  ``{organizationId, walletId, derivationPath, address}``.

``timestampMs`` is the emulator clock's, in milliseconds, as a string.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..engine_state.world import World
from ..ground.compact import result_of
from ..ground.models import Activity, Organization, Vote
from . import enclave_apps

Json = dict[str, Any]
SCHEME = "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256"
POLICY_OUTCOME = "APP_PROOF_TYPE_POLICY_OUTCOME"
ADDRESS_DERIVATION = "APP_PROOF_TYPE_ADDRESS_DERIVATION"
OUTCOME_ALLOW = "OUTCOME_ALLOW"


def proof(world: World, app_name: str, payload: Json) -> Json:
    """A signed ``v1AppProof`` of ``payload`` by the enclave app ``app_name``."""
    made = enclave_apps.app(world.enclave, app_name)
    text = json.dumps(payload, separators=(",", ":"))
    return {
        "scheme": SCHEME,
        "publicKey": made.ephemeral_public_key,
        "proofPayload": text,
        "signature": made.sign(text.encode()),
    }


def for_activity(
    world: World, org: Organization, activity: Activity, raw: bytes, params: Json
) -> list[Json]:
    """The proofs of a completed activity: its policy outcome, then each derived address."""
    now_ms = str(world.clock.now_ms())
    parent = world.store.organizations.get(org.parent_id) if org.parent_id else None
    proofs = [
        proof(
            world,
            enclave_apps.POLICY_ENGINE_APP,
            {
                "type": POLICY_OUTCOME,
                "timestampMs": now_ms,
                "policyOutcomeProof": {
                    "organizationId": org.organization_id,
                    "outcome": OUTCOME_ALLOW,
                    "decisionContextDigest": hashlib.sha256(raw).hexdigest(),
                    "organizationDataDigest": _organization_digest(org),
                    "parentOrganizationDataDigest": _organization_digest(parent)
                    if parent is not None
                    else "",
                    "userRequestApprovals": _approvals(activity.votes),
                },
            },
        )
    ]
    for wallet_id, path, address in _derived_addresses(activity, params):
        proofs.append(
            proof(
                world,
                enclave_apps.SIGNER_APP,
                {
                    "type": ADDRESS_DERIVATION,
                    "timestampMs": now_ms,
                    "addressDerivationProof": {
                        "organizationId": org.organization_id,
                        "walletId": wallet_id,
                        "derivationPath": path,
                        "address": address,
                    },
                },
            )
        )
    return proofs


def _organization_digest(org: Organization) -> str:
    data = {
        "organizationId": org.organization_id,
        "rootQuorum": {
            "threshold": org.root_quorum.threshold,
            "userIds": sorted(org.root_quorum.user_ids),
        },
        "policies": sorted(
            [p.policy_id, p.effect, p.condition or "", p.consensus or ""]
            for p in org.policies.values()
        ),
    }
    return hashlib.sha256(json.dumps(data, separators=(",", ":")).encode()).hexdigest()


def _approvals(votes: list[Vote]) -> str:
    return json.dumps(
        [
            {"publicKey": v.public_key, "scheme": v.scheme, "signature": v.signature}
            for v in votes
            if v.selection == "VOTE_SELECTION_APPROVED"
        ],
        separators=(",", ":"),
    )


def _derived_addresses(activity: Activity, params: Json) -> list[tuple[str, str, str]]:
    done = result_of(activity)
    result = next(iter(done.values()), None) if done else None
    if not isinstance(result, dict) or "addresses" not in result:
        return []
    wallet_id = result.get("walletId") or params.get("walletId")
    accounts = params.get("accounts")
    if not wallet_id or not isinstance(accounts, list):
        return []
    return [
        (wallet_id, account.get("path", ""), address)
        for account, address in zip(accounts, result["addresses"], strict=False)
    ]
