"""The public hypothesis strategies (``emulator.testing.strategies``).

* for every operation and version of the registry, ``parameters`` draws values that pass
  that version's schema (a query's body for a query);
* the domain strategies draw requests the facade accepts: wallets with ``account_specs``,
  signatures with ``payloads(curve)`` (checked with other libraries), users with
  ``user_params``, private keys with ``private_key_params``;
* any schema-valid request is answered or rejected with a 4xx that changes nothing;
* ``eip712_documents`` hash to the digest ``eth_account`` computes.
"""

from __future__ import annotations

import json

import eth_account.messages  # imported up front: py_ecc raises the recursion limit on import
import pytest
from eth_utils import keccak
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator import Emulator, TurnkeyApiError
from emulator.accounts import account_spec
from emulator.crypto.addresses import curves_for
from emulator.crypto.eip712 import typed_data_digest
from emulator.ground.schema import (
    Array,
    Enum,
    Integer,
    Object,
    Spec,
    String,
    check,
    label,
    obj,
    opt,
    uuid,
)
from emulator.ops import ACTIVITY, REGISTRY
from emulator.testing import strategies as ts
from emulator.testing.state_machine import check_signature, state_digest

FEW = settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
CASES = [
    pytest.param(op.name, v.activity_type, id=v.activity_type)
    for op in REGISTRY.values()
    if op.kind == ACTIVITY
    for v in op.versions
] + [pytest.param(op.name, None, id=op.name) for op in REGISTRY.values() if op.kind != ACTIVITY]


def _spec_of(name: str, activity_type: str | None) -> Object:
    op = REGISTRY[name]
    if activity_type is None:
        assert op.body is not None
        return op.body
    version = op.version(activity_type)
    assert version is not None
    return version.params


@pytest.mark.parametrize(("name", "activity_type"), CASES)
@FEW
@given(data=st.data())
def test_parameters_pass_the_schema_of_every_version(name, activity_type, data):
    value = data.draw(ts.parameters(name, activity_type))
    _, violations = check(_spec_of(name, activity_type), value)
    assert not violations, (value, violations)


@pytest.mark.parametrize(("name", "activity_type"), CASES)
@FEW
@given(data=st.data())
def test_schema_valid_parameters_succeed_or_are_rejected_cleanly(name, activity_type, data):
    """Any schema-valid request gets an answer or a 4xx, and a rejection changes nothing."""
    emu = _emulator()
    emu.create_wallet(wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")])
    params = data.draw(ts.parameters(name, activity_type))
    before = state_digest(emu)
    try:
        emu.call(name, params, activity_type=activity_type)
    except TurnkeyApiError as error:
        assert 400 <= error.status < 500, (error.status, error.message)
        assert state_digest(emu) == before


def test_every_operation_is_covered():
    assert {p.values[0] for p in CASES} == set(REGISTRY)


@FEW
@given(data=st.data())
def test_the_default_version_is_drawn_without_a_type(data):
    params = data.draw(ts.parameters("create_users"))
    _, violations = check(REGISTRY["create_users"].default_version.params, params)
    assert not violations


@FEW
@given(
    value=ts.from_spec(
        obj(
            name=label(),
            id=uuid(),
            email=opt(String(fmt="email", max_length=20)),
            phone=String(fmt="e164"),
            count=Integer(minimum=-3, maximum=5),
            kinds=Array(Enum(("A", "B")), min_items=2),
            hex=opt(String(fmt="hex")),
            limit=opt(String(fmt="uint")),
        )
    )
)
def test_from_spec_covers_every_kind_of_spec(value):
    assert value["name"] and len(value["name"]) <= 256
    assert len(value["kinds"]) >= 2
    assert -3 <= int(value["count"]) <= 5


def test_from_spec_refuses_a_spec_it_does_not_know():
    with pytest.raises(TypeError):
        ts.from_spec(Spec())
    with pytest.raises(TypeError):
        ts.from_spec(String(fmt="roman numeral"))


@FEW
@given(data=st.data())
def test_overrides_replace_a_field_or_a_field_inside_array_items(data):
    wallet = data.draw(ts.parameters("create_wallet", overrides={"accounts": st.just([])}))
    assert wallet["accounts"] == []
    users = data.draw(
        ts.parameters(
            "create_users",
            "ACTIVITY_TYPE_CREATE_USERS_V4",
            overrides={"users.apiKeys": st.just([]), "users.userTags": st.just([])},
        )
    )
    assert all(u["apiKeys"] == [] and u["userTags"] == [] for u in users["users"])


def test_unknown_names_are_refused():
    with pytest.raises(ValueError, match="no operation"):
        ts.parameters("create_nothing")
    with pytest.raises(ValueError, match="no version"):
        ts.parameters("create_users", "ACTIVITY_TYPE_CREATE_NOTHING")
    with pytest.raises(ValueError, match="no field"):
        ts.parameters("create_wallet", overrides={"wallet": st.just("x")})
    with pytest.raises(ValueError, match="query"):
        ts.parameters("list_users", "ACTIVITY_TYPE_CREATE_USERS")


# --- domain strategies through the facade -----------------------------------------------------


def _emulator() -> Emulator:
    emu = Emulator(seed=7)
    emu.create_organization()
    return emu


@FEW
@given(accounts=ts.account_spec_lists(min_size=1, max_size=4))
def test_account_specs_make_a_wallet(accounts):
    for account in accounts:
        assert account["curve"] in curves_for(account["addressFormat"])
    emu = _emulator()
    made = emu.create_wallet(wallet_name="w", accounts=accounts)
    assert len(made["addresses"]) == len(accounts)
    for spec, address in zip(accounts, made["addresses"], strict=True):
        found = emu.get_wallet_account(wallet_id=made["walletId"], address=address)["account"]
        assert (found["curve"], found["path"], found["addressFormat"]) == ts.account_key(spec)


@settings(FEW, max_examples=25)
@given(data=st.data(), curve=st.sampled_from(("CURVE_SECP256K1", "CURVE_ED25519", "CURVE_P256")))
def test_payloads_sign_with_an_account_of_their_curve(data, curve):
    account = data.draw(ts.account_specs(curve))
    payload, encoding, hash_function = data.draw(ts.payloads(curve))
    emu = _emulator()
    made = emu.create_wallet(wallet_name="w", accounts=[account])
    address = made["addresses"][0]
    signed = emu.sign_raw_payload(
        sign_with=address, payload=payload, encoding=encoding, hash_function=hash_function
    )
    found = emu.get_wallet_account(wallet_id=made["walletId"], address=address)["account"]
    taproot = account["addressFormat"].endswith("_P2TR")
    check_signature(
        signed,
        curve=curve,
        public_key=found["publicKey"],
        payload=payload,
        encoding=encoding,
        hash_function=hash_function,
        taproot_address=address if taproot else None,
        address_format=account["addressFormat"],
    )


def _distinct_api_keys(users: list[dict]) -> bool:
    keys = [k["publicKey"] for u in users for k in u["apiKeys"]]
    return len(keys) == len(set(keys))


@FEW
@given(
    users=st.lists(ts.user_params(), min_size=1, max_size=3).filter(_distinct_api_keys),
    activity_type=st.sampled_from(
        ["ACTIVITY_TYPE_CREATE_USERS_V3", "ACTIVITY_TYPE_CREATE_USERS_V4"]
    ),
)
def test_user_params_create_users(users, activity_type):
    emu = _emulator()
    made = emu.create_users(users=users, activity_type=activity_type)
    listed = {u["userId"]: u for u in emu.list_users()["users"]}
    for user_id, spec in zip(made["userIds"], users, strict=True):
        assert listed[user_id]["userName"] == spec["userName"]
        keys = [k["credential"]["publicKey"] for k in listed[user_id]["apiKeys"]]
        assert keys == [k["publicKey"] for k in spec["apiKeys"]]


@FEW
@given(
    keys=st.lists(
        ts.private_key_params(), min_size=1, max_size=3, unique_by=lambda k: k["privateKeyName"]
    )
)
def test_private_key_params_create_private_keys(keys):
    emu = _emulator()
    made = emu.create_private_keys(private_keys=keys)
    for spec, entry in zip(keys, made["privateKeys"], strict=True):
        assert [a["format"] for a in entry["addresses"]] == spec["addressFormats"]


@settings(FEW, max_examples=50)
@given(document=ts.eip712_documents())
def test_eip712_documents_hash_as_eth_account_hashes_them(document):
    message = eth_account.messages.encode_typed_data(full_message=document)
    expected = keccak(b"\x19" + message.version + message.header + message.body)
    assert typed_data_digest(json.loads(json.dumps(document))) == expected
