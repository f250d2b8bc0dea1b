"""MFA policies (features/authentication/mfa): create, update, delete, get, list and status,
and what they do: an activity whose proposer's policy holds waits in
ACTIVITY_STATUS_AUTHENTICATORS_NEEDED until approvals stamped with the required methods meet
every step; approvers are held to their own policies before their votes count."""

from __future__ import annotations

import pytest

from emulator import EMULATOR_BASE_URL
from emulator.accounts import account_spec
from emulator.crypto.authenticator import VirtualAuthenticator
from emulator.ground import messages
from emulator.testing.client_crypto import TargetKey

from .helpers import add_user, error_of, fails, violations

PASSKEY = {"type": "AUTHENTICATION_TYPE_PASSKEY"}
API_KEY = {"type": "AUTHENTICATION_TYPE_API_KEY"}
SESSION = {"type": "AUTHENTICATION_TYPE_SESSION"}
EMAIL_OTP = {"type": "AUTHENTICATION_TYPE_EMAIL_OTP"}
COMPLETED = "ACTIVITY_STATUS_COMPLETED"
NEEDED = "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED"
CONSENSUS = "ACTIVITY_STATUS_CONSENSUS_NEEDED"
DEFAULT_SESSION = "00000000-0000-0000-0000-000000000000"


def steps(*methods_per_step: list[dict]) -> list[dict]:
    return [{"any": list(methods)} for methods in methods_per_step]


@pytest.fixture
def emu(turnkey_emulator):
    return turnkey_emulator


@pytest.fixture
def root(emu, turnkey_org) -> str:
    return turnkey_org.user_id


def enrol(emu, user_id: str, seed: int = 7, caller=None) -> tuple[VirtualAuthenticator, str]:
    device = VirtualAuthenticator(credential_id=bytes([seed]) * 16)
    kwargs = {"caller": caller} if caller is not None else {}
    made = emu.create_authenticators(
        user_id=user_id, authenticators=[device.authenticator_params(f"key {seed}")], **kwargs
    )
    return device, made["authenticatorIds"][0]


def policy(emu, user_id: str, required: list[dict], condition: str = "true", order=0, **kw):
    made = emu.create_mfa_policy(
        user_id=user_id,
        mfa_policy_name=kw.pop("name", f"policy {order}"),
        condition=condition,
        required_authentication_methods=required,
        order=order,
        **kw,
    )
    return made["mfaPolicyId"]


def new_wallet(emu, name: str = "w", caller=None) -> dict:
    kwargs = {"caller": caller} if caller is not None else {}
    made = emu.create_wallet(
        wallet_name=name, accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")], **kwargs
    )
    return made["activity"]


def wallet_names(emu) -> list[str]:
    return [w["walletName"] for w in emu.get_wallets()["wallets"]]


def session_key(emu, profile_id: str | None = None, seed: int = 1):
    """A stamp_login session key of the root user (with a session profile, if given)."""
    key = TargetKey.generate(bytes([seed]) * 32)
    emu.stamp_login(public_key=key.compressed_public_key, session_profile_id=profile_id)
    return key.api_key


# ----- create, read, update, delete ------------------------------------------------------


def test_create_and_read_back_in_the_real_shape(emu, root):
    _, authenticator_id = enrol(emu, root)
    required = steps([API_KEY], [PASSKEY, {**PASSKEY, "id": authenticator_id}])
    made = emu.create_mfa_policy(
        user_id=root,
        mfa_policy_name="signing",
        condition="activity.action == 'SIGN'",
        required_authentication_methods=required,
        order=3,
        notes="step-up",
    )
    assert made["activity"]["status"] == COMPLETED
    assert made["activity"]["type"] == "ACTIVITY_TYPE_CREATE_MFA_POLICY"
    policy_id = made["mfaPolicyId"]
    got = emu.get_mfa_policy(user_id=root, mfa_policy_id=policy_id)["mfaPolicy"]
    assert set(got) == {
        "mfaPolicyId",
        "mfaPolicyName",
        "condition",
        "requiredAuthenticationMethods",
        "order",
        "notes",
        "createdAt",
        "updatedAt",
    }
    assert (got["mfaPolicyId"], got["mfaPolicyName"], got["order"], got["notes"]) == (
        policy_id,
        "signing",
        3,
        "step-up",
    )
    assert got["condition"] == "activity.action == 'SIGN'"
    assert got["requiredAuthenticationMethods"] == required
    assert got["createdAt"] == got["updatedAt"]
    listed = emu.get_mfa_policies(user_id=root)["mfaPolicies"]
    assert listed == [got]
    assert emu.get_user(user_id=root)["user"]["mfaPolicies"] == [got]


def test_policies_list_in_evaluation_order(emu, root):
    late = policy(emu, root, steps([API_KEY]), order=5, name="late")
    early = policy(emu, root, steps([API_KEY]), order=1, name="early")
    listed = emu.get_mfa_policies(user_id=root)["mfaPolicies"]
    assert [p["mfaPolicyId"] for p in listed] == [early, late]


def test_update_changes_only_what_is_given(emu, root):
    policy_id = policy(emu, root, steps([API_KEY]), condition="activity.action == 'SIGN'")
    before = emu.get_mfa_policy(user_id=root, mfa_policy_id=policy_id)["mfaPolicy"]
    emu.clock.advance(5)
    done = emu.update_mfa_policy(user_id=root, mfa_policy_id=policy_id, order=9, notes="later")
    assert done["mfaPolicyId"] == policy_id
    after = emu.get_mfa_policy(user_id=root, mfa_policy_id=policy_id)["mfaPolicy"]
    assert (after["order"], after["notes"]) == (9, "later")
    assert after["condition"] == before["condition"]
    assert after["requiredAuthenticationMethods"] == before["requiredAuthenticationMethods"]
    assert after["createdAt"] == before["createdAt"] and after["updatedAt"] != before["updatedAt"]


def test_delete_removes_it(emu, root):
    policy_id = policy(emu, root, steps([API_KEY]))
    assert emu.delete_mfa_policy(user_id=root, mfa_policy_id=policy_id)["mfaPolicyId"] == policy_id
    assert emu.get_mfa_policies(user_id=root)["mfaPolicies"] == []
    error = fails(emu, emu.get_mfa_policy, user_id=root, mfa_policy_id=policy_id)
    assert error_of(error)[:3] == (404, 5, messages.mfa_policy_not_found(policy_id, root))


# ----- what is refused -----------------------------------------------------------------


def test_a_policy_its_user_cannot_meet_is_refused_with_the_documented_message(emu, root):
    error = fails(emu, policy, emu, root, steps([PASSKEY]), name="needs a passkey")
    assert error_of(error)[:2] == (400, 3)
    assert error.message == (
        f"user ({root}) cannot satisfy mfa policy requirement: mfa policy 'needs a passkey' "
        'requires one of ["Passkey"] but user does not, or will not, have a matching credential'
    )
    # e-mail OTP needs an address, a pinned session a profile that exists
    for required in (
        steps([EMAIL_OTP]),
        steps([{**SESSION, "id": "1" * 8 + "-1111-4111-8111-" + "1" * 12}]),
    ):
        fails(emu, policy, emu, root, required)
    # a session is always obtainable, and so is the default session
    policy(emu, root, steps([SESSION], [{**SESSION, "id": DEFAULT_SESSION}]))


def test_bad_input_is_refused_and_changes_nothing(emu, root):
    cases = [
        ({"condition": "activity.action =="}, None),
        ({"required_authentication_methods": []}, messages.MFA_NO_REQUIRED_METHODS),
        ({"required_authentication_methods": [{"any": []}]}, messages.mfa_empty_step(0)),
    ]
    for change, message in cases:
        params = {
            "user_id": root,
            "mfa_policy_name": "bad",
            "condition": "true",
            "required_authentication_methods": steps([API_KEY]),
            "order": 0,
            **change,
        }
        error = fails(emu, emu.create_mfa_policy, **params)
        assert error.status == 400
        if message is not None:
            assert error.message == message
        else:
            assert error.message.startswith("invalid policy condition:")
    wrong_type = fails(
        emu,
        emu.create_mfa_policy,
        user_id=root,
        mfa_policy_name="bad",
        condition="true",
        required_authentication_methods=[{"any": [{"type": "AUTHENTICATION_TYPE_PIGEON"}]}],
        order=0,
    )
    assert violations(wrong_type)[0]["field"] == "requiredAuthenticationMethods.0.any.0.type"
    negative = fails(
        emu,
        emu.create_mfa_policy,
        user_id=root,
        mfa_policy_name="bad",
        condition="true",
        required_authentication_methods=steps([API_KEY]),
        order=-1,
    )
    assert violations(negative)[0]["field"] == "order"
    stranger = "5" * 8 + "-5555-4555-8555-" + "5" * 12
    missing = fails(emu, policy, emu, stranger, steps([API_KEY]))
    assert error_of(missing)[:2] == (404, 5)


# ----- enforcement ---------------------------------------------------------------------


def test_an_activity_waits_for_its_authenticators_then_runs_on_the_passkey(emu, root):
    device, authenticator_id = enrol(emu, root)
    policy_id = policy(emu, root, steps([API_KEY], [PASSKEY]), "activity.resource == 'WALLET'")
    proposal = new_wallet(emu)
    assert proposal["status"] == NEEDED and proposal["result"] == {}
    assert (proposal["canApprove"], proposal["canReject"]) == (True, False)
    assert wallet_names(emu) == []
    (status,) = emu.get_mfa_status(activity_id=proposal["id"])["mfaStatuses"]
    root_key_id = emu.get_user(user_id=root)["user"]["apiKeys"][0]["apiKeyId"]
    assert status == {
        "mfaPolicyId": policy_id,
        "userId": root,
        "satisfied": False,
        "satisfiedMethods": [{**API_KEY, "id": root_key_id}],
        "requiredMethods": steps([API_KEY], [PASSKEY]),
    }
    # the same API key again presents nothing new
    again = emu.approve_activity(fingerprint=proposal["fingerprint"])["activity"]
    assert again["status"] == NEEDED
    done = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=device)["activity"]
    assert done["status"] == COMPLETED
    assert done["result"]["createWalletResult"]["walletId"]
    assert wallet_names(emu) == ["w"]
    (status,) = emu.get_mfa_status(activity_id=proposal["id"], user_id=root)["mfaStatuses"]
    assert status["satisfied"] is True
    assert status["satisfiedMethods"] == [
        {**API_KEY, "id": root_key_id},
        {**PASSKEY, "id": authenticator_id},
    ]


def test_a_policy_met_by_the_proposing_stamp_lets_the_activity_run_at_once(emu, root):
    policy(emu, root, steps([API_KEY]))
    assert new_wallet(emu)["status"] == COMPLETED


def test_only_the_first_policy_that_holds_is_enforced(emu, root):
    enrol(emu, root)
    # order 0 holds for wallets and asks only for the API key; the stricter one never applies
    policy(emu, root, steps([API_KEY]), "activity.resource == 'WALLET'", order=0)
    policy(emu, root, steps([PASSKEY]), "true", order=1)
    assert new_wallet(emu)["status"] == COMPLETED
    # anything else falls through to the catch-all, which wants the passkey
    other = emu.create_private_key_tag(private_key_tag_name="t", private_key_ids=[])["activity"]
    assert other["status"] == NEEDED


def test_a_condition_that_fails_to_evaluate_does_not_hold(emu, root):
    enrol(emu, root)
    policy(emu, root, steps([PASSKEY]), "eth.tx.value > 1")
    assert new_wallet(emu)["status"] == COMPLETED


def test_a_pinned_passkey_must_be_that_passkey(emu, root):
    _, first = enrol(emu, root, seed=1)
    second, _ = enrol(emu, root, seed=2)
    policy(emu, root, steps([{**PASSKEY, "id": first}]))
    proposal = new_wallet(emu)
    answer = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=second)["activity"]
    assert answer["status"] == NEEDED
    assert wallet_names(emu) == []


def test_sessions_are_not_transitive(emu, root):
    """A session made with a passkey presents the session, not the passkey."""
    enrol(emu, root)
    session = session_key(emu)
    policy(emu, root, steps([PASSKEY]), "activity.resource == 'WALLET'")
    proposal = new_wallet(emu, caller=session)
    assert proposal["status"] == NEEDED
    (status,) = emu.get_mfa_status(activity_id=proposal["id"])["mfaStatuses"]
    assert status["satisfiedMethods"] == []  # the session meets no step
    emu.approve_activity(fingerprint=proposal["fingerprint"], caller=session)
    assert emu.get_activity(activity_id=proposal["id"])["activity"]["status"] == NEEDED


def test_nobody_else_votes_while_the_proposer_owes_mfa(emu, root):
    enrol(emu, root)
    _, bob = add_user(emu, "bob")
    policy(emu, root, steps([PASSKEY]))
    proposal = new_wallet(emu)
    error = fails(emu, emu.approve_activity, fingerprint=proposal["fingerprint"], caller=bob)
    assert error_of(error)[:3] == (
        400,
        3,
        messages.awaiting_proposer_authenticators(proposal["id"]),
    )


def test_through_the_official_sdk_the_status_raises_and_the_passkey_approves(
    emu, turnkey_org, root
):
    pytest.importorskip("turnkey_http")
    from turnkey_http import TurnkeyClient
    from turnkey_http.generated.client import TurnkeyActivityAuthenticatorsNeededError
    from turnkey_sdk_types import (
        ApproveActivityBody,
        CreateMfaPolicyBody,
        CreateWalletBody,
        GetActivityBody,
        GetMfaStatusBody,
        v1AuthenticationMethodParams,
        v1RequiredAuthenticationMethodParams,
        v1WalletAccountParams,
    )

    device, _ = enrol(emu, root)
    with emu.intercept():
        client = emu.client(turnkey_org)
        made = client.create_mfa_policy(
            CreateMfaPolicyBody(
                userId=root,
                mfaPolicyName="passkey for wallets",
                condition="activity.resource == 'WALLET'",
                requiredAuthenticationMethods=[
                    v1RequiredAuthenticationMethodParams(
                        any=[v1AuthenticationMethodParams(type="AUTHENTICATION_TYPE_PASSKEY")]
                    )
                ],
                order=0,
            )
        )
        assert made.mfaPolicyId
        account = v1WalletAccountParams(**account_spec("ADDRESS_FORMAT_ETHEREUM"))
        with pytest.raises(TurnkeyActivityAuthenticatorsNeededError) as raised:
            client.create_wallet(CreateWalletBody(walletName="sdk", accounts=[account]))
        activity_id = raised.value.activity_id
        pending = client.get_activity(GetActivityBody(activityId=activity_id)).activity
        assert pending.status.value == NEEDED
        statuses = client.get_mfa_status(GetMfaStatusBody(activityId=activity_id)).mfaStatuses
        assert [s.satisfied for s in statuses] == [False]
        with_passkey = TurnkeyClient(
            base_url=EMULATOR_BASE_URL,
            stamper=device.sdk_stamper(),
            organization_id=turnkey_org.organization_id,
        )
        approved = with_passkey.approve_activity(
            ApproveActivityBody(fingerprint=pending.fingerprint)
        )
        assert approved.activity.status.value == COMPLETED
    assert wallet_names(emu) == ["sdk"]


# ----- MFA and consensus ---------------------------------------------------------------


def test_an_approver_is_held_to_their_own_mfa_before_their_vote_counts(emu, root):
    _, alice = add_user(emu, "alice")
    bob_id, bob = add_user(emu, "bob")
    emu.create_policy(
        policy_name="two of us",
        effect="EFFECT_ALLOW",
        condition="activity.resource == 'WALLET' && activity.action == 'CREATE'",
        consensus="approvers.count() >= 2",
        notes="",
    )
    bob_device, _ = enrol(emu, bob_id, seed=9)
    policy(emu, bob_id, steps([PASSKEY]), "activity.resource == 'WALLET'")
    proposal = new_wallet(emu, caller=alice)
    assert proposal["status"] == CONSENSUS
    seen_by_bob = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=bob)["activity"]
    assert seen_by_bob["status"] == NEEDED  # bob's vote waits for his passkey
    assert seen_by_bob["canApprove"] is True
    seen_by_alice = emu.get_activity(activity_id=proposal["id"], caller=alice)["activity"]
    assert seen_by_alice["status"] == CONSENSUS
    assert wallet_names(emu) == []
    done = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=bob_device)
    assert done["activity"]["status"] == COMPLETED
    assert wallet_names(emu) == ["w"]
    statuses = emu.get_mfa_status(activity_id=proposal["id"])["mfaStatuses"]
    assert [(s["userId"], s["satisfied"]) for s in statuses] == [(bob_id, True)]


# ----- the docs' examples --------------------------------------------------------------


def test_docs_example_only_signing_requires_session_and_passkey(emu, root):
    """examples.mdx, "Only require MFA for signing activities": a session plus a passkey."""
    device, _ = enrol(emu, root)
    wallet = emu.create_wallet(
        wallet_name="signer", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )
    address = wallet["addresses"][0]
    session = session_key(emu)
    policy(emu, root, steps([SESSION], [PASSKEY]), "activity.action == 'SIGN'")
    assert new_wallet(emu, "other", caller=session)["status"] == COMPLETED  # not signing
    signing = emu.sign_raw_payload(
        sign_with=address,
        payload="00" * 32,
        encoding="PAYLOAD_ENCODING_HEXADECIMAL",
        hash_function="HASH_FUNCTION_NO_OP",
        caller=session,
    )["activity"]
    assert signing["status"] == NEEDED
    done = emu.approve_activity(fingerprint=signing["fingerprint"], caller=device)["activity"]
    assert done["status"] == COMPLETED
    assert done["result"]["signRawPayloadResult"]["r"]


def test_docs_example_a_pinned_session_profile(emu, root):
    """examples.mdx, "signing requires MFA every 15 minutes": signing needs the session
    issued with the 15-minute profile; the default session does not do."""
    wallet = emu.create_wallet(
        wallet_name="signer", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )
    address = wallet["addresses"][0]
    colossal = emu.create_session_profile(
        session_profile_name="colossal session", scope="true", expiration_seconds="900"
    )["sessionProfileId"]
    default_session, colossal_session = session_key(emu, seed=2), session_key(emu, colossal, 3)
    policy(emu, root, steps([{**SESSION, "id": colossal}]), "activity.action == 'SIGN'", order=2)
    policy(emu, root, steps([SESSION]), "true", order=3)

    def sign(caller):
        return emu.sign_raw_payload(
            sign_with=address,
            payload="11" * 32,
            encoding="PAYLOAD_ENCODING_HEXADECIMAL",
            hash_function="HASH_FUNCTION_NO_OP",
            caller=caller,
        )["activity"]["status"]

    assert sign(default_session) == NEEDED
    assert sign(colossal_session) == COMPLETED
    # everything else takes any session, and a long-lived API key is no session
    assert new_wallet(emu, "x", caller=default_session)["status"] == COMPLETED
    assert new_wallet(emu, "y")["status"] == NEEDED


def test_docs_example_delegated_access_creates_the_users_mfa_policy(emu, root):
    """examples.mdx, "Enforcing MFA via delegated access": a user allowed only to create MFA
    policies writes one for the root user, who then needs a passkey to sign."""
    _, delegate = add_user(emu, "delegated")
    emu.create_policy(
        policy_name="Allow MFA policy management",
        effect="EFFECT_ALLOW",
        condition="activity.resource == 'MFA_POLICY' && activity.action == 'CREATE'",
        notes="",
    )
    enrol(emu, root)
    made = emu.create_mfa_policy(
        user_id=root,
        mfa_policy_name="Require passkey for signing",
        condition="activity.action == 'SIGN'",
        required_authentication_methods=steps([PASSKEY]),
        order=0,
        caller=delegate,
    )
    assert made["activity"]["status"] == COMPLETED
    # the delegate may do nothing else: deleting is not allowed to them
    error = fails(
        emu, emu.delete_mfa_policy, user_id=root, mfa_policy_id=made["mfaPolicyId"], caller=delegate
    )
    assert error.status == 403


def test_docs_example_quorum_recovery_deletes_a_policy_with_two_approvals(emu, root):
    """examples.mdx, "Quorum-based MFA recovery via delegated access"."""
    _, first = add_user(emu, "support one")
    _, second = add_user(emu, "support two")
    emu.create_policy(
        policy_name="Quorum MFA recovery",
        effect="EFFECT_ALLOW",
        condition="activity.resource == 'MFA_POLICY' && activity.action == 'DELETE'",
        consensus="approvers.count() >= 2",
        notes="",
    )
    enrol(emu, root)
    locked = policy(emu, root, steps([PASSKEY]), "activity.action == 'SIGN'")
    proposal = emu.delete_mfa_policy(user_id=root, mfa_policy_id=locked, caller=first)["activity"]
    assert proposal["status"] == CONSENSUS
    assert len(emu.get_mfa_policies(user_id=root)["mfaPolicies"]) == 1
    done = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=second)["activity"]
    assert done["status"] == COMPLETED
    assert emu.get_mfa_policies(user_id=root)["mfaPolicies"] == []


# ----- state -----------------------------------------------------------------------------


def test_policies_and_owed_mfa_survive_a_state_file(emu, root, tmp_path):
    from emulator import Emulator

    device, _ = enrol(emu, root)
    policy(emu, root, steps([API_KEY], [PASSKEY]), "activity.resource == 'WALLET'")
    proposal = new_wallet(emu)
    path = tmp_path / "state.json"
    emu.save(path)
    again = Emulator.load(path)
    assert (
        again.get_mfa_policies(user_id=root)["mfaPolicies"]
        == emu.get_mfa_policies(user_id=root)["mfaPolicies"]
    )
    status = again.get_mfa_status(activity_id=proposal["id"])["mfaStatuses"]
    assert status == emu.get_mfa_status(activity_id=proposal["id"])["mfaStatuses"]
    done = again.approve_activity(fingerprint=proposal["fingerprint"], caller=device)
    assert done["activity"]["status"] == COMPLETED


def test_the_typescript_poller_stops_on_authenticators_needed(emu, turnkey_org, root):
    """@turnkey/http's activity poller throws for the status, naming the activity, which
    the passkey's approval then completes."""
    from tests.typescript import client_calls, typescript_or_skip

    ts = typescript_or_skip()
    device, _ = enrol(emu, root)
    policy(emu, root, steps([PASSKEY]), "activity.resource == 'WALLET'")
    body = {
        "type": "ACTIVITY_TYPE_CREATE_WALLET",
        "timestampMs": str(emu.clock.now_ns() // 1_000_000),
        "organizationId": turnkey_org.organization_id,
        "parameters": {"walletName": "ts", "accounts": [account_spec("ADDRESS_FORMAT_ETHEREUM")]},
    }
    (thrown,) = client_calls(
        ts, emu.world, turnkey_org.api_key, [("createWallet", body)], op="poll"
    )
    assert thrown["activityStatus"] == NEEDED
    assert thrown["thrown"] == f"Authenticators needed for activity {thrown['activityId']}"
    pending = emu.get_activity(activity_id=thrown["activityId"])["activity"]
    done = emu.approve_activity(fingerprint=pending["fingerprint"], caller=device)["activity"]
    assert done["status"] == COMPLETED
    assert wallet_names(emu) == ["ts"]


def test_the_journal_keeps_policies_and_each_method_presented(tmp_path):
    """``serve --state``'s journal: every step of an MFA flow is a row that replays."""
    from emulator import Emulator
    from emulator.state.journal import Journal
    from emulator.state.persistence import StateFile
    from emulator.testing.digest import state_digest

    emu = Emulator(seed=7)
    org = emu.create_organization("journaled")
    state = StateFile.create(tmp_path / "state.sqlite", emu.to_document())
    journal = Journal(emu, state, compact_every=10**9).attach()
    device, _ = enrol(emu, org.user_id)
    policy_id = policy(
        emu, org.user_id, steps([API_KEY], [PASSKEY]), "activity.resource == 'WALLET'"
    )
    proposal = new_wallet(emu)

    def replayed() -> Emulator:
        journal.sync()
        reader = StateFile.open(tmp_path / "state.sqlite")
        try:
            return Emulator.from_document(reader.read(), exact_order=False)
        finally:
            reader.close()

    assert state_digest(replayed()) == state_digest(emu)
    emu.approve_activity(fingerprint=proposal["fingerprint"], caller=device)
    emu.update_mfa_policy(user_id=org.user_id, mfa_policy_id=policy_id, order=4)
    again = replayed()
    assert state_digest(again) == state_digest(emu)
    assert again.get_mfa_status(activity_id=proposal["id"])["mfaStatuses"][0]["satisfied"]
    journal.close()
