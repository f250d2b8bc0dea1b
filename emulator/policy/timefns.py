"""The time values of the policy language: ``Timestamp`` and ``CronSpan``.

``Timestamp`` is a point in time kept as integer nanoseconds since the Unix
epoch (UTC), so comparisons are exact integer comparisons and the engine can
build one from its clock without going through ``datetime``.

``CronSpan(cron, duration, tz)`` asks whether ``time.now`` lies inside any
window ``[fire, fire + duration)``, where the fires are the instants at which
the 5-field cron schedule ticks on the wall clock of ``tz``.  The duration is
elapsed time, so on daylight-saving nights a window keeps its length and its
local end time moves.  Two choices the docs leave open, made here on purpose:
a fire whose wall time does not exist (skipped by spring-forward) does not
happen, and a wall time that occurs twice (fall-back) fires once, at its first
occurrence.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from emulator.policy.errors import PolicyEvaluationError

NANOS_PER_SECOND = 1_000_000_000
NANOS_PER_MINUTE = 60 * NANOS_PER_SECOND
NANOS_PER_DAY = 86_400 * NANOS_PER_SECOND
MAX_SPAN_NANOS = 7 * NANOS_PER_DAY
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})",
    re.ASCII,
)
_ZERO_OFFSETS = frozenset({"Z", "z", "+00:00", "-00:00"})


class Timestamp:
    """An instant, as nanoseconds since 1970-01-01T00:00:00Z.

    Immutable and hashable; ordered against other timestamps only, because the
    policy language compares timestamps with timestamps and nothing else.
    """

    __slots__ = ("ns",)
    ns: int

    def __init__(self, ns: int) -> None:
        object.__setattr__(self, "ns", int(ns))

    @classmethod
    def from_ns(cls, ns: int) -> Timestamp:
        """The engine's constructor: its clock already counts nanoseconds."""
        return cls(ns)

    @classmethod
    def from_datetime(cls, moment: datetime) -> Timestamp:
        """From an aware ``datetime`` (any zone); naive ones are refused."""
        if moment.tzinfo is None or moment.utcoffset() is None:
            raise ValueError("Timestamp.from_datetime needs an aware datetime")
        delta = moment - _EPOCH
        whole = (delta.days * 86_400 + delta.seconds) * NANOS_PER_SECOND
        return cls(whole + delta.microseconds * 1_000)

    @classmethod
    def parse(cls, text: str) -> Timestamp:
        """Parse RFC 3339 with a zero UTC offset, as ``Timestamp('...')`` does.

        Raises ``PolicyEvaluationError`` (``InvalidArgument``) otherwise: the
        literal sits inside an expression that parsed, so a bad one is found
        when the expression runs.
        """
        match = _RFC3339.fullmatch(text)
        if match is None:
            raise PolicyEvaluationError(
                f"InvalidArgument: Timestamp({text!r}) is not an RFC 3339 timestamp"
            )
        year, month, day, hour, minute, second, fraction, offset = match.groups()
        if offset not in _ZERO_OFFSETS:
            raise PolicyEvaluationError(
                f"InvalidArgument: Timestamp({text!r}) must have a zero UTC offset"
            )
        try:
            moment = datetime(
                int(year), int(month), int(day), int(hour), int(minute), int(second),
                tzinfo=timezone.utc,
            )  # fmt: skip
        except ValueError:
            raise PolicyEvaluationError(
                f"InvalidArgument: Timestamp({text!r}) is not a valid date and time"
            ) from None
        nanos = int(fraction[:9].ljust(9, "0")) if fraction else 0
        return cls(cls.from_datetime(moment).ns + nanos)

    def to_datetime(self) -> datetime:
        """As an aware UTC ``datetime`` (microsecond precision)."""
        return _EPOCH + timedelta(microseconds=self.ns // 1_000)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Timestamp is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is Timestamp:
            return self.ns == other.ns
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        if type(other) is Timestamp:
            return self.ns != other.ns
        return NotImplemented

    def __lt__(self, other: Timestamp) -> bool:
        if type(other) is Timestamp:
            return self.ns < other.ns
        return NotImplemented

    def __le__(self, other: Timestamp) -> bool:
        if type(other) is Timestamp:
            return self.ns <= other.ns
        return NotImplemented

    def __gt__(self, other: Timestamp) -> bool:
        if type(other) is Timestamp:
            return self.ns > other.ns
        return NotImplemented

    def __ge__(self, other: Timestamp) -> bool:
        if type(other) is Timestamp:
            return self.ns >= other.ns
        return NotImplemented

    def __hash__(self) -> int:
        return hash((Timestamp, self.ns))

    def __reduce__(self) -> tuple[type[Timestamp], tuple[int]]:
        return (Timestamp, (self.ns,))

    def __str__(self) -> str:
        seconds, nanos = divmod(self.ns, NANOS_PER_SECOND)
        text = (_EPOCH + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S")
        if nanos:
            text += "." + f"{nanos:09d}".rstrip("0")
        return text + "Z"

    def __repr__(self) -> str:
        return f"Timestamp('{self}')"


# --- CronSpan -----------------------------------------------------------------

# (name, lowest, highest) for minute, hour, day-of-month, month, day-of-week.
_CRON_FIELDS = (
    ("minute", 0, 59),
    ("hour", 0, 23),
    ("day-of-month", 1, 31),
    ("month", 1, 12),
    ("day-of-week", 0, 6),
)
_CRON_ITEM = re.compile(r"(\d+)(?:-(\d+))?", re.ASCII)
_DURATION = re.compile(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?", re.ASCII)


def _cron_field(text: str, name: str, low: int, high: int) -> frozenset[int]:
    """One cron field: ``*``, a number, a range ``a-b``, or a comma list of those."""
    if text == "*":
        return frozenset(range(low, high + 1))
    values: set[int] = set()
    for item in text.split(","):
        match = _CRON_ITEM.fullmatch(item)
        if match is None:
            raise ValueError(f"unsupported {name} field {text!r}")
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) is not None else first
        if first > last:
            raise ValueError(f"{name} field {text!r} has a backwards range")
        if not (low <= first and last <= high):
            raise ValueError(f"{name} field {text!r} is outside {low}-{high}")
        values.update(range(first, last + 1))
    return frozenset(values)


def _parse_duration(text: str) -> int:
    """A whole-number ``d``/``h``/``m`` duration, in nanoseconds."""
    match = _DURATION.fullmatch(text)
    if not text or match is None:
        raise ValueError(f"duration {text!r} is not like 8h, 90m or 1d12h")
    days, hours, minutes = (int(group) if group else 0 for group in match.groups())
    total = ((days * 24 + hours) * 60 + minutes) * NANOS_PER_MINUTE
    if not 0 < total <= MAX_SPAN_NANOS:
        raise ValueError(f"duration {text!r} must be more than zero and at most 7d")
    return total


class CronSchedule:
    """A parsed ``CronSpan``: the cron fields, the window length and the zone."""

    __slots__ = (
        "days_of_month",
        "days_of_week",
        "duration_ns",
        "hours_descending",
        "last_answer",
        "minutes_descending",
        "months",
        "restrict_both_days",
        "restrict_day_of_month",
        "zone",
    )

    def __init__(self, cron: str, duration: str, zone_name: str) -> None:
        parts = cron.split()
        if len(parts) != 5:
            raise ValueError(f"cron {cron!r} must have 5 fields, it has {len(parts)}")
        minutes, hours, days, months, weekdays = (
            _cron_field(part, *spec) for part, spec in zip(parts, _CRON_FIELDS, strict=True)
        )
        self.minutes_descending = sorted(minutes, reverse=True)
        self.hours_descending = sorted(hours, reverse=True)
        self.days_of_month = days
        self.months = months
        self.days_of_week = weekdays
        # Classic cron: day-of-month and day-of-week are OR'd only when both
        # are restricted; a `*` in one leaves the other alone in charge.
        self.restrict_both_days = parts[2] != "*" and parts[4] != "*"
        self.restrict_day_of_month = parts[2] != "*"
        self.duration_ns = _parse_duration(duration)
        # One request evaluates many policies at one `time.now`; remember the
        # last answer (as one tuple, so concurrent readers see a whole pair).
        self.last_answer: tuple[int, bool] = (-1, False)
        try:
            self.zone = ZoneInfo(zone_name)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {zone_name!r}") from None

    def fires_on(self, day: date) -> bool:
        if day.month not in self.months:
            return False
        weekday = (day.weekday() + 1) % 7  # cron counts from Sunday = 0
        if self.restrict_both_days:
            return day.day in self.days_of_month or weekday in self.days_of_week
        if self.restrict_day_of_month:
            return day.day in self.days_of_month
        return weekday in self.days_of_week

    def _fire_ns(self, day: date, hour: int, minute: int) -> int | None:
        """The instant of a wall-clock fire, or None when that wall time does not exist."""
        local = datetime(day.year, day.month, day.day, hour, minute, tzinfo=self.zone)
        utc = local.astimezone(timezone.utc)
        back = utc.astimezone(self.zone)
        if (back.date(), back.hour, back.minute) != (day, hour, minute):
            return None  # inside a spring-forward gap
        delta = utc - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * NANOS_PER_SECOND

    def latest_fire_at_or_before(self, now_ns: int) -> int | None:
        """The last fire instant <= now within the reach of one window, if any.

        Windows all have the same length, so ``now`` is inside some window
        exactly when it is inside the window of the latest fire before it.
        Wall time maps to instants monotonically (first occurrence for repeated
        times), so scanning wall times downwards finds that fire first.
        """
        seconds = now_ns // NANOS_PER_SECOND
        today = datetime.fromtimestamp(seconds, self.zone).date()
        lowest_minute = self.minutes_descending[-1]
        for back in range(self.duration_ns // NANOS_PER_DAY + 2):
            day = today - timedelta(days=back)
            if not self.fires_on(day):
                continue
            for hour in self.hours_descending:
                earliest = self._fire_ns(day, hour, lowest_minute)
                if earliest is not None and earliest > now_ns:
                    continue  # the whole hour is still ahead of now
                for minute in self.minutes_descending:
                    fire = self._fire_ns(day, hour, minute)
                    if fire is not None and fire <= now_ns:
                        return fire
        return None

    def contains(self, now_ns: int) -> bool:
        """Whether ``now`` lies in ``[fire, fire + duration)`` for some fire."""
        last_now, last_inside = self.last_answer
        if last_now == now_ns:
            return last_inside
        try:
            fire = self.latest_fire_at_or_before(now_ns)
        except (OverflowError, OSError, ValueError):
            raise PolicyEvaluationError("InvalidArgument: time.now is out of range") from None
        inside = fire is not None and now_ns < fire + self.duration_ns
        self.last_answer = (now_ns, inside)
        return inside


@lru_cache(maxsize=1024)
def _schedule(cron: str, duration: str, zone_name: str) -> CronSchedule:
    try:
        return CronSchedule(cron, duration, zone_name)
    except ValueError as exc:
        raise PolicyEvaluationError(f"InvalidArgument: CronSpan: {exc}") from None


def cron_schedule(cron: object, duration: object, zone_name: object) -> CronSchedule:
    """The parsed schedule for ``CronSpan`` arguments (cached; errors are evaluation errors)."""
    if type(cron) is not str or type(duration) is not str or type(zone_name) is not str:
        raise PolicyEvaluationError("TypeError: CronSpan expects three strings")
    return _schedule(cron, duration, zone_name)
