"""Hypothesis: a velocity limit is never exceeded, however the transfers are split and the
clock moves, and the emulator lets through exactly what a model written here does (a list of
accepted transfers and the sum of those inside the rolling window)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator import Emulator, TurnkeyApiError
from emulator.accounts import account_spec

from .helpers import add_user
from .test_velocity_controls import eth_tx, transfers

LIMIT_OPERATORS = {
    "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN_OR_EQUAL": Fraction.__le__,
    "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN": Fraction.__lt__,
}
STEPS = st.lists(
    st.tuples(
        st.integers(0, 400),  # seconds the clock moves first
        st.integers(0, 120),  # the transfer, in the asset's smallest unit
    ),
    min_size=1,
    max_size=12,
)


def in_window(accepted: list[tuple[int, Fraction]], now: int, duration: int) -> Fraction:
    return sum((a for t, a in accepted if now - t < duration), Fraction(0))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    operator=st.sampled_from(sorted(LIMIT_OPERATORS)),
    threshold=st.integers(0, 300),
    decimals=st.sampled_from([0, 2]),
    duration=st.integers(1, 900),
    steps=STEPS,
)
def test_a_limit_is_never_exceeded_and_the_emulator_follows_the_model(
    operator, threshold, decimals, duration, steps
):
    emu = Emulator()
    emu.create_organization()
    emu.clock.freeze()
    _, key = add_user(emu, "alice")
    address = emu.create_wallet(
        wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
    )["addresses"][0]
    scale = Fraction(10) ** decimals
    limit = Fraction(threshold) / scale
    emu.call(
        "create_velocity_control",
        {
            "name": "limit",
            "identifier": "limit",
            "dataSource": transfers(("eip155:1/slip44:60", str(decimals))),
            "aggregation": {
                "method": "VELOCITY_CONTROL_AGGREGATION_METHOD_SUM",
                "operator": operator,
                "threshold": f"{threshold // 100}.{threshold % 100:02d}"
                if decimals
                else str(threshold),
                "window": {"rolling": {"duration": str(duration)}},
                "groupBy": {"organization": {}},
            },
        },
    )
    emu.create_policy(policy_name="p", effect="EFFECT_ALLOW", notes="", condition="controls.limit")
    holds = LIMIT_OPERATORS[operator]
    accepted: list[tuple[int, Fraction]] = []  # the model: (time, amount) let through
    now = 0
    for advance, raw in steps:
        emu.clock.advance(advance)
        now += advance
        amount = Fraction(raw) / scale
        expected = holds(in_window(accepted, now, duration) + amount, limit)
        try:
            emu.sign_transaction(
                sign_with=address,
                unsigned_transaction=eth_tx(raw),
                type="TRANSACTION_TYPE_ETHEREUM",
                caller=key,
            )
            allowed = True
        except TurnkeyApiError as error:
            assert error.status == 403
            allowed = False
        assert allowed == expected, (now, raw, accepted)
        if allowed:
            accepted.append((now, amount))
            assert holds(in_window(accepted, now, duration), limit)  # never exceeded
