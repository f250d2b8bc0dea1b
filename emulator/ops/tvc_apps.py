"""TVC apps: create_tvc_app, set_tvc_app_live_deployment, delete_tvc_app_and_deployments,
get_tvc_app, list_tvc_apps, get_app_status (``services/tvc.py``).

managing-apps-and-deployments.mdx: one live deployment per app; deleting an app marks it
and all its deployments for deletion, their records staying visible.
"""

from __future__ import annotations

from typing import Any

from ..ground.errors import InvalidArgument
from ..ground.schema import Array, Boolean, Integer, String, label, obj, opt, uuid
from ..ground.tvc_models import TvcApp
from ..services import tvc as tvc_service
from ..services.context import Context
from ..services.tvc_operators import check_public_key_set
from .registry import Version, activity, query

Params = dict[str, Any]
MIN_SHARE_SET_THRESHOLD = 2  # manifest-sets-and-share-sets.mdx: "at least 2"

OPERATOR_SET_PARAMS = obj(
    name=label(),
    newOperators=opt(Array(obj(name=label(), publicKey=String(fmt="hex")))),
    existingOperatorIds=opt(Array(uuid())),
    threshold=Integer(minimum=1, maximum=50),
)


def _operator_set(ctx: Context, params: Params, key: str, minimum: int) -> str:
    set_id, set_params = params.get(f"{key}Id"), params.get(f"{key}Params")
    if bool(set_id) == bool(set_params):
        raise InvalidArgument(f"exactly one of {key}Id and {key}Params is required")
    if set_id:
        found = tvc_service.find_set(ctx.org, set_id)
        if found.threshold < minimum:
            raise InvalidArgument(f"{key}Id: the set's threshold must be at least {minimum}")
        return found.operator_set_id
    return tvc_service.new_operator_set(
        ctx, set_params, f"{key}Params", minimum_threshold=minimum
    ).operator_set_id


@activity(
    "create_tvc_app",
    summary="Create a TVC App",
    default="ACTIVITY_TYPE_CREATE_TVC_APP",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_TVC_APP",
            "createTvcAppIntent",
            "createTvcAppResult",
            obj(
                name=label(),
                quorumPublicKey=String(fmt="hex"),
                manifestSetId=opt(uuid()),
                manifestSetParams=opt(OPERATOR_SET_PARAMS),
                shareSetId=opt(uuid()),
                shareSetParams=opt(OPERATOR_SET_PARAMS),
                enableEgress=opt(Boolean()),
                enableDebugModeDeployments=opt(Boolean()),
            ),
        )
    ],
)
def create_tvc_app(ctx: Context, params: Params) -> Params:
    quorum_key = check_public_key_set(params["quorumPublicKey"], "quorumPublicKey")
    manifest_set_id = _operator_set(ctx, params, "manifestSet", 1)
    share_set_id = _operator_set(ctx, params, "shareSet", MIN_SHARE_SET_THRESHOLD)
    app = TvcApp(
        app_id=ctx.new_id(),
        name=params["name"],
        quorum_public_key=quorum_key,
        manifest_set_id=manifest_set_id,
        share_set_id=share_set_id,
        enable_egress=bool(params.get("enableEgress", False)),
        enable_debug_mode_deployments=bool(params.get("enableDebugModeDeployments", False)),
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
    )
    ctx.tx.put(ctx.org.tvc_apps, app.app_id, app)
    manifest_set = ctx.org.tvc_operator_sets[manifest_set_id]
    share_set = ctx.org.tvc_operator_sets[share_set_id]
    return {
        "appId": app.app_id,
        "manifestSetId": manifest_set_id,
        "manifestSetOperatorIds": list(manifest_set.operator_ids),
        "manifestSetThreshold": manifest_set.threshold,
        "shareSetId": share_set_id,
        "shareSetOperatorIds": list(share_set.operator_ids),
        "shareSetThreshold": share_set.threshold,
    }


@activity(
    "set_tvc_app_live_deployment",
    summary="Set the live deployment of a TVC App",
    default="ACTIVITY_TYPE_UPDATE_TVC_APP_LIVE_DEPLOYMENT",
    sdk_method="update_tvc_app_live_deployment",
    versions=[
        Version(
            "ACTIVITY_TYPE_UPDATE_TVC_APP_LIVE_DEPLOYMENT",
            "updateTvcAppLiveDeploymentIntent",
            "updateTvcAppLiveDeploymentResult",
            obj(deploymentId=uuid()),
        )
    ],
)
def set_tvc_app_live_deployment(ctx: Context, params: Params) -> Params:
    deployment = tvc_service.find_deployment(ctx.org, params["deploymentId"])
    app = tvc_service.live_app(ctx.org, deployment.app_id)
    if deployment.delete:
        raise InvalidArgument(f"deployment {deployment.deployment_id} is marked for deletion")
    if deployment.approved_at is None:
        raise InvalidArgument(
            f"deployment {deployment.deployment_id} does not have its manifest set's approvals yet"
        )
    ctx.tx.set(app, "live_deployment_id", deployment.deployment_id)
    ctx.tx.set(app, "updated_at", ctx.now_ns)
    return {}


@activity(
    "delete_tvc_app_and_deployments",
    summary="Delete a TVC App and its deployments",
    default="ACTIVITY_TYPE_DELETE_TVC_APP_AND_DEPLOYMENTS",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_TVC_APP_AND_DEPLOYMENTS",
            "deleteTvcAppAndDeploymentsIntent",
            "deleteTvcAppAndDeploymentsResult",
            obj(appId=uuid()),
        )
    ],
)
def delete_tvc_app_and_deployments(ctx: Context, params: Params) -> Params:
    app = tvc_service.live_app(ctx.org, params["appId"])
    for deployment in ctx.org.tvc_deployments.values():
        if deployment.app_id == app.app_id and not deployment.delete:
            ctx.tx.set(deployment, "delete", True)
            ctx.tx.set(deployment, "updated_at", ctx.now_ns)
    ctx.tx.set(app, "deleted", True)
    ctx.tx.set(app, "live_deployment_id", None)
    ctx.tx.set(app, "updated_at", ctx.now_ns)
    return {"appId": app.app_id}


@query("get_tvc_app", summary="Get a TVC App", body=obj(tvcAppId=uuid()), result_keys=("tvcApp",))
def get_tvc_app(ctx: Context, body: Params) -> Params:
    return {
        "tvcApp": tvc_service.render_app(ctx.org, tvc_service.find_app(ctx.org, body["tvcAppId"]))
    }


@query(
    "list_tvc_apps",
    summary="List TVC Apps",
    body=obj(isLive=opt(Boolean())),
    result_keys=("tvcApps",),
    sdk_method="get_tvc_apps",
)
def list_tvc_apps(ctx: Context, body: Params) -> Params:
    apps = list(ctx.org.tvc_apps.values())
    if "isLive" in body:
        apps = [a for a in apps if (a.live_deployment_id is not None) == body["isLive"]]
    return {"tvcApps": [tvc_service.render_app(ctx.org, a) for a in apps]}


@query(
    "get_app_status",
    summary="Get TVC App status",
    body=obj(appId=uuid()),
    result_keys=("appStatus",),
)
def get_app_status(ctx: Context, body: Params) -> Params:
    app = tvc_service.find_app(ctx.org, body["appId"])
    runtime = ctx.world.tvc
    deployments = [d for d in ctx.org.tvc_deployments.values() if d.app_id == app.app_id]
    return {
        "appStatus": {
            "appId": app.app_id,
            "deployments": [tvc_service.render_status(runtime, d, ctx.now_ns) for d in deployments],
            "targetedDeploymentId": app.live_deployment_id or "",
        }
    }
