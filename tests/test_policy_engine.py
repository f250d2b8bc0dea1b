"""The policy engine on every activity: root bypass, explicit deny, allow, implicit deny,
self-service, errors, and every documented policy example (Turnkey docs,
features/policies/examples), each against the real activities it describes."""

from __future__ import annotations

import json

import pytest
import rlp as pyrlp

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.crypto.api_keys import ApiKeyPair

from .helpers import add_user, api_key_params, error_of, fails, user_params
from .typed_data import MAIL

POLICY_ENGINE = "type.googleapis.com/errors.v1.PolicyEnginePermissionError"
IMPLICIT = (
    "You don't have sufficient permissions to take this action. Please add a policy granting "
    "this user permissions. Learn more at https://docs.turnkey.com/concepts/policies/quickstart."
)
EXPLICIT = "policy engine denied request explicitly"
CREATE_WALLET = "activity.resource == 'WALLET' && activity.action == 'CREATE'"
DEAD = "0x000000000000000000000000000000000000dEaD"


def allow(emu: Emulator, name: str = "p", **expressions: str) -> str:
    return emu.create_policy(policy_name=name, effect="EFFECT_ALLOW", notes="", **expressions)[
        "policyId"
    ]


def deny(emu: Emulator, name: str = "d", **expressions: str) -> str:
    return emu.create_policy(policy_name=name, effect="EFFECT_DENY", notes="", **expressions)[
        "policyId"
    ]


def wallet_by(emu: Emulator, key: ApiKeyPair, name: str = "w") -> dict:
    return emu.create_wallet(
        wallet_name=name, accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")], caller=key
    )


def status(out: dict) -> str:
    return out["activity"]["status"]


def unsigned_eth(to: str = DEAD, data: bytes = b"", chain_id: int = 1, nonce: int = 0) -> str:
    """An unsigned EIP-1559 transaction, as the SDKs send it."""
    fields = [chain_id, nonce, 1, 100, 21000, bytes.fromhex(to[2:]), 5, data, []]
    return "02" + pyrlp.encode(fields).hex()


@pytest.fixture
def alice(turnkey_emulator: Emulator) -> tuple[str, ApiKeyPair]:
    return add_user(turnkey_emulator, "alice")


@pytest.fixture
def bob(turnkey_emulator: Emulator) -> tuple[str, ApiKeyPair]:
    return add_user(turnkey_emulator, "bob")


# ----- the evaluation order -------------------------------------------------------------


def test_with_no_policies_a_non_root_user_is_implicitly_denied(turnkey_emulator, alice) -> None:
    emu, (_, key) = turnkey_emulator, alice
    error = fails(emu, wallet_by, emu, key)
    assert error_of(error) == (403, 7, IMPLICIT, "")
    assert error.details == [
        {
            "@type": POLICY_ENGINE,
            "message": "No policies evaluated to outcome: Allow",
            "policyEvaluations": [],
        }
    ]


def test_an_allow_policy_lets_the_user_act(turnkey_emulator, alice) -> None:
    emu, (alice_id, key) = turnkey_emulator, alice
    allow(emu, condition=CREATE_WALLET, consensus=f"approvers.any(user, user.id == '{alice_id}')")
    out = wallet_by(emu, key)
    assert status(out) == "ACTIVITY_STATUS_COMPLETED"
    assert out["activity"]["votes"][0]["userId"] == alice_id


def test_explicit_deny_wins_over_allow_and_has_no_details(turnkey_emulator, alice) -> None:
    emu, (_, key) = turnkey_emulator, alice
    allow(emu, condition=CREATE_WALLET)
    deny(emu, condition="activity.action == 'CREATE'")
    error = fails(emu, wallet_by, emu, key)
    assert error_of(error) == (403, 7, EXPLICIT, "")
    assert error.details == []


def test_the_root_quorum_bypasses_every_policy(turnkey_emulator, turnkey_org) -> None:
    emu = turnkey_emulator
    deny(emu, condition="activity.action == 'CREATE'")
    assert status(wallet_by(emu, turnkey_org.api_key)) == "ACTIVITY_STATUS_COMPLETED"


def test_policies_about_other_activities_do_not_apply(turnkey_emulator, alice) -> None:
    emu, (_, key) = turnkey_emulator, alice
    allow(emu, condition="activity.resource == 'POLICY'")
    deny(emu, condition="activity.resource == 'PRIVATE_KEY'")
    assert fails(emu, wallet_by, emu, key).message == IMPLICIT


def test_a_policy_that_fails_to_evaluate_takes_no_part(turnkey_emulator, alice) -> None:
    """No short-circuit: touching ``private_key`` on a wallet activity is an error."""
    emu, (_, key) = turnkey_emulator, alice
    policy_id = allow(emu, condition=f"{CREATE_WALLET} || private_key.id == 'x'")
    error = fails(emu, wallet_by, emu, key)
    assert error.details[0]["policyEvaluations"] == [
        {"policyId": policy_id, "outcome": "OUTCOME_ERROR"}
    ]


def test_users_manage_their_own_credentials_without_a_policy(turnkey_emulator, alice, bob) -> None:
    emu, (alice_id, key), (bob_id, _) = turnkey_emulator, alice, bob
    new = api_key_params(ApiKeyPair("02" + "11" * 32, "", "API_KEY_CURVE_P256"), "extra")
    own = emu.create_api_keys(user_id=alice_id, api_keys=[new], caller=key)
    assert status(own) == "ACTIVITY_STATUS_COMPLETED"
    error = fails(emu, emu.create_api_keys, user_id=bob_id, api_keys=[new], caller=key)
    assert error.message == IMPLICIT


def test_an_explicit_deny_stops_self_service_too(turnkey_emulator, alice) -> None:
    emu, (alice_id, key) = turnkey_emulator, alice
    deny(emu, condition="activity.resource == 'CREDENTIAL'")
    new = api_key_params(ApiKeyPair("02" + "22" * 32, "", "API_KEY_CURVE_P256"), "extra")
    error = fails(emu, emu.create_api_keys, user_id=alice_id, api_keys=[new], caller=key)
    assert error.message == EXPLICIT


def test_reads_need_no_policy(turnkey_emulator, alice) -> None:
    emu, (alice_id, key) = turnkey_emulator, alice
    assert emu.get_whoami(caller=key)["userId"] == alice_id
    assert emu.get_policies(caller=key)["policies"] == []


def test_an_inactive_time_window_keeps_a_policy_out(turnkey_emulator, alice) -> None:
    emu, (_, key) = turnkey_emulator, alice
    emu.clock.freeze(1_803_859_200_000)  # 2027-03-01T00:00:00Z
    march = (
        "time.now >= Timestamp('2027-03-01T00:00:00Z') && "
        "time.now < Timestamp('2027-04-01T00:00:00Z')"
    )
    policy_id = allow(emu, condition=CREATE_WALLET, time=march)
    assert status(wallet_by(emu, key, "in march")) == "ACTIVITY_STATUS_COMPLETED"
    emu.clock.advance(31 * 86400)
    error = fails(emu, wallet_by, emu, key, "in april")
    assert error.details[0]["policyEvaluations"] == [
        {"policyId": policy_id, "outcome": "OUTCOME_TIME_INACTIVE"}
    ]


# ----- documented examples ----------------------------------------------------------------


def test_example_allow_one_user_to_sign_to_one_address(
    turnkey_emulator, alice, turnkey_wallet
) -> None:
    emu, (alice_id, key) = turnkey_emulator, alice
    allow(
        emu,
        consensus=f"approvers.any(user, user.id == '{alice_id}')",
        condition=f"eth.tx.to == '{DEAD}'",  # checksummed: addresses match in any case
    )
    signed = emu.sign_transaction(
        sign_with=turnkey_wallet.ethereum_address,
        unsigned_transaction=unsigned_eth(),
        type="TRANSACTION_TYPE_ETHEREUM",
        caller=key,
    )
    assert status(signed) == "ACTIVITY_STATUS_COMPLETED"
    elsewhere = unsigned_eth(to="0x" + "12" * 20)
    error = fails(
        emu,
        emu.sign_transaction,
        sign_with=turnkey_wallet.ethereum_address,
        unsigned_transaction=elsewhere,
        type="TRANSACTION_TYPE_ETHEREUM",
        caller=key,
    )
    assert error.message == IMPLICIT


def test_example_erc20_transfer_chain_and_nonce(turnkey_emulator, alice, turnkey_wallet) -> None:
    emu, (_, key) = turnkey_emulator, alice
    allow(
        emu,
        condition=(
            f"eth.tx.to == '{DEAD.lower()}' && eth.tx.data[0..10] == '0xa9059cbb' && "
            "eth.tx.chain_id == 11155111 && eth.tx.nonce <= 3"
        ),
    )

    def sign(**tx) -> dict:
        return emu.sign_transaction(
            sign_with=turnkey_wallet.ethereum_address,
            unsigned_transaction=unsigned_eth(**tx),
            type="TRANSACTION_TYPE_ETHEREUM",
            caller=key,
        )

    transfer = bytes.fromhex("a9059cbb") + bytes(64)
    assert status(sign(data=transfer, chain_id=11155111, nonce=3)) == "ACTIVITY_STATUS_COMPLETED"
    for bad in (
        {"data": transfer, "chain_id": 1, "nonce": 0},
        {"data": transfer, "chain_id": 11155111, "nonce": 4},
        {"data": bytes.fromhex("095ea7b3") + bytes(64), "chain_id": 11155111, "nonce": 0},
    ):
        assert fails(emu, sign, **bad).message == IMPLICIT


def test_example_signing_scope_by_wallet_account_and_private_key(
    turnkey_emulator, alice, turnkey_wallet
) -> None:
    emu, (_, key) = turnkey_emulator, alice
    other = emu.create_private_keys(
        private_keys=[
            {
                "privateKeyName": "k",
                "curve": "CURVE_SECP256K1",
                "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
                "privateKeyTags": [],
            }
        ]
    )["privateKeys"][0]
    allow(
        emu,
        "w",
        condition=f"activity.action == 'SIGN' && wallet.id == '{turnkey_wallet.wallet_id}'",
    )
    allow(
        emu,
        "k",
        condition=f"activity.action == 'SIGN' && private_key.id == '{other['privateKeyId']}'",
    )

    def sign(sign_with: str) -> dict:
        return emu.sign_raw_payload(
            sign_with=sign_with,
            payload="00" * 32,
            encoding="PAYLOAD_ENCODING_HEXADECIMAL",
            hash_function="HASH_FUNCTION_NO_OP",
            caller=key,
        )

    assert status(sign(turnkey_wallet.ethereum_address)) == "ACTIVITY_STATUS_COMPLETED"
    assert status(sign(other["privateKeyId"])) == "ACTIVITY_STATUS_COMPLETED"
    assert status(sign(other["addresses"][0]["address"])) == "ACTIVITY_STATUS_COMPLETED"


def test_example_sign_with_one_wallet_account(turnkey_emulator, alice, turnkey_wallet) -> None:
    emu, (_, key) = turnkey_emulator, alice
    allow(
        emu,
        condition=f"activity.action == 'SIGN' && wallet_account.address == '{turnkey_wallet.solana_address}'",
    )

    def sign(sign_with: str, hash_function: str) -> dict:
        return emu.sign_raw_payload(
            sign_with=sign_with,
            payload="00" * 32,
            encoding="PAYLOAD_ENCODING_HEXADECIMAL",
            hash_function=hash_function,
            caller=key,
        )

    assert status(sign(turnkey_wallet.solana_address, "HASH_FUNCTION_NOT_APPLICABLE")) == (
        "ACTIVITY_STATUS_COMPLETED"
    )
    assert fails(emu, sign, turnkey_wallet.ethereum_address, "HASH_FUNCTION_NO_OP").message == (
        IMPLICIT
    )


def test_example_deny_no_op_hashing_except_eip712(turnkey_emulator, alice, turnkey_wallet) -> None:
    emu, (_, key) = turnkey_emulator, alice
    allow(emu, condition="activity.action == 'SIGN'")
    deny(
        emu,
        condition=(
            "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && "
            "activity.params.hash_function == 'HASH_FUNCTION_NO_OP' && "
            "activity.params.encoding != 'PAYLOAD_ENCODING_EIP712'"
        ),
    )

    def sign(payload: str, encoding: str, hash_function: str) -> dict:
        return emu.sign_raw_payload(
            sign_with=turnkey_wallet.ethereum_address,
            payload=payload,
            encoding=encoding,
            hash_function=hash_function,
            caller=key,
        )

    no_op = fails(emu, sign, "00" * 32, "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP")
    assert no_op.message == EXPLICIT
    hashed = sign("00" * 32, "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_KECCAK256")
    typed = sign(json.dumps(MAIL), "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NO_OP")
    assert status(hashed) == status(typed) == "ACTIVITY_STATUS_COMPLETED"


def test_example_eip712_permit2(turnkey_emulator, alice, turnkey_wallet) -> None:
    emu, (_, key) = turnkey_emulator, alice
    allow(
        emu,
        condition=(
            "eth.eip_712.domain.name == 'Ether Mail' && eth.eip_712.primary_type == 'Mail' && "
            "eth.eip_712.message['to']['name'] == 'Bob' && "
            "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'"
        ),
    )
    out = emu.sign_raw_payload(
        sign_with=turnkey_wallet.ethereum_address,
        payload=json.dumps(MAIL),
        encoding="PAYLOAD_ENCODING_EIP712",
        hash_function="HASH_FUNCTION_NO_OP",
        caller=key,
    )
    assert status(out) == "ACTIVITY_STATUS_COMPLETED"
    to_carol = {
        **MAIL,
        "message": {**MAIL["message"], "to": {**MAIL["message"]["to"], "name": "Carol"}},
    }
    error = fails(
        emu,
        emu.sign_raw_payload,
        sign_with=turnkey_wallet.ethereum_address,
        payload=json.dumps(to_carol),
        encoding="PAYLOAD_ENCODING_EIP712",
        hash_function="HASH_FUNCTION_NO_OP",
        caller=key,
    )
    assert error.message == IMPLICIT


def test_example_self_delete(turnkey_emulator, alice, bob) -> None:
    emu, (alice_id, key), (bob_id, _) = turnkey_emulator, alice, bob
    allow(
        emu,
        condition=(
            "activity.type == 'ACTIVITY_TYPE_DELETE_USERS' && "
            f"activity.params.user_ids.count() == 1 && '{alice_id}' in activity.params.user_ids"
        ),
    )
    assert fails(emu, emu.delete_users, user_ids=[bob_id], caller=key).message == IMPLICIT
    assert status(emu.delete_users(user_ids=[alice_id], caller=key)) == "ACTIVITY_STATUS_COMPLETED"


def test_example_version_pinning_and_kind(turnkey_emulator, alice) -> None:
    emu, (_, key) = turnkey_emulator, alice
    allow(emu, condition="activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'")
    assert status(wallet_by(emu, key, "pinned")) == "ACTIVITY_STATUS_COMPLETED"
    allow(emu, "kind", condition="activity.kind == 'CREATE_POLICY'")
    assert status(allow_as(emu, key)) == "ACTIVITY_STATUS_COMPLETED"


def allow_as(emu: Emulator, key: ApiKeyPair) -> dict:
    """A policy that grants nothing, made by the owner of ``key`` (named after the key, so
    names stay unique)."""
    name = f"by {key.public_key[:12]}"
    nothing = "activity.resource == 'NOTHING'"
    return emu.create_policy(
        policy_name=name, effect="EFFECT_ALLOW", condition=nothing, notes="", caller=key
    )


def test_example_tagged_users_and_credential_types(turnkey_emulator) -> None:
    emu = turnkey_emulator
    tag_id = emu.create_user_tag(user_tag_name="ops", user_ids=[])["userTagId"]
    _, tagged = add_user(emu, "tagged", tags=[tag_id])
    _, plain = add_user(emu, "plain")
    allow(
        emu,
        "tag",
        condition=CREATE_WALLET,
        consensus=f"approvers.any(user, user.tags.contains('{tag_id}'))",
    )
    assert status(wallet_by(emu, tagged, "t")) == "ACTIVITY_STATUS_COMPLETED"
    # The plain user's proposal waits for a tagged approver (the consensus may still hold).
    assert status(wallet_by(emu, plain, "p")) == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    allow(
        emu,
        "p256",
        condition="activity.resource == 'POLICY'",
        consensus=(
            "credentials.any(credential, credential.type == 'CREDENTIAL_TYPE_API_KEY_P256') && "
            f"credentials.any(credential, credential.public_key == '{plain.public_key}')"
        ),
    )
    assert status(allow_as(emu, plain)) == "ACTIVITY_STATUS_COMPLETED"
    # Another key waits for the plain user's approval.
    assert status(allow_as(emu, tagged)) == "ACTIVITY_STATUS_CONSENSUS_NEEDED"


def test_example_deny_deletes_by_tagged_users(turnkey_emulator, bob) -> None:
    emu, (bob_id, _) = turnkey_emulator, bob
    tag_id = emu.create_user_tag(user_tag_name="interns", user_ids=[])["userTagId"]
    _, intern = add_user(emu, "intern", tags=[tag_id])
    allow(emu, condition="activity.resource == 'USER'")
    deny(
        emu,
        condition="activity.action == 'DELETE'",
        consensus=f"approvers.any(user, user.tags.contains('{tag_id}'))",
    )
    assert fails(emu, emu.delete_users, user_ids=[bob_id], caller=intern).message == EXPLICIT
    new = user_params("carol")
    assert status(emu.create_users(users=[new], caller=intern)) == "ACTIVITY_STATUS_COMPLETED"


def test_example_sub_organization_creation_by_an_api_user(turnkey_emulator, alice) -> None:
    """The docs' backend pattern: an API-only user may create sub-organizations."""
    emu, (_, key) = turnkey_emulator, alice
    sub_org = {
        "subOrganizationName": "end user",
        "rootUsers": [user_params("end user", apiKeys=[], userTags=None)],
        "rootQuorumThreshold": 1,
    }
    sub_org["rootUsers"][0].pop("userTags")
    assert fails(emu, emu.call, "create_sub_organization", sub_org, caller=key).message == IMPLICIT
    allow(emu, condition="activity.resource == 'ORGANIZATION' && activity.action == 'CREATE'")
    made = emu.call("create_sub_organization", sub_org, caller=key)
    assert status(made) == "ACTIVITY_STATUS_COMPLETED"
    assert made["activity"]["organizationId"] == emu.organization().organization_id


@pytest.mark.parametrize(
    ("operation", "params"),
    [
        ("update_organization_name", {"organizationName": "Mine now"}),
        ("set_organization_feature", {"name": "FEATURE_NAME_WEBHOOK", "value": "x"}),
        ("remove_organization_feature", {"name": "FEATURE_NAME_WEBHOOK"}),
    ],
)
def test_no_policy_grants_a_root_quorum_activity(
    turnkey_emulator, alice, operation, params
) -> None:
    emu, (_, key) = turnkey_emulator, alice
    allow(emu, "everything")  # no condition, no consensus: every activity
    assert status(wallet_by(emu, key)) == "ACTIVITY_STATUS_COMPLETED"
    error = fails(emu, emu.call, operation, params, caller=key)
    assert error_of(error) == (403, 7, IMPLICIT, "")


def test_a_policy_lets_one_root_user_act_alone_under_a_quorum_of_two(
    turnkey_emulator, turnkey_org, alice
) -> None:
    """root-quorum.mdx: with a threshold above one, a policy can still let one root act."""
    emu, (alice_id, alice_key) = turnkey_emulator, alice
    emu.update_root_quorum(threshold=2, user_ids=[turnkey_org.user_id, alice_id])
    alone = emu.create_wallet(wallet_name="alone", accounts=[])
    assert status(alone) == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    done = emu.approve_activity(fingerprint=alone["activity"]["fingerprint"], caller=alice_key)
    assert done["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    policy = emu.create_policy(
        policy_name="root alone",
        effect="EFFECT_ALLOW",
        notes="",
        condition=CREATE_WALLET,
        consensus=f"approvers.any(user, user.id == '{turnkey_org.user_id}')",
    )
    assert status(policy) == "ACTIVITY_STATUS_CONSENSUS_NEEDED"  # policies need the quorum too
    emu.approve_activity(fingerprint=policy["activity"]["fingerprint"], caller=alice_key)
    assert status(emu.create_wallet(wallet_name="now alone", accounts=[])) == (
        "ACTIVITY_STATUS_COMPLETED"
    )


def test_example_two_taggers_and_per_tag_minimums(turnkey_emulator) -> None:
    """access-control.mdx: two approvers from one tag; at least one of one tag and two of
    another."""
    emu = turnkey_emulator
    sec = emu.create_user_tag(user_tag_name="security", user_ids=[])["userTagId"]
    ops = emu.create_user_tag(user_tag_name="ops", user_ids=[])["userTagId"]
    users = {
        name: add_user(emu, name, tags=tags)
        for name, tags in (("s1", [sec]), ("o1", [ops]), ("o2", [ops]), ("o3", [ops]))
    }
    allow(
        emu,
        condition=CREATE_WALLET,
        consensus=(
            f"approvers.filter(user, user.tags.contains('{sec}')).count() >= 1 && "
            f"approvers.filter(user, user.tags.contains('{ops}')).count() >= 2"
        ),
    )
    proposal = wallet_by(emu, users["o1"][1])["activity"]
    for voter, expected in (
        ("o2", "CONSENSUS_NEEDED"),
        ("o3", "CONSENSUS_NEEDED"),
        ("s1", "COMPLETED"),
    ):
        out = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=users[voter][1])
        assert out["activity"]["status"] == f"ACTIVITY_STATUS_{expected}"


def test_example_co_signing_agent_and_human(turnkey_emulator, turnkey_wallet) -> None:
    """co-signing-transactions.mdx: an agent's signature needs a human's approval too."""
    emu = turnkey_emulator
    (agent_id, agent), (human_id, human) = add_user(emu, "agent"), add_user(emu, "human")
    allow(
        emu,
        condition="activity.action == 'SIGN'",
        consensus=(
            f"approvers.any(user, user.id == '{agent_id}') && "
            f"approvers.any(user, user.id == '{human_id}')"
        ),
    )
    proposal = emu.sign_raw_payload(
        sign_with=turnkey_wallet.ethereum_address,
        payload="11" * 32,
        encoding="PAYLOAD_ENCODING_HEXADECIMAL",
        hash_function="HASH_FUNCTION_NO_OP",
        caller=agent,
    )["activity"]
    assert proposal["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    done = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=human)["activity"]
    assert done["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert len(done["result"]["signRawPayloadResult"]["r"]) == 64


@pytest.mark.parametrize(
    ("condition", "activity_type", "params", "applies"),
    [
        # auth flows (email, OTP, OAuth, sessions) are allowed for a backend user
        (
            "activity.resource == 'AUTH' && activity.action == 'CREATE'",
            "ACTIVITY_TYPE_EMAIL_AUTH_V3",
            {},
            True,
        ),
        (
            "activity.resource == 'AUTH' && activity.action == 'CREATE'",
            "ACTIVITY_TYPE_OTP_LOGIN_V2",
            {},
            True,
        ),
        (
            "activity.resource == 'AUTH' && activity.action == 'CREATE'",
            "ACTIVITY_TYPE_INIT_OTP_V3",
            {},
            False,
        ),
        (
            "activity.resource in ['AUTH','OTP'] && activity.action in ['CREATE','VERIFY']",
            "ACTIVITY_TYPE_INIT_OTP_V3",
            {},
            True,
        ),
        (
            "activity.resource in ['AUTH','OTP'] && activity.action in ['CREATE','VERIFY']",
            "ACTIVITY_TYPE_VERIFY_OTP_V2",
            {},
            True,
        ),
        (
            "activity.type == 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2'",
            "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
            {},
            True,
        ),
        (
            "activity.kind == 'CREATE_READ_WRITE_SESSION'",
            "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION",
            {},
            True,
        ),
        (
            "activity.type == 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2'",
            "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION",
            {},
            False,
        ),
        # exporting one wallet account
        (
            "activity.action == 'EXPORT' && wallet_account.address == '{address}'",
            "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",
            {"address": "{address}"},
            True,
        ),
        (
            "activity.action == 'EXPORT' && wallet_account.address == '{address}'",
            "ACTIVITY_TYPE_EXPORT_WALLET",
            {"walletId": "{wallet}"},
            False,
        ),
    ],
)
def test_examples_of_activities_yet_to_come_at_the_engine(
    turnkey_emulator, alice, turnkey_wallet, condition, activity_type, params, applies
) -> None:
    """The documented auth, OTP, session and export examples, judged by the engine directly
    (their activities are not served yet): the policy allows exactly what the docs say."""
    from emulator.services.policy_engine import ALLOW, DENY_IMPLICIT, Approval, judge

    emu, (alice_id, key) = turnkey_emulator, alice
    fill = {"address": turnkey_wallet.ethereum_address, "wallet": turnkey_wallet.wallet_id}
    allow(emu, condition=condition.format(**fill))
    org = emu.world.store.organizations[emu.organization().organization_id]
    user = org.users[alice_id]
    verdict = judge(
        org,
        activity_type,
        {k: v.format(**fill) for k, v in params.items()},
        [Approval(user, key.public_key, "SIGNATURE_SCHEME_TK_API_P256")],
        emu.clock.now_ns(),
        proposer_id=alice_id,
    )
    assert verdict.decision == (ALLOW if applies else DENY_IMPLICIT)


def test_policies_pinned_to_a_wallet_label_follow_the_wallet_and_its_renames(
    turnkey_emulator, alice
) -> None:
    """``wallet.label == …`` places a policy by label, as ``wallet.id`` does by id: the
    others are never evaluated (nor listed), and a rename moves the wallet between them."""
    emu, (_, key) = turnkey_emulator, alice
    wallet = emu.create_wallet(
        wallet_name="hot", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )
    allowed = allow(emu, "hot", condition="activity.action == 'SIGN' && wallet.label == 'hot'")
    for i in range(5):
        allow(emu, f"other {i}", condition=f"activity.action == 'SIGN' && wallet.label == 'w{i}'")

    def sign() -> dict:
        return emu.sign_raw_payload(
            sign_with=wallet["addresses"][0],
            payload="00" * 32,
            encoding="PAYLOAD_ENCODING_HEXADECIMAL",
            hash_function="HASH_FUNCTION_NO_OP",
            caller=key,
        )

    done = sign()["activity"]
    assert status({"activity": done}) == "ACTIVITY_STATUS_COMPLETED"
    (vote,) = emu.get_activity(activity_id=done["id"])["activity"]["votes"]
    evaluations = emu.world.store.activities_by_id[done["id"]].votes[0].policy_outcomes
    assert [(o.policy_id, o.outcome) for o in evaluations] == [(allowed, "OUTCOME_ALLOW")]
    assert vote["selection"] == "VOTE_SELECTION_APPROVED"
    emu.update_wallet(wallet_id=wallet["walletId"], wallet_name="w3")
    assert status(sign()) == "ACTIVITY_STATUS_COMPLETED"  # now by policy "other 3"
    emu.update_wallet(wallet_id=wallet["walletId"], wallet_name="cold")
    assert fails(emu, sign).message == IMPLICIT
