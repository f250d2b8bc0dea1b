"""TVC deployments: create_tvc_deployment, create_tvc_manifest_approvals,
delete_tvc_deployment, restore_tvc_deployment, get_tvc_deployment,
list_tvc_app_deployments, get_tvc_deployment_debug_logs,
get_tvc_deployment_provisioning_details, get_tvc_qos_versions, validate_tvc_image.

The manifest, approvals, attestation and shares are ``services/tvc_provisioning.py``; what
runs (images, QOS releases, replicas, logs) is simulated by ``world.tvc``
(``recorders/tvc_runtime.py``; docs/tvc.md).
"""

from __future__ import annotations

import base64
import re
from typing import Any

from ..ground.errors import InvalidArgument
from ..ground.render import timestamp
from ..ground.schema import Array, Boolean, Enum, Integer, String, obj, opt, uuid
from ..ground.tvc_models import TvcDeployment, TvcManifestApproval
from ..services import tvc as tvc_service
from ..services import tvc_provisioning
from ..services.context import Context
from .registry import Version, activity, query

Params = dict[str, Any]
HEALTH_CHECK = Enum(("TVC_HEALTH_CHECK_TYPE_HTTP", "TVC_HEALTH_CHECK_TYPE_GRPC"))
PORT = Integer(minimum=1, maximum=65535)
MAX_REPLICAS = 10  # the emulator's bound: the docs name 3 (and 1 in debug mode)
_DIGEST = re.compile(r"^(?:sha256:)?([0-9a-fA-F]{64})$")
_PINNED = re.compile(r"@sha256:([0-9a-f]{64})$")
_S = 1_000_000_000


def _resolve_image(ctx: Context, reference: str, field: str) -> str:
    runtime = ctx.world.tvc
    if not runtime.well_formed(reference):
        raise InvalidArgument(f"{field}: {reference!r} is not a valid container image reference")
    digest = runtime.resolve(reference)
    if digest is None:
        raise InvalidArgument(
            f"{field}: failed to resolve container image {reference}: manifest unknown"
        )
    pinned = _PINNED.search(reference)
    if pinned and digest != "sha256:" + pinned.group(1):
        raise InvalidArgument(
            f"{field}: container image {reference} resolves to {digest}, not the pinned digest"
        )
    return digest


@activity(
    "create_tvc_deployment",
    summary="Create a TVC Deployment",
    default="ACTIVITY_TYPE_CREATE_TVC_DEPLOYMENT",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_TVC_DEPLOYMENT",
            "createTvcDeploymentIntent",
            "createTvcDeploymentResult",
            obj(
                appId=uuid(),
                qosVersion=String(max_length=64),
                pivotContainerImageUrl=String(max_length=512),
                pivotPath=String(max_length=1024),
                pivotArgs=Array(String(max_length=4096, allow_empty=True)),
                expectedPivotDigest=String(max_length=71),
                nonce=opt(Integer(minimum=0, maximum=2**32 - 1)),
                pivotContainerEncryptedPullSecret=opt(String()),
                debugMode=opt(Boolean()),
                healthCheckType=HEALTH_CHECK,
                healthCheckPort=PORT,
                publicIngressPort=PORT,
                replicas=opt(Integer(minimum=1, maximum=MAX_REPLICAS)),
                instanceSizeCpus=opt(Integer(minimum=1, maximum=192)),
                instanceSizeRam=opt(Integer(minimum=1, maximum=1536)),
            ),
        )
    ],
)
def create_tvc_deployment(ctx: Context, params: Params) -> Params:
    app = tvc_service.live_app(ctx.org, params["appId"])
    runtime = ctx.world.tvc
    if params["qosVersion"] not in runtime.qos_versions:
        raise InvalidArgument(
            f"qosVersion: unsupported QOS version {params['qosVersion']!r} "
            f"(available: {', '.join(runtime.qos_versions)})"
        )
    digest = _DIGEST.fullmatch(params["expectedPivotDigest"])
    if digest is None:
        raise InvalidArgument("expectedPivotDigest: a SHA-256 digest is 64 hexadecimal digits")
    if not params["pivotPath"].startswith("/"):
        raise InvalidArgument("pivotPath: an absolute path in the container")
    debug = bool(params.get("debugMode", False))
    if debug and not app.enable_debug_mode_deployments:
        raise InvalidArgument(
            f"debugMode: app {app.app_id} was not created with enableDebugModeDeployments"
        )
    replicas = params.get("replicas") or (
        tvc_service.DEBUG_REPLICAS if debug else tvc_service.DEFAULT_REPLICAS
    )
    if debug and replicas != tvc_service.DEBUG_REPLICAS:
        raise InvalidArgument("replicas: a debug-mode deployment runs a single replica")
    _resolve_image(ctx, params["pivotContainerImageUrl"], "pivotContainerImageUrl")
    nonce = params.get("nonce")
    if nonce is None:
        nonce = (ctx.now_ns // _S) & 0xFFFFFFFF
    build = dict(params, expectedPivotDigest=digest.group(1).lower())
    manifest = tvc_provisioning.build_manifest(ctx.world, ctx.org, app, build, nonce, debug)
    deployment = TvcDeployment(
        deployment_id=ctx.new_id(),
        app_id=app.app_id,
        manifest_id=ctx.new_id(),
        manifest=manifest.text(),
        manifest_digest=manifest.digest().hex(),
        manifest_set_id=app.manifest_set_id,
        share_set_id=app.share_set_id,
        qos_version=params["qosVersion"],
        container_url=params["pivotContainerImageUrl"],
        path=params["pivotPath"],
        args=tuple(params["pivotArgs"]),
        has_pull_secret=bool(params.get("pivotContainerEncryptedPullSecret")),
        health_check_type=params["healthCheckType"],
        health_check_port=params["healthCheckPort"],
        public_ingress_port=params["publicIngressPort"],
        replicas=replicas,
        debug_mode=debug,
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
        instance_size_cpus=params.get("instanceSizeCpus"),
        instance_size_ram=params.get("instanceSizeRam"),
    )
    ctx.tx.put(ctx.org.tvc_deployments, deployment.deployment_id, deployment)
    return {"deploymentId": deployment.deployment_id, "manifestId": deployment.manifest_id}


@activity(
    "create_tvc_manifest_approvals",
    summary="Create TVC Manifest Approvals",
    default="ACTIVITY_TYPE_CREATE_TVC_MANIFEST_APPROVALS",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_TVC_MANIFEST_APPROVALS",
            "createTvcManifestApprovalsIntent",
            "createTvcManifestApprovalsResult",
            obj(
                manifestId=uuid(),
                approvals=Array(obj(operatorId=uuid(), signature=String(fmt="hex")), min_items=1),
            ),
        )
    ],
)
def create_tvc_manifest_approvals(ctx: Context, params: Params) -> Params:
    deployment = tvc_service.deployment_by_manifest(ctx.org, params["manifestId"])
    if deployment.delete:
        raise InvalidArgument(f"deployment {deployment.deployment_id} is marked for deletion")
    approved = {a.operator_id for a in tvc_service.approvals_of(ctx.org, deployment)}
    made = []
    for index, approval in enumerate(params["approvals"]):
        where = f"approvals[{index}]"
        operator_id = approval["operatorId"]
        tvc_service.find_operator(ctx.org, operator_id)
        if operator_id in approved:
            raise InvalidArgument(f"{where}: operator {operator_id} already approved this manifest")
        tvc_provisioning.check_approval(
            ctx.org, deployment, operator_id, approval["signature"], where
        )
        approved.add(operator_id)
        record = TvcManifestApproval(
            approval_id=ctx.new_id(),
            manifest_id=deployment.manifest_id,
            deployment_id=deployment.deployment_id,
            operator_id=operator_id,
            signature=approval["signature"].lower(),
            created_at=ctx.now_ns,
        )
        ctx.tx.put(ctx.org.tvc_manifest_approvals, record.approval_id, record)
        made.append(record.approval_id)
    threshold = ctx.org.tvc_operator_sets[deployment.manifest_set_id].threshold
    if deployment.approved_at is None and len(approved) >= threshold:
        ctx.tx.set(deployment, "approved_at", ctx.now_ns)
        ctx.tx.set(deployment, "updated_at", ctx.now_ns)
        app = ctx.org.tvc_apps[deployment.app_id]
        if app.live_deployment_id is None and not app.deleted:
            ctx.tx.set(app, "live_deployment_id", deployment.deployment_id)
            ctx.tx.set(app, "updated_at", ctx.now_ns)
    return {"approvalIds": made}


def _deployment_activity(name: str, summary: str, activity_type: str, key: str):
    return activity(
        name,
        summary=summary,
        default=activity_type,
        versions=[Version(activity_type, f"{key}Intent", f"{key}Result", obj(deploymentId=uuid()))],
    )


@_deployment_activity(
    "delete_tvc_deployment",
    "Delete a TVC Deployment",
    "ACTIVITY_TYPE_DELETE_TVC_DEPLOYMENT",
    "deleteTvcDeployment",
)
def delete_tvc_deployment(ctx: Context, params: Params) -> Params:
    deployment = tvc_service.find_deployment(ctx.org, params["deploymentId"])
    if deployment.delete:
        raise InvalidArgument(
            f"deployment {deployment.deployment_id} is already marked for deletion"
        )
    app = ctx.org.tvc_apps[deployment.app_id]
    if app.live_deployment_id == deployment.deployment_id:
        raise InvalidArgument(
            f"deployment {deployment.deployment_id} is app {app.app_id}'s live deployment: "
            "direct traffic to another deployment first"
        )
    ctx.tx.set(deployment, "delete", True)
    ctx.tx.set(deployment, "updated_at", ctx.now_ns)
    return {"deploymentId": deployment.deployment_id}


@_deployment_activity(
    "restore_tvc_deployment",
    "Restore a TVC Deployment",
    "ACTIVITY_TYPE_RESTORE_TVC_DEPLOYMENT",
    "restoreTvcDeployment",
)
def restore_tvc_deployment(ctx: Context, params: Params) -> Params:
    deployment = tvc_service.find_deployment(ctx.org, params["deploymentId"])
    if not deployment.delete:
        raise InvalidArgument(f"deployment {deployment.deployment_id} is not marked for deletion")
    tvc_service.live_app(ctx.org, deployment.app_id)
    ctx.tx.set(deployment, "delete", False)
    ctx.tx.set(deployment, "updated_at", ctx.now_ns)
    return {"deploymentId": deployment.deployment_id}


@query(
    "get_tvc_deployment",
    summary="Get a TVC Deployment",
    body=obj(deploymentId=uuid()),
    result_keys=("tvcDeployment",),
)
def get_tvc_deployment(ctx: Context, body: Params) -> Params:
    deployment = tvc_service.find_deployment(ctx.org, body["deploymentId"])
    return {"tvcDeployment": tvc_service.render_deployment(ctx.org, deployment)}


@query(
    "list_tvc_app_deployments",
    summary="List TVC Deployments",
    body=obj(appId=uuid()),
    result_keys=("tvcDeployments",),
    sdk_method="get_tvc_app_deployments",
)
def list_tvc_app_deployments(ctx: Context, body: Params) -> Params:
    app = tvc_service.find_app(ctx.org, body["appId"])
    return {
        "tvcDeployments": [
            tvc_service.render_deployment(ctx.org, d)
            for d in ctx.org.tvc_deployments.values()
            if d.app_id == app.app_id
        ]
    }


def _default_logs(ctx: Context, deployment: TvcDeployment) -> list[tuple[int, int, str]]:
    """What each replica of a booted debug-mode deployment logs (the emulator's lines)."""
    runtime = ctx.world.tvc
    if deployment.approved_at is None:
        return []
    booted = deployment.approved_at + runtime.boot_seconds * _S
    lines = []
    for replica in range(1, deployment.replicas + 1):
        lines.append((replica, booted, f"qos_core: booted manifest {deployment.manifest_digest}"))
        lines.append((replica, booted, "qos_core: awaiting quorum key shares"))
        if deployment.provisioned_at is not None:
            up = max(booted, deployment.provisioned_at)
            args = " ".join((deployment.path, *deployment.args))
            lines.append((replica, up, "qos_core: quorum key provisioned"))
            lines.append((replica, up, f"qos_core: pivot started: {args}"))
    return [line for line in lines if line[1] <= ctx.now_ns]


@query(
    "get_tvc_deployment_debug_logs",
    summary="Get TVC Deployment debug logs",
    body=obj(
        deploymentId=uuid(),
        tailLines=opt(Integer(minimum=0, maximum=100_000)),
        sinceSeconds=opt(String(fmt="uint", max_length=12)),
    ),
    result_keys=("entries",),
)
def get_tvc_deployment_debug_logs(ctx: Context, body: Params) -> Params:
    deployment = tvc_service.find_deployment(ctx.org, body["deploymentId"])
    if not deployment.debug_mode:
        raise InvalidArgument(
            f"deployment {deployment.deployment_id} is not running in debug mode: its logs stay in the enclave"
        )
    scripted = ctx.world.tvc.logs.get(deployment.deployment_id, [])
    lines = _default_logs(ctx, deployment) + [
        (line.replica, line.at_ns, line.content) for line in scripted if line.at_ns <= ctx.now_ns
    ]
    since = int(body.get("sinceSeconds") or 0)
    if since:
        lines = [line for line in lines if line[1] >= ctx.now_ns - since * _S]
    lines.sort(key=lambda line: line[1])
    tail = body.get("tailLines") or 0
    if tail:
        kept = []
        for replica in sorted({line[0] for line in lines}):
            kept += [line for line in lines if line[0] == replica][-tail:]
        lines = sorted(kept, key=lambda line: line[1])
    return {
        "entries": [
            {
                "line": {"content": content, "ts": timestamp(at)},
                "replicaLabel": f"replica {replica}/{deployment.replicas}",
            }
            for replica, at, content in lines
        ]
    }


@query(
    "get_tvc_deployment_provisioning_details",
    summary="Get TVC Deployment provisioning details",
    body=obj(deploymentId=uuid()),
    result_keys=("provisioningState",),
)
def get_tvc_deployment_provisioning_details(ctx: Context, body: Params) -> Params:
    deployment = tvc_service.find_deployment(ctx.org, body["deploymentId"])
    state = tvc_service.provisioning_state(ctx.world.tvc, deployment, ctx.now_ns)
    out: Params = {"provisioningState": state}
    if state == tvc_service.AWAITING:
        document = tvc_provisioning.attestation_document(ctx.world, deployment)
        envelope = tvc_provisioning.envelope(ctx.org, deployment)
        out["attestationDocument"] = base64.b64encode(document).decode()
        out["manifestEnvelope"] = base64.b64encode(envelope).decode()
    return out


@query(
    "get_tvc_qos_versions",
    summary="Get TVC QOS versions",
    body=obj(),
    result_keys=("availableVersions", "latestVersion"),
)
def get_tvc_qos_versions(ctx: Context, body: Params) -> Params:
    runtime = ctx.world.tvc
    return {
        "availableVersions": list(runtime.qos_versions),
        "latestVersion": runtime.latest_qos_version,
    }


@query(
    "validate_tvc_image",
    summary="Validate a container image for TVC",
    body=obj(
        pivotContainerImageUrl=String(max_length=512),
        pivotContainerEncryptedPullSecret=opt(String()),
    ),
    result_keys=("resolvedImageDigest",),
)
def validate_tvc_image(ctx: Context, body: Params) -> Params:
    return {
        "resolvedImageDigest": _resolve_image(
            ctx, body["pivotContainerImageUrl"], "pivotContainerImageUrl"
        )
    }
