"""The policy expression language: grammar, errors, evaluation, time functions.

Expected parse-error texts are what LALRPOP's ``ParseError`` Display gives for
this grammar (offsets in UTF-8 bytes, "Expected one of" left off).  Example
expressions come from Turnkey's policy docs (features/policies/...), with
their placeholders replaced by realistic values.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.policy import (
    Expression,
    Lazy,
    PolicyEvaluationError,
    PolicySyntaxError,
    Timestamp,
    parse,
)

try:
    ZoneInfo("America/New_York")
    HAVE_TZDATA = True
except ZoneInfoNotFoundError:
    HAVE_TZDATA = False
needs_tzdata = pytest.mark.skipif(not HAVE_TZDATA, reason="no IANA time zone data here")

USER_ID = "4b8f2f1e-6a1c-4c55-9c3e-2d7d4e1b9a01"
OTHER_USER_ID = "9e1d7c3a-0b2f-4e8d-8f6a-5c4b3a291807"
TAG_ID = "c0ffee00-1234-4abc-8def-0123456789ab"
OPS_TAG_ID = "0b5e55ed-4321-4cba-8fed-ba9876543210"
WALLET_ID = "7d3c9a1e-2f4b-4d6e-8a0c-1b2e3f4a5b6c"
ETH_ADDRESS = "0x08d2b0a37F869FF76BACB5Bab3278E26ab7067B7"
USDC = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
SOL_ADDRESS = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"

U256_MAX = 2**256 - 1
I128_MIN = -(2**127)


def ev(text: str, env: Mapping[str, Any] | None = None) -> Any:
    return parse(text).evaluate(env or {})


def error_of(text: str, env: Mapping[str, Any] | None = None) -> str:
    with pytest.raises(PolicyEvaluationError) as caught:
        parse(text).evaluate(env or {})
    return str(caught.value)


def syntax_error_of(text: str) -> str:
    with pytest.raises(PolicySyntaxError) as caught:
        parse(text)
    return str(caught.value)


def ts(text: str) -> Timestamp:
    return Timestamp.parse(text)


# --- literals and operators -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("true", True),
        ("false", False),
        ("0", 0),
        ("256", 256),
        ("007", 7),
        ("170141183460469231731687303715884105728", 2**127),
        (str(U256_MAX), U256_MAX),
        ("'a'", "a"),
        ("''", ""),
        ("'with spaces and \"double\" quotes'", 'with spaces and "double" quotes'),
        ("[1, 2, 3]", [1, 2, 3]),
        ("[]", []),
        ("['a', 'b',]", ["a", "b"]),
        ("[[1], [2, 3]]", [[1], [2, 3]]),
        ("(((1)))", 1),
    ],
)
def test_literals(text: str, value: object) -> None:
    assert ev(text) == value
    assert type(ev(text)) is type(value)


def test_integer_literal_beyond_u256_is_a_syntax_error() -> None:
    assert (
        syntax_error_of(str(U256_MAX + 1)) == "parse error: number too large to fit in target type"
    )


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("true && true", True),
        ("true && false", False),
        ("false || true", True),
        ("false || false", False),
        ("!true", False),
        ("!false", True),
        ("!!true", True),
        ("!(1 == 2)", True),
        ("true || false && false", True),  # && binds tighter than ||
        ("(true || false) && false", False),
        ("1 < 2", True),
        ("2 < 1", False),
        ("2 > 1", True),
        ("1 <= 1", True),
        ("2 <= 1", False),
        ("1 >= 1", True),
        ("1 >= 2", False),
        ("1 == 1", True),
        ("1 != 1", False),
        ("'a' != 'b'", True),
        ("'a' == 'a'", True),
        ("true == true", True),
        ("true != false", True),
        ("1 == 1 == true", True),  # left-associative
        (f"{U256_MAX} > {2**128}", True),
        (f"{U256_MAX} == {U256_MAX}", True),
        ("1 in [1, 2, 3]", True),
        ("4 in [1, 2, 3]", False),
        ("'b' in ['a', 'b']", True),
        ("'c' in []", False),
        ("true in [false]", False),
    ],
)
def test_operators(text: str, value: bool) -> None:
    assert ev(text) is value


def test_comparisons_of_large_and_negative_env_integers() -> None:
    env = {"big": U256_MAX, "small": I128_MIN, "zero": 0}
    assert ev("big > zero && small < zero && small < big", env) is True
    assert ev(f"small == {2**127} || big == {U256_MAX}", env) is True
    assert ev("small in [1, 2]", env) is False


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 == 'a'", "TypeError: 1 == 'a': cannot compare int == string"),
        ("'a' != 1", "TypeError: 'a' != 1: cannot compare string != int"),
        ("'a' < 'b'", "TypeError: 'a' < 'b': cannot compare string < string"),
        ("true > false", "TypeError: true > false: cannot compare bool > bool"),
        ("1 == true", "TypeError: 1 == true: cannot compare int == bool"),
        ("[1] == [1]", "TypeError: [1] == [1]: cannot compare list == list"),
        ("1 && true", "TypeError: && expects bool operands, got int (1)"),
        ("true || 'x'", "TypeError: || expects bool operands, got string ('x')"),
        ("true && true && 2", "TypeError: && expects bool operands, got int (2)"),
        ("!1", "TypeError: ! expects bool operands, got int (1)"),
        ("1 in 1", "TypeError: in expects a list, got int (1)"),
        ("'a' in 'abc'", "TypeError: in expects a list, got string ('abc')"),
        ("1 in ['a']", "TypeError: 1 in ['a']: cannot compare int == string"),
        (
            "Timestamp('2025-01-01T00:00:00Z') == 1",
            "TypeError: Timestamp('2025-01-01T00:00:00Z') == 1: cannot compare timestamp == int",
        ),
    ],
)
def test_type_errors(text: str, message: str) -> None:
    assert error_of(text) == message


def test_env_values_of_the_wrong_type_are_type_errors() -> None:
    env = {"activity": {"type": 7, "flag": True, "tags": ["a"]}}
    assert error_of("activity.type == 'X'", env) == (
        "TypeError: activity.type == 'X': cannot compare int == string"
    )
    assert error_of("'X' == activity.type", env) == (
        "TypeError: 'X' == activity.type: cannot compare string == int"
    )
    assert error_of("activity.flag < 1", env) == (
        "TypeError: activity.flag < 1: cannot compare bool < int"
    )
    assert error_of("2 > activity.flag", env) == (
        "TypeError: 2 > activity.flag: cannot compare int > bool"
    )
    assert error_of("activity.tags == activity.tags", env) == (
        "TypeError: activity.tags == activity.tags: cannot compare list == list"
    )


def test_subclasses_of_scalars_compare_like_their_base() -> None:
    class Label(str):
        pass

    env = {"wallet": {"label": Label("tempo-production"), "id": WALLET_ID}}
    assert ev("wallet.label == 'tempo-production'", env) is True
    assert ev("wallet.label in ['x', 'tempo-production']", env) is True


# --- access: fields, maps, indices, slices ----------------------------------------


ETH_ENV: dict[str, Any] = {
    "eth": {
        "tx": {
            "to": ETH_ADDRESS,
            "data": "0xa9059cbb000000000000000000000000",
            "value": 10**18,
            "contract_call_args": {"wad": 5 * 10**17, "dst": ETH_ADDRESS},
        },
        "eip_712": {
            "primary_type": "PermitBatchTransferFrom",
            "domain": {"name": "Permit2", "chain_id": 1},
            "message": {
                "permitted": [
                    {"token": USDC, "amount": 50_000_000},
                    {"token": USDC, "amount": 10},
                ]
            },
        },
    }
}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("eth.tx.to", ETH_ADDRESS),
        ("eth.tx['to']", ETH_ADDRESS),
        ("eth['tx'].value", 10**18),
        ("eth.tx.contract_call_args['wad']", 5 * 10**17),
        ("eth.tx.contract_call_args.dst", ETH_ADDRESS),
        ("eth.eip_712.message['permitted'][0]['token']", USDC),
        ("eth.eip_712.message.permitted[1].amount", 10),
        ("eth.tx.data[0..10]", "0xa9059cbb"),
        ("eth.tx.data[0]", "0"),
        ("eth.tx.data[2..2]", ""),
        ("eth.eip_712.message['permitted'][0..1]", [{"token": USDC, "amount": 50_000_000}]),
        ("[1, 2, 3][0]", 1),
        ("[1, 2, 3][2]", 3),
        ("'abc'[0]", "a"),
        ("[1, 2, 3][0..2]", [1, 2]),
        ("[1, 2, 3][0..3]", [1, 2, 3]),
        ("'abc'[0..2]", "ab"),
        ("'abc'[1..1]", ""),
        ("[[1, 2], [3]][0][1]", 2),
        ("[10, 20, 30][[0, 2][1]]", 30),
    ],
)
def test_access(text: str, value: object) -> None:
    assert ev(text, ETH_ENV) == value


def test_index_and_slice_bounds_come_from_expressions() -> None:
    env = {"i": 1, "j": 3, "s": "hello", "xs": ["a", "b", "c"]}
    assert ev("s[i..j]", env) == "el"
    assert ev("xs[i]", env) == "b"
    assert ev("xs[0..xs.count()]", env) == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("activity.params.hash_function", "MissingField: activity.params.hash_function"),
        ("activity.missing", "MissingField: activity.missing"),
        ("wallet.id", "MissingField: wallet"),
        ("eth.tx.contract_call_args['nope']", "MissingField: eth.tx.contract_call_args['nope']"),
        (
            "eth.eip_712.message['permitted'][0]['nope']",
            "MissingField: eth.eip_712.message['permitted'][0]['nope']",
        ),
        ("eth.tx.to.length", "TypeError: eth.tx.to.length: a string has no field 'length'"),
        ("activity.tags.first", "TypeError: activity.tags.first: a list has no field 'first'"),
        (
            "activity.tags['target']",
            "TypeError: activity.tags['target']: a list has no field 'target'",
        ),
        ("activity.count.x", "TypeError: activity.count.x: an int has no field 'x'"),
        (
            "activity.tags[2]",
            "IndexOutOfBounds: activity.tags[2]: index 2 is out of range for length 2",
        ),
        (
            "activity.tags[activity.minus]",
            "IndexOutOfBounds: activity.tags[activity.minus]: index -1 is out of range for length 2",
        ),
        ("'abc'[3]", "IndexOutOfBounds: 'abc'[3]: index 3 is out of range for length 3"),
        ("'abc'[0..4]", "IndexOutOfBounds: 'abc'[0..4]: range 0..4 is out of range for length 3"),
        ("[1, 2][2..1]", "IndexOutOfBounds: [1, 2][2..1]: range 2..1 is out of range for length 2"),
        ("activity.count[0]", "TypeError: activity.count[0]: cannot index an int with an int"),
        ("activity[0]", "TypeError: activity[0]: cannot index a struct with an int"),
        ("activity.tags[true]", "TypeError: activity.tags[true]: cannot index a list with a bool"),
        ("activity.count[0..1]", "TypeError: activity.count[0..1]: cannot slice an int"),
        ("'abc'[0..'b']", "TypeError: 'abc'[0..'b']: slice bounds must be int"),
    ],
)
def test_access_errors(text: str, message: str) -> None:
    env = {**ETH_ENV, "activity": {"tags": ["a", "b"], "count": 3, "minus": -1, "params": {}}}
    assert error_of(text, env) == message


def test_any_mapping_is_a_struct_and_a_map() -> None:
    env = {"activity": MappingProxyType({"type": "ACTIVITY_TYPE_CREATE_WALLET"})}
    assert ev("activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'", env) is True
    assert ev("activity['type'] == 'ACTIVITY_TYPE_CREATE_WALLET'", env) is True
    assert error_of("activity.kind", env) == "MissingField: activity.kind"


def test_a_missing_top_level_keyword_is_a_missing_field() -> None:
    assert error_of("activity.type == 'X'") == "MissingField: activity"
    assert error_of("approvers.count() > 0") == "MissingField: approvers"


# --- list methods -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("[1, 1, 1].all(x, x == 1)", True),
        ("[1, 2, 1].all(x, x == 1)", False),
        ("[].all(x, x == 1)", True),
        ("[1, 2, 3].any(x, x == 1)", True),
        ("[1, 2, 3].any(x, x == 4)", False),
        ("[].any(x, x == 1)", False),
        ("[1, 2, 3].contains(1)", True),
        ("[1, 2, 3].contains(4)", False),
        ("['a'].contains('a')", True),
        ("[1, 2, 3].count()", 3),
        ("[].count()", 0),
        ("[1, 2, 3].filter(x, x == 1)", [1]),
        ("[1, 2, 3].filter(x, x > 1)", [2, 3]),
        ("[1, 2, 3].filter(x, x > 5)", []),
        ("[1, 2, 3].filter(x, x > 1).count()", 2),
        ("[1, 2, 3].filter(x, x > 1)[0]", 2),
        ("[[1, 2], [3]].any(xs, xs.any(x, x == 3))", True),
        ("[[1, 2], [3]].all(xs, xs.count() >= 1)", True),
        ("[[1, 2], [3]].filter(xs, xs.contains(2))", [[1, 2]]),
        # the same name bound twice: the inner binding wins inside
        ("[[1, 2], [3]].any(x, x.any(x, x == 3))", True),
        # an outer item stays visible in an inner predicate
        ("[1, 2].all(a, [1, 2].any(b, a == b))", True),
        ("[1, 2].all(a, [2, 3].any(b, a == b))", False),
    ],
)
def test_list_methods(text: str, value: object) -> None:
    assert ev(text) == value


def test_item_names_shadow_the_environment_only_inside_the_predicate() -> None:
    env = {"activity": {"type": "ACTIVITY_TYPE_CREATE_WALLET"}, "user": {"id": USER_ID}}
    text = "[1, 2].any(activity, activity == 2) && activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'"
    assert ev(text, env) is True
    assert ev(f"[1].all(user, user == 1) && user.id == '{USER_ID}'", env) is True
    expression = parse("approvers.any(user, user.id == user_id) && user.id != ''")
    assert expression.roots == frozenset({"approvers", "user_id", "user"})
    env = {"approvers": [{"id": USER_ID}], "user_id": USER_ID, "user": {"id": "outer"}}
    assert expression.test(env) is True


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("'abc'.count()", "TypeError: count() expects a list, got string ('abc')"),
        ("activity.count()", "TypeError: count() expects a list, got struct (activity)"),
        ("(1).any(x, true)", "TypeError: any() expects a list, got int (1)"),
        ("'ab'.all(x, true)", "TypeError: all() expects a list, got string ('ab')"),
        ("'ab'.filter(x, true)", "TypeError: filter() expects a list, got string ('ab')"),
        ("'abc'.contains('a')", "TypeError: contains() expects a list, got string ('abc')"),
        ("[1, 2].any(x, x)", "TypeError: any() predicate must be bool, got int (x)"),
        ("[true, 2].all(x, x)", "TypeError: all() predicate must be bool, got int (x)"),
        ("[1].filter(x, 'yes')", "TypeError: filter() predicate must be bool, got string ('yes')"),
        (
            "[1, 'a'].contains('a')",
            "TypeError: [1, 'a'].contains('a'): cannot compare string == int",
        ),
    ],
)
def test_list_method_errors(text: str, message: str) -> None:
    assert error_of(text, {"activity": {}}) == message


def test_count_without_parentheses_is_a_field_read_that_fails() -> None:
    # solana.mdx writes `solana.tx.transfers.count == 1`; `count` without `()`
    # is an ordinary field name, and a list has no fields.
    env = {"solana": {"tx": {"transfers": [{"to": SOL_ADDRESS}]}}}
    expression = parse("solana.tx.transfers.count == 1")
    with pytest.raises(PolicyEvaluationError) as caught:
        expression.test(env)
    assert str(caught.value) == (
        "TypeError: solana.tx.transfers.count: a list has no field 'count'"
    )


# --- no short-circuit -----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "false && activity.missing == 1",
        "activity.missing == 1 && false",
        "true || activity.missing == 1",
        "activity.missing == 1 || true",
        "false && true && activity.missing == 1",
        "true || false || activity.missing == 1",
        "false && 1 == 'a'",
        "true || 1",
        "[1, 2].any(x, x == 1 || activity.missing == 1)",
        "[1, 2].all(x, x == 3 && activity.missing == 1)",
        "[1, 2].any(x, x == 1) || [1, 2].any(x, x.missing == 1)",
        "[1, 2, 3].any(x, x == 1 || [10][x] == 10)",  # fails at x == 2
        "wallet.id == 'w' || private_key.id == 'k'",  # the docs' own example of this
    ],
)
def test_every_clause_is_evaluated(text: str) -> None:
    env = {"activity": {"type": "X"}, "wallet": {"id": "w"}}
    with pytest.raises(PolicyEvaluationError):
        parse(text).test(env)


def test_the_error_of_the_first_failing_clause_is_reported() -> None:
    env = {"activity": {}}
    assert error_of("false && activity.missing == 1", env) == "MissingField: activity.missing"
    assert error_of("activity.a == 1 || activity.b == 1", env) == "MissingField: activity.a"


# --- test() ----------------------------------------------------------------------


def test_test_requires_a_bool() -> None:
    assert parse("1 == 1").test({}) is True
    with pytest.raises(PolicyEvaluationError) as caught:
        parse("1").test({})
    assert str(caught.value) == "TypeError: expression evaluated to int, expected bool"
    with pytest.raises(PolicyEvaluationError) as caught:
        parse("approvers").test({"approvers": []})
    assert str(caught.value) == "TypeError: expression evaluated to list, expected bool"


def test_errors_carry_their_kind() -> None:
    with pytest.raises(PolicyEvaluationError) as caught:
        parse("activity.x").evaluate({"activity": {}})
    assert caught.value.kind == "MissingField"
    assert caught.value.message == "MissingField: activity.x"


# --- parse errors ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("", "Unrecognized EOF found at 0"),
        ("   ", "Unrecognized EOF found at 0"),  # LALRPOP: end of the last token, none here
        ("\n\t", "Unrecognized EOF found at 0"),
        ("activity.type ==", "Unrecognized EOF found at 16"),
        ("activity.type == ", "Unrecognized EOF found at 16"),
        ('activity.type == "x"', "Invalid token at 17"),
        ("a ++ b", "Invalid token at 2"),
        ("(a", "Unrecognized EOF found at 2"),
        ("a b", "Unrecognized token `b` found at 2:3"),
        ("1 == 1)", "Unrecognized token `)` found at 6:7"),
        ("true false", "Unrecognized token `false` found at 5:10"),
        ("a == 'x' 'y'", "Unrecognized token `'y'` found at 9:12"),
        ("a = b", "Invalid token at 2"),
        ("a & b", "Invalid token at 2"),
        ("a | b", "Invalid token at 2"),
        ("x == -1", "Invalid token at 5"),  # no unary minus in the language
        ("x == 1.5", "Unrecognized token `5` found at 7:8"),
        ("x == 'open", "Invalid token at 5"),
        ("a b 'open", "Unrecognized token `b` found at 2:3"),  # the first error wins
        ("&& a", "Unrecognized token `&&` found at 0:2"),
        ("a &&", "Unrecognized EOF found at 4"),
        ("a && || b", "Unrecognized token `||` found at 5:7"),
        ("!", "Unrecognized EOF found at 1"),
        ("a.", "Unrecognized EOF found at 2"),
        ("a.1", "Unrecognized token `1` found at 2:3"),
        ("a.true", "Unrecognized token `true` found at 2:6"),
        ("a[", "Unrecognized EOF found at 2"),
        ("a[]", "Unrecognized token `]` found at 2:3"),
        ("a[0..]", "Unrecognized token `]` found at 5:6"),
        ("a[..2]", "Unrecognized token `..` found at 2:4"),
        ("a[0", "Unrecognized EOF found at 3"),
        ("[1 2]", "Unrecognized token `2` found at 3:4"),
        ("[,]", "Unrecognized token `,` found at 1:2"),
        ("a..b", "Unrecognized token `..` found at 1:3"),
        ("()", "Unrecognized token `)` found at 1:2"),
        ("a.any(1, true)", "Unrecognized token `1` found at 6:7"),
        ("a.any(x true)", "Unrecognized token `true` found at 8:12"),
        ("a.any(x)", "Unrecognized token `)` found at 7:8"),
        ("a.count(1)", "Unrecognized token `1` found at 8:9"),
        ("a.contains()", "Unrecognized token `)` found at 11:12"),
        ("a.size()", "Unrecognized token `(` found at 6:7"),
        ("now()", "Unrecognized token `(` found at 3:4"),
        ("Timestamp()", "Unrecognized token `)` found at 10:11"),
        ("Timestamp('a', 'b')", "Unrecognized token `,` found at 13:14"),
        ("CronSpan('* * * * *', '1h')", "Unrecognized token `)` found at 26:27"),
        ("in", "Unrecognized token `in` found at 0:2"),
        ("x in", "Unrecognized EOF found at 4"),
        ("1 < < 2", "Unrecognized token `<` found at 4:5"),
        ("'é' == é", "Invalid token at 8"),  # LALRPOP counts bytes: 'é' takes 4
    ],
)
def test_syntax_errors(text: str, detail: str) -> None:
    with pytest.raises(PolicySyntaxError) as caught:
        parse(text)
    assert str(caught.value) == f"parse error: {detail}"
    assert caught.value.detail == detail


def test_keywords_are_whole_words() -> None:
    env = {"trueish": True, "index": [1], "in_x": 1, "Timestamp": "a field"}
    assert ev("trueish", env) is True
    assert ev("index[0]", env) == 1
    assert ev("in_x in [1]", env) is True
    assert ev("Timestamp", env) == "a field"


def test_whitespace_is_free_between_tokens() -> None:
    text = "  activity . type\n==\t'A'  &&[ 1 ,2 ] . count ( ) == 2 "
    assert parse(text).test({"activity": {"type": "A"}}) is True


def test_long_chains_are_not_limited_by_the_python_stack() -> None:
    clauses = [f"activity.type == 'ACTIVITY_TYPE_{i}'" for i in range(3000)]
    either = parse(" || ".join(clauses))
    assert either.test({"activity": {"type": "ACTIVITY_TYPE_2999"}}) is True
    assert either.activity_requirements == {}
    both = parse(" && ".join(["activity.kind == 'K'"] * 3000))
    assert both.test({"activity": {"kind": "K"}}) is True
    assert both.activity_requirements == {"kind": frozenset({"K"})}
    assert both.roots == frozenset({"activity"})


def test_absurd_nesting_is_refused_as_a_syntax_error() -> None:
    assert syntax_error_of("(" * 5000 + "true" + ")" * 5000) == (
        "parse error: expression is nested too deeply"
    )
    assert syntax_error_of("!" * 5000 + "true") == "parse error: expression is nested too deeply"
    assert parse("!" * 100 + "true").test({}) is True


def test_parse_is_cached_and_returns_an_expression() -> None:
    text = f"approvers.any(user, user.id == '{USER_ID}')"
    first = parse(text)
    assert isinstance(first, Expression)
    assert parse(text) is first
    assert first.source == text


# --- roots and activity requirements --------------------------------------------


@pytest.mark.parametrize(
    ("text", "roots"),
    [
        ("activity.type == 'X' && wallet.id == 'w'", {"activity", "wallet"}),
        ("approvers.any(user, user.tags.contains(tag))", {"approvers", "tag"}),
        (
            "credentials.any(c, c.type == 'T') && approvers.count() > 0",
            {"credentials", "approvers"},
        ),
        ("[1].any(x, x == 1)", set()),
        ("CronSpan('0 9 * * 1-5', '8h', 'UTC')", {"time"}),
        ("time.now < Timestamp('2026-01-01T00:00:00Z')", {"time"}),
        ("eth.tx.data[start..end] == x", {"eth", "start", "end", "x"}),
        ("!private_key.exported", {"private_key"}),
    ],
)
def test_roots(text: str, roots: set[str]) -> None:
    assert parse(text).roots == frozenset(roots)


@pytest.mark.parametrize(
    ("text", "requirements"),
    [
        ("activity.resource == 'WALLET' && activity.action == 'CREATE'",
         {"resource": {"WALLET"}, "action": {"CREATE"}}),
        ("activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'",
         {"type": {"ACTIVITY_TYPE_SIGN_TRANSACTION_V2"}}),
        ("'SIGN_TRANSACTION' == activity.kind && eth.tx.to == 'x'", {"kind": {"SIGN_TRANSACTION"}}),
        ("activity.resource in ['AUTH', 'OTP'] && activity.action in ['CREATE','VERIFY']",
         {"resource": {"AUTH", "OTP"}, "action": {"CREATE", "VERIFY"}}),
        ("(activity.resource == 'POLICY' && (wallet.id == 'w' && (activity.action == 'DELETE')))",
         {"resource": {"POLICY"}, "action": {"DELETE"}}),
        ("activity.resource == 'POLICY' && (activity.action == 'CREATE' || activity.action == 'UPDATE')",
         {"resource": {"POLICY"}}),
        ("activity.action in ['CREATE', 'UPDATE'] && activity.action == 'UPDATE'",
         {"action": {"UPDATE"}}),
        ("activity.action == 'CREATE' && activity.action == 'DELETE'", {"action": set()}),
        ("activity.type == 'A' || activity.type == 'B'", {}),
        ("!(activity.type == 'A')", {}),
        ("activity.type != 'A'", {}),
        ("activity.params.type == 'TRANSACTION_TYPE_TEMPO'", {}),
        ("activity.type == activity.kind", {}),
        ("activity.type in ['A', 1]", {}),
        ("activity.type in names", {}),
        ("[1].any(activity, activity.type == 'A')", {}),
        ("true", {}),
    ],
)  # fmt: skip
def test_activity_requirements(text: str, requirements: dict[str, set[str]]) -> None:
    expected = {field: frozenset(values) for field, values in requirements.items()}
    assert parse(text).activity_requirements == expected


def test_admits_checks_activity_facts_against_the_requirements() -> None:
    expression = parse("activity.resource in ['AUTH', 'OTP'] && activity.action == 'CREATE'")
    assert expression.admits({"resource": "OTP", "action": "CREATE", "kind": "INIT_OTP"}) is True
    assert expression.admits({"resource": "WALLET", "action": "CREATE"}) is False
    assert expression.admits({"resource": "AUTH"}) is False
    assert parse("wallet.id == 'w'").admits({}) is True


# --- Lazy --------------------------------------------------------------------------


class Counter:
    def __init__(self, value: object) -> None:
        self.value = value
        self.calls = 0

    def __call__(self) -> object:
        self.calls += 1
        return self.value


def test_lazy_values_are_computed_once_and_only_when_read() -> None:
    tx = Counter({"to": ETH_ADDRESS, "value": 1})
    unused = Counter({"to": "never"})
    env = {"eth": {"tx": Lazy(tx)}, "solana": {"tx": Lazy(unused)}}
    expression = parse(f"eth.tx.to == '{ETH_ADDRESS}' && eth.tx.value == 1")
    assert expression.test(env) is True
    assert expression.test(env) is True
    assert tx.calls == 1
    assert unused.calls == 0


def test_lazy_values_may_sit_anywhere() -> None:
    leaf = Counter("leaf")
    env = {
        "top": Lazy(Counter({"list": Lazy(Counter([Lazy(leaf), "plain"]))})),
        "items": Lazy(Counter([Lazy(Counter({"id": USER_ID})), {"id": OTHER_USER_ID}])),
    }
    assert ev("top.list[0]", env) == "leaf"
    assert ev("top.list.contains('leaf')", env) is True
    assert ev("'leaf' in top.list", env) is True
    assert ev(f"items.any(u, u.id == '{USER_ID}')", env) is True
    assert ev(f"items.filter(u, u.id == '{USER_ID}')", env) == [{"id": USER_ID}]
    assert ev("top['list'][0..1].count()", env) == 1
    assert leaf.calls == 1


def test_a_lazy_that_fails_fails_every_read_without_recomputing() -> None:
    calls = []

    def broken() -> object:
        calls.append(1)
        raise PolicyEvaluationError("MissingField: eth.tx")

    env = {"eth": {"tx": Lazy(broken)}}
    for _ in range(2):
        with pytest.raises(PolicyEvaluationError) as caught:
            parse("eth.tx.to == 'x'").test(env)
        assert str(caught.value) == "MissingField: eth.tx"
    assert len(calls) == 1


def test_lazy_reports_whether_it_ran() -> None:
    value = Lazy(lambda: 5)
    assert value.evaluated is False
    assert parse("x == 5").test({"x": value}) is True
    assert value.evaluated is True


# --- Timestamp -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ns"),
    [
        ("1970-01-01T00:00:00Z", 0),
        ("1970-01-01T00:00:01z", 10**9),
        ("1970-01-01t00:00:00+00:00", 0),
        ("1970-01-01T00:00:00-00:00", 0),
        ("1970-01-01T00:00:00.5Z", 500_000_000),
        ("1970-01-01T00:00:00.123456789Z", 123_456_789),
        ("1970-01-01T00:00:00.1234567891Z", 123_456_789),
        ("2025-01-01T00:00:00Z", 1_735_689_600 * 10**9),
        ("1969-12-31T23:59:59Z", -(10**9)),
    ],
)
def test_timestamp_parsing(text: str, ns: int) -> None:
    assert Timestamp.parse(text) == Timestamp.from_ns(ns)
    assert ev(f"Timestamp('{text}')") == Timestamp.from_ns(ns)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("2025-01-01T00:00:00-05:00", "must have a zero UTC offset"),
        ("2025-01-01T00:00:00+01:00", "must have a zero UTC offset"),
        ("2025-01-01T00:00:00", "is not an RFC 3339 timestamp"),
        ("2025-01-01", "is not an RFC 3339 timestamp"),
        ("yesterday", "is not an RFC 3339 timestamp"),
        ("2025-02-30T00:00:00Z", "is not a valid date and time"),
        ("2025-01-01T24:00:00Z", "is not a valid date and time"),
    ],
)
def test_bad_timestamps_are_evaluation_errors(text: str, why: str) -> None:
    expression = parse(f"Timestamp('{text}')")  # it parses: the grammar takes any string
    with pytest.raises(PolicyEvaluationError) as caught:
        expression.evaluate({})
    assert str(caught.value) == f"InvalidArgument: Timestamp({text!r}) {why}"
    comparison = parse(f"time.now < Timestamp('{text}')")
    with pytest.raises(PolicyEvaluationError):
        comparison.evaluate({"time": {"now": Timestamp.from_ns(0)}})


def test_timestamp_from_an_expression() -> None:
    env = {"t": "2025-01-01T00:00:00Z", "n": 5}
    assert ev("Timestamp(t) == Timestamp('2025-01-01T00:00:00Z')", env) is True
    assert error_of("Timestamp(n)", env) == "TypeError: Timestamp() expects a string, got int"


def test_timestamp_value_type() -> None:
    early, late = ts("2025-01-01T00:00:00Z"), ts("2025-01-01T00:00:00.000000001Z")
    assert early < late and late > early and early <= early and late >= early
    assert early != late and early == Timestamp.from_ns(early.ns)
    assert hash(early) == hash(Timestamp.from_ns(early.ns))
    assert early != 1735689600000000000
    with pytest.raises(TypeError):
        _ = early < 1  # type: ignore[operator]
    with pytest.raises(AttributeError):
        early.ns = 0  # type: ignore[misc]
    assert str(late) == "2025-01-01T00:00:00.000000001Z"
    assert repr(early) == "Timestamp('2025-01-01T00:00:00Z')"
    assert Timestamp.from_datetime(early.to_datetime()) == early


@pytest.mark.parametrize(
    ("now", "value"),
    [
        ("2026-02-28T23:59:59Z", False),
        ("2026-03-01T00:00:00Z", True),
        ("2026-03-31T23:59:59.999999999Z", True),
        ("2026-04-01T00:00:00Z", False),
    ],
)
def test_one_shot_window(now: str, value: bool) -> None:
    text = "time.now >= Timestamp('2026-03-01T00:00:00Z') && time.now < Timestamp('2026-04-01T00:00:00Z')"
    assert parse(text).test({"time": {"now": ts(now)}}) is value


def test_timestamp_comparisons() -> None:
    env = {"time": {"now": ts("2025-06-01T12:00:00Z")}, "other": ts("2025-06-01T12:00:00Z")}
    assert ev("time.now == other && !(time.now != other)", env) is True
    assert ev("time.now <= other && time.now >= other", env) is True
    assert ev("Timestamp('2025-01-01T00:00:00Z') < time.now", env) is True
    assert ev("Timestamp('2025-01-01T00:00:00Z') > time.now", env) is False
    assert (
        error_of("time.now < 5", env) == "TypeError: time.now < 5: cannot compare timestamp < int"
    )
    assert error_of("time.now == '2025'", env) == (
        "TypeError: time.now == '2025': cannot compare timestamp == string"
    )


# --- CronSpan -------------------------------------------------------------------


def cron(expression: str, now: str) -> bool:
    return parse(expression).test({"time": {"now": ts(now)}})


BUSINESS_HOURS = "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')"
OVERNIGHT = "CronSpan('0 22 * * *', '8h', 'America/New_York')"


@needs_tzdata
@pytest.mark.parametrize(
    ("now", "value"),
    [
        ("2025-06-02T12:59:59Z", False),  # Monday 08:59:59 EDT
        ("2025-06-02T13:00:00Z", True),  # Monday 09:00 EDT: the window opens
        ("2025-06-02T20:59:59Z", True),
        ("2025-06-02T21:00:00Z", False),  # 17:00 EDT: closed (end exclusive)
        ("2025-06-07T15:00:00Z", False),  # Saturday
        ("2025-06-08T15:00:00Z", False),  # Sunday
        ("2025-06-06T15:00:00Z", True),  # Friday
        ("2025-01-06T14:00:00Z", True),  # winter Monday 09:00 EST
        ("2025-01-06T13:59:00Z", False),
    ],
)
def test_cron_span_business_hours(now: str, value: bool) -> None:
    assert cron(BUSINESS_HOURS, now) is value


@needs_tzdata
@pytest.mark.parametrize(
    ("now", "value"),
    [
        ("2025-06-03T01:59:59Z", False),  # 21:59:59 EDT
        ("2025-06-03T02:00:00Z", True),  # 22:00 EDT
        ("2025-06-03T04:00:00Z", True),  # midnight local: across the day boundary
        ("2025-06-03T09:59:59Z", True),  # 05:59:59 EDT next day
        ("2025-06-03T10:00:00Z", False),  # 06:00 EDT
        # spring-forward night (2025-03-09): 22:00 EST + 8h ends at 07:00 EDT
        ("2025-03-09T10:30:00Z", True),  # 06:30 EDT
        ("2025-03-09T10:59:59Z", True),
        ("2025-03-09T11:00:00Z", False),  # 07:00 EDT
        # fall-back night (2025-11-02): 22:00 EDT + 8h ends at 05:00 EST
        ("2025-11-02T09:59:59Z", True),
        ("2025-11-02T10:00:00Z", False),  # 05:00 EST
    ],
)
def test_cron_span_overnight_and_daylight_saving(now: str, value: bool) -> None:
    assert cron(OVERNIGHT, now) is value


@needs_tzdata
def test_cron_span_wall_times_that_do_not_exist_or_repeat() -> None:
    # 02:30 does not exist on 2025-03-09 in New York: no fire that day
    assert cron("CronSpan('30 2 * * *', '1h', 'America/New_York')", "2025-03-09T07:45:00Z") is False
    assert cron("CronSpan('30 2 * * *', '1h', 'America/New_York')", "2025-03-08T07:45:00Z") is True
    # 01:30 happens twice on 2025-11-02: it fires at the first (EDT) one only
    assert cron("CronSpan('30 1 * * *', '30m', 'America/New_York')", "2025-11-02T05:45:00Z") is True
    assert (
        cron("CronSpan('30 1 * * *', '30m', 'America/New_York')", "2025-11-02T06:45:00Z") is False
    )


@pytest.mark.parametrize(
    ("expression", "now", "value"),
    [
        ("CronSpan('0 0 * * *', '1m', 'UTC')", "2025-06-02T00:00:59Z", True),
        ("CronSpan('0 0 * * *', '1m', 'UTC')", "2025-06-02T00:01:00Z", False),
        ("CronSpan('* * * * *', '1m', 'UTC')", "2025-06-02T13:37:42.5Z", True),
        ("CronSpan('0,30 * * * *', '10m', 'UTC')", "2025-06-02T13:35:00Z", True),
        ("CronSpan('0,30 * * * *', '10m', 'UTC')", "2025-06-02T13:45:00Z", False),
        ("CronSpan('0 9-10 * * *', '30m', 'UTC')", "2025-06-02T10:15:00Z", True),
        ("CronSpan('0 9-10 * * *', '30m', 'UTC')", "2025-06-02T11:15:00Z", False),
        # day-of-month OR day-of-week when both are restricted: the 1st, or Mondays
        ("CronSpan('0 9 1 * 1', '1h', 'UTC')", "2025-06-02T09:30:00Z", True),  # a Monday
        ("CronSpan('0 9 1 * 1', '1h', 'UTC')", "2025-07-01T09:30:00Z", True),  # a Tuesday the 1st
        ("CronSpan('0 9 1 * 1', '1h', 'UTC')", "2025-06-03T09:30:00Z", False),
        ("CronSpan('0 9 1 * *', '1h', 'UTC')", "2025-06-02T09:30:00Z", False),
        ("CronSpan('0 9 * * 0', '1h', 'UTC')", "2025-06-01T09:30:00Z", True),  # Sunday is 0
        ("CronSpan('0 9 * 12 *', '1h', 'UTC')", "2025-06-02T09:30:00Z", False),
        ("CronSpan('0 9 * 6 *', '1h', 'UTC')", "2025-06-02T09:30:00Z", True),
        # a window that started days ago is still open
        ("CronSpan('0 0 1 * *', '7d', 'UTC')", "2025-06-07T23:59:59Z", True),
        ("CronSpan('0 0 1 * *', '7d', 'UTC')", "2025-06-08T00:00:00Z", False),
        ("CronSpan('0 0 * * 1', '1d12h', 'UTC')", "2025-06-03T11:59:00Z", True),
        ("CronSpan('0 0 * * 1', '1d12h', 'UTC')", "2025-06-03T12:00:00Z", False),
        ("CronSpan('0 0 * * 1', '90m', 'UTC')", "2025-06-02T01:29:59Z", True),
        ("CronSpan('0 0 29 2 *', '1h', 'UTC')", "2025-06-02T00:00:00Z", False),
        ("CronSpan('0 9 * * 1-5', '8h', 'UTC') && time.now < Timestamp('2026-01-01T00:00:00Z')",
         "2025-06-02T10:00:00Z", True),
        ("CronSpan('0 9 * * 1-5', '8h', 'UTC') && time.now < Timestamp('2026-01-01T00:00:00Z')",
         "2026-06-01T10:00:00Z", False),
        ("!CronSpan('0 2 * * *', '1h', 'UTC')", "2025-06-02T02:30:00Z", False),
        ("!CronSpan('0 2 * * *', '1h', 'UTC')", "2025-06-02T03:30:00Z", True),
    ],
)  # fmt: skip
def test_cron_span_schedules(expression: str, now: str, value: bool) -> None:
    assert cron(expression, now) is value


@pytest.mark.parametrize(
    ("args", "why"),
    [
        ("'*/5 * * * *', '1h', 'UTC'", "unsupported minute field '*/5'"),
        ("'@daily', '1h', 'UTC'", "cron '@daily' must have 5 fields, it has 1"),
        ("'0 9 * * MON', '1h', 'UTC'", "unsupported day-of-week field 'MON'"),
        ("'0 9 * JAN *', '1h', 'UTC'", "unsupported month field 'JAN'"),
        ("'0 0 9 * * *', '1h', 'UTC'", "cron '0 0 9 * * *' must have 5 fields, it has 6"),
        ("'60 * * * *', '1h', 'UTC'", "minute field '60' is outside 0-59"),
        ("'0 24 * * *', '1h', 'UTC'", "hour field '24' is outside 0-23"),
        ("'0 0 0 * *', '1h', 'UTC'", "day-of-month field '0' is outside 1-31"),
        ("'0 0 * 13 *', '1h', 'UTC'", "month field '13' is outside 1-12"),
        ("'0 0 * * 7', '1h', 'UTC'", "day-of-week field '7' is outside 0-6"),
        ("'0 0 * * 5-1', '1h', 'UTC'", "day-of-week field '5-1' has a backwards range"),
        ("'0 9 * * *', '8h30s', 'UTC'", "duration '8h30s' is not like 8h, 90m or 1d12h"),
        ("'0 9 * * *', '1.5h', 'UTC'", "duration '1.5h' is not like 8h, 90m or 1d12h"),
        ("'0 9 * * *', '', 'UTC'", "duration '' is not like 8h, 90m or 1d12h"),
        ("'0 9 * * *', '0m', 'UTC'", "duration '0m' must be more than zero and at most 7d"),
        ("'0 9 * * *', '7d1m', 'UTC'", "duration '7d1m' must be more than zero and at most 7d"),
        ("'0 9 * * *', '1h', 'Mars/Olympus'", "unknown time zone 'Mars/Olympus'"),
    ],
)
def test_cron_span_bad_arguments_are_evaluation_errors(args: str, why: str) -> None:
    expression = parse(f"CronSpan({args})")
    with pytest.raises(PolicyEvaluationError) as caught:
        expression.test({"time": {"now": ts("2025-06-02T00:00:00Z")}})
    assert str(caught.value) == f"InvalidArgument: CronSpan: {why}"


def test_cron_span_reads_time_now_from_the_environment() -> None:
    expression = parse("CronSpan('* * * * *', '1m', 'UTC')")
    assert error_of("CronSpan('* * * * *', '1m', 'UTC')") == "MissingField: time"
    assert error_of("CronSpan('* * * * *', '1m', 'UTC')", {"time": {}}) == "MissingField: time.now"
    assert expression.test({"time": Lazy(lambda: {"now": ts("2025-01-01T00:00:00Z")})}) is True
    # an item called `time` does not hide the environment's time.now
    inside = parse("[1].any(time, CronSpan('0 0 * * *', '1m', 'UTC'))")
    assert inside.test({"time": {"now": ts("2025-01-01T00:00:30Z")}}) is True
    assert error_of("CronSpan('* * * * *', '1m', 'UTC')", {"time": {"now": 5}}) == (
        "TypeError: time.now must be a timestamp, got int"
    )


def test_cron_span_arguments_from_expressions() -> None:
    env = {"time": {"now": ts("2025-06-02T09:30:00Z")}, "c": "0 9 * * *", "d": "1h", "z": "UTC"}
    assert ev("CronSpan(c, d, z)", env) is True
    assert error_of("CronSpan(c, 1, z)", env) == "TypeError: CronSpan expects three strings"


# --- the docs' examples ------------------------------------------------------------

DOC_EXAMPLES = [
    # language.mdx, grammar table and examples
    "true && false",
    "1 < 2",
    "'a' != 'b'",
    "1 in [1, 2, 3]",
    "[1,2,3][0]",
    "'abc'[0]",
    "[1,2,3][0..2]",
    "'abc'[0..2]",
    "user.tags",
    "[1,1,1].all(x, x == 1)",
    "[1,2,3].any(x, x == 1)",
    "[1,2,3].contains(1)",
    "[1,2,3].count()",
    "[1,2,3].filter(x, x == 1)",
    "Timestamp('2025-01-01T00:00:00Z')",
    "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')",
    "time.now >= Timestamp('2025-01-01T00:00:00Z') && time.now < Timestamp('2025-02-01T00:00:00Z')",
    "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && activity.params.hash_function == 'HASH_FUNCTION_NO_OP' && activity.params.encoding != 'PAYLOAD_ENCODING_EIP712'",
    f"approvers.any(user, user.id == '{USER_ID}')",
    f"activity.type == 'ACTIVITY_TYPE_DELETE_USERS' && activity.params.user_ids.count() == 1 && '{USER_ID}' in activity.params.user_ids",
    f"wallet.id == '{WALLET_ID}' || private_key.id == '{WALLET_ID}'",
    "solana.tx.address_table_lookups.count == 0",
    "solana.tx.transfers.any(t, t.to == 'ADDRESS_TABLE_LOOKUP')",
    "activity.params.type == 'TRANSACTION_TYPE_TEMPO'",
    "tempo.tx.calls[0].input[34..74]",
    # examples/access-control.mdx
    "activity.resource == 'WALLET' && activity.action == 'CREATE'",
    f"approvers.any(user, user.tags.contains('{TAG_ID}'))",
    "activity.resource == 'USER' && activity.action == 'CREATE'",
    f"approvers.filter(user, user.tags.contains('{TAG_ID}')).count() >= 2",
    "activity.resource == 'POLICY' && activity.action == 'CREATE'",
    f"approvers.any(user, user.tags.contains('{TAG_ID}') || user.tags.contains('{OPS_TAG_ID}')) && (approvers.filter(user, user.tags.contains('{TAG_ID}')).count() >= 1 && approvers.filter(user, user.tags.contains('{OPS_TAG_ID}')).count() >= 2)",
    "activity.resource == 'POLICY' && (activity.action == 'CREATE' || activity.action == 'UPDATE' || activity.action == 'DELETE')",
    "activity.action == 'DELETE'",
    "activity.resource == 'ORGANIZATION' && activity.action == 'CREATE'",
    "activity.resource == 'AUTH' && activity.action == 'CREATE'",
    "activity.resource in ['AUTH', 'OTP'] && activity.action in ['CREATE','VERIFY']",
    "activity.type == 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2'",
    "activity.kind == 'CREATE_READ_WRITE_SESSION'",
    "activity.kind == 'SIGN_TRANSACTION'",
    "credentials.any(credential, credential.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')",
    "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'",
    "credentials.any(credential, credential.public_key == '02f739f8c77b32f4d5f13265861febd76e7a9c61a1140d296b8c16302508870316')",
    "activity.action == 'EXPORT' && wallet_account.address == '0x2b6e6b9b3b1f4e5c8d0a7f9e1c3b5d7f9a1c3e5b'",
    # examples/bitcoin.mdx (unquoted placeholders quoted)
    "bitcoin.tx.outputs.all(o, o.address == 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq')",
    "bitcoin.tx.outputs.all(o, o.value < 200000)",
    "bitcoin.tx.inputs.all(i, i.tx_id == 'f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16' && i.vout == 0)",
    "bitcoin.tx.fee <= 10000",
    "bitcoin.tx.fee > 50000",
    # examples/ethereum.mdx
    f"eth.tx.contract_call_args['wad'] < 1000000000000000000 && eth.tx.contract_call_args['dst'] == '{ETH_ADDRESS}'",
    f"eth.tx.to == '{USDC}' && eth.tx.function_name == 'transfer'",
    "eth.tx.function_name == 'executeBatch' && eth.tx.contract_call_args['calls'].count() == 2",
    f"eth.tx.function_name == 'executeBatch' && eth.tx.contract_call_args['calls'].all(call, call[0] == '{USDC}' && call[1] == 0)",
    f"eth.tx.function_name == 'executeBatch' && eth.tx.contract_call_args['calls'].count() <= 2 && eth.tx.contract_call_args['calls'].all(call, call[0] == '{USDC}' && call[1] == 0)",
    f"eth.tx.function_name == 'disperse' && eth.tx.contract_call_args['recipients'].all(addr, addr in ['{ETH_ADDRESS}', '{USDC}', '0x0000000000000000000000000000000000000001'])",
    f"eth.tx.to == '{USDC}' && eth.tx.data[0..10] == '0xa9059cbb'",
    "eth.tx.chain_id == 11155111",
    "eth.tx.nonce <= 3",
    "eth.eip_712.domain.name == 'HyperliquidSignTransaction' && eth.eip_712.primary_type == 'HyperliquidTransaction:ApproveAgent' && activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'",
    f"eth.eip_712.domain.name == 'Permit2' && eth.eip_712.primary_type == 'PermitBatchTransferFrom' && eth.eip_712.message['permitted'][0]['token'] == '{USDC}' && activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'",
    f"eth.eip_712.domain.name == 'Permit2' && eth.eip_712.primary_type == 'PermitBatchTransferFrom' && eth.eip_712.message['permitted'].all(p, p['token'] == '{USDC}') && activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'",
    "eth.eip_712.domain.name == 'Permit2' && eth.eip_712.primary_type == 'PermitBatchTransferFrom' && eth.eip_712.message['permitted'].count() <= 2 && activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'",
    f"eth.eip_712.domain.name == 'Permit2' && eth.eip_712.primary_type == 'PermitBatchTransferFrom' && eth.eip_712.message['permitted'].any(p, p['token'] == '{USDC}' && p['amount'] < 100000000) && activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'",
    "eth.eip_712.domain.name == 'USD Coin' && eth.eip_712.primary_type == 'TransferWithAuthorization' && activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'",
    "eth.eip_712.domain.name == 'USD Coin' && eth.eip_712.primary_type == 'Permit' && activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'",
    f"eth.eip_7702_authorization.address == '{ETH_ADDRESS}' && eth.eip_7702_authorization.chain_id == '1' && eth.eip_7702_authorization.nonce == '0' && activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'",
    # examples/signing-control.mdx
    f"activity.action == 'SIGN' && wallet.id == '{WALLET_ID}'",
    f"activity.action == 'SIGN' && wallet_account.address == '{ETH_ADDRESS}'",
    f"activity.action == 'SIGN' && private_key.id == '{WALLET_ID}'",
    # examples/solana.mdx
    f"solana.tx.transfers.all(transfer, transfer.from == '{SOL_ADDRESS}')",
    f"solana.tx.transfers.count == 1 && solana.tx.transfers[0].to == '{SOL_ADDRESS}'",
    f"solana.tx.transfers.all(transfer, transfer.to == '{SOL_ADDRESS}')",
    "solana.tx.program_keys.all(p, p == '11111111111111111111111111111111')",
    f"solana.tx.transfers.any(transfer, transfer.to == '{SOL_ADDRESS}')",
    "solana.tx.instructions[0].instruction_data_hex == '0200000000ca9a3b00000000'",
    f"solana.tx.instructions[0].accounts[0].account_key == '{SOL_ADDRESS}'",
    "solana.tx.address_table_lookups.count() > 0",
    "solana.tx.transfers.any(t, t.to == 'ADDRESS_TABLE_LOOKUP') || solana.tx.spl_transfers.any(t, t.to == 'ADDRESS_TABLE_LOOKUP')",
    f"solana.tx.instructions.count() == 1 && solana.tx.spl_transfers.count() == 1 && solana.tx.spl_transfers.all(transfer, transfer.from == '{SOL_ADDRESS}')",
    f"solana.tx.instructions.count() == solana.tx.spl_transfers.count() && solana.tx.spl_transfers.all(transfer, transfer.to == '{SOL_ADDRESS}')",
    f"solana.tx.instructions.count() == solana.tx.spl_transfers.count() && solana.tx.spl_transfers.all(transfer, transfer.owner == '{SOL_ADDRESS}')",
    "solana.tx.instructions.count() == 1 && solana.tx.spl_transfers.count() == 1 && solana.tx.spl_transfers.all(transfer, transfer.amount < 1000000)",
    "solana.tx.instructions.count() == solana.tx.spl_transfers.count() && solana.tx.spl_transfers.all(transfer, transfer.token_mint == 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')",
    f"solana.tx.instructions.count() == 1 && solana.tx.spl_transfers.count() == 1 && solana.tx.spl_transfers.all(transfer, transfer.signers.any(s, s == '{SOL_ADDRESS}'))",
    # examples/spark.mdx
    "activity.type == 'ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER' && activity.params.sign_with == 'sprt1pgss' && activity.params.transfer.receiver_public_key in ['02aa', '03bb']",
    "activity.type == 'ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER' && activity.params.sign_with == 'sprt1pgss' && activity.params.transfer.leaves.count() > 0 && activity.params.transfer.leaves.all(leaf, leaf.old_leaf_derivation.type == 'signing_leaf' && leaf.new_leaf_derivation.type == 'signing_leaf' && leaf.leaf_id in ['leaf-1', 'leaf-2'])",
    "activity.type == 'ACTIVITY_TYPE_SPARK_SIGN_FROST' && activity.params.sign_with == 'sprt1pgss' && activity.params.signatures.count() > 0 && activity.params.signatures.all(sig, sig.derivation.type == 'signing_leaf' && sig.adaptor_public_key != '')",
    "activity.type == 'ACTIVITY_TYPE_SPARK_SIGN_FROST' && activity.params.sign_with == 'sprt1pgss' && activity.params.signatures.count() > 0 && activity.params.signatures.all(sig, sig.derivation.type == 'signing_leaf' && sig.derivation.signing_leaf.leaf_id in ['leaf-1', 'leaf-2'])",
    "activity.type == 'ACTIVITY_TYPE_SPARK_SIGN_FROST' && activity.params.sign_with == 'sprt1pgss' && activity.params.signatures.count() > 0 && activity.params.signatures.all(sig, sig.derivation.type == 'static_deposit' && sig.derivation.static_deposit.index == 0)",
    "activity.type == 'ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER' && activity.params.sign_with == 'sprt1pgss' && activity.params.claim.sender_identity_public_key in ['02aa', '03bb']",
    "activity.type == 'ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE' && activity.params.sign_with == 'sprt1pgss' && activity.params.lightning_receive.threshold == 2 && activity.params.lightning_receive.operator_recipients.count() == 2 && activity.params.lightning_receive.operator_recipients.all(recipient, (recipient.operator_id == 'op-1' && recipient.encryption_public_key == '02aa') || (recipient.operator_id == 'op-2' && recipient.encryption_public_key == '03bb'))",
    # examples/tempo.mdx
    "activity.action == 'SIGN' && activity.params.type == 'TRANSACTION_TYPE_TEMPO'",
    "tempo.tx.chain_id == 42431",
    "tempo.tx.fee_token == '0xdAC17F958D2ee523a2206206994597C13D831ec7'",
    "tempo.tx.gas_limit > 100000",
    "tempo.tx.max_fee_per_gas > 15000000000",
    "tempo.tx.valid_before == 9999999999",
    "tempo.tx.calls[0].to == '0x40f008f4c17075EFcA092aE650655f6693AECEd0'",
    "tempo.tx.calls[0].function_signature == '0xa9059cbb'",
    "tempo.tx.calls.count() == 1",
    f"private_key.id == '{WALLET_ID}' && tempo.tx.calls.all(call, call.to == '0x40f008f4c17075EFcA092aE650655f6693AECEd0')",
    f"wallet_account.address == '{ETH_ADDRESS}' && tempo.tx.calls.all(call, call.to == '{USDC}')",
    f"wallet_account.address == '{ETH_ADDRESS}' && tempo.tx.calls[0].to == '{USDC}' && tempo.tx.calls[0].input[34..74] == '08d2b0a37f869ff76bacb5bab3278e26ab7067b7'",
    f"wallet_account.address == '{ETH_ADDRESS}' && tempo.tx.calls[0].input[34..74] == '08d2b0a37f869ff76bacb5bab3278e26ab7067b7'",
    f"wallet_account.address == '{ETH_ADDRESS}' && tempo.tx.calls[0].input[34..74] == '08d2b0a37f869ff76bacb5bab3278e26ab7067b7' && tempo.tx.calls[0].input[98..138] == '40f008f4c17075efca092ae650655f6693aeced0'",
    f"activity.action == 'SIGN' && activity.params.type == 'TRANSACTION_TYPE_TEMPO' && wallet.id == '{WALLET_ID}'",
    f"activity.action == 'SIGN' && activity.params.type == 'TRANSACTION_TYPE_TEMPO' && private_key.id == '{WALLET_ID}'",
    "activity.action == 'SIGN' && activity.params.type == 'TRANSACTION_TYPE_TEMPO' && wallet.label == 'tempo-production'",
    "activity.action == 'SIGN' && activity.params.type == 'TRANSACTION_TYPE_TEMPO' && private_key.tags.contains('tempo-enabled')",
    # examples/tron.mdx
    "tron.tx.contract[0].contract_address == 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' && tron.tx.contract[0].data[0..8] == 'a9059cbb'",
    "tron.tx.contract[0].amount < 10000000",
    "tron.tx.contract[0].type == 'TransferContract'",
    # time-based-policies.mdx and examples/time-based-policies.mdx
    "time.now >= Timestamp('2026-03-01T00:00:00Z') && time.now < Timestamp('2026-04-01T00:00:00Z')",
    "CronSpan('0 22 * * *', '8h', 'America/New_York')",
    "CronSpan('0 9 * * 1-5', '8h', 'America/New_York') && time.now < Timestamp('2026-01-01T00:00:00Z')",
    f"approvers.any(user, user.tags.contains('{OPS_TAG_ID}'))",
    f"activity.kind == 'SIGN_TRANSACTION' && eth.tx.to == '{ETH_ADDRESS}'",
    # smart-contract-interfaces.mdx
    "eth.tx.contract_call_args['arg_name'] == 1",
    "solana.tx.instructions[0].parsed_instruction_data.program_call_args['arg_name'] == 1",
    "solana.tx.instructions.any(i, i.program_key == 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4' && i.parsed_instruction_data.instruction_name == 'route' && i.parsed_instruction_data.program_call_args['in_amount'] == 995500000)",
    "eth.tx.function_name == 'transfer' && eth.tx.function_signature == '0xa9059cbb'",
]


@pytest.mark.parametrize("text", DOC_EXAMPLES)
def test_every_documented_example_parses(text: str) -> None:
    assert parse(text).source == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("true && false", False),
        ("1 < 2", True),
        ("'a' != 'b'", True),
        ("1 in [1, 2, 3]", True),
        ("[1,2,3][0]", 1),
        ("'abc'[0]", "a"),
        ("[1,2,3][0..2]", [1, 2]),
        ("'abc'[0..2]", "ab"),
        ("[1,1,1].all(x, x == 1)", True),
        ("[1,2,3].any(x, x == 1)", True),
        ("[1,2,3].contains(1)", True),
        ("[1,2,3].count()", 3),
        ("[1,2,3].filter(x, x == 1)", [1]),
        ("Timestamp('2025-01-01T00:00:00Z')", Timestamp.from_ns(1_735_689_600 * 10**9)),
    ],
)
def test_the_grammar_table_examples_evaluate_as_documented(text: str, value: object) -> None:
    assert ev(text) == value


def wallet_create_env() -> dict[str, Any]:
    return {
        "activity": {
            "type": "ACTIVITY_TYPE_CREATE_WALLET",
            "kind": "CREATE_WALLET",
            "resource": "WALLET",
            "action": "CREATE",
            "params": {},
        },
        "approvers": [
            {"id": USER_ID, "tags": [TAG_ID], "email": "a@example.com", "alias": "a"},
            {"id": OTHER_USER_ID, "tags": [TAG_ID, OPS_TAG_ID], "email": "", "alias": ""},
        ],
        "credentials": [
            {
                "id": "cred-1",
                "user_id": USER_ID,
                "type": "CREDENTIAL_TYPE_API_KEY_P256",
                "credential_id": "",
                "public_key": "02f739f8c77b32f4d5f13265861febd76e7a9c61a1140d296b8c16302508870316",
            }
        ],
    }


def sign_env() -> dict[str, Any]:
    return {
        "activity": {
            "type": "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
            "kind": "SIGN_TRANSACTION",
            "resource": "PRIVATE_KEY",
            "action": "SIGN",
            "params": {"type": "TRANSACTION_TYPE_ETHEREUM"},
        },
        "wallet": {"id": WALLET_ID, "imported": False, "exported": False, "label": "main"},
        "wallet_account": {"address": ETH_ADDRESS},
        "eth": {
            "tx": {
                "to": USDC,
                "from": ETH_ADDRESS,
                "data": "0xa9059cbb00000000000000000000000008d2b0a37f869ff76bacb5bab3278e26ab7067b7",
                "value": 0,
                "chain_id": 11155111,
                "nonce": 4,
                "function_name": "executeBatch",
                "contract_call_args": {
                    "calls": [[USDC, 0, "0x"], [USDC, 0, "0x1234"]],
                    "wad": 10**17,
                    "dst": ETH_ADDRESS,
                },
            }
        },
        "solana": {
            "tx": {
                "transfers": [{"from": SOL_ADDRESS, "to": SOL_ADDRESS, "amount": 5}],
                "spl_transfers": [],
                "instructions": [{"program_key": "11111111111111111111111111111111"}],
                "program_keys": ["11111111111111111111111111111111"],
                "address_table_lookups": [],
            }
        },
        "bitcoin": {
            "tx": {
                "outputs": [
                    {"address": "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", "value": 150000}
                ],
                "fee": 20000,
            }
        },
        "tron": {"tx": {"contract": [{"type": "TransferContract", "amount": 20_000_000}]}},
        "tempo": {
            "tx": {
                "calls": [
                    {
                        "to": USDC,
                        "input": "0xa9059cbb00000000000000000000000008d2b0a37f869ff76bacb5bab3278e26ab7067b7",
                        "function_signature": "0xa9059cbb",
                    }
                ]
            }
        },
    }


@pytest.mark.parametrize(
    ("text", "make_env", "value"),
    [
        (f"approvers.any(user, user.id == '{USER_ID}')", wallet_create_env, True),
        ("approvers.any(user, user.id == 'a1b2c3d4-0000-4000-8000-000000000000')", wallet_create_env, False),
        ("activity.resource == 'WALLET' && activity.action == 'CREATE'", wallet_create_env, True),
        ("activity.resource == 'POLICY' && activity.action == 'CREATE'", wallet_create_env, False),
        (f"approvers.filter(user, user.tags.contains('{TAG_ID}')).count() >= 2", wallet_create_env, True),
        (f"approvers.filter(user, user.tags.contains('{OPS_TAG_ID}')).count() >= 2", wallet_create_env, False),
        (f"approvers.any(user, user.tags.contains('{TAG_ID}') || user.tags.contains('{OPS_TAG_ID}')) && (approvers.filter(user, user.tags.contains('{TAG_ID}')).count() >= 1 && approvers.filter(user, user.tags.contains('{OPS_TAG_ID}')).count() >= 2)", wallet_create_env, False),
        ("activity.resource in ['AUTH', 'OTP'] && activity.action in ['CREATE','VERIFY']", wallet_create_env, False),
        ("credentials.any(credential, credential.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')", wallet_create_env, False),
        ("credentials.any(credential, credential.public_key == '02f739f8c77b32f4d5f13265861febd76e7a9c61a1140d296b8c16302508870316')", wallet_create_env, True),
        ("activity.kind == 'SIGN_TRANSACTION'", sign_env, True),
        (f"activity.action == 'SIGN' && wallet.id == '{WALLET_ID}'", sign_env, True),
        (f"activity.action == 'SIGN' && wallet_account.address == '{USDC}'", sign_env, False),
        (f"eth.tx.to == '{USDC}' && eth.tx.data[0..10] == '0xa9059cbb'", sign_env, True),
        ("eth.tx.chain_id == 11155111", sign_env, True),
        ("eth.tx.nonce <= 3", sign_env, False),
        ("eth.tx.function_name == 'executeBatch' && eth.tx.contract_call_args['calls'].count() == 2", sign_env, True),
        (f"eth.tx.function_name == 'executeBatch' && eth.tx.contract_call_args['calls'].all(call, call[0] == '{USDC}' && call[1] == 0)", sign_env, True),
        (f"eth.tx.function_name == 'executeBatch' && eth.tx.contract_call_args['calls'].all(call, call[0] == '{ETH_ADDRESS}' && call[1] == 0)", sign_env, False),
        (f"eth.tx.contract_call_args['wad'] < 1000000000000000000 && eth.tx.contract_call_args['dst'] == '{ETH_ADDRESS}'", sign_env, True),
        (f"solana.tx.transfers.all(transfer, transfer.from == '{SOL_ADDRESS}')", sign_env, True),
        ("solana.tx.transfers.any(t, t.to == 'ADDRESS_TABLE_LOOKUP') || solana.tx.spl_transfers.any(t, t.to == 'ADDRESS_TABLE_LOOKUP')", sign_env, False),
        ("solana.tx.address_table_lookups.count() > 0", sign_env, False),
        ("solana.tx.program_keys.all(p, p == '11111111111111111111111111111111')", sign_env, True),
        ("bitcoin.tx.outputs.all(o, o.value < 200000)", sign_env, True),
        ("bitcoin.tx.fee <= 10000", sign_env, False),
        ("tron.tx.contract[0].amount < 10000000", sign_env, False),
        ("tron.tx.contract[0].type == 'TransferContract'", sign_env, True),
        ("tempo.tx.calls[0].input[34..74] == '08d2b0a37f869ff76bacb5bab3278e26ab7067b7'", sign_env, True),
        ("tempo.tx.calls.count() == 1 && tempo.tx.calls[0].function_signature == '0xa9059cbb'", sign_env, True),
    ],
)  # fmt: skip
def test_documented_examples_evaluate(text: str, make_env: Any, value: bool) -> None:
    assert parse(text).test(make_env()) is value


def test_documented_self_deletion_policy() -> None:
    consensus = parse(f"approvers.any(user, user.id == '{USER_ID}')")
    condition = parse(
        f"activity.type == 'ACTIVITY_TYPE_DELETE_USERS' && activity.params.user_ids.count() == 1 "
        f"&& '{USER_ID}' in activity.params.user_ids"
    )
    env = {
        "approvers": [{"id": USER_ID, "tags": []}],
        "activity": {"type": "ACTIVITY_TYPE_DELETE_USERS", "params": {"user_ids": [USER_ID]}},
    }
    assert consensus.test(env) and condition.test(env)
    env["activity"]["params"]["user_ids"] = [OTHER_USER_ID]
    assert condition.test(env) is False


def test_documented_no_op_hash_policy() -> None:
    condition = parse(
        "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && activity.params.hash_function == "
        "'HASH_FUNCTION_NO_OP' && activity.params.encoding != 'PAYLOAD_ENCODING_EIP712'"
    )
    params = {"hash_function": "HASH_FUNCTION_NO_OP", "encoding": "PAYLOAD_ENCODING_HEXADECIMAL"}
    env = {"activity": {"type": "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", "params": params}}
    assert condition.test(env) is True
    params["encoding"] = "PAYLOAD_ENCODING_EIP712"
    assert condition.test(env) is False
    # another activity type exposes no hash_function: the clause errors, no short-circuit
    env = {"activity": {"type": "ACTIVITY_TYPE_CREATE_WALLET", "params": {}}}
    with pytest.raises(PolicyEvaluationError) as caught:
        condition.test(env)
    assert str(caught.value) == "MissingField: activity.params.hash_function"
    assert condition.activity_requirements == {
        "type": frozenset({"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"})
    }


def test_documented_permit2_policies() -> None:
    env = {**ETH_ENV, "activity": {"type": "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"}}
    base = (
        "eth.eip_712.domain.name == 'Permit2' && "
        "eth.eip_712.primary_type == 'PermitBatchTransferFrom' && {} && "
        "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'"
    )
    assert parse(base.format(f"eth.eip_712.message['permitted'][0]['token'] == '{USDC}'")).test(env)
    assert parse(
        base.format(f"eth.eip_712.message['permitted'].all(p, p['token'] == '{USDC}')")
    ).test(env)
    assert parse(base.format("eth.eip_712.message['permitted'].count() <= 2")).test(env)
    any_small = (
        f"eth.eip_712.message['permitted'].any(p, p['token'] == '{USDC}' && p['amount'] < 100)"
    )
    assert parse(base.format(any_small)).test(env)
    none_small = (
        f"eth.eip_712.message['permitted'].any(p, p['token'] == '{USDC}' && p['amount'] < 5)"
    )
    assert parse(base.format(none_small)).test(env) is False


# --- a property: random boolean trees ---------------------------------------------

_COMPARE = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    ">": operator.gt,
    "<=": operator.le,
    ">=": operator.ge,
}

# precedence of each rendered node, loosest first
_PRECEDENCE = {"||": 1, "&&": 2, "cmp": 3, "beq": 3, "!": 4, "atom": 5}

_leaves = st.one_of(
    st.booleans().map(lambda value: ("bool", value)),
    st.tuples(st.sampled_from(sorted(_COMPARE)), st.integers(0, 5), st.integers(0, 5)).map(
        lambda parts: ("cmp", *parts)
    ),
)


def _extend(children: st.SearchStrategy[tuple]) -> st.SearchStrategy[tuple]:
    return st.one_of(
        st.tuples(st.just("&&"), children, children),
        st.tuples(st.just("||"), children, children),
        st.tuples(st.just("!"), children),
        st.tuples(st.just("beq"), st.sampled_from(["==", "!="]), children, children),
    )


boolean_trees = st.recursive(_leaves, _extend, max_leaves=25)


def python_value(tree: tuple) -> bool:
    kind = tree[0]
    if kind == "bool":
        return tree[1]
    if kind == "cmp":
        return _COMPARE[tree[1]](tree[2], tree[3])
    if kind == "&&":
        return python_value(tree[1]) and python_value(tree[2])
    if kind == "||":
        return python_value(tree[1]) or python_value(tree[2])
    if kind == "!":
        return not python_value(tree[1])
    return _COMPARE[tree[1]](python_value(tree[2]), python_value(tree[3]))


def precedence(tree: tuple) -> int:
    kind = tree[0]
    return _PRECEDENCE["atom" if kind == "bool" else kind]


def render(tree: tuple, minimal: bool) -> str:
    """Policy text for a tree: fully parenthesized, or with only the parentheses
    that precedence and left-associativity require."""
    kind = tree[0]
    if kind == "bool":
        return "true" if tree[1] else "false"
    if kind == "cmp":
        return f"{tree[2]} {tree[1]} {tree[3]}"

    def wrap(child: tuple, at_least: int) -> str:
        text = render(child, minimal)
        if not minimal:
            return text if child[0] == "bool" else f"({text})"
        return text if precedence(child) >= at_least else f"({text})"

    if kind == "!":
        return "!" + wrap(tree[1], _PRECEDENCE["!"])
    if kind == "beq":
        # comparisons are left-associative: the right operand needs a tighter tree
        return f"{wrap(tree[2], 3)} {tree[1]} {wrap(tree[3], 4)}"
    level = _PRECEDENCE[kind]
    return f"{wrap(tree[1], level)} {kind} {wrap(tree[2], level)}"


@settings(max_examples=300, deadline=None)
@given(boolean_trees)
def test_random_boolean_trees_evaluate_like_python(tree: tuple) -> None:
    expected = python_value(tree)
    assert parse(render(tree, minimal=False)).test({}) is expected
    assert parse(render(tree, minimal=True)).test({}) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("activity.action == 'SIGN' && wallet.id == 'w1'", {"wallet.id": frozenset({"w1"})}),
        ("'k1' == private_key.id", {"private_key.id": frozenset({"k1"})}),
        (
            "wallet_account.address in ['a', 'b'] && wallet_account.address == 'b'",
            {"wallet_account.address": frozenset({"b"})},
        ),
        ("wallet.id == 'w1' || private_key.id == 'k1'", {}),
        ("wallet.label == 'hot'", {"wallet.label": frozenset({"hot"})}),
        ("private_key.label in ['a', 'b']", {"private_key.label": frozenset({"a", "b"})}),
        ("wallet.exported == true", {}),
    ],
)
def test_target_requirements_come_from_the_top_level_conjunction(text, expected) -> None:
    assert dict(parse(text).target_requirements) == expected


def test_clauses_split_the_top_level_conjunction_and_share_path_readers() -> None:
    first = parse("activity.action == 'SIGN' && wallet.label != 'a' && true")
    second = parse("wallet.label == 'b' && activity.params.hash_function == 'X'")
    (action, label, other) = first.clauses
    (label_b, hash_function) = second.clauses
    assert action[1:4] == (str, "SIGN", True) and label[1:4] == (str, "a", False)
    assert other[0] is None and other[1]({}, None) is True  # not a comparison: a closure
    assert label_b[0] is label[0]  # one reader of wallet.label for both expressions
    env = {"wallet": {"label": "b"}, "activity": {"params": {"hash_function": "X"}}}
    assert label_b[0](env, None) == "b" and hash_function[0](env, None) == "X"
    with pytest.raises(PolicyEvaluationError):  # 1 == 'a' is an error, not false
        label[4](1)
    assert parse("activity.type").clauses[0][0] is None
