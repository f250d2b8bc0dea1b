"""The in-memory records of one emulated world.

Plain dataclasses, snake_case, no wire shapes: ``render.py`` turns them into
the JSON the real service answers with. Times are nanoseconds since the epoch
on the emulator's clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .controls import (
    IpAllowlist,
    MfaPolicy,
    MfaProgress,
    SessionProfile,
    VelocityBucket,
    VelocityControl,
    VelocityPoint,
)
from .earn_records import EarnPositionTotals, EarnRequest, EarnWrapper
from .external_records import (
    Oauth2Credential,
    Secret,
    SentTransaction,
    SmartContractInterface,
    WebhookEndpoint,
)
from .onramp import FiatOnRampCredential, FiatOnRampQuote, OnRampTransaction
from .swaps import SwapConfig, SwapFee, SwapLimit, SwapQuote, SwapRequest, SwapUsage
from .tvc_models import (
    TvcApp,
    TvcDeployment,
    TvcManifestApproval,
    TvcOperator,
    TvcOperatorSet,
    TvcProvisioningShare,
    TvcQuorumKey,
    TvcQuorumKeyShare,
)

# Credential types of API-key-like credentials, by the curve of their key.
API_KEY_CREDENTIAL_TYPES = {
    "API_KEY_CURVE_P256": "CREDENTIAL_TYPE_API_KEY_P256",
    "API_KEY_CURVE_SECP256K1": "CREDENTIAL_TYPE_API_KEY_SECP256K1",
    "API_KEY_CURVE_ED25519": "CREDENTIAL_TYPE_API_KEY_ED25519",
}
API_KEY_CURVES_BY_CREDENTIAL_TYPE = {v: k for k, v in API_KEY_CREDENTIAL_TYPES.items()}


@dataclass(slots=True)
class ApiKey:
    api_key_id: str
    name: str
    public_key: str
    credential_type: str
    created_at: int
    updated_at: int
    expiration_seconds: str | None = None
    # A login key issued with a session profile: its scope judges every activity it stamps.
    session_profile_id: str | None = None

    @property
    def curve(self) -> str:
        """The key's curve, as an ``API_KEY_CURVE_*`` value."""
        return API_KEY_CURVES_BY_CREDENTIAL_TYPE.get(self.credential_type, "API_KEY_CURVE_P256")

    def expires_at_ns(self) -> int | None:
        if self.expiration_seconds is None:
            return None
        return self.created_at + int(self.expiration_seconds) * 1_000_000_000


@dataclass(slots=True)
class Authenticator:
    authenticator_id: str
    name: str
    credential_id: str  # base64url, as the client sent it
    public_key: str  # base64url of the COSE key
    aaguid: str
    attestation_type: str
    model: str
    transports: list[str]
    created_at: int
    updated_at: int


@dataclass(slots=True)
class OauthProvider:
    provider_id: str
    name: str
    issuer: str
    audience: str
    subject: str
    created_at: int
    updated_at: int


@dataclass(slots=True)
class User:
    user_id: str
    name: str
    created_at: int
    updated_at: int
    email: str | None = None
    phone_number: str | None = None
    tag_ids: list[str] = field(default_factory=list)
    api_keys: dict[str, ApiKey] = field(default_factory=dict)
    authenticators: dict[str, Authenticator] = field(default_factory=dict)
    oauth_providers: dict[str, OauthProvider] = field(default_factory=dict)
    # Whether the e-mail address / phone number was proven (an OTP or a verification
    # token); ``list_verified_suborgs`` reads them. ``otp_auth`` and ``otp_login`` set them
    # (``services/otp.py``), and so does the test seam ``emu.backdoor.verify_contact``.
    email_verified: bool = False
    phone_number_verified: bool = False


@dataclass(slots=True)
class Tag:
    tag_id: str
    name: str
    tag_type: str  # TAG_TYPE_USER | TAG_TYPE_PRIVATE_KEY
    created_at: int
    updated_at: int


@dataclass(slots=True)
class WalletAccount:
    wallet_account_id: str
    organization_id: str
    wallet_id: str
    curve: str
    path_format: str
    path: str
    address_format: str
    address: str
    public_key: str  # hex: compressed SEC1 for secp256k1 and P-256, raw 32 bytes for ed25519
    created_at: int
    updated_at: int
    name: str | None = None
    exported: bool = False


@dataclass(slots=True)
class Wallet:
    wallet_id: str
    name: str
    created_at: int
    updated_at: int
    exported: bool = False
    imported: bool = False
    accounts: dict[str, WalletAccount] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Address:
    address_format: str
    address: str


@dataclass(slots=True)
class PrivateKey:
    private_key_id: str
    name: str
    curve: str
    public_key: str  # hex, as for wallet accounts
    addresses: list[Address]
    tag_ids: list[str]
    created_at: int
    updated_at: int
    exported: bool = False
    imported: bool = False


@dataclass(frozen=True, slots=True)
class SignerRef:
    """What a ``signWith`` value names: a wallet account or a private key."""

    private_key_id: str | None = None
    wallet_id: str | None = None
    wallet_account_id: str | None = None


@dataclass(slots=True, eq=False)  # compared and hashed by identity: records are replaced
class Policy:
    policy_id: str
    name: str
    effect: str  # EFFECT_ALLOW | EFFECT_DENY
    condition: str  # "" when the policy has none
    consensus: str  # "" when the policy has none
    notes: str
    created_at: int
    updated_at: int
    time: str | None = None


@dataclass(slots=True)
class Invitation:
    invitation_id: str
    receiver_user_name: str
    receiver_user_email: str
    receiver_user_tags: list[str]
    access_type: str
    sender_user_id: str
    created_at: int
    updated_at: int


@dataclass(slots=True)
class Otp:
    """A one-time password sent by ``init_otp_auth`` or ``init_otp`` (``services/otp.py``).

    ``flow`` is ``otp_auth`` (init_otp_auth, checked by otp_auth) or ``verify``
    (init_otp, checked by verify_otp); ``legacy`` marks the plaintext generic flow
    (INIT_OTP V1/V2, VERIFY_OTP V1) apart from the encrypted one (INIT_OTP_V3,
    VERIFY_OTP_V2). ``attempts`` counts wrong codes; ``used`` is set by the check that
    succeeds. ``token_*`` describe the verification token verify_otp issued for it
    (single-use: ``token_used``). The code is never rendered; the target key of the
    encrypted flow is derived, never stored (``services/otp.py``).
    """

    otp_id: str
    flow: str
    otp_type: str  # OTP_TYPE_EMAIL | OTP_TYPE_SMS
    contact: str
    code: str = field(repr=False)  # a secret until used: in no repr (issue 23)
    created_at: int
    expires_at: int
    user_identifier: str | None = None
    legacy: bool = False
    attempts: int = 0
    used: bool = False
    token_id: str | None = None
    token_public_key: str | None = None
    token_used: bool = False


@dataclass(slots=True)
class Quorum:
    threshold: int
    user_ids: list[str]


@dataclass(slots=True)
class PolicyOutcome:
    """How one policy took part in judging a vote (``OUTCOME_*``)."""

    policy_id: str
    outcome: str


@dataclass(slots=True)
class Vote:
    vote_id: str
    user_id: str
    activity_id: str
    selection: str
    message: str = field(repr=False)  # the signed request: what its client sent (codes too)
    public_key: str
    signature: str = field(repr=False)
    scheme: str
    created_at: int
    # The voter as they were when last in the organization (records are never mutated
    # once their user is deleted), rendered when the user no longer exists.
    voter: User | None = None
    # The policy engine's outcomes when this vote was judged (its policy evaluation).
    policy_outcomes: list[PolicyOutcome] = field(default_factory=list)


@dataclass(slots=True)
class Activity:
    activity_id: str
    organization_id: str
    activity_type: str
    status: str
    # What the client sent and was answered (a used OTP code, an OAuth code, bundles): the
    # API renders them; no repr shows them.
    intent: dict[str, Any] = field(repr=False)
    result: dict[str, Any] = field(repr=False)
    fingerprint: str
    timestamp_ms: str
    created_at: int
    updated_at: int
    votes: list[Vote] = field(default_factory=list)
    failure: dict[str, Any] | None = field(default=None, repr=False)
    seed_intent: dict[str, Any] | None = field(default=None, repr=False)
    # MFA still owed or given on this activity, one entry per voter an MFA policy held.
    mfa: list[MfaProgress] = field(default_factory=list)
    # The enclaves' app proofs (``v1AppProof``), when the request asked for them
    # (``generateAppProofs``; ``services/app_proofs.py``).
    app_proofs: list[Any] = field(default_factory=list)


class NameIndex(dict):
    """A derived index, name -> record id, kept beside a collection so that a create checks
    uniqueness in constant time. Not saved: loading rebuilds it from the records."""

    __slots__ = ()


@dataclass(slots=True)
class Organization:
    organization_id: str
    name: str
    created_at: int
    root_quorum: Quorum
    parent_id: str | None = None
    users: dict[str, User] = field(default_factory=dict)
    user_tags: dict[str, Tag] = field(default_factory=dict)
    wallets: dict[str, Wallet] = field(default_factory=dict)
    private_keys: dict[str, PrivateKey] = field(default_factory=dict)
    private_key_tags: dict[str, Tag] = field(default_factory=dict)
    # signWith values (addresses, private key ids) -> what they name, oldest first
    signers: dict[str, tuple[SignerRef, ...]] = field(default_factory=dict)
    features: dict[str, str] = field(default_factory=dict)
    policies: dict[str, Policy] = field(default_factory=dict)
    invitations: dict[str, Invitation] = field(default_factory=dict)
    otps: dict[str, Otp] = field(default_factory=dict)
    activities: dict[str, Activity] = field(default_factory=dict)
    sub_organization_ids: list[str] = field(default_factory=list)
    # IP allowlists: "" for the organization's, else the API key's public key.
    ip_allowlists: dict[str, IpAllowlist] = field(default_factory=dict)
    session_profiles: dict[str, SessionProfile] = field(default_factory=dict)
    smart_contract_interfaces: dict[str, SmartContractInterface] = field(default_factory=dict)
    secrets: dict[str, Secret] = field(default_factory=dict)
    mfa_policies: dict[str, MfaPolicy] = field(default_factory=dict)
    oauth2_credentials: dict[str, Oauth2Credential] = field(default_factory=dict)
    velocity_controls: dict[str, VelocityControl] = field(default_factory=dict)
    velocity_buckets: dict[str, VelocityBucket] = field(default_factory=dict)
    velocity_points: dict[str, VelocityPoint] = field(default_factory=dict)
    webhook_endpoints: dict[str, WebhookEndpoint] = field(default_factory=dict)
    sent_transactions: dict[str, SentTransaction] = field(default_factory=dict)
    fiat_on_ramp_credentials: dict[str, FiatOnRampCredential] = field(default_factory=dict)
    fiat_on_ramp_quotes: dict[str, FiatOnRampQuote] = field(default_factory=dict)
    on_ramp_transactions: dict[str, OnRampTransaction] = field(default_factory=dict)
    # Turnkey Verifiable Cloud (ground/tvc_models.py, ops/tvc_*.py)
    tvc_operators: dict[str, TvcOperator] = field(default_factory=dict)
    tvc_operator_sets: dict[str, TvcOperatorSet] = field(default_factory=dict)
    tvc_quorum_keys: dict[str, TvcQuorumKey] = field(default_factory=dict)
    tvc_quorum_key_shares: dict[str, TvcQuorumKeyShare] = field(default_factory=dict)
    tvc_apps: dict[str, TvcApp] = field(default_factory=dict)
    tvc_deployments: dict[str, TvcDeployment] = field(default_factory=dict)
    tvc_manifest_approvals: dict[str, TvcManifestApproval] = field(default_factory=dict)
    tvc_provisioning_shares: dict[str, TvcProvisioningShare] = field(default_factory=dict)
    # Earn (``ground/earn_records.py``): wrappers by lower-case address, requests by id,
    # position totals by "<wallet>:<wrapper>" (lower case)
    earn_wrappers: dict[str, EarnWrapper] = field(default_factory=dict)
    earn_requests: dict[str, EarnRequest] = field(default_factory=dict)
    earn_positions: dict[str, EarnPositionTotals] = field(default_factory=dict)
    # swaps (ground/swaps.py; the configuration, windows, usage and fees on the parent)
    swap_quotes: dict[str, SwapQuote] = field(default_factory=dict)
    swaps: dict[str, SwapRequest] = field(default_factory=dict)
    swap_configs: dict[str, SwapConfig] = field(default_factory=dict)
    swap_limits: dict[str, SwapLimit] = field(default_factory=dict)
    swap_usage: dict[str, SwapUsage] = field(default_factory=dict)
    swap_fees: dict[str, SwapFee] = field(default_factory=dict)
    # Derived from ``wallets`` and ``private_keys`` (not saved): their names -> ids.
    wallet_names: NameIndex = field(default_factory=NameIndex)
    private_key_names: NameIndex = field(default_factory=NameIndex)

    def mfa_policies_of(self, user_id: str) -> list[MfaPolicy]:
        """The user's MFA policies in evaluation order (lower ``order`` first, then older)."""
        if not self.mfa_policies:
            return []
        mine = [p for p in self.mfa_policies.values() if p.user_id == user_id]
        return sorted(mine, key=lambda p: (p.order, p.created_at, p.mfa_policy_id))
