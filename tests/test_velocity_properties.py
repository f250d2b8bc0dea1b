"""Hypothesis: a velocity limit is never exceeded, however the transfers are split between
signers and in time, and the emulator lets through exactly what a model written here does (per
group, a list of accepted transfers and the sum of those inside the rolling window)."""

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
        st.sampled_from(["alice", "bob"]),  # who signs
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
    group=st.sampled_from(["organization", "user"]),
    steps=STEPS,
)
def test_a_limit_is_never_exceeded_and_the_emulator_follows_the_model(
    operator, threshold, decimals, duration, group, steps
):
    emu = Emulator()
    emu.create_organization()
    emu.clock.freeze()
    keys = {name: add_user(emu, name)[1] for name in ("alice", "bob")}
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
                "groupBy": {group: {}},
            },
        },
    )
    emu.create_policy(policy_name="p", effect="EFFECT_ALLOW", notes="", condition="controls.limit")
    holds = LIMIT_OPERATORS[operator]
    accepted: dict[str, list[tuple[int, Fraction]]] = {}  # the model: per group, (time, amount)
    now = 0
    for advance, raw, signer in steps:
        emu.clock.advance(advance)
        now += advance
        amount = Fraction(raw) / scale
        mine = accepted.setdefault(signer if group == "user" else "", [])
        expected = holds(in_window(mine, now, duration) + amount, limit)
        try:
            emu.sign_transaction(
                sign_with=address,
                unsigned_transaction=eth_tx(raw),
                type="TRANSACTION_TYPE_ETHEREUM",
                caller=keys[signer],
            )
            allowed = True
        except TurnkeyApiError as error:
            assert error.status == 403
            allowed = False
        assert allowed == expected, (now, raw, signer, accepted)
        if allowed:
            mine.append((now, amount))
            assert holds(in_window(mine, now, duration), limit)  # never exceeded
