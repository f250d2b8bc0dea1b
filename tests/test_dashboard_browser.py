"""The dashboard in a real headless Chromium: what it shows, a vote from the page, the
controls, live updates, the token, and screenshots of its main views (kept as artifacts
under ``.artifacts/browser``, not committed)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .browser import artifact_path, chromium_or_skip, docs_screenshot
from .test_dashboard_http import Served, served

TOKEN = "browser-token"
WAIT_MS = 15_000


@pytest.fixture
def site() -> Iterator[Served]:
    with served(token=TOKEN) as made:
        yield made


@pytest.fixture
def page(site):
    browser = chromium_or_skip()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.errors = []  # type: ignore[attr-defined]
    tab.on("pageerror", lambda error: tab.errors.append(str(error)))  # type: ignore[attr-defined]
    tab.requested = []  # type: ignore[attr-defined]
    tab.on("request", lambda request: tab.requested.append(request.url))  # type: ignore[attr-defined]
    yield tab
    context.close()


def open_view(page, site: Served, view: str) -> None:
    page.goto(f"{site.url}/?token={TOKEN}#/{view}")
    page.wait_for_selector(f"body[data-rendered={view.split('/')[0]}]", timeout=WAIT_MS)


def until(page, expression: str) -> None:
    """Wait until ``expression`` is true in the page (``wait_for_function`` evaluates strings,
    which the page's content security policy forbids)."""
    eventually(page, lambda: page.evaluate(expression))


def eventually(page, condition, tries: int = 300) -> None:
    """Wait (letting the page run) until ``condition()`` holds on the Python side."""
    for _ in range(tries):
        if condition():
            return
        page.wait_for_timeout(50)
    assert condition()


def shoot(page, name: str) -> None:
    page.screenshot(path=str(artifact_path(f"dashboard-{name}.png")), full_page=True)
    assert artifact_path(f"dashboard-{name}.png").stat().st_size > 10_000


def test_the_page_renders_the_state_a_test_created(page, site):
    open_view(page, site, "orgs")
    assert "token=" not in page.url  # taken from the address once, then kept aside
    tree = page.locator("[data-testid=org-tree]")
    assert tree.locator("[data-testid=org-node]").all_inner_texts() == ["Acme", "Bea's wallet"]
    users = page.locator("[data-testid=user-row]").all_inner_texts()
    assert [row.split("\n")[0] for row in users] == ["Root User", "ann", "bob", "cy"]
    cy = users[3]
    assert "cy's laptop" in cy and "cy-1" in cy and site.world.keys["cy"].public_key in cy
    assert site.world.wallet_address in page.locator("[data-testid=wallet]").first.inner_text()
    assert "two for wallets" in page.locator("[data-testid=policy]").inner_text()
    shoot(page, "organizations")
    docs_screenshot(page, "dashboard-organizations")
    assert page.requested and all(url.startswith(site.url + "/") for url in page.requested)
    page.click(f"[data-org-id='{site.world.sub_org_id}']")
    until(page, "document.querySelector('main h2').textContent.includes('Bea')")
    assert page.locator("[data-testid=user-row]").all_inner_texts()[0].startswith("bea")
    assert page.errors == []


def test_an_approval_from_the_page_completes_a_pending_activity(page, site):
    pending = site.world.pending
    open_view(page, site, "activities")
    row = page.locator("[data-testid=activity-row]", has_text="CONSENSUS_NEEDED")
    assert "ann" in row.inner_text() and "1✓ 0✗" in row.inner_text()
    shoot(page, "activities")
    docs_screenshot(page, "dashboard-activities")
    row.locator("[data-testid=activity-link]").click()
    page.wait_for_selector("body[data-rendered=activity]", timeout=WAIT_MS)
    assert (
        "two for wallets: REQUIRES_CONSENSUS"
        in page.locator("[data-testid=policy-outcome]").inner_text()
    )
    shoot(page, "activity-pending")
    docs_screenshot(page, "dashboard-activity-pending")
    page.select_option("[data-testid=vote-as]", label="bob")
    page.click("[data-testid=approve]")
    page.wait_for_selector("h2 [data-testid=status]:text('COMPLETED')", timeout=WAIT_MS)
    # the page's own poll may show the new status a moment before the vote's answer is in
    until(
        page,
        "document.querySelector('[data-testid=vote-message]').textContent === 'Voted: COMPLETED'",
    )
    stored = site.emu.world.store.activities_by_id[pending["id"]]
    assert stored.status == "ACTIVITY_STATUS_COMPLETED"
    assert [v.user_id for v in stored.votes] == [
        site.world.user_ids["ann"],
        site.world.user_ids["bob"],
    ]
    assert stored.votes[1].signature  # stamped with bob's key by the emulator
    assert "shared" in [w["walletName"] for w in site.emu.get_wallets()["wallets"]]
    assert page.locator("[data-testid=vote-row]").count() == 2
    shoot(page, "activity-approved")
    assert page.errors == []


def test_live_updates_show_what_a_test_does_while_the_page_is_open(page, site):
    open_view(page, site, "activities")
    before = page.locator("[data-testid=activity-row]").count()
    site.emu.create_users(users=[{"userName": "late arrival"}])
    until(page, f"document.querySelectorAll('[data-testid=activity-row]').length === {before + 1}")
    assert "CREATE_USERS" in page.locator("[data-testid=activity-row]").first.inner_text()
    site.emu.outbox.clear()
    page.click("nav a[data-view=outbox]")
    page.wait_for_selector("body[data-rendered=outbox]", timeout=WAIT_MS)
    assert page.locator("[data-testid=message]").count() == 0
    assert page.errors == []


def test_the_outbox_shows_codes_and_clickable_magic_links(page, site):
    open_view(page, site, "outbox")
    code = site.emu.outbox.last(template="otp").fields["otpCode"]
    assert page.locator("[data-testid=otp-code]").inner_text() == code
    (link,) = page.locator("[data-testid=magic-link]").all()
    assert link.get_attribute("href").startswith("https://app.example/login?bundle=")
    assert link.get_attribute("rel") == "noopener noreferrer"
    assert "not clickable" in page.locator("[data-testid=message]").nth(1).inner_text()
    shoot(page, "outbox")


def test_the_clock_and_fault_controls_drive_the_emulator(page, site):
    open_view(page, site, "controls")
    page.click("[data-testid=freeze]")
    until(page, "document.querySelector('main').textContent.includes('(frozen)')")
    assert site.emu.clock.frozen
    frozen_at = site.emu.clock.now_ms()
    page.fill("[data-testid=advance-seconds]", "7200")
    page.click("[data-testid=advance]")
    eventually(page, lambda: site.emu.clock.now_ms() == frozen_at + 7_200_000)
    page.fill("[data-testid=fault-operation]", "sign_raw_payload")
    page.click("[data-testid=add-fault]")
    page.wait_for_selector("[data-testid=fault-row]", timeout=WAIT_MS)
    (rule,) = site.emu.faults.pending()
    assert (rule.operation, rule.remaining) == ("sign_raw_payload", 1)
    shoot(page, "controls")
    page.click("nav a[data-view=calls]")
    page.wait_for_selector("body[data-rendered=calls]", timeout=WAIT_MS)
    assert page.locator("[data-testid=call-row]").count() == min(site.emu.calls.total, 50)
    shoot(page, "calls")
    assert page.errors == []


def test_a_page_without_the_token_asks_for_it(page, site):
    page.goto(site.url + "/")  # the shell loads; the views answer 401
    page.wait_for_selector("body[data-rendered=error]", timeout=WAIT_MS)
    page.fill("[data-testid=token]", TOKEN)
    page.click("form button")
    page.wait_for_selector("body[data-rendered=orgs]", timeout=WAIT_MS)
    assert page.locator("[data-testid=org-node]").count() == 2


def test_names_from_the_world_are_shown_as_text_never_run(page, site):
    hostile = '<img src=x onerror="window.__pwned=1">'
    site.emu.create_users(users=[{"userName": hostile}])
    open_view(page, site, "orgs")
    assert hostile in page.locator("[data-testid=user-row]").last.inner_text()
    assert page.evaluate("window.__pwned") is None


def test_the_verifiable_cloud_view_shows_apps_and_their_deployments(page, site):
    from .test_tvc import approve, deployment_params, new_app

    emu = site.emu
    app, ms, *_ = new_app(emu)
    made = emu.create_tvc_deployment(**deployment_params(app["appId"]))
    approve(emu, app, made, ms, [0, 1])
    open_view(page, site, "tvc")
    card = page.locator("[data-testid=tvc-app]")
    assert (
        "oracle" in card.inner_text() and f"app-{app['appId']}.turnkey.cloud" in card.inner_text()
    )
    (row,) = page.locator("[data-testid=tvc-deployment]").all_inner_texts()
    assert row.startswith("live") and "PENDING" in row and "2/2" in row
    shoot(page, "tvc")
    assert page.errors == []
