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


def test_serve_prints_the_enclave_public_keys():
    from emulator import Emulator

    names = (
        "signerPublicKey",
        "notarizerPublicKey",
        "tlsFetcherPublicKey",
        "tlsFetcherEncryptPublicKey",
    )
    process, info = start("--seed", "5")
    process.terminate()
    process.wait(timeout=10)
    enclave = Emulator(seed=5).enclave
    expected = (
        enclave.signer_public_key,
        enclave.notarizer_public_key,
        enclave.tls_fetcher_public_key,
        enclave.tls_fetcher_encrypt_public_key,
    )
    assert tuple(info[name] for name in names) == expected
    assert len(set(expected)) == 4
    for value in expected:
        assert len(value) == 130 and value.startswith("04") and value == value.lower()
        bytes.fromhex(value)
    on_ramp = info["onRampEncryptPublicKey"]  # compressed, as encryptOnRampSecret takes it
    assert on_ramp == enclave.on_ramp_encrypt_public_key and len(on_ramp) == 66
    assert on_ramp[:2] in ("02", "03") and on_ramp[2:] not in "".join(expected)
    unseeded, fresh = start()
    unseeded.terminate()
    unseeded.wait(timeout=10)
    assert all(len(fresh[name]) == 130 and fresh[name].startswith("04") for name in names)
    assert fresh["signerPublicKey"] != info["signerPublicKey"]


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


def submit(info, operation, activity_type, parameters, timestamp_ms):
    from emulator import ApiKeyPair

    body = {
        "type": activity_type,
        "timestampMs": str(timestamp_ms),
        "organizationId": info["organizationId"],
        "parameters": parameters,
    }
    raw = json.dumps(body).encode()
    key = ApiKeyPair(info["apiPublicKey"], info["apiPrivateKey"])
    headers = {"X-Stamp": sign_stamp(raw, key).header_value(), "Content-Type": "application/json"}
    response = requests.post(
        info["baseUrl"] + "/public/v1/submit/" + operation, data=raw, headers=headers, timeout=10
    )
    assert response.status_code == 200, response.text
    return response.json()["activity"]["result"]


def seeded_run(seed: str) -> tuple[dict, list]:
    """Start ``serve --seed``, make a wallet and a private key, sign; answer what came back."""
    import time

    process, info = start("--seed", seed)
    try:
        now = int(time.time() * 1000)
        account = {
            "curve": "CURVE_SECP256K1",
            "pathFormat": "PATH_FORMAT_BIP32",
            "path": "m/44'/60'/0'/0/0",
            "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
        }
        wallet = submit(
            info,
            "create_wallet",
            "ACTIVITY_TYPE_CREATE_WALLET",
            {"walletName": "w", "accounts": [account]},
            now,
        )
        key = submit(
            info,
            "create_private_keys",
            "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
            {
                "privateKeys": [
                    {
                        "privateKeyName": "k",
                        "curve": "CURVE_ED25519",
                        "privateKeyTags": [],
                        "addressFormats": ["ADDRESS_FORMAT_SOLANA"],
                    }
                ]
            },
            now + 1,
        )
        signature = submit(
            info,
            "sign_raw_payload",
            "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
            {
                "signWith": wallet["createWalletResult"]["addresses"][0],
                "payload": "00" * 32,
                "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
                "hashFunction": "HASH_FUNCTION_NO_OP",
            },
            now + 2,
        )
    finally:
        process.terminate()
        process.wait(timeout=10)
    return info, [wallet, key, signature]


def test_serve_with_a_seed_makes_the_same_keys_and_addresses_every_run():
    first_info, first = seeded_run("11")
    second_info, second = seeded_run("11")
    for name in ("organizationId", "userId", "apiKeyId", "apiPublicKey", "apiPrivateKey"):
        assert first_info[name] == second_info[name]
    assert first == second
    _, other = seeded_run("12")
    assert (
        other[0]["createWalletResult"]["addresses"] != first[0]["createWalletResult"]["addresses"]
    )


def query(info, operation, body=None):
    from emulator import ApiKeyPair

    raw = json.dumps({"organizationId": info["organizationId"], **(body or {})}).encode()
    key = ApiKeyPair(info["apiPublicKey"], info["apiPrivateKey"])
    headers = {"X-Stamp": sign_stamp(raw, key).header_value(), "Content-Type": "application/json"}
    response = requests.post(
        info["baseUrl"] + "/public/v1/query/" + operation, data=raw, headers=headers, timeout=10
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_serve_with_a_state_file_survives_kill_9(tmp_path):
    import os
    import time

    path = tmp_path / "state.sqlite"
    process, info = start("--state", str(path))
    try:
        made = submit(
            info,
            "create_wallet",
            "ACTIVITY_TYPE_CREATE_WALLET",
            {"walletName": "kept", "accounts": []},
            int(time.time() * 1000),
        )
    finally:
        process.send_signal(signal.SIGKILL)  # no chance to flush anything more
        process.wait(timeout=10)
    assert os.stat(path).st_mode & 0o777 == 0o600

    again, info2 = start("--state", str(path))
    try:
        for name in ("organizationId", "userId", "apiKeyId", "apiPublicKey", "apiPrivateKey"):
            assert info2[name] == info[name]
        wallets = query(info2, "list_wallets")["wallets"]
        assert [(w["walletId"], w["walletName"]) for w in wallets] == [
            (made["createWalletResult"]["walletId"], "kept")
        ]
        second = submit(
            info2,
            "create_wallet",
            "ACTIVITY_TYPE_CREATE_WALLET",
            {"walletName": "next", "accounts": []},
            int(time.time() * 1000),
        )
        assert second["createWalletResult"]["walletId"] != made["createWalletResult"]["walletId"]
    finally:
        again.terminate()
        assert again.wait(timeout=10) == 0


def serve_fails(*args: str) -> str:
    """Run ``serve`` expecting a start-up error: its one line on stderr."""
    completed = subprocess.run(
        [sys.executable, "-m", "emulator", "serve", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 2, completed.stderr
    assert completed.stdout == ""
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), completed.stderr
    assert "Traceback" not in completed.stderr
    return lines[0]


def test_start_up_errors_are_one_line_and_a_non_zero_exit(tmp_path):
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        port = held.getsockname()[1]
        assert f"port {port} on 127.0.0.1 is in use" in serve_fails("--port", str(port))
    assert "unknown host 'no-such-host.invalid'" in serve_fails(
        "--host", "no-such-host.invalid", "--port", "0", "--control-token", "t"
    )
    assert "is not an address of this machine" in serve_fails(
        "--host", "192.0.2.1", "--port", "0", "--control-token", "t"
    )
    assert "without a control token" in serve_fails("--host", "0.0.0.0", "--port", "0")
    assert serve_fails("--port", "0", "--state", str(tmp_path / "missing" / "dir" / "state.db"))
    assert serve_fails("--port", "0", "--state", str(tmp_path))  # a directory
    assert "must be positive" in serve_fails("--port", "0", "--max-body-mib", "0")


def test_a_control_token_is_printed_and_required():
    process, info = start("--control-token", "letmein")
    try:
        assert info["controlToken"] == "letmein"
        url = info["baseUrl"] + "/emulator/v1/health"
        assert requests.get(url, timeout=10).status_code == 401
        answer = requests.get(url, headers={"Authorization": "Bearer letmein"}, timeout=10)
        assert (
            answer.status_code == 200 and answer.json()["organizationId"] == info["organizationId"]
        )
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_reset_keeps_the_printed_credentials_working():
    process, info = start()
    try:
        reset = requests.post(info["baseUrl"] + "/emulator/v1/reset", json={}, timeout=10)
        assert reset.json() == {"organizationId": info["organizationId"]}
        answer = whoami(info)
        assert answer.status_code == 200 and answer.json()["userId"] == info["userId"]
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_serve_with_an_auth_proxy_prints_its_url_and_config_id():
    settings = json.dumps({"enabledProviders": ["email"], "sessionExpirationSeconds": 3600})
    process, info = start("--auth-proxy-config", settings)
    try:
        assert info["authProxyUrl"] == info["baseUrl"] + "/authproxy"
        answer = requests.post(
            info["authProxyUrl"] + "/v1/wallet_kit_config",
            json={},
            headers={"X-Auth-Proxy-Config-ID": info["authProxyConfigId"]},
            timeout=10,
        )
        assert answer.status_code == 200
        assert answer.json()["enabledProviders"] == ["email"]
        assert answer.json()["sessionExpirationSeconds"] == "3600"
        assert answer.json()["organizationId"] == info["organizationId"]
    finally:
        process.terminate()
        assert process.wait(timeout=10) == 0
    process, info = start()
    process.terminate()
    process.wait(timeout=10)
    assert (info["authProxyUrl"], info["authProxyConfigId"]) == (None, None)


def test_a_bad_auth_proxy_config_is_a_start_up_error():
    assert "--auth-proxy-config is not JSON" in serve_fails(
        "--port", "0", "--auth-proxy-config", "{"
    )
    assert "unknown sign-in method 'pigeon'" in serve_fails(
        "--port", "0", "--auth-proxy-config", '{"enabledProviders": ["pigeon"]}'
    )


def test_the_auth_proxy_config_id_is_the_same_after_a_restart_with_state(tmp_path):
    ids = []
    for _ in range(2):
        process, info = start("--state", str(tmp_path / "state.db"), "--auth-proxy")
        try:
            answer = requests.post(
                info["authProxyUrl"] + "/v1/otp_init_v2",
                json={"otpType": "OTP_TYPE_EMAIL", "contact": "ada@example.com"},
                headers={"X-Auth-Proxy-Config-ID": info["authProxyConfigId"]},
                timeout=10,
            )
            assert answer.status_code == 200, answer.text
            ids.append(info["authProxyConfigId"])
        finally:
            process.terminate()
            assert process.wait(timeout=10) == 0
    assert ids[0] == ids[1]
