"""The state machine that ships in ``emulator.testing.state_machine``: run as is, subclassed
the way its docstring tells users to, and shown to catch a model that disagrees."""

from __future__ import annotations

import eth_account  # imported up front: py_ecc raises the recursion limit on import
import pytest
from eth_account.messages import encode_defunct
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import rule, run_state_machine_as_test

from emulator import Emulator
from emulator.testing.state_machine import TurnkeyStateMachine, state_digest

SETTINGS = settings(
    max_examples=15,
    stateful_step_count=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


class TestTurnkeyStateMachine(TurnkeyStateMachine.TestCase):
    settings = SETTINGS


# --- a subclass, as a user writes one ----------------------------------------------------


def personal_sign(emu: Emulator, address: str, message: str) -> str:
    """'Application code': an EIP-191 personal_sign through the emulator, as 0x r‖s‖v."""
    prefixed = f"\x19Ethereum Signed Message:\n{len(message.encode())}{message}"
    signed = emu.sign_raw_payload(
        sign_with=address,
        payload=prefixed,
        encoding="PAYLOAD_ENCODING_TEXT_UTF8",
        hash_function="HASH_FUNCTION_KECCAK256",
    )
    return "0x" + signed["r"] + signed["s"] + f"{int(signed['v'], 16) + 27:02x}"


class PersonalSignMachine(TurnkeyStateMachine):
    """The machine's rules and invariants, plus one rule that runs the application's code."""

    @rule(account=TurnkeyStateMachine.accounts, message=st.text(max_size=20))
    def personal_sign_recovers_the_address(self, account, message):
        if account.address_format != "ADDRESS_FORMAT_ETHEREUM" or not self.is_live_account(
            account.address
        ):
            return
        signature = personal_sign(self.emu, account.address, message)
        self.note_activities(1)
        recovered = eth_account.Account.recover_message(
            encode_defunct(text=message), signature=signature
        )
        assert recovered == account.address


class TestPersonalSignMachine(PersonalSignMachine.TestCase):
    settings = SETTINGS


# --- the invariants bite ------------------------------------------------------------------


class ForgetfulMachine(TurnkeyStateMachine):
    """A rule that creates a wallet and leaves the model as it was."""

    @rule()
    def create_unrecorded_wallet(self):
        name = f"unrecorded {self.activity_count()}"
        self.submit(True, "create_wallet", {"walletName": name, "accounts": []})


class UncountedActivityMachine(TurnkeyStateMachine):
    """A rule that submits an activity without ``note_activities``."""

    @rule()
    def whoami_and_a_wallet(self):
        self.emu.get_whoami()
        self.emu.create_wallet(wallet_name=f"uncounted {self.activity_count()}", accounts=[])
        self.model.wallets.update(
            {w["walletId"]: w["walletName"] for w in self.emu.list_wallets()["wallets"]}
        )


@pytest.mark.parametrize(
    ("machine", "message"),
    [(ForgetfulMachine, "list_wallets"), (UncountedActivityMachine, "activit")],
)
def test_the_invariants_catch_a_model_that_disagrees(machine, message):
    quick = settings(SETTINGS, max_examples=60, phases=[Phase.generate], stateful_step_count=10)
    with pytest.raises(AssertionError, match=message):
        run_state_machine_as_test(machine, settings=quick)


def test_the_digest_sees_activities_and_not_queries():
    emu = Emulator(seed=3)
    emu.create_organization()
    before = state_digest(emu)
    emu.list_users()
    emu.get_whoami()
    assert state_digest(emu) == before
    emu.create_wallet(wallet_name="w", accounts=[])
    assert state_digest(emu) != before
