"""The facade's timestamps: each call of an activity a new body, and so a new activity."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine_state.world import World
from ..ground import jsontext

Json = dict[str, Any]


def fresh_body(
    world: World, body: Json, fingerprint: Callable[[bytes], str], last_ms: int
) -> tuple[bytes, str, int]:
    """Give ``body`` a ``timestampMs`` that makes it a new activity: its bytes, their
    fingerprint and the timestamp given (the facade's next ``last_ms``).

    Facade timestamps follow the clock but never repeat and always increase: under
    the world lock (the caller holds it), each is past ``last_ms``, even with the clock
    frozen, set back or outrun by a storm of calls. Only when that would leave the liveness
    window (the clock set back farther than ``timestamp_window_s``) does the numbering
    start again from the clock, skipping any timestamp that would give a body already
    seen. Pass ``timestamp_ms=`` to a facade method to resubmit on purpose.
    """
    now_ms = world.clock.now_ms()
    stamp = max(now_ms, last_ms + 1)
    window_s = world.settings.timestamp_window_s
    if window_s is not None:
        window_s = min(window_s, world.settings.timestamp_future_s)  # how far ahead
    if window_s is not None and stamp - now_ms > window_s * 1000:
        stamp = now_ms
    seen, archive = world.store.activities_by_fingerprint, world.archive
    while True:
        body["timestampMs"] = str(stamp)
        raw = jsontext.dumps(body).encode()
        made = fingerprint(raw)
        if made not in seen and (
            archive is None or archive.by_fingerprint(world.store, made) is None
        ):
            return raw, made, stamp
        stamp += 1
