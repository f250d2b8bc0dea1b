"""What the parent organization configures for swaps, and what it is owed and owes.

* The fee configuration (``upsert_swap_config``): one per parent organization, read by every
  quote of the parent and its sub-organizations (sub-organizations cannot set it).
* The spending windows of fee sponsorship and fixed-rate quotes
  (``upsert_swap_fee_sponsorship_limit_config``, ``upsert_swap_fixed_rate_limit_config``):
  a USD limit shared by the parent and its sub-organizations, a per-sub-organization limit, a
  rolling window on the emulator's clock. A quote that uses a feature needs the parent's
  permission (the ``FEATURE_NAME_SWAP_FEE_SPONSORSHIP`` / ``_FIXED_RATE`` organization
  feature), an enabled window, and room left in it; an executed swap records its USD usage
  (fixed-rate earnings offset costs; usage never reads below zero).
* The client fees: each completed swap accrues its client fee, in USDC on Base, to the
  parent; ``claim_swap_fees`` pays what is unclaimed to the fee receiver.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from ..ground import swap_messages as say
from ..ground.errors import FAILED_PRECONDITION, InvalidArgument, TurnkeyApiError
from ..ground.models import Organization
from ..ground.numbers import integer
from ..ground.swaps import SwapConfig, SwapFee, SwapLimit, SwapQuote, SwapUsage
from .context import Context
from .swap_pricing import FEE_CAP_BPS, usd_string

CONFIG_ID = "swap"
FEE_SPONSORSHIP = "FEATURE_NAME_SWAP_FEE_SPONSORSHIP"
FIXED_RATE = "FEATURE_NAME_SWAP_FIXED_RATE"
MAX_WINDOW_MINUTES = 153_722_867
_USD = re.compile(r"^[0-9]{1,18}(\.[0-9]{1,12})?$")
_BPS = re.compile(r"^[0-9]{1,5}$")


def precondition(message: str) -> TurnkeyApiError:
    return TurnkeyApiError(FAILED_PRECONDITION, message)


def parent_of(ctx: Context) -> Organization:
    """The billing parent: the organization itself, or its parent."""
    org = ctx.org
    if org.parent_id is None:
        return org
    return ctx.store.organizations.get(org.parent_id, org)


def require_parent(ctx: Context) -> None:
    if ctx.org.parent_id is not None:
        raise InvalidArgument(say.PARENT_ONLY)


def bps_param(value: Any, field: str, cap: int = FEE_CAP_BPS) -> int:
    if not isinstance(value, str) or not _BPS.fullmatch(value) or int(value) > cap:
        raise InvalidArgument(say.bps(field, str(value), cap))
    return int(value)


# ----- the fee configuration ---------------------------------------------------------------


def config(ctx: Context) -> SwapConfig | None:
    return parent_of(ctx).swap_configs.get(CONFIG_ID)


def client_fee_bps(ctx: Context, stable_pair: bool) -> int:
    found = config(ctx)
    if found is None or found.fee_bps is None:
        return 0
    if stable_pair and found.stable_fee_bps is not None:
        return int(found.stable_fee_bps)
    return int(found.fee_bps)


def save_config(
    ctx: Context, receiver: str | None, fee_bps: str | None, stable_fee_bps: str | None
) -> SwapConfig:
    saved = SwapConfig(CONFIG_ID, receiver, fee_bps, stable_fee_bps, ctx.now_ns)
    ctx.tx.put(ctx.org.swap_configs, CONFIG_ID, saved)
    return saved


# ----- the spending windows ----------------------------------------------------------------


def usd_param(value: Any, field: str) -> Decimal:
    if not isinstance(value, str) or not _USD.fullmatch(value) or Decimal(value) <= 0:
        raise InvalidArgument(say.usd_limit(field, str(value)))
    return Decimal(value)


def save_limit(ctx: Context, feature: str, params: dict[str, Any]) -> None:
    require_parent(ctx)
    org_limit = usd_param(params["orgWindowLimitUsd"], "orgWindowLimitUsd")
    sub_limit = usd_param(params["subOrgWindowLimitUsd"], "subOrgWindowLimitUsd")
    if sub_limit > org_limit:
        raise InvalidArgument(
            say.sub_org_limit_above(params["subOrgWindowLimitUsd"], params["orgWindowLimitUsd"])
        )
    minutes = params["windowDurationMinutes"]
    count = integer(minutes) if isinstance(minutes, str) else None
    if count is None or not 0 < count <= MAX_WINDOW_MINUTES:
        raise InvalidArgument(say.window_minutes(str(minutes), MAX_WINDOW_MINUTES))
    enabled = bool(params["enabled"])
    if enabled and not permitted(ctx.org, feature):
        raise precondition(say.feature_missing(feature))
    limit = SwapLimit(
        feature,
        usd_string(org_limit),
        usd_string(sub_limit),
        int(minutes),
        enabled,
        ctx.now_ns,
    )
    ctx.tx.put(ctx.org.swap_limits, feature, limit)


def permitted(parent: Organization, feature: str) -> bool:
    return feature in parent.features


def _used(
    ctx: Context, parent: Organization, feature: str, org_ids: set[str], since: int
) -> Decimal:
    total = sum(
        (
            Decimal(u.usd)
            for u in parent.swap_usage.values()
            if u.feature == feature and u.organization_id in org_ids and u.at_ms > since
        ),
        Decimal(0),
    )
    return max(total, Decimal(0))


def window_view(ctx: Context, feature: str) -> dict[str, Any]:
    """One feature of ``get_swap_sponsorship_usage``, as the caller's organization sees it."""
    parent = parent_of(ctx)
    view: dict[str, Any] = {"permitted": permitted(parent, feature)}
    limit = parent.swap_limits.get(feature)
    if limit is None:
        return view
    now_ms = ctx.now_ns // 1_000_000
    since = now_ms - limit.window_duration_minutes * 60_000
    family = {parent.organization_id, *parent.sub_organization_ids}
    parent_used = _used(ctx, parent, feature, family, since)
    parent_left = max(Decimal(limit.org_window_limit_usd) - parent_used, Decimal(0))
    is_parent = ctx.org.organization_id == parent.organization_id
    if is_parent:
        used, left = parent_used, parent_left
        window_limit = limit.org_window_limit_usd
    else:
        used = _used(ctx, parent, feature, {ctx.org.organization_id}, since)
        own_left = max(Decimal(limit.sub_org_window_limit_usd) - used, Decimal(0))
        left = min(own_left, parent_left)
        window_limit = limit.sub_org_window_limit_usd
    window: dict[str, Any] = {
        "windowDurationMinutes": limit.window_duration_minutes,
        "windowLimitUsd": window_limit,
        "usageUsd": usd_string(used),
        "remainingUsd": usd_string(left if limit.enabled else Decimal(0)),
        "enabled": limit.enabled,
    }
    if is_parent:
        window["subOrgWindowLimitUsd"] = limit.sub_org_window_limit_usd
    view["window"] = window
    return view


def check_window(ctx: Context, feature: str, cost_usd: Decimal) -> None:
    """A quote may use ``feature``: permitted, window enabled, ``cost_usd`` fits in it."""
    view = window_view(ctx, feature)
    if not view["permitted"]:
        raise precondition(say.feature_missing(feature))
    window = view.get("window")
    if window is None or not window["enabled"]:
        raise precondition(say.window_closed(feature))
    if Decimal(window["remainingUsd"]) <= 0 or max(cost_usd, Decimal(0)) > Decimal(
        window["remainingUsd"]
    ):
        raise precondition(say.window_closed(feature))


def record_usage(ctx: Context, feature: str, usd: Decimal) -> None:
    parent = parent_of(ctx)
    usage_id = ctx.new_id()
    usage = SwapUsage(
        usage_id, feature, ctx.org.organization_id, usd_string(usd), ctx.now_ns // 1_000_000
    )
    ctx.tx.put(parent.swap_usage, usage_id, usage)


# ----- client fees -------------------------------------------------------------------------


def accrue(ctx: Context, swap_request_id: str, usd: Decimal) -> None:
    """The client fee of a completed swap, owed to the parent in USDC on Base (6 decimals)."""
    amount = int(usd * 10**6)
    if amount <= 0:
        return
    parent = parent_of(ctx)
    fee_id = ctx.new_id()
    fee = SwapFee(fee_id, swap_request_id, str(amount), ctx.now_ns // 1_000_000)
    ctx.tx.put(parent.swap_fees, fee_id, fee)


def unclaimed(parent: Organization) -> list[SwapFee]:
    return [f for f in parent.swap_fees.values() if f.claim_id is None]


def completed(ctx: Context, quote: SwapQuote, swap_id: str) -> None:
    """What a completed swap owes and uses: the client fee, the windows' usage."""
    accrue(ctx, swap_id, Decimal(quote.client_fee_usd))
    if quote.fee_sponsorship:
        record_usage(ctx, FEE_SPONSORSHIP, Decimal(quote.sponsored_usd))
    if quote.fixed_rate:
        record_usage(ctx, FIXED_RATE, Decimal(quote.fixed_rate_adjustment_usd))
