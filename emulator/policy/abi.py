"""Contract calls read through an uploaded Ethereum ABI (concepts/policies/smart-contract-interfaces).

With an ABI uploaded for a transaction's ``to`` address, ``eth.tx`` gains
``function_name``, ``function_signature`` (``0x`` and the four selector bytes) and
``contract_call_args`` (argument name -> value) for the function whose selector starts
the call data. Values take the policy language's types: integers as ints, addresses and
bytes as lowercase ``0x`` hex (addresses compare case-insensitively, as ``eth.tx.to``
does), strings, bools, arrays as lists and tuples as maps by component name. An argument
without a name is keyed by its position (``'0'``, ``'1'``...). Call data that matches no
function, or does not decode, leaves the three fields out (a policy reading them then
fails to evaluate). Decoding is eth-abi's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..crypto.hashing import keccak256
from .chains import EvmHex

Json = dict[str, Any]


class AbiError(ValueError):
    """An ABI that cannot be read (the text says where)."""


def canonical_type(param: Mapping[str, Any]) -> str:
    """A parameter's type as it appears in a function signature (tuples expanded)."""
    kind = param.get("type")
    if not isinstance(kind, str) or not kind:
        raise AbiError(f"a parameter has no type: {dict(param)!r}")
    if kind.startswith("tuple"):
        components = param.get("components")
        if not isinstance(components, list):
            raise AbiError(f"a tuple parameter has no components: {param.get('name')!r}")
        inner = ",".join(canonical_type(c) for c in components)
        return f"({inner}){kind[len('tuple') :]}"
    return kind


def functions(abi: Sequence[Any]) -> dict[bytes, Mapping[str, Any]]:
    """The ABI's functions by selector; an ``AbiError`` for an entry that does not read."""
    from eth_abi.grammar import parse as parse_type

    found: dict[bytes, Mapping[str, Any]] = {}
    for index, entry in enumerate(abi):
        if not isinstance(entry, Mapping):
            raise AbiError(f"entry {index} is not an object")
        if entry.get("type", "function") != "function":
            continue
        name, inputs = entry.get("name"), entry.get("inputs", [])
        if not isinstance(name, str) or not name or not isinstance(inputs, list):
            raise AbiError(f"function entry {index} needs a name and a list of inputs")
        types = [canonical_type(p) for p in inputs]
        for kind in types:
            try:
                parse_type(kind).validate()
            except Exception:  # eth-abi's ParseError and friends
                raise AbiError(f"function {name}: unknown type {kind!r}") from None
        selector = keccak256(f"{name}({','.join(types)})".encode())[:4]
        found[selector] = entry
    return found


def call_view(abi: Sequence[Any], data: bytes) -> Json:
    """``function_name``, ``function_signature`` and ``contract_call_args`` of ``data``, or
    ``{}`` when no function of ``abi`` matches it or it does not decode."""
    if len(data) < 4:
        return {}
    try:
        entry = functions(abi).get(data[:4])
    except AbiError:
        return {}
    if entry is None:
        return {}
    from eth_abi import decode

    inputs = entry.get("inputs", [])
    try:
        values = decode([canonical_type(p) for p in inputs], data[4:])
    except Exception:  # eth-abi's DecodingError and friends: a call that does not decode
        return {}
    return {
        "function_name": entry["name"],
        "function_signature": "0x" + data[:4].hex(),
        "contract_call_args": _named(inputs, values),
    }


def _named(params: Sequence[Mapping[str, Any]], values: Sequence[Any]) -> Json:
    return {
        (p.get("name") or str(i)): _value(p, v)
        for i, (p, v) in enumerate(zip(params, values, strict=True))
    }


def _value(param: Mapping[str, Any], value: Any) -> Any:
    kind = param.get("type", "")
    if kind.endswith("]"):  # an array: each item has the element's type
        element = {**param, "type": kind[: kind.rindex("[")]}
        return [_value(element, item) for item in value]
    if kind == "tuple":
        return _named(param.get("components", []), value)
    if kind == "address":
        return EvmHex(value.lower())
    if isinstance(value, bytes):
        return "0x" + value.hex()
    return value
