"""Activities beyond the in-memory bound of ``serve --state`` (``state/archive.py``).

Two emulators from one document get the same pre-signed requests through the wire entry
point (``emulator.http.app.handle``): one with its activities all in memory, one writing a
state file whose journal keeps at most a handful of them in memory (``bound``). Every
answer must be the same: get_activity, list_activities with its filters and cursors,
policy evaluations, votes on old pending activities, the same body sent again, the
dashboard, a restart from the file (the journal replayed), snapshots restored.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.crypto.api_keys import ApiKeyPair
from emulator.crypto.stamps import sign_stamp
from emulator.dashboard import views
from emulator.http.app import handle
from emulator.state.journal import Journal
from emulator.state.persistence import StateFile

from .helpers import add_user

TWO_APPROVERS = "approvers.count() >= 2"
CREATE_WALLET = "activity.resource == 'WALLET' && activity.action == 'CREATE'"
STATUSES = (
    "ACTIVITY_STATUS_COMPLETED",
    "ACTIVITY_STATUS_CONSENSUS_NEEDED",
    "ACTIVITY_STATUS_REJECTED",
)
TYPES = ("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", "ACTIVITY_TYPE_CREATE_WALLET")


class Pair:
    """The unbounded emulator and the bounded one, fed the same bytes."""

    def __init__(self, tmp_path: Any, bound: int) -> None:
        setup = Emulator(seed=11)
        setup.clock.freeze(1_700_000_000_000)
        org = setup.create_organization("Acme")
        self.org_id = org.organization_id
        self.root = org.api_key
        self.alice_id, self.alice = add_user(setup, "alice")
        self.bob_id, self.bob = add_user(setup, "bob")
        setup.create_policy(
            policy_name="two of us",
            effect="EFFECT_ALLOW",
            condition=CREATE_WALLET,
            consensus=TWO_APPROVERS,
            notes="",
        )
        wallet = setup.create_wallet(
            wallet_name="signer", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
        )
        self.address = wallet["addresses"][0]
        document = setup.to_document()
        self.plain = Emulator.from_document(document)
        self.path = str(tmp_path / "state.sqlite")
        self.bounded = Emulator.from_document(document)
        self.bounded.settings.activities_in_memory = bound
        self.state = StateFile.create(self.path, self.bounded.to_document())
        self.journal = Journal(self.bounded, self.state).attach()
        self.now_ms = 1_700_000_000_000
        self.sent: list[tuple[str, bytes, dict[str, str]]] = []
        self.activities: list[dict[str, Any]] = []  # id, fingerprint of each made
        self.proposals: list[str] = []  # fingerprints of alice's proposals
        self.counter = 0

    # ----- requests ----------------------------------------------------------------

    def request(self, kind: str, name: str, body: dict[str, Any], key: ApiKeyPair) -> Any:
        raw = json.dumps(body).encode()
        headers = {"x-stamp": sign_stamp(raw, key).header_value()}
        path = f"/public/v1/{kind}/{name}"
        if kind == "submit":
            self.sent.append((path, raw, headers))
        return self.both(path, raw, headers)

    def both(self, path: str, raw: bytes, headers: dict[str, str]) -> Any:
        plain = handle(self.plain.world, "POST", path, headers, raw)
        bounded = handle(self.bounded.world, "POST", path, headers, raw)
        assert json.loads(bounded[1]) == json.loads(plain[1]), path
        assert bounded[0] == plain[0]
        return plain[0], json.loads(plain[1])

    def submit(self, name: str, activity_type: str, params: dict, key: ApiKeyPair) -> Any:
        self.counter += 1
        body = {
            "type": activity_type,
            "timestampMs": str(self.now_ms + self.counter),
            "organizationId": self.org_id,
            "parameters": params,
        }
        status, answer = self.request("submit", name, body, key)
        if status == 200:
            activity = answer["activity"]
            if activity["id"] not in {a["id"] for a in self.activities}:
                self.activities.append(activity)
        return status, answer

    def query(self, name: str, **params: Any) -> Any:
        return self.request("query", name, {"organizationId": self.org_id, **params}, self.root)

    # ----- steps -------------------------------------------------------------------

    def sign(self) -> None:
        params = {
            "signWith": self.address,
            "payload": f"{self.counter:064x}",
            "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
            "hashFunction": "HASH_FUNCTION_NO_OP",
        }
        status, _ = self.submit(
            "sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", params, self.root
        )
        assert status == 200

    def propose(self) -> None:
        params = {
            "walletName": f"shared {self.counter}",
            "accounts": [account_spec("ADDRESS_FORMAT_ETHEREUM")],
        }
        _, answer = self.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", params, self.alice)
        assert answer["activity"]["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
        self.proposals.append(answer["activity"]["fingerprint"])

    def vote(self, k: int, approve: bool) -> None:
        if not self.proposals:
            return
        fingerprint = self.proposals[k % len(self.proposals)]
        name = "approve_activity" if approve else "reject_activity"
        activity_type = (
            "ACTIVITY_TYPE_APPROVE_ACTIVITY" if approve else "ACTIVITY_TYPE_REJECT_ACTIVITY"
        )
        self.submit(name, activity_type, {"fingerprint": fingerprint}, self.bob)

    def resend(self, k: int) -> None:
        if self.sent:
            self.both(*self.sent[k % len(self.sent)])

    def get(self, k: int) -> None:
        if self.activities:
            activity_id = self.activities[k % len(self.activities)]["id"]
            self.query("get_activity", activityId=activity_id)
            self.query("get_policy_evaluations", activityId=activity_id)
            self.query("list_app_proofs", activityId=activity_id)

    def listing(
        self, statuses: list, types: list, limit: int, cursor: int | None, before: bool
    ) -> None:
        options: dict[str, str] = {"limit": str(limit)}
        if cursor is not None and self.activities:
            options["before" if before else "after"] = self.activities[
                cursor % len(self.activities)
            ]["id"]
        self.query(
            "list_activities",
            filterByStatus=statuses,
            filterByType=types,
            paginationOptions=options,
        )

    # ----- the rest of what must agree -----------------------------------------------

    def check_dashboard(self) -> None:
        for params in (
            {},
            {"organizationId": self.org_id, "limit": 7},
            {"status": "ACTIVITY_STATUS_COMPLETED", "offset": 2},
        ):
            assert views.activities(self.bounded, params) == views.activities(self.plain, params)
        assert (
            views.overview(self.bounded)["activityCount"]
            == views.overview(self.plain)["activityCount"]
        )
        for activity in self.activities[:: max(1, len(self.activities) // 5)]:
            params = {"activityId": activity["id"]}
            assert views.activity(self.bounded, params) == views.activity(self.plain, params)

    def check_everything(self) -> None:
        for k in range(len(self.activities)):
            self.get(k)
        self.listing([], [], 100, None, False)
        self.check_dashboard()

    def in_memory(self) -> int:
        store = self.bounded.world.store
        return len(store.activities_by_id) - len(self.bounded.world.archive.pinned)

    def restart(self) -> None:
        """The bounded emulator read back from its state file, as ``serve`` does."""
        self.journal.close()
        self.state = StateFile.open(self.path)
        bound = self.bounded.settings.activities_in_memory
        self.bounded = Emulator.from_document(self.state.read(), exact_order=False)
        self.bounded.settings.activities_in_memory = bound
        self.journal = Journal(self.bounded, self.state).attach()

    def close(self) -> None:
        self.journal.close()


@pytest.fixture
def pair(tmp_path):
    made = Pair(tmp_path, bound=5)
    yield made
    made.close()


def test_old_activities_leave_memory_and_answer_as_before(pair: Pair) -> None:
    for _ in range(30):
        pair.sign()
    assert pair.in_memory() <= 5
    assert pair.bounded.world.archive.evicted >= 25
    pair.check_everything()
    # An old body sent again is the same activity, read back from the file.
    pair.resend(0)
    _, answer = pair.both(*pair.sent[0])
    assert answer["activity"]["id"] == pair.activities[0]["id"]
    assert pair.in_memory() <= 5


def test_votes_on_an_old_pending_activity(pair: Pair) -> None:
    pair.propose()
    pair.propose()
    for _ in range(20):
        pair.sign()
    archive = pair.bounded.world.archive
    assert len(archive.pinned) == 2  # pending: archived in place, kept in memory
    pair.vote(0, approve=True)
    pair.vote(1, approve=False)
    pair.check_everything()
    for _ in range(10):
        pair.sign()
    assert archive.pinned == {}  # settled: gone from memory at the next pass
    pair.check_everything()


def test_restart_and_snapshots_answer_as_before(pair: Pair) -> None:
    pair.propose()
    for _ in range(12):
        pair.sign()
    saved_bounded, saved_plain = pair.bounded.snapshot(), pair.plain.snapshot()
    made = len(pair.activities)
    for _ in range(12):
        pair.sign()
    pair.vote(0, approve=True)
    pair.restart()
    pair.check_everything()
    pair.bounded.restore(saved_bounded)
    pair.plain.restore(saved_plain)
    del pair.activities[made:]
    pair.check_everything()
    for _ in range(8):
        pair.sign()
    pair.restart()
    pair.check_everything()
    bounded, plain = pair.bounded.to_document(), pair.plain.to_document()
    assert bounded.pop("settings")["activitiesInMemory"] == 5
    plain.pop("settings")
    assert bounded == plain  # the archived activities back in their places


def test_a_user_who_leaves_keeps_their_archived_votes(pair: Pair) -> None:
    pair.propose()
    pair.vote(0, approve=True)
    for _ in range(12):
        pair.sign()
    for emu in (pair.plain, pair.bounded):
        emu.update_user_name(user_id=pair.alice_id, user_name="alice (renamed)")
        emu.delete_users(user_ids=[pair.alice_id])
    pair.check_everything()
    pair.restart()
    pair.check_everything()


def test_reset_drops_the_archive(pair: Pair) -> None:
    for _ in range(12):
        pair.sign()
    pair.bounded.reset()
    assert pair.bounded.world.archive.counts == {}
    pair.restart()
    assert pair.bounded.world.store.organizations == {}


STEPS = st.one_of(
    st.just(("sign",)),
    st.just(("propose",)),
    st.tuples(st.just("vote"), st.integers(0, 50), st.booleans()),
    st.tuples(st.just("resend"), st.integers(0, 500)),
    st.tuples(st.just("get"), st.integers(0, 500)),
    st.tuples(
        st.just("listing"),
        st.lists(st.sampled_from(STATUSES), max_size=2, unique=True),
        st.lists(st.sampled_from(TYPES), max_size=1),
        st.integers(1, 12),
        st.none() | st.integers(0, 500),
        st.booleans(),
    ),
)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(st.one_of(st.just(("sign",)), STEPS), min_size=5, max_size=45))
def test_any_sequence_answers_as_an_unbounded_world(tmp_path_factory, steps) -> None:
    pair = Pair(tmp_path_factory.mktemp("archive"), bound=3)
    try:
        for step in steps:
            getattr(pair, step[0])(*step[1:])
        assert pair.in_memory() <= 3
        pair.check_everything()
    finally:
        pair.close()
