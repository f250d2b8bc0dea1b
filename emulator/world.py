"""``emulator.world``, the public path of ``emulator.engine_state.world`` (users import it; docs/design.md)."""

from .engine_state.world import (
    DEFAULT_TIMESTAMP_FUTURE_S,
    DEFAULT_TIMESTAMP_WINDOW_S,
    Checkpoint,
    Settings,
    World,
)

__all__ = [
    "DEFAULT_TIMESTAMP_FUTURE_S",
    "DEFAULT_TIMESTAMP_WINDOW_S",
    "Checkpoint",
    "Settings",
    "World",
]
