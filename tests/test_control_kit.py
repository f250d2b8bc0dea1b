"""The control endpoints the Node kit added (``info``, ``chains/fund``, ``chains/balance``),
over a real socket: what they answer, that the private key is never among it, and that bad
input is the API's error shape and changes nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from emulator import Emulator
from emulator.http.control import Control
from emulator.http.server import serving

from .test_control import control, error

EVM = "eip155:1"
ADDRESS = "0x" + "ab" * 20
SOLANA_ADDRESS = "11111111111111111111111111111112"


@pytest.fixture
def served() -> Iterator[tuple[Emulator, str]]:
    emu = Emulator(seed=9)
    emu.create_organization("Acme")
    with serving(emu.world, control=Control(emu)) as url:
        yield emu, url


def test_info_is_the_public_half_of_the_first_line(served):
    emu, url = served
    org = emu.organization()
    status, info = control(url, "info")
    assert status == 200
    assert info == {
        "organizationId": org.organization_id,
        "organizationName": "Acme",
        "userId": org.user_id,
        "apiKeyId": org.api_key_id,
        "apiPublicKey": org.api_public_key,
        "signerPublicKey": emu.enclave.signer_public_key,
        "notarizerPublicKey": emu.enclave.notarizer_public_key,
        "tlsFetcherPublicKey": emu.enclave.tls_fetcher_public_key,
        "tlsFetcherEncryptPublicKey": emu.enclave.tls_fetcher_encrypt_public_key,
    }
    answer = requests.get(f"{url}/emulator/v1/info", timeout=10)  # a read: GET too
    assert answer.json() == info
    assert org.api_private_key not in answer.text


def test_info_of_an_emulator_without_an_organization():
    emu = Emulator(seed=9)
    with serving(emu.world, control=Control(emu)) as url:
        status, info = control(url, "info")
    assert status == 200 and info["organizationId"] is None and info["apiPublicKey"] is None
    assert info["signerPublicKey"] == emu.enclave.signer_public_key


def test_fund_and_balance_on_an_embedded_evm(served):
    pytest.importorskip("eth_tester")
    emu, url = served
    amount = 3 * 10**18
    assert control(
        url, "chains/fund", {"caip2": EVM, "address": ADDRESS, "amount": str(amount)}
    ) == (
        200,
        {"caip2": EVM, "address": ADDRESS, "balance": str(amount)},
    )
    assert emu.chains.evm(EVM).balance(ADDRESS) == amount  # the chain's own reading
    status, read = control(url, "chains/balance", {"caip2": EVM, "address": ADDRESS})
    assert (status, read["balance"]) == (200, str(amount))


def test_fund_on_an_embedded_solana(served):
    pytest.importorskip("solders.litesvm")
    emu, url = served
    status, answer = control(
        url, "chains/fund", {"caip2": "solana:mainnet", "address": SOLANA_ADDRESS, "amount": 5}
    )
    assert (status, answer["balance"]) == (200, "5")
    assert emu.chains.solana("solana:mainnet").balance(SOLANA_ADDRESS) == 5


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"caip2": "eip155:999999", "address": ADDRESS, "amount": 1},
         "'eip155:999999' is not a network Turnkey broadcasts to"),
        ({"caip2": ["x"], "address": ADDRESS, "amount": 1},
         "['x'] is not a network Turnkey broadcasts to"),
        ({"caip2": EVM, "address": "0x1234", "amount": 1}, "'0x1234' is not an address of eip155:1"),
        ({"caip2": EVM, "address": 7, "amount": 1}, "7 is not an address of eip155:1"),
        ({"caip2": EVM, "address": ADDRESS, "amount": -1},
         f"amount must be between 0 and {2**256 - 1}"),
        ({"caip2": EVM, "address": ADDRESS, "amount": 2**256},
         f"amount must be between 0 and {2**256 - 1}"),
        ({"caip2": "solana:mainnet", "address": SOLANA_ADDRESS, "amount": 2**64},
         f"amount must be between 0 and {2**64 - 1}"),
        ({"caip2": EVM, "address": ADDRESS, "amount": "1.5"},
         "amount must be an integer or a string of digits"),
        ({"caip2": EVM, "address": ADDRESS, "amount": "5\n"},
         "amount must be an integer or a string of digits"),
        ({"caip2": EVM, "address": ADDRESS + "\n", "amount": 1},
         f"{ADDRESS + chr(10)!r} is not an address of eip155:1"),
        ({"caip2": EVM, "address": ADDRESS}, "bad control request: 'amount'"),
        ({"address": ADDRESS, "amount": 1},
         "bad control request: caip19 (an asset) or caip2 (a network's native asset) is required"),
    ],
)  # fmt: skip
def test_bad_funding_is_a_400_and_changes_nothing(served, body, message):
    emu, url = served
    assert control(url, "chains/fund", body) == error(400, 3, message)
    assert emu.world.chains is None  # no chain was even started


def test_a_bad_solana_address_is_a_400(served):
    pytest.importorskip("solders.litesvm")
    _, url = served
    status, answer = control(
        url, "chains/fund", {"caip2": "solana:mainnet", "address": "0OIl", "amount": 1}
    )
    assert (status, answer["code"]) == (400, 3)
    assert answer["message"].startswith("bad control request:")


def test_restore_can_empty_the_observations_in_the_same_request(served):
    emu, url = served
    assert control(url, "snapshot")[0] == 200
    taken = {"snapshotId": "snapshot-1"}
    emu.create_wallet(wallet_name="after", accounts=[])
    emu.faults.fail_next("create_wallet")
    emu.update_user(user_id=emu.organization().user_id, user_email="a@example.com", user_tag_ids=[])
    emu.init_otp(otp_type="OTP_TYPE_EMAIL", contact="a@example.com", app_name="Kit")
    assert emu.calls.filter() and emu.faults.pending() and list(emu.outbox)
    assert control(url, "restore", {"snapshotId": taken["snapshotId"]}) == (200, {})
    assert emu.calls.filter() and emu.faults.pending() and list(emu.outbox)  # left alone
    assert control(
        url, "restore", {"snapshotId": taken["snapshotId"], "clearObservations": True}
    ) == (200, {})
    assert (emu.calls.filter(), emu.faults.pending(), list(emu.outbox)) == ([], [], [])
    assert emu.world.store.organizations[emu.organization().organization_id].wallets == {}


def test_a_restore_in_a_frozen_process_does_not_count_the_frozen_objects(monkeypatch):
    """``settled`` (every restore) once the process froze its state through gc_tuning, as
    ``serve`` and the plugin do: no walk of the permanent generation (it cost a ``serve``
    restore about 20 ms), and what the restore made is frozen as before."""
    import gc

    from emulator.ground import gc_tuning

    monkeypatch.setattr(gc_tuning, "_froze", True)

    def walked() -> int:
        raise AssertionError("gc.get_freeze_count() walked the permanent generation")

    emu = Emulator(seed=9)
    emu.create_organization("Acme")
    saved = emu.snapshot()
    before = gc.get_freeze_count()
    monkeypatch.setattr(gc_tuning.gc, "get_freeze_count", walked)
    emu.restore(saved)
    monkeypatch.undo()
    assert gc.get_freeze_count() > before  # the restored records went to the frozen ones
