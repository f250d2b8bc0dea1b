"""A real browser (headless Chromium) calling a served emulator from another origin.

The browser itself runs the CORS preflight and enforces its answer, so these tests prove
what the header tests in ``test_server_browsers.py`` can only assert: a web app on its own
port can call ``/public/`` with the headers the official packages send, and a page of
another site cannot drive the control plane.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from .browser import chromium_or_skip
from .wire import served

PAGE = b"<!doctype html><title>app</title><p>a web app on its own origin"


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def app_origin() -> Iterator[str]:
    """A plain local web server: the origin a web app under test would have."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def page(app_origin):
    browser = chromium_or_skip()
    context = browser.new_context()
    tab = context.new_page()
    tab.goto(app_origin + "/")
    yield tab
    context.close()


FETCH = """async ([url, body, headers]) => {
  try {
    const answer = await fetch(url, {method: "POST", body, headers});
    return {status: answer.status, json: await answer.json()};
  } catch (error) {
    return {blocked: String(error)};
  }
}"""


def test_a_page_of_another_origin_calls_the_api_with_a_stamp(page):
    with served() as site:
        body = site.whoami_body()
        headers = {
            "Content-Type": "application/json",
            "X-Stamp": site.stamp(body),
            "X-Client-Version": "@turnkey/sdk-browser@test",
        }
        answer = page.evaluate(
            FETCH, [site.url + "/public/v1/query/whoami", body.decode(), headers]
        )
    assert answer["status"] == 200, answer
    assert answer["json"]["organizationId"] == site.org.organization_id
    assert answer["json"]["username"] == "Root User"


def test_the_page_reads_the_api_error_of_a_refused_call(page):
    with served() as site:
        body = site.whoami_body()
        answer = page.evaluate(
            FETCH,
            [
                site.url + "/public/v1/query/whoami",
                body.decode(),
                {"Content-Type": "application/json"},
            ],
        )
    assert answer["status"] == 401
    assert set(answer["json"]) >= {"code", "message", "details"}


def test_a_page_of_another_site_cannot_drive_the_control_plane(page):
    with served() as site:
        before = site.emu.snapshot()
        answer = page.evaluate(
            FETCH,
            [site.url + "/emulator/v1/reset", "{}", {"Content-Type": "application/json"}],
        )
        assert site.emu.snapshot() == before
    # the browser blocks the answer (no CORS on the control plane), or the server refuses it
    assert "blocked" in answer or answer["status"] == 403, answer
