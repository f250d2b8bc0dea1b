"""IP allowlists: set, remove, get, and their enforcement by source address (features/ip-allowlisting)."""

from __future__ import annotations

import json

import pytest
import requests

from emulator import Emulator, TurnkeyApiError
from emulator.crypto.stamps import sign_stamp
from emulator.ground import messages
from emulator.http.server import serving

from .helpers import add_user, error_of, fails, violations

COMPLETED = "ACTIVITY_STATUS_COMPLETED"


@pytest.fixture
def emu(turnkey_emulator):
    yield turnkey_emulator
    turnkey_emulator.backdoor.set_client_ip(None)


def allow(emu, *cidrs: str, **params):
    rules = [{"cidr": c} for c in cidrs]
    return emu.set_ip_allowlist(rules=rules, **params)


def denied(emu, call, *args, **kwargs) -> TurnkeyApiError:
    error = fails(emu, call, *args, **kwargs)
    assert error.status == 403 and error.code == 7
    return error


def test_rules_are_normalized_deduplicated_and_answered_in_the_real_shape(emu, turnkey_org):
    emu.clock.freeze(1_717_000_000_000)
    done = emu.set_ip_allowlist(
        enabled=False,
        rules=[
            {"cidr": "192.168.1.100/24", "label": "Office"},
            {"cidr": "192.168.1.0/24", "label": "dropped: a duplicate"},
            {"cidr": "2001:db8::/48"},
        ],
    )
    activity = done["activity"]
    assert (activity["status"], activity["type"]) == (COMPLETED, "ACTIVITY_TYPE_SET_IP_ALLOWLIST")
    assert activity["result"]["setIpAllowlistResult"] == {}
    assert emu.get_ip_allowlist()["allowlist"] == {
        "organizationId": turnkey_org.organization_id,
        "rules": [
            {"cidr": "192.168.1.0/24", "label": "Office", "createdAt": "1717000000000"},
            {"cidr": "2001:db8::/48", "label": "", "createdAt": "1717000000000"},
        ],
        "enabled": False,
        "onEvaluationError": "DENY",
    }


def test_a_disabled_allowlist_is_not_enforced_and_an_enabled_one_is(emu):
    allow(emu, "10.0.0.0/20", enabled=False)
    emu.backdoor.set_client_ip("192.0.2.7")
    assert emu.get_whoami()["userId"]
    allow(emu, "10.0.0.0/20", enabled=True)
    error = denied(emu, emu.get_whoami)
    assert error.message == messages.ip_not_allowed("192.0.2.7")
    emu.backdoor.set_client_ip("10.0.15.255")  # the last address of 10.0.0.0/20
    assert emu.get_whoami()["userId"]
    emu.backdoor.set_client_ip("10.0.16.0")
    denied(emu, emu.get_whoami)


def test_an_unknown_source_follows_on_evaluation_error(emu):
    allow(emu, "10.0.0.0/20", enabled=True)
    error = denied(emu, emu.get_whoami)  # in-process, no address: DENY by default
    assert error.message == messages.IP_NOT_EVALUATED
    emu.backdoor.set_client_ip("10.0.0.1")
    allow(emu, "10.0.0.0/20", enabled=True, on_evaluation_error="ALLOW")
    emu.backdoor.set_client_ip(None)
    assert emu.get_whoami()["userId"]


def test_an_api_keys_allowlist_overrides_the_organizations_only_while_that_one_is_enabled(
    emu, turnkey_org
):
    alice_id, alice = add_user(emu, "alice")
    emu.create_policy(policy_name="all", effect="EFFECT_ALLOW", notes="", condition="true")
    emu.backdoor.set_client_ip("10.0.0.1")
    emu.set_ip_allowlist(public_key=alice.public_key, rules=[{"cidr": "172.16.0.0/24"}])
    key_level = emu.get_ip_allowlist(public_key=alice.public_key)["allowlist"]
    assert key_level["publicKey"] == alice.public_key and "enabled" not in key_level
    # the organization's allowlist is absent: nothing is enforced, the key's neither
    assert emu.get_whoami(caller=alice)["userId"] == alice_id
    allow(emu, "10.0.0.0/20", enabled=True)
    denied(emu, emu.get_whoami, caller=alice)  # alice's own allowlist: 172.16.0.0/24 only
    assert emu.get_whoami()["userId"] == turnkey_org.user_id  # the root key: the org's list
    emu.backdoor.set_client_ip("172.16.0.9")
    assert emu.get_whoami(caller=alice)["userId"] == alice_id
    denied(emu, emu.get_whoami)
    emu.backdoor.set_client_ip("10.0.0.1")
    emu.remove_ip_allowlist(public_key=alice.public_key)
    assert emu.get_whoami(caller=alice)["userId"] == alice_id  # back to the org's list
    removed = emu.get_ip_allowlist(public_key=alice.public_key)["allowlist"]
    assert removed["rules"] == []


def test_removing_the_organizations_allowlist_opens_it(emu, turnkey_org):
    emu.backdoor.set_client_ip("10.0.0.1")
    allow(emu, "10.0.0.0/20", enabled=True)
    done = emu.remove_ip_allowlist()
    assert done["activity"]["type"] == "ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST"
    emu.backdoor.set_client_ip("192.0.2.1")
    assert emu.get_whoami()["userId"]
    assert emu.get_ip_allowlist()["allowlist"] == {
        "organizationId": turnkey_org.organization_id,
        "rules": [],
    }
    assert emu.remove_ip_allowlist()["activity"]["status"] == COMPLETED  # nothing to remove


def test_ipv6_and_ipv4_mapped_addresses(emu):
    emu.backdoor.set_client_ip("2001:db8:0:1::5")
    allow(emu, "2001:db8::/48", "10.0.0.0/24", enabled=True)
    assert emu.get_whoami()["userId"]
    emu.backdoor.set_client_ip("::ffff:10.0.0.9")
    assert emu.get_whoami()["userId"]
    emu.backdoor.set_client_ip("2001:db9::1")
    denied(emu, emu.get_whoami)


def test_sub_organizations_are_neither_evaluated_nor_may_set_one(emu, turnkey_org):
    sub = emu.create_organization("Sub", parent_organization_id=turnkey_org.organization_id)
    emu.backdoor.set_client_ip("10.0.0.1")
    allow(emu, "10.0.0.0/20", enabled=True)
    emu.backdoor.set_client_ip("192.0.2.1")
    assert emu.get_whoami(organization_id=sub.organization_id)["userId"] == sub.user_id
    error = fails(
        emu,
        emu.set_ip_allowlist,
        rules=[],
        enabled=True,
        organization_id=sub.organization_id,
    )
    assert error_of(error) == (400, 3, messages.IP_ALLOWLIST_SUB_ORGANIZATION, "")


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ([{"cidr": "10.0.0.0/24"}, {"cidr": "not a cidr"}], messages.invalid_cidr(1, "not a cidr")),
        ([{"cidr": "10.0.0.0/8"}], messages.cidr_too_wide(0, "10.0.0.0/8", 20)),
        ([{"cidr": "2001:db8::/32"}], messages.cidr_too_wide(0, "2001:db8::/32", 48)),
        (
            [{"cidr": f"10.0.{i * 16}.0/20"} for i in range(11)],
            messages.too_many_cidrs(4, 10),
        ),
    ],
)
def test_bad_rules_are_refused_and_change_nothing(emu, rules, message):
    before = emu.get_ip_allowlist()["allowlist"]
    error = fails(emu, emu.set_ip_allowlist, rules=rules, enabled=True)
    assert error_of(error) == (400, 3, message, "")
    assert emu.get_ip_allowlist()["allowlist"] == before


def test_ten_of_each_family_fit_and_an_empty_list_blocks_everything(emu):
    emu.backdoor.set_client_ip("10.0.0.1")
    rules = [f"10.0.{i * 16}.0/20" for i in range(10)] + [f"2001:db8:{i}::/48" for i in range(10)]
    allow(emu, *rules, enabled=False)
    assert len(emu.get_ip_allowlist()["allowlist"]["rules"]) == 20
    allow(emu, enabled=True)  # the docs' warning: enabled with no rules blocks all traffic
    denied(emu, emu.get_whoami)


def test_bad_parameters(emu, turnkey_org):
    error = fails(emu, emu.set_ip_allowlist, rules=[], on_evaluation_error="MAYBE")
    assert [v["field"] for v in violations(error)] == ["onEvaluationError"]
    error = fails(emu, emu.set_ip_allowlist, rules=[{"label": "no cidr"}])
    assert [v["field"] for v in violations(error)] == ["rules.0.cidr"]
    error = fails(emu, emu.set_ip_allowlist, rules=[], public_key="02" + "11" * 32)
    assert error.status == 404


def test_a_non_root_user_needs_a_policy(emu):
    _, alice = add_user(emu, "alice")
    denied(emu, emu.set_ip_allowlist, rules=[], caller=alice)
    emu.create_policy(
        policy_name="allowlists",
        effect="EFFECT_ALLOW",
        notes="",
        condition="activity.type == 'ACTIVITY_TYPE_SET_IP_ALLOWLIST'",
    )
    assert emu.set_ip_allowlist(rules=[], caller=alice)["activity"]["status"] == COMPLETED


def test_over_the_wire_the_peer_address_is_judged():
    emu = Emulator(seed=11)
    org = emu.create_organization()
    body = json.dumps({"organizationId": org.organization_id}).encode()
    headers = {
        "X-Stamp": sign_stamp(body, org.api_key).header_value(),
        "Origin": "http://localhost:3000",
    }
    emu.backdoor.set_client_ip("127.0.0.1")
    with serving(emu.world) as base_url:
        url = base_url + "/public/v1/query/whoami"
        allow(emu, "127.0.0.0/24", enabled=True)
        assert requests.post(url, data=body, headers=headers, timeout=10).status_code == 200
        allow(emu, "10.0.0.0/20", enabled=True)
        answer = requests.post(url, data=body, headers=headers, timeout=10)
    assert answer.status_code == 403
    assert answer.json()["message"] == messages.ip_not_allowed("127.0.0.1")
    assert answer.headers["Access-Control-Allow-Origin"] == "*"


def test_the_typescript_client_sets_and_reads_an_allowlist():
    from tests.typescript import client_calls, typescript_or_skip

    ts = typescript_or_skip()
    from emulator.crypto.api_keys import generate_key_pair

    emu = Emulator(seed=12)
    root = generate_key_pair()
    org = emu.create_organization(api_public_key=root.public_key, api_private_key=root.private_key)
    set_body = {
        "type": "ACTIVITY_TYPE_SET_IP_ALLOWLIST",
        "timestampMs": str(emu.clock.now_ms()),
        "organizationId": org.organization_id,
        "parameters": {"enabled": True, "rules": [{"cidr": "127.0.0.0/24", "label": "loopback"}]},
    }
    done, read = client_calls(
        ts,
        emu.world,
        root,
        [
            ("setIpAllowlist", set_body),
            ("getIpAllowlist", {"organizationId": org.organization_id}),
        ],
    )
    assert done["activity"]["status"] == COMPLETED
    assert read["allowlist"]["enabled"] is True
    assert [r["cidr"] for r in read["allowlist"]["rules"]] == ["127.0.0.0/24"]


def test_the_official_python_sdk_sets_reads_and_removes_one(sdk, emu, turnkey_org):
    from turnkey_sdk_types import (
        GetIpAllowlistBody,
        RemoveIpAllowlistBody,
        SetIpAllowlistBody,
        v1IpAllowlistIntentRule,
    )

    done = sdk.set_ip_allowlist(
        SetIpAllowlistBody(
            enabled=False, rules=[v1IpAllowlistIntentRule(cidr="10.1.2.3/24", label="Office")]
        )
    )
    assert done.activity.status.value == COMPLETED
    read = sdk.get_ip_allowlist(GetIpAllowlistBody()).allowlist
    assert (read.organizationId, read.enabled) == (turnkey_org.organization_id, False)
    assert [(r.cidr, r.label) for r in read.rules] == [("10.1.2.0/24", "Office")]
    removed = sdk.remove_ip_allowlist(RemoveIpAllowlistBody())
    assert removed.activity.status.value == COMPLETED
    assert sdk.get_ip_allowlist(GetIpAllowlistBody()).allowlist.rules == []
