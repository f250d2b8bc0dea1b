"""Bad input: 400 with a google.rpc.BadRequest detail naming each field; nothing changes."""

from __future__ import annotations

import pytest

from .helpers import activity_body, state_digest, user_params

BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"


def violations(body):
    for detail in body["details"]:
        if detail["@type"] == BAD_REQUEST:
            return {v["field"]: v["description"] for v in detail["fieldViolations"]}
    raise AssertionError(f"no BadRequest detail in {body}")


def submit(wire, org, params, activity_type="ACTIVITY_TYPE_CREATE_USERS_V3", op="create_users"):
    body = activity_body(activity_type, org.organization_id, params)
    return wire.post(f"/public/v1/submit/{op}", body, org.api_key)


CASES = [
    (
        {"users": [{k: v for k, v in user_params().items() if k != "userName"}]},
        "users.0.userName",
        "This field is required.",
    ),
    ({"users": [user_params(userName=7)]}, "users.0.userName", "This field must be a string."),
    (
        {"users": [user_params(userName="x" * 257)]},
        "users.0.userName",
        "This field must be at most 256 characters long.",
    ),
    (
        {"users": [user_params(userEmail="not-an-email")]},
        "users.0.userEmail",
        "This field must be a valid e-mail address.",
    ),
    (
        {"users": [user_params(userPhoneNumber="555-1234")]},
        "users.0.userPhoneNumber",
        "This field must be a valid phone number in E.164 format.",
    ),
    (
        {"users": [user_params(userTags=["nope"])]},
        "users.0.userTags.0",
        "This field must be a valid UUID.",
    ),
    (
        {
            "users": [
                user_params(
                    apiKeys=[
                        {
                            "apiKeyName": "k",
                            "publicKey": "02" + "a" * 64,
                            "curveType": "API_KEY_CURVE_RSA",
                        }
                    ]
                )
            ]
        },
        "users.0.apiKeys.0.curveType",
        "This field must be one of API_KEY_CURVE_P256, API_KEY_CURVE_SECP256K1, API_KEY_CURVE_ED25519.",
    ),
    ({"users": "everyone"}, "users", "This field must be an array."),
    ({"users": []}, "users", "This field must contain at least 1 item(s)."),
    ({}, "users", "This field is required."),
]


@pytest.mark.parametrize(
    ("params", "field", "description"), CASES, ids=[c[1] + ":" + c[2][11:30] for c in CASES]
)
def test_each_bad_field_is_named(wire, turnkey_emulator, turnkey_org, params, field, description):
    before = state_digest(turnkey_emulator)
    status, body = submit(wire, turnkey_org, params)
    assert status == 400 and body["code"] == 3 and body["turnkeyErrorCode"] == "REQUEST_INVALID"
    assert violations(body)[field] == description
    assert field in body["message"] and body["message"].startswith(
        "invalid request (fieldViolations: "
    )
    assert state_digest(turnkey_emulator) == before


def test_parameters_sent_flat_name_every_missing_field(wire, turnkey_org):
    body = activity_body("ACTIVITY_TYPE_CREATE_API_KEYS_V2", turnkey_org.organization_id, {})
    del body["parameters"]
    body["userId"] = turnkey_org.user_id
    status, answer = wire.post("/public/v1/submit/create_api_keys", body, turnkey_org.api_key)
    assert status == 400
    assert set(violations(answer)) == {"apiKeys", "userId"}


def test_parameters_that_are_not_an_object(wire, turnkey_org):
    body = activity_body("ACTIVITY_TYPE_CREATE_USERS_V3", turnkey_org.organization_id, {})
    body["parameters"] = "users"
    status, answer = wire.post("/public/v1/submit/create_users", body, turnkey_org.api_key)
    assert status == 400 and violations(answer) == {"parameters": "This field must be an object."}


@pytest.mark.parametrize(
    "activity_type", [None, "ACTIVITY_TYPE_CREATE_WALLET", "ACTIVITY_TYPE_CREATE_USERS_V9", 3]
)
def test_activity_type_must_be_one_of_the_operation(wire, turnkey_org, activity_type):
    body = activity_body("x", turnkey_org.organization_id, {"users": [user_params()]})
    body["type"] = activity_type
    status, answer = wire.post("/public/v1/submit/create_users", body, turnkey_org.api_key)
    assert status == 400
    description = violations(answer)["type"]
    for version in ("ACTIVITY_TYPE_CREATE_USERS", "_V2", "_V3", "ACTIVITY_TYPE_CREATE_USERS_V4"):
        assert version in description


def test_unknown_fields_are_ignored_and_dropped_from_the_intent(wire, turnkey_org):
    status, answer = submit(wire, turnkey_org, {"users": [user_params(shoeSize=44)], "extra": True})
    assert status == 200
    intent = answer["activity"]["intent"]["createUsersIntentV3"]
    assert "extra" not in intent and "shoeSize" not in intent["users"][0]


def test_nulls_are_read_as_absent(wire, turnkey_org):
    status, answer = submit(wire, turnkey_org, {"users": [user_params(userEmail=None)]})
    assert status == 200
    assert "userEmail" not in answer["activity"]["intent"]["createUsersIntentV3"]["users"][0]


def test_query_body_fields_are_validated(wire, turnkey_org):
    body = {"organizationId": turnkey_org.organization_id, "userId": "nope"}
    status, answer = wire.post("/public/v1/query/get_user", body, turnkey_org.api_key)
    assert status == 400 and violations(answer) == {"userId": "This field must be a valid UUID."}


@pytest.mark.parametrize(
    "pagination",
    [{"limit": "0"}, {"limit": "101"}, {"limit": "-1"}, {"limit": "ten"}],
)
def test_pagination_limit_bounds(wire, turnkey_org, pagination):
    body = {"organizationId": turnkey_org.organization_id, "paginationOptions": pagination}
    status, answer = wire.post("/public/v1/query/list_activities", body, turnkey_org.api_key)
    assert status == 400 and "paginationOptions.limit" in violations(answer)


def test_list_filters_validate_enum_values(wire, turnkey_org):
    body = {
        "organizationId": turnkey_org.organization_id,
        "filterByStatus": ["ACTIVITY_STATUS_DONE"],
    }
    status, answer = wire.post("/public/v1/query/list_activities", body, turnkey_org.api_key)
    assert status == 400 and "filterByStatus.0" in violations(answer)


def test_a_body_resent_to_another_path_is_judged_by_the_path(wire, turnkey_org):
    body = activity_body(
        "ACTIVITY_TYPE_CREATE_USERS_V3", turnkey_org.organization_id, {"users": [user_params()]}
    )
    status, created = wire.post("/public/v1/submit/create_users", body, turnkey_org.api_key)
    assert status == 200 and created["activity"]["type"] == "ACTIVITY_TYPE_CREATE_USERS_V3"
    status, answer = wire.post("/public/v1/submit/delete_users", body, turnkey_org.api_key)
    assert status == 400
    description = violations(answer)["type"]
    assert "ACTIVITY_TYPE_DELETE_USERS" in description
    assert (
        "(ACTIVITY_TYPE_CREATE_USERS_V3 is not an activity of /public/v1/submit/delete_users)"
        in description
    )
    # the same body on its own path is still the same activity
    status, again = wire.post("/public/v1/submit/create_users", body, turnkey_org.api_key)
    assert status == 200 and again["activity"]["id"] == created["activity"]["id"]


def test_a_first_submission_of_another_type_names_the_path(wire, turnkey_org):
    body = activity_body("ACTIVITY_TYPE_DELETE_USERS", turnkey_org.organization_id, {"userIds": []})
    status, answer = wire.post("/public/v1/submit/create_users", body, turnkey_org.api_key)
    assert status == 400
    assert "is not an activity of /public/v1/submit/create_users" in violations(answer)["type"]
