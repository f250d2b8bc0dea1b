"""The operations table of the docs, made from the registry.

``python -m emulator.ops.table > docs/operations.md`` writes it; a test fails
when the file and the registry disagree.
"""

from __future__ import annotations

from .registry import ACTIVITY, REGISTRY, Operation


def _row(op: Operation) -> str:
    seed = "yes" if op.in_seed else ""
    if op.kind == ACTIVITY:
        types = "<br>".join(
            f"`{v.activity_type}` → `{v.intent_key}` / "
            + (f"`{v.result_key}`" if v.result_key else "the activity voted on")
            + (f" (seed intent `{v.seed_intent_key}`)" if v.seed_intent_key else "")
            for v in op.versions
        )
        answer = f"default `{op.default_type}`<br>{types}"
    else:
        answer = ", ".join(f"`{k}`" for k in op.result_keys)
    return f"| `{op.path}` | `{op.sdk_method}` | {op.kind} | {op.summary} | {answer} | {seed} |"


def operations_table() -> str:
    lines = [
        "# Operations",
        "",
        "Generated from the registry (`emulator/ops/`) by `python -m emulator.ops.table`;",
        "a test fails when this file and the registry disagree.",
        "",
        "| path | Python SDK method | kind | summary | types → intent / result, or query keys | in seed |",
        "|---|---|---|---|---|---|",
    ]
    for op in sorted(REGISTRY.values(), key=lambda o: (o.kind, o.name)):
        lines.append(_row(op))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # run as a module, the package has filled the registry
    print(operations_table(), end="")
