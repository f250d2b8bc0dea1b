"""The dashboard over plain HTTP: its files, its JSON views, its votes and its guards."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
import requests

from emulator import Emulator
from emulator.dashboard.observations import webhooks_of
from emulator.http.control import Control
from emulator.http.options import WireOptions
from emulator.http.server import serving

from .dashboard_world import TWO_FOR_WALLETS, DashboardWorld, build, secret_strings

API = "/emulator/ui/api/"
TOKEN = "dashboard-token"


@dataclass
class Served:
    world: DashboardWorld
    url: str
    token: str | None = None

    @property
    def emu(self) -> Emulator:
        return self.world.emu

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def view(self, name: str, params: dict | None = None, **kwargs) -> requests.Response:
        headers = {**self.headers(), **kwargs.pop("headers", {})}
        if params is None:
            return requests.get(self.url + API + name, headers=headers, timeout=10, **kwargs)
        return requests.post(
            self.url + API + name, json=params, headers=headers, timeout=10, **kwargs
        )

    def ok(self, name: str, params: dict | None = None) -> dict:
        answer = self.view(name, params)
        assert answer.status_code == 200, answer.text
        assert answer.headers["cache-control"] == "no-store"
        return answer.json()


@contextmanager
def served(token: str | None = None, world: DashboardWorld | None = None) -> Iterator[Served]:
    world = world or build()
    options = WireOptions(control_token=token)
    with serving(world.emu.world, control=Control(world.emu), options=options) as url:
        yield Served(world, url, token)


@pytest.fixture(scope="module")
def site() -> Iterator[Served]:
    """One served world for the read-only tests (the vote tests make their own)."""
    with served() as made:
        yield made


def is_api_error(answer: requests.Response, status: int, code: int) -> bool:
    body = answer.json()
    return (
        answer.status_code == status
        and set(body) == {"code", "message", "details", "turnkeyErrorCode"}
        and body["code"] == code
        and bool(body["message"])
    )


# ----- the page ----------------------------------------------------------------------------


def test_the_root_and_the_ui_path_serve_the_page_with_a_strict_policy(site):
    for path in ("/", "/emulator/ui", "/emulator/ui/"):
        page = requests.get(site.url + path, timeout=10)
        assert page.status_code == 200
        assert page.headers["content-type"] == "text/html; charset=utf-8"
        assert "<title>Turnkey emulator</title>" in page.text
        policy = page.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "default-src 'none'" in policy
        assert page.headers["x-content-type-options"] == "nosniff"
        assert page.headers["referrer-policy"] == "no-referrer"
    script = requests.get(site.url + "/emulator/ui/dashboard.js", timeout=10)
    style = requests.get(site.url + "/emulator/ui/dashboard.css", timeout=10)
    assert script.headers["content-type"].startswith("text/javascript")
    assert style.headers["content-type"].startswith("text/css")
    assert "sessionStorage" in script.text and "Authorization" in script.text


def test_the_page_loads_nothing_from_the_network(site):
    for name in ("", "dashboard.js", "dashboard.css"):
        text = requests.get(site.url + "/emulator/ui/" + name, timeout=10).text
        for reference in ("http://", "https://", "//cdn", "@import"):
            assert reference not in text, (name, reference)


def test_unknown_files_and_other_methods_are_api_errors(site):
    missing = requests.get(site.url + "/emulator/ui/nothing.js", timeout=10)
    assert is_api_error(missing, 404, 5)
    posted = requests.post(site.url + "/emulator/ui/", data=b"{}", timeout=10)
    assert is_api_error(posted, 501, 12)


def test_without_a_control_plane_there_is_no_dashboard():
    emu = Emulator()
    emu.create_organization()
    with serving(emu.world) as url:
        assert requests.get(url + "/", timeout=10).status_code == 404
        assert requests.get(url + API + "version", timeout=10).status_code == 404


# ----- the guard ---------------------------------------------------------------------------


def test_other_hosts_and_origins_are_refused_the_page_and_the_views(site):
    for path in ("/", "/emulator/ui/dashboard.js", API + "overview"):
        rebound = requests.get(site.url + path, headers={"Host": "evil.example"}, timeout=10)
        assert is_api_error(rebound, 403, 7), path
        foreign = requests.get(
            site.url + path, headers={"Origin": "http://evil.example"}, timeout=10
        )
        assert is_api_error(foreign, 403, 7), path
    same = site.view("overview", {}, headers={"Origin": site.url})
    assert same.status_code == 200


def test_with_a_control_token_the_views_need_it_and_the_page_does_not():
    with served(token=TOKEN) as s:
        assert requests.get(s.url + "/", timeout=10).status_code == 200
        for name in ("version", "overview", "outbox"):
            bare = requests.get(s.url + API + name, timeout=10)
            assert is_api_error(bare, 401, 16)
            wrong = requests.get(
                s.url + API + name, headers={"Authorization": "Bearer nope"}, timeout=10
            )
            assert is_api_error(wrong, 401, 16)
            assert s.view(name).status_code == 200
        vote = requests.post(s.url + API + "vote", json={}, timeout=10)
        assert is_api_error(vote, 401, 16)


def test_bad_requests_are_clear_errors_and_change_nothing(site):
    before = site.ok("version")
    text = requests.post(
        site.url + API + "activities",
        data=b"{}",
        headers={"Content-Type": "text/plain"},
        timeout=10,
    )
    assert is_api_error(text, 415, 3)
    not_json = requests.post(
        site.url + API + "activities",
        data=b"{",
        headers={"Content-Type": "application/json"},
        timeout=10,
    )
    assert is_api_error(not_json, 400, 3)
    assert is_api_error(site.view("activities", [1]), 400, 3)  # type: ignore[arg-type]
    assert is_api_error(site.view("nothing", {}), 404, 5)
    assert is_api_error(site.view("vote"), 501, 12)  # a vote is a POST
    assert is_api_error(site.view("activities", {"offset": -1}), 400, 3)
    assert is_api_error(site.view("activities", {"limit": "ten"}), 400, 3)
    assert is_api_error(site.view("organization", {}), 400, 3)
    assert is_api_error(site.view("organization", {"organizationId": "nope"}), 404, 5)
    assert is_api_error(site.view("activity", {"activityId": "nope"}), 404, 5)
    assert is_api_error(site.view("vote", {"decision": "maybe"}), 400, 3)
    assert site.ok("version") == before


# ----- the views ---------------------------------------------------------------------------


def test_the_overview_is_the_tree_of_organizations(site):
    overview = site.ok("overview")
    (acme,) = overview["organizations"]
    assert acme["name"] == "Acme" and acme["users"] == 4 and acme["wallets"] == 2
    assert [child["name"] for child in acme["children"]] == ["Bea's wallet"]
    assert acme["children"][0]["organizationId"] == site.world.sub_org_id
    assert overview["organizationCount"] == 2
    assert overview["webhooks"] is (webhooks_of(site.emu) is not None)
    assert overview["clock"]["frozen"] is False


def test_an_organization_shows_users_with_the_public_parts_of_their_credentials(site):
    org = site.ok("organization", {"organizationId": site.world.org.organization_id})
    users = {user["userName"]: user for user in org["users"]}
    assert set(users) == {"Root User", "ann", "bob", "cy"}
    (ann_key,) = users["ann"]["apiKeys"]
    assert ann_key["credential"]["publicKey"] == site.world.keys["ann"].public_key
    (passkey,) = users["cy"]["authenticators"]
    assert passkey["authenticatorName"] == "cy's laptop"
    (provider,) = users["cy"]["oauthProviders"]
    assert (provider["subject"], provider["audience"]) == ("cy-1", "dashboard-app")
    held = {name for name, user in users.items() if user["keyHeld"]}
    assert held == {"Root User", "ann", "bob"}  # the root key, ann's (a caller) and bob's
    wallets = {wallet["walletName"]: wallet for wallet in org["wallets"]}
    assert wallets["treasury"]["accounts"][0]["address"] == site.world.wallet_address
    assert wallets["treasury"]["accountCount"] == 2
    assert [key["privateKeyName"] for key in org["privateKeys"]] == ["cold"]
    assert [(p["policyName"], p["consensus"]) for p in org["policies"]] == [
        ("two for wallets", TWO_FOR_WALLETS)
    ]


def test_activities_are_pages_newest_first_filtered_by_organization_and_status(site):
    everything = site.ok("activities", {"limit": 3})
    total = len(site.emu.world.store.activities_by_id)
    assert everything["total"] == total and everything["more"] is True
    assert len(everything["activities"]) == 3
    newest = list(site.emu.world.store.activities_by_id)[::-1]
    assert [a["id"] for a in everything["activities"]] == newest[:3]
    second = site.ok("activities", {"limit": 3, "offset": 3})
    assert [a["id"] for a in second["activities"]] == newest[3:6]
    last = site.ok("activities", {"limit": 200, "offset": total - 1})
    assert [a["id"] for a in last["activities"]] == newest[-1:] and last["more"] is False
    waiting = site.ok("activities", {"status": "ACTIVITY_STATUS_CONSENSUS_NEEDED"})
    (row,) = waiting["activities"]
    assert row["id"] == site.world.pending["id"] and row["proposer"] == "ann"
    assert (row["approvals"], row["rejections"]) == (1, 0)
    of_sub = site.ok("activities", {"organizationId": site.world.sub_org_id})
    assert {a["organizationName"] for a in of_sub["activities"]} == {"Bea's wallet"}
    assert of_sub["total"] == len(
        site.emu.world.store.organizations[site.world.sub_org_id].activities
    )


def test_an_activity_shows_its_votes_policy_outcomes_and_who_can_vote(site):
    detail = site.ok("activity", {"activityId": site.world.pending["id"]})
    assert detail["activity"]["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    assert detail["activity"]["fingerprint"] == site.world.pending["fingerprint"]
    (vote,) = detail["votes"]
    assert vote["userName"] == "ann" and vote["selection"] == "VOTE_SELECTION_APPROVED"
    assert vote["policyOutcomes"] == [
        {
            "policyId": vote["policyOutcomes"][0]["policyId"],
            "policyName": "two for wallets",
            "outcome": "OUTCOME_REQUIRES_CONSENSUS",
        }
    ]
    assert {v["userName"] for v in detail["canVoteAs"]} == {"Root User", "bob"}


def test_the_outbox_renders_codes_and_only_http_links(site):
    page = site.ok("outbox")
    assert page["total"] == 3
    otp, evil, login = page["messages"]  # newest first
    assert otp["template"] == "otp" and otp["rendered"]["code"] == otp["fields"]["otpCode"]
    assert otp["rendered"]["code"] in otp["rendered"]["lines"][0]
    assert login["rendered"]["link"].startswith("https://app.example/login?bundle=")
    assert login["rendered"]["subject"] == "Your login link — Acme"
    assert evil["rendered"]["link"] is None
    assert evil["rendered"]["linkText"].startswith("javascript:")
    assert site.ok("outbox", {"limit": 1, "offset": 2})["messages"][0]["id"] == login["id"]


def test_the_call_log_is_newest_first(site):
    page = site.ok("calls", {"limit": 2})
    assert [c["seq"] for c in page["calls"]] == [site.emu.calls.total, site.emu.calls.total - 1]
    assert page["calls"][0]["operation"] == "init_otp"
    assert page["recorded"] == site.emu.calls.total


def test_controls_show_the_clock_and_the_fault_rules(site):
    site.emu.faults.fail_next("sign_raw_payload", status=503, message="later")
    try:
        controls = site.ok("controls")
        (rule,) = controls["faults"]
        assert rule["operation"] == "sign_raw_payload" and rule["remaining"] == 1
        assert controls["clock"]["frozen"] is False
    finally:
        site.emu.faults.clear()


class FakeDelivery:
    """A delivery of the shape ``emu.webhooks`` records (``to_json``, a state, attempts)."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.state = "PENDING"
        self.attempts: list[int] = []

    def to_json(self) -> dict:
        return {"id": f"d{self.number}", "state": self.state, "attempts": self.attempts}


class FakeWebhooks:
    def __init__(self) -> None:
        self.records: list[FakeDelivery] = []

    @property
    def deliveries(self) -> list[FakeDelivery]:
        return list(self.records)

    def __len__(self) -> int:
        return len(self.records)


def test_webhook_deliveries_are_pages_newest_first_and_their_retries_are_seen():
    world = build()
    hooks = FakeWebhooks()
    world.emu.world.webhooks = hooks  # type: ignore[attr-defined]
    with served(world=world) as s:
        hooks.records = [FakeDelivery(i) for i in range(5)]
        page = s.ok("webhooks", {"limit": 2, "offset": 1})
        assert [d["id"] for d in page["deliveries"]] == ["d3", "d2"]
        assert (page["total"], page["more"]) == (5, True)
        before = s.ok("version")
        hooks.records[-1].state, hooks.records[-1].attempts = "DELIVERED", [1]
        assert s.ok("version") != before  # a delivery attempted after it was made


def test_the_webhooks_view_exists_only_where_the_engine_has_webhooks():
    world = build()
    with served(world=world) as s:
        if webhooks_of(world.emu) is None:  # an engine without webhooks: no panel
            assert s.ok("overview")["webhooks"] is False
            assert is_api_error(s.view("webhooks", {}), 404, 5)
        world.emu.world.webhooks = [{"event": "ACTIVITY_COMPLETED", "status": 200}]  # type: ignore[attr-defined]
        assert s.ok("overview")["webhooks"] is True
        page = s.ok("webhooks", {})
        assert page["deliveries"] == [{"event": "ACTIVITY_COMPLETED", "status": 200}]


# ----- live updates ------------------------------------------------------------------------


def test_the_version_changes_with_every_change_and_only_then():
    with served() as s:
        emu = s.emu
        seen = [s.ok("version")["version"]]

        def changed() -> bool:
            now = s.ok("version")["version"]
            new = now != seen[-1]
            seen.append(now)
            return new

        assert not changed()
        emu.create_users(users=[{"userName": "dee"}])
        assert changed()
        emu.backdoor.import_wallet(
            "legal winner thank year wave sausage worth useful legal winner thank yellow",
            name="second",
        )
        assert changed()  # no request: a commit all the same
        mark = emu.checkpoint()
        emu.create_users(users=[{"userName": "eve"}])
        assert changed()
        emu.rollback(mark)
        assert changed()
        emu.clock.advance(60)
        assert changed()
        emu.outbox.clear()
        assert changed()
        emu.faults.fail_next("whoami")
        assert changed()
        saved = emu.snapshot()
        emu.restore(saved)
        assert changed()
        assert not changed()


# ----- votes -------------------------------------------------------------------------------


def test_a_vote_from_the_dashboard_completes_an_activity_stamped_with_the_held_key():
    with served() as s:
        world = s.world
        answer = s.ok(
            "vote",
            {
                "activityId": world.pending["id"],
                "userId": world.user_ids["bob"],
                "decision": "approve",
            },
        )
        assert answer["httpStatus"] == 200
        assert answer["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
        stored = s.emu.world.store.activities_by_id[world.pending["id"]]
        bob_vote = stored.votes[-1]
        assert bob_vote.user_id == world.user_ids["bob"]
        assert bob_vote.public_key == world.keys["bob"].public_key
        assert bob_vote.signature  # a real stamp, not the facade's empty one
        call = s.emu.calls.last(operation="approve_activity")
        assert call is not None and call.user_id == world.user_ids["bob"]
        assert s.ok("activity", {"activityId": world.pending["id"]})["canVoteAs"] == []
        again = s.ok(
            "vote",
            {
                "activityId": world.pending["id"],
                "userId": world.user_ids["bob"],
                "decision": "approve",
            },
        )
        assert again["httpStatus"] == 200  # the API's answer: the same vote changes nothing
        assert len(s.emu.world.store.activities_by_id[world.pending["id"]].votes) == 2
        rejected = s.ok(
            "vote",
            {
                "activityId": world.pending["id"],
                "userId": world.user_ids["bob"],
                "decision": "reject",
            },
        )
        assert rejected["httpStatus"] != 200 and rejected["error"]["message"]


def test_a_rejection_from_the_dashboard_rejects_the_activity():
    with served() as s:
        world = s.world
        answer = s.ok(
            "vote",
            {"activityId": world.pending["id"], "userId": world.org.user_id, "decision": "reject"},
        )
        assert answer["activity"]["status"] == "ACTIVITY_STATUS_REJECTED"


def test_a_vote_as_a_user_whose_key_is_not_held_is_refused_and_changes_nothing():
    with served() as s:
        world = s.world
        before = s.ok("version")
        refused = s.view(
            "vote",
            {
                "activityId": world.pending["id"],
                "userId": world.user_ids["cy"],
                "decision": "approve",
            },
        )
        assert is_api_error(refused, 400, 3)
        assert "holds no API key" in refused.json()["message"]
        assert s.ok("version") == before


# ----- no secret ever --------------------------------------------------------------------


def every_answer(s: Served) -> Iterator[tuple[str, str]]:
    """Every file and JSON view the dashboard serves for this world: (what, text)."""
    for path in ("/", "/emulator/ui/dashboard.js", "/emulator/ui/dashboard.css"):
        yield path, requests.get(s.url + path, timeout=10).text
    for name in ("version", "overview", "controls", "outbox", "calls"):
        yield name, s.view(name, {"limit": 200}).text
    store = s.emu.world.store
    for org_id in store.organizations:
        yield f"organization {org_id}", s.view("organization", {"organizationId": org_id}).text
        yield (
            f"activities of {org_id}",
            s.view("activities", {"organizationId": org_id, "limit": 200}).text,
        )
    for activity_id in store.activities_by_id:
        yield f"activity {activity_id}", s.view("activity", {"activityId": activity_id}).text


def test_no_page_or_view_carries_a_secret():
    with served(token=TOKEN) as s:
        s.ok(
            "vote",
            {
                "activityId": s.world.pending["id"],
                "userId": s.world.user_ids["bob"],
                "decision": "approve",
            },
        )
        secrets = secret_strings(s.emu, TOKEN)
        assert len(secrets) > 40  # mnemonics, account keys, the enclave's, the held API keys
        served_texts = list(every_answer(s))
        assert len(served_texts) > 20
        for what, text in served_texts:
            json.loads(text) if what[0] != "/" else None
            for name, secret in secrets.items():
                assert secret not in text, f"{name} is in {what}"


# ----- serve -------------------------------------------------------------------------------


def test_serve_prints_the_dashboard_address_with_its_token():
    from .test_cli import start

    process, info = start("--control-token", "s3cret word")
    try:
        assert info["dashboardUrl"] == info["baseUrl"] + "/emulator/ui/?token=s3cret+word"
        page = requests.get(info["dashboardUrl"], timeout=10)
        assert page.status_code == 200 and "dashboard.js" in page.text
        overview = requests.get(
            info["baseUrl"] + API + "overview",
            headers={"Authorization": "Bearer s3cret word"},
            timeout=10,
        ).json()
        assert [o["organizationId"] for o in overview["organizations"]] == [info["organizationId"]]
        # the root key serve bootstrapped is held: the dashboard can vote as the root user
        org = requests.post(
            info["baseUrl"] + API + "organization",
            json={"organizationId": info["organizationId"]},
            headers={"Authorization": "Bearer s3cret word"},
            timeout=10,
        ).json()
        assert [u["keyHeld"] for u in org["users"]] == [True]
    finally:
        process.terminate()
        process.wait(timeout=10)
    plain, info = start()
    try:
        assert info["dashboardUrl"] == info["baseUrl"] + "/emulator/ui/"
    finally:
        plain.terminate()
        plain.wait(timeout=10)


def test_every_file_of_the_page_is_package_data():
    import fnmatch
    from pathlib import Path

    tomllib = pytest.importorskip("tomllib")
    root = Path(__file__).resolve().parent.parent
    config = tomllib.loads((root / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["emulator.dashboard"]
    static = root / "emulator" / "dashboard" / "static"
    files = sorted(path.relative_to(static.parent).as_posix() for path in static.iterdir())
    assert files == ["static/dashboard.css", "static/dashboard.js", "static/index.html"]
    for name in files:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in patterns), name


def test_an_organization_view_lists_a_bounded_number_of_accounts_and_keys():
    from emulator.accounts import account_spec
    from emulator.dashboard.views import MAX_ACCOUNTS, MAX_PRIVATE_KEYS

    emu = Emulator(seed=9)
    org = emu.create_organization("Big")
    emu.create_wallet(
        wallet_name="many",
        accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM", i) for i in range(MAX_ACCOUNTS + 5)],
    )
    emu.settings.max_private_keys_per_organization = MAX_PRIVATE_KEYS + 10
    for start in range(0, MAX_PRIVATE_KEYS + 3, 100):
        emu.create_private_keys(
            private_keys=[
                {
                    "privateKeyName": f"k{i}",
                    "curve": "CURVE_SECP256K1",
                    "addressFormats": [],
                    "privateKeyTags": [],
                }
                for i in range(start, min(start + 100, MAX_PRIVATE_KEYS + 3))
            ]
        )
    with serving(emu.world, control=Control(emu)) as url:
        view = requests.post(
            url + API + "organization", json={"organizationId": org.organization_id}, timeout=10
        ).json()
    (wallet,) = view["wallets"]
    assert (len(wallet["accounts"]), wallet["accountCount"]) == (MAX_ACCOUNTS, MAX_ACCOUNTS + 5)
    assert len(view["privateKeys"]) == MAX_PRIVATE_KEYS
    assert view["privateKeyCount"] == MAX_PRIVATE_KEYS + 3
