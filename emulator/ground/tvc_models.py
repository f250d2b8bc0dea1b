"""The records of Turnkey Verifiable Cloud (``ops/tvc_*.py``): operators, operator sets,
Quorum Keys and their shares, apps, deployments, manifest approvals, provisioning shares.

Plain dataclasses as ``models.py``'s, held by the organization; times are nanoseconds on the
emulator's clock. Public keys are hex: an operator's and a Quorum Key's are QOS key sets
(130 bytes, ``crypto/qos_keys.py``). A share is kept only as its ciphertext, sealed to its
operator's encryption key (or, posted to a deployment, to that enclave's Ephemeral Key).
"""

from __future__ import annotations

from dataclasses import dataclass

KEY_SOURCE_EXTERNAL = "EXTERNAL_KEY"
KEY_SOURCE_WALLET = "ORG_WALLET_ACCOUNT"


@dataclass(slots=True)
class TvcOperator:
    operator_id: str
    name: str
    public_key: str  # encryption key ‖ signing key, 130 bytes hex
    key_source: str
    created_at: int
    updated_at: int
    wallet_id: str | None = None  # ORG_WALLET_ACCOUNT: the wallet and its two accounts' paths
    encrypt_path: str | None = None
    sign_path: str | None = None


@dataclass(slots=True)
class TvcOperatorSet:
    operator_set_id: str
    name: str
    operator_ids: tuple[str, ...]
    threshold: int
    created_at: int
    updated_at: int


@dataclass(slots=True)
class TvcQuorumKey:
    quorum_key_id: str
    public_key: str
    threshold: int
    operator_ids: tuple[str, ...]
    created_at: int
    updated_at: int


@dataclass(slots=True)
class TvcQuorumKeyShare:
    share_id: str
    quorum_key_id: str
    operator_id: str
    encrypted_share: str  # sealed to the operator's encryption key (crypto/quorum.py), hex
    created_at: int


@dataclass(slots=True)
class TvcApp:
    app_id: str
    name: str
    quorum_public_key: str
    manifest_set_id: str
    share_set_id: str
    enable_egress: bool
    enable_debug_mode_deployments: bool
    created_at: int
    updated_at: int
    live_deployment_id: str | None = None
    deleted: bool = False


@dataclass(slots=True)
class TvcDeployment:
    deployment_id: str
    app_id: str
    manifest_id: str
    manifest: str  # the QOS manifest's JSON (crypto/qos_manifest.py)
    manifest_digest: str  # qos_hash, hex
    manifest_set_id: str
    share_set_id: str
    qos_version: str
    container_url: str
    path: str
    args: tuple[str, ...]
    has_pull_secret: bool
    health_check_type: str
    health_check_port: int
    public_ingress_port: int
    replicas: int
    debug_mode: bool
    created_at: int
    updated_at: int
    instance_size_cpus: int | None = None
    instance_size_ram: int | None = None
    delete: bool = False
    approved_at: int | None = None  # the manifest set's threshold reached
    provisioned_at: int | None = None  # the share set's threshold reached, the key rebuilt


@dataclass(slots=True)
class TvcManifestApproval:
    approval_id: str
    manifest_id: str
    deployment_id: str
    operator_id: str
    signature: str  # r‖s over the manifest's qos_hash, hex
    created_at: int


@dataclass(slots=True)
class TvcProvisioningShare:
    provisioning_share_id: str
    deployment_id: str
    operator_id: str
    signature: str  # the share set member's approval of the manifest, hex
    encrypted_share: str  # sealed to the deployment's Ephemeral Key, hex
    created_at: int
