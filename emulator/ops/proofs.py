"""App proofs and boot proofs: list_app_proofs, get_boot_proof, get_latest_boot_proof.

An activity requested with ``generateAppProofs: true`` carries its app proofs
(``services/app_proofs.py``) in ``activity.appProofs`` and here; the boot proofs of the
emulator's enclave apps (``signer``, ``policy-engine``) are ``services/enclave_apps.py``'s,
found by their Ephemeral Key or by the app's name.
"""

from __future__ import annotations

from typing import Any

from ..ground import messages
from ..ground.errors import NotFound
from ..ground.schema import String, obj, uuid
from ..services import activity_lookup, enclave_apps
from ..services.context import Context
from .registry import query

Params = dict[str, Any]


@query(
    "list_app_proofs",
    summary="List App Proofs for an activity",
    body=obj(activityId=uuid()),
    result_keys=("appProofs",),
    sdk_method="get_app_proofs",
)
def list_app_proofs(ctx: Context, body: Params) -> Params:
    activity = activity_lookup.find(ctx.world, ctx.org, body["activityId"])
    if activity is None:
        raise NotFound(messages.activity_not_found(body["activityId"], ctx.org.organization_id))
    return {"appProofs": [dict(p) for p in activity.app_proofs]}


@query(
    "get_boot_proof",
    summary="Get a specific boot proof",
    body=obj(ephemeralKey=String(fmt="hex")),
    result_keys=("bootProof",),
)
def get_boot_proof(ctx: Context, body: Params) -> Params:
    found = enclave_apps.find_by_ephemeral_key(ctx.world.enclave, body["ephemeralKey"])
    if found is None:
        raise NotFound(messages.boot_proof_not_found(body["ephemeralKey"]))
    return {"bootProof": dict(found.boot_proof)}


@query(
    "get_latest_boot_proof",
    summary="Get the latest boot proof for an app",
    body=obj(appName=String()),
    result_keys=("bootProof",),
)
def get_latest_boot_proof(ctx: Context, body: Params) -> Params:
    if body["appName"] not in enclave_apps.APPS:
        raise NotFound(messages.enclave_app_not_found(body["appName"], enclave_apps.APPS))
    return {"bootProof": dict(enclave_apps.app(ctx.world.enclave, body["appName"]).boot_proof)}
