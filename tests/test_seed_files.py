"""Declarative seed files: what they name is there, made as an API client would have."""

from __future__ import annotations

import copy
import json
import sys
import types
from pathlib import Path

import pytest

from emulator import Emulator
from emulator.crypto.api_keys import key_pair_from_private
from emulator.facade.seedfile import QuorumSeed, SeedError, SeedResult
from emulator.ground.errors import TurnkeyApiError
from emulator.http.app import handle
from emulator.state.placeholders import fill
from emulator.state.seedplan import parse

from .helpers import encode, stamped_headers, state_digest

SEEDS = Path(__file__).parent.parent / "emulator" / "seeds"
ABANDON = "abandon " * 11 + "about"
ABANDON_ETH = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
ABANDON_SOL = "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk"
HARDHAT_0 = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
BASIC = json.loads((SEEDS / "basic.json").read_text())
POLICIES = json.loads((SEEDS / "policies.json").read_text())
EXPLICIT_DENY = "policy engine denied request explicitly"
IMPLICIT_DENY = "You don't have sufficient permissions to take this action."
COMPLETED, CONSENSUS_NEEDED = "ACTIVITY_STATUS_COMPLETED", "ACTIVITY_STATUS_CONSENSUS_NEEDED"


def whoami_on_the_wire(emu: Emulator, org_id: str, key) -> dict:
    raw = encode({"organizationId": org_id})
    status, body = handle(
        emu.world, "POST", "/public/v1/query/whoami", stamped_headers(raw, key), raw
    )
    assert status == 200, body
    return json.loads(body)


# ----- the example files --------------------------------------------------------------------


EXAMPLES = sorted(SEEDS.glob("*.json")) + sorted(SEEDS.glob("*.y*ml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_seed_file_applies_and_round_trips(path, tmp_path):
    if path.suffix != ".json":
        pytest.importorskip("yaml")
    emu = Emulator(seed=1)
    result = emu.seed(path)
    assert result.organizations
    for org in result.organizations.values():
        assert emu.get_whoami(organization_id=org.organization_id)["userId"] == org.root_user_id
    emu.save(tmp_path / "state.json")
    assert state_digest(Emulator.load(tmp_path / "state.json")) == state_digest(emu)


def test_basic_seed_file_names_everything_with_the_right_values():
    emu = Emulator(seed=1)
    acme = emu.seed(SEEDS / "basic.json")["Acme"]
    org_id = acme.organization_id
    assert emu.list_users(organization_id=org_id)["users"][0]["userName"] == "Root User"
    assert set(acme.users) == {"Root User", "alice", "bob", "carol"}

    tags = {t["tagName"]: t["tagId"] for t in emu.list_user_tags()["userTags"]}
    assert tags == acme.user_tags and set(tags) == {"admins", "developers"}
    users = {u["userName"]: u for u in emu.list_users()["users"]}
    alice, bob, carol = users["alice"], users["bob"], users["carol"]
    assert alice["userEmail"] == "alice@acme.test" and alice["userTags"] == [tags["admins"]]
    assert (bob["userEmail"], bob["userPhoneNumber"]) == ("bob@acme.test", "+15555550100")
    assert carol["userTags"] == [tags["admins"], tags["developers"]]
    assert acme.users["carol"].tag_ids == carol["userTags"]

    alice_key = acme.users["alice"].api_keys["alice laptop"]
    assert alice_key.key == key_pair_from_private("7f" * 32)
    assert alice["apiKeys"][0]["apiKeyId"] == alice_key.api_key_id
    curves = [k["credential"]["type"] for k in bob["apiKeys"]]
    assert curves == ["CREDENTIAL_TYPE_API_KEY_P256", "CREDENTIAL_TYPE_API_KEY_ED25519"]
    assert set(acme.users["bob"].api_keys) == {"API key 1", "bob ci"}
    (carol_key,) = carol["apiKeys"]
    assert carol_key["expirationSeconds"] == "86400"
    assert carol_key["credential"]["type"] == "CREDENTIAL_TYPE_API_KEY_SECP256K1"
    assert acme.users["carol"].api_keys["carol hsm"].key.private_key == ""

    hot, cold = acme.wallets["hot"], acme.wallets["cold"]
    assert hot.addresses[:2] == [ABANDON_ETH, ABANDON_SOL]
    wallet = emu.get_wallet(wallet_id=hot.wallet_id)["wallet"]
    assert (wallet["walletName"], wallet["imported"]) == ("hot", True)
    accounts = emu.list_wallet_accounts(wallet_id=hot.wallet_id)["accounts"]
    assert [a["path"] for a in accounts] == [
        "m/44'/60'/0'/0/0",
        "m/44'/501'/0'/0'",
        "m/44'/60'/1'/0/0",
    ]
    assert emu.backdoor.mnemonic(hot.wallet_id) == " ".join(ABANDON.split())
    assert len(emu.backdoor.mnemonic(cold.wallet_id).split()) == 24
    assert emu.get_wallet(wallet_id=cold.wallet_id)["wallet"]["imported"] is False
    assert cold.addresses[0].startswith("bc1q")

    key_tags = {t["tagName"]: t["tagId"] for t in emu.list_private_key_tags()["privateKeyTags"]}
    assert key_tags == acme.private_key_tags
    hardhat, solana = acme.private_keys["hardhat-0"], acme.private_keys["solana-signer"]
    assert hardhat.addresses == {"ADDRESS_FORMAT_ETHEREUM": HARDHAT_0}
    assert emu.backdoor.private_key(HARDHAT_0).startswith("ac0974bec39a17e3")
    listed = {k["privateKeyName"]: k for k in emu.list_private_keys()["privateKeys"]}
    assert listed["hardhat-0"]["privateKeyTags"] == [key_tags["treasury"]]
    assert listed["hardhat-0"]["imported"] is True
    assert listed["solana-signer"]["curve"] == "CURVE_ED25519"
    assert listed["solana-signer"]["imported"] is False
    assert solana.tag_ids == [key_tags["ops"]]

    # each thing created through the API has its activity, as a client's would
    types_ = [a["type"] for a in emu.list_activities()["activities"]]
    assert types_.count("ACTIVITY_TYPE_CREATE_USERS_V3") == 3
    assert "ACTIVITY_TYPE_CREATE_WALLET" in types_
    # and the keys work on the wire
    who = whoami_on_the_wire(emu, org_id, alice_key.key)
    assert who["userId"] == acme.users["alice"].user_id
    ed_key = acme.users["bob"].api_keys["bob ci"].key
    assert whoami_on_the_wire(emu, org_id, ed_key)["username"] == "bob"


def test_suborganizations_seed_file():
    emu = Emulator()
    result = emu.seed(SEEDS / "suborgs.json")
    parent, eu, us = (result[n] for n in ("Acme Holdings", "Acme EU", "Acme US"))
    assert list(parent.sub_organizations) == ["Acme EU", "Acme US"]
    assert eu.parent_id == us.parent_id == parent.organization_id
    store = emu.world.store.organizations
    assert store[parent.organization_id].sub_organization_ids == [
        eu.organization_id,
        us.organization_id,
    ]
    assert parent.handle.api_private_key == "3c" * 32
    assert emu.get_whoami()["organizationId"] == parent.organization_id
    assert eu.wallets["eu-hot"].addresses == [ABANDON_ETH, ABANDON_SOL]
    assert us.private_keys["us-settlement"].addresses["ADDRESS_FORMAT_ETHEREUM"].startswith("0x")
    eve = emu.get_user(user_id=eu.users["eve"].user_id, organization_id=eu.organization_id)
    assert eve["user"]["userTags"] == [eu.user_tags["traders"]]
    sam_key = us.users["sam"].api_keys["API key 1"].key
    assert sam_key.curve == "API_KEY_CURVE_SECP256K1"
    assert whoami_on_the_wire(emu, us.organization_id, sam_key)["userId"] == us.users["sam"].user_id


@pytest.mark.parametrize("name", ["basic", "policies"])
def test_a_seeded_emulator_seeds_the_same_every_time(name):
    one, two = Emulator(seed=9), Emulator(seed=9)
    for emu in (one, two):
        emu.clock.freeze(1_700_000_000_000)
    path = SEEDS / f"{name}.json"
    a, b = one.seed(json.loads(path.read_text())), two.seed(path)
    assert a == b and state_digest(one) == state_digest(two)


def test_snake_case_keys_and_a_mapping():
    seed = {
        "organizations": [
            {
                "name": "Tiny",
                "root_user": {"name": "Ada", "email": "ada@tiny.test"},
                "user_tags": ["t"],
                "users": [{"name": "u", "phone_number": "+15555550199", "tags": ["t"]}],
                "wallets": [
                    {"name": "w", "mnemonic_length": 15, "accounts": ["ADDRESS_FORMAT_TRON"]}
                ],
            }
        ]
    }
    emu = Emulator()
    tiny = emu.seed(seed)["Tiny"]
    assert isinstance(emu.seed({"organizations": []}), SeedResult)
    assert tiny.handle.user_name == "Ada"
    assert tiny.wallets["w"].addresses[0].startswith("T")
    assert len(emu.backdoor.mnemonic(tiny.wallets["w"].wallet_id).split()) == 15
    user = emu.get_user(user_id=tiny.users["u"].user_id)["user"]
    assert user["userPhoneNumber"] == "+15555550199"


# ----- policies and the root quorum ---------------------------------------------------------


def test_policies_seed_file_creates_its_policies_with_the_ids_of_what_it_names():
    emu = Emulator(seed=3)
    result = emu.seed(SEEDS / "policies.json")
    acme = result["Acme Treasury"]
    org_id = acme.organization_id
    traders, interns = acme.user_tags["traders"], acme.user_tags["interns"]
    trading = acme.wallets["trading"].wallet_id
    signer = acme.private_keys["ops-signer"].private_key_id
    hot, alice = acme.private_key_tags["hot"], acme.users["alice"].user_id
    listed = emu.get_policies(organization_id=org_id)["policies"]
    got = {
        p["policyName"]: (p["policyId"], p["effect"], p["condition"], p["consensus"], p["notes"])
        for p in listed
    }
    assert got == {
        "traders may create wallets": (
            acme.policies["traders may create wallets"].policy_id,
            "EFFECT_ALLOW",
            "activity.resource == 'WALLET' && activity.action == 'CREATE'",
            f"approvers.any(user, user.tags.contains('{traders}'))",
            "any trader, alone",
        ),
        "traders sign with the trading wallet": (
            acme.policies["traders sign with the trading wallet"].policy_id,
            "EFFECT_ALLOW",
            f"activity.action == 'SIGN' && wallet.id == '{trading}'",
            f"approvers.any(user, user.tags.contains('{traders}'))",
            "",
        ),
        "interns create nothing": (
            acme.policies["interns create nothing"].policy_id,
            "EFFECT_DENY",
            "activity.action == 'CREATE'",
            f"approvers.any(user, user.tags.contains('{interns}'))",
            "",
        ),
        "only alice signs with hot keys": (
            acme.policies["only alice signs with hot keys"].policy_id,
            "EFFECT_ALLOW",
            f"activity.action == 'SIGN' && private_key.tags.contains('{hot}')",
            f"approvers.any(user, user.id == '{alice}')",
            "",
        ),
        "interns never use the ops signer": (
            acme.policies["interns never use the ops signer"].policy_id,
            "EFFECT_DENY",
            f"private_key.id == '{signer}'",
            f"approvers.any(user, user.tags.contains('{interns}'))",
            "",
        ),
    }
    seeded = acme.policies["only alice signs with hot keys"]
    assert (seeded.effect, seeded.consensus, seeded.time) == (
        "EFFECT_ALLOW",
        f"approvers.any(user, user.id == '{alice}')",
        None,
    )
    assert "{{" not in repr(acme.policies)
    # each one its own activity, after everything the policies name
    oldest_first = list(reversed(emu.list_activities(organization_id=org_id)["activities"]))
    types_ = [a["type"] for a in oldest_first]
    assert types_.count("ACTIVITY_TYPE_CREATE_POLICY_V3") == 5
    assert types_[-5:] == ["ACTIVITY_TYPE_CREATE_POLICY_V3"] * 5
    # a sub-organization has its own policies (none here), the parent's stay the parent's
    vault = result["Acme Vault"]
    assert emu.get_policies(organization_id=vault.organization_id)["policies"] == []
    assert vault.policies == {} and acme.root_quorum == QuorumSeed(1, [acme.root_user_id])


def test_seeded_policies_allow_and_deny_the_seeded_users():
    emu = Emulator(seed=3)
    acme = emu.seed(SEEDS / "policies.json")["Acme Treasury"]
    org_id = acme.organization_id
    alice, bob, dave = (
        next(iter(acme.users[name].api_keys.values())).key for name in ("alice", "bob", "dave")
    )
    assert alice == key_pair_from_private("5a" * 32)
    eth = [
        {
            "curve": "CURVE_SECP256K1",
            "pathFormat": "PATH_FORMAT_BIP32",
            "path": "m/44'/60'/0'/0/0",
            "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
        }
    ]

    def create_wallet(key, name):
        return emu.create_wallet(
            wallet_name=name, accounts=eth, organization_id=org_id, caller=key
        )["activity"]["status"]

    def sign(key, sign_with):
        return emu.sign_raw_payload(
            sign_with=sign_with,
            payload="00" * 32,
            encoding="PAYLOAD_ENCODING_HEXADECIMAL",
            hash_function="HASH_FUNCTION_NO_OP",
            organization_id=org_id,
            caller=key,
        )["activity"]["status"]

    def refused(call, *args) -> str:
        with pytest.raises(TurnkeyApiError) as caught:
            call(*args)
        return caught.value.message

    assert create_wallet(alice, "alice's") == COMPLETED  # a trader: allowed
    assert refused(create_wallet, bob, "bob's") == EXPLICIT_DENY  # a trader, but an intern
    assert create_wallet(dave, "dave's") == CONSENSUS_NEEDED  # waits for a trader's approval
    assert create_wallet(acme.handle.api_key, "root's") == COMPLETED  # the root quorum

    trading = acme.wallets["trading"].addresses[0]
    vault = acme.wallets["vault"].addresses[0]
    signer = acme.private_keys["ops-signer"].private_key_id
    assert sign(alice, trading) == COMPLETED
    assert refused(sign, alice, vault).startswith(IMPLICIT_DENY)
    assert sign(alice, signer) == COMPLETED
    assert refused(sign, bob, signer) == EXPLICIT_DENY
    assert sign(dave, signer) == CONSENSUS_NEEDED  # waits for alice's approval


def test_the_root_quorum_is_set_last():
    emu = Emulator(seed=5)
    result = emu.seed(SEEDS / "policies.json")
    vault = result["Acme Vault"]
    vera = vault.users["vera"]
    configs = emu.get_organization_configs(organization_id=vault.organization_id)["configs"]
    assert configs["quorum"] == {"threshold": 2, "userIds": [vault.root_user_id, vera.user_id]}
    assert vault.root_quorum == QuorumSeed(2, [vault.root_user_id, vera.user_id])
    types_ = [
        a["type"] for a in emu.list_activities(organization_id=vault.organization_id)["activities"]
    ]
    assert types_[0] == "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM"  # the newest
    # from now on the facade (the root user) needs a second root approval there
    proposal = emu.create_wallet(
        wallet_name="later", accounts=[], organization_id=vault.organization_id
    )["activity"]
    assert proposal["status"] == CONSENSUS_NEEDED
    done = emu.approve_activity(
        fingerprint=proposal["fingerprint"],
        organization_id=vault.organization_id,
        caller=vera.api_keys["API key 1"].key,
    )["activity"]
    assert done["status"] == COMPLETED


def test_a_quorum_of_two_on_an_organization_with_everything_else_seeds():
    """Were the quorum set before its organization's policies, wallets or sub-organizations,
    their activities would wait for consensus and the seed would fail."""
    seed = copy.deepcopy(POLICIES)
    acme = seed["organizations"][0]
    acme["rootQuorum"] = {"threshold": 2, "users": ["alice", "Root User", "dave"]}
    result = Emulator().seed(seed)
    treasury = result["Acme Treasury"]
    assert len(treasury.policies) == 5 and set(treasury.wallets) == {"trading", "vault"}
    assert treasury.root_quorum.threshold == 2
    assert treasury.root_quorum.user_ids == [
        treasury.users[name].user_id for name in ("alice", "Root User", "dave")
    ]
    assert result["Acme Vault"].root_quorum.threshold == 2


def test_placeholders_take_snake_case_kinds_spaces_and_the_root_user():
    seed = {
        "organizations": [
            {
                "name": "Tiny",
                "rootUser": {"name": "Ada Root"},
                "userTags": ["ops team"],
                "policies": [
                    {
                        "name": "p",
                        "effect": "EFFECT_ALLOW",
                        "condition": "activity.resource == 'POLICY'",
                        "consensus": "approvers.any(user, user.id == '{{ user : Ada Root }}') ||"
                        " approvers.any(user, user.tags.contains('{{user_tag:ops team}}'))",
                        "time": "time.now >= Timestamp('2020-01-01T00:00:00Z')",
                    }
                ],
            }
        ]
    }
    emu = Emulator()
    tiny = emu.seed(seed)["Tiny"]
    (policy,) = emu.get_policies()["policies"]
    assert policy["consensus"] == (
        f"approvers.any(user, user.id == '{tiny.root_user_id}') ||"
        f" approvers.any(user, user.tags.contains('{tiny.user_tags['ops team']}'))"
    )
    assert tiny.policies["p"].time == "time.now >= Timestamp('2020-01-01T00:00:00Z')"


def test_fill_puts_each_id_in_place():
    (plan,) = parse(
        {
            "organizations": [
                {
                    "name": "A",
                    "wallets": [{"name": "w"}],
                    "policies": [
                        {
                            "name": "p",
                            "effect": "EFFECT_DENY",
                            "condition": "wallet.id == '{{wallet:w}}' || '{{wallet:w}}' == ''",
                        }
                    ],
                }
            ]
        }
    )
    text = plan.policies[0].condition
    assert fill(text, {"wallet": {"w": "W-1"}}) == "wallet.id == 'W-1' || 'W-1' == ''"
    assert fill(None, {}) is None and fill("true", {}) == "true"


# ----- bad seed files ---------------------------------------------------------------------


def _changed(change) -> dict:
    seed = copy.deepcopy(BASIC)
    change(seed["organizations"][0])
    return seed


def _policy(**fields) -> dict:
    """A policy entry, good unless ``fields`` say otherwise (``None`` removes a field)."""
    policy = {"name": "p", "effect": "EFFECT_ALLOW", "condition": "activity.action == 'SIGN'"}
    policy.update(fields)
    return {k: v for k, v in policy.items() if v is not None}


def _set(path: str, value):
    """A change setting ``path`` (dots and list indexes) in the first organization."""

    def change(org):
        *head, last = path.split(".")
        target = org
        for part in head:
            target = target[int(part)] if part.isdigit() else target[part]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value

    return change


BAD = [
    (
        _set("users.0.emali", "x"),
        "organizations[0] ('Acme').users[0] ('alice'): unknown key 'emali'",
    ),
    (
        _set("users.0.tags", ["admin"]),
        "users[0] ('alice').tags[0]: no tag 'admin' in the organization's userTags",
    ),
    (_set("users.1.apiKeys.0", {"name": "x"}), "users[1] ('bob').apiKeys[0]: give publicKey"),
    (
        _set("users.2.apiKeys.0.curve", "API_KEY_CURVE_RSA"),
        "users[2] ('carol').apiKeys[0].curve: must be one of",
    ),
    (
        _set("users.0.apiKeys.0.publicKey", "02" + "11" * 32),
        "users[0] ('alice').apiKeys[0]: publicKey is not the public key of privateKey",
    ),
    (_set("users.1.name", "alice"), "users: two of them are named 'alice'"),
    (
        _set("wallets.0.mnemonic", "abandon " * 12),
        "wallets[0] ('hot').mnemonic: not a valid BIP39 English mnemonic",
    ),
    (
        _set("wallets.0.accounts.0", "ADDRESS_FORMAT_NOPE"),
        "wallets[0] ('hot').accounts[0]: no default path for 'ADDRESS_FORMAT_NOPE'",
    ),
    (
        _set("wallets.0.accounts.2", {"format": "ADDRESS_FORMAT_ETHEREUM", "path": "m/0"}),
        "wallets[0] ('hot').accounts[2]: 'path' does not go with format",
    ),
    (_set("wallets.1.name", "hot"), "wallets: two of them are named 'hot'"),
    (
        _set("privateKeys.0.privateKey", "zz"),
        "privateKeys[0] ('hardhat-0').privateKey: not a 32-byte hex CURVE_SECP256K1 private key",
    ),
    (
        _set("privateKeys.1.tags", ["treasure"]),
        "privateKeys[1] ('solana-signer').tags[0]: no tag 'treasure'",
    ),
    # policies: checked before anything is made, or refused by the API when created
    (
        _set("policies", [{"policyName": "p"}]),
        "organizations[0] ('Acme').policies[0]: unknown key 'policyName'",
    ),
    (_set("policies", [{"name": "p"}]), "policies[0] ('p'): missing 'effect'"),
    (
        _set("policies", [_policy(effect="ALLOW")]),
        "policies[0] ('p').effect: must be one of EFFECT_ALLOW, EFFECT_DENY",
    ),
    (_set("policies", [_policy(), _policy()]), "policies: two of them are named 'p'"),
    (
        _set("policies", [_policy(consensus="approvers.any(u, u.id == '{{user:zed}}')")]),
        "policies[0] ('p').consensus: {{user:zed}}: no user 'zed' in the organization's users",
    ),
    (
        _set("policies", [_policy(condition="wallet.id == '{{wallet:warm}}'")]),
        "policies[0] ('p').condition: {{wallet:warm}}: no wallet 'warm' in the organization's"
        " wallets",
    ),
    (
        _set("policies", [_policy(condition="private_key.id == '{{privateKey:hot}}'")]),
        "{{privateKey:hot}}: no private key 'hot' in the organization's privateKeys",
    ),
    (
        _set("policies", [_policy(consensus="u.tags.contains('{{userTag:treasury}}')")]),
        "{{userTag:treasury}}: no user tag 'treasury' in the organization's userTags",
    ),
    (
        _set("policies", [_policy(condition="'{{privateKeyTag:admins}}' == ''")]),
        "{{privateKeyTag:admins}}: no private key tag 'admins' in the organization's"
        " privateKeyTags",
    ),
    (
        _set("policies", [_policy(condition="'{{group:admins}}' == ''")]),
        "policies[0] ('p').condition: {{group:admins}}: unknown placeholder kind 'group'"
        " (known: privateKey, privateKeyTag, user, userTag, wallet)",
    ),
    (
        _set("policies", [_policy(condition="wallet.id == '{{wallet}}'")]),
        "policies[0] ('p').condition: {{wallet}} is not a {{kind:name}}",
    ),
    (
        _set("policies", [_policy(condition="wallet.id == '{{wallet:hot'")]),
        "policies[0] ('p').condition: a '{{' without its '}}'",
    ),
    (_set("policies", [_policy(notes=7)]), "policies[0] ('p').notes: expected a string"),
    (
        _set("policies", [_policy(condition="activity.action ==")]),
        "organizations[0] ('Acme').policies[0] ('p'): invalid policy condition: Expression"
        " cannot be evaluated: parse error: ",
    ),
    (
        _set(
            "policies",
            [
                _policy(name="fine", consensus="approvers.any(u, u.id == '{{user:alice}}')"),
                _policy(consensus="approvers.any(u, u.id == '{{user:bob}}'"),
            ],
        ),
        "policies[1] ('p'): invalid policy consensus: Expression cannot be evaluated: parse"
        " error: ",
    ),
    (
        _set("rootQuorum", {"threshold": 3, "users": ["Root User", "alice"]}),
        "organizations[0] ('Acme').rootQuorum.threshold: must be a whole number from 1 to the"
        " number of quorum users (2)",
    ),
    (
        _set("rootQuorum", {"threshold": 2}),
        "rootQuorum.threshold: must be a whole number from 1 to the number of quorum users (1)",
    ),
    (_set("rootQuorum", {"threshold": True}), "rootQuorum.threshold: must be a whole number"),
    (_set("rootQuorum", {"threshold": 0}), "rootQuorum.threshold: must be a whole number"),
    (
        _set("rootQuorum", {"threshold": 1, "users": ["alice", "zed"]}),
        "rootQuorum.users[1]: no user 'zed' in the organization's users",
    ),
    (
        _set("rootQuorum", {"threshold": 1, "users": ["alice", "alice"]}),
        "rootQuorum.users: names a user twice",
    ),
    (_set("rootQuorum", {"users": ["alice"]}), "rootQuorum: missing 'threshold'"),
    (_set("users", {}), "organizations[0] ('Acme').users: expected a list"),
    (_set("name", ""), "organizations[0].name: expected a non-empty string"),
    # refused by the API itself, named by the seed file's entry
    (
        _set("users.0.email", "not an email"),
        "organizations[0] ('Acme').users[0] ('alice'): users.0.userEmail",
    ),
    (
        _set(
            "wallets.1.accounts.0.addressFormat",
            "ADDRESS_FORMAT_SOLANA",
        ),
        "wallets[1] ('cold'): invalid address format",
    ),
    (
        _set("privateKeys.1.addressFormats", ["ADDRESS_FORMAT_ETHEREUM"]),
        "privateKeys[1] ('solana-signer'): invalid address format",
    ),
]


@pytest.mark.parametrize(("change", "message"), BAD, ids=[m for _, m in BAD])
def test_bad_seed_files_name_the_bad_entry_and_change_nothing(change, message):
    emu = Emulator(seed=2)
    emu.create_organization("Already here")
    before = state_digest(emu)
    with pytest.raises(SeedError) as caught:
        emu.seed(_changed(change))
    assert message in str(caught.value)
    assert state_digest(emu) == before


def test_an_empty_policies_section_is_fine():
    assert Emulator().seed(_changed(_set("policies", [])))["Acme"].policies == {}


def test_a_bad_policy_in_a_sub_organization_undoes_the_whole_seed():
    seed = copy.deepcopy(POLICIES)
    vault = seed["organizations"][0]["subOrganizations"][0]
    vault["policies"] = [_policy(condition="activity.action == 'SIGN' &&")]
    emu = Emulator(seed=2)
    emu.create_organization("Already here")
    before = state_digest(emu)
    with pytest.raises(SeedError) as caught:
        emu.seed(seed)
    assert str(caught.value).startswith(
        "organizations[0] ('Acme Treasury').subOrganizations[0] ('Acme Vault').policies[0]"
        " ('p'): invalid policy condition: Expression cannot be evaluated: parse error: "
    )
    assert isinstance(caught.value.__cause__, TurnkeyApiError)
    assert state_digest(emu) == before
    assert len(emu.world.store.organizations) == 1


def test_a_failed_seed_keeps_earlier_checkpoints_usable():
    emu = Emulator()
    emu.create_organization("Base")
    mark = emu.checkpoint()
    emu.create_users(
        users=[
            {
                "userName": "x",
                "apiKeys": [],
                "authenticators": [],
                "oauthProviders": [],
                "userTags": [],
            }
        ]
    )
    after_user = state_digest(emu)
    with pytest.raises(SeedError):
        emu.seed(_changed(_set("wallets.0.accounts.0", "ADDRESS_FORMAT_NOPE")))
    with pytest.raises(SeedError):
        emu.seed(_changed(_set("privateKeys.1.addressFormats", ["ADDRESS_FORMAT_ETHEREUM"])))
    assert state_digest(emu) == after_user
    emu.rollback(mark)
    assert len(emu.list_users()["users"]) == 1


@pytest.mark.parametrize(
    ("seed", "message"),
    [
        ({"format": "turnkey-emulator-state"}, "format: not a seed file"),
        ({"version": 2}, "version: seed file version 1 is the only one known"),
        ({"organisations": []}, "unknown key 'organisations'"),
        ({"organizations": [{"name": "A"}, {"name": "A"}]}, "organizations[1] ('A').name: another"),
        (
            {"organizations": [{"name": "A", "subOrganizations": [{"name": "A"}]}]},
            "subOrganizations[0] ('A').name: another organization is named 'A'",
        ),
        (
            {
                "organizations": [
                    {
                        "name": "A",
                        "apiKey": {"publicKey": "02" + "1" * 64, "curve": "API_KEY_CURVE_ED25519"},
                    }
                ]
            },
            "organizations[0] ('A').apiKey.curve: an organization's root key is P-256",
        ),
    ],
)
def test_bad_top_level_and_organization_entries(seed, message):
    with pytest.raises(SeedError) as caught:
        Emulator().seed(seed)
    assert message in str(caught.value)


def test_bad_json_file(tmp_path):
    path = tmp_path / "seed.json"
    path.write_text("{nope")
    with pytest.raises(SeedError, match=r"seed\.json: not valid JSON"):
        Emulator().seed(path)
    path.write_text("[]")
    with pytest.raises(SeedError, match="an object at the top level"):
        Emulator().seed(str(path))


# ----- YAML ---------------------------------------------------------------------------------


def test_yaml_needs_pyyaml(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "yaml", None)  # as if it were not installed
    path = tmp_path / "seed.yaml"
    path.write_text("organizations: []\n")
    with pytest.raises(ImportError, match="pip install pyyaml"):
        Emulator().seed(path)


def test_yaml_files_go_through_pyyaml(tmp_path, monkeypatch):
    fake = types.ModuleType("yaml")
    fake.YAMLError = ValueError
    fake.safe_load = json.loads  # JSON is YAML: enough to see the file take this path
    monkeypatch.setitem(sys.modules, "yaml", fake)
    path = tmp_path / "seed.yml"
    path.write_text(json.dumps(BASIC))
    assert Emulator().seed(path)["Acme"].wallets["hot"].addresses[0] == ABANDON_ETH
    path.write_text("{bad")
    with pytest.raises(SeedError, match="not valid YAML"):
        Emulator().seed(path)


@pytest.mark.parametrize("name", ["basic", "policies"])
def test_yaml_example_matches_the_json_one(name):
    pytest.importorskip("yaml")
    one, two = Emulator(seed=4), Emulator(seed=4)
    for emu in (one, two):
        emu.clock.freeze(1_700_000_000_000)
    assert one.seed(SEEDS / f"{name}.yaml") == two.seed(SEEDS / f"{name}.json")
    assert state_digest(one) == state_digest(two)


def test_secrets_of_a_seed_file_stay_out_of_reprs():
    mnemonic = "abandon " * 11 + "about"
    private_key = "11" * 32
    spec = {
        "organizations": [
            {
                "name": "Acme",
                "wallets": [{"name": "hot", "mnemonic": mnemonic, "accounts": []}],
                "privateKeys": [
                    {"name": "k", "curve": "CURVE_SECP256K1", "privateKey": private_key}
                ],
            }
        ]
    }
    from emulator.facade import seedfile

    emu = Emulator()
    result = emu.seed(spec)
    plans = repr(seedfile.parse(spec))  # what a traceback through the parser would show
    for text in (repr(result), repr(emu), plans):
        assert "abandon" not in text and private_key not in text
