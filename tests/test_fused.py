"""The fused path of the signing activities (``services/fused.py``) is the plain path.

Two emulators with the same seed and a frozen clock, one with the fused path off, run the
same random sequence (signatures of every fused type mixed with refusals, policy and quorum
changes, new users and keys, renamed users, deleted accounts, faults, resubmissions,
checkpoints rolled back, snapshots restored, the clock moved); every answer and error, the
state documents, the call logs, the commit counts, the ids streams and the compaction of
each record must be the same. A counter shows the fused path was taken, so the comparison
cannot pass vacuously; each precondition is then checked alone: it sends the call down the
plain path, with the same outcome.
"""

from __future__ import annotations

import dataclasses
import hashlib
import marshal
from collections.abc import Callable
from typing import Any

import pytest
import rlp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.crypto.api_keys import P256, key_pair_from_private
from emulator.crypto.authenticator import VirtualAuthenticator
from emulator.ground import compact
from emulator.ground.errors import TurnkeyApiError
from emulator.ground.models import Activity, Vote
from emulator.ground.packed import PackedVote
from emulator.ground.schema import check
from emulator.ops import FUSED_TYPES, REGISTRY
from emulator.services import fused
from emulator.testing.client_crypto import TargetKey

SEED = 1234
START_MS = 1_790_000_000_000
HEX = "PAYLOAD_ENCODING_HEXADECIMAL"
NO_OP = "HASH_FUNCTION_NO_OP"
KECCAK = "HASH_FUNCTION_KECCAK256"
BOB = key_pair_from_private("11" * 32, P256)
SECOND_ROOT_KEY = key_pair_from_private("22" * 32, P256)
ALLOW_BOB = "approvers.any(user, user.tags.count() >= 0)"


class Side:
    """One emulator of the pair and what the steps need to address it."""

    def __init__(self, fused_path: bool) -> None:
        self.emu = Emulator(seed=SEED)
        self.emu.fused = fused_path
        self.emu.clock.freeze(START_MS)
        self.org = self.emu.create_organization("Acme")
        made = self.emu.create_wallet(
            wallet_name="w",
            accounts=[
                account_spec("ADDRESS_FORMAT_ETHEREUM", 0),
                account_spec("ADDRESS_FORMAT_ETHEREUM", 1),
                account_spec("ADDRESS_FORMAT_SOLANA", 0),
            ],
        )
        self.eth = made["addresses"][:2]
        self.sol = made["addresses"][2]
        (self.bob,) = self.emu.create_users(
            users=[
                {
                    "userName": "bob",
                    "apiKeys": [
                        {"apiKeyName": "bob", "publicKey": BOB.public_key, "curveType": P256}
                    ],
                    "authenticators": [],
                    "oauthProviders": [],
                    "userTags": [],
                }
            ]
        )["userIds"]
        self.sub = self.emu.create_organization(
            "Sub", parent_organization_id=self.org.organization_id
        )
        self.sub_eth = self.emu.create_wallet(
            wallet_name="sw",
            accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM", 0)],
            organization_id=self.sub.organization_id,
        )["addresses"][0]
        self.checkpoints: list[Any] = []
        self.snapshots: list[Any] = []
        self.last_timestamp: str | None = None


def payload(i: int) -> str:
    return hashlib.sha256(f"payload {i}".encode()).hexdigest()


def unsigned_legacy(nonce: int) -> str:
    to = bytes.fromhex("35" * 20)
    return rlp.encode([nonce, 10**9, 21_000, to, 10**15, b"", 1, 0, 0]).hex()


def _sign(s: Side, index: int, i: int, hash_function: str, **extra: Any) -> Any:
    answer = s.emu.sign_raw_payload(
        sign_with=s.eth[index],
        payload=payload(i),
        encoding=HEX,
        hash_function=hash_function,
        **extra,
    )
    s.last_timestamp = answer["activity"]["timestampMs"]
    return answer


def _approve_last(s: Side) -> Any:
    waiting = [
        a
        for a in s.emu.world.store.organizations[s.org.organization_id].activities.values()
        if a.status == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    ]
    if not waiting:
        return "none waiting"
    return s.emu.approve_activity(fingerprint=waiting[-1].fingerprint, caller=BOB)


def _delete_account(s: Side, index: int) -> Any:
    org = s.emu.world.store.organizations[s.org.organization_id]
    for wallet in org.wallets.values():
        for account in wallet.accounts.values():
            if account.address == s.eth[index]:
                return s.emu.delete_wallet_accounts(
                    wallet_account_ids=[account.wallet_account_id], delete_without_export=True
                )
    return "gone"


def _rollback(s: Side, n: int) -> Any:
    if not s.checkpoints:
        return "none"
    s.emu.rollback(s.checkpoints[n % len(s.checkpoints)])
    return "rolled back"


def _restore(s: Side, n: int) -> Any:
    if not s.snapshots:
        return "none"
    s.emu.restore(s.snapshots[n % len(s.snapshots)])
    return "restored"


Step = tuple[str, int, int]
STEPS: dict[str, Callable[[Side, int, int], Any]] = {
    "sign": lambda s, a, b: _sign(s, a % 2, b, NO_OP),
    "sign keccak": lambda s, a, b: _sign(s, a % 2, b, KECCAK),
    "sign bad payload": lambda s, a, b: s.emu.sign_raw_payload(
        sign_with=s.eth[0], payload="zz" * (a % 3), encoding=HEX, hash_function=NO_OP
    ),
    "sign short digest": lambda s, a, b: s.emu.sign_raw_payload(
        sign_with=s.eth[0], payload="ab" * (1 + a % 31), encoding=HEX, hash_function=NO_OP
    ),
    "sign unknown key": lambda s, a, b: s.emu.sign_raw_payload(
        sign_with="0x" + f"{b:040x}", payload=payload(b), encoding=HEX, hash_function=NO_OP
    ),
    "sign text": lambda s, a, b: s.emu.sign_raw_payload(
        sign_with=s.eth[a % 2],
        payload=f"hello {b}",
        encoding="PAYLOAD_ENCODING_TEXT_UTF8",
        hash_function=KECCAK,
    ),
    "sign solana": lambda s, a, b: s.emu.sign_raw_payload(
        sign_with=s.sol,
        payload=payload(b),
        encoding=HEX,
        hash_function="HASH_FUNCTION_NOT_APPLICABLE",
    ),
    "sign many": lambda s, a, b: s.emu.sign_raw_payloads(
        sign_with=s.eth[a % 2],
        payloads=[payload(b + k) for k in range(1 + a % 3)],
        encoding=HEX,
        hash_function=NO_OP,
    ),
    "sign transaction": lambda s, a, b: s.emu.sign_transaction(
        sign_with=s.eth[a % 2],
        unsigned_transaction=unsigned_legacy(b),
        type="TRANSACTION_TYPE_ETHEREUM",
    ),
    "sign bad transaction": lambda s, a, b: s.emu.sign_transaction(
        sign_with=s.eth[0], unsigned_transaction="c0" * (a % 2), type="TRANSACTION_TYPE_ETHEREUM"
    ),
    "sign in sub-organization": lambda s, a, b: s.emu.sign_raw_payload(
        sign_with=s.sub_eth,
        payload=payload(b),
        encoding=HEX,
        hash_function=NO_OP,
        organization_id=s.sub.organization_id,
    ),
    "sign in sub-organization as parent": lambda s, a, b: s.emu.sign_raw_payload(
        sign_with=s.sub_eth,
        payload=payload(b),
        encoding=HEX,
        hash_function=NO_OP,
        organization_id=s.sub.organization_id,
        caller=s.org,
    ),
    "sign V1": lambda s, a, b: s.emu.sign_raw_payload(
        private_key_id=s.eth[0],
        payload=payload(b),
        encoding=HEX,
        hash_function=NO_OP,
        activity_type="ACTIVITY_TYPE_SIGN_RAW_PAYLOAD",
    ),
    "sign with app proofs": lambda s, a, b: _sign(s, 0, b, NO_OP, generate_app_proofs=bool(a % 2)),
    "resubmit": lambda s, a, b: (
        _sign(s, 0, b, NO_OP, timestamp_ms=s.last_timestamp) if s.last_timestamp else "none"
    ),
    "sign as bob": lambda s, a, b: s.emu.sign_raw_payload(
        sign_with=s.eth[0], payload=payload(b), encoding=HEX, hash_function=NO_OP, caller=BOB
    ),
    "allow bob": lambda s, a, b: s.emu.create_policy(
        policy_name=f"bob {b}",
        effect="EFFECT_ALLOW",
        condition="true",
        consensus=ALLOW_BOB,
        notes="",
    ),
    "deny signing": lambda s, a, b: s.emu.create_policy(
        policy_name=f"deny {b}",
        effect="EFFECT_DENY",
        condition="activity.resource == 'PRIVATE_KEY'",
        notes="",
    ),
    "quorum of two": lambda s, a, b: s.emu.update_root_quorum(
        threshold=2, user_ids=[s.org.user_id, s.bob]
    ),
    "bob approves": lambda s, a, b: _approve_last(s),
    "new root key": lambda s, a, b: s.emu.create_api_keys(
        user_id=s.org.user_id,
        api_keys=[
            {
                "apiKeyName": f"extra {b}",
                "publicKey": key_pair_from_private(f"{3 + b % 200:064x}", P256).public_key,
                "curveType": P256,
            }
        ],
    ),
    "delete root key": lambda s, a, b: s.emu.delete_api_keys(
        user_id=s.org.user_id, api_key_ids=[s.org.api_key_id]
    ),
    "rename root": lambda s, a, b: s.emu.update_user_name(
        user_id=s.org.user_id, user_name=f"root {b}"
    ),
    "delete account": lambda s, a, b: _delete_account(s, a % 2),
    "fault": lambda s, a, b: (
        s.emu.faults.fail_next(
            "sign_raw_payload",
            **(
                {"status": 503, "message": "later"}
                if a % 2
                else {"activity_status": "ACTIVITY_STATUS_FAILED"}
            ),
        )
        and "armed"
    ),
    "advance clock": lambda s, a, b: s.emu.clock.advance(1 + a) or "moved",
    "set clock back": lambda s, a, b: s.emu.clock.advance(-(1 + a)) or "moved",
    "checkpoint": lambda s, a, b: s.checkpoints.append(s.emu.checkpoint()) or "marked",
    "rollback": lambda s, a, b: _rollback(s, a),
    "snapshot": lambda s, a, b: s.snapshots.append(s.emu.snapshot()) or "saved",
    "restore": lambda s, a, b: _restore(s, a),
}
SIGNING = ["sign", "sign keccak", "sign many", "sign transaction", "sign solana"]
STEP = st.tuples(
    st.sampled_from(sorted(STEPS)) | st.sampled_from(SIGNING),  # signatures most often
    st.integers(0, 5),
    st.integers(0, 10_000),
)


def attempt(call: Callable[[], Any]) -> Any:
    """What ``call`` answers, or the error it raises, as a value to compare."""
    try:
        return ("ok", call())
    except TurnkeyApiError as error:
        return (
            "error",
            error.status,
            error.code,
            error.message,
            error.turnkey_error_code,
            error.details,
        )
    except ValueError as error:  # a checkpoint rolled back past
        return ("value error", str(error))


def outcome(side: Side, step: Step) -> Any:
    return attempt(lambda: STEPS[step[0]](side, step[1], step[2]))


def calls(side: Side) -> list[Any]:
    return [dataclasses.replace(call, duration_ns=None) for call in side.emu.calls]


def representation(side: Side) -> list[Any]:
    """How each record is held in memory once the young window is past: every field of
    the record and of its votes (a packed vote's frame read back), the intents, result
    and timestamp as held (a dict, or derived); then the young window itself.

    The fused path makes its record as ``compact`` leaves it; the plain path makes it
    whole and compacts it ``YOUNG`` activities later (or never, where a snapshot taken
    while it was young was restored: the restored record is not young): every record is
    compacted here first (a no-op on a compacted one), then compared field for field."""
    young = [a.activity_id for a in side.emu.world.young.recent]
    records = list(side.emu.world.store.activities_by_id.values())
    for a in records:
        compact.compact(a)
    return [held(a) for a in records] + young


def held(a: Any) -> tuple[Any, ...]:
    fields = [
        (name, type(value).__name__, value)
        for name in Activity.__dataclass_fields__
        if name != "votes"
        for value in [getattr(a, name)]
    ]
    votes = [
        (
            type(v).__name__,
            [(name, type(getattr(v, name)).__name__, getattr(v, name)) for name in VOTE_FIELDS],
            marshal.loads(v.result()) if isinstance(v, PackedVote) else None,
        )
        for v in a.votes
    ]
    return (fields, type(a.votes).__name__, votes)


VOTE_FIELDS = tuple(Vote.__dataclass_fields__)


def indexes(side: Side) -> list[Any]:
    """The store's activity indexes and each organization's own, by id."""
    store = side.emu.world.store
    return [
        [(k, v.activity_id) for k, v in store.activities_by_id.items()],
        [(k, v.activity_id) for k, v in store.activities_by_fingerprint.items()],
        [(o, list(org.activities)) for o, org in store.organizations.items()],
    ]


def assert_same(fast: Side, plain: Side) -> None:
    assert fast.emu.to_document() == plain.emu.to_document()
    assert indexes(fast) == indexes(plain)
    assert calls(fast) == calls(plain)
    assert fast.emu.world.commits == plain.emu.world.commits
    assert fast.emu.world.ids.getstate() == plain.emu.world.ids.getstate()
    assert representation(fast) == representation(plain)


def run_both(steps: list[Step]) -> tuple[Side, Side]:
    fast, plain = Side(True), Side(False)
    for step in steps:
        assert outcome(fast, step) == outcome(plain, step), step
    assert_same(fast, plain)
    assert plain.emu.fused_calls == 0
    return fast, plain


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(STEP, min_size=1, max_size=30))
def test_fused_path_answers_and_records_as_the_plain_path(steps):
    fast, _ = run_both([("sign", 0, 1), *steps])
    assert fast.emu.fused_calls >= 1  # the first signature at least


def test_fused_activities_roll_back_and_restore_as_plain_ones():
    steps: list[Step] = [
        ("checkpoint", 0, 0),
        ("sign", 0, 1),
        ("sign many", 1, 2),
        ("snapshot", 0, 0),
        ("sign transaction", 0, 3),
        ("rollback", 0, 0),
        ("sign", 1, 4),
        ("restore", 0, 0),
        ("sign", 0, 5),
        ("checkpoint", 0, 0),
        *[("sign", k % 2, 10 + k) for k in range(70)],  # past the young window: compacted
        ("rollback", 1, 0),
        ("sign keccak", 0, 6),
    ]
    fast, _ = run_both(steps)
    assert fast.emu.fused_calls == 76


def test_every_fused_type_takes_the_fused_path():
    steps: list[Step] = [
        ("sign", 0, 1),
        ("sign keccak", 1, 2),
        ("sign text", 0, 3),
        ("sign solana", 0, 4),
        ("sign many", 2, 5),
        ("sign transaction", 0, 6),
        ("sign in sub-organization", 0, 7),
    ]
    fast, _ = run_both(steps)
    assert fast.emu.fused_calls == len(steps)


# Each precondition alone: the step that breaks it, then the signature that must fall back.
FALLBACKS: list[tuple[list[Step], Step]] = [
    ([], ("sign bad payload", 1, 0)),
    ([], ("sign short digest", 3, 0)),
    ([], ("sign unknown key", 0, 9)),
    ([], ("sign bad transaction", 1, 0)),
    ([], ("sign V1", 0, 1)),
    ([], ("sign with app proofs", 1, 1)),
    ([("sign", 0, 1)], ("resubmit", 0, 1)),
    ([], ("sign as bob", 0, 1)),
    ([("allow bob", 0, 1)], ("sign as bob", 0, 2)),
    ([("quorum of two", 0, 0)], ("sign", 0, 3)),
    ([("delete account", 0, 0)], ("sign", 0, 4)),
    ([("fault", 0, 0)], ("sign", 0, 5)),
    ([("fault", 1, 0)], ("sign", 0, 6)),
    ([], ("sign in sub-organization as parent", 0, 7)),
    ([("delete root key", 0, 0)], ("sign", 0, 8)),
]


@pytest.mark.parametrize(
    ("before", "step"), FALLBACKS, ids=[s[1][0] + str(s[0]) for s in FALLBACKS]
)
def test_each_precondition_sends_the_call_down_the_plain_path(before, step):
    fast, plain = run_both([("sign", 1, 99), *before])
    taken = fast.emu.fused_calls
    assert outcome(fast, step) == outcome(plain, step)
    assert fast.emu.fused_calls == taken  # not fused
    assert_same(fast, plain)


def _webhook(s: Side) -> None:
    s.emu.create_webhook_endpoint(
        url="http://127.0.0.1:9/hooks",
        name="hooks",
        subscriptions=[{"eventType": "ACTIVITY_UPDATES"}],
    )


def _allowlist(s: Side, client_ip: str) -> None:
    s.emu.set_ip_allowlist(rules=[{"cidr": "10.0.0.0/24"}], enabled=True)
    s.emu.backdoor.set_client_ip(client_ip)


def _mfa(s: Side) -> None:
    s.emu.create_mfa_policy(
        user_id=s.org.user_id,
        mfa_policy_name="signing",
        condition="activity.action == 'SIGN'",
        required_authentication_methods=[{"any": [{"type": "AUTHENTICATION_TYPE_API_KEY"}]}],
        order=1,
    )


def _velocity(s: Side) -> None:
    s.emu.create_velocity_control(
        name="daily ETH",
        identifier="daily_eth",
        data_source={
            "chainAssetTransfer": {
                "definition": [{"caip19": "eip155:1/slip44:60", "decimals": 18}],
                "phase": {"signature": {}},
            }
        },
        aggregation={
            "method": "VELOCITY_CONTROL_AGGREGATION_METHOD_SUM",
            "operator": "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN_OR_EQUAL",
            "threshold": "1.5",
            "window": {"rolling": {"duration": 86400}},
            "groupBy": {"wallet": {}},
        },
    )


def _rate_limits(s: Side) -> None:
    s.emu.settings.rate_limits = "enterprise"


SEAMS: dict[str, Callable[[Side], Any]] = {
    "a webhook endpoint": _webhook,
    "an IP allowlist that admits the address": lambda s: _allowlist(s, "10.0.0.7"),
    "an IP allowlist that refuses the address": lambda s: _allowlist(s, "192.0.2.1"),
    "an MFA policy": _mfa,
    "a velocity control": _velocity,
    "rate limits": _rate_limits,
}


@pytest.mark.parametrize("seam", sorted(SEAMS))
def test_each_setting_and_seam_sends_the_call_down_the_plain_path(seam):
    """Rate limits, an IP allowlist, an MFA policy, a velocity control, a webhook endpoint
    (heard by the organization and by its sub-organization) each make every signature plain
    (the counter), with the plain path's outcomes."""
    fast, plain = run_both([("sign", 0, 1)])
    for side in (fast, plain):
        SEAMS[seam](side)
    taken = fast.emu.fused_calls
    for step in [("sign", 0, 2), ("sign many", 1, 3), ("sign in sub-organization", 0, 4)]:
        assert outcome(fast, step) == outcome(plain, step), step
    assert_same(fast, plain)
    sub_heard = seam == "a webhook endpoint"
    # a sub-organization has no allowlist, MFA policy or velocity control of its own: only
    # a webhook endpoint of its parent (and rate limits) keep it plain
    assert fast.emu.fused_calls == taken + (0 if sub_heard or seam == "rate limits" else 1)


def test_a_passkey_or_a_session_key_sends_the_call_down_the_plain_path():
    """A passkey's stamp, and a session key with a profile (its scope judges the call),
    each make the signature plain, with the plain path's outcome."""
    device = VirtualAuthenticator(credential_id=bytes([7]) * 16)
    params = device.authenticator_params("key 7")  # one attestation for both sides
    session = TargetKey.generate(bytes([1]) * 32)
    fast, plain = run_both([("sign", 0, 1)])
    for side in (fast, plain):
        side.emu.create_authenticators(user_id=side.org.user_id, authenticators=[params])
        profile = side.emu.create_session_profile(session_profile_name="scoped", scope="true")
        side.emu.stamp_login(
            public_key=session.compressed_public_key,
            session_profile_id=profile["sessionProfileId"],
        )
    taken = fast.emu.fused_calls
    for i, caller in enumerate((device, session.api_key)):
        fast_answer = attempt(lambda: _sign(fast, 0, 10 + i, NO_OP, caller=caller))  # noqa: B023
        plain_answer = attempt(lambda: _sign(plain, 0, 10 + i, NO_OP, caller=caller))  # noqa: B023
        assert fast_answer == plain_answer
    assert fast.emu.fused_calls == taken
    assert_same(fast, plain)


def test_a_durable_journal_sends_the_call_down_the_plain_path(tmp_path):
    from emulator.state.journal import Journal
    from emulator.state.persistence import StateFile

    fast, plain = run_both([("sign", 0, 1)])
    for name, side in (("fast", fast), ("plain", plain)):
        state = StateFile.create(tmp_path / f"{name}.sqlite", side.emu.to_document())
        Journal(side.emu, state, compact_every=10**9).attach()
    taken = fast.emu.fused_calls
    for step in [("sign", 0, 2), ("sign transaction", 1, 3)]:
        assert outcome(fast, step) == outcome(plain, step), step
    assert fast.emu.fused_calls == taken
    assert_same(fast, plain)
    reread = StateFile.open(tmp_path / "fast.sqlite")
    try:
        assert reread.read() == fast.emu.to_document(archived=False)
    finally:
        reread.close()


def test_the_switch_is_per_emulator():
    on, off = Emulator(seed=1), Emulator(seed=1)
    off.fused = False
    for emu in (on, off):
        emu.create_organization("Acme")
        (address,) = emu.create_wallet(
            wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM", 0)]
        )["addresses"]
        emu.sign_raw_payload(
            sign_with=address, payload=payload(0), encoding=HEX, hash_function=NO_OP
        )
    assert (on.fused_calls, off.fused_calls) == (1, 0)
    assert fused.submit is not None


def test_the_callers_cache_follows_the_key_away_and_back():
    """The fused path's cached caller: gone with its key (the call is then plain and
    refused), back with it (a rollback, a restored snapshot), each time as the plain path."""
    steps: list[Step] = [
        ("sign", 0, 1),
        ("checkpoint", 0, 0),
        ("snapshot", 0, 0),
        ("delete root key", 0, 0),
        ("sign", 0, 2),
        ("rollback", 0, 0),
        ("sign", 0, 3),
        ("delete root key", 0, 0),
        ("restore", 0, 0),
        ("sign", 0, 4),
    ]
    fast, _ = run_both(steps)
    assert fast.emu.fused_calls == 3


SIGNING_SPECS = [
    (op.name, version.activity_type, version.params)
    for op in REGISTRY.values()
    for version in op.versions
    if version.activity_type in FUSED_TYPES
]
FIELD_VALUES = st.one_of(
    st.none(),
    st.just(""),
    st.text(max_size=4),
    st.sampled_from(
        [HEX, NO_OP, KECCAK, "TRANSACTION_TYPE_ETHEREUM", "PAYLOAD_ENCODING_TEXT_UTF8"]
    ),
    st.integers(),
    st.lists(st.text(max_size=2), max_size=2),
)


@settings(deadline=None)
@given(
    st.sampled_from(SIGNING_SPECS),
    st.dictionaries(
        st.sampled_from(
            [
                "signWith",
                "payload",
                "payloads",
                "encoding",
                "hashFunction",
                "type",
                "unsignedTransaction",
                "externalSignerPubkey",
                "other",
            ]
        ),
        FIELD_VALUES,
    ),
)
def test_the_flat_check_is_the_schema_check(named, value):
    """``_checked`` answers ``schema.check``'s cleaned value, or None where it finds any
    violation, for every fused version's parameters."""
    spec = named[2]
    cleaned, errors = check(spec, value)
    assert fused._checked(spec, value) == (None if errors else cleaned)


def test_a_handler_that_writes_goes_down_the_plain_path():
    """The fused handler's transaction refuses any change before it is made: a handler that
    writes (none of the listed ones does) is run again by the plain path, in a real one."""
    op = REGISTRY["sign_raw_payload"]
    signs = op.handler

    def writes(ctx, params):
        ctx.tx.put(ctx.org.features, "FEATURE_NAME_TEST_WRITE", "1")
        return signs(ctx, params)

    object.__setattr__(op, "handler", writes)
    try:
        fast, _ = run_both([("sign", 0, 1), ("sign keccak", 1, 2)])
    finally:
        object.__setattr__(op, "handler", signs)
    assert fast.emu.fused_calls == 0
    features = fast.emu.world.store.organizations[fast.org.organization_id].features
    assert features.get("FEATURE_NAME_TEST_WRITE") == "1"  # written once per call, plainly


def test_the_call_log_makes_the_fused_answer_when_first_read():
    """The fused path's log row keeps the answer's parts (``Deferred``) until the call is
    read: then the same answer as the caller's, made once, and aged out as any body."""
    fast = Side(True)
    fast.emu.calls.clear()
    fast.emu.calls.max_bodies = 3
    answers = [_sign(fast, 0, i, NO_OP) for i in range(5)]
    assert fast.emu.fused_calls == 5
    rows = list(fast.emu.calls._entries)
    assert [type(row[14]).__name__ for row in rows] == ["NoneType"] * 2 + ["Deferred"] * 3
    first = fast.emu.calls[-1]
    assert first.result == {"activity": answers[-1]["activity"]}
    assert fast.emu.calls[-1] is first and fast.emu.calls.all()[-1].result is first.result
    assert [c.result for c in fast.emu.calls][:2] == [None, None]
    assert [c.result["activity"] for c in fast.emu.calls.all()[2:]] == [
        a["activity"] for a in answers[2:]
    ]
    _sign(fast, 0, 9, NO_OP)  # the oldest body read (a Call now) ages out as well
    assert [c.result is None for c in fast.emu.calls] == [True] * 3 + [False] * 3
