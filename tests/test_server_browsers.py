"""Browsers: CORS on /public/, and a control plane that no other site or host can drive."""

from __future__ import annotations

import pytest
import requests

from emulator.http.options import CORS_ALLOWED_HEADERS, WireOptions

from .wire import is_api_error, raw, request_bytes, served

WHOAMI = "/public/v1/query/whoami"
APP = "http://localhost:3000"


@pytest.fixture(scope="module")
def site():
    with served() as s:
        yield s


def preflight(s, origin: str, headers: str = "content-type,x-stamp,x-client-version"):
    return requests.options(
        s.url + WHOAMI,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": headers,
        },
        timeout=10,
    )


def test_a_preflight_allows_post_and_the_headers_the_sdks_send(site):
    answer = preflight(site, APP)
    assert answer.status_code == 204 and answer.content == b""
    assert answer.headers["Access-Control-Allow-Origin"] == "*"
    assert answer.headers["Access-Control-Allow-Methods"] == "POST, OPTIONS"
    allowed = {h.strip().lower() for h in answer.headers["Access-Control-Allow-Headers"].split(",")}
    # @turnkey/http sends X-Stamp and X-Client-Version; the passkey stamper X-Stamp-Webauthn
    assert {"content-type", "x-stamp", "x-stamp-webauthn", "x-client-version"} <= allowed
    assert allowed == {h.lower() for h in CORS_ALLOWED_HEADERS}
    assert int(answer.headers["Access-Control-Max-Age"]) > 0


def test_a_cross_origin_post_and_its_errors_carry_the_cors_headers(site):
    body = site.whoami_body()
    answer = requests.post(
        site.url + WHOAMI,
        data=body,
        headers={"Origin": APP, "X-Stamp": site.stamp(body), "Content-Type": "application/json"},
        timeout=10,
    )
    assert answer.status_code == 200 and answer.headers["Access-Control-Allow-Origin"] == "*"
    for path, status in [(WHOAMI, 401), ("/public/v1/query/nope", 404)]:
        failed = requests.post(site.url + path, data=body, headers={"Origin": APP}, timeout=10)
        assert failed.status_code == status
        assert failed.headers["Access-Control-Allow-Origin"] == "*"
    too_big = raw(
        site.address,
        request_bytes(
            "POST", WHOAMI, length=False, headers={"Origin": APP, "Content-Length": "99999999"}
        ),
    )
    assert is_api_error(too_big, 413)
    assert too_big.headers["access-control-allow-origin"] == "*"


def test_answers_without_an_origin_carry_no_cors_headers(site):
    answer = requests.post(site.url + WHOAMI, data=b"{}", timeout=10)
    assert "Access-Control-Allow-Origin" not in answer.headers


def test_configured_origins_are_echoed_and_others_refused():
    with served(WireOptions(cors_origins=(APP,))) as s:
        ok = preflight(s, APP)
        assert ok.status_code == 204 and ok.headers["Access-Control-Allow-Origin"] == APP
        assert ok.headers["Vary"] == "Origin"
        refused = preflight(s, "https://evil.example")
        assert refused.status_code == 403
        assert "Access-Control-Allow-Origin" not in refused.headers
        post = requests.post(
            s.url + WHOAMI, data=b"{}", headers={"Origin": "https://evil.example"}, timeout=10
        )
        assert "Access-Control-Allow-Origin" not in post.headers


# ----- the control plane ------------------------------------------------------------------


def control(s, name, *, headers=None, body=b"{}", method="POST"):
    base = {"Content-Type": "application/json"}
    return requests.request(
        method,
        f"{s.url}/emulator/v1/{name}",
        data=body,
        headers={**base, **(headers or {})},
        timeout=10,
    )


def test_a_cross_site_text_plain_post_cannot_reset_the_state(site):
    before = site.emu.world.store.organizations.copy()
    site.emu.create_wallet(wallet_name="kept", accounts=[])
    answer = requests.post(
        f"{site.url}/emulator/v1/reset",
        data=b"{}",
        headers={"Content-Type": "text/plain", "Origin": "https://evil.example"},
        timeout=10,
    )
    assert answer.status_code == 403 and answer.json()["code"] == 7
    same_origin_text = control(site, "reset", headers={"Content-Type": "text/plain"})
    assert same_origin_text.status_code == 415
    form = control(site, "reset", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert form.status_code == 415
    assert [w["walletName"] for w in site.emu.get_wallets()["wallets"]] == ["kept"]
    assert site.emu.world.store.organizations.keys() == before.keys()


def test_a_foreign_host_header_is_refused_dns_rebinding(site):
    for host in ("evil.example", "evil.example:8787", "192.0.2.1"):
        answer = control(site, "outbox", headers={"Host": host}, method="GET", body=b"")
        assert answer.status_code == 403, host
        assert "addressed to this server" in answer.json()["message"]
    for host in ("localhost", f"127.0.0.1:{site.address[1]}", "[::1]:1"):
        assert control(site, "outbox", headers={"Host": host}, method="GET", body=b"").ok


def test_only_the_read_endpoints_answer_get(site):
    for name in ("health", "outbox", "calls"):
        assert control(site, name, method="GET", body=b"").status_code == 200
    for name in ("reset", "clock", "faults", "snapshot", "outbox/clear"):
        answer = control(site, name, method="GET", body=b"")
        assert answer.status_code == 501 and "POST it" in answer.json()["message"]


def test_a_same_origin_page_may_use_the_control_plane_and_no_other(site):
    port = site.address[1]
    for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}"):
        assert control(site, "health", headers={"Origin": origin}).status_code == 200
    for origin in (
        "http://localhost:3000",  # another local app: another site
        "https://evil.example",
        f"http://evil.example:{port}",
        "null",
        "file://",
    ):
        answer = control(site, "health", headers={"Origin": origin})
        assert answer.status_code == 403, origin


def test_a_token_is_required_when_configured():
    with served(WireOptions(control_token="s3cret")) as s:
        assert control(s, "health").status_code == 401
        wrong = control(s, "health", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and wrong.json()["code"] == 16
        right = control(s, "health", headers={"Authorization": "Bearer s3cret"})
        assert right.status_code == 200
        # the public API keeps its own authentication: no token there
        unstamped = requests.post(s.url + WHOAMI, data=s.whoami_body(), timeout=10)
        assert unstamped.status_code == 401


def test_binding_beyond_loopback_without_a_token_is_refused():
    with pytest.raises(ValueError, match="without a control token"):
        WireOptions(bound_host="0.0.0.0")
    WireOptions(bound_host="0.0.0.0", control_token="t")
    for loopback in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        WireOptions(bound_host=loopback)
