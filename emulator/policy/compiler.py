"""Syntax tree to Python closures, so evaluation does no tree walking.

Each node becomes a function ``fn(env, frame) -> value``.  ``env`` is the
caller's mapping of keywords; ``frame`` is ``None`` at the top and, inside the
predicate of ``any``/``all``/``filter``, a list holding the items bound by the
enclosing predicates (an item name resolves at compile time to its depth, so
lookup is ``frame[depth]`` and names in the env are never shadowed outside the
predicate).

The hot shapes get fused closures: a dotted path from a keyword
(``activity.params.type``) is one closure, and comparing against a literal
checks the type with one ``type(...) is`` test before comparing.  Nothing
short-circuits: both sides of ``&&``/``||`` and the predicate for every item
are evaluated, because the service does the same and an error anywhere makes
the whole expression an error.  Every closure returns a resolved value, never
a ``Lazy``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emulator.policy import nodes
from emulator.policy.analysis import flatten
from emulator.policy.errors import PolicyEvaluationError
from emulator.policy.paths import keyword_key_equals, path_reader, walk
from emulator.policy.runtime import (
    Fn,
    as_list,
    bool_operand,
    compare,
    compare_constant,
    constant_mismatch,
    error,
    index_value,
    logic,
    member,
    quantifier,
    raiser,
    slice_value,
)
from emulator.policy.timefns import Timestamp, cron_schedule
from emulator.policy.values import kind_of


def compile_tree(tree: nodes.Node, source: str) -> Fn:
    """The closure that evaluates ``tree`` (parsed from ``source``)."""
    return _Compiler(source).compile(tree, {}, 0)


def compile_comparison(tree: nodes.Node, source: str) -> tuple[str, Fn, Any, bool, Fn] | None:
    """``path == literal`` (or ``!=``), the path read from a keyword, as ``(path text, path
    reader, literal, equal, slow)``: an engine may then read each path once per request for
    every clause that compares it (``slow(value)`` answers for a value of another type than
    the literal's, or raises the language's error). ``None`` for any other shape."""
    if not isinstance(tree, nodes.Binary) or tree.op not in ("==", "!="):
        return None
    constant = _constant(tree.right)
    if constant is _NOT_CONSTANT or not _keyword_path(tree.left):
        return None
    compiler = _Compiler(source)
    label = compiler.label(tree)
    reader = compiler.compile(tree.left, {}, 0)
    slow = constant_mismatch(tree.op, constant, label)
    return compiler.label(tree.left), reader, constant, tree.op == "==", slow


# --- the compiler ---------------------------------------------------------------


class _Compiler:
    __slots__ = ("_source",)

    def __init__(self, source: str) -> None:
        self._source = source

    def label(self, node: nodes.Node) -> str:
        return self._source[node.start : node.end]

    def compile(self, node: nodes.Node, scope: dict[str, int], depth: int) -> Fn:
        method = getattr(self, "_" + type(node).__name__)
        return method(node, scope, depth)

    # literals and names

    def _Literal(self, node: nodes.Literal, scope: dict[str, int], depth: int) -> Fn:
        value = node.value
        return lambda env, frame: value

    def _ListLiteral(self, node: nodes.ListLiteral, scope: dict[str, int], depth: int) -> Fn:
        if all(isinstance(item, nodes.Literal) for item in node.items):
            constant = [item.value for item in node.items]  # type: ignore[attr-defined]
            return lambda env, frame: constant
        item_fns = [self.compile(item, scope, depth) for item in node.items]
        return lambda env, frame: [fn(env, frame) for fn in item_fns]

    def _Name(self, node: nodes.Name, scope: dict[str, int], depth: int) -> Fn:
        return path_reader(node.name, scope.get(node.name), ())

    def _Field(self, node: nodes.Field, scope: dict[str, int], depth: int) -> Fn:
        return self._keys(node, scope, depth)

    def _keys(self, node: nodes.Node, scope: dict[str, int], depth: int) -> Fn:
        """A run of ``.field`` and ``['key']`` reads as one closure.

        When the run starts at a name, the name lookup joins it too, so
        ``activity.params.type`` costs one call.
        """
        steps: list[tuple[str, str]] = []
        target = node
        while True:
            if isinstance(target, nodes.Field):
                steps.append((target.name, self.label(target)))
                target = target.target
            elif isinstance(target, nodes.Index) and _is_string_literal(target.index):
                steps.append((target.index.value, self.label(target)))  # type: ignore[attr-defined]
                target = target.target
            else:
                break
        steps.reverse()
        if isinstance(target, nodes.Name):
            return path_reader(target.name, scope.get(target.name), tuple(steps))
        return walk(self.compile(target, scope, depth), tuple(steps))

    # indexing

    def _Index(self, node: nodes.Index, scope: dict[str, int], depth: int) -> Fn:
        if _is_string_literal(node.index):
            return self._keys(node, scope, depth)
        target = self.compile(node.target, scope, depth)
        label = self.label(node)
        index = self.compile(node.index, scope, depth)

        def read_index(env: Mapping[str, Any], frame: Any) -> Any:
            return index_value(target(env, frame), index(env, frame), label)

        return read_index

    def _Slice(self, node: nodes.Slice, scope: dict[str, int], depth: int) -> Fn:
        target = self.compile(node.target, scope, depth)
        lower = self.compile(node.lower, scope, depth)
        upper = self.compile(node.upper, scope, depth)
        label = self.label(node)

        def read_slice(env: Mapping[str, Any], frame: Any) -> Any:
            return slice_value(target(env, frame), lower(env, frame), upper(env, frame), label)

        return read_slice

    # list methods

    def _Quantifier(self, node: nodes.Quantifier, scope: dict[str, int], depth: int) -> Fn:
        target = self.compile(node.target, scope, depth)
        predicate = self.compile(node.predicate, {**scope, node.item: depth}, depth + 1)
        return quantifier(
            target, predicate, node.method, self.label(node.target), self.label(node.predicate)
        )

    def _Contains(self, node: nodes.Contains, scope: dict[str, int], depth: int) -> Fn:
        target = self.compile(node.target, scope, depth)
        value = self.compile(node.value, scope, depth)
        label, target_label = self.label(node), self.label(node.target)

        def contains(env: Mapping[str, Any], frame: Any) -> bool:
            items = as_list(target(env, frame), "contains()", target_label)
            return member(value(env, frame), items, label, target_label)

        return contains

    def _Count(self, node: nodes.Count, scope: dict[str, int], depth: int) -> Fn:
        target = self.compile(node.target, scope, depth)
        target_label = self.label(node.target)

        def count(env: Mapping[str, Any], frame: Any) -> int:
            items = target(env, frame)
            if type(items) is list or type(items) is tuple:
                return len(items)
            return len(as_list(items, "count()", target_label))

        return count

    # functions

    def _Call(self, node: nodes.Call, scope: dict[str, int], depth: int) -> Fn:
        if node.function == "Timestamp":
            return self._timestamp(node, scope, depth)
        return self._cron_span(node, scope, depth)

    def _timestamp(self, node: nodes.Call, scope: dict[str, int], depth: int) -> Fn:
        (arg,) = node.args
        if isinstance(arg, nodes.Literal) and type(arg.value) is str:
            try:
                constant = Timestamp.parse(arg.value)
            except PolicyEvaluationError as exc:
                return raiser(exc.message)
            return lambda env, frame: constant
        text_fn = self.compile(arg, scope, depth)

        def timestamp(env: Mapping[str, Any], frame: Any) -> Timestamp:
            text = text_fn(env, frame)
            if type(text) is not str:
                raise error(f"TypeError: Timestamp() expects a string, got {kind_of(text)}")
            return Timestamp.parse(text)

        return timestamp

    def _cron_span(self, node: nodes.Call, scope: dict[str, int], depth: int) -> Fn:
        # time.now comes from the environment even inside a predicate whose
        # item happens to be called `time`.
        now_fn = path_reader("time", None, (("now", "time.now"),))
        if all(isinstance(arg, nodes.Literal) for arg in node.args):
            try:
                schedule = cron_schedule(*(arg.value for arg in node.args))  # type: ignore[attr-defined]
            except PolicyEvaluationError as exc:
                return raiser(exc.message)

            def cron_span_constant(env: Mapping[str, Any], frame: Any) -> bool:
                now = now_fn(env, frame)
                if type(now) is not Timestamp:
                    raise error(f"TypeError: time.now must be a timestamp, got {kind_of(now)}")
                return schedule.contains(now.ns)

            return cron_span_constant
        arg_fns = [self.compile(arg, scope, depth) for arg in node.args]

        def cron_span(env: Mapping[str, Any], frame: Any) -> bool:
            schedule = cron_schedule(*(fn(env, frame) for fn in arg_fns))
            now = now_fn(env, frame)
            if type(now) is not Timestamp:
                raise error(f"TypeError: time.now must be a timestamp, got {kind_of(now)}")
            return schedule.contains(now.ns)

        return cron_span

    # operators

    def _Not(self, node: nodes.Not, scope: dict[str, int], depth: int) -> Fn:
        operand = self.compile(node.operand, scope, depth)
        label = self.label(node.operand)

        def negate(env: Mapping[str, Any], frame: Any) -> bool:
            value = operand(env, frame)
            if value is True:
                return False
            if value is False:
                return True
            return not bool_operand(value, "!", label)

        return negate

    def _Binary(self, node: nodes.Binary, scope: dict[str, int], depth: int) -> Fn:
        op = node.op
        if op == "&&" or op == "||":
            operands = flatten(node, op)
            fns = [self.compile(operand, scope, depth) for operand in operands]
            labels = [self.label(operand) for operand in operands]
            return logic(op, fns, labels)
        if op == "in":
            return self._in(node, scope, depth)
        label = self.label(node)
        left, right = node.left, node.right
        right_constant, left_constant = _constant(right), _constant(left)
        if right_constant is not _NOT_CONSTANT:
            if (op == "==" or op == "!=") and _keyword_field(left, scope):
                slow = constant_mismatch(op, right_constant, label)
                return keyword_key_equals(
                    left.target.name,  # type: ignore[attr-defined]
                    left.name,  # type: ignore[attr-defined]
                    self.label(left),
                    right_constant,
                    op == "==",
                    slow,
                )
            return compare_constant(op, self.compile(left, scope, depth), right_constant, label)
        if left_constant is not _NOT_CONSTANT:
            flipped = _FLIPPED[op]
            return compare_constant(
                flipped, self.compile(right, scope, depth), left_constant, label, shown_op=op
            )
        return compare(
            op, self.compile(left, scope, depth), self.compile(right, scope, depth), label
        )

    def _in(self, node: nodes.Binary, scope: dict[str, int], depth: int) -> Fn:
        value_fn = self.compile(node.left, scope, depth)
        label, items_label = self.label(node), self.label(node.right)
        right = node.right
        if (
            isinstance(right, nodes.ListLiteral)
            and right.items
            and all(isinstance(item, nodes.Literal) for item in right.items)
        ):
            values = [item.value for item in right.items]  # type: ignore[attr-defined]
            kinds = {type(value) for value in values}
            if len(kinds) == 1:
                (kind,) = kinds
                members = frozenset(values)

                def in_constants(env: Mapping[str, Any], frame: Any) -> bool:
                    value = value_fn(env, frame)
                    if type(value) is kind:
                        return value in members
                    return member(value, values, label, items_label)

                return in_constants
        items_fn = self.compile(right, scope, depth)

        def in_list(env: Mapping[str, Any], frame: Any) -> bool:
            return member(value_fn(env, frame), items_fn(env, frame), label, items_label)

        return in_list


# --- constants known at compile time ----------------------------------------------

_NOT_CONSTANT: Any = object()


def _is_string_literal(node: nodes.Node) -> bool:
    return isinstance(node, nodes.Literal) and type(node.value) is str


def _constant(node: nodes.Node) -> Any:
    """The value of a literal or of a valid ``Timestamp('...')`` literal, else a marker."""
    if isinstance(node, nodes.Literal):
        return node.value
    if isinstance(node, nodes.Call) and node.function == "Timestamp":
        (arg,) = node.args
        if isinstance(arg, nodes.Literal) and type(arg.value) is str:
            try:
                return Timestamp.parse(arg.value)
            except PolicyEvaluationError:
                return _NOT_CONSTANT  # compiled as a call, so the error surfaces when run
    return _NOT_CONSTANT


_FLIPPED = {"==": "==", "!=": "!=", "<": ">", ">": "<", "<=": ">=", ">=": "<="}


def _keyword_field(node: nodes.Node, scope: dict[str, int]) -> bool:
    """``keyword.field``, the keyword read from the environment (not a bound item)."""
    return (
        isinstance(node, nodes.Field)
        and isinstance(node.target, nodes.Name)
        and node.target.name not in scope
    )


def _keyword_path(node: nodes.Node) -> bool:
    """Fields and string keys read down from a keyword: ``activity.params.hash_function``."""
    while isinstance(node, nodes.Field) or (
        isinstance(node, nodes.Index) and _is_string_literal(node.index)
    ):
        node = node.target
    return isinstance(node, nodes.Name)
