"""Hypothesis: any value of any IDL type the docs list, borsh-encoded here (by the format's
rules, written out with ``struct`` and ``int.to_bytes``), decodes to the documented view, and
any cut short fails cleanly (a ``BorshError``, never another exception)."""

from __future__ import annotations

import itertools
import struct
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.crypto.base58 import base58_encode
from emulator.policy import borsh, idl

INTEGERS = [(f"{sign}{bits}", bits, sign == "i") for sign in "ui" for bits in (8, 16, 32, 64, 128)]


_NAMES = itertools.count()


def u32(n: int) -> bytes:
    return n.to_bytes(4, "little")


class Case:
    """A type in IDL JSON, the bytes of one value, and the view the decoder should answer
    (``borsh.ABSENT`` for an absent option)."""

    def __init__(self, kind: Any, data: bytes, view: Any, types: dict[str, Any]) -> None:
        self.kind, self.data, self.view, self.types = kind, data, view, types


@st.composite
def integers(draw) -> Case:
    name, bits, signed = draw(st.sampled_from(INTEGERS))
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    value = draw(st.integers(low, high))
    return Case(name, value.to_bytes(bits // 8, "little", signed=signed), value, {})


@st.composite
def scalars(draw) -> Case:
    choice = draw(st.sampled_from(["int", "bool", "string", "bytes", "pubkey", "f64"]))
    if choice == "int":
        return draw(integers())
    if choice == "bool":
        flag = draw(st.booleans())
        return Case("bool", bytes([flag]), flag, {})
    if choice == "string":
        text = draw(st.text(max_size=8))
        raw = text.encode()
        return Case("string", u32(len(raw)) + raw, text, {})
    if choice == "bytes":
        raw = draw(st.binary(max_size=8))
        return Case("bytes", u32(len(raw)) + raw, raw.hex(), {})
    if choice == "pubkey":
        raw = draw(st.binary(min_size=32, max_size=32))
        return Case(draw(st.sampled_from(["pubkey", "publicKey"])), raw, base58_encode(raw), {})
    number = draw(st.floats(allow_nan=False))
    return Case("f64", struct.pack("<d", number), repr(number), {})


def _merged(cases: list[Case]) -> dict[str, Any]:
    types: dict[str, Any] = {}
    for case in cases:
        types.update(case.types)
    return types


def _plain(view: Any) -> Any:
    return None if view is borsh.ABSENT else view


@st.composite
def composites(draw, children) -> Case:
    choice = draw(st.sampled_from(["vec", "array", "option", "struct", "enum", "alias"]))
    name = f"T{next(_NAMES)}"  # unique: a name drawn twice would define one type twice
    if choice in ("vec", "array"):
        element = draw(children)
        count = draw(st.integers(0, 3))
        items = [element] + [draw(_same_type(element)) for _ in range(count - 1)] if count else []
        kind = {"vec": element.kind} if choice == "vec" else {"array": [element.kind, count]}
        prefix = u32(count) if choice == "vec" else b""
        data = prefix + b"".join(i.data for i in items)
        return Case(kind, data, [_plain(i.view) for i in items], _merged([element, *items]))
    if choice == "option":
        inner = draw(children)
        spelled = draw(st.sampled_from(["option", "coption"]))
        tag_size = 1 if spelled == "option" else 4
        if draw(st.booleans()):
            return Case(
                {spelled: inner.kind},
                (1).to_bytes(tag_size, "little") + inner.data,
                inner.view,
                inner.types,
            )
        return Case({spelled: inner.kind}, bytes(tag_size), borsh.ABSENT, inner.types)
    defined = draw(st.sampled_from([{"defined": name}, {"defined": {"name": name}}]))
    if choice == "struct":
        fields = draw(st.lists(children, max_size=3))
        named = draw(st.booleans())
        spec = (
            [{"name": f"fieldNo{i}", "type": f.kind} for i, f in enumerate(fields)]
            if named
            else [f.kind for f in fields]
        )
        view = {
            (f"field_no{i}" if named else str(i)): f.view
            for i, f in enumerate(fields)
            if f.view is not borsh.ABSENT
        }
        types = {
            **_merged(fields),
            name: {"name": name, "type": {"kind": "struct", "fields": spec}},
        }
        return Case(defined, b"".join(f.data for f in fields), view, types)
    if choice == "enum":
        chosen = draw(st.lists(children, max_size=2))
        index = draw(st.integers(0, 2))
        variants: list[dict[str, Any]] = [{"name": f"V{i}"} for i in range(3)]
        if chosen:
            variants[index]["fields"] = [
                {"name": f"x{i}", "type": c.kind} for i, c in enumerate(chosen)
            ]
        view: Any = (
            {
                f"V{index}": {
                    f"x{i}": c.view for i, c in enumerate(chosen) if c.view is not borsh.ABSENT
                }
            }
            if chosen
            else f"V{index}"
        )
        types = {
            **_merged(chosen),
            name: {"name": name, "type": {"kind": "enum", "variants": variants}},
        }
        return Case(defined, bytes([index]) + b"".join(c.data for c in chosen), view, types)
    inner = draw(children)
    types = {**inner.types, name: {"name": name, "type": {"kind": "type", "alias": inner.kind}}}
    return Case(defined, inner.data, inner.view, types)


def _same_type(case: Case):
    """Another value of ``case``'s type: for the items of a vector or an array (scalars only
    vary; composite items repeat the first)."""
    if isinstance(case.kind, str):
        return scalars().filter(lambda other: other.kind == case.kind)
    return st.just(case)


CASES = st.recursive(scalars(), lambda children: composites(children), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(cases=st.lists(CASES, min_size=1, max_size=4), trailing=st.binary(max_size=3))
def test_any_value_decodes_to_its_view_and_any_cut_fails_cleanly(cases, trailing):
    types = _merged(cases)
    args = [{"name": f"argNo{i}", "type": c.kind} for i, c in enumerate(cases)]
    document = {
        "instructions": [{"name": "doIt", "accounts": [{"name": "payer"}], "args": args}],
        "types": list(types.values()),
    }
    found = idl.program(document)
    data = b"".join(c.data for c in cases)
    discriminator = found.instructions[0].discriminator
    parsed = idl.parsed_instruction(found, discriminator + data + trailing, ["K"])
    assert parsed is not None
    assert parsed["instruction_name"] == "do_it"
    assert parsed["named_accounts"] == {"payer": "K"}
    assert parsed["program_call_args"] == {
        f"arg_no{i}": c.view for i, c in enumerate(cases) if c.view is not borsh.ABSENT
    }
    for cut in range(len(data)):
        reader = borsh.Reader(data[:cut])
        try:
            borsh.fields_of(args, reader, found.resolve, idl.snake_case)
        except borsh.BorshError:
            continue
        # a shorter prefix can still decode only if the rest was trailing zero-size values
        assert reader.at == cut
