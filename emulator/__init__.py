"""An in-process emulator of Turnkey's public API.

>>> from emulator import Emulator
>>> emu = Emulator()
>>> org = emu.create_organization("Acme")
>>> emu.get_whoami()["organizationId"] == org.organization_id
True

The names below load on first use (PEP 562): ``import emulator`` alone, or a submodule
such as ``emulator.accounts``, does not pay for the engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .api import Emulator as Emulator
    from .api import OrganizationHandle as OrganizationHandle
    from .clock import Clock as Clock
    from .crypto.api_keys import ApiKeyPair as ApiKeyPair
    from .crypto.api_keys import generate_key_pair as generate_key_pair
    from .crypto.api_keys import key_pair_from_private as key_pair_from_private
    from .errors import TurnkeyApiError as TurnkeyApiError
    from .facade_wire import EMULATOR_BASE_URL as EMULATOR_BASE_URL
    from .facade_wire import TURNKEY_BASE_URL as TURNKEY_BASE_URL
    from .world import Settings as Settings

_EXPORTS = {
    "EMULATOR_BASE_URL": ".facade_wire",
    "TURNKEY_BASE_URL": ".facade_wire",
    "Emulator": ".api",
    "OrganizationHandle": ".api",
    "ApiKeyPair": ".crypto.api_keys",
    "generate_key_pair": ".crypto.api_keys",
    "key_pair_from_private": ".crypto.api_keys",
    "Clock": ".clock",
    "TurnkeyApiError": ".errors",
    "Settings": ".world",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
