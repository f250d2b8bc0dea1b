"""Helpers for tests of code that talks to the API (not part of the API itself).

``VirtualAuthenticator`` loads on first use: ``import emulator.testing`` need not pay for
the passkey machinery. The engine's own recorders (the call log, faults, the outbox) live in
``emulator/recorders/``.

Layer: the top, beside ``emulator.accounts`` (what users import for their tests: the
strategies, the state machine, signature checks, client-side crypto, the virtual
authenticator's public path). May import: the facade and everything below; never the
doors, the CLI nor the pytest plugin.
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
