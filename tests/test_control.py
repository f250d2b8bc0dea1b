"""The control endpoints (/emulator/v1/...), over a real socket."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import requests

from emulator import ApiKeyPair, Emulator
from emulator.crypto.stamps import sign_stamp
from emulator.http.control import Control
from emulator.http.server import serving


@pytest.fixture
def served() -> Iterator[tuple[Emulator, str]]:
    emu = Emulator(seed=9)
    emu.create_organization("Acme")
    with serving(emu.world, control=Control(emu)) as url:
        yield emu, url


def control(url: str, name: str, body: dict | None = None) -> tuple[int, dict]:
    answer = requests.post(f"{url}/emulator/v1/{name}", json=body or {}, timeout=10)
    return answer.status_code, answer.json()


def error(status: int, code: int, message: str) -> tuple[int, dict]:
    return status, {"code": code, "message": message, "details": [], "turnkeyErrorCode": ""}


def whoami(emu: Emulator, url: str) -> requests.Response:
    org_id = emu._first_org_id
    raw = json.dumps({"organizationId": org_id}).encode()
    key: ApiKeyPair = emu._callers[org_id]
    headers = {"X-Stamp": sign_stamp(raw, key).header_value()}
    return requests.post(f"{url}/public/v1/query/whoami", data=raw, headers=headers, timeout=10)


def test_health_names_the_organization(served):
    emu, url = served
    assert control(url, "health") == (200, {"ok": True, "organizationId": emu._first_org_id})
    answer = requests.get(f"{url}/emulator/v1/health", timeout=10)
    assert answer.status_code == 200 and answer.json()["ok"] is True


def test_snapshot_and_restore_over_http(served):
    emu, url = served
    status, body = control(url, "snapshot")
    assert status == 200 and body == {"snapshotId": "snapshot-1"}
    emu.create_wallet(wallet_name="later", accounts=[])
    assert len(emu.get_wallets()["wallets"]) == 1
    assert control(url, "restore", {"snapshotId": "snapshot-1"}) == (200, {})
    assert emu.get_wallets()["wallets"] == []
    assert whoami(emu, url).status_code == 200
    assert control(url, "restore", {"snapshotId": "nope"}) == error(404, 5, "no snapshot 'nope'")


def test_reset_without_a_baseline_empties_the_emulator(served):
    emu, url = served
    assert control(url, "reset") == (200, {"organizationId": None})
    assert emu.world.store.organizations == {}
    assert control(url, "health")[1]["organizationId"] is None


def test_reset_goes_back_to_the_baseline_and_its_credentials_keep_working():
    emu = Emulator(seed=9)
    org = emu.create_organization("Acme")
    with serving(emu.world, control=Control(emu, baseline=emu.snapshot())) as url:
        emu.create_wallet(wallet_name="later", accounts=[])
        assert control(url, "reset") == (200, {"organizationId": org.organization_id})
        assert emu.get_wallets()["wallets"] == []
        answer = whoami(emu, url)
        assert answer.status_code == 200 and answer.json()["userId"] == org.user_id


def test_clock_freezes_and_advances(served):
    emu, url = served
    status, body = control(url, "clock", {"freezeAtMs": 1_700_000_000_000})
    assert (status, body) == (200, {"nowMs": 1_700_000_000_000, "frozen": True})
    assert control(url, "clock", {"advanceSeconds": 90})[1]["nowMs"] == 1_700_000_090_000
    assert emu.clock.now_ms() == 1_700_000_090_000
    assert control(url, "clock", {"unfreeze": True})[1]["frozen"] is False


def test_unknown_endpoint_and_bad_bodies(served):
    _, url = served
    assert control(url, "nope") == error(404, 5, "no control endpoint /emulator/v1/nope")
    json_type = {"Content-Type": "application/json"}
    answer = requests.post(f"{url}/emulator/v1/clock", data=b"[1]", headers=json_type, timeout=10)
    assert (answer.status_code, answer.json()) == error(400, 3, "the body must be a JSON object")
    answer = requests.post(f"{url}/emulator/v1/clock", data=b"{", headers=json_type, timeout=10)
    assert answer.status_code == 400 and answer.json()["message"].startswith("bad control request")


def test_without_control_the_paths_are_unknown():
    emu = Emulator()
    with serving(emu.world) as url:
        answer = requests.post(f"{url}/emulator/v1/health", json={}, timeout=10)
    assert answer.status_code == 404 and answer.json()["message"] == "Not Found"


def test_faults_and_calls_over_http(served):
    emu, url = served
    status, body = control(
        url, "faults", {"operation": "whoami", "status": 503, "message": "try later"}
    )
    assert status == 200 and len(body["pending"]) == 1
    failed = whoami(emu, url)
    assert failed.status_code == 503 and failed.json()["message"] == "try later"
    assert whoami(emu, url).status_code == 200  # the rule was used up
    status, body = control(url, "calls", {"operation": "whoami"})
    assert status == 200
    assert [(c["operation"], c["httpStatus"]) for c in body["calls"]] == [
        ("whoami", 503),
        ("whoami", 200),
    ]
    assert body["calls"][1]["userId"] == emu.organization().user_id
    assert control(url, "calls/clear") == (200, {})
    assert control(url, "calls")[1] == {"calls": []}
    control(url, "faults", {"operation": "whoami"})
    assert control(url, "faults/clear") == (200, {})
    assert whoami(emu, url).status_code == 200
