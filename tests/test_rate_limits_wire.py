"""The documented rate limits on every way in: ``serve`` (in a thread and as a process),
the ``requests`` interception, the ASGI and WSGI apps, the control plane, and what the
official SDKs do with a 429 (neither retries: ``turnkey_http`` 0.2.2 raises
``TurnkeyNetworkError``, ``@turnkey/http`` 6.6.0 throws ``TurnkeyRequestError``).

The headers are the FAQ's (tkhq/docs reference/faq.mdx): ``ratelimit-limit`` (the plan's
RPS), ``ratelimit-remaining``, and the two addresses echoed back where known; no
``Retry-After`` (no source names one).
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import requests
from turnkey_sdk_types import GetWhoamiBody, TurnkeyErrorCodes, TurnkeyNetworkError

from emulator import Emulator, OrganizationHandle
from emulator.crypto.stamps import sign_stamp
from emulator.engine_state.world import Settings
from emulator.http.control import Control
from emulator.http.server import serving
from tests.test_rate_limits import BODY_429, MESSAGE, admitted
from tests.typescript import TypeScriptError, typescript_or_skip
from tests.wire_bodies import run_async

NIL_UUID = "00000000-0000-4000-8000-000000000000"
RATE_HEADERS = {
    "ratelimit-limit",
    "ratelimit-remaining",
    "x-rate-limit-request-forwarded-for",
    "x-rate-limit-request-remote-addr",
}


def limited(plan: str | None = "free") -> tuple[Emulator, OrganizationHandle]:
    emu = Emulator(seed=7, settings=Settings(rate_limits=plan))
    emu.clock.freeze(at_ms=1_800_000_000_000)
    return emu, emu.create_organization("Wire")


def whoami_request(org: OrganizationHandle, organization_id: str | None = None):
    raw = json.dumps({"organizationId": organization_id or org.organization_id}).encode()
    headers = {"X-Stamp": sign_stamp(raw, org.api_key).header_value()}
    return raw, {**headers, "Content-Type": "application/json"}


def post_whoami(url: str, org: OrganizationHandle, **extra_headers: str) -> requests.Response:
    raw, headers = whoami_request(org)
    return requests.post(
        url + "/public/v1/query/whoami", data=raw, headers={**headers, **extra_headers}, timeout=10
    )


def rate_headers(headers) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items() if k.lower() in RATE_HEADERS}


@contextmanager
def served(emu: Emulator) -> Iterator[str]:
    with serving(emu.world, control=Control(emu, baseline=emu.snapshot())) as url:
        yield url


# ----- serve ------------------------------------------------------------------------------


def test_the_wire_carries_the_quota_and_answers_429_in_the_api_shape():
    emu, org = limited("free")
    with served(emu) as url:
        first = post_whoami(url, org, **{"X-Forwarded-For": "203.0.113.7"})
        assert first.status_code == 200
        assert rate_headers(first.headers) == {
            "ratelimit-limit": "1",
            "ratelimit-remaining": "59",
            "x-rate-limit-request-forwarded-for": "203.0.113.7",
            "x-rate-limit-request-remote-addr": "127.0.0.1",
        }
        remaining = [post_whoami(url, org).headers["ratelimit-remaining"] for _ in range(59)]
        assert remaining == [str(n) for n in range(58, -1, -1)]
        refused = post_whoami(url, org)
        assert (refused.status_code, refused.json()) == (429, BODY_429)
        assert refused.headers["Content-Type"] == "application/json"
        assert rate_headers(refused.headers) == {
            "ratelimit-limit": "1",
            "ratelimit-remaining": "0",
            "x-rate-limit-request-remote-addr": "127.0.0.1",
        }
        assert "retry-after" not in {k.lower() for k in refused.headers}
        emu.clock.advance(1)
        assert post_whoami(url, org).status_code == 200


def test_an_unknown_organization_is_not_counted_and_carries_no_quota():
    emu, org = limited("free")
    with served(emu) as url:
        raw, headers = whoami_request(org, NIL_UUID)
        answer = requests.post(url + "/public/v1/query/whoami", data=raw, headers=headers)
        assert answer.status_code == 404 and not rate_headers(answer.headers)
        assert post_whoami(url, org).headers["ratelimit-remaining"] == "59"


def test_with_limits_off_the_wire_has_no_quota_headers():
    emu, org = limited(None)
    with served(emu) as url:
        answers = [post_whoami(url, org) for _ in range(70)]
    assert {a.status_code for a in answers} == {200}
    assert not any(rate_headers(a.headers) for a in answers)


def test_the_control_plane_reads_and_sets_the_plan():
    emu, org = limited(None)
    with served(emu) as url:
        control = url + "/emulator/v1/rate_limits"
        read = requests.get(control, timeout=10).json()
        assert read["plan"] is None
        assert read["plans"] == [
            {"name": "free", "title": "Free", "rps": 1},
            {"name": "pay-as-you-go", "title": "Pay-as-you-go", "rps": 1},
            {"name": "pro", "title": "Pro", "rps": 3},
            {"name": "enterprise", "title": "Enterprise", "rps": 60},
        ]
        assert (read["bucketSeconds"], read["subOrganizationRps"]) == (60, 10)
        assert read["endpointRps"] == {
            "eth_send_transaction": 10,
            "sol_send_transaction": 10,
            "get_wallet_address_balances": 10,
        }
        bad = requests.post(control, json={"plan": "gold"}, timeout=10)
        assert bad.status_code == 400
        assert bad.json()["message"] == (
            "bad control request: unknown rate-limit plan 'gold': choose one of free,"
            " pay-as-you-go, pro, enterprise"
        )
        assert requests.post(control, json={"plan": "Pro"}, timeout=10).json()["plan"] == "pro"
        statuses = [post_whoami(url, org).status_code for _ in range(181)]
        assert statuses == [200] * 180 + [429]
        assert requests.post(control, json={"plan": "pro"}, timeout=10).json()["plan"] == "pro"
        assert post_whoami(url, org).status_code == 200  # a plan set again: fresh buckets
        assert [post_whoami(url, org).status_code for _ in range(180)][-1] == 429
        requests.post(url + "/emulator/v1/reset", json={}, timeout=10)  # full buckets again
        assert post_whoami(url, org).headers["ratelimit-remaining"] == "179"
        assert requests.post(control, json={"plan": None}, timeout=10).json()["plan"] is None
        assert not rate_headers(post_whoami(url, org).headers)


# ----- in-process ways in ---------------------------------------------------------------------


def test_the_official_python_sdk_surfaces_the_429_without_retrying():
    emu, org = limited("free")
    admitted(emu.get_whoami)
    with emu.intercept():
        sdk = emu.client(org)
        with pytest.raises(TurnkeyNetworkError) as caught:
            sdk.get_whoami(GetWhoamiBody())
    assert (caught.value.status_code, str(caught.value)) == (429, MESSAGE)
    assert caught.value.code == TurnkeyErrorCodes.BAD_RESPONSE
    assert json.loads(caught.value.cause) == BODY_429
    whoamis = emu.world.calls.filter(operation="whoami")
    assert [c.http_status for c in whoamis[-2:]] == [429, 429]  # the facade's, then the SDK's
    assert len(whoamis) == 62  # 60 admitted, one refused by the facade, one by the SDK: no retry


def test_the_interception_carries_the_quota_headers():
    emu, org = limited("pro")
    with emu.intercept():
        raw, headers = whoami_request(org)
        answer = requests.post(
            "https://api.turnkey.com/public/v1/query/whoami", data=raw, headers=headers
        )
    assert answer.status_code == 200
    assert rate_headers(answer.headers) == {"ratelimit-limit": "3", "ratelimit-remaining": "179"}


def asgi_call(app, raw: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": raw, "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/public/v1/query/whoami",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("10.1.2.3", 5555),
    }
    run_async(lambda: app(scope, receive, send))
    start, body = sent
    answer_headers = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], answer_headers, body["body"]


def test_the_asgi_app_counts_and_refuses():
    emu, org = limited("free")
    raw, headers = whoami_request(org)
    headers["Content-Length"] = str(len(raw))
    app = emu.asgi_app
    for n in range(60):
        status, answer_headers, _ = asgi_call(app, raw, headers)
        assert status == 200 and answer_headers["ratelimit-remaining"] == str(59 - n)
    status, answer_headers, body = asgi_call(app, raw, headers)
    assert (status, json.loads(body)) == (429, BODY_429)
    assert rate_headers(answer_headers) == {
        "ratelimit-limit": "1",
        "ratelimit-remaining": "0",
        "x-rate-limit-request-remote-addr": "10.1.2.3",
    }


def test_the_wsgi_app_counts_and_refuses():
    emu, org = limited("free")
    for _ in range(59):  # 59 of the 60 by the facade: it shares the buckets
        emu.get_whoami()
    raw, headers = whoami_request(org)
    seen = []

    def start_response(status, answer_headers):
        seen.append((status, dict(answer_headers)))

    for _ in range(2):
        environ = {
            "REQUEST_METHOD": "POST",
            "PATH_INFO": "/public/v1/query/whoami",
            "CONTENT_LENGTH": str(len(raw)),
            "CONTENT_TYPE": "application/json",
            "HTTP_X_STAMP": headers["X-Stamp"],
            "REMOTE_ADDR": "192.0.2.4",
            "wsgi.input": io.BytesIO(raw),
        }
        payload = b"".join(emu.wsgi_app(environ, start_response))
    (ok, ok_headers), (refused, refused_headers) = seen
    assert ok == "200 OK" and ok_headers["ratelimit-remaining"] == "0"
    assert refused == "429 Too Many Requests" and json.loads(payload) == BODY_429
    assert refused_headers["x-rate-limit-request-remote-addr"] == "192.0.2.4"


# ----- the command line ---------------------------------------------------------------------


def test_serve_takes_a_plan_and_shows_it_in_its_first_line():
    process = subprocess.Popen(
        [sys.executable, "-m", "emulator", "serve", "--port", "0", "--rate-limits", "Pro"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        info = json.loads(process.stdout.readline())
        assert info["rateLimits"] == "pro"
        org = OrganizationHandle(
            info["organizationId"], "", info["userId"], "", info["apiKeyId"], _key(info)
        )
        answer = post_whoami(info["baseUrl"], org)
        assert answer.status_code == 200
        assert (answer.headers["ratelimit-limit"], answer.headers["ratelimit-remaining"]) == (
            "3",
            "179",
        )
    finally:
        process.terminate()
        assert process.wait(timeout=10) == 0


def _key(info: dict):
    from emulator import ApiKeyPair

    return ApiKeyPair(info["apiPublicKey"], info["apiPrivateKey"])


def test_serve_refuses_an_unknown_plan_naming_the_plans():
    done = subprocess.run(
        [sys.executable, "-m", "emulator", "serve", "--port", "0", "--rate-limits", "gold"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert (
        done.stderr.strip()
        .splitlines()[-1]
        .endswith(
            "error: argument --rate-limits: unknown rate-limit plan 'gold':"
            " choose one of free, pay-as-you-go, pro, enterprise"
        )
    )
    assert "Traceback" not in done.stderr


# ----- @turnkey/http ------------------------------------------------------------------------


def test_the_official_typescript_client_throws_the_429_without_retrying():
    ts = typescript_or_skip()
    from emulator.crypto.api_keys import generate_key_pair

    emu = Emulator(seed=7, settings=Settings(rate_limits="free"))
    emu.clock.freeze(at_ms=1_800_000_000_000)
    key = generate_key_pair()
    org = emu.create_organization(api_public_key=key.public_key, api_private_key=key.private_key)
    for _ in range(59):  # one request left
        emu.get_whoami()
    with served(emu) as url:
        call = {
            "op": "call",
            "baseUrl": url,
            "apiPublicKey": key.public_key,
            "apiPrivateKey": key.private_key,
            "method": "getWhoami",
            "body": {"organizationId": org.organization_id},
        }
        ok, refused = ts.run([call, call])
    assert ok["userId"] == org.user_id
    assert isinstance(refused, TypeScriptError)
    assert (
        str(refused)
        == f"Turnkey error 8: {MESSAGE} (Details: {json.dumps(BODY_429['details'], separators=(',', ':'))})"
    )
    statuses = [c.http_status for c in emu.world.calls.filter(operation="whoami")]
    assert statuses == [200] * 60 + [429]  # one 429, no second attempt
