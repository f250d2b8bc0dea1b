"""Velocity controls at work: what an activity measures, what ``controls.<identifier>``
answers a policy, and the data points a completed activity leaves behind.

A control measures data points in groups (``groupBy``: one for the organization, one per
user who proposed the activity, one per wallet signed with) and aggregates them over a
window (``rolling``: the points less than ``duration`` seconds old on the emulator's clock;
``infinite``: all of them). ``COUNT`` counts the points, ``SUM`` adds their amounts.

* ``activityExecution``: each completed activity of the filtered types (all types when the
  filter is absent) is one point of amount 1.
* ``chainAssetTransfer``: each transfer of a listed asset in a signed transaction is one
  point, its amount in the asset's units (``services/asset_transfers.py``).

In a policy, ``controls.<identifier>`` is ``aggregate <operator> threshold`` where the
aggregate counts the activity being judged as if it completed: an ALLOW policy reading
``controls.daily`` (a ``LESS_THAN_OR_EQUAL`` control with threshold ``10``) lets through
exactly the requests that keep the window's total within 10. A point is recorded when its activity completes (at once, or when its
consensus is reached), in the same transaction as the activity itself.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..ground.controls import VelocityBucket, VelocityControl, VelocityPoint
from ..ground.models import Organization
from ..ground.numbers import integer
from ..ground.transaction import Transaction
from ..policy import Lazy, PolicyEvaluationError
from . import asset_transfers, earn_intents
from .asset_transfers import Number

NANOS_PER_SECOND = 1_000_000_000
ORGANIZATION_GROUP = "organization"

_VERSION_SUFFIX = re.compile(r"_V\d+$")

_COMPARE = {
    "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN": operator.lt,
    "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN_OR_EQUAL": operator.le,
    "VELOCITY_CONTROL_AGGREGATION_OPERATOR_EQUAL": operator.eq,
    "VELOCITY_CONTROL_AGGREGATION_OPERATOR_GREATER_THAN_OR_EQUAL": operator.ge,
    "VELOCITY_CONTROL_AGGREGATION_OPERATOR_GREATER_THAN": operator.gt,
}


def number(text: str) -> Number:
    """A stored amount or threshold ("3", "1/2", "1.5") read back exactly."""
    whole = integer(text)
    return whole if whole is not None else Fraction(text)


COUNT = "VELOCITY_CONTROL_AGGREGATION_METHOD_COUNT"


@functools.lru_cache(maxsize=512)
def family(activity_type: str) -> str:
    """``ACTIVITY_TYPE_SIGN_TRANSACTION_V2`` -> ``ACTIVITY_TYPE_SIGN_TRANSACTION``: a filter
    naming a type covers all its versions."""
    return _VERSION_SUFFIX.sub("", activity_type)


# ----- what an activity measures ------------------------------------------------------------


def measure(
    org: Organization,
    control: VelocityControl,
    activity_type: str,
    params: Mapping[str, Any],
    proposer_id: str,
) -> tuple[str, list[Number]] | None:
    """The group and the values of the points this activity adds to ``control`` (each 1 for
    ``COUNT``), or ``None`` when it adds none."""
    source = control.data_source
    if "quoteId" in params:  # a swap counts as the send it makes (services/swap_intents.py)
        from . import swap_intents

        params = swap_intents.as_send(org, params) or params
    execution = source.get("activityExecution")
    if execution is not None:
        if not _type_matches(execution.get("filter"), activity_type):
            return None
        amounts = [1]
    else:
        transfer = source["chainAssetTransfer"]
        if not _type_matches(transfer.get("filter"), activity_type):
            return None
        earn = earn_intents.deposit_transfer(org, activity_type, params)
        amounts = asset_transfers.amounts(transfer["definition"], params, earn)
        if not amounts:
            return None
    group = group_of(org, control.aggregation["groupBy"], params, proposer_id)
    if group is None:
        return None
    if control.aggregation["method"] == COUNT:
        amounts = [1] * len(amounts)
    return group, amounts


def _type_matches(filter_: Mapping[str, Any] | None, activity_type: str) -> bool:
    wanted = (filter_ or {}).get("activity")
    if not wanted:
        return True
    kind = family(activity_type)
    return any(family(w["activityType"]) == kind for w in wanted)


def group_of(
    org: Organization, group_by: Mapping[str, Any], params: Mapping[str, Any], proposer_id: str
) -> str | None:
    """The bucket an activity falls in: the organization's, its proposer's, or its wallet's
    (a private key outside any wallet is a bucket of its own; no wallet at all: none)."""
    if "user" in group_by:
        return "user:" + proposer_id
    if "wallet" in group_by:
        return _wallet_of(org, params)
    return ORGANIZATION_GROUP


def _wallet_of(org: Organization, params: Mapping[str, Any]) -> str | None:
    """The wallet (or private key) that signs: ``signWith``, a send's ``from``, or the first
    of a Solana send's ``signWiths``."""
    sign_with = params.get("signWith", params.get("from"))
    sign_withs = params.get("signWiths")
    if sign_with is None and isinstance(sign_withs, list) and sign_withs:
        sign_with = sign_withs[0]
    if isinstance(sign_with, str):
        holders = org.signers.get(sign_with)
        if holders:
            ref = holders[0]
            if ref.wallet_id is not None:
                return "wallet:" + ref.wallet_id
            return "private_key:" + str(ref.private_key_id)
    wallet_id = params.get("walletId")
    if isinstance(wallet_id, str) and wallet_id in org.wallets:
        return "wallet:" + wallet_id
    return None


# ----- the aggregate and the policy keyword ------------------------------------------------


def bucket_id(control: VelocityControl, group: str) -> str:
    return f"{control.velocity_control_id}/{group}"


def _window_ns(control: VelocityControl) -> int | None:
    rolling = control.aggregation["window"].get("rolling")
    return None if rolling is None else int(rolling["duration"]) * NANOS_PER_SECOND


def aggregate(org: Organization, control: VelocityControl, group: str, now_ns: int) -> Number:
    """The control's aggregate in ``group`` at ``now_ns``: the bucket's running total less
    the points that have left the window since it was last written (O(those points))."""
    bucket = org.velocity_buckets.get(bucket_id(control, group))
    if bucket is None:
        return 0
    total = number(bucket.total)
    window = _window_ns(control)
    if window is None:
        return total
    for point in _expired(org, bucket, window, now_ns):
        total -= number(point.amount)
    return total


def _expired(
    org: Organization, bucket: VelocityBucket, window: int, now_ns: int
) -> list[VelocityPoint]:
    """The bucket's points, oldest first, that are ``window`` or more old at ``now_ns``."""
    found = []
    points = org.velocity_points
    for sequence in range(bucket.first, bucket.next):
        point = points[f"{bucket.bucket_id}/{sequence}"]
        if now_ns - point.at < window:
            break
        found.append(point)
    return found


def holds(
    org: Organization,
    control: VelocityControl,
    activity_type: str,
    params: Mapping[str, Any],
    proposer_id: str,
    now_ns: int,
) -> bool:
    """``controls.<identifier>``: the aggregate, this activity counted in, against the
    threshold. An activity the control does not measure is judged on the recorded points
    of its group (its proposer's, its wallet's, or the organization's)."""
    measured = measure(org, control, activity_type, params, proposer_id)
    if measured is None:
        group = group_of(org, control.aggregation["groupBy"], params, proposer_id)
        total = 0 if group is None else aggregate(org, control, group, now_ns)
    else:
        group, amounts = measured
        total = aggregate(org, control, group, now_ns) + sum(amounts)
    threshold = number(control.aggregation["threshold"])
    return bool(_COMPARE[control.aggregation["operator"]](total, threshold))


def controls_keyword(
    org: Organization,
    activity_type: str,
    params: Mapping[str, Any],
    proposer_id: str,
    now_ns: int,
) -> dict[str, Lazy]:
    """The ``controls`` keyword: each control's answer, computed only when a policy reads it."""

    def answer(control: VelocityControl) -> Lazy:
        return Lazy(lambda: holds(org, control, activity_type, params, proposer_id, now_ns))

    return {c.identifier: answer(c) for c in org.velocity_controls.values()}


# ----- recording --------------------------------------------------------------------------


def record(
    tx: Transaction,
    org: Organization,
    controls: tuple[VelocityControl, ...],
    activity_type: str,
    params: Mapping[str, Any],
    proposer_id: str,
    now_ns: int,
) -> None:
    """Add the points of a completed activity to each of ``controls`` (those in force when
    it ran, still there now) that measures it: the bucket's new total, and for a rolling
    window the new point, the points that have left it dropped (O(1) amortized)."""
    for control in controls:
        if control.velocity_control_id not in org.velocity_controls:
            continue  # the activity deleted it
        try:
            measured = measure(org, control, activity_type, params, proposer_id)
        except PolicyEvaluationError:
            continue  # signed all the same (no policy read it): nothing it could measure
        if measured is None:
            continue
        group, amounts = measured
        key = bucket_id(control, group)
        old = org.velocity_buckets.get(key) or VelocityBucket(key, control.velocity_control_id, "0")
        added = sum(amounts)
        total = number(old.total) + added
        first, last = old.first, old.next
        window = _window_ns(control)
        if window is not None:
            for point in _expired(org, old, window, now_ns):
                total -= number(point.amount)
                tx.pop(org.velocity_points, point.point_id)
                first += 1
            point_id = f"{key}/{last}"
            tx.put(org.velocity_points, point_id, VelocityPoint(point_id, now_ns, _text(added)))
            last += 1
        bucket = VelocityBucket(key, control.velocity_control_id, _text(total), first, last)
        tx.put(org.velocity_buckets, key, bucket)


def forget(tx: Transaction, org: Organization, control: VelocityControl) -> None:
    """Drop a deleted control's buckets and points."""
    mine = [
        b
        for b in org.velocity_buckets.values()
        if b.velocity_control_id == (control.velocity_control_id)
    ]
    for bucket in mine:
        for sequence in range(bucket.first, bucket.next):
            tx.pop(org.velocity_points, f"{bucket.bucket_id}/{sequence}")
        tx.pop(org.velocity_buckets, bucket.bucket_id)


def _text(value: Number) -> str:
    return str(value)  # "3", "1/2": exact, and number() reads it back
