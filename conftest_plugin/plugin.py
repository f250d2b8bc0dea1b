"""Fixtures for tests of code that talks to Turnkey's API.

* ``turnkey_emulator``: a fresh ``Emulator`` per test;
* ``turnkey_org``: an organization bootstrapped in it (``OrganizationHandle``);
* ``turnkey_client``: an official-SDK ``TurnkeyClient`` for that organization,
  wired in-process (skipped when ``turnkey_http`` is not installed).

``@pytest.mark.turnkey(seed=..., timestamp_window_s=...)`` passes options to
the emulator of a test. The emulator is imported lazily, when a fixture runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from emulator import Emulator, OrganizationHandle

MARKER = "turnkey"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(seed=None, timestamp_window_s=600.0): options of the test's Turnkey emulator",
    )


@pytest.fixture
def turnkey_emulator(request: pytest.FixtureRequest) -> Emulator:
    """A fresh emulator for this test."""
    from emulator import Emulator

    marker = request.node.get_closest_marker(MARKER)
    options: dict[str, Any] = dict(marker.kwargs) if marker else {}
    return Emulator(**options)


@pytest.fixture
def turnkey_org(turnkey_emulator: Emulator) -> OrganizationHandle:
    """An organization with a root user and its P-256 API key."""
    return turnkey_emulator.create_organization("Test Organization")


@pytest.fixture
def turnkey_client(turnkey_emulator: Emulator, turnkey_org: OrganizationHandle) -> Iterator[Any]:
    """The official SDK's ``TurnkeyClient`` for ``turnkey_org``, answered in-process."""
    pytest.importorskip(
        "turnkey_http", reason="turnkey_client needs the official SDK: pip install turnkey-http"
    )
    with turnkey_emulator.intercept():
        yield turnkey_emulator.client(turnkey_org)
