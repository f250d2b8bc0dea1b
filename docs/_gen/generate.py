"""Write the generated reference pages of ``docs/reference/``.

``python docs/_gen/generate.py`` writes them; ``--check`` writes nothing and exits 1 naming
the pages that differ from what their generators make (``tests/test_docs_generated.py``
checks the same). Run it after adding an operation, an option, a setting, a fixture or a
control endpoint.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for path in (str(ROOT), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from operations_page import operations_page  # noqa: E402
from surfaces import cli_page, control_page, plugin_page, settings_page  # noqa: E402

REFERENCE = ROOT / "docs" / "reference"
PAGES: dict[str, Callable[[], str]] = {
    "operations.md": operations_page,
    "cli.md": cli_page,
    "settings.md": settings_page,
    "pytest-plugin.md": plugin_page,
    "control-plane.md": control_page,
}


def stale() -> list[str]:
    """The pages whose file differs from what their generator makes."""
    return [
        name
        for name, make in PAGES.items()
        if not (REFERENCE / name).is_file() or (REFERENCE / name).read_text() != make()
    ]


def main(argv: list[str]) -> int:
    if "--check" in argv:
        differ = stale()
        for name in differ:
            print(f"docs/reference/{name} is stale: python docs/_gen/generate.py")
        return 1 if differ else 0
    for name, make in PAGES.items():
        (REFERENCE / name).write_text(make())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
