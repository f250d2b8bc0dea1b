"""The dashboard's Verifiable Cloud view (``/emulator/ui/api/tvc``): every organization's
TVC apps, newest first, with their operator sets and each deployment's status on the
emulator's clock (provisioning state, ready and desired replicas, approvals against the
manifest set's threshold, shares posted against the share set's).

The API's renderers make the records (``services/tvc.py``): public keys, never a share."""

from __future__ import annotations

from itertools import islice
from typing import TYPE_CHECKING, Any

from ..services import tvc as tvc_service
from .params import page

if TYPE_CHECKING:
    from ..facade.api import Emulator

Json = dict[str, Any]
MAX_DEPLOYMENTS = 25  # deployments listed under one app, newest first


def apps(emulator: Emulator, params: Json) -> Json:
    world = emulator.world
    offset, limit = page(params)
    rows = [
        (org, app)
        for org in world.store.organizations.values()
        for app in reversed(org.tvc_apps.values())
    ]
    now = world.clock.now_ns()
    shown = []
    for org, app in islice(rows, offset, offset + limit):
        deployments = [d for d in org.tvc_deployments.values() if d.app_id == app.app_id]
        rendered = []
        for deployment in islice(reversed(deployments), MAX_DEPLOYMENTS):
            shares = sum(
                1
                for s in org.tvc_provisioning_shares.values()
                if s.deployment_id == deployment.deployment_id
            )
            rendered.append(
                {
                    **tvc_service.render_status(world.tvc, deployment, now),
                    "qosVersion": deployment.qos_version,
                    "containerUrl": deployment.container_url,
                    "debugMode": deployment.debug_mode,
                    "delete": deployment.delete,
                    "manifestDigest": deployment.manifest_digest,
                    "approvals": len(tvc_service.approvals_of(org, deployment)),
                    "approvalThreshold": org.tvc_operator_sets[
                        deployment.manifest_set_id
                    ].threshold,
                    "shares": shares,
                    "shareThreshold": org.tvc_operator_sets[deployment.share_set_id].threshold,
                    "live": app.live_deployment_id == deployment.deployment_id,
                }
            )
        shown.append(
            {
                **tvc_service.render_app(org, app),
                "deleted": app.deleted,
                "deployments": rendered,
                "deploymentCount": len(deployments),
            }
        )
    total = len(rows)
    return {
        "apps": shown,
        "offset": offset,
        "limit": limit,
        "total": total,
        "more": offset + limit < total,
    }
