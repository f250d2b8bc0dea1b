"""The facade's arguments are strict: typos, positionals and double spellings fail loudly."""

from __future__ import annotations

import json

import pytest

from emulator import Emulator, TurnkeyApiError
from emulator.http.app import handle

from .helpers import encode, stamped_headers


@pytest.fixture
def emu() -> Emulator:
    emu = Emulator(seed=5)
    emu.create_organization()
    return emu


@pytest.mark.parametrize(
    ("kwargs", "hint"),
    [
        ({"wallet_name": "w", "acounts": []}, "did you mean `accounts`?"),
        ({"walet_name": "w", "accounts": []}, "did you mean `wallet_name`?"),
        ({"walletNam": "w", "accounts": []}, "did you mean `wallet_name`?"),
    ],
)
def test_a_misspelt_keyword_names_the_operation_and_the_closest_parameter(emu, kwargs, hint):
    with pytest.raises(TypeError) as caught:
        emu.create_wallet(**kwargs)
    message = str(caught.value)
    assert "operation create_wallet" in message and message.endswith(hint)
    assert emu.get_wallets()["wallets"] == []  # nothing ran
    assert len(emu.calls) == 1  # the listing above, no request for the typo


def test_an_unknown_keyword_with_no_close_match_lists_the_parameters(emu):
    with pytest.raises(TypeError) as caught:
        emu.create_wallet(wallet_name="w", accounts=[], bogus_param=1)
    assert "unexpected keyword argument 'bogus_param'" in str(caught.value)
    assert "its parameters are accounts, activity_type, caller" in str(caught.value)


def test_positional_arguments_are_refused(emu):
    with pytest.raises(TypeError) as caught:
        emu.create_wallet({"walletName": "w", "accounts": []})  # type: ignore[misc]
    assert str(caught.value) == (
        "create_wallet() (operation create_wallet) takes no positional arguments: its "
        "parameters are keywords, for example create_wallet(wallet_name=...); got 1 positional"
    )


def test_camel_case_is_accepted_but_not_both_spellings_at_once(emu):
    made = emu.create_wallet(walletName="camel", accounts=[], mnemonicLength=15)
    assert made["activity"]["intent"]["createWalletIntent"]["mnemonicLength"] == 15
    with pytest.raises(TypeError) as caught:
        emu.create_wallet(wallet_name="a", walletName="b", accounts=[])
    assert "got 'wallet_name' twice (as 'wallet_name' and 'walletName')" in str(caught.value)


def test_a_missing_required_parameter_is_pythons_own_error(emu):
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'accounts'"):
        emu.create_wallet(wallet_name="w")
    with pytest.raises(TurnkeyApiError) as caught:  # the untyped path reaches the wire
        emu.call("create_wallet", {"walletName": "w"})
    assert caught.value.status == 400


def test_the_usual_empty_lists_default_to_empty(emu):
    made = emu.create_users(users=[{"userName": "alice"}])
    intent = made["activity"]["intent"]["createUsersIntentV3"]["users"][0]
    assert {k: intent[k] for k in ("apiKeys", "authenticators", "oauthProviders", "userTags")} == {
        "apiKeys": [],
        "authenticators": [],
        "oauthProviders": [],
        "userTags": [],
    }
    sub = emu.create_sub_organization(
        sub_organization_name="s", root_quorum_threshold=1, root_users=[{"userName": "root"}]
    )
    assert sub["subOrganizationId"]
    invited = emu.create_invitations(
        invitations=[
            {
                "receiverUserName": "cy",
                "receiverUserEmail": "cy@acme.test",
                "accessType": "ACCESS_TYPE_WEB",
                "senderUserId": emu.get_whoami()["userId"],
            }
        ]
    )
    assert len(invited["invitationIds"]) == 1
    keys = emu.create_private_keys(
        private_keys=[
            {
                "privateKeyName": "k",
                "curve": "CURVE_SECP256K1",
                "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
            }
        ]
    )
    assert len(keys["privateKeys"]) == 1


def test_the_wire_keeps_requiring_those_lists(emu):
    org = emu.organization()
    body = {
        "type": "ACTIVITY_TYPE_CREATE_USERS_V3",
        "timestampMs": str(emu.clock.now_ms()),
        "organizationId": org.organization_id,
        "parameters": {"users": [{"userName": "alice"}]},
    }
    raw = encode(body)
    status, payload = handle(
        emu.world, "POST", "/public/v1/submit/create_users", stamped_headers(raw, org.api_key), raw
    )
    (detail,) = [d for d in json.loads(payload)["details"] if "fieldViolations" in d]
    fields = [v["field"] for v in detail["fieldViolations"]]
    assert status == 400
    assert fields == [
        "users.0.apiKeys",
        "users.0.authenticators",
        "users.0.oauthProviders",
        "users.0.userTags",
    ]


def test_a_given_list_is_kept(emu):
    tag = emu.create_user_tag(user_tag_name="t", user_ids=[])["userTagId"]
    made = emu.create_users(users=[{"userName": "bob", "userTags": [tag]}])
    (user_id,) = made["userIds"]
    assert emu.get_user(user_id=user_id)["user"]["userTags"] == [tag]


def test_the_generic_call_also_fills_them(emu):
    made = emu.call("create_users", {"users": [{"user_name": "carol"}]})
    assert len(made["userIds"]) == 1
