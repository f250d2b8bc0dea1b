"""Hypothesis: IP allowlist enforcement agrees with a model written here (the docs' precedence over
the standard library's ipaddress), for any rules, keys and source addresses."""

from __future__ import annotations

import ipaddress

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator import Emulator, TurnkeyApiError

from .helpers import add_user

OCTETS = st.integers(0, 255)
PREFIX = st.integers(20, 32)


@st.composite
def ipv4_cidrs(draw) -> str:
    address = ".".join(str(draw(OCTETS)) for _ in range(4))
    return f"{address}/{draw(PREFIX)}"


@st.composite
def addresses(draw, near: list[str]) -> str:
    """An address inside one of ``near`` (when there are any) or anywhere."""
    if near and draw(st.booleans()):
        network = ipaddress.ip_network(draw(st.sampled_from(near)), strict=False)
        offset = draw(st.integers(0, network.num_addresses - 1))
        return str(network.network_address + offset)
    return ".".join(str(draw(OCTETS)) for _ in range(4))


def allowed(rules: list[str], address: str) -> bool:
    ip = ipaddress.ip_address(address)
    return any(ip in ipaddress.ip_network(rule, strict=False) for rule in rules)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_enforcement_follows_the_model(data):
    emu = Emulator()
    emu.create_organization()
    _, alice = add_user(emu, "alice")
    emu.create_policy(policy_name="all", effect="EFFECT_ALLOW", notes="", condition="true")
    org_rules = data.draw(st.lists(ipv4_cidrs(), max_size=4), label="organization rules")
    key_rules = data.draw(st.none() | st.lists(ipv4_cidrs(), max_size=3), label="alice's key rules")
    enabled = data.draw(st.booleans(), label="enabled")
    emu.backdoor.set_client_ip("127.0.0.1")
    if key_rules is not None:
        emu.set_ip_allowlist(public_key=alice.public_key, rules=[{"cidr": c} for c in key_rules])
    emu.set_ip_allowlist(enabled=enabled, rules=[{"cidr": c} for c in org_rules])
    for _ in range(3):
        address = data.draw(addresses(org_rules + (key_rules or [])), label="source")
        emu.backdoor.set_client_ip(address)
        for caller, own in ((None, None), (alice, key_rules)):
            expected = not enabled or allowed(own if own is not None else org_rules, address)
            try:
                emu.get_whoami(caller=caller)
                answered = True
            except TurnkeyApiError as error:
                assert error.status == 403
                answered = False
            assert answered == expected, (address, caller is None)
