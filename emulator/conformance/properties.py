"""Properties over generated inputs (``hypothesis``), bounded by ``--max-examples``.

``for_all(strategy, check, max_examples)`` runs ``check`` on examples drawn from
``strategy``; the first example whose check raises a ``Mismatch`` stops the search and is
raised again with the example named. No shrinking: each example is a request to the
endpoint, and the first difference is what the report needs. No example database either:
the run leaves nothing behind, on disk included.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from .report import Mismatch

T = TypeVar("T")


class _Stop(Exception):
    pass


def for_all(strategy: SearchStrategy[T], check: Callable[[T], Any], max_examples: int) -> int:
    """Run ``check`` on up to ``max_examples`` examples; the number run. A mismatch is
    raised with its example."""
    seen: list[T] = []
    failure: list[tuple[T, Mismatch]] = []

    @settings(
        max_examples=max(1, max_examples),
        database=None,
        deadline=None,
        phases=(Phase.explicit, Phase.generate),
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def run(example: T) -> None:
        if failure:
            raise _Stop
        seen.append(example)
        try:
            check(example)
        except Mismatch as mismatch:
            failure.append((example, mismatch))
            raise _Stop from None

    with contextlib.suppress(_Stop):
        run()
    if failure:
        example, mismatch = failure[0]
        raise Mismatch(mismatch.expected, f"{mismatch.got} (for {example!r})")
    return len(seen)


def uuids() -> SearchStrategy[str]:
    return st.uuids(version=4).map(str)


def payload_bytes(max_size: int = 64) -> SearchStrategy[bytes]:
    return st.binary(min_size=1, max_size=max_size)


def texts(max_size: int = 40) -> SearchStrategy[str]:
    return st.text(
        alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
        min_size=1,
        max_size=max_size,
    )
