"""One emulated world: the state, its clock, its id source and its settings."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..crypto.addresses import AddressOptions
from ..crypto.enclave import EnclaveKeys
from ..ground.clock import Clock
from ..ground.compact import Young
from ..ground.external_records import Unsaved
from ..ground.ids import IdSource
from ..ground.transaction import Transaction
from ..recorders.calls import CallLog
from ..recorders.faults import Faults
from ..recorders.outbox import Outbox
from ..recorders.tvc_runtime import TvcRuntime
from ..webhooks.deliveries import Webhooks
from .store import Store

# reference/faq.mdx: request timestamps must be "less than an hour old, and up to 5 minutes
# in the future".
DEFAULT_TIMESTAMP_WINDOW_S = 3600.0
DEFAULT_TIMESTAMP_FUTURE_S = 300.0


@dataclass
class Settings:
    """Knobs of the emulator (the real service's values by default)."""

    # How old ``timestampMs`` of an activity may be on the emulator's clock, in seconds;
    # ``None`` turns the liveness check off. It may be ahead of the clock by at most
    # ``timestamp_future_s`` (and never more than ``timestamp_window_s``).
    timestamp_window_s: float | None = DEFAULT_TIMESTAMP_WINDOW_S
    timestamp_future_s: float = DEFAULT_TIMESTAMP_FUTURE_S
    max_users_per_organization: int = 100
    max_api_keys_per_user: int = 10
    max_authenticators_per_user: int = 10
    max_oauth_providers_per_user: int = 10
    max_tags_per_organization: int = 100
    # Tags of a sub-organization: its own, lower limit (resource-limits.mdx: 100 vs 10).
    max_tags_per_sub_organization: int = 10
    max_invitations_per_organization: int = 100
    # Sub-organizations of one parent (``None``: unlimited, as documented). A
    # sub-organization cannot create sub-organizations at all (its allowance is 0).
    max_sub_organizations_per_organization: int | None = None
    max_wallets_per_organization: int = 100
    max_private_keys_per_organization: int = 1000
    max_policies_per_organization: int = 100
    # OTPs (features/authentication/email.mdx and sms.mdx, "OTP rate limits"): with a
    # ``userIdentifier``, at most ``otp_max_requests`` inits per ``otp_request_window_s``
    # and ``otp_max_active_codes`` live codes per identifier; a code locks after
    # ``otp_max_attempts`` wrong tries (``services/otp.py``).
    otp_max_requests: int = 3
    otp_request_window_s: int = 180
    otp_max_active_codes: int = 3
    otp_max_attempts: int = 3
    # Webhooks (features/webhooks/overview.mdx; the choices where the docs are silent are the
    # README's "Webhooks"). Loopback URLs are allowed for local receivers (the real service
    # refuses them; False refuses them too).
    webhook_allow_loopback: bool = True
    max_webhook_endpoints_per_organization: int | None = 100
    # Delay before each retry of a retryable failure (network error, timeout, 5xx), seconds
    # on the emulator's clock; one first attempt plus one per delay.
    webhook_retry_delays_s: tuple[float, ...] = (5.0, 30.0, 120.0, 600.0, 1800.0)
    # How long one attempt waits for the receiver's answer.
    webhook_timeout_s: float = 10.0
    # Deliver in the thread that caused the event, once its request has let go of the world,
    # instead of in the background: deterministic tests.
    webhook_synchronous: bool = False
    # Chains (``emulator/chains``): CAIP-2 id -> a node's JSON-RPC URL; the others are embedded.
    # (Out of the repr: a provider's URL often carries its API key.)
    chain_rpc_urls: dict[str, str] = field(default_factory=dict, repr=False)
    # Seconds on the emulator's clock between a broadcast and its INCLUDED (or FAILED) status
    # on an embedded chain (its block time); 0 reports the outcome at once.
    chain_block_time_s: float = 0.0
    # The gas station (features/transaction-management/broadcasting/gas-sponsorship): USD
    # limits over a rolling window (reference/faq.mdx: Pro, "up to $50/day"; the concept
    # page's Enterprise plan is unlimited with configurable windows), and the prices used to value
    # sponsored fees in USD, per native asset symbol.
    gas_sponsorship_enabled: bool = True
    gas_window_minutes: int = 1440
    gas_org_window_limit_usd: str = "50"
    gas_sub_org_window_limit_usd: str = "50"
    native_usd_prices: dict[str, str] = field(
        default_factory=lambda: {
            "ETH": "3000",
            "POL": "0.25",
            "BNB": "600",
            "MON": "1",
            "USD": "1",
            "SOL": "150",
        }
    )
    # USD prices by CAIP-19 id, over the defaults of services/prices.py (emu.swap.set_price)
    asset_usd_prices: dict[str, str] = field(default_factory=dict)
    # Swaps (docs/swap.md): the Early Access flag Turnkey grants (granted here), whether the
    # organizations are on the Enterprise plan (stable-pair fees), a cross-chain fill's delay
    swap_early_access: bool = True
    swap_enterprise: bool = True
    swap_fill_delay_s: float = 30.0
    # The conventions behind *_P2SH, *_P2WSH and TON addresses (not public; see AddressOptions).
    address_options: AddressOptions = field(default_factory=AddressOptions)
    # The OIDC tokens ``oauth2_authenticate`` issues: their ``iss`` (Turnkey's URL; the
    # exact value is not public) and lifetime in seconds ("short-lived"; not documented).
    oauth2_issuer: str = "https://api.turnkey.com"
    oauth2_token_lifetime_s: int = 600
    # With ``serve --state``: the activities kept in memory; older ones are read back from
    # the state file when asked for (``state/archive.py``; None keeps them all).
    activities_in_memory: int | None = 10_000
    # The documented API rate limits of this plan (``ratelimits.py``, docs/rate-limits.md):
    # "free", "pay-as-you-go", "pro" or "enterprise"; ``None`` (the default) counts nothing.
    rate_limits: str | None = None
    # The origin of the fiat on-ramp's provider pages (``onRampUrl``; docs/onramp.md): ``serve``
    # sets its own base URL when this is None.
    onramp_site_url: str | None = None

    def __post_init__(self) -> None:
        if self.rate_limits is not None:
            from .ratelimits import plan_named

            self.rate_limits = plan_named(self.rate_limits).name


@dataclass(frozen=True)
class Checkpoint:
    """A point in a world's history that ``World.rollback`` can return to."""

    journal: list
    position: int  # where its mark stands in the journal
    mark: object
    ids: object
    clock: object


class _Mark:
    """A journal entry that undoes nothing: it stands where a checkpoint was taken."""

    __slots__ = ()

    def __call__(self) -> None:
        pass


@dataclass(repr=False)
class World:
    clock: Clock = field(default_factory=Clock)
    ids: IdSource = field(default_factory=IdSource)
    settings: Settings = field(default_factory=Settings)
    store: Store = field(default_factory=Store)
    lock: threading.RLock = field(default_factory=threading.RLock)
    # The enclave's signer, notarizer and TLS fetcher keys (``enclave.py``).
    enclave: EnclaveKeys = field(default_factory=EnclaveKeys.create)
    # OIDC issuers whose tokens verify: issuer -> its JWKS, or a function giving it
    # (``services/oidc.py``; ``emu.oidc.trust``). Configuration: snapshots leave it alone.
    oidc_issuers: dict[str, Any] = field(default_factory=dict)
    # The built-in OAuth 2.0 provider (``services/oauth2.py``; ``emu.oauth2``): its clients,
    # (provider, client id) -> ProviderClient, and the codes it issued, code ->
    # AuthorizationCode. Another party's state: undone by rollbacks, never saved.
    oauth2_clients: Unsaved = field(default_factory=Unsaved)
    oauth2_codes: Unsaved = field(default_factory=Unsaved)
    # Undo steps of every committed change since the first checkpoint (None: not kept).
    journal: list | None = None
    # The chains the emulator broadcasts to (``chains/network.py``), started on first use.
    # The outside world: checkpoints, snapshots and resets of the state leave them alone.
    chains: Any = None
    # Observations and test controls, not state: checkpoints and snapshots leave them alone.
    calls: CallLog = field(default_factory=CallLog)
    faults: Faults = field(default_factory=Faults)
    outbox: Outbox = field(default_factory=Outbox)
    # Webhook deliveries (``webhooks/deliveries.py``): observations and a sender, not state.
    webhooks: Webhooks = field(default_factory=Webhooks)
    # What Verifiable Cloud runs that the emulator cannot (``emu.tvc``): a test control.
    tvc: TvcRuntime = field(default_factory=TvcRuntime)
    # The source address in-process calls are judged to come from by IP allowlists
    # (``emu.backdoor.set_client_ip``); None: unknown, as a request with no address.
    client_ip: str | None = None
    # The state file's archive of the activities that left memory (``state/archive.py``):
    # set by the durable journal, None in memory only.
    archive: Any = None
    # The activities recorded last, compacted once settled and older (``compact.py``).
    young: Young = field(default_factory=Young)
    # Called with what each transaction touched as it commits, under the lock and before the
    # commit is final (the durable journal of ``serve --state``, ``state/journal.py``).
    commit_hook: Callable[[list], None] | None = None
    # The rate-limit buckets under ``settings.rate_limits`` (``ratelimits.py``), made on the
    # first request counted: observations, not state; checkpoints and snapshots leave them be.
    rate_limits: Any = None
    # Counts the rollbacks to a checkpoint: changes made behind the transactions' backs
    # (the durable journal then writes the whole state again).
    generation: int = 0
    # Counts committed transactions: with ``generation`` and the store's identity, what a
    # watcher (the dashboard's live view) compares to see that the state changed.
    commits: int = 0

    def __repr__(self) -> str:  # what it holds is secret or large: counts only
        return (
            f"World(organizations={len(self.store.organizations)},"
            f" generation={self.generation}, {self.clock!r})"
        )

    def __post_init__(self) -> None:
        self.webhooks.bind(self)
        self.outbox.clock = self.clock
        self.clock.listener = self.webhooks.clock_moved

    def transaction(self) -> Transaction:
        """A new all-or-nothing change; its commit is journaled once a checkpoint exists."""
        tx = Transaction(self.journal, self.commit_hook)
        tx.on_commit(self._count_commit)
        return tx

    def _count_commit(self) -> None:
        self.commits += 1

    def checkpoint(self) -> Checkpoint:
        """Mark the current state; from now on every commit keeps its undo steps."""
        with self.lock:
            if self.journal is None:
                self.journal = []
            mark = _Mark()
            self.journal.append(mark)
            return Checkpoint(
                self.journal,
                len(self.journal) - 1,
                mark,
                self.ids.getstate(),
                self.clock.getstate(),
            )

    def rollback(self, checkpoint: Checkpoint) -> None:
        """Undo every change since ``checkpoint``, ids and clock included. The cost is the
        number of changes made since, not the size of the state; the checkpoint stays usable."""
        with self.lock:
            journal, position = self.journal, checkpoint.position
            if (
                checkpoint.journal is not journal
                or position >= len(journal)
                or journal[position] is not checkpoint.mark
            ):
                raise ValueError("this checkpoint is not in the world's history any more")
            while len(journal) > position + 1:
                journal.pop()()
            self.generation += 1
            self.ids.setstate(checkpoint.ids)
            self.clock.setstate(checkpoint.clock)
