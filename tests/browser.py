"""A real browser for the tests: Debian's Chromium, headless, driven by Playwright.

``chromium_or_skip()`` launches the system ``chromium`` (or ``$CHROMIUM``) through
Playwright's Python package, once per test process; a test that needs a browser skips with
the reason when either is missing (``.ci/run`` installs the Debian packages when it runs
as root on Debian). Playwright is used without its own downloaded browsers: the system
one is what users have, and what CI can install with no extra network source.

``virtual_authenticator(page)`` adds a WebAuthn platform authenticator to a page through
the DevTools protocol, so ``navigator.credentials`` creates and uses passkeys with no
person at the keyboard. ``artifact_path(name)`` is where screenshots go: kept for a
person to look at after the run (``$BROWSER_ARTIFACTS``, default ``.artifacts/browser``,
ignored by git), never committed. ``docs_screenshot(page, name)`` is the other kind: with
``EMULATOR_SCREENSHOTS=1`` it writes the pictures of the documentation (``docs/images/``,
committed), and without it does nothing; it never fails a test.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
_launched: dict[str, Any] = {}


def chromium_path() -> str | None:
    return (
        os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    )


def chromium_or_skip() -> Any:
    """The shared headless Chromium (a Playwright ``Browser``); skip when none can be had."""
    if "browser" in _launched:
        return _launched["browser"]
    if "skip" in _launched:
        pytest.skip(_launched["skip"])
    executable = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        reason = "the Python package playwright is needed to drive the browser"
    else:
        if executable is None:
            reason = "no chromium on this machine (Debian: apt-get install chromium)"
        else:
            driver = sync_playwright().start()
            try:
                browser = driver.chromium.launch(
                    executable_path=executable,
                    headless=True,
                    args=["--no-sandbox", "--disable-dev-shm-usage"],
                )
            except Exception as exc:  # a browser that will not start is a machine problem
                driver.stop()
                reason = f"chromium at {executable} did not start: {str(exc).splitlines()[0]}"
            else:
                _launched.update(browser=browser, driver=driver)
                atexit.register(_close)
                return browser
    _launched["skip"] = reason
    pytest.skip(reason)


def _close() -> None:
    browser, driver = _launched.pop("browser", None), _launched.pop("driver", None)
    if browser is not None:
        browser.close()
    if driver is not None:
        driver.stop()


def virtual_authenticator(page: Any) -> str:
    """Add a resident-key, user-verifying platform authenticator to ``page``; its id."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    answer = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    page._turnkey_cdp = cdp  # keep the session alive as long as the page
    return answer["authenticatorId"]


def artifact_path(name: str) -> Path:
    """Where a screenshot or trace named ``name`` is kept after the run (not committed)."""
    base = Path(os.environ.get("BROWSER_ARTIFACTS", ROOT / ".artifacts" / "browser"))
    base.mkdir(parents=True, exist_ok=True)
    return base / name


DOCS_IMAGES = ROOT / "docs" / "images"


def docs_screenshot(page: Any, name: str) -> None:
    """With ``EMULATOR_SCREENSHOTS=1``, ``page`` as the documentation shows it
    (``docs/images/<name>.png``, the viewport only). A picture is never a reason for a test to
    fail: one that cannot be taken is reported on stderr, and one that differs from the
    committed file simply replaces it."""
    if os.environ.get("EMULATOR_SCREENSHOTS") != "1":
        return
    try:
        DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(DOCS_IMAGES / f"{name}.png"))
    except Exception as error:  # the picture is a by-product of the test
        print(f"docs screenshot {name} not taken: {error}", file=sys.stderr)
