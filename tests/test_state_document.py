"""Saving the whole state to a versioned JSON document and loading it back."""

from __future__ import annotations

import copy
import json
import os
import stat
from pathlib import Path

import pytest

from emulator import Emulator, TurnkeyApiError
from emulator.accounts import account_spec
from emulator.crypto.addresses import AddressOptions
from emulator.engine_state.world import Settings
from emulator.ground.models import Activity
from emulator.http.app import handle
from emulator.state import document

from .helpers import api_key_params, encode, new_key, stamped_headers, state_digest, user_params

SEEDS = Path(__file__).parent.parent / "emulator" / "seeds"
ABANDON = "abandon " * 11 + "about"
ABANDON_ETH = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
ETH = account_spec("ADDRESS_FORMAT_ETHEREUM")
SOL = account_spec("ADDRESS_FORMAT_SOLANA")


def round_trip(emu: Emulator, tmp_path: Path, **kwargs) -> Emulator:
    """Save ``emu``, load it back, and check nothing observable changed."""
    path = tmp_path / "state.json"
    emu.save(path)
    loaded = Emulator.load(path, **kwargs)
    assert state_digest(loaded) == state_digest(emu)
    return loaded


def whoami_on_the_wire(emu: Emulator, org_id: str, key) -> dict:
    raw = encode({"organizationId": org_id})
    status, body = handle(
        emu.world, "POST", "/public/v1/query/whoami", stamped_headers(raw, key), raw
    )
    assert status == 200, body
    return json.loads(body)


def busy_emulator(seed: int | None = 7) -> Emulator:
    """An emulator with something of every kind, deletions and a deleted voter included."""
    return fill_busy(Emulator(seed=seed))


def fill_busy(emu: Emulator) -> Emulator:
    """Make something of every kind in ``emu``, deletions and a deleted voter included."""
    org = emu.create_organization("Acme", user_email="root@acme.test")
    key = new_key("API_KEY_CURVE_SECP256K1")
    made = emu.create_users(
        users=[
            user_params("alice", userEmail="alice@acme.test", userPhoneNumber="+15555550100"),
            user_params("bob", apiKeys=[api_key_params(key, "bob key", expiration="3600")]),
        ]
    )
    alice, bob = made["userIds"]
    tag = emu.create_user_tag(user_tag_name="admins", user_ids=[alice])["userTagId"]
    emu.update_user(user_id=bob, user_name="robert", user_tag_ids=[tag])
    wallet = emu.create_wallet(wallet_name="hot", accounts=[ETH, SOL])
    emu.create_wallet_accounts(
        wallet_id=wallet["walletId"], accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM", 1)]
    )
    emu.backdoor.import_wallet(ABANDON, name="known", accounts=[ETH])
    gone = emu.create_wallet(wallet_name="gone", accounts=[ETH])["walletId"]
    emu.delete_wallets(wallet_ids=[gone], delete_without_export=True)
    pk_tag = emu.create_private_key_tag(private_key_tag_name="ops", private_key_ids=[])
    keys = emu.create_private_keys(
        private_keys=[
            {
                "privateKeyName": name,
                "curve": curve,
                "privateKeyTags": [pk_tag["privateKeyTagId"]],
                "addressFormats": formats,
            }
            for name, curve, formats in (
                ("evm", "CURVE_SECP256K1", ["ADDRESS_FORMAT_ETHEREUM"]),
                ("sol", "CURVE_ED25519", ["ADDRESS_FORMAT_SOLANA"]),
                ("doomed", "CURVE_SECP256K1", []),
            )
        ]
    )["privateKeys"]
    emu.delete_private_keys(private_key_ids=[keys[2]["privateKeyId"]], delete_without_export=True)
    # bob signs an activity with his own key, then is deleted: his vote keeps his record
    emu.create_api_keys(user_id=bob, api_keys=[api_key_params(new_key(), "second")], caller=key)
    emu.delete_users(user_ids=[bob])
    # a rejected call records nothing
    with pytest.raises(TurnkeyApiError):
        emu.create_wallet(wallet_name="hot", accounts=[])
    emu.create_organization("Acme EU", parent_organization_id=org.organization_id)
    return emu


def add_failed_activity(emu: Emulator) -> None:
    """A FAILED activity, as fault injection leaves one (no operation makes one yet)."""
    world = emu.world
    org = next(iter(world.store.organizations.values()))
    now = world.clock.now_ns()
    activity = Activity(
        activity_id=world.ids.uuid7(now // 1_000_000),
        organization_id=org.organization_id,
        activity_type="ACTIVITY_TYPE_CREATE_USERS_V3",
        status="ACTIVITY_STATUS_FAILED",
        intent={"createUsersIntentV3": {"users": [user_params("x")]}},
        result={},
        fingerprint="sha256:" + "ab" * 32,
        timestamp_ms=str(now // 1_000_000),
        created_at=now,
        updated_at=now,
        failure={"code": 13, "message": "injected", "details": []},
    )
    tx = world.transaction()
    world.store.add_activity(tx, org, activity)
    tx.commit()


# ----- round trips ------------------------------------------------------------------------


def test_empty_emulator_round_trips(tmp_path):
    emu = Emulator()
    loaded = round_trip(emu, tmp_path)
    doc = json.loads((tmp_path / "state.json").read_text())
    assert list(doc) == [
        "format",
        "version",
        "warning",
        "organizations",
        "vault",
        "indexOrder",
        "enclave",
        "ids",
        "clock",
        "settings",
        "facade",
    ]
    assert (doc["format"], doc["version"], doc["organizations"]) == (
        "turnkey-emulator-state",
        1,
        [],
    )
    assert "secrets" in doc["warning"]
    org = loaded.create_organization("Acme")  # a loaded empty emulator starts like a new one
    assert loaded.get_whoami()["organizationId"] == org.organization_id


def test_everything_round_trips_and_keeps_working(tmp_path):
    emu = busy_emulator()
    add_failed_activity(emu)
    loaded = round_trip(emu, tmp_path)
    org = next(iter(emu.world.store.organizations.values()))
    assert loaded.get_whoami()["organizationId"] == org.organization_id
    # the deleted voter still shows on his activity
    votes = [
        v
        for a in loaded.list_activities()["activities"]
        for v in a["votes"]
        if v["user"] and v["user"]["userName"] == "robert"
    ]
    assert len(votes) == 1 and votes[0]["user"]["userTags"]
    failed = [
        a for a in loaded.list_activities()["activities"] if a["status"] == "ACTIVITY_STATUS_FAILED"
    ]
    assert failed[0]["failure"]["message"] == "injected"
    # and the same again from the loaded copy (a second generation changes nothing)
    round_trip(loaded, tmp_path)


def test_the_same_state_gives_the_same_document():
    emu = busy_emulator(seed=3)
    doc = emu.to_document()
    assert json.loads(json.dumps(doc)) == doc  # plain JSON, nothing else
    assert Emulator.from_document(doc).to_document() == doc


def test_document_shares_nothing_with_the_live_state():
    emu = busy_emulator()
    before = state_digest(emu)
    doc = emu.to_document()
    doc["organizations"][0]["activities"][0]["intent"].clear()
    doc["organizations"][0]["users"][0]["tagIds"].append("x")
    assert state_digest(emu) == before
    pristine = emu.to_document()
    one, two = Emulator.from_document(pristine), Emulator.from_document(pristine)
    one.create_users(users=[user_params("carol")])
    assert state_digest(two) == before
    assert pristine == emu.to_document()


def test_seed_file_state_and_suborganizations_round_trip(tmp_path):
    emu = Emulator(seed=11)
    seeded = emu.seed(SEEDS / "suborgs.json")
    loaded = round_trip(emu, tmp_path)
    parent, eu = seeded["Acme Holdings"], seeded["Acme EU"]
    orgs = loaded.world.store.organizations
    assert orgs[eu.organization_id].parent_id == parent.organization_id
    assert orgs[parent.organization_id].sub_organization_ids == [
        eu.organization_id,
        seeded["Acme US"].organization_id,
    ]
    # the sub-organization's own root key, and a user's generated key on the wire
    who = loaded.get_whoami(organization_id=eu.organization_id)
    assert who["userId"] == eu.root_user_id
    eve = eu.users["eve"]
    answer = whoami_on_the_wire(loaded, eu.organization_id, eve.api_keys["API key 1"].key)
    assert answer["userId"] == eve.user_id
    wallet = loaded.get_wallet(
        wallet_id=eu.wallets["eu-hot"].wallet_id, organization_id=eu.organization_id
    )
    assert wallet["wallet"]["walletName"] == "eu-hot"


def test_a_seeded_emulator_goes_on_with_the_same_ids_and_keys(tmp_path):
    emu = Emulator(seed=42)
    emu.clock.freeze(1_700_000_000_000)
    emu.create_organization("Acme")
    emu.create_wallet(wallet_name="first", accounts=[ETH])
    loaded = round_trip(emu, tmp_path)
    for twin in (emu, loaded):
        twin.clock.advance(1)
    a = emu.create_wallet(wallet_name="next", accounts=[ETH, SOL])
    b = loaded.create_wallet(wallet_name="next", accounts=[ETH, SOL])
    assert a == b  # same activity id, wallet id, mnemonic, addresses, timestamps
    assert emu.create_organization("More") == loaded.create_organization("More")
    assert emu.world.ids.uuid4() == loaded.world.ids.uuid4()
    assert state_digest(emu) == state_digest(loaded)
    # reset goes back to the seed's beginning, as it would have on the original
    emu.reset()
    loaded.reset()
    assert emu.create_organization("Again") == loaded.create_organization("Again")


def test_unseeded_emulator_goes_on_with_its_own_id_stream(tmp_path):
    emu = Emulator()
    emu.create_organization("Acme")
    loaded = round_trip(emu, tmp_path)
    assert emu.world.ids.uuid4() == loaded.world.ids.uuid4()


def test_signing_after_load_gives_the_same_signatures(tmp_path):
    emu = busy_emulator()
    org_id = next(iter(emu.world.store.organizations))
    org = emu.world.store.organizations[org_id]
    signers = [(a.address, a.curve) for w in org.wallets.values() for a in w.accounts.values()]
    signers += [(k.private_key_id, k.curve) for k in org.private_keys.values()]
    signers += [(k.addresses[0].address, k.curve) for k in org.private_keys.values()]
    assert (ABANDON_ETH, "CURVE_SECP256K1") in signers

    def signatures(twin: Emulator) -> list[tuple]:
        out = []
        for sign_with, curve in signers:
            made = twin.sign_raw_payload(
                sign_with=sign_with,
                payload="hello",
                encoding="PAYLOAD_ENCODING_TEXT_UTF8",
                hash_function="HASH_FUNCTION_NOT_APPLICABLE"
                if curve == "CURVE_ED25519"
                else "HASH_FUNCTION_SHA256",
            )
            out.append((made["r"], made["s"], made["v"]))
        return out

    before = signatures(emu)
    path = tmp_path / "signing.json"
    emu.save(path)
    loaded = Emulator.load(path)
    assert signatures(loaded) == before
    known = next(w.wallet_id for w in org.wallets.values() if w.name == "known")
    assert loaded.backdoor.mnemonic(known) == " ".join(ABANDON.split())


def test_clock_settings_and_address_options_round_trip(tmp_path):
    settings = Settings(max_users_per_organization=3)
    settings.address_options = AddressOptions(p2sh_script="p2pk", ton_bounceable=True)
    emu = Emulator(seed=1, timestamp_window_s=None, settings=settings)
    emu.clock.freeze(1_600_000_000_000)
    emu.create_organization("Acme")
    loaded = round_trip(emu, tmp_path)
    assert loaded.settings == emu.settings
    assert loaded.clock.frozen and loaded.clock.now_ms() == 1_600_000_000_000
    running = Emulator()
    running.clock.advance(3600)
    again = round_trip(running, tmp_path)
    assert abs(again.clock.now_ms() - running.clock.now_ms()) < 60_000
    # options given to load win over the document's
    other = Emulator.load(tmp_path / "state.json", timestamp_window_s=5)
    assert other.settings.timestamp_window_s == 5
    with pytest.raises(TypeError, match="seed"):
        Emulator.load(tmp_path / "state.json", seed=1)


def test_index_orders_the_records_cannot_tell_are_kept(tmp_path):
    """On a frozen clock two holders of one address (or one API key) can share a creation
    time; the document keeps the live order so the same one signs (or is found) after."""
    emu = Emulator(seed=5)
    emu.clock.freeze(1_700_000_000_000)
    shared = new_key()
    first = emu.create_organization("A")
    emu.create_organization("B", api_public_key=shared.public_key)
    emu.create_users(
        users=[user_params("late", apiKeys=[api_key_params(shared)])],
        organization_id=first.organization_id,
    )
    a = emu.backdoor.import_wallet(ABANDON, name="a", accounts=[ETH])
    b = emu.backdoor.import_wallet(
        ABANDON, name="b", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM", 1)]
    )
    emu.create_wallet_accounts(
        wallet_id=a["walletId"], accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM", 1)]
    )
    doc = emu.to_document()
    assert doc["indexOrder"]["apiKeyOwners"] and doc["indexOrder"]["signers"]
    loaded = round_trip(emu, tmp_path)
    org = loaded.world.store.organizations[first.organization_id]
    assert org.signers[b["addresses"][0]][0].wallet_id == b["walletId"]  # b came first
    # on a running clock creation times tell the order: nothing extra is written
    assert busy_emulator().to_document()["indexOrder"] == {"apiKeyOwners": {}, "signers": {}}


def test_the_file_is_for_its_owner_only(tmp_path):
    path = tmp_path / "state.json"
    path.write_text("old")
    path.chmod(0o644)
    emu = busy_emulator()
    emu.save(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    emu.save(str(tmp_path / "new.json"))
    assert stat.S_IMODE(os.stat(tmp_path / "new.json").st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.json", "state.json"]
    text = path.read_text()
    assert ABANDON.strip() in text  # it holds secrets, as its warning says
    assert next(iter(emu.world.store.vault.private_keys.values())).hex() in text


# ----- bad documents -----------------------------------------------------------------------


def _doc() -> dict:
    return busy_emulator().to_document()


def _broken(change) -> dict:
    doc = copy.deepcopy(DOC)
    change(doc)
    return doc


DOC = _doc()


def _drop_mnemonic(doc):
    doc["vault"]["wallets"].popitem()


def _bad_link(doc):
    doc["organizations"][1]["parentId"] = None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="something-else"), "not a turnkey-emulator-state document"),
        (lambda d: d.update(version=2), "version 2 is not supported"),
        (lambda d: d.pop("version"), "version None is not supported"),
        (lambda d: d.update(extra=1), "unknown top-level field 'extra'"),
        (
            lambda d: d["organizations"][0]["users"][0].update(createdAt="yesterday"),
            "organizations[0].users[0].createdAt: expected int, got string",
        ),
        (
            lambda d: d["organizations"][0]["users"][0].pop("name"),
            "organizations[0].users[0]: missing field 'name'",
        ),
        (
            lambda d: d["organizations"][0]["wallets"][0].update(colour="red"),
            "organizations[0].wallets[0]: unknown field 'colour'",
        ),
        (lambda d: d.update(organizations={}), "organizations: expected an array, got object"),
        (_drop_mnemonic, "no valid mnemonic for wallet"),
        (lambda d: d["vault"]["privateKeys"].update(x="00" * 32), "x belongs to nothing"),
        (_bad_link, "names another parent"),
        (lambda d: d["ids"].pop("next"), "ids: not an id source state"),
        (
            lambda d: d["facade"]["callers"][0].update(organizationId="nope"),
            "facade.callers[0]: no organization 'nope'",
        ),
        (
            lambda d: d["indexOrder"]["apiKeyOwners"].update(k=[["o", "u", "x"]]),
            "not an order of what the records hold",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_bad_documents_are_rejected_with_the_place_named(change, message):
    with pytest.raises(ValueError) as caught:
        Emulator.from_document(_broken(change))
    assert message in str(caught.value)


def test_not_json_not_an_object(tmp_path):
    path = tmp_path / "state.json"
    path.write_text("\x80 not json")
    with pytest.raises(ValueError, match="not a JSON state document"):
        Emulator.load(path)
    path.write_text("[]")
    with pytest.raises(ValueError, match="is a JSON object"):
        Emulator.load(path)


def test_voters_of_a_member_point_at_the_member():
    emu = Emulator.from_document(DOC)
    org = next(iter(emu.world.store.organizations.values()))
    for activity in org.activities.values():
        for vote in activity.votes:
            if vote.user_id in org.users:
                assert vote.voter is org.users[vote.user_id]


def test_document_module_says_it_holds_secrets():
    assert "CONTAINS SECRETS" in document.__doc__
    assert "0o600" in document.__doc__
