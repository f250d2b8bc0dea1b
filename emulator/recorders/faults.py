"""Fault injection: make matching requests fail, to test a client's error paths.

``world.faults`` (``emu.faults``) holds rules; the dispatcher asks them about
every request that is about to run its handler, that is after every check of
the real service passed (organization, stamp, for an activity its fingerprint,
type, ``timestampMs``, parameters and permission; for a query its body). A
fault therefore looks like the service failing on a valid request, and a
request that fails a check gets its real error without consuming a rule. An
identical activity body sent again is the same activity (a fingerprint hit)
and is answered with the recorded activity, also without consuming a rule.

A rule answers in one of two ways:

* an HTTP error (``TurnkeyApiError``; by default 500, code 13, "internal server
  error"), raised before the handler runs, so nothing changes;
* for activities, ``activity_status``: the activity is recorded (id,
  fingerprint, the proposer's vote, timestamps, the intent) with that status
  and no result, and answered with HTTP 200; the handler does not run.
  ``ACTIVITY_STATUS_FAILED`` carries ``failure = {code, message, details}`` (a
  ``google.rpc.Status``, built from the error options); ``CONSENSUS_NEEDED`` and
  ``PENDING`` stay so (``get_activity`` answers them as recorded).

Rules are tried in the order they were added; the first that fires answers. A
``fail_next`` rule is used up by the requests it matches; a ``fail_randomly``
rule fires on each matching request with its probability, drawn from its own
``random.Random`` (the same seed, the same pattern). Like the call log, the
rules are not part of the state that checkpoints and snapshots restore.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, NoReturn

from ..ground.error_codes import SERVICE_STATES
from ..ground.errors import HTTP_STATUS, INTERNAL, UNKNOWN, TurnkeyApiError

FAILED = "ACTIVITY_STATUS_FAILED"
CONSENSUS_NEEDED = "ACTIVITY_STATUS_CONSENSUS_NEEDED"
PENDING = "ACTIVITY_STATUS_PENDING"
ACTIVITY_STATUSES = (FAILED, CONSENSUS_NEEDED, PENDING)

DEFAULT_MESSAGE = "internal server error"

# HTTP status -> the gRPC code the gateway maps to it (the documented codes first).
GRPC_CODE_OF_STATUS: dict[int, int] = {400: 3, 401: 16, 403: 7, 404: 5, 429: 8, 500: INTERNAL}
for _code, _status in HTTP_STATUS.items():
    GRPC_CODE_OF_STATUS.setdefault(_status, _code)


class InjectedError(TurnkeyApiError):
    """A ``TurnkeyApiError`` made by a fault rule; its HTTP status is the one configured
    (any 4xx or 5xx, even one the gateway does not map a gRPC code to)."""

    def __init__(
        self, status: int, code: int, message: str, *, turnkey_error_code: str = ""
    ) -> None:
        super().__init__(code, message, turnkey_error_code=turnkey_error_code)
        self._status = status

    @property
    def status(self) -> int:
        return self._status


@dataclass(frozen=True)
class Fault:
    """An active rule: what it matches and how it answers.

    ``error`` is the HTTP error it raises, or for a FAILED activity the source of
    its ``failure``; ``None`` for CONSENSUS_NEEDED and PENDING. ``remaining`` is
    how many more requests a ``fail_next`` rule fails (``None`` for a random
    rule), ``probability`` that of a random rule (``None`` for ``fail_next``).
    """

    operation: str | None
    organization_id: str | None
    error: TurnkeyApiError | None
    activity_status: str | None
    remaining: int | None
    probability: float | None
    seed: int | None = None

    def raise_error(self) -> NoReturn:
        """Raise a fresh copy of ``error`` (each request gets its own exception)."""
        assert self.error is not None
        raise _copy(self.error)

    def failure(self) -> dict[str, Any]:
        """The ``failure`` of a FAILED activity: a ``google.rpc.Status``."""
        error = self.error or _default_error()
        return {"code": error.code, "message": error.message, "details": list(error.details)}


class _Rule:
    __slots__ = ("fault", "remaining", "rng")

    def __init__(self, fault: Fault, remaining: int | None, rng: random.Random | None) -> None:
        self.fault = fault
        self.remaining = remaining
        self.rng = rng


class Faults:
    """The fault rules of one world (see the module's docstring)."""

    def __init__(self) -> None:
        self._rules: list[_Rule] = []
        self._lock = threading.Lock()

    def fail_next(
        self,
        operation: str | None = None,
        count: int = 1,
        *,
        error: TurnkeyApiError | None = None,
        status: int | None = None,
        code: int | None = None,
        message: str | None = None,
        turnkey_error_code: str = "",
        activity_status: str | None = None,
        organization_id: str | None = None,
    ) -> Fault:
        """Fail the next ``count`` requests to ``operation`` (any when ``None``; path name
        or SDK method name) in ``organization_id`` (any when ``None``).

        The answer is ``error``, or an error built from ``status`` (HTTP) and ``code``
        (gRPC), each derived from the other when only one is given, ``message`` and
        ``turnkey_error_code``; by default 500, code 13, "internal server error" (a code of
        ``error_codes.SERVICE_STATES`` alone brings its documented status and text). With
        ``activity_status`` (``ACTIVITY_STATUS_FAILED``, ``_CONSENSUS_NEEDED`` or
        ``_PENDING``) an activity is recorded with that status instead; a rule with an
        activity status and no operation matches activities only.
        """
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ValueError("count must be a positive integer")
        fault = _fault(
            operation,
            organization_id,
            error,
            status,
            code,
            message,
            turnkey_error_code,
            activity_status,
            remaining=count,
        )
        return self._add(_Rule(fault, count, None))

    def fail_randomly(
        self,
        probability: float,
        *,
        seed: int | None = None,
        operation: str | None = None,
        error: TurnkeyApiError | None = None,
        status: int | None = None,
        code: int | None = None,
        message: str | None = None,
        turnkey_error_code: str = "",
        activity_status: str | None = None,
        organization_id: str | None = None,
    ) -> Fault:
        """Fail each matching request with ``probability`` (0 to 1), drawn from a
        ``random.Random(seed)`` of this rule's own; the other options as ``fail_next``."""
        if isinstance(probability, bool) or not 0.0 <= probability <= 1.0:
            raise ValueError("probability must be between 0 and 1")
        fault = _fault(
            operation,
            organization_id,
            error,
            status,
            code,
            message,
            turnkey_error_code,
            activity_status,
            remaining=None,
            probability=float(probability),
            seed=seed,
        )
        return self._add(_Rule(fault, None, random.Random(seed)))

    def pending(self) -> list[Fault]:
        """The active rules, in the order they are tried (``remaining`` as it stands)."""
        with self._lock:
            return [_snapshot(rule) for rule in self._rules]

    def clear(self) -> None:
        """Remove every rule."""
        with self._lock:
            self._rules.clear()

    def __len__(self) -> int:
        return len(self._rules)

    def __repr__(self) -> str:
        return f"Faults({len(self._rules)} rules)"

    # ----- the dispatcher ---------------------------------------------------------------

    def take(self, operation: str, kind: str, organization_id: str) -> Fault | None:
        """The fault that answers this request, if any (using up a ``fail_next`` rule)."""
        if not self._rules:
            return None
        with self._lock:
            for rule in self._rules:
                fault = rule.fault
                if fault.operation is not None and fault.operation != operation:
                    continue
                if fault.organization_id is not None and fault.organization_id != organization_id:
                    continue
                if fault.activity_status is not None and kind != "activity":
                    continue
                if rule.rng is not None:
                    if rule.rng.random() < (fault.probability or 0.0):
                        return fault
                    continue
                rule.remaining -= 1
                if rule.remaining <= 0:
                    self._rules.remove(rule)
                return fault
        return None

    def _add(self, rule: _Rule) -> Fault:
        with self._lock:
            self._rules.append(rule)
        return rule.fault


def _fault(
    operation: str | None,
    organization_id: str | None,
    error: TurnkeyApiError | None,
    status: int | None,
    code: int | None,
    message: str | None,
    turnkey_error_code: str,
    activity_status: str | None,
    *,
    remaining: int | None,
    probability: float | None = None,
    seed: int | None = None,
) -> Fault:
    name, kind = _operation(operation) if operation is not None else (None, None)
    custom = status is not None or code is not None or message is not None or turnkey_error_code
    if error is not None and custom:
        raise ValueError("give error= or status/code/message/turnkey_error_code, not both")
    if error is not None and not isinstance(error, TurnkeyApiError):
        raise TypeError("error must be a TurnkeyApiError")
    if activity_status is not None:
        if activity_status not in ACTIVITY_STATUSES:
            raise ValueError(f"activity_status must be one of {', '.join(ACTIVITY_STATUSES)}")
        if kind is not None and kind != "activity":
            raise ValueError(f"{name} is a query: only activities can end {activity_status}")
        if activity_status != FAILED and (error is not None or custom):
            raise ValueError(f"an {activity_status} activity carries no error")
    if error is None and activity_status in (None, FAILED):
        error = _built_error(status, code, message, turnkey_error_code)
    return Fault(name, organization_id, error, activity_status, remaining, probability, seed)


def _built_error(
    status: int | None, code: int | None, message: str | None, turnkey_error_code: str
) -> TurnkeyApiError:
    state = SERVICE_STATES.get(turnkey_error_code)
    if status is None and code is None and state is not None:
        code, message = state[0], message if message is not None else state[1]
        status = HTTP_STATUS[code]
    if status is None and code is None:
        status, code = 500, INTERNAL
    elif code is None:
        code = GRPC_CODE_OF_STATUS.get(status, UNKNOWN)  # type: ignore[arg-type]
    elif status is None:
        status = HTTP_STATUS.get(code, 500)
    if not isinstance(status, int) or not 400 <= status <= 599:
        raise ValueError("status must be an HTTP error status (400 to 599)")
    if not isinstance(code, int) or not 1 <= code <= 16:
        raise ValueError("code must be a gRPC error code (1 to 16)")
    if message is None:
        message = DEFAULT_MESSAGE if status == 500 else _phrase(status)
    return InjectedError(status, code, message, turnkey_error_code=turnkey_error_code)


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase.lower()
    except ValueError:
        return f"error {status}"


def _default_error() -> TurnkeyApiError:
    return InjectedError(500, INTERNAL, DEFAULT_MESSAGE)


def _copy(error: TurnkeyApiError) -> TurnkeyApiError:
    clone = type(error).__new__(type(error))
    clone.__dict__.update(vars(error))
    clone.details = [dict(detail) for detail in error.details]
    clone.args = error.args
    return clone


def _snapshot(rule: _Rule) -> Fault:
    f = rule.fault
    return Fault(
        f.operation,
        f.organization_id,
        f.error,
        f.activity_status,
        rule.remaining,
        f.probability,
        f.seed,
    )


def _operation(name: str) -> tuple[str, str]:
    """``(path name, kind)`` of an operation named by its path name or SDK method name."""
    from ..ground.operation_table import operations

    REGISTRY = operations()
    op = REGISTRY.get(name)
    if op is None:
        op = next((o for o in REGISTRY.values() if o.sdk_method == name), None)
    if op is None:
        raise ValueError(f"no operation named {name!r}")
    return op.name, op.kind
