"""Properties of the policy engine, checked against a small model of it written here.

1. Any set of ALLOW and DENY policies (conditions about the activity and its wallet, ones
   that do not hold, ones that fail to evaluate; consensus absent, held, not held or
   failing), for six activities (wallets, policies, tags, the user's own API keys, a
   root-quorum-only one): a non-root user's activity ends as the model decides (explicit
   deny, completed, consensus needed, implicit deny, with the evaluations it lists, nothing
   changed by a 403), and the root user is never denied. One DENY policy that holds always
   wins.
2. With no policies a non-root user gets the implicit-deny 403 for every schema-valid
   activity of the registry, but for votes (not judged: an unknown fingerprint is the 404)
   and their own credentials; no query is a 403. Under an allow-all policy and DENY probes
   reading every view of the request, everything runs but root-quorum-only activities,
   and no probe crashes the engine (a malformed payload is an evaluation error).
3. Consensus completes exactly at the N-th distinct approval (``approvers.count() >= N``),
   and at the N-th root approval for a root quorum of N; never before.
4. A rejected activity never completes, and a vote on one activity leaves the others alone.
5. Each approval is judged again with every approval so far: an explicit deny that comes
   to hold refuses it (a 403 that changes nothing).

Every example builds its own emulator (cheap: well under a millisecond).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from emulator import Emulator, OrganizationHandle, TurnkeyApiError
from emulator.accounts import account_spec
from emulator.crypto.api_keys import ApiKeyPair
from emulator.ops import ACTIVITY, QUERY, REGISTRY
from emulator.testing import strategies as ts
from emulator.testing.digest import state_digest

from .helpers import add_user, api_key_params, error_of, fails, new_key
from .test_policy_engine import EXPLICIT, IMPLICIT, POLICY_ENGINE

COMPLETED = "ACTIVITY_STATUS_COMPLETED"
CONSENSUS_NEEDED = "ACTIVITY_STATUS_CONSENSUS_NEEDED"
REJECTED = "ACTIVITY_STATUS_REJECTED"
APPROVED_VOTE = "VOTE_SELECTION_APPROVED"
REJECTED_VOTE = "VOTE_SELECTION_REJECTED"

OUTCOME_ALLOW = "OUTCOME_ALLOW"
OUTCOME_DENY = "OUTCOME_DENY_EXPLICIT"
OUTCOME_CONSENSUS = "OUTCOME_REQUIRES_CONSENSUS"
OUTCOME_ERROR = "OUTCOME_ERROR"

NOT_FOUND = (
    "No activity found with fingerprint. Consensus activities must target an existing "
    "activity by fingerprint"
)
NO_POLICY_ALLOWED = "No policies evaluated to outcome: Allow"
CREATE_WALLET = "activity.resource == 'WALLET' && activity.action == 'CREATE'"


# ----- an organization for one example ------------------------------------------------


@dataclass
class Org:
    emu: Emulator
    root: OrganizationHandle
    users: list[tuple[str, ApiKeyPair]]  # non-root users with one P-256 API key each
    wallet_id: str = ""  # the wallet "target", when made


def new_org(users: int, *, target_wallet: bool = False) -> Org:
    emu = Emulator(seed=0)
    root = emu.create_organization()
    org = Org(emu, root, [add_user(emu, f"user {i}") for i in range(users)])
    if target_wallet:
        org.wallet_id = emu.create_wallet(wallet_name="target", accounts=[])["walletId"]
    return org


def wallet_names(emu: Emulator) -> list[str]:
    return sorted(w["walletName"] for w in emu.get_wallets()["wallets"])


# ----- the model: what the user attempts, the conditions and consensus about it ----------


@dataclass(frozen=True)
class Attempt:
    """An activity a user attempts: the facts policies read (None: absent, reading it is
    an evaluation error), how to run it as ``caller`` (``who`` keeps names apart), what it
    changes and how."""

    type: str
    kind: str | None
    resource: str | None
    action: str | None
    run: Callable[[Org, object, str], dict]
    observe: Callable[[Org], list[str]]
    change: Callable[[list[str], str], list[str]]
    on_wallet: bool = False  # the request names the wallet "target": ``wallet`` is in the env
    self_service: bool = False  # the user's own credentials
    root_only: bool = False  # only the root quorum may run it

    def __repr__(self) -> str:
        return self.type


def _names(listing: str, key: str, name: str) -> Callable[[Org], list[str]]:
    return lambda org: sorted(item[name] for item in org.emu.call(listing)[key])


def _added(before: list[str], name: str) -> list[str]:
    return sorted([*before, name])


ATTEMPTS = [
    Attempt(
        "ACTIVITY_TYPE_CREATE_WALLET",
        "CREATE_WALLET",
        "WALLET",
        "CREATE",
        lambda org, caller, who: org.emu.create_wallet(
            wallet_name=f"wallet by {who}", accounts=[], caller=caller
        ),
        lambda org: wallet_names(org.emu),
        lambda before, who: _added(before, f"wallet by {who}"),
    ),
    Attempt(
        "ACTIVITY_TYPE_UPDATE_WALLET",
        "UPDATE_WALLET",
        "WALLET",
        "UPDATE",
        lambda org, caller, who: org.emu.update_wallet(
            wallet_id=org.wallet_id, wallet_name=f"renamed by {who}", caller=caller
        ),
        lambda org: wallet_names(org.emu),
        lambda before, who: [f"renamed by {who}"],
        on_wallet=True,
    ),
    Attempt(
        "ACTIVITY_TYPE_CREATE_POLICY_V3",
        "CREATE_POLICY",
        "POLICY",
        "CREATE",
        lambda org, caller, who: org.emu.create_policy(
            policy_name=f"policy by {who}",
            effect="EFFECT_ALLOW",
            condition="false",
            notes="",
            caller=caller,
        ),
        _names("list_policies", "policies", "policyName"),
        lambda before, who: _added(before, f"policy by {who}"),
    ),
    Attempt(
        "ACTIVITY_TYPE_CREATE_USER_TAG",
        "CREATE_USER_TAG",
        "USER",
        "CREATE",
        lambda org, caller, who: org.emu.create_user_tag(
            user_tag_name=f"tag by {who}", user_ids=[], caller=caller
        ),
        _names("list_user_tags", "userTags", "tagName"),
        lambda before, who: _added(before, f"tag by {who}"),
    ),
    Attempt(  # an API key for the user themself (also when root makes it)
        "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
        "CREATE_API_KEYS",
        "CREDENTIAL",
        "CREATE",
        lambda org, caller, who: org.emu.create_api_keys(
            user_id=org.users[0][0],
            api_keys=[api_key_params(new_key(), f"key by {who}")],
            caller=caller,
        ),
        lambda org: sorted(
            k["apiKeyName"] for k in org.emu.get_api_keys(user_id=org.users[0][0])["apiKeys"]
        ),
        lambda before, who: _added(before, f"key by {who}"),
        self_service=True,
    ),
    Attempt(
        "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME",
        None,
        None,
        None,
        lambda org, caller, who: org.emu.update_organization_name(
            organization_name=f"named by {who}", caller=caller
        ),
        lambda org: [org.emu.get_whoami()["organizationName"]],
        lambda before, who: [f"named by {who}"],
        root_only=True,
    ),
]


@dataclass(frozen=True)
class Expr:
    """A condition or consensus: its text (``{wallet}``, ``{me}``, ``{other}`` and
    ``{my_key}`` filled in per example) and its value for an attempt: True, False or
    None when it fails to evaluate (or is about a target the request does not have).
    ``listed``: when it fails, the engine surely evaluated it (it lists OUTCOME_ERROR)."""

    text: str | None
    value: Callable[[Attempt], bool | None]
    listed: bool = False

    def __repr__(self) -> str:
        return repr(self.text)


# Three-valued logic of the model: None is an evaluation error, and nothing short-circuits.
def _is(a: Attempt, name: str, *values: str) -> bool | None:
    fact = getattr(a, name)
    return None if fact is None else fact in values


def _both(*values: bool | None) -> bool | None:
    return None if None in values else all(values)


def _either(*values: bool | None) -> bool | None:
    return None if None in values else any(values)


def _not(value: bool | None) -> bool | None:
    return None if value is None else not value


def _wallet(a: Attempt) -> bool | None:
    return True if a.on_wallet else None


CONDITIONS = [
    Expr("true", lambda a: True),
    Expr("false", lambda a: False),
    Expr("activity.type != ''", lambda a: True),
    Expr("activity.resource == 'WALLET'", lambda a: _is(a, "resource", "WALLET")),
    Expr("activity.action == 'CREATE'", lambda a: _is(a, "action", "CREATE")),
    Expr(
        "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'",
        lambda a: a.type == "ACTIVITY_TYPE_CREATE_WALLET",
    ),
    Expr(
        "activity.type == 'ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME'",
        lambda a: a.type == "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME",
    ),
    Expr("activity.kind == 'CREATE_POLICY'", lambda a: _is(a, "kind", "CREATE_POLICY")),
    Expr(CREATE_WALLET, lambda a: _both(_is(a, "resource", "WALLET"), _is(a, "action", "CREATE"))),
    Expr(
        "activity.resource == 'USER' && activity.action == 'CREATE'",
        lambda a: _both(_is(a, "resource", "USER"), _is(a, "action", "CREATE")),
    ),
    Expr("activity.resource == 'CREDENTIAL'", lambda a: _is(a, "resource", "CREDENTIAL")),
    Expr("activity.action == 'DELETE'", lambda a: _is(a, "action", "DELETE")),
    Expr("activity.action != 'CREATE'", lambda a: _not(_is(a, "action", "CREATE"))),
    Expr("!(activity.resource != 'WALLET')", lambda a: _is(a, "resource", "WALLET")),
    Expr("'POLICY' == activity.resource", lambda a: _is(a, "resource", "POLICY")),
    Expr(
        "activity.resource in ['WALLET', 'POLICY']",
        lambda a: _is(a, "resource", "WALLET", "POLICY"),
    ),
    Expr(
        "(activity.resource == 'WALLET') && (activity.action == 'UPDATE')",
        lambda a: _both(_is(a, "resource", "WALLET"), _is(a, "action", "UPDATE")),
    ),
    # Fail to evaluate: no private key here; a type error; no short-circuit.
    Expr("private_key.id == 'x'", lambda a: None),
    Expr("true || private_key.id == 'x'", lambda a: None, listed=True),
    Expr("activity.type == 1", lambda a: None),
    # About the wallet: hold for the request on it, fail to evaluate for the others.
    Expr("wallet.id == '{wallet}'", _wallet),
    Expr("wallet.id == 'x'", lambda a: False if a.on_wallet else None),
    Expr("wallet.id != 'x'", _wallet, listed=True),
    Expr("wallet.label == 'target'", _wallet),  # placed by label, as by id
    Expr("wallet.label != 'x'", _wallet, listed=True),
    Expr("wallet.id in ['x', '{wallet}']", _wallet),
    Expr(
        "wallet.id == '{wallet}' || activity.resource == 'USER'",
        lambda a: _either(_wallet(a), _is(a, "resource", "USER")),
        listed=True,
    ),
    Expr(
        "activity.resource == 'WALLET' && wallet.id == '{wallet}'",
        lambda a: _both(_is(a, "resource", "WALLET"), _wallet(a)),
    ),
]

CONSENSUSES = [
    Expr(None, lambda a: True),
    Expr("approvers.any(user, user.id == '{me}')", lambda a: True),
    Expr("approvers.any(user, user.id == '{other}')", lambda a: False),
    Expr("approvers.count() >= 1", lambda a: True),
    Expr("approvers.count() >= 2", lambda a: False),
    Expr("credentials.any(credential, credential.public_key == '{my_key}')", lambda a: True),
    Expr("credentials.any(credential, credential.type == 'CREDENTIAL_TYPE_X')", lambda a: False),
    Expr("approvers.any(user, user.nope == 'x')", lambda a: None),
]

ALLOW, DENY = "EFFECT_ALLOW", "EFFECT_DENY"


@dataclass(frozen=True)
class Rule:
    effect: str
    condition: Expr
    consensus: Expr


rules = st.builds(
    Rule, st.sampled_from((ALLOW, DENY)), st.sampled_from(CONDITIONS), st.sampled_from(CONSENSUSES)
)


def outcome(rule: Rule, attempt: Attempt) -> str | None:
    """The model of one policy's part in a one-approval request (None: no part at all)."""
    held = rule.condition.value(attempt)
    if held is False:
        return None
    if held is None:
        return OUTCOME_ERROR
    agreed = rule.consensus.value(attempt)
    if agreed is None:
        return OUTCOME_ERROR
    if rule.effect == DENY:
        return OUTCOME_DENY if agreed else None
    return OUTCOME_ALLOW if agreed else OUTCOME_CONSENSUS


SHORT = {EXPLICIT: "403 explicit deny", IMPLICIT: "403 implicit deny"}


def decision(outcomes: list[str | None], attempt: Attempt | None = None) -> str:
    """The model's decision for a non-root proposer, from the policies' outcomes."""
    if OUTCOME_DENY in outcomes:
        return EXPLICIT
    if attempt is not None and attempt.root_only:
        return IMPLICIT  # no policy grants it
    if OUTCOME_ALLOW in outcomes:
        return COMPLETED
    if attempt is not None and attempt.self_service:
        return COMPLETED
    if OUTCOME_CONSENSUS in outcomes:
        return CONSENSUS_NEEDED
    return IMPLICIT


def install(org: Org, policies: list[Rule]) -> list[str]:
    """Create the policies (as root) with the example's ids filled in; their ids."""
    (me_id, me), (other_id, _) = org.users[0], org.users[1]

    def filled(text: str) -> str:
        for name, value in (
            ("{wallet}", org.wallet_id),
            ("{me}", me_id),
            ("{other}", other_id),
            ("{my_key}", me.public_key),
        ):
            text = text.replace(name, value)
        return text

    ids = []
    for i, rule in enumerate(policies):
        expressions = {"condition": filled(str(rule.condition.text))}
        if rule.consensus.text is not None:
            expressions["consensus"] = filled(rule.consensus.text)
        made = org.emu.create_policy(
            policy_name=f"rule {i}", effect=rule.effect, notes="", **expressions
        )
        ids.append(made["policyId"])
    return ids


def check_evaluations(
    listed: list[dict], ids: list[str], policies: list[Rule], attempt: Attempt
) -> None:
    """The evaluations an activity or an implicit deny lists: each policy that took part,
    at most once, in the organization's order; every one whose condition held with its
    model outcome; none whose condition was false; errors only where the model fails."""
    got = {e["policyId"]: e["outcome"] for e in listed}
    assert len(got) == len(listed)
    assert [e["policyId"] for e in listed] == [p for p in ids if p in got]
    for policy_id, rule in zip(ids, policies, strict=True):
        expected = outcome(rule, attempt)
        if expected == OUTCOME_ERROR:
            assert got.get(policy_id, OUTCOME_ERROR) == OUTCOME_ERROR
            surely = rule.condition.listed or rule.condition.value(attempt) is True
            if surely:
                assert got.get(policy_id) == OUTCOME_ERROR, (rule, listed)
        else:
            assert got.get(policy_id) == expected, (rule, listed)


def attempt_as_user_and_root(attempt: Attempt, policies: list[Rule]) -> str:
    """Run ``attempt`` under ``policies`` as a non-root user (checked against the model),
    then as root (always completed); the model's decision for the user."""
    org = new_org(2, target_wallet=True)
    ids = install(org, policies)
    emu, (_, me) = org.emu, org.users[0]
    expected = decision([outcome(rule, attempt) for rule in policies], attempt)
    event(f"decision: {SHORT.get(expected, expected)}")
    before = attempt.observe(org)
    if expected in (EXPLICIT, IMPLICIT):
        error = fails(emu, attempt.run, org, me, "user")
        assert error_of(error) == (403, 7, expected, "")
        if expected == EXPLICIT:
            assert error.details == []
        else:
            (detail,) = error.details
            assert (detail["@type"], detail["message"]) == (POLICY_ENGINE, NO_POLICY_ALLOWED)
            check_evaluations(detail["policyEvaluations"], ids, policies, attempt)
    else:
        activity = attempt.run(org, me, "user")["activity"]
        assert activity["status"] == expected
        after = attempt.observe(org)
        assert after == (attempt.change(before, "user") if expected == COMPLETED else before)
        (evaluation,) = emu.get_policy_evaluations(activity_id=activity["id"])["policyEvaluations"]
        check_evaluations(evaluation["policyEvaluations"], ids, policies, attempt)
    # The root quorum (the root user alone) bypasses every policy.
    before = attempt.observe(org)
    assert attempt.run(org, org.root, "root")["activity"]["status"] == COMPLETED
    assert attempt.observe(org) == attempt.change(before, "root")
    return expected


# ----- 1. explicit deny wins; the engine agrees with the model ----------------------------


@settings(max_examples=1000, deadline=None)
@given(attempt=st.sampled_from(ATTEMPTS), policies=st.lists(rules, max_size=6))
def test_any_set_of_policies_decides_as_the_model_says(attempt, policies) -> None:
    attempt_as_user_and_root(attempt, policies)


@settings(max_examples=500, deadline=None)
@given(attempt=st.sampled_from(ATTEMPTS), others=st.lists(rules, max_size=6), data=st.data())
def test_a_deny_policy_that_holds_always_wins(attempt, others, data) -> None:
    """Whatever else there is (ALLOW policies that hold, errors, consensus pending), one
    DENY policy whose condition and consensus hold is the explicit 403 for the user."""
    holding = data.draw(st.sampled_from([c for c in CONDITIONS if c.value(attempt) is True]))
    agreed = data.draw(st.sampled_from([c for c in CONSENSUSES if c.value(attempt) is True]))
    at = data.draw(st.integers(0, len(others)))
    policies = [*others[:at], Rule(DENY, holding, agreed), *others[at:]]
    assert attempt_as_user_and_root(attempt, policies) == EXPLICIT


# ----- 2. no policies: implicit deny but for reads, votes and one's own credentials -------

FEW = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
JUDGED = [
    pytest.param(op.name, v.activity_type, id=v.activity_type)
    for op in REGISTRY.values()
    if op.kind == ACTIVITY and op.vote_selection is None
    for v in op.versions
]
VOTES = [name for name, op in REGISTRY.items() if op.vote_selection is not None]
QUERIES = [name for name, op in REGISTRY.items() if op.kind == QUERY]


@pytest.mark.parametrize(("name", "activity_type"), JUDGED)
@FEW
@given(data=st.data())
def test_with_no_policies_a_user_may_only_manage_their_own_credentials(
    name, activity_type, data
) -> None:
    org = new_org(2)
    emu, (me_id, me), (other_id, _) = org.emu, org.users[0], org.users[1]
    op = REGISTRY[name]
    overrides = {}
    if op.self_service:
        overrides["userId"] = st.sampled_from((me_id, other_id)) | st.uuids().map(str)
    params = data.draw(ts.parameters(name, activity_type, overrides=overrides))
    own = op.self_service and params["userId"] == me_id
    event("own credentials" if own else "judged")

    def attempt() -> dict:
        return emu.call(name, params, activity_type=activity_type, caller=me)

    if not own:
        error = fails(emu, attempt)
        assert error_of(error) == (403, 7, IMPLICIT, "")
        assert error.details == [
            {"@type": POLICY_ENGINE, "message": NO_POLICY_ALLOWED, "policyEvaluations": []}
        ]
        return
    before = state_digest(emu)
    try:
        out = attempt()
    except TurnkeyApiError as error:  # the handler's answer, never the engine's
        assert error.status != 403 and error.code != 7, error_of(error)
        assert state_digest(emu) == before
    else:
        assert out["activity"]["status"] == COMPLETED


@pytest.mark.parametrize("name", VOTES)
@FEW
@given(data=st.data())
def test_votes_are_not_judged_an_unknown_fingerprint_is_a_404(name, data) -> None:
    org = new_org(1)
    params = data.draw(ts.parameters(name))
    error = fails(org.emu, org.emu.call, name, params, caller=org.users[0][1])
    assert error_of(error) == (404, 5, NOT_FOUND, "")


@pytest.mark.parametrize("name", QUERIES)
@FEW
@given(data=st.data())
def test_with_no_policies_a_user_may_read_anything(name, data) -> None:
    org = new_org(1)
    params = data.draw(ts.parameters(name))
    try:
        org.emu.call(name, params, caller=org.users[0][1])
    except TurnkeyApiError as error:
        assert error.status != 403 and error.code != 7, error_of(error)


# ----- 2b. an allow-all policy: the engine refuses only root-quorum-only activities -----

# DENY policies that read every view the environment has (the activity's params, its
# targets, the transaction or typed data being signed): on random requests they may only be
# false or fail to evaluate, never deny nor crash the engine.
PROBES = [
    "activity.params.nothing == 1",
    "activity.params != activity.params",
    "wallet.label == 'never' && wallet_account.address == 'never'",
    "wallets.count() < 0",
    "private_key.tags.count() < 0",
    "eth.tx.nonce < 0",
    "eth.eip_712.primary_type == 'never'",
    "solana.tx.recent_blockhash == 'never'",
    "eth.eip_7702_authorization.nonce < 0",
]
_JSONISH = st.sampled_from(
    ("{}", "[]", "1", "null", '{"types": {}}', '{"chainId": "x", "nonce": 1}', '"0x"')
)
PAYLOADS = st.one_of(
    st.text(min_size=1, max_size=40),
    _JSONISH,
    ts.eip712_documents().map(json.dumps),
    st.binary(min_size=1, max_size=64).map(lambda b: "0x" + b.hex()),
)
UNSIGNED = st.one_of(
    st.text(min_size=1, max_size=40),
    st.binary(min_size=1, max_size=80).map(bytes.hex),
    st.binary(max_size=60).map(lambda b: "02" + b.hex()),
)


def _probe_overrides(name: str, activity_type: str, signers: list[str], wallet_id: str):
    version = REGISTRY[name].version(activity_type)
    assert version is not None
    fields = set(version.params.fields)
    signer = st.sampled_from(signers) | st.text(min_size=1, max_size=20)
    wanted = {
        "signWith": signer,
        "privateKeyId": signer,
        "payload": PAYLOADS,
        "payloads": st.lists(PAYLOADS, min_size=1, max_size=3),
        "unsignedTransaction": UNSIGNED,
        "walletId": st.just(wallet_id) | st.uuids().map(str),
    }
    return {k: v for k, v in wanted.items() if k in fields}


@pytest.mark.parametrize(("name", "activity_type"), JUDGED)
@FEW
@given(data=st.data())
def test_an_allow_all_policy_grants_all_but_root_quorum_activities(
    name, activity_type, data
) -> None:
    """Under ALLOW ``true`` and DENY probes that read every view of the request, a user's
    schema-valid activity runs (COMPLETED, or the handler's 4xx that changes nothing): the
    probes only fail to evaluate or are false, and never crash the engine; an activity
    only the root quorum may run is the implicit 403 whatever allows it."""
    org = new_org(1)
    emu, (_, me) = org.emu, org.users[0]
    made = emu.create_wallet(
        wallet_name="signer",
        accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM"), account_spec("ADDRESS_FORMAT_SOLANA")],
    )
    key = emu.create_private_keys(
        private_keys=[
            {
                "privateKeyName": "k",
                "curve": "CURVE_SECP256K1",
                "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
                "privateKeyTags": [],
            }
        ]
    )["privateKeys"][0]
    signers = [*made["addresses"], key["privateKeyId"], key["addresses"][0]["address"]]
    emu.create_policy(policy_name="all", effect=ALLOW, condition="true", notes="")
    for i, probe in enumerate(PROBES):
        emu.create_policy(policy_name=f"probe {i}", effect=DENY, condition=probe, notes="")
    overrides = _probe_overrides(name, activity_type, signers, made["walletId"])
    params = data.draw(ts.parameters(name, activity_type, overrides=overrides))

    def attempt() -> dict:
        return emu.call(name, params, activity_type=activity_type, caller=me)

    if REGISTRY[name].root_quorum_only:
        error = fails(emu, attempt)
        assert error_of(error) == (403, 7, IMPLICIT, "")
        return
    before = state_digest(emu)
    try:
        out = attempt()
    except TurnkeyApiError as error:  # the handler's answer, never the engine's
        assert 400 <= error.status < 500 and error.status != 403, error_of(error)
        assert state_digest(emu) == before
    else:
        assert out["activity"]["status"] == COMPLETED


@pytest.mark.parametrize(
    "payload",
    [
        "{}",
        '{"address": "0x12"}',
        '{"address": "0x' + "11" * 20 + '"}',
        "[1]",
        "nope",
    ],
)
def test_a_malformed_eip7702_authorization_is_an_evaluation_error(payload) -> None:
    """A policy reading ``eth.eip_7702_authorization`` of a payload that is none takes no
    part (OUTCOME_ERROR): the user, allowed by another policy, gets the signer's 400 as
    root does."""
    org = new_org(1)
    emu, (_, me) = org.emu, org.users[0]
    address = emu.create_wallet(
        wallet_name="signer", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"][0]
    emu.create_policy(policy_name="all", effect=ALLOW, condition="true", notes="")
    emu.create_policy(
        policy_name="probe",
        effect=DENY,
        condition="eth.eip_7702_authorization.nonce == 0",
        notes="",
    )

    def sign(caller) -> dict:
        return emu.sign_raw_payload(
            sign_with=address,
            payload=payload,
            encoding="PAYLOAD_ENCODING_EIP7702_AUTHORIZATION",
            hash_function="HASH_FUNCTION_NO_OP",
            caller=caller,
        )

    by_root = error_of(fails(emu, sign, org.root))
    assert by_root[:2] == (400, 3)
    assert error_of(fails(emu, sign, me)) == by_root


# ----- 3 and 4. consensus: a model of the votes on one activity ---------------------------


@dataclass
class Ballot:
    """The model of one activity's votes: its proposer approved it; it completes once
    ``threshold`` distinct users of ``counted`` approve (anyone's approval when ``counted``
    is None) or one of ``bypass`` approves, and ends REJECTED at the first rejection."""

    activity_id: str
    threshold: int
    counted: frozenset[str] | None = None
    bypass: frozenset[str] = frozenset()
    votes: list[tuple[str, str]] = field(default_factory=list)
    status: str = CONSENSUS_NEEDED

    def propose(self, proposer: str) -> Ballot:
        self.votes = [(proposer, APPROVED_VOTE)]
        self._settle()
        return self

    def approvals(self) -> set[str]:
        return {
            u
            for u, s in self.votes
            if s == APPROVED_VOTE and (self.counted is None or u in self.counted)
        }

    def _settle(self) -> None:
        if any(s == REJECTED_VOTE for _, s in self.votes):
            self.status = REJECTED
        elif len(self.approvals()) >= self.threshold or any(
            u in self.bypass for u, s in self.votes if s == APPROVED_VOTE
        ):
            self.status = COMPLETED

    def vote(self, user: str, selection: str) -> str | None:
        """Cast a vote; the 400 message it gets, or None when it is answered."""
        mine = next((s for u, s in self.votes if u == user), None)
        if mine is not None:
            return (
                None
                if mine == selection
                else f"user {user} has already voted on activity {self.activity_id}"
            )
        if self.status != CONSENSUS_NEEDED:
            return f"activity {self.activity_id} cannot be voted on: its status is {self.status}"
        self.votes.append((user, selection))
        self._settle()
        return None


def cast(emu: Emulator, ballot: Ballot, fingerprint: str, voter, user_id: str, selection: str):
    """Cast a vote as ``voter`` and check the answer against ``ballot``."""
    method = emu.approve_activity if selection == APPROVED_VOTE else emu.reject_activity
    refused = ballot.vote(user_id, selection)
    if refused is not None:
        error = fails(emu, method, fingerprint=fingerprint, caller=voter)
        assert error_of(error) == (400, 3, refused, "")
        return
    answer = method(fingerprint=fingerprint, caller=voter)["activity"]
    assert answer["id"] == ballot.activity_id
    check_ballot(answer, ballot)


def check_ballot(activity: dict, ballot: Ballot) -> None:
    assert activity["status"] == ballot.status
    assert [(v["userId"], v["selection"]) for v in activity["votes"]] == ballot.votes


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_consensus_completes_exactly_at_the_threshold(data) -> None:
    n = data.draw(st.integers(1, 5), label="N")
    org = new_org(n + 1)
    emu, ids = org.emu, [u for u, _ in org.users]
    emu.create_policy(
        policy_name="N of us",
        effect=ALLOW,
        condition=CREATE_WALLET,
        consensus=f"approvers.count() >= {n}",
        notes="",
    )
    proposal = emu.create_wallet(wallet_name="shared", accounts=[], caller=org.users[0][1])
    activity = proposal["activity"]
    ballot = Ballot(activity["id"], n).propose(ids[0])
    assert ballot.status == (COMPLETED if n == 1 else CONSENSUS_NEEDED)
    check_ballot(activity, ballot)
    # Votes in any order, repeats included, then everyone: the N-th distinct approver
    # completes it.
    voters = data.draw(st.lists(st.integers(0, n), max_size=2 * n), label="first voters")
    voters += data.draw(st.permutations(range(n + 1)), label="then everyone")
    for voter in voters:
        distinct_before = len(ballot.approvals())
        cast(emu, ballot, activity["fingerprint"], org.users[voter][1], ids[voter], APPROVED_VOTE)
        if ballot.status == COMPLETED and distinct_before < n:
            assert len(ballot.approvals()) == n  # completed by exactly the N-th
        assert wallet_names(emu) == (["shared"] if ballot.status == COMPLETED else [])
    assert ballot.status == COMPLETED


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_a_root_quorum_of_n_completes_at_the_n_th_root_approval(data) -> None:
    n = data.draw(st.integers(1, 5), label="N")
    org = new_org(5)
    emu = org.emu
    everyone = [(org.root.user_id, org.root.api_key), *org.users]
    members = data.draw(st.permutations(range(len(everyone))), label="members")[:n]
    emu.update_root_quorum(threshold=n, user_ids=[everyone[i][0] for i in members])
    proposer = everyone[members[0]]
    activity = emu.create_wallet(wallet_name="shared", accounts=[], caller=proposer[1])["activity"]
    ballot = Ballot(activity["id"], n, counted=frozenset(everyone[i][0] for i in members))
    ballot.propose(proposer[0])
    assert ballot.status == (COMPLETED if n == 1 else CONSENSUS_NEEDED)
    check_ballot(activity, ballot)
    # Non-root users may approve too (no policy refuses them) but do not count.
    voters = data.draw(st.lists(st.integers(0, len(everyone) - 1), max_size=2 * n))
    voters += data.draw(st.permutations(members), label="then every member")
    for voter in voters:
        user_id, key = everyone[voter]
        cast(emu, ballot, activity["fingerprint"], key, user_id, APPROVED_VOTE)
        assert wallet_names(emu) == (["shared"] if ballot.status == COMPLETED else [])
    assert ballot.status == COMPLETED


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_rejected_activities_never_complete_and_votes_touch_one_activity(data) -> None:
    """Two proposals, A and B, and votes (approvals and rejections, by users and by root)
    on either: each ends as its own model says, whatever is voted on the other; one
    rejection ends it, and no approval afterwards completes it."""
    n = data.draw(st.integers(2, 4), label="N")
    org = new_org(4)
    emu = org.emu
    emu.create_policy(
        policy_name="N of us",
        effect=ALLOW,
        condition=CREATE_WALLET,
        consensus=f"approvers.count() >= {n}",
        notes="",
    )
    voters = [*org.users, (org.root.user_id, org.root.api_key)]
    root = frozenset({org.root.user_id})
    ballots, fingerprints = {}, {}
    for name, (proposer_id, proposer) in zip("ab", voters, strict=False):
        activity = emu.create_wallet(wallet_name=name, accounts=[], caller=proposer)["activity"]
        ballots[name] = Ballot(activity["id"], n, bypass=root).propose(proposer_id)
        fingerprints[name] = activity["fingerprint"]
    steps = data.draw(
        st.lists(
            st.tuples(
                st.sampled_from("ab"),
                st.integers(0, len(voters) - 1),
                st.sampled_from((APPROVED_VOTE, REJECTED_VOTE)),
            ),
            max_size=12,
        )
    )
    for target, voter, selection in steps:
        was = ballots[target].status
        user_id, key = voters[voter]
        cast(emu, ballots[target], fingerprints[target], key, user_id, selection)
        if was == REJECTED:
            assert ballots[target].status == REJECTED
        for ballot in ballots.values():
            check_ballot(emu.get_activity(activity_id=ballot.activity_id)["activity"], ballot)
        assert wallet_names(emu) == sorted(
            name for name, ballot in ballots.items() if ballot.status == COMPLETED
        )


# ----- 5. every approval is judged again, with every approval so far ---------------------

# Consensus about the set of non-root users who approved (0 proposes; 1, 2, 3 may approve):
# its text, and its value for that set (None: it fails to evaluate).
VOTE_CONSENSUSES: list[tuple[str | None, Callable[[frozenset[int]], bool | None]]] = [
    (None, lambda a: True),
    ("approvers.any(user, user.id == '{u1}')", lambda a: 1 in a),
    ("approvers.count() >= 2", lambda a: len(a) >= 2),
    ("approvers.count() >= 3", lambda a: len(a) >= 3),
    ("approvers.count() == 1", lambda a: len(a) == 1),
    ("approvers.all(user, user.id != '{u2}')", lambda a: 2 not in a),
    (
        "approvers.any(user, user.id == '{u1}') && approvers.any(user, user.id == '{u2}')",
        lambda a: {1, 2} <= a,
    ),
    ("credentials.any(credential, credential.public_key == '{u3_key}')", lambda a: 3 in a),
    ("approvers.any(user, user.nope == 'x')", lambda a: None),
]
VOTE_CONDITIONS: list[tuple[str, bool | None]] = [
    (CREATE_WALLET, True),
    ("true", True),
    ("activity.resource == 'POLICY'", False),
    ("true || private_key.id == 'x'", None),
]


def verdict(rules: list[tuple[str, int, int]], approvers: frozenset[int]) -> str:
    """The model's decision for the proposal with these non-root approvers."""
    outcomes: list[str | None] = []
    for effect, condition, consensus in rules:
        held = VOTE_CONDITIONS[condition][1]
        agreed = VOTE_CONSENSUSES[consensus][1](approvers)
        if held is False:
            outcomes.append(None)
        elif held is None or agreed is None:
            outcomes.append(OUTCOME_ERROR)
        elif effect == DENY:
            outcomes.append(OUTCOME_DENY if agreed else None)
        else:
            outcomes.append(OUTCOME_ALLOW if agreed else OUTCOME_CONSENSUS)
    return decision(outcomes)


@settings(max_examples=500, deadline=None)
@given(
    gate=st.sampled_from((1, 2, 3, 6, 7)),
    bar=st.none() | st.sampled_from((1, 2, 3, 6, 7)),
    others=st.lists(
        st.tuples(
            st.sampled_from((ALLOW, DENY)),
            st.integers(0, len(VOTE_CONDITIONS) - 1),
            st.integers(0, len(VOTE_CONSENSUSES) - 1),
        ),
        max_size=3,
    ),
    voters=st.lists(st.sampled_from((0, 1, 2, 3, "root")), max_size=8),
)
def test_each_approval_is_judged_with_all_the_approvals_so_far(gate, bar, others, voters) -> None:
    """An approval the engine denies (an explicit deny that now holds) is the 403 and
    changes nothing; otherwise it is recorded, and the activity completes once the engine
    allows it; a root approval completes it at once (the root quorum is one). The first
    policy allows the proposal once more approvals come (``gate``), so most wait; a second
    one may deny it once other approvals come (``bar``)."""
    rules = [(ALLOW, 0, gate), *([] if bar is None else [(DENY, 0, bar)]), *others]
    org = new_org(4)
    emu = org.emu
    ids = [u for u, _ in org.users]
    texts = {"{u1}": ids[1], "{u2}": ids[2], "{u3_key}": org.users[3][1].public_key}
    for i, (effect, condition, consensus) in enumerate(rules):
        expressions = {"condition": VOTE_CONDITIONS[condition][0]}
        text = VOTE_CONSENSUSES[consensus][0]
        if text is not None:
            for name, value in texts.items():
                text = text.replace(name, value)
            expressions["consensus"] = text
        emu.create_policy(policy_name=f"rule {i}", effect=effect, notes="", **expressions)

    def propose() -> dict:
        return emu.create_wallet(wallet_name="shared", accounts=[], caller=org.users[0][1])

    approvers = frozenset({0})
    first = verdict(rules, approvers)
    event(f"proposal: {SHORT.get(first, first)}")
    if first in (EXPLICIT, IMPLICIT):
        assert error_of(fails(emu, propose)) == (403, 7, first, "")
        return
    activity = propose()["activity"]
    votes = [(ids[0], APPROVED_VOTE)]
    status = first
    for voter in voters:
        user_id, key = (org.root.user_id, org.root) if voter == "root" else org.users[voter]
        if any(u == user_id for u, _ in votes):  # the same vote again: nothing changes
            answer = emu.approve_activity(fingerprint=activity["fingerprint"], caller=key)
            assert answer["activity"]["status"] == status
        elif status != CONSENSUS_NEEDED:
            error = fails(
                emu, emu.approve_activity, fingerprint=activity["fingerprint"], caller=key
            )
            assert error_of(error) == (
                400,
                3,
                f"activity {activity['id']} cannot be voted on: its status is {status}",
                "",
            )
        else:
            judged = COMPLETED if voter == "root" else verdict(rules, approvers | {voter})
            if judged in (EXPLICIT, IMPLICIT):
                event(f"refused approval: {SHORT[judged]}")
                error = fails(
                    emu, emu.approve_activity, fingerprint=activity["fingerprint"], caller=key
                )
                assert error_of(error) == (403, 7, judged, "")
            else:
                answer = emu.approve_activity(fingerprint=activity["fingerprint"], caller=key)
                votes.append((user_id, APPROVED_VOTE))
                if voter != "root":
                    approvers |= {voter}
                status = judged
                assert answer["activity"]["status"] == status
        got = emu.get_activity(activity_id=activity["id"])["activity"]
        assert got["status"] == status
        assert [(v["userId"], v["selection"]) for v in got["votes"]] == votes
        assert wallet_names(emu) == (["shared"] if status == COMPLETED else [])
