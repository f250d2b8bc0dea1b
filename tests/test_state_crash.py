"""``serve --state`` killed with ``kill -9`` under concurrent writers loses nothing it answered.

Four rounds: writer threads create private keys and sign with one while the server is
killed at a random moment; each restart must hold every acknowledged key and signature
activity, and nothing half made: every key present was asked for, and comes with its
activity, and every completed activity's key is present.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import threading
import time

import requests

from emulator import ApiKeyPair
from emulator.crypto.stamps import sign_stamp

WRITERS = 4
ROUNDS = 4


def start(path, *extra):
    process = subprocess.Popen(
        [sys.executable, "-m", "emulator", "serve", "--port", "0", "--state", str(path), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    assert line, process.stderr.read()
    return process, json.loads(line)


def post(info, path, body):
    raw = json.dumps({"organizationId": info["organizationId"], **body}).encode()
    key = ApiKeyPair(info["apiPublicKey"], info["apiPrivateKey"])
    headers = {"X-Stamp": sign_stamp(raw, key).header_value(), "Content-Type": "application/json"}
    return requests.post(info["baseUrl"] + path, data=raw, headers=headers, timeout=10)


def submit(info, operation, activity_type, parameters):
    body = {
        "type": activity_type,
        "timestampMs": str(int(time.time() * 1000)),
        "parameters": parameters,
    }
    return post(info, "/public/v1/submit/" + operation, body)


def create_key(info, name):
    spec = {
        "privateKeyName": name,
        "curve": "CURVE_SECP256K1",
        "privateKeyTags": [],
        "addressFormats": [],
    }
    return submit(
        info,
        "create_private_keys",
        "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
        {"privateKeys": [spec]},
    )


def sign(info, key_id, payload):
    return submit(
        info,
        "sign_raw_payload",
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        {
            "signWith": key_id,
            "payload": payload,
            "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
            "hashFunction": "HASH_FUNCTION_NO_OP",
        },
    )


class Ledger:
    """What the writers asked for and what the server acknowledged."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.asked: set[str] = set()  # key names sent
        self.keys: dict[str, str] = {}  # acknowledged: key name -> id
        self.signatures: dict[str, str] = {}  # acknowledged: activity id -> payload


def writer(info, ledger: Ledger, number: int, signer: str, stop: threading.Event) -> None:
    count = 0
    while not stop.is_set():
        count += 1
        try:
            if number % 2 or len(ledger.asked) > 800:  # keys: at most 1,000 an organization
                payload = f"{number:02x}{count:06x}{random.getrandbits(64):016x}".ljust(64, "0")
                response = sign(info, signer, payload)
                if response.status_code == 200:
                    activity = response.json()["activity"]
                    with ledger.lock:
                        ledger.signatures[activity["id"]] = payload
            else:
                name = f"w{number}-{info['round']}-{count}"
                with ledger.lock:
                    ledger.asked.add(name)
                response = create_key(info, name)
                if response.status_code == 200:
                    result = response.json()["activity"]["result"]
                    key_id = result["createPrivateKeysResultV2"]["privateKeys"][0]["privateKeyId"]
                    with ledger.lock:
                        ledger.keys[name] = key_id
        except requests.RequestException:
            return  # the server is gone: what was not answered was not acknowledged


def all_activities(info) -> list[dict]:
    activities: list[dict] = []
    while True:
        options = {"limit": "100", **({"after": activities[-1]["id"]} if activities else {})}
        page = post(info, "/public/v1/query/list_activities", {"paginationOptions": options})
        found = page.json()["activities"]
        activities.extend(found)
        if len(found) < 100:
            return activities


def check(info, ledger: Ledger, signer: str) -> None:
    keys = post(info, "/public/v1/query/list_private_keys", {}).json()["privateKeys"]
    present = {k["privateKeyName"]: k["privateKeyId"] for k in keys if k["privateKeyId"] != signer}
    for name, key_id in ledger.keys.items():
        assert present.get(name) == key_id, f"acknowledged key {name} lost"
    assert set(present) <= ledger.asked, "a key nobody asked for"
    activities = all_activities(info)
    by_id = {a["id"]: a for a in activities}
    for activity_id, payload in ledger.signatures.items():
        activity = by_id.get(activity_id)
        assert activity is not None, f"acknowledged signature {activity_id} lost"
        intent = activity["intent"]["signRawPayloadIntentV2"]
        assert (activity["status"], intent["payload"]) == ("ACTIVITY_STATUS_COMPLETED", payload)
    made = {
        a["result"]["createPrivateKeysResultV2"]["privateKeys"][0]["privateKeyId"]
        for a in activities
        if a["type"] == "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2"
    }
    assert made == set(present.values()) | {signer}, "a key without its activity, or the reverse"
    for key_id in list(present.values())[-3:]:
        response = post(info, "/public/v1/query/get_private_key", {"privateKeyId": key_id})
        assert (
            response.status_code == 200 and response.json()["privateKey"]["privateKeyId"] == key_id
        )


def test_kill_9_under_concurrent_writers_loses_nothing_acknowledged(tmp_path):
    path = tmp_path / "state.sqlite"
    rng = random.Random()
    process, first = start(path)
    try:
        response = create_key(first, "signer")
        assert response.status_code == 200, response.text
        result = response.json()["activity"]["result"]
        signer = result["createPrivateKeysResultV2"]["privateKeys"][0]["privateKeyId"]
        ledger = Ledger()
        info = first
        for round_number in range(ROUNDS):
            info = {**info, "round": round_number}
            stop = threading.Event()
            threads = [
                threading.Thread(target=writer, args=(info, ledger, n, signer, stop))
                for n in range(WRITERS)
            ]
            for thread in threads:
                thread.start()
            time.sleep(rng.uniform(0.3, 0.9))
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=10)
            stop.set()
            for thread in threads:
                thread.join(timeout=15)
            # every other restart compacts often, so that kills land in compactions too
            extra = ("--compact-every", "3") if round_number % 2 == 0 else ()
            process, info = start(path, *extra)
            for name in ("organizationId", "userId", "apiKeyId", "apiPublicKey", "apiPrivateKey"):
                assert info[name] == first[name]
            check(info, ledger, signer)
        assert len(ledger.keys) >= ROUNDS and len(ledger.signatures) >= ROUNDS
    finally:
        process.terminate()
        process.wait(timeout=10)
