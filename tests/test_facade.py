"""The Python object: organizations, handles, callers, errors like the wire's."""

from __future__ import annotations

import pytest

from emulator import Emulator, TurnkeyApiError, generate_key_pair
from emulator.http.app import handle

from .helpers import NIL_UUID, encode, stamped_headers


def test_create_organization_bootstraps_root_user_key_and_quorum():
    emu = Emulator()
    org = emu.create_organization("Acme", user_name="Ada", user_email="ada@example.com")
    user = emu.get_user(user_id=org.user_id)["user"]
    assert (user["userName"], user["userEmail"]) == ("Ada", "ada@example.com")
    (key,) = user["apiKeys"]
    assert key["apiKeyId"] == org.api_key_id
    assert key["credential"] == {
        "publicKey": org.api_public_key,
        "type": "CREDENTIAL_TYPE_API_KEY_P256",
    }
    assert len(org.api_public_key) == 66 and org.api_public_key[:2] in ("02", "03")
    assert emu.get_organization_configs()["configs"]["quorum"] == {
        "threshold": 1,
        "userIds": [org.user_id],
    }
    assert org.api_private_key not in repr(org)


def test_given_key_pair_or_public_key():
    pair = generate_key_pair()
    emu = Emulator()
    org = emu.create_organization(api_public_key=pair.public_key, api_private_key=pair.private_key)
    assert org.api_key == pair
    only_private = emu.create_organization(api_private_key=generate_key_pair().private_key)
    assert len(only_private.api_public_key) == 66
    only_public = emu.create_organization(api_public_key=generate_key_pair().public_key)
    assert (
        emu.create_users(users=[], organization_id=only_public.organization_id) if False else True
    )
    made = emu.call(
        "create_user_tag",
        {"userTagName": "t", "userIds": []},
        organization_id=only_public.organization_id,
    )
    assert made["activity"]["votes"][0]["signature"] == ""
    with pytest.raises(ValueError):
        emu.create_organization(
            api_public_key=generate_key_pair().public_key, api_private_key=pair.private_key
        )


def test_facade_errors_equal_wire_errors():
    emu = Emulator()
    org = emu.create_organization()
    with pytest.raises(TurnkeyApiError) as caught:
        emu.get_user(user_id=NIL_UUID)
    raw = encode({"organizationId": org.organization_id, "userId": NIL_UUID})
    status, payload = handle(
        emu.world, "POST", "/public/v1/query/get_user", stamped_headers(raw, org.api_key), raw
    )
    import json

    assert (caught.value.status, caught.value.body()) == (status, json.loads(payload))
    assert str(caught.value) == f"Turnkey error 5: {caught.value.message}"


def test_snake_and_camel_case_parameters_are_the_same():
    emu = Emulator()
    emu.create_organization()
    a = emu.create_user_tag(user_tag_name="a", user_ids=[])
    b = emu.create_user_tag(userTagName="b", userIds=[])
    assert a["activity"]["intent"]["createUserTagIntent"]["userTagName"] == "a"
    assert b["activity"]["intent"]["createUserTagIntent"]["userTagName"] == "b"


def test_sdk_method_names_are_aliases():
    emu = Emulator()
    emu.create_organization()
    assert emu.get_users()["users"] == emu.list_users()["users"]
    assert emu.get_whoami()["userId"] == emu.whoami()["userId"]
    assert emu.get_activities()["activities"] == emu.list_activities()["activities"]


def test_caller_and_organization_selection():
    emu = Emulator()
    first = emu.create_organization("First")
    second = emu.create_organization("Second")
    assert emu.get_whoami()["organizationId"] == first.organization_id
    assert emu.get_whoami(organization_id=second.organization_id)["organizationName"] == "Second"
    assert (
        emu.get_whoami(organization_id=second.organization_id, caller=second)["userId"]
        == second.user_id
    )
    with pytest.raises(TurnkeyApiError) as caught:
        emu.get_whoami(organization_id=second.organization_id, caller=first)
    assert caught.value.status == 401


def test_no_organization_yet():
    with pytest.raises(ValueError):
        Emulator().get_whoami()


def test_unknown_operation_name():
    with pytest.raises(AttributeError):
        Emulator().call("create_spaceship")


def test_unknown_parent():
    with pytest.raises(ValueError):
        Emulator().create_organization(parent_organization_id=NIL_UUID)


def test_facade_calls_are_distinct_activities_unless_resubmitted():
    emu = Emulator()
    emu.create_organization()
    emu.clock.freeze()
    first = emu.create_user_tag(user_tag_name="a", user_ids=[])
    with pytest.raises(TurnkeyApiError):  # a second, distinct activity: the name is taken
        emu.create_user_tag(user_tag_name="a", user_ids=[])
    again = emu.create_user_tag(
        user_tag_name="a", user_ids=[], timestamp_ms=first["activity"]["timestampMs"]
    )
    assert again["activity"]["id"] == first["activity"]["id"]
