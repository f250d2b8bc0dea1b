"""The emulator's clock: wall time by default, frozen or moved on demand.

Everything that depends on time (timestamps, API key expiry, liveness of
``timestampMs``) reads this clock, never ``time.time`` directly.
"""

from __future__ import annotations

import time
from collections.abc import Callable

NANOS_PER_SECOND = 1_000_000_000
NANOS_PER_MILLI = 1_000_000


class Clock:
    """A clock in nanoseconds since the epoch that tests can freeze and advance."""

    __slots__ = ("_frozen_ns", "_offset_ns", "listener")

    def __init__(self) -> None:
        self._offset_ns = 0
        self._frozen_ns: int | None = None
        # Told when a test moves the clock (freeze, unfreeze, advance): the webhook
        # deliveries whose retries fall due on it (``webhooks/deliveries.py``).
        self.listener: Callable[[], None] | None = None

    def now_ns(self) -> int:
        """The current time in nanoseconds since the epoch."""
        if self._frozen_ns is not None:
            return self._frozen_ns
        return time.time_ns() + self._offset_ns

    def now_ms(self) -> int:
        """The current time in milliseconds since the epoch."""
        return self.now_ns() // NANOS_PER_MILLI

    @property
    def frozen(self) -> bool:
        return self._frozen_ns is not None

    def freeze(self, at_ms: int | None = None) -> None:
        """Stop the clock, at ``at_ms`` (milliseconds since the epoch) or now."""
        self._frozen_ns = self.now_ns() if at_ms is None else at_ms * NANOS_PER_MILLI
        self._moved()

    def unfreeze(self) -> None:
        """Let the clock run again from where it stands."""
        if self._frozen_ns is not None:
            self._offset_ns = self._frozen_ns - time.time_ns()
            self._frozen_ns = None
        self._moved()

    def advance(self, seconds: float) -> None:
        """Move the clock forward (or back, with a negative value)."""
        delta = int(seconds * NANOS_PER_SECOND)
        if self._frozen_ns is not None:
            self._frozen_ns += delta
        else:
            self._offset_ns += delta
        self._moved()

    def _moved(self) -> None:
        if self.listener is not None:
            self.listener()

    def getstate(self) -> tuple[int, int | None]:
        return (self._offset_ns, self._frozen_ns)

    def setstate(self, state: tuple[int, int | None]) -> None:
        self._offset_ns, self._frozen_ns = state

    def __repr__(self) -> str:
        state = "frozen" if self.frozen else "running"
        return f"Clock({state}, now_ms={self.now_ms()})"
