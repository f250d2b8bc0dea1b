"""Policy operations: create (one or many), update, delete, get, list."""

from __future__ import annotations

import pytest

from emulator import Emulator

from .helpers import NIL_UUID, error_of, fails, violations

WALLET_CREATE = "activity.resource == 'WALLET' && activity.action == 'CREATE'"
ANY_TWO = "approvers.count() >= 2"


def _policy(name: str = "wallets", **extra) -> dict:
    return {"policyName": name, "effect": "EFFECT_ALLOW", "notes": "n", **extra}


def test_create_policy_stores_and_answers_it(turnkey_emulator: Emulator) -> None:
    emu = turnkey_emulator
    out = emu.create_policy(**_policy(condition=WALLET_CREATE, consensus=ANY_TWO))
    policy = emu.get_policy(policy_id=out["policyId"])["policy"]
    assert {k: policy[k] for k in ("policyId", "policyName", "effect", "notes")} == {
        "policyId": out["policyId"],
        "policyName": "wallets",
        "effect": "EFFECT_ALLOW",
        "notes": "n",
    }
    assert (policy["condition"], policy["consensus"]) == (WALLET_CREATE, ANY_TWO)
    assert "time" not in policy
    assert set(policy["createdAt"]) == {"seconds", "nanos"}
    assert emu.get_policies()["policies"] == [policy]


def test_absent_expressions_are_empty_strings_and_time_is_kept(
    turnkey_emulator: Emulator,
) -> None:
    emu = turnkey_emulator
    window = "time.now >= Timestamp('2026-03-01T00:00:00Z')"
    out = emu.create_policy(**_policy(time=window))
    policy = emu.get_policy(policy_id=out["policyId"])["policy"]
    assert (policy["condition"], policy["consensus"], policy["time"]) == ("", "", window)


def test_the_activity_carries_the_v3_intent_and_the_seeds_intent(
    turnkey_emulator: Emulator,
) -> None:
    out = turnkey_emulator.create_policy(**_policy(condition=WALLET_CREATE))
    intent = out["activity"]["intent"]
    assert out["activity"]["type"] == "ACTIVITY_TYPE_CREATE_POLICY_V3"
    assert intent["createPolicyIntentV3"] == _policy(condition=WALLET_CREATE)
    assert intent["createPolicyIntent"] == {
        "policyName": "wallets",
        "selectors": [],
        "effect": "EFFECT_ALLOW",
        "notes": "n",
    }
    assert out["activity"]["result"]["createPolicyResult"] == {"policyId": out["policyId"]}


@pytest.mark.parametrize(
    ("field", "text", "message"),
    [
        (
            "consensus",
            "",
            "invalid policy consensus: Expression cannot be evaluated: "
            "parse error: Unrecognized EOF found at 0",
        ),
        (
            "condition",
            "activity.type ==",
            "invalid policy condition: Expression cannot be evaluated: "
            "parse error: Unrecognized EOF found at 16",
        ),
        (
            "time",
            "time.now >=",
            "invalid policy time: Expression cannot be evaluated: "
            "parse error: Unrecognized EOF found at 11",
        ),
    ],
)
def test_an_expression_that_does_not_parse_is_the_real_400(
    turnkey_emulator: Emulator, field: str, text: str, message: str
) -> None:
    error = fails(turnkey_emulator, turnkey_emulator.create_policy, **_policy(**{field: text}))
    assert error_of(error) == (400, 3, message, "")


def test_policy_names_are_unique(turnkey_emulator: Emulator) -> None:
    emu = turnkey_emulator
    emu.create_policy(**_policy("a"))
    error = fails(emu, emu.create_policy, **_policy("a"))
    assert error_of(error) == (400, 3, "policy label must be unique", "")
    error = fails(emu, emu.create_policies, policies=[_policy("b"), _policy("b")])
    assert error.message == "policy label must be unique"


def test_create_policies_is_all_or_nothing(turnkey_emulator: Emulator) -> None:
    emu = turnkey_emulator
    error = fails(
        emu,
        emu.create_policies,
        policies=[_policy("good", condition=WALLET_CREATE), _policy("bad", consensus="a b")],
    )
    assert error.message == (
        "invalid policy consensus: Expression cannot be evaluated: "
        "parse error: Unrecognized token `b` found at 2:3"
    )
    out = emu.create_policies(policies=[_policy("one"), _policy("two")])
    names = [p["policyName"] for p in emu.get_policies()["policies"]]
    assert names == ["one", "two"] and len(out["policyIds"]) == 2


def test_required_fields_are_field_violations(turnkey_emulator: Emulator) -> None:
    emu = turnkey_emulator
    error = fails(emu, emu.call, "create_policy", policyName="x", effect="EFFECT_MAYBE")
    assert [v["field"] for v in violations(error)] == ["effect", "notes"]
    # Notes are free text: empty is fine.
    assert emu.create_policy(policyName="x", effect="EFFECT_DENY", notes="")["policyId"]


def test_the_policy_limit_is_the_settings(turnkey_emulator: Emulator) -> None:
    emu = turnkey_emulator
    emu.settings.max_policies_per_organization = 2
    emu.create_policies(policies=[_policy("one"), _policy("two")])
    error = fails(emu, emu.create_policy, **_policy("three"))
    assert error_of(error) == (429, 8, "organization has exceeded maximum policies", "")


def test_update_policy_changes_only_what_is_given(turnkey_emulator: Emulator) -> None:
    emu = turnkey_emulator
    policy_id = emu.create_policy(**_policy(condition=WALLET_CREATE))["policyId"]
    before = emu.get_policy(policy_id=policy_id)["policy"]
    emu.clock.advance(5)
    out = emu.update_policy(policy_id=policy_id, policy_effect="EFFECT_DENY", policy_notes="m")
    assert out["policyId"] == policy_id
    assert out["activity"]["result"]["updatePolicyResultV2"] == {"policyId": policy_id}
    after = emu.get_policy(policy_id=policy_id)["policy"]
    assert (after["effect"], after["notes"], after["condition"]) == (
        "EFFECT_DENY",
        "m",
        WALLET_CREATE,
    )
    assert after["createdAt"] == before["createdAt"]
    assert int(after["updatedAt"]["seconds"]) == int(before["updatedAt"]["seconds"]) + 5


def test_update_policy_v1_answers_its_own_result_key(turnkey_emulator: Emulator) -> None:
    emu = turnkey_emulator
    policy_id = emu.create_policy(**_policy())["policyId"]
    out = emu.update_policy(
        policy_id=policy_id, policy_consensus=ANY_TWO, activity_type="ACTIVITY_TYPE_UPDATE_POLICY"
    )
    assert out["activity"]["result"]["updatePolicyResult"] == {"policyId": policy_id}
    assert emu.get_policy(policy_id=policy_id)["policy"]["consensus"] == ANY_TWO


def test_update_policy_checks_names_expressions_and_ids(turnkey_emulator: Emulator) -> None:
    emu = turnkey_emulator
    emu.create_policy(**_policy("taken"))
    policy_id = emu.create_policy(**_policy("mine"))["policyId"]
    assert fails(emu, emu.update_policy, policy_id=policy_id, policy_name="taken").message == (
        "policy label must be unique"
    )
    error = fails(emu, emu.update_policy, policy_id=policy_id, policy_condition="(")
    assert error.message.startswith("invalid policy condition: ")
    error = fails(emu, emu.update_policy, policy_id=NIL_UUID, policy_notes="x")
    org_id = emu.organization().organization_id
    assert error_of(error) == (
        404,
        5,
        f"unable to find policy {NIL_UUID} in organization {org_id}",
        "",
    )
    # Renaming a policy to its own name is no conflict.
    emu.update_policy(policy_id=policy_id, policy_name="mine")


def test_delete_policy_and_policies(turnkey_emulator: Emulator) -> None:
    emu = turnkey_emulator
    ids = emu.create_policies(policies=[_policy("a"), _policy("b"), _policy("c")])["policyIds"]
    assert emu.delete_policy(policy_id=ids[0])["policyId"] == ids[0]
    error = fails(emu, emu.delete_policies, policy_ids=[ids[1], NIL_UUID])
    assert error.status == 404
    assert emu.delete_policies(policy_ids=[ids[1], ids[2], ids[1]])["policyIds"] == ids[1:]
    assert emu.get_policies()["policies"] == []
    assert fails(emu, emu.get_policy, policy_id=ids[0]).status == 404


def test_policies_survive_a_saved_document(turnkey_emulator: Emulator) -> None:
    emu = turnkey_emulator
    later = "time.now > Timestamp('2020-01-01T00:00:00Z')"
    emu.create_policy(**_policy(condition=WALLET_CREATE, time=later))
    loaded = Emulator.from_document(emu.to_document())
    assert loaded.get_policies()["policies"] == emu.get_policies()["policies"]


def test_policy_operations_through_the_official_sdk(sdk) -> None:
    from turnkey_sdk_types import (
        CreatePoliciesBody,
        CreatePolicyBody,
        DeletePolicyBody,
        GetPolicyBody,
        UpdatePolicyBody,
    )
    from turnkey_sdk_types.generated.types import v1CreatePolicyIntentV3

    made = sdk.create_policy(
        CreatePolicyBody(
            policyName="sdk", effect="EFFECT_ALLOW", condition=WALLET_CREATE, notes="via sdk"
        )
    )
    many = sdk.create_policies(
        CreatePoliciesBody(
            policies=[
                v1CreatePolicyIntentV3(policyName="p1", effect="EFFECT_DENY", notes=""),
                v1CreatePolicyIntentV3(
                    policyName="p2", effect="EFFECT_ALLOW", consensus=ANY_TWO, notes=""
                ),
            ]
        )
    )
    assert len(many.policyIds) == 2
    sdk.update_policy(UpdatePolicyBody(policyId=made.policyId, policyNotes="changed"))
    got = sdk.get_policy(GetPolicyBody(policyId=made.policyId)).policy
    assert (got.policyName, got.notes, got.condition, got.consensus) == (
        "sdk",
        "changed",
        WALLET_CREATE,
        "",
    )
    assert [p.policyName for p in sdk.get_policies().policies] == ["sdk", "p1", "p2"]
    sdk.delete_policy(DeletePolicyBody(policyId=made.policyId))
    assert [p.policyName for p in sdk.get_policies().policies] == ["p1", "p2"]
