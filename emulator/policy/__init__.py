"""Turnkey's policy expression language, parsed once and compiled to closures.

The engine calls ``parse(text).test(env)`` for a policy's ``condition``,
``consensus`` and ``time`` fields; see :mod:`emulator.policy.language`.

Layer: beside ``state/``, ``chains/`` and ``events/`` (none imports another), below the
services. May import: the world's state, the recorders, crypto and the ground.
"""

from __future__ import annotations

from emulator.policy.language import (
    Expression,
    Lazy,
    PolicyEvaluationError,
    PolicySyntaxError,
    Timestamp,
    parse,
)

__all__ = [
    "Expression",
    "Lazy",
    "PolicyEvaluationError",
    "PolicySyntaxError",
    "Timestamp",
    "parse",
]
