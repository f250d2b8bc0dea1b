"""Earn on the embedded EVM: the contracts (``EarnContracts.sol``), the seeded catalog
(``catalog.py``) and their deployment on each chain (``deployment.py``).

``EarnContracts.json`` was compiled from the source beside it with ``node compile.cjs
EarnContracts.sol > EarnContracts.json`` (solc 0.8.30 and @openzeppelin/contracts 5.7.0 from
npm, optimizer 200 runs, EVM version prague); the JSON holds both versions and the ABIs.
The vault and the wrapper are OpenZeppelin's audited ERC-4626; the rest is small and ours.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from eth_abi import decode, encode

from ...crypto.hashing import keccak256
from ...ground import jsontext

HERE = Path(__file__).parent


@functools.lru_cache(maxsize=1)
def artifact() -> dict[str, Any]:
    return jsontext.loads((HERE / "EarnContracts.json").read_text())


def init_code(contract: str) -> bytes:
    return bytes.fromhex(artifact()["contracts"][contract]["bytecode"])


def selector(signature: str) -> bytes:
    return keccak256(signature.encode())[:4]


def calldata(signature: str, *args: Any) -> bytes:
    """``signature`` like ``deposit(uint256,address)``: its selector and its encoded args."""
    types = signature[signature.index("(") + 1 : -1]
    kinds = _split(types)
    return selector(signature) + (encode(kinds, list(args)) if kinds else b"")


def _split(types: str) -> list[str]:
    out, depth, current = [], 0, ""
    for ch in types:
        if ch == "," and depth == 0:
            out.append(current)
            current = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        current += ch
    if current:
        out.append(current)
    return out


def decoded(kinds: list[str], data: bytes) -> tuple[Any, ...]:
    return tuple(decode(kinds, data))


def create2_address(deployer: str, salt: bytes, init: bytes) -> str:
    from ...crypto.addresses.chains import eip55

    digest = keccak256(b"\xff" + bytes.fromhex(deployer[2:]) + salt + keccak256(init))
    return eip55(digest[12:])
