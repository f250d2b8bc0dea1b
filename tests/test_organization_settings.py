"""The organization's settings: root quorum, features and name; root quorum only."""

from __future__ import annotations

import pytest

from emulator import Emulator
from emulator.ground import messages

from .helpers import NIL_UUID, api_key_params, error_of, fails, new_key, user_params, violations

COMPLETED = "ACTIVITY_STATUS_COMPLETED"
EMAIL_AUTH = "FEATURE_NAME_EMAIL_AUTH"
WEBHOOK = "FEATURE_NAME_WEBHOOK"


@pytest.fixture
def emu(turnkey_emulator, turnkey_org):
    return turnkey_emulator


def configs(emu, **kwargs) -> dict:
    return emu.get_organization_configs(**kwargs)["configs"]


def add_user(emu, name: str = "bob"):
    """A user of the organization with an API key of their own; ``(user_id, key)``."""
    key = new_key()
    made = emu.create_users(users=[user_params(name, apiKeys=[api_key_params(key)])])
    return made["userIds"][0], key


# --- update_root_quorum -----------------------------------------------------------------


def test_update_root_quorum(emu, turnkey_org):
    bob, bob_key = add_user(emu)
    params = {"threshold": 1, "userIds": [turnkey_org.user_id, bob, bob]}
    made = emu.call("update_root_quorum", params)
    activity = made["activity"]
    assert (activity["type"], activity["status"]) == ("ACTIVITY_TYPE_UPDATE_ROOT_QUORUM", COMPLETED)
    assert activity["intent"] == {"updateRootQuorumIntent": params}
    assert activity["result"]["updateRootQuorumResult"] == {}
    assert configs(emu)["quorum"] == {"threshold": 1, "userIds": [turnkey_org.user_id, bob]}
    # bob is a root user now: he may change the quorum himself, and take the old root out
    emu.update_root_quorum(threshold=1, user_ids=[bob], caller=bob_key)
    assert configs(emu)["quorum"] == {"threshold": 1, "userIds": [bob]}
    error = fails(emu, emu.update_root_quorum, threshold=1, user_ids=[turnkey_org.user_id])
    assert error_of(error) == (403, 7, messages.IMPLICIT_DENY, "")


@pytest.mark.parametrize("threshold", [0, -2])
def test_update_root_quorum_needs_a_positive_threshold(emu, turnkey_org, threshold):
    error = fails(
        emu, emu.update_root_quorum, threshold=threshold, user_ids=[turnkey_org.user_id, NIL_UUID]
    )
    assert error_of(error) == (
        400,
        3,
        "quorum threshold must be non-zero integer",
        "REQUEST_INVALID",
    )


def test_update_root_quorum_checks_its_users(emu, turnkey_org):
    error = fails(
        emu, emu.update_root_quorum, threshold=1, user_ids=[turnkey_org.user_id, NIL_UUID]
    )
    assert error_of(error) == (
        404,
        5,
        messages.user_not_found(NIL_UUID, turnkey_org.organization_id),
        "",
    )
    error = fails(emu, emu.update_root_quorum, threshold=2, user_ids=[turnkey_org.user_id])
    assert error_of(error) == (
        400,
        3,
        "quorum threshold must be less than or equal to the number of quorum users "
        "threshold=2 users=1",
        "REQUEST_INVALID",
    )
    error = fails(emu, emu.update_root_quorum, threshold=1, user_ids=[])
    assert error.message.endswith("threshold=1 users=0")
    error = fails(emu, emu.call, "update_root_quorum", user_ids=["nope"])
    assert violations(error) == [
        {"field": "threshold", "description": "This field is required."},
        {"field": "userIds.0", "description": "This field must be a valid UUID."},
    ]


def test_a_quorum_of_two(emu, turnkey_org):
    bob, _ = add_user(emu)
    emu.update_root_quorum(threshold=1, user_ids=[turnkey_org.user_id, bob])
    # a user of the quorum cannot be deleted (the real "quorum users missing")
    error = fails(emu, emu.delete_users, user_ids=[bob])
    assert error.message == messages.QUORUM_USERS_MISSING
    emu.update_root_quorum(threshold=2, user_ids=[turnkey_org.user_id, bob])
    assert configs(emu)["quorum"] == {"threshold": 2, "userIds": [turnkey_org.user_id, bob]}


# --- features -------------------------------------------------------------------------


def test_set_and_remove_organization_features(emu):
    assert configs(emu)["features"] == []
    made = emu.set_organization_feature(name=EMAIL_AUTH, value="")
    made = emu.set_organization_feature(name=WEBHOOK, value="https://hooks.acme.test/a")
    activity = made["activity"]
    assert (activity["type"], activity["status"]) == (
        "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
        COMPLETED,
    )
    assert activity["intent"] == {
        "setOrganizationFeatureIntent": {"name": WEBHOOK, "value": "https://hooks.acme.test/a"}
    }
    both = [
        {"name": EMAIL_AUTH, "value": ""},
        {"name": WEBHOOK, "value": "https://hooks.acme.test/a"},
    ]
    assert made["features"] == both
    assert activity["result"]["setOrganizationFeatureResult"] == {"features": both}
    assert configs(emu)["features"] == both
    # setting it again overrides the value, in place
    emu.set_organization_feature(name=EMAIL_AUTH, value="true")
    assert configs(emu)["features"][0] == {"name": EMAIL_AUTH, "value": "true"}
    removed = emu.remove_organization_feature(name=EMAIL_AUTH)
    remaining = [{"name": WEBHOOK, "value": "https://hooks.acme.test/a"}]
    assert removed["features"] == remaining
    assert removed["activity"]["intent"] == {
        "removeOrganizationFeatureIntent": {"name": EMAIL_AUTH}
    }
    assert removed["activity"]["result"]["removeOrganizationFeatureResult"] == {
        "features": remaining
    }
    # removing one that is not set changes nothing
    assert emu.remove_organization_feature(name=EMAIL_AUTH)["features"] == remaining
    assert configs(emu)["features"] == remaining


def test_feature_names_are_checked(emu):
    error = fails(emu, emu.set_organization_feature, name="FEATURE_NAME_TELEPORT", value="x")
    assert violations(error)[0]["field"] == "name"
    assert violations(error)[0]["description"].startswith(
        "This field must be one of FEATURE_NAME_ROOT_USER_EMAIL_RECOVERY, "
    )
    # the value may be empty, but not absent (the SDK's model requires it)
    error = fails(emu, emu.call, "set_organization_feature", name=EMAIL_AUTH)
    assert violations(error) == [{"field": "value", "description": "This field is required."}]
    error = fails(emu, emu.set_organization_feature, name=EMAIL_AUTH, value=7)
    assert violations(error) == [{"field": "value", "description": "This field must be a string."}]


def test_features_of_a_sub_organization(emu):
    key = new_key()
    made = emu.create_sub_organization(
        sub_organization_name="sub",
        root_users=[user_params("root", apiKeys=[api_key_params(key)])],
        root_quorum_threshold=1,
        disable_sms_auth=True,
    )
    sub_id = made["subOrganizationId"]
    emu.remove_organization_feature(
        name="FEATURE_NAME_EMAIL_RECOVERY", organization_id=sub_id, caller=key
    )
    emu.set_organization_feature(name=WEBHOOK, value="u", organization_id=sub_id, caller=key)
    assert configs(emu, organization_id=sub_id)["features"] == [
        {"name": EMAIL_AUTH, "value": ""},
        {"name": "FEATURE_NAME_OTP_EMAIL_AUTH", "value": ""},
        {"name": WEBHOOK, "value": "u"},
    ]
    assert configs(emu)["features"] == []


# --- update_organization_name -----------------------------------------------------------


def test_update_organization_name(emu, turnkey_org):
    made = emu.update_organization_name(organization_name="Acme Renamed")
    assert (made["organizationId"], made["organizationName"]) == (
        turnkey_org.organization_id,
        "Acme Renamed",
    )
    assert made["activity"]["intent"] == {
        "updateOrganizationNameIntent": {"organizationName": "Acme Renamed"}
    }
    assert made["activity"]["result"]["updateOrganizationNameResult"] == {
        "organizationId": turnkey_org.organization_id,
        "organizationName": "Acme Renamed",
    }
    assert emu.whoami()["organizationName"] == "Acme Renamed"
    error = fails(emu, emu.update_organization_name, organization_name="")
    assert violations(error) == [
        {"field": "organizationName", "description": "This field is required."}
    ]


# --- only the root quorum ------------------------------------------------------------------

ROOT_ONLY = [
    ("update_root_quorum", {"threshold": 1, "userIds": []}),
    ("set_organization_feature", {"name": EMAIL_AUTH, "value": "x"}),
    ("remove_organization_feature", {"name": EMAIL_AUTH}),
    ("update_organization_name", {"organizationName": "mine now"}),
]


@pytest.mark.parametrize(("operation", "params"), ROOT_ONLY, ids=[o for o, _ in ROOT_ONLY])
def test_a_user_outside_the_root_quorum_is_denied(emu, operation, params):
    _, key = add_user(emu)
    if operation == "update_root_quorum":
        params = {"threshold": 1, "userIds": [emu.organization().user_id]}
    error = fails(emu, emu.call, operation, params, caller=key)
    assert error_of(error) == (403, 7, messages.IMPLICIT_DENY, "")


def test_the_registry_marks_them_root_quorum_only():
    from emulator.ops import REGISTRY

    assert {name for name, op in REGISTRY.items() if op.root_quorum_only} >= {
        o for o, _ in ROOT_ONLY
    }


# --- state --------------------------------------------------------------------------------


def test_settings_survive_checkpoints_snapshots_and_documents(emu, turnkey_org):
    bob, _ = add_user(emu)
    mark = emu.checkpoint()
    emu.update_root_quorum(threshold=1, user_ids=[turnkey_org.user_id, bob])
    emu.set_organization_feature(name=WEBHOOK, value="u")
    emu.update_organization_name(organization_name="Renamed")
    expected = configs(emu)
    again = Emulator.from_document(emu.to_document())
    assert configs(again) == expected
    assert again.whoami()["organizationName"] == "Renamed"
    snap = emu.snapshot()
    emu.rollback(mark)
    assert configs(emu) == {
        "features": [],
        "quorum": {"threshold": 1, "userIds": [turnkey_org.user_id]},
    }
    assert emu.whoami()["organizationName"] == turnkey_org.organization_name
    emu.restore(snap)
    assert configs(emu) == expected


# --- the official SDK -----------------------------------------------------------------------


def test_settings_through_the_sdk(sdk, turnkey_emulator, turnkey_org):
    from turnkey_sdk_types import (
        GetOrganizationConfigsBody,
        GetWhoamiBody,
        RemoveOrganizationFeatureBody,
        SetOrganizationFeatureBody,
        UpdateOrganizationNameBody,
        UpdateRootQuorumBody,
    )

    bob, _ = add_user(turnkey_emulator)
    sdk.update_root_quorum(UpdateRootQuorumBody(threshold=1, userIds=[turnkey_org.user_id, bob]))
    set_ = sdk.set_organization_feature(
        SetOrganizationFeatureBody(name="FEATURE_NAME_OTP_EMAIL_AUTH", value="true")
    )
    assert [(f.name.value, f.value) for f in set_.features] == [
        ("FEATURE_NAME_OTP_EMAIL_AUTH", "true")
    ]
    removed = sdk.remove_organization_feature(
        RemoveOrganizationFeatureBody(name="FEATURE_NAME_OTP_EMAIL_AUTH")
    )
    assert removed.features == []
    renamed = sdk.update_organization_name(UpdateOrganizationNameBody(organizationName="Via SDK"))
    assert (renamed.organizationId, renamed.organizationName) == (
        turnkey_org.organization_id,
        "Via SDK",
    )
    assert sdk.get_whoami(GetWhoamiBody()).organizationName == "Via SDK"
    quorum = sdk.get_organization_configs(GetOrganizationConfigsBody()).configs.quorum
    assert (quorum.threshold, quorum.userIds) == (1, [turnkey_org.user_id, bob])
