"""What compiled closures do at run time: strict typing, access, and error messages.

Kept apart from the compiler so the compiler reads as "which closure for
which node" and this module as "what the language means": ``==`` only between
values of one scalar type, ordering only on ints and timestamps, a missing key
is ``MissingField``, an index outside the value is ``IndexOutOfBounds``, and
nothing short-circuits.  Errors are built only off the fast paths.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any

from emulator.policy.errors import PolicyEvaluationError
from emulator.policy.timefns import Timestamp
from emulator.policy.values import Lazy, kind_of

Fn = Callable[[Mapping[str, Any], Any], Any]

SCALAR_KINDS = frozenset({"bool", "int", "string", "timestamp"})
ORDERED_KINDS = frozenset({"int", "timestamp"})
EQ_FAST_TYPES = frozenset({bool, int, str, Timestamp})
LIST_TYPES = (list, tuple)


def error(message: str) -> PolicyEvaluationError:
    return PolicyEvaluationError(message)


def field_error(value: object, key: object, label: str) -> PolicyEvaluationError:
    if isinstance(value, Mapping):
        return error(f"MissingField: {label}")
    return error(f"TypeError: {label}: {article(kind_of(value))} has no field {key!r}")


def article(kind: str) -> str:
    """``kind`` with its indefinite article, for messages."""
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def missing_root(name: str) -> PolicyEvaluationError:
    return error(f"MissingField: {name}")


def check_equal(left: object, right: object, op: str, label: str) -> bool:
    """Equality off the fast path: same scalar kind required, subclasses welcome."""
    left_kind, right_kind = kind_of(left), kind_of(right)
    if left_kind != right_kind or left_kind not in SCALAR_KINDS:
        raise error(f"TypeError: {label}: cannot compare {left_kind} {op} {right_kind}")
    return left == right


def check_order(left: Any, right: Any, op: str, label: str) -> bool:
    left_kind, right_kind = kind_of(left), kind_of(right)
    if left_kind != right_kind or left_kind not in ORDERED_KINDS:
        raise error(f"TypeError: {label}: cannot compare {left_kind} {op} {right_kind}")
    if op == "<":
        return left < right
    if op == ">":
        return left > right
    if op == "<=":
        return left <= right
    return left >= right


def as_list(value: object, what: str, label: str) -> list[Any] | tuple[Any, ...]:
    if type(value) is list or type(value) is tuple or isinstance(value, LIST_TYPES):
        return value  # type: ignore[return-value]
    raise error(f"TypeError: {what} expects a list, got {kind_of(value)} ({label})")


def member(value: object, items: object, label: str, items_label: str) -> bool:
    """``value in items`` with the language's strict equality, checking every item."""
    sequence = as_list(items, "in", items_label)
    found = False
    for item in sequence:
        if type(item) is Lazy:
            item = item.get()
        if type(item) is type(value) and type(value) in EQ_FAST_TYPES:
            if item == value:
                found = True
        elif check_equal(value, item, "==", label):
            found = True
    return found


def bool_operand(value: object, op: str, label: str) -> bool:
    if type(value) is bool:
        return value
    raise error(f"TypeError: {op} expects bool operands, got {kind_of(value)} ({label})")


def raiser(message: str) -> Fn:
    """A closure that fails: bad literal arguments are found when the clause runs."""

    def fail(env: Mapping[str, Any], frame: Any) -> Any:
        raise error(message)

    return fail


def index_value(target: Any, index: Any, label: str) -> Any:
    if type(index) is int or (isinstance(index, int) and not isinstance(index, bool)):
        if isinstance(target, (list, tuple, str)):
            if 0 <= index < len(target):
                value = target[index]
                return value.get() if type(value) is Lazy else value
            raise error(
                f"IndexOutOfBounds: {label}: index {index} is out of range for length {len(target)}"
            )
    elif isinstance(index, str) and isinstance(target, Mapping):
        try:
            value = target[index]
        except KeyError:
            raise error(f"MissingField: {label}") from None
        return value.get() if type(value) is Lazy else value
    raise error(
        f"TypeError: {label}: cannot index {article(kind_of(target))} with {article(kind_of(index))}"
    )


def slice_value(target: Any, lower: Any, upper: Any, label: str) -> Any:
    if not isinstance(target, (list, tuple, str)):
        raise error(f"TypeError: {label}: cannot slice {article(kind_of(target))}")
    if kind_of(lower) != "int" or kind_of(upper) != "int":
        raise error(f"TypeError: {label}: slice bounds must be int")
    if not 0 <= lower <= upper <= len(target):
        raise error(
            f"IndexOutOfBounds: {label}: range {lower}..{upper} is out of range for length {len(target)}"
        )
    return target[lower:upper]


def logic(op: str, fns: list[Fn], labels: list[str]) -> Fn:
    is_and = op == "&&"
    if len(fns) == 2:
        first, second = fns
        first_label, second_label = labels

        def both(env: Mapping[str, Any], frame: Any) -> bool:
            a = first(env, frame)
            b = second(env, frame)
            if type(a) is bool and type(b) is bool:
                return (a and b) if is_and else (a or b)
            bool_operand(a, op, first_label)
            return bool_operand(b, op, second_label)

        return both

    pairs = list(zip(fns, labels, strict=True))

    def every(env: Mapping[str, Any], frame: Any) -> bool:
        values = [fn(env, frame) for fn in fns]
        for value, (_, label) in zip(values, pairs, strict=True):
            if type(value) is not bool:
                bool_operand(value, op, label)
        return (False not in values) if is_and else (True in values)

    return every


ORDER = {"<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge}


def constant_mismatch(op: str, constant: Any, label: str, shown_op: str = "") -> Any:
    """``value op constant`` the slow way, for a value not of the constant's type: the
    language's equality across types, or its type error."""

    def slow(value: Any) -> bool:
        left, right = (constant, value) if shown_op else (value, constant)
        written = shown_op or op
        if op == "==" or op == "!=":
            equal = check_equal(left, right, written, label)
            return equal if op == "==" else not equal
        return check_order(left, right, written, label)

    return slow


def compare_constant(op: str, fn: Fn, constant: Any, label: str, shown_op: str = "") -> Fn:
    """``value op constant``, with the constant's type checked by identity first.

    ``shown_op`` is the operator as written when the literal was on the left
    (the comparison was flipped to put it on the right); errors then name the
    operands in the order they were written.
    """
    constant_type = type(constant)
    slow = constant_mismatch(op, constant, label, shown_op)
    if op == "==":

        def equals(env: Mapping[str, Any], frame: Any) -> bool:
            value = fn(env, frame)
            if type(value) is constant_type:
                return value == constant
            return slow(value)

        return equals
    if op == "!=":

        def differs(env: Mapping[str, Any], frame: Any) -> bool:
            value = fn(env, frame)
            if type(value) is constant_type:
                return value != constant
            return slow(value)

        return differs
    if constant_type is not int and constant_type is not Timestamp:
        return lambda env, frame: slow(fn(env, frame))  # ordering strings or bools: a type error
    order = ORDER[op]

    def ordered(env: Mapping[str, Any], frame: Any) -> bool:
        value = fn(env, frame)
        if type(value) is constant_type:
            return order(value, constant)
        return slow(value)

    return ordered


def compare(op: str, left: Fn, right: Fn, label: str) -> Fn:
    if op == "==" or op == "!=":
        negate = op == "!="

        def equality(env: Mapping[str, Any], frame: Any) -> bool:
            a = left(env, frame)
            b = right(env, frame)
            if type(a) is type(b) and type(a) in EQ_FAST_TYPES:
                return (a != b) if negate else (a == b)
            equal = check_equal(a, b, op, label)
            return not equal if negate else equal

        return equality
    order = ORDER[op]

    def ordered(env: Mapping[str, Any], frame: Any) -> bool:
        a = left(env, frame)
        b = right(env, frame)
        if type(a) is type(b) and (type(a) is int or type(a) is Timestamp):
            return order(a, b)
        return check_order(a, b, op, label)

    return ordered


def quantifier(
    target: Fn, predicate: Fn, method: str, target_label: str, predicate_label: str
) -> Fn:
    """``any``/``all``/``filter``: the predicate runs for every item, no early exit."""
    what = f"{method}()"

    def check(result: object) -> bool:
        if type(result) is bool:
            return result
        raise error(
            f"TypeError: {what} predicate must be bool, got {kind_of(result)} ({predicate_label})"
        )

    if method == "filter":

        def keep(env: Mapping[str, Any], frame: Any) -> list[Any]:
            items = as_list(target(env, frame), what, target_label)
            frame = [] if frame is None else frame
            kept = []
            for item in items:
                if type(item) is Lazy:
                    item = item.get()
                frame.append(item)
                result = predicate(env, frame)
                frame.pop()
                if result is True or (result is not False and check(result)):
                    kept.append(item)
            return kept

        return keep

    want_any = method == "any"

    def decide(env: Mapping[str, Any], frame: Any) -> bool:
        items = target(env, frame)
        if type(items) is not list and type(items) is not tuple:
            items = as_list(items, what, target_label)
        frame = [] if frame is None else frame
        outcome = not want_any
        for item in items:
            if type(item) is Lazy:
                item = item.get()
            frame.append(item)
            result = predicate(env, frame)
            frame.pop()
            if result is want_any:
                outcome = want_any
            elif result is not (not want_any):
                check(result)
        return outcome

    return decide
