"""The operation registry: every operation declared once.

A record names the operation as its path does (``create_users``,
``list_users``, ``whoami``), the method name of the official Python SDK, its
kind, and how to run it. An activity lists every ``ACTIVITY_TYPE_*`` version it
accepts, each with its parameter schema and its intent and result keys. The
HTTP router, the Python facade and the operations table in ``docs/`` are all
read from here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..ground import operation_table
from ..ground.schema import Object

ACTIVITY = "activity"
QUERY = "query"

SUBMIT_PREFIX = "/public/v1/submit/"
QUERY_PREFIX = "/public/v1/query/"

Params = dict[str, Any]
Handler = Callable[..., dict[str, Any]]


@dataclass(frozen=True)
class Version:
    """One accepted ``ACTIVITY_TYPE_*`` of an activity.

    ``upgrade`` turns this version's cleaned parameters into the shape the
    handler takes (the newest one); ``downgrade_result`` turns the handler's
    result into this version's result shape. Where the seed document names a different
    intent for this version than the real service, ``seed_intent_key`` and
    ``seed_intent`` produce the seed's intent beside the real one.
    """

    activity_type: str
    intent_key: str
    result_key: str
    params: Object
    upgrade: Callable[[Params], Params] | None = None
    seed_intent_key: str | None = None
    seed_intent: Callable[[Params], Params] | None = None
    downgrade_result: Callable[[Params], Params] | None = None


@dataclass(frozen=True)
class Operation:
    name: str
    kind: str
    sdk_method: str
    summary: str
    handler: Handler
    versions: tuple[Version, ...] = ()
    default_type: str | None = None
    body: Object | None = None
    result_keys: tuple[str, ...] = ()
    in_seed: bool = False
    # A user may run this activity on their own user (``params["userId"]``)
    # without any policy: managing one's own credentials.
    self_service: bool = False
    # Only the root quorum may run this activity; no policy can grant it.
    root_quorum_only: bool = False
    # A vote on another activity (approve_activity, reject_activity): the selection it
    # casts. Votes are not activities of their own; they answer the activity voted on.
    vote_selection: str | None = None
    # Whether the official Python SDK (turnkey_http) has a method for it; the rest are
    # in the TypeScript client (@turnkey/http) only.
    in_python_sdk: bool = True
    # A user of the parent organization may run this activity in a sub-organization
    # (the authentication flows of reference §11.3); the parent's policies judge it.
    parent_may_run: bool = False
    _by_type: dict[str, Version] = field(default_factory=dict, repr=False, compare=False)

    @property
    def path(self) -> str:
        prefix = SUBMIT_PREFIX if self.kind == ACTIVITY else QUERY_PREFIX
        return prefix + self.name

    def version(self, activity_type: object) -> Version | None:
        if not isinstance(activity_type, str):
            return None
        return self._by_type.get(activity_type)

    @property
    def default_version(self) -> Version:
        return self._by_type[self.default_type or self.versions[-1].activity_type]

    @property
    def activity_types(self) -> tuple[str, ...]:
        return tuple(v.activity_type for v in self.versions)


REGISTRY: dict[str, Operation] = {}
operation_table.install(lambda: REGISTRY)  # the table, handed down (operation_table.py)


def _register(op: Operation) -> Operation:
    if op.name in REGISTRY:
        raise ValueError(f"operation {op.name} declared twice")
    op._by_type.update({v.activity_type: v for v in op.versions})
    REGISTRY[op.name] = op
    return op


def activity(
    name: str,
    *,
    summary: str,
    versions: list[Version],
    default: str,
    sdk_method: str | None = None,
    in_seed: bool = False,
    self_service: bool = False,
    root_quorum_only: bool = False,
    vote_selection: str | None = None,
    parent_may_run: bool = False,
    in_python_sdk: bool = True,
) -> Callable[[Handler], Handler]:
    """Declare an activity; the decorated function is its handler ``(ctx, params) -> result``."""

    def register(handler: Handler) -> Handler:
        _register(
            Operation(
                name=name,
                kind=ACTIVITY,
                sdk_method=sdk_method or name,
                summary=summary,
                handler=handler,
                versions=tuple(versions),
                default_type=default,
                in_seed=in_seed,
                self_service=self_service,
                root_quorum_only=root_quorum_only,
                vote_selection=vote_selection,
                parent_may_run=parent_may_run,
                in_python_sdk=in_python_sdk,
            )
        )
        return handler

    return register


def query(
    name: str,
    *,
    summary: str,
    body: Object,
    result_keys: tuple[str, ...],
    sdk_method: str | None = None,
    in_seed: bool = False,
    in_python_sdk: bool = True,
) -> Callable[[Handler], Handler]:
    """Declare a query; the decorated function is its handler ``(ctx, body) -> data``."""

    def register(handler: Handler) -> Handler:
        _register(
            Operation(
                name=name,
                kind=QUERY,
                sdk_method=sdk_method or name,
                summary=summary,
                handler=handler,
                body=body,
                result_keys=result_keys,
                in_seed=in_seed,
                in_python_sdk=in_python_sdk,
            )
        )
        return handler

    return register


def find_by_activity_type(activity_type: str) -> tuple[Operation, Version] | None:
    """The activity and version that ``activity_type`` names, if any."""
    for op in REGISTRY.values():
        version = op.version(activity_type)
        if version is not None:
            return op, version
    return None


def find_by_path(path: str) -> Operation | None:
    """The operation served at ``path``, if any."""
    for prefix, kind in ((SUBMIT_PREFIX, ACTIVITY), (QUERY_PREFIX, QUERY)):
        if path.startswith(prefix):
            op = REGISTRY.get(path[len(prefix) :])
            return op if op is not None and op.kind == kind else None
    return None
