"""A fuzz of every operation of the registry through the wire: no input gives a 5xx.

For each operation, hypothesis draws a body from its schema, makes its ids and addresses
ones the world holds, breaks it (``tests/fuzzing.py``), and posts it stamped with a valid
key. The answer is never a 5xx; a refusal has the API's error shape with the status of its
gRPC code and leaves the world as it was. The default profile runs a few examples per
operation (well under a minute in all); ``pytest -m fuzz --hypothesis-profile=long`` runs
thousands (``docs/fuzzing.md``). A second property writes every number of a request
oddly at once.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator.ops import REGISTRY

from .fuzzing import (
    FuzzWorld,
    break_body,
    build_world,
    check_answer,
    encode,
    has_number_fields,
    odd_numbers,
    post,
    request_body,
)

pytestmark = pytest.mark.fuzz

# Examples per operation: a few in the default profile; a profile that sets its own
# max_examples (``long``, registered in conftest.py) decides instead.
CI_EXAMPLES = 6
_configured = settings().max_examples
EXAMPLES = (
    CI_EXAMPLES if _configured == settings.get_profile("default").max_examples else _configured
)

_WORLD: list[FuzzWorld] = []


def fuzz_world() -> FuzzWorld:
    """One world for the module, built on first use, reset after every request."""
    if not _WORLD:
        _WORLD.append(build_world())
    return _WORLD[0]


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_no_broken_request_gets_a_5xx(name):
    world = fuzz_world()
    op = REGISTRY[name]

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def fuzz(data):
        body = request_body(data, op, world)
        if data.draw(st.integers(0, 3), label="keep") > 0:  # one in four goes in unbroken
            body = break_body(data, body, world)
        try:
            status, answer = post(world, op.path, encode(body))
            check_answer(world, status, answer)
        finally:
            world.reset()

    fuzz()


@pytest.mark.parametrize("name", sorted(n for n, op in REGISTRY.items() if has_number_fields(op)))
def test_numbers_written_oddly_get_no_5xx(name):
    """Every number-carrying field of a plausible request at once (``timestampMs``,
    ``expirationSeconds``, integers, limits, fees...) written oddly: digits of other
    scripts, whitespace, signs, exponents, thousands of digits, NaN."""
    world = fuzz_world()
    op = REGISTRY[name]

    @settings(
        max_examples=max(2, EXAMPLES // 2),
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def fuzz(data):
        body = odd_numbers(data, request_body(data, op, world))
        try:
            status, answer = post(world, op.path, encode(body))
            check_answer(world, status, answer)
        finally:
            world.reset()

    fuzz()
