"""What a fresh emulator does not need is not imported with the package."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = (
    "webauthn",
    "OpenSSL",
    "Crypto",
    "emulator.dispatch",
    "emulator.ops",
    "emulator.policy",
    "emulator.services.policy_engine",
    "emulator.facade.seedfile",
    "emulator.state.document",
    "emulator.http",
    "turnkey_http",
    "emulator.chains",
    "eth_tester",
    "eth",
    "solders",
)


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.splitlines()[-1]))


def _heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)}


def test_import_emulator_loads_only_the_package():
    loaded = _loaded_after("import emulator")
    assert {m for m in loaded if m.startswith("emulator.")} == set()


def test_a_fresh_emulator_and_organization_load_nothing_heavy():
    loaded = _loaded_after("from emulator import Emulator\nEmulator(seed=1).create_organization()")
    assert _heavy(loaded) == set()


def test_the_first_operation_loads_the_engine_but_no_passkey_or_state_file_code():
    loaded = _loaded_after(
        "from emulator import Emulator\n"
        "emu = Emulator(seed=1)\nemu.create_organization()\nemu.get_whoami()"
    )
    assert {"emulator.dispatch", "emulator.ops"} <= loaded
    assert _heavy(loaded) & {"webauthn", "OpenSSL", "emulator.facade.seedfile"} == set()


def test_the_chains_start_on_the_first_broadcast_only():
    loaded = _loaded_after(
        "from emulator import Emulator\n"
        "emu = Emulator(seed=1)\nemu.create_organization()\nemu.get_whoami()\n"
        "emu.list_supported_assets(caip2='eip155:1')"
    )
    assert _heavy(loaded) & {"eth_tester", "eth", "solders"} == set()
