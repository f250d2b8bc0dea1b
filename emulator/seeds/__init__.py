"""The example seed files shipped with the package, found by name from anywhere.

``emu.seed("basic")`` (or ``"basic.yaml"``) reads ``emulator/seeds/basic.json``; a path to
a file of your own works as well. See ``emulator/facade/seedfile.py`` for the format.

Layer: the ground (data files only). May import: nothing of the emulator.
"""

from __future__ import annotations

import os
from pathlib import Path

HERE = Path(__file__).parent


def names() -> list[str]:
    """The shipped seed files, by file name (``basic.json``, ``basic.yaml``, ...)."""
    return sorted(p.name for p in HERE.iterdir() if p.suffix in (".json", ".yaml"))


def locate(source: str | os.PathLike[str]) -> Path:
    """The seed file ``source`` names: an existing path, else a shipped seed file by its
    name with or without ``.json`` (``"basic"``, ``"policies.yaml"``)."""
    path = Path(source)
    if path.is_file():
        return path
    if path.name == str(source):  # a bare name, not a path
        for candidate in (HERE / path.name, HERE / f"{path.name}.json"):
            if candidate.is_file() and candidate.suffix in (".json", ".yaml"):
                return candidate
    raise FileNotFoundError(
        f"no seed file {str(source)!r}: give a path, or the name of a shipped one "
        f"({', '.join(names())})"
    )
