"""The report: one line per check, ``PASS name`` or ``FAIL name: expected … got …``, and a
closing line ``N passed, M failed``; written as it goes (to stdout and, with ``--report``,
to a file)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO


class Mismatch(Exception):
    """A difference from the emulator's behaviour: what was expected and what came."""

    def __init__(self, expected: Any, got: Any) -> None:
        super().__init__(f"expected {expected} got {got}")
        self.expected = expected
        self.got = got


def expect(condition: bool, expected: Any, got: Any) -> None:
    if not condition:
        raise Mismatch(expected, got)


def expect_equal(got: Any, expected: Any, what: str = "") -> None:
    if got != expected:
        label = f"{what} " if what else ""
        raise Mismatch(f"{label}{expected!r}", repr(got))


def _one_line(text: str, limit: int = 400) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class Report:
    """The lines of one run, echoed to ``streams`` as they come."""

    def __init__(self, *streams: TextIO) -> None:
        self.streams = streams
        self.lines: list[str] = []
        self.passed = 0
        self.failed = 0

    def _emit(self, line: str) -> None:
        self.lines.append(line)
        for stream in self.streams:
            print(line, file=stream, flush=True)

    def passes(self, name: str) -> None:
        self.passed += 1
        self._emit(f"PASS {name}")

    def fails(self, name: str, expected: Any, got: Any) -> None:
        self.failed += 1
        self._emit(f"FAIL {name}: expected {_one_line(expected)} got {_one_line(got)}")

    def check(self, name: str, body: Callable[[], Any]) -> bool:
        """Run one check: PASS if it returns, FAIL with its mismatch (or the exception that
        stopped it) otherwise. ``KeyboardInterrupt`` goes through (the runner cleans up)."""
        try:
            body()
        except Mismatch as mismatch:
            self.fails(name, mismatch.expected, mismatch.got)
            return False
        except Exception as error:  # the endpoint answered something the check cannot read
            self.fails(name, "the check to run", f"{type(error).__name__}: {error}")
            return False
        self.passes(name)
        return True

    def summary(self) -> str:
        line = f"{self.passed} passed, {self.failed} failed"
        self._emit(line)
        return line

    @property
    def ok(self) -> bool:
        return self.failed == 0
