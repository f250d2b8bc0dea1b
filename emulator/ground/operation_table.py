"""The operation table as the layers below the operations see it.

The operations (``ops/``) sit above the services and the recorders, yet a vote that reaches
consensus runs the activity's handler (``services/consensus.py``) and ``emu.calls`` /
``emu.faults`` take an operation's name or SDK method name. They name the table through the
Protocols below; the table itself is handed down by a loader that the operations' registry
(``ops/registry.py``, when it loads) and the facade (which loads the operations on first use)
install here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

Json = dict[str, Any]


class VersionLike(Protocol):
    """One accepted ``ACTIVITY_TYPE_*`` of an activity (``ops.registry.Version``)."""

    @property
    def activity_type(self) -> str: ...
    @property
    def intent_key(self) -> str: ...
    @property
    def result_key(self) -> str: ...
    @property
    def upgrade(self) -> Callable[[Json], Json] | None: ...
    @property
    def downgrade_result(self) -> Callable[[Json], Json] | None: ...


class OperationLike(Protocol):
    """One operation of the table (``ops.registry.Operation``)."""

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def sdk_method(self) -> str: ...
    @property
    def handler(self) -> Callable[..., Json]: ...
    @property
    def self_service(self) -> bool: ...
    @property
    def root_quorum_only(self) -> bool: ...
    def version(self, activity_type: object) -> VersionLike | None: ...


_loader: Callable[[], Mapping[str, OperationLike]] | None = None


def install(loader: Callable[[], Mapping[str, OperationLike]]) -> None:
    """Hand the table down: ``loader()`` returns it, by path name, loading it if need be."""
    global _loader
    _loader = loader


def operations() -> Mapping[str, OperationLike]:
    """Every operation by path name."""
    if _loader is None:
        raise LookupError("the operations are not loaded (import emulator.ops first)")
    return _loader()


def find_by_activity_type(activity_type: str) -> tuple[OperationLike, VersionLike] | None:
    """The activity and version that ``activity_type`` names, if any."""
    for op in operations().values():
        version = op.version(activity_type)
        if version is not None:
            return op, version
    return None
