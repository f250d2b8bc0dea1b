"""The contracts the emulator writes onto its embedded EVM chains, compiled with solc.

Each ``<Name>.sol`` here was compiled with ``node compile.cjs <Name> > <Name>.json`` (solc
0.8.30 from npm, optimizer 200 runs, EVM version prague, the settings of the gas station's
contract); the JSON keeps the compiler version, the ABI and both bytecodes.

- ``EmulatorToken``: the ERC-20 written at each token's real address (``tokens.py``).
- ``EmulatorSwapRouter``: the simulated swap provider's settlement contract
  (``swap_provider.py``).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from ...ground import jsontext

HERE = Path(__file__).parent


@functools.cache
def artifact(name: str) -> dict[str, Any]:
    return jsontext.loads((HERE / f"{name}.json").read_text())


def runtime_code(name: str) -> bytes:
    return bytes.fromhex(artifact(name)["deployedBytecode"])


def init_code(name: str) -> bytes:
    return bytes.fromhex(artifact(name)["bytecode"])
