"""Turnkey's documented API rate limits, counted on the emulator's clock (off by default).

On with ``Settings(rate_limits=PLAN)`` or ``serve --rate-limits PLAN``, PLAN one of the
plans of the docs (``free``, ``pay-as-you-go``, ``pro``, ``enterprise``; any case). Every
request whose target organization is known counts toward the buckets the docs give it
(docs.turnkey.com/reference/rate-limits "How limits are applied"; the numbers are
tkhq/docs reference/faq.mdx, "Do you have any rate limits in place in your public API?"):

* the plan's bucket, shared by a parent organization and its sub-organizations;
* a sub-organization's own bucket, 10 RPS on every plan;
* an endpoint's bucket for ``eth_send_transaction``, ``sol_send_transaction`` and
  ``get_wallet_address_balances``, 10 RPS on every plan (one per endpoint and tree).

Each bucket holds a minute of its rate and refills continuously ("per-minute buckets that
refill continuously"). A request is admitted when every one of its buckets holds a whole
request, and then takes one from each; a refused request takes nothing and is answered
429, gRPC code 8, with the FAQ's message and ``RATE_LIMIT_EXCEEDED`` (api-reference/
overview/errors.mdx). The levels are integers (a request is ``NANOS`` units, a bucket
refills ``rps`` units a nanosecond): exact at every boundary, whatever the clock.

The HTTP layer answers the FAQ's headers (``headers``): ``ratelimit-limit``, the plan's
RPS; ``ratelimit-remaining``, the whole requests left in the request's fullest-drained
bucket. docs/rate-limits.md has every choice where the docs are silent.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..ground.errors import ResourceExhausted

if TYPE_CHECKING:
    from ..ground.models import Organization


class _PlanSetting(Protocol):
    @property
    def rate_limits(self) -> str | None: ...


class World(Protocol):
    """What the buckets need of the world that holds them (``world.World`` is one; the world
    checks its plan's name here, so this module names it through this rather than by import)."""

    rate_limits: Any

    @property
    def settings(self) -> _PlanSetting: ...


NANOS = 1_000_000_000
BUCKET_SECONDS = 60  # "per-minute buckets"
SUB_ORGANIZATION_RPS = 10
# "a separate global limit of 10 RPS, applied uniformly across all plans"
ENDPOINT_RPS = {
    "eth_send_transaction": 10,
    "sol_send_transaction": 10,
    "get_wallet_address_balances": 10,
}
MESSAGE = "Too many requests. Please wait and try again in a few seconds"
ERROR_CODE = "RATE_LIMIT_EXCEEDED"
LIMIT_HEADER = "ratelimit-limit"
REMAINING_HEADER = "ratelimit-remaining"
FORWARDED_FOR_HEADER = "x-rate-limit-request-forwarded-for"
REMOTE_ADDR_HEADER = "x-rate-limit-request-remote-addr"


@dataclass(frozen=True, slots=True)
class Plan:
    """A plan of the docs: ``name`` the setting's value, ``title`` as the docs write it."""

    name: str
    title: str
    rps: int


PLANS = {
    plan.name: plan
    for plan in (
        Plan("free", "Free", 1),
        Plan("pay-as-you-go", "Pay-as-you-go", 1),
        Plan("pro", "Pro", 3),
        Plan("enterprise", "Enterprise", 60),
    )
}


def plan_named(name: object) -> Plan:
    """The plan called ``name`` (any case); ``ValueError`` naming the valid ones."""
    plan = PLANS.get(name.strip().lower()) if isinstance(name, str) else None
    if plan is None:
        raise ValueError(f"unknown rate-limit plan {name!r}: choose one of {', '.join(PLANS)}")
    return plan


class RateLimited(ResourceExhausted):
    """The 429 of a request one of whose buckets is empty."""

    def __init__(self) -> None:
        super().__init__(MESSAGE, turnkey_error_code=ERROR_CODE)


class Bucket:
    """A token bucket in integer units: ``NANOS`` units a request, ``rate`` units a ns."""

    __slots__ = ("at_ns", "capacity", "level", "rate")

    def __init__(self, rps: int, now_ns: int) -> None:
        self.rate = rps
        self.capacity = rps * BUCKET_SECONDS * NANOS
        self.level = self.capacity
        self.at_ns = now_ns

    def refill(self, now_ns: int) -> None:
        # A clock moved back refills nothing, and the time is not counted twice after.
        if now_ns > self.at_ns:
            self.level = min(self.capacity, self.level + (now_ns - self.at_ns) * self.rate)
            self.at_ns = now_ns

    @property
    def whole(self) -> int:
        """The whole requests it holds."""
        return self.level // NANOS

    @property
    def limit(self) -> int:
        """The requests it holds when full."""
        return self.capacity // NANOS


class RateLimits:
    """The buckets of one world under one plan (``world.rate_limits``): observations, not
    state; checkpoints, snapshots and resets leave them alone, a new plan starts afresh."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.buckets: dict[tuple[str, ...], Bucket] = {}

    def scopes(self, org: Organization, operation: str) -> list[tuple[tuple[str, ...], int]]:
        """The buckets a request to ``org`` counts toward, each with its rate."""
        root = org.parent_id or org.organization_id
        scopes = [(("plan", root), self.plan.rps)]
        if org.parent_id is not None:
            scopes.append((("organization", org.organization_id), SUB_ORGANIZATION_RPS))
        endpoint_rps = ENDPOINT_RPS.get(operation)
        if endpoint_rps is not None:
            scopes.append((("endpoint", root, operation), endpoint_rps))
        return scopes

    def bucket(self, key: tuple[str, ...], rps: int, now_ns: int) -> Bucket:
        """The bucket of ``key``, refilled to ``now_ns`` (a new one is full)."""
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = Bucket(rps, now_ns)
        elif now_ns > bucket.at_ns:
            bucket.refill(now_ns)
        return bucket

    def admit(self, org: Organization, operation: str, now_ns: int) -> int:
        """Take one request from each bucket, answering the whole requests left in the
        emptiest; raise ``RateLimited`` (taking nothing) when one cannot give it."""
        if org.parent_id is None and operation not in ENDPOINT_RPS:  # the plan's bucket alone
            bucket = self.bucket(("plan", org.organization_id), self.plan.rps, now_ns)
            if bucket.level < NANOS:
                raise RateLimited()
            bucket.level -= NANOS
            return bucket.level // NANOS
        buckets = [self.bucket(key, rps, now_ns) for key, rps in self.scopes(org, operation)]
        if any(bucket.level < NANOS for bucket in buckets):
            raise RateLimited()
        for bucket in buckets:
            bucket.level -= NANOS
        return min(bucket.whole for bucket in buckets)


# The quota of the last request this thread counted, for the HTTP layer's headers: set by
# ``admit`` under the world lock, read by the same thread once its request is answered.
_last = threading.local()


def limits_of(world: World) -> RateLimits:
    """The world's buckets under its settings' plan (new ones when the plan changed)."""
    limits: RateLimits | None = world.rate_limits
    plan = world.settings.rate_limits
    if limits is None or limits.plan.name != plan:
        limits = world.rate_limits = RateLimits(plan_named(plan))
    return limits


def admit(world: World, org: Organization, operation: str, now_ns: int) -> None:
    """Count a request to ``org``'s ``operation`` (dispatch calls this with limits on)."""
    limits = limits_of(world)
    try:
        _last.quota = (limits.plan.rps, limits.admit(org, operation, now_ns))
    except RateLimited:
        _last.quota = (limits.plan.rps, 0)
        raise


def forget() -> None:
    """Drop what this thread's last counted request left (before a new one)."""
    _last.quota = None


def headers(request_headers: Mapping[str, str], client_ip: str | None) -> list[tuple[str, str]]:
    """The rate-limit headers of the request this thread just answered: none if it never
    reached the limiter (its organization unknown); the addresses only where known."""
    quota = getattr(_last, "quota", None)
    _last.quota = None
    if quota is None:
        return []
    limit, remaining = quota
    answer = [(LIMIT_HEADER, str(limit)), (REMAINING_HEADER, str(remaining))]
    forwarded = request_headers.get("x-forwarded-for")
    if forwarded:
        answer.append((FORWARDED_FOR_HEADER, forwarded))
    if client_ip:
        answer.append((REMOTE_ADDR_HEADER, client_ip))
    return answer
