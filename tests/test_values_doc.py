"""``docs/values.md`` cannot drift: each row that names a constant holds its value.

A row's **Constant** cell is ``module:NAME`` or ``module:Class.attribute`` (a ``Settings``
knob's default); its **Emulator** cell is the value's ``repr`` in backquotes.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "values.md"
ROW = re.compile(
    r"^\| (?P<name>[^|]+?) \| (?P<value>[^|]+?) \| (?P<constant>[^|]+?) \| (?P<source>.+) \|$"
)


def rows() -> list[dict[str, str]]:
    found = []
    for line in DOC.read_text().splitlines():
        match = ROW.match(line)
        if match and match["name"] not in ("Value", ":---"):
            found.append(match.groupdict())
    return found


def constant_rows() -> list[tuple[str, str, str]]:
    return [
        (r["name"], r["value"].strip("`"), r["constant"].strip("`"))
        for r in rows()
        if r["constant"] != "—"
    ]


def resolve(path: str) -> object:
    module_name, _, attributes = path.partition(":")
    value: object = importlib.import_module(module_name)
    for attribute in attributes.split("."):
        value = getattr(value, attribute)
    return value


def test_the_table_is_read_whole() -> None:
    every = rows()
    assert len(every) >= 70
    assert all(r["source"].strip() for r in every)
    assert len(constant_rows()) >= 60
    # a row without a constant still says where its value comes from, or why it was chosen
    for row in every:
        assert row["value"].strip() and row["name"].strip()


@pytest.mark.parametrize(("name", "value", "constant"), constant_rows())
def test_each_named_constant_holds_the_documented_value(name, value, constant) -> None:
    assert repr(resolve(constant)) == value, name
