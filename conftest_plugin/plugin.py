"""Fixtures for tests of code that talks to Turnkey's API.

* ``turnkey_emulator``: the test's ``Emulator``. By default one emulator per
  session (per xdist worker) is shared, and each test starts from the same
  baseline: a checkpoint is taken before the test and rolled back after it, so
  a test costs only the changes it makes. ``@pytest.mark.turnkey(...)`` gives
  the test a fresh emulator with those options instead.
* ``turnkey_org``: the baseline organization (``OrganizationHandle``).
* ``turnkey_client``: an official-SDK ``TurnkeyClient`` for it, in-process
  (skipped when ``turnkey_http`` is not installed).
* ``turnkey_server``: the emulator served on a real socket, with the
  credentials a client in another language needs (``TurnkeyServer``).
* ``turnkey_wallet``: a wallet of a known mnemonic in ``turnkey_org`` with an
  Ethereum and a Solana account at the SDKs' default paths.

Command-line options: ``--turnkey-seed N``, ``--turnkey-timestamp-window S``
and ``--turnkey-fresh`` (a fresh emulator for every test, no sharing). The
emulator is imported lazily, when a fixture runs.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from emulator import Emulator, OrganizationHandle

MARKER = "turnkey"
ORGANIZATION_NAME = "Test Organization"
# BIP39's best-known test mnemonic: its addresses are in every wallet's test vectors.
WALLET_MNEMONIC = (
    "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("turnkey", "Turnkey emulator")
    group.addoption("--turnkey-seed", type=int, default=None, help="seed of the emulators")
    group.addoption(
        "--turnkey-timestamp-window",
        type=float,
        default=None,
        help="allowed drift of timestampMs in seconds (default 600)",
    )
    group.addoption(
        "--turnkey-fresh",
        action="store_true",
        help="a fresh emulator for every test instead of one shared and rolled back",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(seed=None, timestamp_window_s=600.0, settings=None): a fresh Turnkey "
        "emulator with these options for this test",
    )


def _options(config: pytest.Config) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if config.getoption("turnkey_seed") is not None:
        options["seed"] = config.getoption("turnkey_seed")
    if config.getoption("turnkey_timestamp_window") is not None:
        options["timestamp_window_s"] = config.getoption("turnkey_timestamp_window")
    return options


@dataclass
class _Shared:
    """The session's emulator, its baseline organization and the baseline to return to."""

    emulator: Emulator
    org: OrganizationHandle
    baseline: Any  # a Snapshot: the fallback when a test replaced the state wholesale
    checkpoint: Any  # every test rolls back to this one (so the journal does not grow)


@pytest.fixture(scope="session")
def _turnkey_shared(request: pytest.FixtureRequest) -> _Shared:
    from emulator import Emulator
    from emulator.ground.gc_tuning import for_latency, freeze_survivors

    emulator = Emulator(**_options(request.config))
    org = emulator.create_organization(ORGANIZATION_NAME)
    shared = _Shared(emulator, org, emulator.snapshot(), emulator.checkpoint())
    freeze_survivors()  # the session's long-lived objects: never scanned again
    for_latency()  # young collections spaced out (emulator/ground/gc_tuning.py)
    request.addfinalizer(emulator.close)  # its webhook sender, if one started
    return shared


@dataclass
class _TestEmulator:
    emulator: Emulator
    org: OrganizationHandle | None  # the baseline organization of a shared emulator


@pytest.fixture
def _turnkey(request: pytest.FixtureRequest) -> Iterator[_TestEmulator]:
    from emulator import Emulator

    marker = request.node.get_closest_marker(MARKER)
    if marker is not None or request.config.getoption("turnkey_fresh"):
        options = {**_options(request.config), **(marker.kwargs if marker else {})}
        fresh = Emulator(**options)
        try:
            yield _TestEmulator(fresh, None)
        finally:
            fresh.close()  # its webhook sender, if it started one
        return
    shared: _Shared = request.getfixturevalue("_turnkey_shared")
    emulator = shared.emulator
    settings = copy.copy(emulator.settings)
    try:
        yield _TestEmulator(emulator, shared.org)
    finally:
        try:
            emulator.rollback(shared.checkpoint)
        except ValueError:  # the test reset or restored the state: back to the baseline
            emulator.restore(shared.baseline)
            shared.checkpoint = emulator.checkpoint()
        emulator.settings.__dict__.update(settings.__dict__)
        _forget_observations(emulator)


def _forget_observations(emulator: Emulator) -> None:
    """Call log, pending faults, the outbox, webhook deliveries and receivers, and the embedded
    chains belong to one test (a test that broadcasts starts the chains afresh; one that does
    not pays nothing)."""
    world = emulator.world
    for name in ("calls", "faults", "outbox", "webhooks"):
        part = getattr(world, name, None)
        if part is not None and hasattr(part, "clear"):
            part.clear()
    webhooks = getattr(world, "webhooks", None)
    if webhooks is not None and hasattr(webhooks, "unroute_all"):
        webhooks.unroute_all()
    if getattr(world, "chains", None) is not None:
        world.chains = None


@pytest.fixture
def turnkey_emulator(_turnkey: _TestEmulator) -> Emulator:
    """The test's emulator (shared and rolled back, or fresh with the marker's options)."""
    return _turnkey.emulator


@pytest.fixture
def turnkey_org(_turnkey: _TestEmulator) -> OrganizationHandle:
    """An organization with a root user and its P-256 API key."""
    if _turnkey.org is not None:
        return _turnkey.org
    _turnkey.org = _turnkey.emulator.create_organization(ORGANIZATION_NAME)
    return _turnkey.org


@pytest.fixture
def turnkey_client(turnkey_emulator: Emulator, turnkey_org: OrganizationHandle) -> Iterator[Any]:
    """The official SDK's ``TurnkeyClient`` for ``turnkey_org``, answered in-process."""
    pytest.importorskip(
        "turnkey_http",
        reason="turnkey_client needs the official SDK: pip install 'turnkey-emulator[sdk]'",
    )
    with turnkey_emulator.intercept():
        yield turnkey_emulator.client(turnkey_org)


@dataclass(frozen=True)
class TurnkeyServer:
    """A live server and the credentials of its organization's root user."""

    base_url: str
    organization_id: str
    user_id: str
    api_key_id: str
    api_public_key: str
    api_private_key: str

    def __repr__(self) -> str:  # never show the private key
        return (
            f"TurnkeyServer(base_url={self.base_url!r}, organization_id={self.organization_id!r})"
        )


@pytest.fixture
def turnkey_server(
    turnkey_emulator: Emulator, turnkey_org: OrganizationHandle
) -> Iterator[TurnkeyServer]:
    """The test's emulator on a real socket (127.0.0.1, a free port), for any HTTP client."""
    from emulator.http.server import serving

    with serving(turnkey_emulator.world) as url:
        yield TurnkeyServer(
            url,
            turnkey_org.organization_id,
            turnkey_org.user_id,
            turnkey_org.api_key_id,
            turnkey_org.api_public_key,
            turnkey_org.api_private_key,
        )


@dataclass(frozen=True)
class TurnkeyWallet:
    wallet_id: str
    ethereum_address: str
    solana_address: str


@pytest.fixture
def turnkey_wallet(turnkey_emulator: Emulator, turnkey_org: OrganizationHandle) -> TurnkeyWallet:
    """A wallet of the ``abandon … about`` mnemonic with an Ethereum and a Solana account."""
    from emulator.accounts import account_spec

    made = turnkey_emulator.backdoor.import_wallet(
        WALLET_MNEMONIC,
        name="Test Wallet",
        accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM"), account_spec("ADDRESS_FORMAT_SOLANA")],
        organization_id=turnkey_org.organization_id,
    )
    ethereum, solana = made["addresses"]
    return TurnkeyWallet(made["walletId"], ethereum, solana)
