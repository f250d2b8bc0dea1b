"""``docs/reference/operations.md``: every operation of the official clients, served or not.

The rows are the union of ``@turnkey/http``'s paths (``emulator/ops/official_client.json``),
the Python SDK's (read from the installed ``turnkey_http``'s generated client, without
importing it) and the registry's; each with its status here, the ``ACTIVITY_TYPE_*`` versions
the emulator accepts, the parameters of its default version, what the emulator checks beyond
the happy path, and Turnkey's page for it.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

from emulator.ground.schema import Array, Enum, Field, Object, Spec
from emulator.ops import REGISTRY
from emulator.ops.coverage import OFFICIAL, coverage
from emulator.ops.registry import ACTIVITY, Operation

DOCS_SITE = "https://docs.turnkey.com/api-reference"


def python_sdk_paths() -> tuple[str, dict[str, str]]:
    """The installed Python SDK's version and its ``path -> method`` map ("" and {} when
    ``turnkey_http`` is not installed)."""
    spec = importlib.util.find_spec("turnkey_http")
    if spec is None or spec.origin is None:
        return "", {}
    package = Path(spec.origin).parent
    source = (package / "generated" / "client.py").read_text()
    methods: dict[str, str] = {}
    for match in re.finditer(r'\n    def (\w+)\(self.*?"(/public/v1/[a-z_/0-9]+)"', source, re.S):
        name, path = match.groups()
        if not name.startswith("stamp_"):
            methods.setdefault(path, name)
    version = re.search(r"([0-9]+\.[0-9][^\"]*)\"", (package / "version.py").read_text())
    return (version.group(1) if version else "?"), methods


def _slug(summary: str) -> str:
    """The page name Turnkey's docs site makes of an operation's summary."""
    return re.sub(r"[^a-z0-9]+", "-", re.sub(r"[.']", "", summary.lower())).strip("-")


def _link(op: Operation) -> str:
    folder = "activities" if op.kind == ACTIVITY else "queries"
    return f"[{op.summary}]({DOCS_SITE}/{folder}/{_slug(op.summary)})"


def _params(spec: Object | None, prefix: str = "", depth: int = 0) -> list[str]:
    """``name`` (type) lines, nested objects one level deep; optional ones marked ``?``."""
    if spec is None:
        return []
    lines = []
    for name, field in spec.fields.items():
        assert isinstance(field, Field)
        inner: Spec = field.spec
        if isinstance(inner, Array) and isinstance(inner.items, Object):
            inner, suffix = inner.items, "[]"
        else:
            suffix = ""
        mark = "" if field.required else "?"
        if isinstance(inner, Object) and depth < 1:
            lines.append(f"`{prefix}{name}{suffix}{mark}`")
            lines.extend(_params(inner, f"{prefix}{name}{suffix}.", depth + 1))
        else:
            lines.append(f"`{prefix}{name}{suffix}{mark}`: {_escape(_describe(inner))}")
    return lines


def _describe(spec: Spec) -> str:
    """A spec's type; a long enum by its size and first values."""
    if isinstance(spec, Enum) and len(spec.values) > 6:
        return f"enum of {len(spec.values)} ({', '.join(spec.values[:3])}, …)"
    if isinstance(spec, Array):
        return f"[{_describe(spec.items)}]"
    return spec.describe()


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;")


def _beyond(op: Operation) -> str:
    """What the emulator does beyond the happy path, from the operation's declaration."""
    notes = ["bad fields: 400 naming each"]
    if op.kind == ACTIVITY:
        notes.append("same body: same activity")
        if op.root_quorum_only:
            notes.append("root quorum only")
        elif op.self_service:
            notes.append("a user may run it on their own credentials without a policy")
        else:
            notes.append("policies and consensus judge it")
        if op.parent_may_run:
            notes.append("a parent organization may run it for a sub-organization")
    else:
        notes.append("a read: no policy")
    return "; ".join(notes)


def _served_row(op: Operation, ts: bool, py: str) -> list[str]:
    clients = ", ".join(
        c for c, yes in (("`@turnkey/http`", ts), (f"Python `{py}`", bool(py))) if yes
    )
    lines = [f"### `{op.name}`", "", f"`{op.path}` · {op.kind} · served · {_link(op)}", ""]
    lines.append(f"- clients: {clients or 'neither (served for the OpenAPI document)'}")
    if op.kind == ACTIVITY:
        versions = ", ".join(
            f"`{v.activity_type}`" + (" (default)" if v.activity_type == op.default_type else "")
            for v in op.versions
        )
        lines.append(f"- accepts: {versions}")
        default = next(v for v in op.versions if v.activity_type == op.default_type)
        params, answer = _params(default.params), f"`{default.result_key or 'the activity'}`"
    else:
        params, answer = _params(op.body), ", ".join(f"`{k}`" for k in op.result_keys)
    lines.append(f"- answers: {answer}")
    lines.append(f"- beyond the happy path: {_beyond(op)}")
    if params:
        lines.append("- parameters (`?`: optional): " + "; ".join(params))
    return [*lines, ""]


def operations_page() -> str:
    report = coverage()
    official = json.loads(OFFICIAL.read_text())
    sdk_version, sdk = python_sdk_paths()
    by_path = {op.path: op for op in REGISTRY.values()}
    ts_paths = set(report.official)
    every = sorted(ts_paths | set(sdk) | set(by_path), key=lambda p: (p.split("/")[3], p))
    missing = [p for p in every if p not in by_path]
    out = [
        "# Every operation of the official clients",
        "",
        "Generated by `python docs/_gen/generate.py` from the registry (`emulator/ops/`), the",
        f"path list of `{official['package']}` {official['version']}"
        " (`emulator/ops/official_client.json`) and the Python SDK"
        + (f" `turnkey_http` {sdk_version}" if sdk_version else "")
        + "; a test fails when this page and its generator disagree.",
        "",
        f"Served: {report.summary()}. Beyond the happy path, every operation answers bad",
        "input with the API's error shape (`{code, message, details, turnkeyErrorCode}`) and",
        "changes nothing; the codes are in [Errors](../errors.md). What each family does in",
        "detail: [What each family does](behaviour.md); the methods of the Python object:",
        "[the operations table](../operations.md). Each link goes to Turnkey's page of that",
        "name (the page name is made from the operation's summary, as their site makes it).",
        "",
        "## Not served yet",
        "",
        "| path | `@turnkey/http` | Python SDK |",
        "|---|---|---|",
    ]
    for path in missing:
        ts = "yes" if path in ts_paths else ""
        py = f"`{sdk[path]}`" if path in sdk else ""
        out.append(f"| `{path}` | {ts} | {py} |")
    for kind, title in (("submit", "Activities"), ("query", "Queries")):
        out += ["", f"## {title}", ""]
        for path in every:
            if path in by_path and path.split("/")[3] == kind:
                out += _served_row(by_path[path], path in ts_paths, sdk.get(path, ""))
    return "\n".join(out).rstrip("\n") + "\n"
