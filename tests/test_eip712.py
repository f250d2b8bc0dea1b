"""EIP-712 hashing, checked against the spec's example and against eth-account."""

from __future__ import annotations

import copy
import json
import string

import pytest
from eth_account.messages import encode_typed_data
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.crypto.eip712 import (
    TypedDataError,
    encode_type,
    parse_typed_data,
    typed_data_digest,
)
from emulator.crypto.hashing import keccak256

from .typed_data import DOMAIN_TYPE, MAIL, MAIL_DIGEST, field


def reference_digest(document: dict) -> bytes:
    """eth-account's digest: keccak256(0x19 ‖ version ‖ header ‖ body)."""
    signable = encode_typed_data(full_message=copy.deepcopy(document))
    return keccak256(b"\x19" + signable.version + signable.header + signable.body)


DOMAIN = {
    "name": "Test",
    "version": "2",
    "chainId": 10,
    "verifyingContract": "0x1111111111111111111111111111111111111111",
}


def document(types: dict, primary: str, message: dict, domain: dict | None = None) -> dict:
    return {
        "types": {"EIP712Domain": DOMAIN_TYPE, **types},
        "primaryType": primary,
        "domain": DOMAIN if domain is None else domain,
        "message": message,
    }


ALICE = {"name": "Alice", "wallet": "0x" + "aa" * 20}
BOB = {"name": "Bob", "wallet": "0x" + "bB" * 20}
PERSON = [field("name", "string"), field("wallet", "address")]

PERMIT2_TYPES = {
    "PermitDetails": [
        field("token", "address"),
        field("amount", "uint160"),
        field("expiration", "uint48"),
        field("nonce", "uint48"),
    ],
    "PermitBatch": [
        field("details", "PermitDetails[]"),
        field("spender", "address"),
        field("sigDeadline", "uint256"),
    ],
}
PERMIT2_DETAILS = {
    "token": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
    "amount": "1461501637330902918203684832716283019655932542975",  # 2**160 - 1, viem style
    "expiration": "1735689600",
    "nonce": "0",
}

DOCUMENTS = {
    "mail": MAIL,
    "nested structs": document(
        {
            "Person": PERSON,
            "Envelope": [field("mail", "Letter"), field("stamp", "uint8")],
            "Letter": [field("from", "Person"), field("to", "Person"), field("body", "string")],
        },
        "Envelope",
        {"mail": {"from": ALICE, "to": BOB, "body": "hi"}, "stamp": 3},
    ),
    "arrays of structs": document(
        {
            "Person": PERSON,
            "Group": [field("name", "string"), field("members", "Person[]")],
        },
        "Group",
        {"name": "pals", "members": [ALICE, BOB, ALICE]},
    ),
    "empty array": document(
        {"Person": PERSON, "Group": [field("members", "Person[]")]},
        "Group",
        {"members": []},
    ),
    "fixed arrays": document(
        {"Pair": [field("owners", "address[2]"), field("weights", "uint16[3]")]},
        "Pair",
        {"owners": ["0x" + "01" * 20, "0x" + "02" * 20], "weights": [1, "2", 65535]},
    ),
    "nested arrays": document(
        {"Grid": [field("cells", "uint8[2][]"), field("tags", "string[][]")]},
        "Grid",
        {"cells": [[1, 2], [3, 4], [5, 6]], "tags": [["a", "b"], [], ["c"]]},
    ),
    "bytes": document(
        {
            "Blob": [
                field("data", "bytes"),
                field("empty", "bytes"),
                field("hash", "bytes32"),
                field("selector", "bytes4"),
                field("one", "bytes1"),
            ]
        },
        "Blob",
        {
            "data": "0xdeadBEEF00",
            "empty": "0x",
            "hash": "0x" + "ab" * 32,
            "selector": "0xa9059cbb",
            "one": "0xff",
        },
    ),
    "signed integers": document(
        {
            "Numbers": [
                field("a", "int256"),
                field("b", "int8"),
                field("c", "int8"),
                field("d", "int64"),
                field("e", "int256"),
            ]
        },
        "Numbers",
        {"a": -1, "b": -128, "c": 127, "d": "-9223372036854775808", "e": str(-(2**255))},
    ),
    "uint as string": document(
        {"Order": [field("amount", "uint256"), field("deadline", "uint64"), field("ok", "bool")]},
        "Order",
        {"amount": str(2**256 - 1), "deadline": "0x5f5e100", "ok": True},
        domain={**DOMAIN, "chainId": "137"},
    ),
    "domain type omitted": {
        "types": {"Person": PERSON},
        "primaryType": "Person",
        "domain": {"name": "No Type", "chainId": "1", "verifyingContract": "0x" + "cc" * 20},
        "message": ALICE,
    },
    "domain with salt": {
        "types": {
            "EIP712Domain": [field("name", "string"), field("salt", "bytes32")],
            "Person": PERSON,
        },
        "primaryType": "Person",
        "domain": {"name": "Salty", "salt": "0x" + "5a" * 32},
        "message": ALICE,
    },
    "permit2 batch": {
        "types": {
            "EIP712Domain": [
                field("name", "string"),
                field("chainId", "uint256"),
                field("verifyingContract", "address"),
            ],
            **PERMIT2_TYPES,
        },
        "primaryType": "PermitBatch",
        "domain": {
            "name": "Permit2",
            "chainId": "1",
            "verifyingContract": "0x000000000022d473030f116ddee9f6b43ac78ba3",
        },
        "message": {
            "details": [PERMIT2_DETAILS, {**PERMIT2_DETAILS, "nonce": "7"}],
            "spender": "0x3fC91A3afd70395Cd496C647d5a6CC9D4B2b7FAD",
            "sigDeadline": "1735693200",
        },
    },
    "references sorted": document(
        {
            "Zeta": [field("b", "Beta"), field("m", "Mu[]")],
            "Mu": [field("a", "Alpha")],
            "Beta": [field("x", "uint256")],
            "Alpha": [field("y", "bool")],
        },
        "Zeta",
        {"b": {"x": 1}, "m": [{"a": {"y": False}}]},
    ),
    "extra message fields ignored": document(
        {"Person": PERSON}, "Person", {**ALICE, "ignored": {"anything": [1, 2]}}
    ),
}


def test_mail_example_matches_the_spec() -> None:
    assert typed_data_digest(MAIL).hex() == MAIL_DIGEST
    assert reference_digest(MAIL).hex() == MAIL_DIGEST
    assert typed_data_digest(parse_typed_data(json.dumps(MAIL))).hex() == MAIL_DIGEST


def test_encode_type_matches_the_spec() -> None:
    assert (
        encode_type("Mail", MAIL["types"])
        == "Mail(Person from,Person to,string contents)Person(string name,address wallet)"
    )


def test_referenced_types_are_sorted_after_the_primary_type() -> None:
    types = DOCUMENTS["references sorted"]["types"]
    assert encode_type("Zeta", types) == (
        "Zeta(Beta b,Mu[] m)Alpha(bool y)Beta(uint256 x)Mu(Alpha a)"
    )


@pytest.mark.parametrize("name", DOCUMENTS)
def test_digest_matches_eth_account(name: str) -> None:
    doc = DOCUMENTS[name]
    assert typed_data_digest(doc) == reference_digest(doc)
    assert typed_data_digest(parse_typed_data(json.dumps(doc))) == reference_digest(doc)


def test_omitted_domain_type_is_derived_in_canonical_order() -> None:
    explicit = copy.deepcopy(MAIL)
    implicit = copy.deepcopy(MAIL)
    del implicit["types"]["EIP712Domain"]
    implicit["domain"] = dict(reversed(list(MAIL["domain"].items())))  # key order is irrelevant
    assert typed_data_digest(implicit) == typed_data_digest(explicit)


def test_empty_domain_without_type_hashes_an_empty_domain_struct() -> None:
    doc = {"types": {"Person": PERSON}, "primaryType": "Person", "domain": {}, "message": ALICE}
    assert typed_data_digest(doc) == reference_digest(doc)


def test_primary_type_eip712domain_hashes_the_domain_only() -> None:
    # viem's hashTypedData leaves the message out when primaryType is EIP712Domain.
    doc = {"types": MAIL["types"], "primaryType": "EIP712Domain", "domain": MAIL["domain"]}
    domain_type = encode_type("EIP712Domain", MAIL["types"]).encode()
    separator = keccak256(
        keccak256(domain_type)
        + keccak256(b"Ether Mail")
        + keccak256(b"1")
        + (1).to_bytes(32, "big")
        + bytes(12)
        + bytes.fromhex("CcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC")
    )
    assert typed_data_digest(doc) == keccak256(b"\x19\x01" + separator)


def test_number_spellings_agree() -> None:
    def amount_doc(value):
        return document({"T": [field("v", "uint256")]}, "T", {"v": value})

    digests = {typed_data_digest(amount_doc(v)) for v in (255, "255", "0xff", "0XFF", 255.0)}
    assert len(digests) == 1


# --- bad documents -------------------------------------------------------------------------


def with_message(kind: str, value) -> dict:
    return document({"T": [field("v", kind)]}, "T", {"v": value})


BAD_DOCUMENTS = {
    "types not an object": {**MAIL, "types": []},
    "no primaryType": {k: v for k, v in MAIL.items() if k != "primaryType"},
    "primaryType undefined": {**MAIL, "primaryType": "Letter"},
    "no message": {k: v for k, v in MAIL.items() if k != "message"},
    "message not an object": {**MAIL, "message": [1]},
    "domain not an object": {**MAIL, "domain": "x"},
    "unknown field type": document({"T": [field("v", "Unknown")]}, "T", {"v": 1}),
    "uint7": with_message("uint7", 1),
    "uint264": with_message("uint264", 1),
    "bytes33": with_message("bytes33", "0x" + "00" * 33),
    "bytes0": with_message("bytes0", "0x"),
    "zero-length array": with_message("uint8[0]", []),
    "atomic type name": document({"uint256": [field("v", "bool")]}, "uint256", {"v": True}),
    "invalid type name": document({"Bad Name": [field("v", "bool")]}, "Bad Name", {"v": True}),
    "duplicate field": document({"T": [field("v", "bool"), field("v", "uint8")]}, "T", {"v": True}),
    "field without type": document({"T": [{"name": "v"}]}, "T", {"v": True}),
    "missing field": document({"T": [field("v", "bool"), field("w", "bool")]}, "T", {"v": True}),
    "null field": with_message("bool", None),
    "missing domain field": {**MAIL, "domain": {"name": "Ether Mail"}},
    "unknown derived domain field": {
        "types": {"Person": PERSON},
        "primaryType": "Person",
        "domain": {"name": "x", "colour": "red"},
        "message": ALICE,
    },
    "uint negative": with_message("uint256", -1),
    "uint too big": with_message("uint256", 2**256),
    "uint8 too big string": with_message("uint8", "256"),
    "int8 too small": with_message("int8", -129),
    "int8 too big": with_message("int8", "128"),
    "int as bool": with_message("uint8", True),
    "int as fraction": with_message("uint8", 1.5),
    "int as word": with_message("uint8", "ten"),
    "int as empty string": with_message("uint8", ""),
    "int with spaces": with_message("uint8", " 1"),
    "int huge string": with_message("uint256", "1" * 5000),
    "bool as string": with_message("bool", "true"),
    "bool as int": with_message("bool", 1),
    "address short": with_message("address", "0x" + "11" * 19),
    "address without 0x": with_message("address", "11" * 20),
    "address not hex": with_message("address", "0x" + "zz" * 20),
    "bytes32 short": with_message("bytes32", "0x" + "11" * 31),
    "bytes odd hex": with_message("bytes", "0xabc"),
    "bytes as list": with_message("bytes", [1, 2]),
    "string as number": with_message("string", 5),
    "string with lone surrogate": with_message("string", "\ud800"),
    "array not a list": with_message("uint8[]", "1,2"),
    "fixed array wrong length": with_message("uint8[2]", [1, 2, 3]),
    "struct not an object": document(
        {"Person": PERSON, "T": [field("p", "Person")]}, "T", {"p": "Alice"}
    ),
    "nested bad value": document(
        {"Person": PERSON, "T": [field("p", "Person[]")]},
        "T",
        {"p": [ALICE, {"name": "x", "wallet": "0x12"}]},
    ),
}


@pytest.mark.parametrize("name", BAD_DOCUMENTS)
def test_bad_documents_raise(name: str) -> None:
    with pytest.raises(TypedDataError):
        typed_data_digest(BAD_DOCUMENTS[name])


def test_errors_name_the_problem() -> None:
    with pytest.raises(TypedDataError, match=r"message\.p\[1\]\.wallet"):
        typed_data_digest(BAD_DOCUMENTS["nested bad value"])
    with pytest.raises(TypedDataError, match="Unknown"):
        typed_data_digest(BAD_DOCUMENTS["unknown field type"])
    with pytest.raises(TypedDataError, match="'w'"):
        typed_data_digest(BAD_DOCUMENTS["missing field"])


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "[]",
        '"string"',
        "{",
        '{"types": {}, "primaryType": "T", "domain": {}, "message": NaN}',
        "[" * 100_000,
    ],
)
def test_parse_rejects_bad_json(text: str) -> None:
    with pytest.raises(TypedDataError):
        parse_typed_data(text)


def test_parse_returns_the_document() -> None:
    assert parse_typed_data(json.dumps(MAIL)) == MAIL


# --- generated documents -------------------------------------------------------------------

NAMES = st.text(string.ascii_lowercase, min_size=1, max_size=6)


def _hex(data: bytes) -> str:
    return "0x" + data.hex()


@st.composite
def atomic(draw) -> tuple[str, st.SearchStrategy]:
    kind = draw(st.sampled_from(["uint", "int", "address", "bool", "bytesN", "bytes", "string"]))
    if kind in ("uint", "int"):
        bits = draw(st.sampled_from([8, 16, 32, 64, 128, 160, 256]))
        low, high = (
            (0, 2**bits - 1) if kind == "uint" else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        )
        ints = st.integers(low, high)
        return f"{kind}{bits}", st.one_of(ints, ints.map(str))
    if kind == "address":
        return "address", st.binary(min_size=20, max_size=20).map(_hex)
    if kind == "bool":
        return "bool", st.booleans()
    if kind == "bytesN":
        size = draw(st.integers(1, 32))
        return f"bytes{size}", st.binary(min_size=size, max_size=size).map(_hex)
    if kind == "bytes":
        return "bytes", st.binary(max_size=40).map(_hex)
    return "string", st.text(max_size=20)


@st.composite
def typed_documents(draw) -> dict:
    types: dict[str, list] = {}
    counter = iter(range(1000))

    def struct(depth: int) -> tuple[str, st.SearchStrategy]:
        name = f"S{next(counter)}"
        fields, values = [], {}
        names = draw(st.lists(NAMES, min_size=1, max_size=4, unique=True))
        for field_name in names:
            shape = draw(st.sampled_from(["atomic", "array", "fixed", "struct", "structs"]))
            if shape in ("struct", "structs") and depth < 2:
                kind, values_strategy = struct(depth + 1)
            else:
                kind, values_strategy = draw(atomic())
            if shape in ("array", "structs"):
                kind, values_strategy = f"{kind}[]", st.lists(values_strategy, max_size=3)
            elif shape == "fixed":
                size = draw(st.integers(1, 3))
                kind = f"{kind}[{size}]"
                values_strategy = st.lists(values_strategy, min_size=size, max_size=size)
            fields.append(field(field_name, kind))
            values[field_name] = values_strategy
        types[name] = fields
        return name, st.fixed_dictionaries(values)

    primary, message_strategy = struct(0)
    message = draw(message_strategy)
    domain = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "name": st.text(max_size=10),
                "version": st.text(min_size=1, max_size=5),
                "chainId": st.integers(1, 2**64),
                "verifyingContract": st.binary(min_size=20, max_size=20).map(_hex),
                "salt": st.binary(min_size=32, max_size=32).map(_hex),
            },
        )
    )
    return {"types": types, "primaryType": primary, "domain": domain, "message": message}


@settings(max_examples=150, deadline=None)
@given(typed_documents())
def test_generated_documents_match_eth_account(doc: dict) -> None:
    assert typed_data_digest(doc) == reference_digest(doc)
    assert typed_data_digest(parse_typed_data(json.dumps(doc))) == typed_data_digest(doc)
