"""Consensus: CONSENSUS_NEEDED with HTTP 200, votes, approve and reject by fingerprint,
identical bodies as approvals, the 24-hour approval window, execution on approval."""

from __future__ import annotations

import json

import pytest

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.crypto.api_keys import ApiKeyPair

from .helpers import NIL_UUID, activity_body, add_user, encode, error_of, fails

TWO_APPROVERS = "approvers.count() >= 2"
CREATE_WALLET = "activity.resource == 'WALLET' && activity.action == 'CREATE'"
NOT_FOUND = (
    "No activity found with fingerprint. Consensus activities must target an existing "
    "activity by fingerprint"
)


@pytest.fixture
def team(turnkey_emulator: Emulator) -> dict[str, tuple[str, ApiKeyPair]]:
    """Alice, Bob and Carol, and a policy: wallets are made with any two approvals."""
    emu = turnkey_emulator
    users = {name: add_user(emu, name) for name in ("alice", "bob", "carol")}
    emu.create_policy(
        policy_name="two of us",
        effect="EFFECT_ALLOW",
        condition=CREATE_WALLET,
        consensus=TWO_APPROVERS,
        notes="",
    )
    return users


def propose(emu: Emulator, key: ApiKeyPair, name: str = "shared") -> dict:
    return emu.create_wallet(
        wallet_name=name, accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")], caller=key
    )["activity"]


def wallet_names(emu: Emulator) -> list[str]:
    return [w["walletName"] for w in emu.get_wallets()["wallets"]]


def test_a_proposal_short_of_consensus_waits_with_http_200(turnkey_emulator, team, wire) -> None:
    emu = turnkey_emulator
    alice_id, alice = team["alice"]
    body = activity_body(
        "ACTIVITY_TYPE_CREATE_WALLET",
        emu.organization().organization_id,
        {"walletName": "wire", "accounts": [account_spec("ADDRESS_FORMAT_ETHEREUM")]},
    )
    http_status, answer = wire.post("/public/v1/submit/create_wallet", body, alice)
    activity = answer["activity"]
    assert http_status == 200
    assert activity["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    assert activity["result"] == {}
    assert [v["userId"] for v in activity["votes"]] == [alice_id]
    assert (activity["canApprove"], activity["canReject"]) == (False, False)  # alice has voted
    assert wallet_names(emu) == []


def test_approve_activity_completes_it_once_consensus_is_reached(turnkey_emulator, team) -> None:
    emu = turnkey_emulator
    (alice_id, alice), (bob_id, bob) = team["alice"], team["bob"]
    proposal = propose(emu, alice)
    seen_by_bob = emu.get_activity(activity_id=proposal["id"], caller=bob)["activity"]
    assert seen_by_bob["canApprove"] is True
    emu.clock.advance(3)
    done = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=bob)["activity"]
    assert done["id"] == proposal["id"]
    assert done["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert [(v["userId"], v["selection"]) for v in done["votes"]] == [
        (alice_id, "VOTE_SELECTION_APPROVED"),
        (bob_id, "VOTE_SELECTION_APPROVED"),
    ]
    wallet_id = done["result"]["createWalletResult"]["walletId"]
    assert emu.get_wallet(wallet_id=wallet_id)["wallet"]["walletName"] == "shared"
    assert int(done["updatedAt"]["seconds"]) == int(done["createdAt"]["seconds"]) + 3
    # The approval is not an activity of its own.
    assert [a["id"] for a in emu.get_activities()["activities"]][:1] == [proposal["id"]]


def test_the_same_body_from_another_user_is_an_approval(turnkey_emulator, team, wire) -> None:
    emu = turnkey_emulator
    (_, alice), (bob_id, bob) = team["alice"], team["bob"]
    body = activity_body(
        "ACTIVITY_TYPE_CREATE_WALLET",
        emu.organization().organization_id,
        {"walletName": "twice", "accounts": [account_spec("ADDRESS_FORMAT_ETHEREUM")]},
    )
    raw = encode(body)
    first = wire.post("/public/v1/submit/create_wallet", None, alice, raw=raw)[1]["activity"]
    again = wire.post("/public/v1/submit/create_wallet", None, alice, raw=raw)[1]["activity"]
    assert again["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED" and len(again["votes"]) == 1
    second = wire.post("/public/v1/submit/create_wallet", None, bob, raw=raw)[1]["activity"]
    assert second["id"] == first["id"]
    assert second["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert second["votes"][1]["userId"] == bob_id
    assert second["votes"][1]["message"] == raw.decode()
    assert wallet_names(emu) == ["twice"]


def test_reject_activity_ends_it_rejected(turnkey_emulator, team) -> None:
    emu = turnkey_emulator
    (_, alice), (_, bob), (_, carol) = team["alice"], team["bob"], team["carol"]
    proposal = propose(emu, alice)
    out = emu.reject_activity(fingerprint=proposal["fingerprint"], caller=bob)["activity"]
    assert out["status"] == "ACTIVITY_STATUS_REJECTED"
    assert out["votes"][-1]["selection"] == "VOTE_SELECTION_REJECTED"
    error = fails(emu, emu.approve_activity, fingerprint=proposal["fingerprint"], caller=carol)
    assert error_of(error) == (
        400,
        3,
        f"activity {proposal['id']} cannot be voted on: its status is ACTIVITY_STATUS_REJECTED",
        "",
    )
    assert wallet_names(emu) == []


def test_voting_again_the_same_way_changes_nothing_and_the_other_way_is_refused(
    turnkey_emulator, team
) -> None:
    emu = turnkey_emulator
    (alice_id, alice) = team["alice"]
    proposal = propose(emu, alice)
    again = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=alice)["activity"]
    assert again["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED" and len(again["votes"]) == 1
    error = fails(emu, emu.reject_activity, fingerprint=proposal["fingerprint"], caller=alice)
    assert error.message == f"user {alice_id} has already voted on activity {proposal['id']}"


def test_can_approve_and_can_reject_tell_each_viewer_what_a_vote_would_do(
    turnkey_emulator, team
) -> None:
    """The proposer has voted: neither flag; another member: both, and both work."""
    emu = turnkey_emulator
    (_, alice), (_, bob), (_, carol) = team["alice"], team["bob"], team["carol"]
    proposal = propose(emu, alice)
    assert (proposal["canApprove"], proposal["canReject"]) == (False, False)
    error = fails(emu, emu.reject_activity, fingerprint=proposal["fingerprint"], caller=alice)
    assert "has already voted" in error.message
    seen_by_bob = emu.get_activity(activity_id=proposal["id"], caller=bob)["activity"]
    assert (seen_by_bob["canApprove"], seen_by_bob["canReject"]) == (True, True)
    rejected = emu.reject_activity(fingerprint=proposal["fingerprint"], caller=bob)["activity"]
    assert rejected["status"] == "ACTIVITY_STATUS_REJECTED"
    assert (rejected["canApprove"], rejected["canReject"]) == (False, False)
    seen_by_carol = emu.get_activity(activity_id=proposal["id"], caller=carol)["activity"]
    assert (seen_by_carol["canApprove"], seen_by_carol["canReject"]) == (False, False)


def test_an_unknown_fingerprint_is_the_real_404(turnkey_emulator, team) -> None:
    emu = turnkey_emulator
    error = fails(emu, emu.approve_activity, fingerprint="sha256:" + "0" * 64)
    assert error_of(error) == (404, 5, NOT_FOUND, "")


def test_a_completed_activity_cannot_be_voted_on(turnkey_emulator, team) -> None:
    emu = turnkey_emulator
    done = emu.create_wallet(wallet_name="root's", accounts=[])["activity"]
    error = fails(emu, emu.approve_activity, fingerprint=done["fingerprint"], caller=team["bob"][1])
    assert error.status == 400


def test_approvals_expire_after_24_hours(turnkey_emulator, team) -> None:
    emu = turnkey_emulator
    (_, alice), (_, bob) = team["alice"], team["bob"]
    proposal = propose(emu, alice)
    emu.clock.advance(24 * 3600)
    late = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=bob)["activity"]
    assert late["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    renewed = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=alice)["activity"]
    assert renewed["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert len(renewed["votes"]) == 3


def test_an_activity_that_can_no_longer_run_ends_failed(turnkey_emulator, team) -> None:
    emu = turnkey_emulator
    (_, alice), (_, bob) = team["alice"], team["bob"]
    proposal = propose(emu, alice, "contested")
    emu.create_wallet(wallet_name="contested", accounts=[])  # root takes the name meanwhile
    out = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=bob)["activity"]
    assert out["status"] == "ACTIVITY_STATUS_FAILED"
    assert out["result"] == {}
    assert out["failure"]["code"] == 3
    assert out["failure"]["message"] == "invalid request (fieldViolations: walletName)"
    assert wallet_names(emu) == ["contested"]


def test_a_root_quorum_above_one_needs_that_many_root_approvals(
    turnkey_emulator, turnkey_org
) -> None:
    emu = turnkey_emulator
    second_id, second = add_user(emu, "second root")
    emu.update_root_quorum(threshold=2, user_ids=[turnkey_org.user_id, second_id])
    proposal = emu.create_wallet(wallet_name="needs two", accounts=[])["activity"]
    assert proposal["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    done = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=second)["activity"]
    assert done["status"] == "ACTIVITY_STATUS_COMPLETED"


def test_policy_evaluations_are_recorded_per_vote(turnkey_emulator, team) -> None:
    emu = turnkey_emulator
    (_, alice), (_, bob) = team["alice"], team["bob"]
    (policy_id,) = [p["policyId"] for p in emu.get_policies()["policies"]]
    proposal = propose(emu, alice)
    done = emu.approve_activity(fingerprint=proposal["fingerprint"], caller=bob)["activity"]
    evaluations = emu.get_policy_evaluations(activity_id=done["id"])["policyEvaluations"]
    assert [e["voteId"] for e in evaluations] == [v["id"] for v in done["votes"]]
    assert [e["policyEvaluations"] for e in evaluations] == [
        [{"policyId": policy_id, "outcome": "OUTCOME_REQUIRES_CONSENSUS"}],
        [{"policyId": policy_id, "outcome": "OUTCOME_ALLOW"}],
    ]
    assert {e["activityId"] for e in evaluations} == {done["id"]}
    assert len({e["id"] for e in evaluations}) == 2
    assert fails(emu, emu.get_policy_evaluations, activity_id=NIL_UUID).status == 404


def test_a_failed_vote_changes_nothing(turnkey_emulator, team) -> None:
    """A vote the engine denies (an explicit deny on the approver) leaves the activity."""
    emu = turnkey_emulator
    (_, alice), (carol_id, carol) = team["alice"], team["carol"]
    emu.create_policy(
        policy_name="not carol",
        effect="EFFECT_DENY",
        condition=CREATE_WALLET,
        consensus=f"approvers.any(user, user.id == '{carol_id}')",
        notes="",
    )
    proposal = propose(emu, alice)
    error = fails(emu, emu.approve_activity, fingerprint=proposal["fingerprint"], caller=carol)
    assert error.message == "policy engine denied request explicitly"


def test_consensus_through_the_official_sdk(turnkey_emulator, team, live_server) -> None:
    """The SDK raises its consensus error for the proposal, and its consensus poll sees the
    activity complete once another client approves it."""
    pytest.importorskip("turnkey_http")
    import threading

    from turnkey_api_key_stamper import ApiKeyStamper, ApiKeyStamperConfig
    from turnkey_http import TurnkeyClient
    from turnkey_http.generated.client import PollingConfig
    from turnkey_sdk_types import ApproveActivityBody, CreateWalletBody
    from turnkey_sdk_types.errors import TurnkeyActivityConsensusNeededError

    org_id = turnkey_emulator.organization().organization_id

    def client(key: ApiKeyPair, **options) -> TurnkeyClient:
        stamper = ApiKeyStamper(ApiKeyStamperConfig(key.public_key, key.private_key))
        return TurnkeyClient(
            base_url=live_server, stamper=stamper, organization_id=org_id, **options
        )

    (_, alice), (_, bob) = team["alice"], team["bob"]
    body = CreateWalletBody(walletName="sdk", accounts=[])
    with pytest.raises(TurnkeyActivityConsensusNeededError) as caught:
        client(alice).create_wallet(body)
    fingerprint = turnkey_emulator.get_activity(activity_id=caught.value.activity_id)["activity"][
        "fingerprint"
    ]
    approved = client(bob).approve_activity(ApproveActivityBody(fingerprint=fingerprint))
    assert approved.activity.status.value == "ACTIVITY_STATUS_COMPLETED"

    polling = client(alice, consensus_polling=PollingConfig(interval_ms=20, timeout_ms=5000))
    answers: dict = {}
    thread = threading.Thread(
        target=lambda: answers.setdefault(
            "out", polling.create_wallet(CreateWalletBody(walletName="polled", accounts=[]))
        )
    )
    thread.start()
    for _ in range(200):
        waiting = [
            a
            for a in turnkey_emulator.get_activities()["activities"]
            if a["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
        ]
        if waiting:
            break
        threading.Event().wait(0.01)
    client(bob).approve_activity(ApproveActivityBody(fingerprint=waiting[0]["fingerprint"]))
    thread.join(10)
    assert answers["out"].walletId == turnkey_emulator.get_wallets()["wallets"][-1]["walletId"]
    assert json.loads(json.dumps(sorted(wallet_names(turnkey_emulator)))) == ["polled", "sdk"]
