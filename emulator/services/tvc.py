"""Turnkey Verifiable Cloud: finding and rendering its records, operator sets, and where a
deployment stands on the emulator's clock.

A deployment's life (features/verifiable-cloud/manifest-sets-and-share-sets.mdx):
``PROVISIONING_STATE_PENDING`` until the manifest set's threshold of approvals and the
enclaves' boot (``world.tvc.boot_seconds`` later); then ``AWAITING_PROVISION`` until the
share set's threshold of shares rebuilds the Quorum Key; then ``PROVISIONED``, its
replicas ready ``world.tvc.ready_seconds`` later (the desired count: 3, or 1 in debug
mode, as debug-mode.mdx and the quickstart's "3/3" say). A deployment marked for
deletion has no replicas.
"""

from __future__ import annotations

from typing import Any

from ..ground.errors import InvalidArgument, NotFound
from ..ground.models import Organization
from ..ground.render import timestamp
from ..ground.tvc_models import (
    TvcApp,
    TvcDeployment,
    TvcOperator,
    TvcOperatorSet,
    TvcQuorumKey,
)
from ..recorders.tvc_runtime import TvcRuntime
from .context import Context

Json = dict[str, Any]
PENDING = "PROVISIONING_STATE_PENDING"
AWAITING = "PROVISIONING_STATE_AWAITING_PROVISION"
PROVISIONED = "PROVISIONING_STATE_PROVISIONED"
DEFAULT_REPLICAS = 3
DEBUG_REPLICAS = 1
MAX_OPERATORS_PER_SET = 50
_S = 1_000_000_000


def public_domain(app_id: str) -> str:
    return f"app-{app_id}.turnkey.cloud"


# --- finding --------------------------------------------------------------------------


def find_app(org: Organization, app_id: str) -> TvcApp:
    found = org.tvc_apps.get(app_id)
    if found is None:
        raise NotFound(f"TVC app not found: {app_id}")
    return found


def live_app(org: Organization, app_id: str) -> TvcApp:
    app = find_app(org, app_id)
    if app.deleted:
        raise InvalidArgument(f"TVC app {app_id} is marked for deletion")
    return app


def find_deployment(org: Organization, deployment_id: str) -> TvcDeployment:
    found = org.tvc_deployments.get(deployment_id)
    if found is None:
        raise NotFound(f"TVC deployment not found: {deployment_id}")
    return found


def find_operator(org: Organization, operator_id: str) -> TvcOperator:
    found = org.tvc_operators.get(operator_id)
    if found is None:
        raise NotFound(f"TVC operator not found: {operator_id}")
    return found


def find_set(org: Organization, set_id: str) -> TvcOperatorSet:
    found = org.tvc_operator_sets.get(set_id)
    if found is None:
        raise NotFound(f"TVC operator set not found: {set_id}")
    return found


def deployment_by_manifest(org: Organization, manifest_id: str) -> TvcDeployment:
    for deployment in org.tvc_deployments.values():
        if deployment.manifest_id == manifest_id:
            return deployment
    raise NotFound(f"TVC manifest not found: {manifest_id}")


def operator_by_public_key(org: Organization, public_key: str) -> TvcOperator | None:
    wanted = public_key.lower()
    for operator in org.tvc_operators.values():
        if operator.public_key == wanted:
            return operator
    return None


# --- where a deployment stands --------------------------------------------------------


def approvals_of(org: Organization, deployment: TvcDeployment) -> list:
    return [
        a
        for a in org.tvc_manifest_approvals.values()
        if a.deployment_id == deployment.deployment_id
    ]


def provisioning_state(runtime: TvcRuntime, deployment: TvcDeployment, now_ns: int) -> str:
    if deployment.approved_at is None:
        return PENDING
    if now_ns < deployment.approved_at + runtime.boot_seconds * _S:
        return PENDING
    if deployment.provisioned_at is None:
        return AWAITING
    return PROVISIONED


def desired_replicas(deployment: TvcDeployment) -> int:
    return 0 if deployment.delete else deployment.replicas


def ready_replicas(runtime: TvcRuntime, deployment: TvcDeployment, now_ns: int) -> int:
    desired = desired_replicas(deployment)
    if desired == 0 or provisioning_state(runtime, deployment, now_ns) != PROVISIONED:
        return 0
    scripted = runtime.ready.get(deployment.deployment_id)
    if scripted is not None:
        return min(scripted, desired)
    assert deployment.provisioned_at is not None
    up = max(deployment.provisioned_at, deployment.approved_at or 0) + runtime.ready_seconds * _S
    return desired if now_ns >= up else 0


def last_updated(runtime: TvcRuntime, deployment: TvcDeployment, now_ns: int) -> int:
    """The last moment the deployment's status changed, as far as the clock has come."""
    moments = [deployment.updated_at]
    if deployment.approved_at is not None:
        booted = deployment.approved_at + runtime.boot_seconds * _S
        if booted <= now_ns:
            moments.append(booted)
    if deployment.provisioned_at is not None:
        moments.append(deployment.provisioned_at)
        up = deployment.provisioned_at + runtime.ready_seconds * _S
        if up <= now_ns and not deployment.delete:
            moments.append(up)
    return max(m for m in moments if m <= now_ns) if any(m <= now_ns for m in moments) else now_ns


# --- operator sets ----------------------------------------------------------------------


def new_operator_set(
    ctx: Context, params: Json, what: str, *, minimum_threshold: int
) -> TvcOperatorSet:
    """The set ``params`` (``v1TvcOperatorSetParams``) describes: new operators made, the
    existing ones found; an existing set of the same name, threshold and members reused."""
    from .tvc_operators import external_operator

    operator_ids: list[str] = []
    for existing in params.get("existingOperatorIds") or []:
        operator_ids.append(find_operator(ctx.org, existing).operator_id)
    for spec in params.get("newOperators") or []:
        operator_ids.append(external_operator(ctx, spec["name"], spec["publicKey"]).operator_id)
    if not operator_ids:
        raise InvalidArgument(f"{what}: an operator set needs at least one operator")
    if len(operator_ids) > MAX_OPERATORS_PER_SET:
        raise InvalidArgument(
            f"{what}: an operator set has at most {MAX_OPERATORS_PER_SET} operators"
        )
    if len(set(operator_ids)) != len(operator_ids):
        raise InvalidArgument(f"{what}: an operator appears twice in the set")
    keys = [ctx.org.tvc_operators[i].public_key for i in operator_ids]
    if len(set(keys)) != len(keys):
        raise InvalidArgument(f"{what}: two operators of the set share a public key")
    threshold = params["threshold"]
    if not minimum_threshold <= threshold <= len(operator_ids):
        raise InvalidArgument(
            f"{what}: the threshold must be between {minimum_threshold} and the number of "
            f"operators ({len(operator_ids)})"
        )
    for candidate in ctx.org.tvc_operator_sets.values():
        if (
            candidate.name == params["name"]
            and candidate.threshold == threshold
            and sorted(candidate.operator_ids) == sorted(operator_ids)
        ):
            return candidate
    made = TvcOperatorSet(
        operator_set_id=ctx.new_id(),
        name=params["name"],
        operator_ids=tuple(operator_ids),
        threshold=threshold,
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
    )
    ctx.tx.put(ctx.org.tvc_operator_sets, made.operator_set_id, made)
    return made


# --- rendering ----------------------------------------------------------------------------


def render_operator(operator: TvcOperator) -> Json:
    """``v1TvcOperator``."""
    return {
        "id": operator.operator_id,
        "name": operator.name,
        "publicKey": operator.public_key,
        "createdAt": timestamp(operator.created_at),
        "updatedAt": timestamp(operator.updated_at),
        "encryptPublicKey": operator.public_key[:130],
        "signPublicKey": operator.public_key[130:],
        "keySource": operator.key_source,
    }


def render_set(org: Organization, operator_set: TvcOperatorSet) -> Json:
    """``v1TvcOperatorSet``."""
    return {
        "id": operator_set.operator_set_id,
        "name": operator_set.name,
        "organizationId": org.organization_id,
        "operators": [render_operator(org.tvc_operators[i]) for i in operator_set.operator_ids],
        "threshold": operator_set.threshold,
        "createdAt": timestamp(operator_set.created_at),
        "updatedAt": timestamp(operator_set.updated_at),
    }


def render_app(org: Organization, app: TvcApp) -> Json:
    """``v1TvcApp``."""
    out: Json = {
        "id": app.app_id,
        "organizationId": org.organization_id,
        "name": app.name,
        "quorumPublicKey": app.quorum_public_key,
        "manifestSet": render_set(org, org.tvc_operator_sets[app.manifest_set_id]),
        "shareSet": render_set(org, org.tvc_operator_sets[app.share_set_id]),
        "enableEgress": app.enable_egress,
        "createdAt": timestamp(app.created_at),
        "updatedAt": timestamp(app.updated_at),
        "publicDomain": public_domain(app.app_id),
        "enableDebugModeDeployments": app.enable_debug_mode_deployments,
    }
    if app.live_deployment_id is not None:
        out["liveDeploymentId"] = app.live_deployment_id
    return out


def render_deployment(org: Organization, deployment: TvcDeployment) -> Json:
    """``v1TvcDeployment``."""
    out: Json = {
        "id": deployment.deployment_id,
        "organizationId": org.organization_id,
        "appId": deployment.app_id,
        "manifestSet": render_set(org, org.tvc_operator_sets[deployment.manifest_set_id]),
        "shareSet": render_set(org, org.tvc_operator_sets[deployment.share_set_id]),
        "manifest": {
            "id": deployment.manifest_id,
            "manifest": deployment.manifest,
            "createdAt": timestamp(deployment.created_at),
            "updatedAt": timestamp(deployment.created_at),
        },
        "manifestApprovals": [
            {
                "id": a.approval_id,
                "manifestId": a.manifest_id,
                "operator": render_operator(org.tvc_operators[a.operator_id]),
                "approval": a.signature,
                "createdAt": timestamp(a.created_at),
                "updatedAt": timestamp(a.created_at),
            }
            for a in approvals_of(org, deployment)
        ],
        "qosVersion": deployment.qos_version,
        "pivotContainer": {
            "containerUrl": deployment.container_url,
            "path": deployment.path,
            "args": list(deployment.args),
            "hasPullSecret": deployment.has_pull_secret,
            "healthCheckType": deployment.health_check_type,
            "healthCheckPort": deployment.health_check_port,
            "publicIngressPort": deployment.public_ingress_port,
        },
        "createdAt": timestamp(deployment.created_at),
        "updatedAt": timestamp(deployment.updated_at),
        "delete": deployment.delete,
        "debugMode": deployment.debug_mode,
    }
    if deployment.instance_size_cpus is not None:
        out["instanceSizeCpus"] = deployment.instance_size_cpus
    if deployment.instance_size_ram is not None:
        out["instanceSizeRam"] = deployment.instance_size_ram
    return out


def render_quorum_key(key: TvcQuorumKey) -> Json:
    """``v1TvcQuorumKey``."""
    return {
        "id": key.quorum_key_id,
        "publicKey": key.public_key,
        "threshold": key.threshold,
        "operatorIds": list(key.operator_ids),
        "createdAt": timestamp(key.created_at),
        "updatedAt": timestamp(key.updated_at),
    }


def render_status(runtime: TvcRuntime, deployment: TvcDeployment, now_ns: int) -> Json:
    """``v1DeploymentStatus``."""
    return {
        "deploymentId": deployment.deployment_id,
        "readyReplicas": ready_replicas(runtime, deployment, now_ns),
        "desiredReplicas": desired_replicas(deployment),
        "lastUpdatedTime": timestamp(last_updated(runtime, deployment, now_ns)),
        "provisioningState": provisioning_state(runtime, deployment, now_ns),
    }
