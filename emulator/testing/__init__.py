"""Helpers for tests of code that talks to the API (not part of the API itself).

``VirtualAuthenticator`` loads on first use: the engine imports ``testing.calls`` and
friends, and ``import emulator`` need not pay for the passkey machinery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .virtual_authenticator import VirtualAuthenticator

__all__ = ["VirtualAuthenticator"]


def __getattr__(name: str) -> Any:
    if name == "VirtualAuthenticator":
        from .virtual_authenticator import VirtualAuthenticator

        return VirtualAuthenticator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
