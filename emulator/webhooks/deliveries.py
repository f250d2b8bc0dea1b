"""Webhook deliveries: sent off the request path, retried on the emulator's clock, recorded.

A committed event becomes one ``Delivery`` per subscribed endpoint (``enqueue``, called
under the world's lock: it only appends). Attempts happen elsewhere, never under the
world's lock and never inside a request: by a background thread (the default), or, with
``synchronous`` on (``Settings.webhook_synchronous``), in the thread whose request caused
the event, once that request has let go of the world (and in the thread that moves the
clock, for retries that fall due). An activity never waits for, or fails because of, a
receiver.

Each attempt is signed afresh (``signing.py``) at the clock's time; the outcome follows the
docs: ``2xx`` delivered; ``3xx``, ``4xx`` and ``429`` terminal failures (redirects are not
followed); network errors, timeouts and ``5xx`` retried after each of
``Settings.webhook_retry_delays_s`` in turn, on the emulator's clock (a frozen clock
retries when it is advanced past the delay). ``X-Turnkey-Event-Id`` stays the same.

Where a delivery goes: a URL routed with ``route(url, target)`` goes to the target, an
in-process callable or another (local) URL; an unrouted loopback URL is POSTed to (urllib,
over the loopback interface); any other URL is not contacted (the emulator reaches no host
outside this machine) and its delivery fails at once, saying so.

Like the call log and the outbox, deliveries are observations, not state: checkpoints,
snapshots and saved documents leave them alone; ``reset`` and ``clear`` forget them.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from .records import (
    DELIVERED,
    FAILED,
    PENDING,
    Attempt,
    Delivery,
    Payload,
    Receiver,
    WebhookRequest,
)
from .signing import webhook_signer
from .transport import call_receiver, post
from .urls import is_loopback_host

if TYPE_CHECKING:
    from ..crypto.enclave import EnclaveKeys
    from ..ground.clock import Clock

__all__ = ["Attempt", "Delivery", "Payload", "WebhookRequest", "Webhooks", "deliver_synchronously"]

Json = dict[str, Any]
MAX_RECORDED = 10_000


class DeliverySettings(Protocol):
    """The settings deliveries read (``Settings`` of ``world.py`` has them)."""

    webhook_synchronous: bool
    webhook_timeout_s: float
    webhook_retry_delays_s: tuple[float, ...]


class DeliveryWorld(Protocol):
    """What deliveries need of the world that holds them (``World`` is one; the world
    holds its deliveries, so they name it through this rather than by import)."""

    @property
    def settings(self) -> DeliverySettings: ...
    @property
    def enclave(self) -> EnclaveKeys: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def lock(self) -> Any: ...
    @property
    def webhooks(self) -> Webhooks: ...


class Webhooks:
    """The deliveries of one world (``emu.webhooks``): route receivers, read what was sent."""

    def __init__(self) -> None:
        self._world: DeliveryWorld | None = None
        self._lock = threading.Condition(threading.Lock())
        self._records: deque[Delivery] = deque(maxlen=MAX_RECORDED)
        self._generation = 0
        self._queue: list[Delivery] = []
        self._in_flight = 0
        self._seq = 0
        self._routes: dict[str, Receiver | str] = {}
        self._thread: threading.Thread | None = None
        self._closed = False

    def bind(self, world: DeliveryWorld) -> None:
        self._world = world

    # ----- configuration -------------------------------------------------------------

    @property
    def synchronous(self) -> bool:
        """Deliver in the thread whose request caused the event (deterministic tests)."""
        return self._require_world().settings.webhook_synchronous

    @synchronous.setter
    def synchronous(self, value: bool) -> None:
        self._require_world().settings.webhook_synchronous = bool(value)

    def route(self, url: str, target: Receiver | str) -> None:
        """Send what is delivered to ``url`` to ``target`` instead: a callable taking a
        ``WebhookRequest`` (answering a status, ``(status, body)``, or ``None`` for 200), or
        a local URL. The endpoint keeps its own URL, as the application configured it."""
        if not (callable(target) or isinstance(target, str)):
            raise TypeError("target must be a callable or a URL")
        with self._lock:
            self._routes[url] = target

    def unroute(self, url: str) -> None:
        with self._lock:
            self._routes.pop(url, None)

    def unroute_all(self) -> None:
        with self._lock:
            self._routes.clear()

    def jwks(self) -> Json:
        """The signing key as the discovery endpoint publishes it."""
        return webhook_signer(self._require_world().enclave).jwks()

    @property
    def verification_key(self) -> dict[str, str]:
        """``{keyId, publicKey, algorithm}``: the shape ``verifyTurnkeyWebhookSignature`` takes."""
        signer = webhook_signer(self._require_world().enclave)
        return {"keyId": signer.key_id, "publicKey": signer.public_key, "algorithm": "ed25519"}

    # ----- the engine's side ----------------------------------------------------------

    def enqueue(
        self,
        event_type: str,
        payload: Payload,
        now_ns: int,
        targets: list[tuple[str, str, str, str | Callable[[], str]]],
        due_ns: int | None = None,
    ) -> None:
        """One event's deliveries, due now (or at ``due_ns`` on the emulator's clock), one per
        ``(endpoint id, its organization id, url, event id or how to make it)`` (called under
        the world's lock: it only appends)."""
        with self._lock:
            for endpoint_id, organization_id, url, event_key in targets:
                self._seq += 1
                delivery = Delivery(
                    f"delivery-{self._seq}",
                    event_key,
                    event_type,
                    endpoint_id,
                    organization_id,
                    url,
                    payload,
                    now_ns // 1_000_000,
                    self._generation,
                    PENDING,
                    [],
                    now_ns if due_ns is None else max(now_ns, due_ns),
                )
                self._records.append(delivery)
                self._queue.append(delivery)
            if not self._require_world().settings.webhook_synchronous:
                self._ensure_thread()
                self._lock.notify()

    def has_due_work(self) -> bool:
        """Whether a synchronous run has anything queued (cheap; read without the lock)."""
        return bool(self._queue) and self.synchronous

    def clock_moved(self) -> None:
        """The clock was moved: retries may be due."""
        if not self._queue:
            return
        if self.synchronous:
            if not _owned(self._require_world().lock):  # else the lock's holder delivers
                self.run_due()
        else:
            with self._lock:
                self._lock.notify_all()

    def run_due(self) -> int:
        """Make every attempt due now on the clock, in this thread; how many were made."""
        made = 0
        while True:
            delivery = self._take_due()
            if delivery is None:
                return made
            self._attempt(delivery)
            made += 1

    def wait(self, timeout: float = 10.0) -> bool:
        """Wait (real seconds) until no attempt is due or in flight; in synchronous mode run
        them here. False if the time ran out first. Retries set for later on a frozen clock
        are not waited for: advance the clock."""
        if self.synchronous:
            self.run_due()
            return True
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._in_flight or self._due_locked(self._now_ns()) is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.notify_all()
                self._lock.wait(min(left, 0.05))
        return True

    # ----- reading --------------------------------------------------------------------

    @property
    def deliveries(self) -> list[Delivery]:
        """Every delivery, oldest first (a copy of the list)."""
        with self._lock:
            return list(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.deliveries)

    def find(
        self,
        endpoint_id: str | None = None,
        event_type: str | None = None,
        state: str | None = None,
        organization_id: str | None = None,
        url: str | None = None,
    ) -> list[Delivery]:
        return [
            d
            for d in self.deliveries
            if (endpoint_id is None or d.endpoint_id == endpoint_id)
            and (event_type is None or d.event_type == event_type)
            and (state is None or d.state == state)
            and (organization_id is None or d.organization_id == organization_id)
            and (url is None or d.url == url)
        ]

    def last(self, **filters: Any) -> Delivery | None:
        found = self.find(**filters)
        return found[-1] if found else None

    def to_json(self, **filters: Any) -> Json:
        return {"deliveries": [d.to_json() for d in self.find(**filters)]}

    def clear(self) -> None:
        """Forget every delivery, pending ones included (routes stay)."""
        with self._lock:
            self._records.clear()
            self._generation += 1
            self._queue = []
            self._seq = 0
            self._lock.notify_all()

    def close(self) -> None:
        """Stop the background thread (pending deliveries are dropped); idempotent."""
        with self._lock:
            self._closed = True
            self._queue = []
            thread, self._thread = self._thread, None
            self._lock.notify_all()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    def __repr__(self) -> str:
        return f"Webhooks({len(self)} deliveries, {len(self._queue)} pending)"

    # ----- internals ------------------------------------------------------------------

    def _require_world(self) -> DeliveryWorld:
        if self._world is None:
            raise RuntimeError("these webhooks belong to no world")
        return self._world

    def _now_ns(self) -> int:
        return self._require_world().clock.now_ns()

    def _due_locked(self, now_ns: int) -> Delivery | None:
        for delivery in self._queue:
            if delivery.due_ns is not None and delivery.due_ns <= now_ns:
                return delivery
        return None

    def _take_due(self) -> Delivery | None:
        with self._lock:
            delivery = self._due_locked(self._now_ns())
            if delivery is not None:
                self._queue.remove(delivery)
                self._in_flight += 1
            return delivery

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._closed = False
            self._thread = threading.Thread(
                target=self._run, name="turnkey-emulator-webhooks", daemon=True
            )
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                if self._closed or self._thread is not threading.current_thread():
                    return
                if not self._queue and not self._in_flight:  # idle: end, restart when needed
                    self._lock.wait(1.0)
                    if not self._queue and self._thread is threading.current_thread():
                        self._thread = None
                        return
                    continue
                if self.synchronous or self._due_locked(self._now_ns()) is None:
                    self._lock.wait(self._sleep_s())
                    continue
            self.run_due()

    def _sleep_s(self) -> float:
        """Until the next retry falls due on a running clock (a frozen one is woken by
        ``clock_moved``); at most a second."""
        world = self._require_world()
        pending = [d.due_ns for d in self._queue if d.due_ns is not None]
        if not pending or world.clock.frozen:
            return 1.0
        return max(0.001, min(1.0, (min(pending) - world.clock.now_ns()) / 1e9))

    def _attempt(self, delivery: Delivery) -> None:
        world = self._require_world()
        try:
            now_ns = world.clock.now_ns()
            headers = webhook_signer(world.enclave).headers(
                organization_id=delivery.organization_id,
                event_type=delivery.event_type,
                event_id=delivery.event_id,
                timestamp_ms=now_ns // 1_000_000,
                body=delivery.body,
            )
            attempt = Attempt(len(delivery.attempts) + 1, now_ns // 1_000_000, headers)
            try:
                self._send(delivery.url, attempt, delivery.body, world.settings.webhook_timeout_s)
            except Exception as error:  # a URL urllib cannot send to, say: final, and said
                attempt.error = f"not sent: {type(error).__name__}: {error}"
                attempt.retryable = False
            delays = world.settings.webhook_retry_delays_s
            with self._lock:
                delivery.attempts.append(attempt)
                if attempt.status is not None and 200 <= attempt.status < 300:
                    delivery.state, delivery.due_ns = DELIVERED, None
                elif attempt.retryable and len(delivery.attempts) <= len(delays):
                    delay_ns = int(delays[len(delivery.attempts) - 1] * 1e9)
                    delivery.due_ns = now_ns + delay_ns
                    if not self._closed and delivery.generation == self._generation:
                        self._queue.append(delivery)
                else:
                    delivery.state, delivery.due_ns = FAILED, None
        finally:
            with self._lock:
                self._in_flight -= 1
                self._lock.notify_all()

    def _send(self, url: str, attempt: Attempt, body: bytes, timeout_s: float) -> None:
        """Fill ``attempt`` with the receiver's answer (or the error)."""
        with self._lock:
            target = self._routes.get(url, url)
        if callable(target):
            call_receiver(target, url, attempt, body)
            return
        host = urlsplit(target).hostname or ""
        if not is_loopback_host(host):
            attempt.error = (
                f"not sent: the emulator reaches no host outside this machine ({host}); "
                "route the URL to a receiver with emu.webhooks.route(url, target)"
            )
            return
        post(target, attempt, body, timeout_s)


def deliver_synchronously(world: DeliveryWorld) -> None:
    """Make the due attempts of a synchronous world in this thread, unless this thread still
    holds the world's lock (then its outermost caller does it, once it lets go)."""
    webhooks = world.webhooks
    if webhooks.has_due_work() and not _owned(world.lock):
        webhooks.run_due()


def _owned(lock: Any) -> bool:
    is_owned = getattr(lock, "_is_owned", None)
    return bool(is_owned()) if is_owned is not None else False
