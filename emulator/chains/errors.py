"""What a chain says when it refuses or reverts a transaction."""

from __future__ import annotations

from dataclasses import dataclass


class ChainError(Exception):
    """A node refused a transaction or a request (its message, in a node's words)."""


class ChainUnavailable(ChainError):
    """The chain cannot be reached or started (a missing optional dependency, a dead node)."""


@dataclass(frozen=True)
class Revert:
    """An EVM call that reverted: the contract and the raw revert data (may be empty)."""

    address: str
    data: bytes
