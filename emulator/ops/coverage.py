"""How much of the official client the emulator serves.

``python -m emulator.ops.coverage`` prints how many of the ``/public/v1/`` operations
of the newest official TypeScript client (``official_client.json``: its paths, read
from the package) the registry implements, as activities and queries, and lists the
ones still missing. ``--missing`` prints only those. Operations the emulator serves
beyond that client are listed apart and not counted: those of the official Python SDK
(``turnkey-http`` 0.2.2: its three swap sponsorship paths) named as such.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from .registry import REGISTRY

OFFICIAL = Path(__file__).with_name("official_client.json")
PYTHON_SDK = "the official Python SDK (turnkey-http 0.2.2)"


@dataclass(frozen=True)
class Coverage:
    client: str
    official: tuple[str, ...]
    implemented: tuple[str, ...]
    beyond: tuple[str, ...] = ()  # served, but not in the client
    python_sdk_only: tuple[str, ...] = ()  # of ``beyond``: the Python SDK's

    @property
    def missing(self) -> tuple[str, ...]:
        done = set(self.implemented)
        return tuple(p for p in self.official if p not in done)

    def count(self, kind: str) -> tuple[int, int]:
        """(implemented, official) among the paths of one kind: ``submit`` or ``query``."""
        prefix = f"/public/v1/{kind}/"
        done = set(self.implemented)
        of_kind = [p for p in self.official if p.startswith(prefix)]
        return sum(p in done for p in of_kind), len(of_kind)

    def summary(self) -> str:
        activities, queries = self.count("submit"), self.count("query")
        return (
            f"{len(self.implemented)} of the {len(self.official)} operations of {self.client}: "
            f"{activities[0]} of {activities[1]} activities, {queries[0]} of {queries[1]} queries"
        )


def coverage() -> Coverage:
    data = json.loads(OFFICIAL.read_text())
    official = tuple(data["paths"])
    known = set(official)
    implemented = tuple(sorted(op.path for op in REGISTRY.values() if op.path in known))
    beyond = tuple(sorted(op.path for op in REGISTRY.values() if op.path not in known))
    python_sdk = tuple(
        p for p in beyond if any(o.path == p and o.in_python_sdk for o in REGISTRY.values())
    )
    return Coverage(
        f"{data['package']} {data['version']}", official, implemented, beyond, python_sdk
    )


def main(argv: list[str]) -> int:
    report = coverage()
    if "--missing" not in argv:
        print(report.summary())
        print()
        print("missing:")
    for path in report.missing:
        print(f"  {path}")
    if "--missing" not in argv and report.beyond:
        print()
        print(f"also served, beyond {report.client}:")
        for path in report.beyond:
            source = PYTHON_SDK if path in report.python_sdk_only else "the OpenAPI document"
            print(f"    {path}  (from {source})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
