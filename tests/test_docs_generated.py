"""The generated reference pages of ``docs/reference/`` are what their generators make
(``docs/_gen/generate.py``): a new operation, option, setting, fixture or control endpoint
shows up there, or this fails naming the command that regenerates them."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GENERATE = ROOT / "docs" / "_gen" / "generate.py"


def _generator():
    spec = importlib.util.spec_from_file_location("docs_generate", GENERATE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "name", ["operations.md", "cli.md", "settings.md", "pytest-plugin.md", "control-plane.md"]
)
def test_the_page_is_what_its_generator_makes(name):
    generate = _generator()
    if name == "operations.md" and importlib.util.find_spec("turnkey_http") is None:
        pytest.skip("the operations page lists the Python SDK's paths: pip install -e '.[test]'")
    made = generate.PAGES[name]()
    assert (ROOT / "docs" / "reference" / name).read_text() == made, (
        f"docs/reference/{name} is stale: python docs/_gen/generate.py"
    )


def test_every_operation_and_every_official_path_is_on_the_operations_page():
    from emulator.ops import REGISTRY
    from emulator.ops.coverage import coverage

    page = (ROOT / "docs" / "reference" / "operations.md").read_text()
    for op in REGISTRY.values():
        assert f"### `{op.name}`" in page
        if op.kind == "activity":
            for version in op.versions:
                assert f"`{version.activity_type}`" in page
    for path in coverage().official:
        assert f"`{path}`" in page


def test_every_control_route_is_on_its_page():
    from emulator.http.control import PREFIX, Control

    page = (ROOT / "docs" / "reference" / "control-plane.md").read_text()
    for name in Control._ACTIONS:
        assert f"`{PREFIX}{name}`" in page


def test_the_check_command_says_when_a_page_is_stale(tmp_path):
    done = subprocess.run(
        [sys.executable, str(GENERATE), "--check"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout
