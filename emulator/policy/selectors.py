"""Selectors, the legacy form of a policy's rule, read as a condition of the policy language.

``ACTIVITY_TYPE_CREATE_POLICY`` (``v1Selector``: ``{subject, operator, target}``) and
``_V2`` (``v1SelectorV2``: ``{subject, operator, targets}``) describe a policy by a
list of selectors, all of which must hold. The real engine's reading of them is not
public; the emulator reads each as the expression its operator names, over the subject
as a field path of the policy language (``activity.type``, ``wallet.id``…), and joins
them with ``&&``. A target that reads as an integer is compared as one. An empty list
is no condition: the policy applies to every activity, as a V3 policy without one.

=======================  ==============================================
operator                 expression (``t``: the target, ``ts``: the list)
=======================  ==============================================
EQUAL / NOT_EQUAL        ``s == t`` / ``s != t`` (with several targets: ``in``)
MORE_THAN (_OR_EQUAL)    ``s > t`` (``s >= t``)
LESS_THAN (_OR_EQUAL)    ``s < t`` (``s <= t``)
CONTAINS                 ``s.contains(t)``
IN / NOT_IN              ``s in ts`` / ``!(s in ts)``
CONTAINS_ONE / _ALL      ``ts.any(x, s.contains(x))`` / ``ts.all(…)``
=======================  ==============================================
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..ground.numbers import is_decimal

_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_COMPARISONS = {
    "OPERATOR_MORE_THAN": ">",
    "OPERATOR_MORE_THAN_OR_EQUAL": ">=",
    "OPERATOR_LESS_THAN": "<",
    "OPERATOR_LESS_THAN_OR_EQUAL": "<=",
}
OPERATORS = (
    "OPERATOR_EQUAL",
    *_COMPARISONS,
    "OPERATOR_CONTAINS",
    "OPERATOR_NOT_EQUAL",
    "OPERATOR_IN",
    "OPERATOR_NOT_IN",
    "OPERATOR_CONTAINS_ONE",
    "OPERATOR_CONTAINS_ALL",
)


class SelectorError(ValueError):
    """A selector that cannot be read as an expression (the text says why)."""


def literal(value: str) -> str:
    if is_decimal(value, signed=True):
        return value
    if "'" in value:
        raise SelectorError(f"a selector target cannot hold a single quote: {value!r}")
    return f"'{value}'"


def _list(values: Sequence[str]) -> str:
    return "[" + ", ".join(literal(v) for v in values) + "]"


def expression(selector: Mapping[str, Any]) -> str:
    """One selector as an expression. ``target`` (V1) or ``targets`` (V2)."""
    subject = selector.get("subject") or ""
    if not _PATH.fullmatch(subject):
        raise SelectorError(f"a selector subject must be a field path, not {subject!r}")
    operator = selector.get("operator")
    targets = list(selector["targets"]) if "targets" in selector else [selector.get("target") or ""]
    if operator in ("OPERATOR_EQUAL", "OPERATOR_NOT_EQUAL"):
        if len(targets) == 1:
            sign = "==" if operator == "OPERATOR_EQUAL" else "!="
            return f"{subject} {sign} {literal(targets[0])}"
        inside = f"{subject} in {_list(targets)}"
        return inside if operator == "OPERATOR_EQUAL" else f"!({inside})"
    if operator in _COMPARISONS:
        if len(targets) != 1:
            raise SelectorError(f"{operator} takes one target")
        return f"{subject} {_COMPARISONS[operator]} {literal(targets[0])}"
    if operator == "OPERATOR_CONTAINS":
        if len(targets) != 1:
            raise SelectorError("OPERATOR_CONTAINS takes one target")
        return f"{subject}.contains({literal(targets[0])})"
    if operator == "OPERATOR_IN":
        return f"{subject} in {_list(targets)}"
    if operator == "OPERATOR_NOT_IN":
        return f"!({subject} in {_list(targets)})"
    if operator in ("OPERATOR_CONTAINS_ONE", "OPERATOR_CONTAINS_ALL"):
        method = "any" if operator == "OPERATOR_CONTAINS_ONE" else "all"
        return f"{_list(targets)}.{method}(x, {subject}.contains(x))"
    raise SelectorError(f"unknown selector operator {operator!r}")


def condition(selectors: Sequence[Mapping[str, Any]]) -> str | None:
    """The condition all ``selectors`` make together; ``None`` for none."""
    if not selectors:
        return None
    parts = [expression(s) for s in selectors]
    return parts[0] if len(parts) == 1 else " && ".join(f"({p})" for p in parts)
