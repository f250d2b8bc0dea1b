"""The dashboard's weight and its time to first render, with 1,000 activities.

Two servers run side by side in this process: the **floor**, a fresh emulator with one
organization (the dashboard's least: the page, its script and style, and three small JSON
answers), and the **loaded** one, the same organization with 1,000 activities (signatures,
50 of them left awaiting consensus), a second organization and ten sub-organizations. A
headless Chromium (the system's, through Playwright) opens a view of each in turn, every
time in a new browser context (nothing cached), and reads:

* time to first render: from the navigation's start to the page's
  ``performance.mark("dashboard-rendered")``, set once the first view is in the DOM;
* page weight: the bytes of every answer the page fetched up to then (bodies, not headers).

Each loaded figure is divided by the floor's of the same view, measured in turn with it.
A last part times the JSON the page polls, over keep-alive HTTP (``requests``), against the
control plane's ``health`` (the cheapest answer the server gives behind the same guard):
``version`` (every second while the page is open) and a 50-row page of ``activities``, at
1,000 and at 10,000 activities, to show that a view costs its page and not the world.

    python bench/dashboard.py            # ~1 minute
    python bench/dashboard.py --quick    # a smoke run: one round, 100 and 1,000 activities
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
from contextlib import ExitStack, suppress
from typing import Any

import requests
from measuring import in_turn, median, unavailable

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.http.control import Control
from emulator.http.server import serving

ACTIVITIES = 1_000
VIEWS = ("activities", "orgs", "calls")


def world(activities: int, *, extra_orgs: bool) -> Emulator:
    """An emulator with one organization and ``activities`` activities in it (about)."""
    emu = Emulator(seed=3, timestamp_window_s=None)
    emu.create_organization("Acme")
    if activities == 0:
        return emu
    address = emu.create_wallet(
        wallet_name="hot", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"][0]
    if extra_orgs:
        emu.create_organization("Other")
        for i in range(10):
            emu.create_sub_organization(
                sub_organization_name=f"user {i}",
                root_quorum_threshold=1,
                root_users=[{"userName": f"user {i}", "userEmail": f"u{i}@example.test"}],
            )
    made = len(emu.world.store.activities_by_id)
    pending = 50
    for i in range(activities - made):
        if i % (activities // pending) == 0:
            emu.faults.fail_next(
                "sign_raw_payload", activity_status="ACTIVITY_STATUS_CONSENSUS_NEEDED"
            )
        emu.sign_raw_payload(
            sign_with=address,
            payload=f"{i:064x}",
            encoding="PAYLOAD_ENCODING_HEXADECIMAL",
            hash_function="HASH_FUNCTION_NO_OP",
        )
    return emu


def chromium() -> tuple[Any, Any]:
    executable = (
        os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    )
    if executable is None:
        unavailable("no chromium on this machine (Debian: apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the Python package playwright is needed to drive the browser")

    driver = sync_playwright().start()
    browser = driver.chromium.launch(
        executable_path=executable, headless=True, args=["--no-sandbox", "--disable-dev-shm-usage"]
    )
    return driver, browser


def first_render(browser: Any, url: str, view: str) -> tuple[float, int, int]:
    """(ms to first render, bytes of the page's files, bytes of its JSON) of one cold load."""
    context = browser.new_context()
    page = context.new_page()
    sizes: list[tuple[str, int]] = []

    def count(response: Any) -> None:
        with suppress(Exception):  # a response whose body the browser dropped
            sizes.append((response.headers.get("content-type", ""), len(response.body())))

    page.on("response", count)
    page.goto(f"{url}/#/{view}")
    page.wait_for_selector(f"body[data-rendered={view}]", timeout=30_000)
    rendered = page.evaluate("performance.getEntriesByName('dashboard-rendered')[0].startTime")
    context.close()
    json_bytes = sum(n for kind, n in sizes if kind.startswith("application/json"))
    files = sum(n for kind, n in sizes if not kind.startswith("application/json"))
    return rendered, files, json_bytes


def render_rows(browser: Any, floor_url: str, loaded_url: str, rounds: int) -> list[dict]:
    rows = []
    for view in VIEWS:
        floor_ms, loaded_ms = [], []
        weights: dict[str, tuple[int, int]] = {}
        for _ in range(rounds + 1):  # the first round warms the browser and the servers up
            for name, url, sink in (
                ("floor", floor_url, floor_ms),
                ("loaded", loaded_url, loaded_ms),
            ):
                ms, files, json_bytes = first_render(browser, url, view)
                sink.append(ms)
                weights[name] = (files, json_bytes)
        floor_ms, loaded_ms = floor_ms[1:], loaded_ms[1:]
        floor_weight, loaded_weight = sum(weights["floor"]), sum(weights["loaded"])
        rows.append(
            {
                "view": view,
                "floor_ms": median(floor_ms),
                "loaded_ms": median(loaded_ms),
                "render_ratio": median(loaded_ms) / median(floor_ms),
                "render_ratio_p90": _p90(loaded_ms) / _p90(floor_ms),
                "floor_bytes": floor_weight,
                "loaded_bytes": loaded_weight,
                "loaded_json_bytes": weights["loaded"][1],
                "files_bytes": weights["loaded"][0],
                "weight_ratio": loaded_weight / floor_weight,
            }
        )
    return rows


def _p90(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=10)[-1] if len(samples) >= 2 else samples[0]


def poll_rows(urls: dict[str, str], reps: int) -> list[dict]:
    session = requests.Session()

    def get(url: str, path: str) -> Any:
        return lambda: session.get(url + path, timeout=10).raise_for_status()

    def post(url: str, path: str, body: dict) -> Any:
        return lambda: session.post(url + path, json=body, timeout=10).raise_for_status()

    calls = {"health (floor)": get(urls["1k"], "/emulator/v1/health")}
    for size, url in urls.items():
        calls[f"version, {size} activities"] = get(url, "/emulator/ui/api/version")
        calls[f"activities page of 50, {size} activities"] = post(
            url, "/emulator/ui/api/activities", {"limit": 50}
        )
        calls[f"overview, {size} activities"] = get(url, "/emulator/ui/api/overview")
    names = list(calls)
    samples = in_turn([calls[n] for n in names], reps, max(10, reps // 10))
    floor = median(samples[0])
    return [
        {"what": name, "median_us": median(s), "ratio": median(s) / floor}
        for name, s in zip(names, samples, strict=True)
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rounds, reps = (1, 20) if args.quick else (12, 500)
    activities = ACTIVITIES // 10 if args.quick else ACTIVITIES  # quick: a smoke run
    floor = world(0, extra_orgs=False)
    loaded = world(activities, extra_orgs=True)
    big = world(10 * activities, extra_orgs=True)
    print(
        f"activities: floor {len(floor.world.store.activities_by_id)}, "
        f"loaded {len(loaded.world.store.activities_by_id)}, big {len(big.world.store.activities_by_id)}",
        file=sys.stderr,
    )
    with ExitStack() as stack:
        urls = {
            name: stack.enter_context(serving(emu.world, control=Control(emu)))
            for name, emu in (("floor", floor), ("1k", loaded), ("10k", big))
        }
        driver, browser = chromium()
        try:
            renders = render_rows(browser, urls["floor"], urls["1k"], rounds)
        finally:
            browser.close()
            driver.stop()
        polls = poll_rows({"1k": urls["1k"], "10k": urls["10k"]}, reps)
    if args.json:
        print(json.dumps({"renders": renders, "polls": polls, "load": os.getloadavg()}, indent=2))
        return
    print(f"load average {os.getloadavg()[0]:.1f}; {rounds} cold loads a view and world")
    print(
        f"| view | first render, {activities:,} activities | × empty world | page weight "
        "| × empty world |"
    )
    print("|---|---|---|---|---|")
    for r in renders:
        print(
            f"| {r['view']} | {r['loaded_ms']:.0f} ms | {r['render_ratio']:.2f} "
            f"(p90 {r['render_ratio_p90']:.2f}; floor {r['floor_ms']:.0f} ms) | "
            f"{r['loaded_bytes'] / 1024:.1f} kB ({r['loaded_json_bytes'] / 1024:.1f} kB JSON) | "
            f"{r['weight_ratio']:.2f} (floor {r['floor_bytes'] / 1024:.1f} kB) |"
        )
    print()
    print("| JSON over keep-alive HTTP | median | × health |")
    print("|---|---|---|")
    for p in polls:
        print(f"| {p['what']} | {p['median_us']:.0f} µs | {p['ratio']:.2f} |")


if __name__ == "__main__":
    main()
