"""The policy expression language: ``parse(text)`` gives an ``Expression``.

One language serves a policy's ``condition``, ``consensus`` and ``time``
fields; which keywords each field may use is the engine's business, not the
grammar's.  Parsing is cached by text, so the engine can call ``parse`` for
every policy on every activity and pay for each distinct text once.

Evaluation follows the service: strongly typed (``1 == 'a'`` is an error, not
false), no short-circuiting (``false && activity.missing == 1`` is an error),
and a missing field is a ``MissingField`` error rather than a default.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from emulator.policy.analysis import activity_requirements, flatten, roots, target_requirements
from emulator.policy.compiler import compile_comparison, compile_tree
from emulator.policy.errors import PolicyEvaluationError, PolicySyntaxError
from emulator.policy.nodes import Node
from emulator.policy.parser import parse_tree
from emulator.policy.timefns import Timestamp
from emulator.policy.values import Lazy, kind_of

__all__ = [
    "Expression",
    "Lazy",
    "PolicyEvaluationError",
    "PolicySyntaxError",
    "Timestamp",
    "parse",
]


class Expression:
    """A parsed, compiled expression; immutable and shared between callers.

    ``roots`` are the keywords it reads from the environment;
    ``activity_requirements`` maps ``type``/``kind``/``resource``/``action``
    to the values the top-level conjunction allows (empty when unknown), and
    ``target_requirements`` does the same for ``wallet.id``, ``private_key.id``
    and ``wallet_account.address``.
    """

    __slots__ = (
        "_clauses",
        "_evaluate",
        "_requirements",
        "activity_requirements",
        "roots",
        "source",
        "target_requirements",
        "tree",
    )

    source: str
    tree: Node
    roots: frozenset[str]
    activity_requirements: Mapping[str, frozenset[str]]
    target_requirements: Mapping[str, frozenset[str]]

    def __init__(self, source: str, tree: Node) -> None:
        self.source = source
        self.tree = tree
        self.roots = roots(tree)
        self.activity_requirements = activity_requirements(tree)
        self._requirements = tuple(self.activity_requirements.items())
        self.target_requirements = target_requirements(tree)
        self._evaluate = compile_tree(tree, source)
        self._clauses: tuple[Any, ...] | None = None

    def evaluate(self, env: Mapping[str, Any]) -> Any:
        """The value of the expression in ``env``; raises ``PolicyEvaluationError``."""
        try:
            return self._evaluate(env, None)
        except RecursionError:
            raise PolicyEvaluationError("TooDeep: expression is nested too deeply") from None

    def test(self, env: Mapping[str, Any]) -> bool:
        """The expression as a condition: its value must be a bool."""
        try:
            value = self._evaluate(env, None)
        except RecursionError:
            raise PolicyEvaluationError("TooDeep: expression is nested too deeply") from None
        if type(value) is bool:
            return value
        raise PolicyEvaluationError(
            f"TypeError: expression evaluated to {kind_of(value)}, expected bool"
        )

    @property
    def clauses(self) -> tuple[Any, ...]:
        """The top-level conjunction's clauses: the expression as a condition holds when
        every one is ``true``, and is an error when any one fails or is not a bool (nothing
        short-circuits). A clause is ``(reader, literal type, literal, equal, slow)`` for
        ``path == literal`` (or ``!=``; ``compiler.compile_comparison``), else ``(None,
        fn)`` with ``fn(env, None)`` its value. Readers and closures are shared by every
        expression with the same path or clause text, so an engine can keep one value of
        each per request (``services/policy_engine.py``)."""
        clauses = self._clauses
        if clauses is None:
            clauses = self._clauses = tuple(
                _clause(self.source, node) for node in flatten(self.tree, "&&")
            )
        return clauses

    def admits(self, facts: Mapping[str, str]) -> bool:
        """Whether ``activity_requirements`` let an activity with these
        ``type``/``kind``/``resource``/``action`` values through.

        The same check as ``all(facts.get(f) in allowed for f, allowed in
        activity_requirements.items())``, about five times cheaper, for an
        engine that runs it for every policy on every activity.  A field
        missing from ``facts`` admits nothing that constrains it.
        """
        for field, allowed in self._requirements:  # noqa: SIM110 (a generator costs 4x)
            if facts.get(field) not in allowed:
                return False
        return True

    def __repr__(self) -> str:
        return f"Expression({self.source!r})"


_CLAUSES: dict[str, tuple] = {}
_READERS: dict[str, Any] = {}
_CLAUSES_LIMIT = 16384


def _clause(source: str, node: Node) -> tuple:
    """One top-level clause, shared by its text (its path reader by the path's text)."""
    text = source[node.start : node.end]
    found = _CLAUSES.get(text)
    if found is None:
        if len(_CLAUSES) >= _CLAUSES_LIMIT:
            _CLAUSES.clear()
            _READERS.clear()
        comparison = compile_comparison(node, source)
        if comparison is None:
            found = (None, compile_tree(node, source))
        else:
            path, reader, constant, equal, slow = comparison
            reader = _READERS.setdefault(path, reader)
            found = (reader, type(constant), constant, equal, slow)
        _CLAUSES[text] = found
    return found


@lru_cache(maxsize=4096)
def parse(text: str) -> Expression:
    """Parse and compile ``text``; raises ``PolicySyntaxError``.

    The same text returns the same ``Expression`` object while it is cached.
    """
    tree = parse_tree(text)
    try:
        return Expression(text, tree)
    except RecursionError:
        # The grammar has no depth limit, but Python's stack does; a policy
        # this deep is refused up front rather than failing on every activity.
        raise PolicySyntaxError("expression is nested too deeply", 0) from None
