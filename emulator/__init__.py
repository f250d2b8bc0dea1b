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
    from .crypto.api_keys import ApiKeyPair as ApiKeyPair
    from .crypto.api_keys import generate_key_pair as generate_key_pair
    from .crypto.api_keys import key_pair_from_private as key_pair_from_private
    from .engine_state.world import Settings as Settings
    from .facade.api import Emulator as Emulator
    from .facade.handles import OrganizationHandle as OrganizationHandle
    from .facade.wire import EMULATOR_BASE_URL as EMULATOR_BASE_URL
    from .facade.wire import TURNKEY_BASE_URL as TURNKEY_BASE_URL
    from .ground.clock import Clock as Clock
    from .ground.errors import TurnkeyApiError as TurnkeyApiError

_EXPORTS = {
    "EMULATOR_BASE_URL": "emulator.facade.wire",
    "TURNKEY_BASE_URL": "emulator.facade.wire",
    "Emulator": "emulator.facade.api",
    "OrganizationHandle": "emulator.facade.handles",
    "ApiKeyPair": "emulator.crypto.api_keys",
    "generate_key_pair": "emulator.crypto.api_keys",
    "key_pair_from_private": "emulator.crypto.api_keys",
    "Clock": "emulator.ground.clock",
    "TurnkeyApiError": "emulator.ground.errors",
    "Settings": "emulator.engine_state.world",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
