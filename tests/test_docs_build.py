"""The documentation site builds with ``mkdocs build --strict`` (no broken link or anchor, no
missing page, no page left out of the navigation), and the packages it needs are in the
``test`` extra that CI installs as well as in the ``docs`` extra."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_docs_extra_is_in_the_test_extra():
    text = (ROOT / "pyproject.toml").read_text()  # (tomllib is 3.11's; the project runs on 3.10)
    docs = re.search(r"^docs = \[(.*)\]$", text, re.M)
    test = re.search(r"^test = \[(.*?)^\]", text, re.M | re.S)
    assert docs is not None and test is not None
    wanted = re.findall(r'"([^"]+)"', docs.group(1))
    assert wanted and set(wanted) <= set(re.findall(r'"([^"]+)"', test.group(1)))


def test_the_site_builds_strictly(tmp_path):
    for module in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        if importlib.util.find_spec(module.split(".")[0]) is None:
            pytest.skip(f"{module} is not installed: pip install -e '.[docs]' (or '.[test]')")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert not re.search(r"^WARNING", done.stderr, re.M), done.stderr[-4000:]
    home = (tmp_path / "site" / "index.html").read_text()
    assert "turnkey-emulator" in home
    started = (tmp_path / "site" / "getting-started" / "index.html").read_text()
    assert "externally managed" in started  # the README's set-up, included, not copied
    api = (tmp_path / "site" / "reference" / "python-api" / "index.html").read_text()
    assert "create_organization" in api and "TurnkeyApiError" in api
