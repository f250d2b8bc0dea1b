"""``python -m emulator serve`` as a real process: first line, requests, clean exit."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest
import requests

from emulator import generate_key_pair
from emulator.crypto.stamps import sign_stamp


def start(*args):
    process = subprocess.Popen(
        [sys.executable, "-m", "emulator", "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    return process, json.loads(line)


def whoami(info):
    raw = json.dumps({"organizationId": info["organizationId"]}).encode()
    from emulator import ApiKeyPair

    key = ApiKeyPair(info["apiPublicKey"], info["apiPrivateKey"])
    headers = {"X-Stamp": sign_stamp(raw, key).header_value(), "Content-Type": "application/json"}
    return requests.post(
        info["baseUrl"] + "/public/v1/query/whoami", data=raw, headers=headers, timeout=10
    )


@pytest.mark.parametrize("stop_with", [signal.SIGTERM, signal.SIGINT])
def test_serve_prints_credentials_answers_and_exits_cleanly(stop_with):
    process, info = start()
    try:
        assert set(info) >= {"baseUrl", "organizationId", "userId", "apiPublicKey", "apiPrivateKey"}
        assert info["baseUrl"].startswith("http://127.0.0.1:") and not info["baseUrl"].endswith(
            ":0"
        )
        response = whoami(info)
        assert (
            response.status_code == 200 and response.headers["Content-Type"] == "application/json"
        )
        assert response.json()["userId"] == info["userId"]
        assert requests.post(info["baseUrl"] + "/nope", data=b"{}", timeout=10).status_code == 404
    finally:
        process.send_signal(stop_with)
        assert process.wait(timeout=10) == 0


def test_serve_with_given_key_and_seed():
    key = generate_key_pair()
    process, info = start(
        "--api-public-key", key.public_key, "--api-private-key", key.private_key, "--seed", "4"
    )
    try:
        assert (info["apiPublicKey"], info["apiPrivateKey"]) == (key.public_key, key.private_key)
        assert whoami(info).status_code == 200
    finally:
        process.terminate()
        process.wait(timeout=10)
    again, info2 = start(
        "--api-public-key", key.public_key, "--api-private-key", key.private_key, "--seed", "4"
    )
    again.terminate()
    again.wait(timeout=10)
    assert info2["organizationId"] == info["organizationId"]


def test_serve_refuses_a_mismatched_key_pair():
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "emulator",
            "serve",
            "--port",
            "0",
            "--api-public-key",
            generate_key_pair().public_key,
            "--api-private-key",
            generate_key_pair().private_key,
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert completed.returncode == 2 and "not the public key" in completed.stderr
