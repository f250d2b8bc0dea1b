"""The browser flows of issue 18, timed: where a front end's sign-in time goes.

``python bench/browser_flow.py [--reps N] [--json]`` runs the test page of
``tests/browser_app`` (the official ``@turnkey/core``, bundled) in headless Chromium with a
virtual authenticator against a served emulator with an Auth Proxy, as
``tests/test_browser_auth_proxy.py`` does, ``N`` times each (a new browser context each
time, so a new user):

* passkey: sign up, log out, log in, create a wallet, sign a message, sign a transaction,
  export the wallet;
* e-mail OTP: send a code, sign up with it, log out, send another, log in.

Each flow's wall time (Python's ``page.evaluate`` round trips, the page's work included)
is split three ways: **engine**, the dispatcher's time on the flow's requests (the call
log's ``duration_ns``); **server**, the rest of the server's time answering them (the
HTTP layer, the Auth Proxy's glue, CORS; ``Site.respond`` timed around); and **browser**,
what is left (JavaScript, WebCrypto and the virtual authenticator, IndexedDB, the loopback
network, Playwright's round trips). Each is given as a ratio to the wall time measured in
the same run. Needs chromium, node and npm (the page is bundled as the tests do).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from measuring import unavailable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from emulator.http import site as site_module  # noqa: E402
from tests.authproxy import proxy_served  # noqa: E402
from tests.browser import chromium_or_skip, virtual_authenticator  # noqa: E402
from tests.browser_app import page_bundle_or_skip, page_origin  # noqa: E402
from tests.test_browser_auth_proxy import Page, outbox_code, unsigned_eip1559  # noqa: E402

_server_ns = [0]


def _timed_respond(original):
    def respond(self, *args, **kwargs):
        started = time.perf_counter_ns()
        try:
            return original(self, *args, **kwargs)
        finally:
            _server_ns[0] += time.perf_counter_ns() - started

    return respond


def passkey_flow(page: Page) -> None:
    page.call("signUpWithPasskey", "bench")
    page.call("logout")
    page.call("loginWithPasskey")
    wallet = page.call("createWallet", "main")
    page.call("signMessage", wallet["walletId"], "hello")
    page.call("signTransaction", wallet["walletId"], unsigned_eip1559("0x" + "22" * 20))
    page.call("exportWallet", wallet["walletId"])


def otp_flow(page: Page, n: int) -> None:
    contact = f"bench{n}@example.com"
    for _ in range(2):  # sign up, then log in
        sent = page.call("initOtp", contact)
        code = outbox_code(page.proxy, contact)
        page.call("completeOtp", sent["otpId"], code, sent["otpEncryptionTargetBundle"], contact)
        page.call("logout")


def run(reps: int) -> dict[str, Any]:
    try:
        browser = chromium_or_skip()
        script = page_bundle_or_skip()
    except BaseException as exc:  # pytest's Skipped: no browser, node or registry here
        unavailable(f"the browser flows: {exc}")
    site_module.Site.respond = _timed_respond(site_module.Site.respond)
    samples: dict[str, list[tuple[float, float, float, int]]] = {"passkey": [], "otp": []}
    with proxy_served() as proxy, page_origin(script) as origin:
        for n in range(reps + 1):  # the first of each is a warm-up
            for name in ("passkey", "otp"):
                context = browser.new_context()
                tab = context.new_page()
                virtual_authenticator(tab)
                tab.goto(origin + "/")
                tab.wait_for_function("window.tkReady === true")
                page = Page(tab, proxy)
                page.start()
                proxy.emu.calls.clear()
                _server_ns[0] = 0
                started = time.perf_counter_ns()
                passkey_flow(page) if name == "passkey" else otp_flow(page, n)
                wall = time.perf_counter_ns() - started
                calls = list(proxy.emu.calls)
                engine = sum(c.duration_ns or 0 for c in calls)
                server = _server_ns[0] - engine
                context.close()
                if n:
                    samples[name].append((wall / 1e6, engine / 1e6, server / 1e6, len(calls)))
    rows = {}
    for name, runs in samples.items():
        wall = statistics.median(r[0] for r in runs)
        engine = statistics.median(r[1] for r in runs)
        server = statistics.median(r[2] for r in runs)
        rows[name] = {
            "wall_ms": round(wall, 1),
            "engine_ms": round(engine, 2),
            "server_ms": round(server, 2),
            "browser_ms": round(wall - engine - server, 1),
            "engine_share": round(engine / wall, 4),
            "server_share": round(server / wall, 4),
            "browser_share": round((wall - engine - server) / wall, 4),
            "engine_calls": runs[0][3],
            "reps": len(runs),
        }
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="a smoke run: one flow of each")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = run(1 if args.quick else args.reps)
    if args.json:
        print(json.dumps(rows))
        return
    print("| flow | wall (median) | engine | server | browser | engine calls |")
    print("|---|---|---|---|---|---|")
    for name, row in rows.items():
        print(
            f"| {name} | {row['wall_ms']} ms | {row['engine_ms']} ms ({row['engine_share']:.3f}) "
            f"| {row['server_ms']} ms ({row['server_share']:.3f}) "
            f"| {row['browser_ms']} ms ({row['browser_share']:.3f}) | {row['engine_calls']} |"
        )


if __name__ == "__main__":
    main()
