"""Turnkey's offline examples, mirrored, run as a user runs them against a real ``serve``.

``tests/examples/*.mjs`` are our own scripts doing what examples of ``tkhq/sdk``
``examples/`` do, with the same npm packages (pinned by ``tests/examples/package-lock.json``),
the same calls and the same printed checks; each names the example it mirrors and how it
differs (``docs/examples.md``). Each runs in ``node`` in a directory holding its
``.env.local`` (``serve``'s credentials and enclave keys), its ``prompts`` answered through
stdin as they appear. Without node, npm or the registry, the tests skip, saying why.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from emulator.testing.client_crypto import TargetKey

from .typescript import npm_ci_or_skip

EXAMPLES = Path(__file__).parent / "examples"
RUN_TIMEOUT_S = 120
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
ABANDON = " ".join(["abandon"] * 11 + ["about"])
HEX_KEY = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"


@pytest.fixture(scope="module")
def node() -> str:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are needed to run the mirrored examples")
    with open(EXAMPLES / ".install.lock", "w") as lock:  # one install across xdist workers
        fcntl.flock(lock, fcntl.LOCK_EX)
        npm_ci_or_skip(npm, EXAMPLES, EXAMPLES / "node_modules" / "@turnkey" / "sdk-server")
    return node


@pytest.fixture(scope="module")
def served() -> Iterator[dict]:
    """A real ``python -m emulator serve`` and its first line."""
    process = subprocess.Popen(
        [sys.executable, "-m", "emulator", "serve", "--port", "0", "--seed", "11"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield json.loads(process.stdout.readline())  # type: ignore[union-attr]
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=20)


def env_of(info: dict, **extra: str) -> dict[str, str]:
    """What the examples' ``.env.local`` holds, from ``serve``'s first line."""
    return {
        "API_PUBLIC_KEY": info["apiPublicKey"],
        "API_PRIVATE_KEY": info["apiPrivateKey"],
        "BASE_URL": info["baseUrl"],
        "ORGANIZATION_ID": info["organizationId"],
        "USER_ID": info["userId"],
        "SIGNER_PUBLIC_KEY": info["signerPublicKey"],
        **extra,
    }


def run_example(
    node: str,
    directory: Path,
    script: str,
    env: dict[str, str],
    answers: list[tuple[str, str]] = (),  # type: ignore[assignment]
    *args: str,
) -> str:
    """Run ``script`` in ``directory`` (its ``.env.local`` written from ``env``), answering
    each prompt (``(its message, the answer)``, in order) once it is shown; its output
    (stdout and stderr, colours removed). A non-zero exit fails the test."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = [f'{name}="{value}"' for name, value in env.items()]
    (directory / ".env.local").write_text("\n".join(lines) + "\n")
    clean_env = {k: v for k, v in os.environ.items() if k not in env}
    process = subprocess.Popen(
        [node, str(EXAMPLES / script), *args],
        cwd=directory,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=clean_env,
    )
    assert process.stdin is not None and process.stdout is not None
    output, pending, search_from = b"", list(answers), 0
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while True:
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"{script} did not finish: {ANSI.sub('', output.decode())[-2000:]}")
        ready, _, _ = select.select([process.stdout], [], [], 0.2)
        if ready:
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                break
            output += chunk
        shown = ANSI.sub("", output[search_from:].decode("utf-8", "replace"))
        if pending and pending[0][0] in shown:
            _, answer = pending.pop(0)
            search_from = len(output)  # the next prompt is looked for after this one
            process.stdin.write(answer.encode() + b"\n")
            process.stdin.flush()
    process.wait(timeout=30)
    text = ANSI.sub("", output.decode("utf-8", "replace"))
    assert process.returncode == 0, text[-3000:]
    assert not pending, f"prompts never shown: {pending}"
    return text


def test_with_viem_creates_a_wallet_then_signs_a_message(node, served, tmp_path) -> None:
    """examples/chain-integrations/with-viem: createNewWallet.ts, then index.ts step 1."""
    created = run_example(node, tmp_path, "with-viem.mjs", env_of(served))
    assert "creating a new wallet on Turnkey..." in created
    assert re.search(r"- Name: ETH Wallet [0-9a-f]{4}\n", created)
    assert re.search(r"- Wallet ID: [0-9a-f-]{36}\n", created)
    (address,) = re.findall(r"- Address: (0x[0-9a-fA-F]{40})\n", created)
    signed = run_example(
        node,
        tmp_path,
        "with-viem.mjs",
        env_of(served, SIGN_WITH=address),
        [("Message to sign", "")],  # the prompt's initial "Hello Turnkey"
    )
    assert re.search(r"Turnkey-powered signature:\n\t0x[0-9a-f]{130}\n", signed)
    assert f"Recovered address:\n\t{address}\n" in signed  # the script asserts them equal


def test_import_then_export_a_wallet_and_a_key(node, served, tmp_path) -> None:
    """examples/key-management/import-in-node and export-in-node, both ways."""
    env = env_of(served)
    imported = run_example(
        node,
        tmp_path,
        "import-in-node.mjs",
        env,
        [("Enter Import Type", "wallet"), ("Enter mnemonic seed phrase", ABANDON)],
    )
    (wallet_id,) = re.findall(r"Successfully imported wallet with id: ([0-9a-f-]{36})", imported)
    exported = run_example(
        node,
        tmp_path,
        "export-in-node.mjs",
        env,
        [("Enter Export Type", "wallet"), ("Enter wallet id to export", wallet_id)],
    )
    assert exported.rstrip().endswith(ABANDON)
    imported = run_example(
        node,
        tmp_path,
        "import-in-node.mjs",
        env,
        [
            ("Enter Import Type", "key"),
            ("Enter Private Key to import", HEX_KEY),
            ("Enter Key Format", "HEXADECIMAL"),
        ],
    )
    (key_id,) = re.findall(r"Successfully imported private key with id: ([0-9a-f-]{36})", imported)
    exported = run_example(
        node,
        tmp_path,
        "export-in-node.mjs",
        env,
        [("Enter Export Type", "key"), ("Enter private key id to export", key_id)],
    )
    assert exported.rstrip().endswith(HEX_KEY)


def test_with_delegated_sets_up_then_validates_the_policy(node, served, tmp_path) -> None:
    """examples/access-control/with-delegated/server-side: index.ts, then validate.ts."""
    delegated = TargetKey.generate()
    env = {
        "TURNKEY_API_PUBLIC_KEY": served["apiPublicKey"],
        "TURNKEY_API_PRIVATE_KEY": served["apiPrivateKey"],
        "TURNKEY_BASE_URL": served["baseUrl"],
        "TURNKEY_ORGANIZATION_ID": served["organizationId"],
        "DELEGATED_API_PUBLIC_KEY": delegated.api_key.public_key,
        "DELEGATED_API_PRIVATE_KEY": delegated.api_key.private_key,
        "RECIPIENT_ADDRESS": "0x08d2b0a37F869FF76BACB5Bab3278E26ab7067B7",
        "DENIED_ADDRESS": "0x000000000000000000000000000000000000dEaD",
    }
    set_up = run_example(node, tmp_path, "with-delegated.mjs", env)
    (sub_org,) = re.findall(r"Sub-organization id: ([0-9a-f-]{36})", set_up)
    (address,) = re.findall(r"Wallet account address: (0x[0-9a-fA-F]{40})", set_up)
    assert "New policy created!\n- Name: Allow Delegated Account" in set_up
    assert "- Effect: EFFECT_ALLOW\n" in set_up
    assert "Root Quorum updated! :" in set_up and "ACTIVITY_STATUS_COMPLETED" in set_up
    checked = run_example(
        node,
        tmp_path,
        "with-delegated.mjs",
        {**env, "DELEGATED_SUBORG_ID": sub_org, "SIGN_WITH": address},
        [],
        "validate",
    )
    allow, deny = checked.split("\n=== ")[1:3]  # the raw payload's refusal has no header
    assert allow.startswith("Policy Tx Allow ===\n✅ Successfully signed transaction:\n02")
    assert deny.startswith("Policy Tx Deny ===\n❌ Failed to sign transaction:\nTurnkey error 7:")
    assert "No policies evaluated to outcome: Allow" in deny
    assert "❌ Failed to sign raw message:\nTurnkey error 7:" in deny


def test_with_offline_stamps_a_request_that_curl_sends_later(node, served, tmp_path) -> None:
    """examples/advanced/with-offline: the printed curl command creates the key."""
    printed = run_example(
        node,
        tmp_path,
        "with-offline.mjs",
        env_of(served),
        [("New Private Key Name:", "Offline key")],
    )
    assert "Configuration loaded!" in printed
    assert f"\t{served['baseUrl']}/public/v1/submit/create_private_keys\n" in printed
    (body, header, value, url) = re.findall(
        r"\tcurl -X POST -d'(.*)' -H'(X-Stamp):(.*)' -v '(.*)'\n", printed
    )[0]
    answer = requests.post(url, data=body.encode(), headers={header: value}, timeout=30)
    assert answer.status_code == 200, answer.text
    activity = answer.json()["activity"]
    assert activity["status"] == "ACTIVITY_STATUS_COMPLETED"
    (created,) = activity["result"]["createPrivateKeysResultV2"]["privateKeys"]
    assert created["addresses"][0]["format"] == "ADDRESS_FORMAT_ETHEREUM"
    # the same stamped body again is the same activity (the example's "send it later")
    again = requests.post(url, data=body.encode(), headers={header: value}, timeout=30)
    assert again.json()["activity"]["id"] == activity["id"]
