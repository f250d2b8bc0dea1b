"""Hypothesis strategies for what ``sign_raw_payload`` signs: ``payloads(curve)`` and
``eip712_documents()``, with the names of the encodings and hash functions they draw.

Part of ``emulator.testing.strategies``, which re-exports every name here: import them from
there.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from ..ground.enums import CURVES

Json = dict[str, Any]

SECP256K1, ED25519, P256 = "CURVE_SECP256K1", "CURVE_ED25519", "CURVE_P256"
HEXADECIMAL = "PAYLOAD_ENCODING_HEXADECIMAL"
TEXT_UTF8 = "PAYLOAD_ENCODING_TEXT_UTF8"
EIP712 = "PAYLOAD_ENCODING_EIP712"
NO_OP = "HASH_FUNCTION_NO_OP"
SHA256 = "HASH_FUNCTION_SHA256"
KECCAK256 = "HASH_FUNCTION_KECCAK256"
NOT_APPLICABLE = "HASH_FUNCTION_NOT_APPLICABLE"


# --- payloads ---------------------------------------------------------------------------


def _hex_payloads(data: SearchStrategy[bytes]) -> SearchStrategy[str]:
    return st.builds(
        lambda raw, prefix, upper: prefix + (raw.hex().upper() if upper else raw.hex()),
        data,
        st.sampled_from(("", "0x")),
        st.booleans(),
    )


def payloads(
    curve: str, *, eip712: bool = True, max_size: int = 64
) -> SearchStrategy[tuple[str, str, str]]:
    """``(payload, encoding, hash_function)`` that ``sign_raw_payload`` signs with ``curve``.

    ECDSA curves: hex with SHA256 or KECCAK256 (any length) or NO_OP (exactly 32 bytes),
    UTF-8 text with SHA256 or KECCAK256, and (``eip712``) a typed-data document with NO_OP
    or KECCAK256. Ed25519: hex or text with NOT_APPLICABLE (it signs the message itself).
    """
    if curve not in CURVES:
        raise ValueError(f"unknown curve {curve!r}")
    some_bytes = st.binary(min_size=1, max_size=max_size)
    text = st.text(min_size=1, max_size=max_size)
    if curve == ED25519:
        return st.one_of(
            st.tuples(_hex_payloads(some_bytes), st.just(HEXADECIMAL), st.just(NOT_APPLICABLE)),
            st.tuples(text, st.just(TEXT_UTF8), st.just(NOT_APPLICABLE)),
        )
    hashed = st.sampled_from((SHA256, KECCAK256))
    options = [
        st.tuples(_hex_payloads(some_bytes), st.just(HEXADECIMAL), hashed),
        st.tuples(
            _hex_payloads(st.binary(min_size=32, max_size=32)), st.just(HEXADECIMAL), st.just(NO_OP)
        ),
        st.tuples(text, st.just(TEXT_UTF8), hashed),
    ]
    if eip712:
        documents = eip712_documents().map(json.dumps)
        options.append(st.tuples(documents, st.just(EIP712), st.sampled_from((NO_OP, KECCAK256))))
    return st.one_of(options)


# --- EIP-712 ----------------------------------------------------------------------------


def _hex_value(size: int | None) -> SearchStrategy[str]:
    data = st.binary(max_size=32) if size is None else st.binary(min_size=size, max_size=size)
    return data.map(lambda b: "0x" + b.hex())


_ATOMIC_VALUES: dict[str, SearchStrategy[Any]] = {
    "string": st.text(max_size=16),
    "bool": st.booleans(),
    "address": _hex_value(20),
    "bytes32": _hex_value(32),
    "bytes4": _hex_value(4),
    "bytes": _hex_value(None),
    "uint256": st.integers(0, 2**256 - 1),
    "uint64": st.integers(0, 2**64 - 1),
    "uint8": st.integers(0, 255),
    "int256": st.integers(-(2**255), 2**255 - 1),
    "int32": st.integers(-(2**31), 2**31 - 1),
}
_DOMAIN_FIELDS = {
    "name": ("string", st.text(max_size=16)),
    "version": ("string", st.sampled_from(("1", "2", "1.0.0"))),
    "chainId": ("uint256", st.integers(1, 2**64)),
    "verifyingContract": ("address", _hex_value(20)),
    "salt": ("bytes32", _hex_value(32)),
}
_FIELD_NAMES = st.from_regex(r"[a-z][A-Za-z0-9_]{0,7}", fullmatch=True)


def _struct_fields(kinds: SearchStrategy[str]) -> SearchStrategy[list[tuple[str, str]]]:
    return st.lists(
        st.tuples(_FIELD_NAMES, kinds), min_size=1, max_size=4, unique_by=lambda f: f[0]
    )


def _value_of(kind: str, inner: list[tuple[str, str]]) -> SearchStrategy[Any]:
    if kind.endswith("[]"):
        return st.lists(_value_of(kind[:-2], inner), max_size=3)
    if kind == "Inner":
        return st.fixed_dictionaries({name: _value_of(k, inner) for name, k in inner})
    return _ATOMIC_VALUES[kind]


@st.composite
def eip712_documents(draw: st.DrawFn) -> Json:
    """Small typed-data documents (``{types, primaryType, domain, message}``) of atomic
    fields, arrays and one nested struct; the JSON that ``PAYLOAD_ENCODING_EIP712`` takes."""
    atomic = st.sampled_from(sorted(_ATOMIC_VALUES))
    inner = draw(_struct_fields(atomic))
    outer_kinds = st.one_of(
        atomic, atomic.map(lambda k: k + "[]"), st.sampled_from(("Inner", "Inner[]"))
    )
    outer = draw(_struct_fields(outer_kinds))
    uses_inner = any(kind.startswith("Inner") for _, kind in outer)
    domain_names = draw(
        st.lists(st.sampled_from(list(_DOMAIN_FIELDS)), min_size=1, max_size=5, unique=True)
    )
    domain_names = [name for name in _DOMAIN_FIELDS if name in domain_names]  # canonical order
    types: Json = {
        "EIP712Domain": [{"name": n, "type": _DOMAIN_FIELDS[n][0]} for n in domain_names],
        "Message": [{"name": n, "type": k} for n, k in outer],
    }
    if uses_inner:
        types["Inner"] = [{"name": n, "type": k} for n, k in inner]
    return {
        "types": types,
        "primaryType": "Message",
        "domain": {name: draw(_DOMAIN_FIELDS[name][1]) for name in domain_names},
        "message": {name: draw(_value_of(kind, inner)) for name, kind in outer},
    }
