"""The Node test kit (``js/``, npm ``turnkey-emulator``) run as its users run it.

Its own tests under Vitest and under Jest, each with the kit's global set-up starting one
real ``python -m emulator serve`` for the run: ``@turnkey/sdk-server``, ``@turnkey/viem``
(checked by viem's recovery) and ``@turnkey/solana`` (checked by ``@noble/curves``'
ed25519) through it, an e-mail OTP login read from the outbox (the session checked with
``@turnkey/crypto`` under the notarizer override), the per-test restore, the control plane's
seams, ``startEmulator``'s own servers and errors, ``attachEmulator``. Then a consumer
project that installs the ``npm pack`` tarball and runs one test with ``node --test``, from
ESM and CommonJS. Without node, npm or the registry, they skip, saying why.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

import pytest

from .nodekit import JS, kit_env, kit_or_skip, run_bin

RUN_TIMEOUT_S = 300
VITEST_TESTS = [
    "the run's emulator hands @turnkey/sdk-server a client of the root user",
    "the run's emulator a wallet made in one test...",
    "the run's emulator ...is gone in the next (the world restored)",
    "the chain packages through it @turnkey/viem signs a message that viem recovers",
    "the chain packages through it @turnkey/solana signs a message that ed25519 verifies;"
    " the funding seam",
    "an OTP login, the code read from the outbox init_otp, verify_otp, otp_login:"
    " a session the notarizer signed",
    "an OTP login, the code read from the outbox waitForNext times out with a 408 when nothing"
    " is sent",
    "the control plane's seams faults make the next call fail, and the call log shows it",
    "the control plane's seams pending faults and the call log are cleared between tests",
    "the control plane's seams the clock freezes and advances",
    "the control plane's seams ...and the restore puts it back",
    "the control plane's seams Auth Proxy configurations and bad requests",
    "the control plane's seams webhooks: none delivered, the switch set",
    "startEmulator() starts a server of its own; stop() ends it",
    "attachEmulator() from a URL reads the public half and the Auth Proxy",
    "a Python without the emulator: the error names the install command",
    "no interpreter at all: the error says so",
]


@pytest.fixture(scope="module")
def node() -> str:
    return kit_or_skip()


def results_of(report: dict) -> dict[str, str]:
    """``{full test name: status}`` of a Vitest or Jest JSON report."""
    return {
        test["fullName"]: test["status"]
        for suite in report["testResults"]
        for test in suite["assertionResults"]
    }


def test_the_kit_under_vitest(node, tmp_path) -> None:
    out = tmp_path / "vitest.json"
    done = run_bin(
        node,
        ["vitest", "run", "--config", "test/vitest.config.mjs", "--reporter=json",
         f"--outputFile={out}"],
        cwd=JS,
        timeout_s=RUN_TIMEOUT_S,
    )  # fmt: skip
    assert out.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    results = results_of(json.loads(out.read_text()))
    failed = {name: s for name, s in results.items() if s != "passed"}
    assert done.returncode == 0 and not failed, (failed, done.stderr[-3000:])
    assert sorted(results) == sorted(VITEST_TESTS)


def test_the_kit_under_jest(node, tmp_path) -> None:
    out = tmp_path / "jest.json"
    done = run_bin(
        node,
        ["jest", "--config", "test/jest.config.cjs", "--json", f"--outputFile={out}"],
        cwd=JS,
        timeout_s=RUN_TIMEOUT_S,
    )
    assert out.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(out.read_text())
    results = results_of(report)
    assert done.returncode == 0 and set(results.values()) == {"passed"}, done.stderr[-3000:]
    assert sorted(results) == [
        "...is gone in the next",
        "a wallet made in one test...",
        "an invitation lands in the outbox, read by waitForNext",
        "init_otp, the code from the outbox, verify_otp, otp_login",
        "the global set-up exported the run's emulator to this worker",
        "the outbox is empty again in the next test",
    ]


CONSUMER_TEST = """\
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import test from "node:test";
import { startEmulator } from "turnkey-emulator";

test("the packed kit starts an emulator, from ESM and CommonJS", async () => {
  const cjs = createRequire(import.meta.url)("turnkey-emulator");
  assert.equal(typeof cjs.startEmulator, "function");
  assert.equal(typeof cjs.EmulatorControl, "function");
  const emu = await startEmulator();
  try {
    assert.deepEqual(await emu.control.health(), { ok: true, organizationId: emu.organizationId });
    const answer = await fetch(`${emu.baseUrl}/public/v1/query/whoami`, {
      method: "POST", body: JSON.stringify({ organizationId: emu.organizationId }),
    });
    assert.equal(answer.status, 401); // unstamped: the real API's refusal, in its shape
    assert.deepEqual(Object.keys(await answer.json()).sort(), ["code", "details", "message", "turnkeyErrorCode"]);
    assert.throws(() => emu.turnkey, /npm install --save-dev @turnkey\\/sdk-server/);
  } finally {
    await emu.stop();
  }
});
"""


def test_a_consumer_project_installs_the_packed_tarball(node, tmp_path) -> None:
    npm = Path(node).with_name("npm")
    packed = subprocess.run(
        [str(npm), "pack", "--json", "--ignore-scripts", "--pack-destination", str(tmp_path)],
        cwd=JS, env=kit_env(), capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False,
    )  # fmt: skip
    assert packed.returncode == 0, packed.stderr[-3000:]
    (info,) = json.loads(packed.stdout)
    tarball = tmp_path / info["filename"]
    with tarfile.open(tarball) as archive:
        names = set(archive.getnames())
    for entry in ("index", "vitest", "vitest-global-setup", "jest", "jest-global-setup"):
        for suffix in (".js", ".cjs", ".d.ts", ".d.cts"):
            assert f"package/dist/{entry}{suffix}" in names
    assert not any("/src/" in n or "/test/" in n or ".built-" in n for n in names)
    consumer = tmp_path / "consumer"
    consumer.mkdir()
    (consumer / "package.json").write_text(
        '{"name": "consumer", "private": true, "type": "module"}'
    )
    (consumer / "kit.test.mjs").write_text(CONSUMER_TEST)
    installed = subprocess.run(
        [str(npm), "install", "--no-audit", "--no-fund", "--offline", str(tarball)],
        cwd=consumer, env=kit_env(), capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
        check=False,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr[-3000:]
    ran = subprocess.run(
        [node, "--test", "kit.test.mjs"],
        cwd=consumer, env=kit_env(), capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
        check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert "# pass 1\n" in ran.stdout and "# fail 0\n" in ran.stdout


# ----- docs/typescript.md: its examples, as written -----------------------------------------

DOC = JS.parent / "docs" / "typescript.md"
BLOCK = re.compile(r"```(?:js|ts)\n// ((?:vitest|jest)-example)/(\S+)\n(.*?)```", re.S)


def doc_example(name: str) -> Path:
    """The blocks of docs/typescript.md named ``// <name>/<file>``, written out as a project
    under ``js/.examples`` (where ``turnkey-emulator`` is this package and the rest resolves
    from ``js/node_modules``)."""
    examples = JS / ".examples"
    (examples / "node_modules").mkdir(parents=True, exist_ok=True)
    link = examples / "node_modules" / "turnkey-emulator"
    if not link.is_symlink():
        with contextlib.suppress(FileExistsError):  # another xdist worker made it
            link.symlink_to(JS, target_is_directory=True)
    project = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=examples))
    files = [
        (path, text) for example, path, text in BLOCK.findall(DOC.read_text()) if example == name
    ]
    assert len(files) == 2, files
    for path, text in files:
        (project / path).write_text(text)
    return project


def test_the_vitest_example_of_the_docs_runs_as_written(node) -> None:
    project = doc_example("vitest-example")
    try:
        done = run_bin(node, ["vitest", "run"], cwd=project, timeout_s=RUN_TIMEOUT_S)
    finally:
        shutil.rmtree(project)
    output = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)  # without colours
    assert done.returncode == 0, output[-3000:]
    assert re.search(r"Tests\s+3 passed \(3\)", output), output[-3000:]


def test_the_jest_example_of_the_docs_runs_as_written(node) -> None:
    project = doc_example("jest-example")
    try:
        done = run_bin(
            node, ["jest", "--config", "jest.config.cjs", "--ci"], cwd=project,
            timeout_s=RUN_TIMEOUT_S,
        )  # fmt: skip
    finally:
        shutil.rmtree(project)
    output = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)  # without colours
    assert done.returncode == 0, output[-3000:]
    assert re.search(r"Tests:\s+3 passed, 3 total", output), output[-3000:]
