"""The call log: every request that reached the emulator's dispatcher, in order.

``world.calls`` (``emu.calls``) records one ``Call`` per request, whichever way
it came in (the Python facade, the WSGI app, the server, the ``requests``
interception): the operation, who called as what organization, and how it
ended (the response, or the error). It is an observation of what happened, not
part of the state: ``checkpoint``/``rollback``, ``snapshot``/``restore`` and
``reset`` leave it alone (``calls.clear()`` empties it).

Requests the wire turns away before dispatching them (an unknown path, a body
that is not JSON, an unreadable ``X-Stamp``) are not recorded. Requests and
responses of this API carry no private keys or mnemonics (the test-only
backdoor never goes through the dispatcher), so the log keeps them as they are:
the same dicts, not copies. Do not mutate them.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

DEFAULT_MAX_ENTRIES = 10_000
# The most recent calls that keep their request and response bodies; older ones keep
# the summary fields only (about 0.3 kB a call instead of several).
DEFAULT_MAX_BODIES = 1_000
_LISTED = 20  # calls an assertion message lists, the most recent ones
_RESULT, _REQUEST = 14, 15  # the places of ``Call.result`` and ``Call.request`` in a row


class Deferred:
    """A response kept as the parts it is made from, made when the call is first read:
    ``make(*parts)`` (the fused path's, ``services/fused_answer.py``). Its caller was
    answered ``make(*parts)`` too: the log reads back an equal response."""

    __slots__ = ("make", "parts")

    def __init__(self, make: Any, parts: tuple[Any, ...]) -> None:
        self.make = make
        self.parts = parts

    def __repr__(self) -> str:
        return "Deferred(...)"


def _call(row: list[Any]) -> Call:
    """The ``Call`` of a row, its response made if it was deferred."""
    result = row[_RESULT]
    if type(result) is Deferred:
        row[_RESULT] = result.make(*result.parts)
    return Call(*row)


@dataclass(frozen=True, slots=True)
class Call:
    """One request and how it ended.

    ``http_status`` is 200 or the error's status; the ``error_*`` fields and
    ``turnkey_error_code`` are set for errors only (``turnkey_error_code`` is
    ``""`` when the error has none). ``user_id`` and ``api_public_key`` name the
    caller once authenticated (``None`` when the request failed before or at
    authentication). ``activity_id`` and ``activity_status`` are those of the
    activity an activity request answered with. ``result`` is the response body
    of a success, ``request`` the parsed request body; both are ``None`` once the call is
    older than the log's last ``max_bodies`` calls.
    """

    seq: int  # 1, 2, ... since the log was made or last cleared
    time_ns: int  # on the emulator's clock, when the request reached the dispatcher
    operation: str  # as its path names it: "create_users", "whoami"
    kind: str  # "activity" | "query"
    activity_type: str | None  # the requested "type" of an activity
    organization_id: Any  # the requested "organizationId", whatever it was
    user_id: str | None
    api_public_key: str | None
    http_status: int
    error_code: int | None  # the gRPC code of an error
    error_message: str | None
    turnkey_error_code: str | None
    activity_id: str | None
    activity_status: str | None
    result: dict[str, Any] | None = field(repr=False)
    request: Any = field(repr=False)
    # Wall time the dispatcher spent on it (``time.perf_counter_ns``, not the emulator's
    # clock), where the dispatcher measured it: the engine's share of a request.
    duration_ns: int | None = None

    @property
    def ok(self) -> bool:
        """Answered with HTTP 200 (an activity may still be FAILED or PENDING)."""
        return self.http_status == 200

    @property
    def failed(self) -> bool:
        """Answered with an error (HTTP status other than 200)."""
        return self.http_status != 200

    def summary(self) -> str:
        """One line: ``#3 create_users ACTIVITY_TYPE_CREATE_USERS_V3 -> 200 ACTIVITY_STATUS_COMPLETED``."""
        name = f"#{self.seq} {self.operation}"
        if self.activity_type is not None:
            name += f" {self.activity_type}"
        if self.failed:
            return f"{name} -> {self.http_status} (code {self.error_code}: {self.error_message})"
        if self.activity_status is not None:
            return f"{name} -> 200 {self.activity_status}"
        return f"{name} -> 200"


class CallLog:
    """The last ``max_entries`` calls, oldest first; iterate it, ``len`` it, filter it.

    Footprint: at most ``max_entries`` calls, of which the last ``max_bodies`` keep their
    request and response bodies (``Call.request``, ``Call.result``); so a long-lived
    emulator keeps a bounded log whatever the number of requests.

    Filters (``filter``, ``last``, ``count``, ``assert_called``) take any of:
    ``operation`` (path name or SDK method name: ``"whoami"`` or ``"get_whoami"``),
    ``status`` (an ``int`` matches the HTTP status, a ``str`` the activity status),
    ``user_id``, ``organization_id``, ``kind`` (``"activity"``/``"query"``),
    ``activity_type``, ``failed`` (``True``: answered with an error).
    """

    def __init__(
        self, max_entries: int = DEFAULT_MAX_ENTRIES, max_bodies: int = DEFAULT_MAX_BODIES
    ) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        if max_bodies < 0:
            raise ValueError("max_bodies must be at least 0")
        self.max_entries = max_entries
        self.max_bodies = max_bodies
        # A ``Call``, or the row of one not read yet (``record``).
        self._entries: deque[Call | list[Any]] = deque(maxlen=max_entries)
        self._seq = 0
        self._lock = threading.Lock()

    # ----- recording (the dispatcher) -------------------------------------------------

    def record(
        self,
        *,
        time_ns: int,
        operation: str,
        kind: str,
        request: Any,
        caller: Any,
        response: dict[str, Any] | None = None,
        error: Any = None,
        duration_ns: int | None = None,
    ) -> None:
        """Append one call: ``response`` for a success, ``error`` (a ``TurnkeyApiError``)
        otherwise. ``caller`` is the authenticated ``services.auth.Caller`` or ``None``.

        The call is kept as a plain row of its fields and becomes a ``Call`` when it is
        first read (then stays that object): building a frozen record of 16 fields on
        every request cost a twentieth of a signature, and most calls are never read."""
        body = request if isinstance(request, dict) else None
        activity_type = activity_id = activity_status = None
        if kind == "activity" and body is not None:
            requested_type = body.get("type")
            activity_type = requested_type if isinstance(requested_type, str) else None
            if response is not None:
                activity = response.get("activity")
                if isinstance(activity, dict):
                    activity_id = activity.get("id")
                    activity_status = activity.get("status")
        if error is None:
            status, code, message, tk_code = 200, None, None, None
        else:
            status, code = error.status, error.code
            message, tk_code = error.message, error.turnkey_error_code
        self._append(
            [
                0,
                time_ns,
                operation,
                kind,
                activity_type,
                body.get("organizationId") if body is not None else None,
                caller.user.user_id if caller is not None else None,
                caller.stamp.public_key if caller is not None else None,
                status,
                code,
                message,
                tk_code,
                activity_id,
                activity_status,
                response,
                request,
                duration_ns,
            ]
        )

    def record_answered(
        self,
        time_ns: int,
        operation: str,
        activity_type: str,
        organization_id: str,
        user_id: str,
        public_key: str,
        activity_id: str,
        activity_status: str,
        response: Deferred,
        request: dict[str, Any],
        duration_ns: int,
    ) -> None:
        """``record``'s row of an activity request answered 200, from a caller that has its
        fields in hand (the fused path, ``services/fused.py``): the requested type and
        organization, the caller's user and key, the answered activity's id and status;
        the response as the parts it is made from, made when the call is first read."""
        self._append(
            [
                0,
                time_ns,
                operation,
                "activity",
                activity_type,
                organization_id,
                user_id,
                public_key,
                200,
                None,
                None,
                None,
                activity_id,
                activity_status,
                response,
                request,
                duration_ns,
            ]
        )

    def _append(self, row: list[Any]) -> None:
        """Number ``row`` (its first field) and keep it; the call ``max_bodies`` back loses its
        bodies."""
        with self._lock:
            self._seq += 1
            row[0] = self._seq
            entries = self._entries
            entries.append(row)
            aged = len(entries) - 1 - self.max_bodies  # the call that just lost its bodies
            if aged >= 0:
                old = entries[aged]
                if type(old) is list:
                    old[_RESULT] = old[_REQUEST] = None
                elif old.result is not None or old.request is not None:
                    # In place, though the record is frozen to its readers: the log owns it,
                    # and a copy per call (dataclasses.replace) cost a tenth of a signature.
                    object.__setattr__(old, "result", None)
                    object.__setattr__(old, "request", None)

    # ----- reading --------------------------------------------------------------------

    def all(self) -> list[Call]:
        """Every kept call, oldest first."""
        with self._lock:
            entries = self._entries
            calls: list[Call] = []
            made = False
            for entry in entries:
                if type(entry) is list:
                    entry, made = _call(entry), True
                calls.append(entry)  # type: ignore[arg-type]
            if made:  # each row becomes its Call once
                entries.clear()
                entries.extend(calls)
            return calls

    def __iter__(self) -> Iterator[Call]:
        return iter(self.all())

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index: int) -> Call:
        with self._lock:
            entry = self._entries[index]
            if type(entry) is list:
                entry = self._entries[index] = _call(entry)
            return entry

    def __repr__(self) -> str:
        return f"CallLog({len(self)} calls, max_entries={self.max_entries})"

    @property
    def total(self) -> int:
        """Calls recorded since the log was made or cleared, including those dropped."""
        return self._seq

    def filter(
        self,
        operation: str | None = None,
        status: int | str | None = None,
        user_id: str | None = None,
        organization_id: str | None = None,
        kind: str | None = None,
        activity_type: str | None = None,
        failed: bool | None = None,
    ) -> list[Call]:
        """The kept calls that match every given filter, oldest first."""
        name = _operation_name(operation) if operation is not None else None
        out = []
        for call in self.all():
            if name is not None and call.operation != name:
                continue
            if status is not None:
                seen = call.http_status if isinstance(status, int) else call.activity_status
                if seen != status:
                    continue
            if user_id is not None and call.user_id != user_id:
                continue
            if organization_id is not None and call.organization_id != organization_id:
                continue
            if kind is not None and call.kind != kind:
                continue
            if activity_type is not None and call.activity_type != activity_type:
                continue
            if failed is not None and call.failed != failed:
                continue
            out.append(call)
        return out

    def last(self, **filters: Any) -> Call | None:
        """The most recent matching call, or ``None``."""
        matching = self.filter(**filters)
        return matching[-1] if matching else None

    def count(self, **filters: Any) -> int:
        return len(self.filter(**filters))

    def clear(self) -> None:
        """Forget every call; numbering starts again at 1."""
        with self._lock:
            self._entries.clear()
            self._seq = 0

    # ----- assertions -----------------------------------------------------------------

    def assert_called(self, operation: str, times: int | None = None, **filters: Any) -> list[Call]:
        """Assert ``operation`` was called (``times`` times exactly, if given) with calls
        matching ``filters``; answer the matching calls. The message lists what was called."""
        matching = self.filter(operation=operation, **filters)
        if (times is None and matching) or (times is not None and len(matching) == times):
            return matching
        wanted = "at least once" if times is None else _times(times)
        condition = ", ".join(f"{key}={value!r}" for key, value in filters.items())
        condition = f" ({condition})" if condition else ""
        calls = self.all()
        listed = calls[-_LISTED:]
        lines = [
            f"expected {_operation_name(operation)}{condition} to be called {wanted}, "
            f"it was called {_times(len(matching))}; "
            + (f"{len(calls)} calls recorded" if calls else "no calls recorded")
            + (f" (the last {len(listed)}):" if len(listed) < len(calls) else ":" if calls else "")
        ]
        lines.extend(f"  {call.summary()}" for call in listed)
        raise AssertionError("\n".join(lines))


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def _operation_name(name: str) -> str:
    """The path name of an operation named by its path name or SDK method name."""
    from ..ground.operation_table import operations

    REGISTRY = operations()
    if name in REGISTRY:
        return name
    for op in REGISTRY.values():
        if op.sdk_method == name:
            return op.name
    raise ValueError(f"no operation named {name!r}")
