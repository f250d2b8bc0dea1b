"""Typical calls of the README, for the type checkers (tests/test_typecheck.py): no error."""

from __future__ import annotations

from emulator import Emulator, TurnkeyApiError
from emulator.accounts import account_spec
from emulator.crypto.api_keys import generate_key_pair

emu = Emulator(seed=1)
org = emu.create_organization("Acme")
whoami: str = emu.get_whoami()["userId"]
assert whoami == org.user_id

created = emu.create_users(users=[{"userName": "alice"}])
status: str = created["activity"]["status"]
user_ids: list[str] = created["userIds"]

wallet = emu.create_wallet(wallet_name="hot", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")])
address: str = wallet["addresses"][0]
signed = emu.sign_raw_payload(
    sign_with=address,
    payload="hello",
    encoding="PAYLOAD_ENCODING_TEXT_UTF8",
    hash_function="HASH_FUNCTION_KECCAK256",
)
r: str = signed["r"]
v: str = signed["v"]

mark = emu.checkpoint()
emu.create_wallet(wallet_name="temporary", accounts=[])
emu.rollback(mark)
names = [w["walletName"] for w in emu.get_wallets()["wallets"]]

emu.faults.fail_next("sign_raw_payload", status=503, message="try later")
try:
    emu.sign_raw_payload(
        sign_with=address,
        payload="00" * 32,
        encoding="PAYLOAD_ENCODING_HEXADECIMAL",
        hash_function="HASH_FUNCTION_NO_OP",
    )
except TurnkeyApiError as error:
    assert error.status == 503

team = Emulator()
acme = team.create_organization("Acme")
keys = {name: generate_key_pair("API_KEY_CURVE_P256") for name in ("ann", "bob")}
ids = team.create_users(
    users=[
        {
            "userName": name,
            "apiKeys": [
                {"apiKeyName": name, "publicKey": key.public_key, "curveType": "API_KEY_CURVE_P256"}
            ],
        }
        for name, key in keys.items()
    ]
)["userIds"]
team.create_policy(
    policy_name="two for wallets",
    effect="EFFECT_ALLOW",
    notes="",
    condition="activity.resource == 'WALLET' && activity.action == 'CREATE'",
    consensus="approvers.count() >= 2",
)
proposal = team.create_wallet(wallet_name="shared", accounts=[], caller=keys["ann"])["activity"]
fingerprint: str = proposal["fingerprint"]
done = team.approve_activity(fingerprint=fingerprint, caller=keys["bob"])["activity"]

sub = team.create_sub_organization(
    sub_organization_name="end user",
    root_quorum_threshold=1,
    root_users=[{"userName": "end user", "userEmail": "end@example.com"}],
)
sub_id: str = sub["subOrganizationId"]
sub_ids: list[str] = team.get_sub_org_ids()["organizationIds"]
team.create_invitations(
    invitations=[
        {
            "receiverUserName": "cy",
            "receiverUserEmail": "cy@acme.test",
            "accessType": "ACCESS_TYPE_WEB",
            "senderUserId": acme.user_id,
        }
    ]
)
team.email_auth(
    organization_id=sub_id,
    email="end@example.com",
    target_public_key="02" + "00" * 32,
    email_customization={"appName": "Acme"},
)
tag = emu.create_user_tag(user_tag_name="t", user_ids=[])["userTagId"]
emu.update_user(user_id=whoami, user_tag_ids=[tag])
listed = emu.list_activities(pagination_options={"limit": "10"})["activities"]
again = emu.create_wallet(
    wallet_name="hot2", accounts=[], timestamp_ms=1, activity_type="ACTIVITY_TYPE_CREATE_WALLET"
)
