"""The syntax tree of a policy expression.

Every node records ``start``/``end`` (character offsets into the source) so
evaluation errors can quote the exact sub-expression that failed, e.g.
``MissingField: activity.params.hash_function``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Node:
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Literal(Node):
    """``true``, ``false``, an integer or a single-quoted string."""

    value: bool | int | str


@dataclass(frozen=True, slots=True)
class ListLiteral(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Name(Node):
    """An identifier: a keyword of the environment or a bound item name."""

    name: str


@dataclass(frozen=True, slots=True)
class Field(Node):
    """``target.name``."""

    target: Node
    name: str


@dataclass(frozen=True, slots=True)
class Index(Node):
    """``target[index]``: a list position, a string position or a map key."""

    target: Node
    index: Node


@dataclass(frozen=True, slots=True)
class Slice(Node):
    """``target[lower..upper]`` on a list or a string, upper bound exclusive."""

    target: Node
    lower: Node
    upper: Node


@dataclass(frozen=True, slots=True)
class Quantifier(Node):
    """``target.any(item, predicate)``, ``.all(...)`` or ``.filter(...)``."""

    target: Node
    method: str
    item: str
    predicate: Node


@dataclass(frozen=True, slots=True)
class Contains(Node):
    """``target.contains(value)``."""

    target: Node
    value: Node


@dataclass(frozen=True, slots=True)
class Count(Node):
    """``target.count()``."""

    target: Node


@dataclass(frozen=True, slots=True)
class Call(Node):
    """``Timestamp(text)`` or ``CronSpan(cron, duration, tz)``."""

    function: str
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Not(Node):
    operand: Node


@dataclass(frozen=True, slots=True)
class Binary(Node):
    """``left op right`` for ``&& || == != < > <= >= in``."""

    op: str
    left: Node
    right: Node
