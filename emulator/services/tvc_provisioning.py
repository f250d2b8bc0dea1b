"""A TVC deployment's manifest, its approvals, its attestation and its shares.

* **The manifest** (``crypto/qos_manifest.py``): namespace ``prod/tvc/<app id>`` (as the
  quickstart's approval screen shows it), the deployment's nonce, the app's Quorum Key; the
  pivot's expected digest, args, debug mode, restart ``Always`` and one server bridge on the
  public ingress port; the app's manifest and share sets (alias: the operator's name); the
  QOS release's PCRs and commit and the emulator's attestation root (``world.tvc``); an
  empty patch set. Its digest is QOS's ``qos_hash``.
* **Approvals**: a manifest set member's ECDSA P-256 signature (``r‖s``, hex) over that
  digest under its signing key, as ``ManifestEnvelope::check_approvals`` checks them.
* **Attestation** (``get_tvc_deployment_provisioning_details``): once the enclaves booted,
  a COSE_Sign1 attestation document as QOS asks the NSM for after boot
  (``boot.rs``: ``get_post_boot_attestation_doc``): ``public_key`` the enclave's Ephemeral
  Key (a QOS key set of its own, derived per deployment from the emulator's enclave
  secret), ``user_data`` the manifest digest, PCR0 to PCR3 the manifest's (all zero in
  debug mode, as Nitro's debug mode gives) and PCR17 QOS's live-manifest commitment.
* **Shares** (``provision.rs``): each is the share set member's approval of the digest and
  its share sealed to the Ephemeral Key; at the threshold the enclave rebuilds the master
  seed, whose key set must be the manifest's Quorum Key.
"""

from __future__ import annotations

import base64
import hashlib
import json

import cbor2

from ..crypto import qos_keys, quorum, shamir
from ..crypto.enclave import EnclaveKeys
from ..crypto.qos_manifest import RESTART_ALWAYS, Manifest, Member, MemberSet
from ..engine_state.world import World
from ..ground import jsontext
from ..ground.errors import InvalidArgument
from ..ground.models import Organization
from ..ground.tvc_models import TvcApp, TvcDeployment, TvcOperatorSet, TvcProvisioningShare
from . import enclave_apps
from . import tvc as tvc_service
from .context import Context

Json = dict[str, object]
BRIDGE_HOST = "0.0.0.0"  # QOS's DEFAULT_APP_HOST_IP


def member_set(org: Organization, operator_set: TvcOperatorSet) -> MemberSet:
    return MemberSet(
        operator_set.threshold,
        tuple(
            Member(org.tvc_operators[i].name, bytes.fromhex(org.tvc_operators[i].public_key))
            for i in operator_set.operator_ids
        ),
    )


def build_manifest(
    world: World, org: Organization, app: TvcApp, params: dict, nonce: int, debug_mode: bool
) -> Manifest:
    runtime = world.tvc
    version = params["qosVersion"]
    return Manifest(
        namespace=f"prod/tvc/{app.app_id}",
        nonce=nonce,
        quorum_key=bytes.fromhex(app.quorum_public_key),
        pivot_hash=bytes.fromhex(params["expectedPivotDigest"]),
        restart=RESTART_ALWAYS,
        bridge_port=params["publicIngressPort"],
        bridge_host=BRIDGE_HOST,
        debug_mode=debug_mode,
        args=tuple(params["pivotArgs"]),
        manifest_set=member_set(org, org.tvc_operator_sets[app.manifest_set_id]),
        share_set=member_set(org, org.tvc_operator_sets[app.share_set_id]),
        pcrs=runtime.pcrs(version),
        aws_root_certificate=enclave_apps.root_certificate(world.enclave),
        qos_commit=runtime.qos_commit(version),
    )


def ephemeral_key(enclave: EnclaveKeys, deployment_id: str) -> qos_keys.KeySet:
    return enclave.cached(
        f"tvc-ephemeral:{deployment_id}", lambda seed: qos_keys.KeySet.from_master_seed(seed)
    )


def attestation_document(world: World, deployment: TvcDeployment) -> bytes:
    """The provisioning enclave's attestation document (COSE_Sign1 bytes), made once per
    deployment and boot time."""
    booted_ms = (
        (deployment.approved_at or 0) + world.tvc.boot_seconds * 1_000_000_000
    ) // 1_000_000
    what = f"{deployment.deployment_id}:{booted_ms}:{deployment.manifest_digest}"
    key = "tvc-attestation:" + hashlib.sha256(what.encode()).hexdigest()[:40]
    return world.enclave.cached(key, lambda _: _attestation(world, deployment, booted_ms))


def _attestation(world: World, deployment: TvcDeployment, booted_ms: int) -> bytes:
    ephemeral = ephemeral_key(world.enclave, deployment.deployment_id).public
    digest = bytes.fromhex(deployment.manifest_digest)
    pcrs: dict[int, bytes] = {i: bytes(48) for i in range(32)}
    if not deployment.debug_mode:
        for index, value in enumerate(world.tvc.pcrs(deployment.qos_version)):
            pcrs[index] = value
    pcrs[17] = enclave_apps.live_manifest_pcr(digest, ephemeral)
    return enclave_apps.attestation_document(
        world.enclave,
        "tvc" + deployment.deployment_id.replace("-", ""),
        pcrs,
        ephemeral,
        digest,
        booted_ms,
    )


def envelope(org: Organization, deployment: TvcDeployment) -> bytes:
    """The manifest envelope (QOS's JSON: manifest, manifestSetApprovals, shareSetApprovals)."""

    def approval(operator_id: str, signature: str) -> Json:
        operator = org.tvc_operators[operator_id]
        return {
            "signature": signature,
            "member": {"alias": operator.name, "pubKey": operator.public_key},
        }

    shares = [
        s
        for s in org.tvc_provisioning_shares.values()
        if s.deployment_id == deployment.deployment_id
    ]
    return json.dumps(
        {
            "manifest": jsontext.loads(deployment.manifest),
            "manifestSetApprovals": [
                approval(a.operator_id, a.signature)
                for a in tvc_service.approvals_of(org, deployment)
            ],
            "shareSetApprovals": [approval(s.operator_id, s.signature) for s in shares],
        },
        separators=(",", ":"),
    ).encode()


def check_approval(
    org: Organization, deployment: TvcDeployment, operator_id: str, signature: str, where: str
) -> None:
    """A manifest set member's valid signature over the manifest digest, or the 400."""
    manifest_set = org.tvc_operator_sets[deployment.manifest_set_id]
    if operator_id not in manifest_set.operator_ids:
        raise InvalidArgument(f"{where}: operator {operator_id} is not in the manifest set")
    _check_signature(org, deployment, operator_id, signature, where)


def _check_signature(
    org: Organization, deployment: TvcDeployment, operator_id: str, signature: str, where: str
) -> None:
    operator = org.tvc_operators[operator_id]
    try:
        raw = bytes.fromhex(signature)
    except ValueError:
        raw = b""
    digest = bytes.fromhex(deployment.manifest_digest)
    if not qos_keys.verify(bytes.fromhex(operator.public_key[130:]), digest, raw):
        raise InvalidArgument(
            f"{where}: the signature does not verify over manifest {deployment.manifest_id}'s "
            f"digest under operator {operator_id}'s signing key"
        )


def check_attestation(
    world: World, deployment: TvcDeployment, document_b64: str, manifest_b64: str
) -> None:
    """What an operator checks before releasing its share: the attestation document is
    this deployment's enclave's (its Ephemeral Key, its manifest digest) and the manifest
    is the deployment's."""
    try:
        document = base64.b64decode(document_b64, validate=True)
        manifest = base64.b64decode(manifest_b64, validate=True)
        _protected, _unprotected, payload, _signature = cbor2.loads(document)
        fields = cbor2.loads(payload)
        public_key, user_data = fields["public_key"], fields["user_data"]
    except (ValueError, TypeError, KeyError, cbor2.CBORDecodeError):
        raise InvalidArgument("attestationDocB64 is not a base64 attestation document") from None
    if document != attestation_document(world, deployment):
        raise InvalidArgument(
            f"attestationDocB64 is not the attestation of deployment {deployment.deployment_id}'s "
            "provisioning enclave"
        )
    if (
        user_data != bytes.fromhex(deployment.manifest_digest)
        or public_key != ephemeral_key(world.enclave, deployment.deployment_id).public
    ):
        raise InvalidArgument("the attestation document does not bind this deployment's manifest")
    if manifest != deployment.manifest.encode():
        raise InvalidArgument(
            f"manifestB64 is not the manifest of deployment {deployment.deployment_id}"
        )


def take_share(
    ctx: Context,
    deployment: TvcDeployment,
    operator_id: str,
    signature: str,
    sealed: bytes,
    where: str,
) -> TvcProvisioningShare:
    """One share set member's share for the deployment's enclave (``provision.rs``)."""
    org = ctx.org
    if (
        tvc_service.provisioning_state(ctx.world.tvc, deployment, ctx.now_ns)
        != tvc_service.AWAITING
    ):
        raise InvalidArgument(
            f"deployment {deployment.deployment_id} is not awaiting provisioning "
            f"({tvc_service.provisioning_state(ctx.world.tvc, deployment, ctx.now_ns)})"
        )
    share_set = org.tvc_operator_sets[deployment.share_set_id]
    if operator_id not in share_set.operator_ids:
        raise InvalidArgument(f"{where}: operator {operator_id} is not in the share set")
    posted = [
        s
        for s in org.tvc_provisioning_shares.values()
        if s.deployment_id == deployment.deployment_id
    ]
    if any(s.operator_id == operator_id for s in posted):
        raise InvalidArgument(f"{where}: operator {operator_id} already posted its share")
    _check_signature(org, deployment, operator_id, signature, where)
    ephemeral = ephemeral_key(ctx.world.enclave, deployment.deployment_id)
    try:
        ephemeral.decrypt(sealed)
    except quorum.QuorumEncryptionError:
        raise InvalidArgument(
            f"{where}: the share does not decrypt with the enclave's Ephemeral Key"
        ) from None
    made = TvcProvisioningShare(
        provisioning_share_id=ctx.new_id(),
        deployment_id=deployment.deployment_id,
        operator_id=operator_id,
        signature=signature.lower(),
        encrypted_share=sealed.hex(),
        created_at=ctx.now_ns,
    )
    if len(posted) + 1 >= share_set.threshold:
        shares = [ephemeral.decrypt(bytes.fromhex(s.encrypted_share)) for s in (*posted, made)]
        try:
            seed = shamir.combine(shares)
            rebuilt = qos_keys.KeySet.from_master_seed(seed).public.hex()
        except (shamir.ShamirError, qos_keys.QosKeyError, ValueError):
            rebuilt = ""
        if rebuilt != jsontext.loads(deployment.manifest)["namespace"]["quorumKey"]:
            raise InvalidArgument(f"{where}: the shares do not rebuild the manifest's Quorum Key")
        ctx.tx.set(deployment, "provisioned_at", ctx.now_ns)
    ctx.tx.put(org.tvc_provisioning_shares, made.provisioning_share_id, made)
    return made
