"""What the fuzz found (``tests/test_fuzz.py``): one plain example per defect, by its input.

Each answered 500 with a traceback before the fix (or, for the digits of other scripts,
was taken as a number the real service refuses). Now each is the API's 400 and changes
nothing.
"""

from __future__ import annotations

import io
import json

import pytest

from emulator.crypto.api_keys import generate_key_pair
from emulator.ground.numbers import integer, quantity

from .fuzzing import FuzzWorld, build_world, check_answer, encode, post

_WORLD: list[FuzzWorld] = []


@pytest.fixture
def world() -> FuzzWorld:
    if not _WORLD:
        _WORLD.append(build_world())
    yield _WORLD[0]
    _WORLD[0].reset()


def submit(world: FuzzWorld, operation: str, activity_type: str, params, **envelope):
    body = {
        "type": activity_type,
        "timestampMs": str(world.emu.world.clock.now_ms()),
        "organizationId": world.org.organization_id,
        "parameters": params,
        **envelope,
    }
    return post(world, f"/public/v1/submit/{operation}", encode(body))


def query(world: FuzzWorld, operation: str, **fields):
    body = {"organizationId": world.org.organization_id, **fields}
    return post(world, f"/public/v1/query/{operation}", encode(body))


def refused(world: FuzzWorld, answer: tuple[int, dict], message: str) -> dict:
    status, body = answer
    check_answer(world, status, body)
    assert (status, body["code"]) == (400, 3), body
    assert message in body["message"], body
    return body


def field_violations(body: dict) -> dict[str, str]:
    (detail,) = [d for d in body["details"] if "fieldViolations" in d]
    return {v["field"]: v["description"] for v in detail["fieldViolations"]}


# --- timestampMs ---------------------------------------------------------------------------

TIMESTAMP_RULE = "This field must be a string of milliseconds since the epoch."


@pytest.mark.parametrize(
    "timestamp",
    [
        "²",
        "⁴³",
        "₁",
        "①",
        "١٧٠٠٠٠٠٠٠٠٠٠٠",
        "１７００",
        " 1700000000000",
        "+1700000000000",
        "9" * 5000,
    ],
    ids=[
        "superscript",
        "superscripts",
        "subscript",
        "circled",
        "arabic",
        "fullwidth",
        "space",
        "plus",
        "5000-digits",
    ],
)
def test_a_timestamp_in_other_digits_is_refused(world, timestamp):
    answer = submit(
        world,
        "create_private_key_tag",
        "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",
        {"privateKeyTagName": "t", "privateKeyIds": []},
        timestampMs=timestamp,
    )
    body = refused(world, answer, "fieldViolations: timestampMs")
    assert field_violations(body) == {"timestampMs": TIMESTAMP_RULE}


@pytest.mark.parametrize(
    "timestamp", [10**400, -(10**400), 1e308], ids=["1e400", "-1e400", "1e308"]
)
def test_a_timestamp_as_a_huge_json_number_is_refused(world, timestamp):
    answer = submit(
        world,
        "create_private_key_tag",
        "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",
        {"privateKeyTagName": "t", "privateKeyIds": []},
        timestampMs=timestamp,
    )
    body = refused(world, answer, "fieldViolations: timestampMs")
    assert field_violations(body) == {"timestampMs": TIMESTAMP_RULE}


def test_a_timestamp_in_the_current_window_in_arabic_digits_is_not_taken(world):
    now = str(world.emu.world.clock.now_ms())
    arabic = "".join("٠١٢٣٤٥٦٧٨٩"[int(c)] for c in now)
    answer = submit(
        world,
        "create_private_key_tag",
        "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",
        {"privateKeyTagName": "t", "privateKeyIds": []},
        timestampMs=arabic,
    )
    refused(world, answer, "fieldViolations: timestampMs")


# --- expirationSeconds ------------------------------------------------------------------------


@pytest.mark.parametrize("seconds", ["1.5", "²", "١٠", " 60", "+60", "1e3", "9" * 5000])
def test_a_login_expiration_that_is_no_whole_number_is_refused(world, seconds):
    answer = submit(
        world,
        "stamp_login",
        "ACTIVITY_TYPE_STAMP_LOGIN",
        {"publicKey": generate_key_pair().public_key, "expirationSeconds": seconds},
    )
    refused(world, answer, "invalid api key expiration")


@pytest.mark.parametrize("seconds", ["²", "١٠", "9" * 5000])
def test_an_api_key_expiration_in_other_digits_is_refused(world, seconds):
    key = generate_key_pair()
    params = {
        "userId": world.org.user_id,
        "apiKeys": [
            {
                "apiKeyName": "k",
                "publicKey": key.public_key,
                "curveType": key.curve,
                "expirationSeconds": seconds,
            }
        ],
    }
    answer = submit(world, "create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", params)
    refused(world, answer, "invalid api key expiration")


def test_an_otp_lifetime_of_five_thousand_digits_is_refused(world):
    params = {
        "otpType": "OTP_TYPE_EMAIL",
        "contact": "a@example.com",
        "appName": "fuzz",
        "expirationSeconds": "9" * 5000,
    }
    answer = submit(world, "init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", params)
    body = refused(world, answer, "fieldViolations: expirationSeconds")
    assert field_violations(body) == {
        "expirationSeconds": "This field must be a positive whole number of seconds."
    }


# --- proto integers and limits ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "rule"),
    [
        ("9" * 5000, "This field must be an integer."),
        ("١", "This field must be an integer."),
        (" 1", "This field must be an integer."),
        (2**64, "This field must be a 64-bit integer."),
        ("NaN", "This field must be an integer."),
    ],
    ids=["5000-digits", "arabic", "space", "2^64", "NaN"],
)
def test_a_proto_integer_in_odd_text_is_a_field_violation(world, value, rule):
    answer = submit(
        world,
        "update_root_quorum",
        "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM",
        {"threshold": value, "userIds": [world.org.user_id]},
    )
    body = refused(world, answer, "fieldViolations: threshold")
    assert field_violations(body) == {"threshold": rule}


@pytest.mark.parametrize("limit", ["9" * 5000, "١٠", "²"])
def test_a_pagination_limit_in_odd_text_is_refused(world, limit):
    answer = query(world, "list_activities", paginationOptions={"limit": limit})
    body = refused(world, answer, "paginationOptions.limit")
    assert "paginationOptions.limit" in field_violations(body)


# --- policies --------------------------------------------------------------------------------


def test_a_policy_condition_with_a_five_thousand_digit_number_is_refused(world):
    params = {
        "policyName": "big",
        "effect": "EFFECT_ALLOW",
        "condition": "activity.params.threshold == " + "9" * 5000,
        "consensus": "approvers.any(user, user.id == 'x')",
        "notes": "",
    }
    answer = submit(world, "create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", params)
    refused(world, answer, "number too large to fit in target type")


# --- a CAIP-2 id and an address of the other chain family ----------------------------------------


def _own_addresses(world: FuzzWorld) -> dict[str, str]:
    emu, org = world.emu, world.org
    call = {"organization_id": org.organization_id, "caller": org}
    wallet_id = emu.list_wallets(**call)["wallets"][0]["walletId"]
    accounts = emu.list_wallet_accounts(wallet_id=wallet_id, **call)["accounts"]
    return {a["addressFormat"]: a["address"] for a in accounts}


def test_a_solana_address_with_an_eip155_caip2_is_refused(world):
    solana = _own_addresses(world)["ADDRESS_FORMAT_SOLANA"]
    answer = query(world, "get_wallet_address_balances", address=solana, caip2="eip155:1")
    refused(world, answer, f"invalid address: {solana!r} is not an EVM address")


def test_an_evm_address_with_a_solana_caip2_is_refused(world):
    evm = _own_addresses(world)["ADDRESS_FORMAT_ETHEREUM"]
    caip2 = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
    answer = query(world, "get_wallet_address_balances", address=evm, caip2=caip2)
    refused(world, answer, f"invalid address: {evm!r} is not a Solana address")


# --- the parser itself ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["²", "١٢٣", "１２", " 1", "1 ", "+1", "1_000", "1e3", "1.0", "", "-", "9" * 101]
)
def test_integer_reads_ascii_digits_only(text):
    assert integer(text) is None
    assert integer(text, signed=True) is None


def test_integer_and_quantity_read_what_proto_json_and_chains_write():
    assert integer("0042") == 42 and integer(7) == 7 and integer(-1) is None
    assert integer("-5", signed=True) == -5 and integer(True) is None
    assert integer(3.0) is None and integer(3.0, floats=True) == 3
    assert integer(float("nan"), floats=True) is None
    assert quantity("0x1F") == 31 and quantity("31") == 31 and quantity("0x") is None
    assert quantity("0x" + "f" * 99) is None  # past MAX_DIGITS
    assert integer(10**100) is None and integer(10**100 - 1) == 10**100 - 1
    assert integer(1e300, floats=True) is None


# --- Content-Length -------------------------------------------------------------------------------


@pytest.mark.parametrize("length", ["²", "١٢", "9" * 5000])
def test_a_content_length_in_other_digits_is_refused_over_wsgi(world, length):
    raw = encode({"organizationId": world.org.organization_id})
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/public/v1/query/whoami",
        "CONTENT_LENGTH": length,
        "wsgi.input": io.BytesIO(raw),
    }
    seen = {}
    payload = b"".join(
        world.emu.wsgi_app(environ, lambda status, headers: seen.update(status=status))
    )
    body = json.loads(payload)
    assert seen["status"].startswith("400 ") and body["code"] == 3, body
    assert body["message"].startswith("invalid Content-Length: ")
