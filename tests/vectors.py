"""Public test vectors from ``fixtures/crypto-vectors.json``, by kind."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@cache
def _all() -> tuple[dict[str, Any], ...]:
    data = json.loads((FIXTURES / "crypto-vectors.json").read_text())
    return tuple(data["vectors"])


def vectors(*kinds: str) -> list[dict[str, Any]]:
    """Every vector whose ``kind`` is one of ``kinds``, in file order."""
    found = [v for v in _all() if v["kind"] in kinds]
    assert found, f"no vectors of kind {kinds}"
    return found


def vector_id(vector: dict[str, Any]) -> str:
    return vector["name"]
