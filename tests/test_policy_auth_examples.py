"""The documented policy examples for exports and authentication flows, on real activities.

``test_policy_engine.py`` judges them at the engine; here a non-root user runs the
activities themselves: allowed exactly where the policy says, the real 403 elsewhere.
"""

from __future__ import annotations

import pytest

from emulator.accounts import account_spec
from emulator.ground.errors import TurnkeyApiError
from emulator.testing.client_crypto import TargetKey, decrypt_export_bundle

from .helpers import add_user


def allow(emu, name: str, condition: str, user_id: str) -> None:
    emu.create_policy(
        policy_name=name,
        effect="EFFECT_ALLOW",
        notes="",
        condition=condition,
        consensus=f"approvers.any(user, user.id == '{user_id}')",
    )


def test_a_user_may_export_the_one_wallet_account_the_policy_names(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    user_id, key = add_user(emu, "exporter")
    wallet = emu.create_wallet(
        wallet_name="w",
        accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM"), account_spec("ADDRESS_FORMAT_SOLANA")],
    )
    allowed, other = wallet["addresses"]
    condition = f"activity.action == 'EXPORT' && wallet_account.address == '{allowed}'"
    allow(emu, "export one", condition, user_id)
    target = TargetKey.generate()
    exported = emu.export_wallet_account(
        address=allowed, target_public_key=target.public_key, caller=key
    )
    secret = decrypt_export_bundle(
        exported["exportBundle"],
        target,
        organization_id=turnkey_org.organization_id,
        signer_public_key=emu.enclave.signer_public_key,
    )
    assert len(secret) == 32
    for call in (
        lambda: emu.export_wallet_account(
            address=other, target_public_key=target.public_key, caller=key
        ),
        lambda: emu.export_wallet(
            wallet_id=wallet["walletId"], target_public_key=target.public_key, caller=key
        ),
    ):
        with pytest.raises(TurnkeyApiError) as denied:
            call()
        assert denied.value.status == 403


def test_a_backend_user_may_start_and_verify_otps_and_nothing_else(turnkey_emulator):
    emu = turnkey_emulator
    user_id, key = add_user(emu, "backend")
    allow(
        emu,
        "otp",
        "activity.resource in ['AUTH','OTP'] && activity.action in ['CREATE','VERIFY']",
        user_id,
    )
    started = emu.init_otp(
        otp_type="OTP_TYPE_EMAIL", contact="who@example.com", app_name="Acme", caller=key
    )
    assert started["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    with pytest.raises(TurnkeyApiError) as denied:
        emu.create_wallet(wallet_name="no", accounts=[], caller=key)
    assert denied.value.status == 403
