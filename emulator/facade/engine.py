"""What a facade call needs from the engine, loaded on its first call.

The registry pulls in every service (and the services the policy engine), so
``import emulator`` does not import it: ``load_engine()`` does, once, and hands the
facade the registry, ``dispatch`` and the few helpers a call uses.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..crypto.api_keys import ApiKeyPair

if TYPE_CHECKING:
    from ..crypto.authenticator import VirtualAuthenticator
    from ..crypto.stamps import ApiKeyStamp
    from ..crypto.webauthn import WebauthnStamp
    from ..ops import Operation

Json = dict[str, Any]


def unsigned_stamp(key: ApiKeyPair | VirtualAuthenticator) -> ApiKeyStamp | WebauthnStamp:
    """The facade's stamp for a caller: who they are, with no signature (not checked)."""
    found = load_engine()
    if isinstance(key, ApiKeyPair):
        return found.api_key_stamp(key.public_key, "", found.schemes[key.curve])
    from ..crypto.webauthn import WebauthnStamp

    return WebauthnStamp("", "", key.credential_id_b64, "")


def is_passkey(caller: object) -> bool:
    from ..crypto.authenticator import VirtualAuthenticator

    return isinstance(caller, VirtualAuthenticator)


def operation_named(name: str) -> Operation:
    """The operation whose path name or SDK method name is ``name``."""
    found = load_engine()
    op = found.registry.get(name) or found.by_sdk_method.get(name)
    if op is None:
        raise AttributeError(f"no operation named {name!r}")
    return op


SCALARS = frozenset({str, int, bool, float})


@dataclass(frozen=True)
class Engine:
    """What running an operation needs, imported on the first call rather than with the
    package: ``import emulator`` stays cheap (the registry pulls in every service)."""

    registry: dict[str, Operation]
    by_sdk_method: dict[str, Operation]
    activity: str
    dispatch: Callable[..., Json]
    request: Callable[..., Any]
    fingerprint: Callable[[bytes], str]
    api_key_stamp: Callable[..., ApiKeyStamp]
    schemes: dict[str, str]
    # The activity types of the fused path and its body (``services/fused.py``).
    fused_types: frozenset[str]
    fused: Callable[..., Json | None]


@functools.cache
def load_engine() -> Engine:
    from ..crypto.stamps import DEFAULT_SCHEMES, ApiKeyStamp
    from ..dispatch import Request, dispatch
    from ..ops import ACTIVITY, FUSED_TYPES, REGISTRY
    from ..services import fused
    from ..services.activities import fingerprint

    by_sdk = {op.sdk_method: op for op in REGISTRY.values()}
    return Engine(
        REGISTRY,
        by_sdk,
        ACTIVITY,
        dispatch,
        Request,
        fingerprint,
        ApiKeyStamp,
        DEFAULT_SCHEMES,
        FUSED_TYPES,
        fused.submit,
    )
