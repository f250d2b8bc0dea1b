from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from emulator import Emulator
from emulator.ground import compact
from emulator.http.app import handle
from emulator.http.server import serving

from .helpers import encode, stamped_headers

# Every settled activity the suite records is checked as it is compacted: its intents and
# timestamp derived from its body must be the ones it kept (``emulator/ground/compact.py``).
# And soon: an activity is compacted once two newer ones are recorded, not 64.
compact.VERIFY = True
compact.YOUNG = 2

# ``pytest -m fuzz --hypothesis-profile=long``: the fuzz run long (docs/fuzzing.md).
settings.register_profile(
    "long", max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck)
)


class Wire:
    """Send raw HTTP-shaped requests to an emulator, in-process, and read the answers."""

    def __init__(self, emu: Emulator) -> None:
        self.emu = emu

    def post(self, path: str, body: Any, key=None, *, raw: bytes | None = None, headers=None):
        data = raw if raw is not None else encode(body)
        hdrs = dict(headers or {})
        if key is not None:
            hdrs.update(stamped_headers(data, key))
        status, payload = handle(self.emu.world, "POST", path, hdrs, data)
        import json

        return status, json.loads(payload)


@pytest.fixture
def wire(turnkey_emulator: Emulator) -> Wire:
    return Wire(turnkey_emulator)


@pytest.fixture
def live_server(turnkey_emulator: Emulator) -> Iterator[str]:
    """The test's emulator served over a real socket; yields its base URL."""
    with serving(turnkey_emulator.world) as url:
        yield url


@pytest.fixture(params=["in-process", "socket"])
def sdk(request, turnkey_emulator: Emulator, turnkey_org):
    """The official TurnkeyClient for ``turnkey_org``, in-process and over a real socket."""
    pytest.importorskip("turnkey_http")
    if request.param == "in-process":
        with turnkey_emulator.intercept():
            yield turnkey_emulator.client(turnkey_org)
    else:
        url = request.getfixturevalue("live_server")
        yield turnkey_emulator.client(turnkey_org, base_url=url)
