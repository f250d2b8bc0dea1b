"""What can be known about an expression without evaluating it.

``roots`` tells the engine which keywords an expression reads (so it builds
only those).  ``activity_requirements`` lets it skip policies that cannot
apply: if the top-level conjunction contains ``activity.type == 'X'``, then
for any other activity type that clause is false, the conjunction is false or
an error, and the policy never matches.
"""

from __future__ import annotations

from emulator.policy import nodes

ACTIVITY_FIELDS = frozenset({"type", "kind", "resource", "action"})
# The targets of a request a condition may pin: its wallet or private key (by id or label)
# or wallet account (by address).
TARGET_FIELDS = frozenset(
    {
        ("wallet", "id"),
        ("wallet", "label"),
        ("private_key", "id"),
        ("private_key", "label"),
        ("wallet_account", "address"),
    }
)


def roots(tree: nodes.Node) -> frozenset[str]:
    """Keywords read from the environment, leaving out names bound by predicates."""
    found: set[str] = set()
    # An explicit stack: a long `a && b && ...` chain nests as deep as it is long.
    pending: list[tuple[nodes.Node, frozenset[str]]] = [(tree, frozenset())]
    while pending:
        node, bound = pending.pop()
        if isinstance(node, nodes.Name):
            if node.name not in bound:
                found.add(node.name)
        elif isinstance(node, nodes.Quantifier):
            pending.append((node.target, bound))
            pending.append((node.predicate, bound | {node.item}))
        else:
            if isinstance(node, nodes.Call) and node.function == "CronSpan":
                found.add("time")  # CronSpan reads time.now
            pending.extend((child, bound) for child in _children(node))
    return frozenset(found)


def _children(node: nodes.Node) -> tuple[nodes.Node, ...]:
    if isinstance(node, nodes.Binary):
        return (node.left, node.right)
    if isinstance(node, nodes.Not):
        return (node.operand,)
    if isinstance(node, nodes.Field | nodes.Count):
        return (node.target,)
    if isinstance(node, nodes.Index):
        return (node.target, node.index)
    if isinstance(node, nodes.Slice):
        return (node.target, node.lower, node.upper)
    if isinstance(node, nodes.Contains):
        return (node.target, node.value)
    if isinstance(node, nodes.ListLiteral):
        return node.items
    if isinstance(node, nodes.Call):
        return node.args
    return ()


def activity_requirements(tree: nodes.Node) -> dict[str, frozenset[str]]:
    """Allowed values of ``activity.type/kind/resource/action`` implied by the
    top-level conjunction; a field constrained twice gets the intersection."""
    return _requirements(tree, _activity_field)


def target_requirements(tree: nodes.Node) -> dict[str, frozenset[str]]:
    """Allowed values of ``wallet.id``/``label``, ``private_key.id``/``label`` and
    ``wallet_account.address`` (keyed by those dotted names) implied by the top-level
    conjunction. A request whose
    target is another one, or none, cannot satisfy the condition."""
    return _requirements(tree, _target_field)


def _requirements(tree: nodes.Node, field_of) -> dict[str, frozenset[str]]:
    requirements: dict[str, frozenset[str]] = {}
    for clause in _conjuncts(tree):
        constraint = _constraint(clause, field_of)
        if constraint is None:
            continue
        field, allowed = constraint
        previous = requirements.get(field)
        requirements[field] = allowed if previous is None else previous & allowed
    return requirements


def flatten(node: nodes.Node, op: str) -> list[nodes.Node]:
    """The operands of a chain of one logical operator, left to right.

    Iterative, since a chain of n clauses is a tree n deep.
    """
    operands: list[nodes.Node] = []
    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, nodes.Binary) and current.op == op:
            pending.append(current.right)
            pending.append(current.left)
        else:
            operands.append(current)
    return operands


def _conjuncts(node: nodes.Node) -> list[nodes.Node]:
    """The operands of the top-level ``&&`` chain, left to right."""
    return flatten(node, "&&")


def _constraint(clause: nodes.Node, field_of) -> tuple[str, frozenset[str]] | None:
    if not isinstance(clause, nodes.Binary):
        return None
    if clause.op == "==":
        for side, other in ((clause.left, clause.right), (clause.right, clause.left)):
            field = field_of(side)
            if field is not None and _is_string(other):
                return field, frozenset({other.value})  # type: ignore[attr-defined]
        return None
    if clause.op == "in":
        field = field_of(clause.left)
        items = clause.right
        if (
            field is not None
            and isinstance(items, nodes.ListLiteral)
            and all(_is_string(item) for item in items.items)
        ):
            return field, frozenset(item.value for item in items.items)  # type: ignore[attr-defined]
    return None


def _activity_field(node: nodes.Node) -> str | None:
    if (
        isinstance(node, nodes.Field)
        and node.name in ACTIVITY_FIELDS
        and isinstance(node.target, nodes.Name)
        and node.target.name == "activity"
    ):
        return node.name
    return None


def _target_field(node: nodes.Node) -> str | None:
    if (
        isinstance(node, nodes.Field)
        and isinstance(node.target, nodes.Name)
        and (node.target.name, node.name) in TARGET_FIELDS
    ):
        return f"{node.target.name}.{node.name}"
    return None


def _is_string(node: nodes.Node) -> bool:
    return isinstance(node, nodes.Literal) and type(node.value) is str
