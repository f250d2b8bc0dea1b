"""The runnable code blocks of a Markdown page (the README and every page of ``docs/``).

A block runs when the line before its fence is a marker (``docs/contributing/examples.md``):

* ``<!-- run -->`` before a ``python`` block: executed in order with the page's other ``run``
  blocks, in one namespace;
* ``<!-- pytest -->`` before a ``python`` block: a test file of its own, run by pytest;
* ``<!-- shell -->`` before a ``sh`` block: run by ``bash -euo pipefail`` against a live server;
* ``<!-- node -->`` before a ``ts`` or ``js`` block: run by node as an ES module beside
  ``tests/interop``'s packages, against a live server;
* ``<!-- server -->`` before a ``sh`` block: the README's ``serve`` command, started as written.

Every other block is shown, not run. A marker must stand right above a fence of its language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
LANGUAGES = {
    "run": ("python",),
    "pytest": ("python",),
    "shell": ("sh",),
    "node": ("ts", "js"),
    "server": ("sh",),
}
MARKER = re.compile(r"^<!-- (\w+) -->\n", re.M)
FENCE = re.compile(r"```(\w*)\n(.*?)^```", re.S | re.M)


@dataclass(frozen=True)
class Block:
    kind: str
    language: str
    code: str  # padded with newlines so that tracebacks give the page's line numbers
    line: int


def blocks(path: Path) -> list[Block]:
    """The marked blocks of ``path``, in order; a misplaced marker is an error."""
    text = path.read_text()
    found = []
    for marker in MARKER.finditer(text):
        kind = marker.group(1)
        line = text.count("\n", 0, marker.start()) + 1
        if kind not in LANGUAGES:
            continue  # another HTML comment
        fence = FENCE.match(text, marker.end())
        if fence is None or fence.group(1) not in LANGUAGES[kind]:
            raise AssertionError(
                f"{path.name}:{line}: <!-- {kind} --> must stand right above a ```"
                f"{' or ```'.join(LANGUAGES[kind])} block"
            )
        padding = "\n" * text.count("\n", 0, fence.start(2))
        found.append(Block(kind, fence.group(1), padding + fence.group(2), line))
    return found


def pages() -> list[Path]:
    """Every Markdown page of the site."""
    return sorted(DOCS.rglob("*.md"))
