"""Hypothesis: an MFA-governed activity never completes without its methods, and always does
once they are all presented, for any policy of passkeys, API keys and sessions (pinned or
not) and any order of approvals, compared with a model written here from the docs."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.crypto.api_keys import generate_key_pair
from emulator.crypto.authenticator import VirtualAuthenticator
from emulator.testing.client_crypto import TargetKey

from .helpers import api_key_params

PASSKEY, API_KEY, SESSION = (
    "AUTHENTICATION_TYPE_PASSKEY",
    "AUTHENTICATION_TYPE_API_KEY",
    "AUTHENTICATION_TYPE_SESSION",
)
DEFAULT_SESSION = "00000000-0000-0000-0000-000000000000"


class World:
    """One organization whose root user holds two passkeys, two API keys and two sessions,
    each credential with the method (type, id) the docs say its stamp presents."""

    def __init__(self) -> None:
        self.emu = Emulator(seed=5)
        org = self.emu.create_organization("MFA property")
        self.user_id = org.user_id
        self.credentials: list[tuple[object, tuple[str, str]]] = []
        for seed in (1, 2):
            device = VirtualAuthenticator(credential_id=bytes([seed]) * 16)
            made = self.emu.create_authenticators(
                user_id=self.user_id, authenticators=[device.authenticator_params(f"p{seed}")]
            )
            self.credentials.append((device, (PASSKEY, made["authenticatorIds"][0])))
        root_key_id = self.emu.get_user(user_id=self.user_id)["user"]["apiKeys"][0]["apiKeyId"]
        self.credentials.append((org.api_key, (API_KEY, root_key_id)))
        extra = generate_key_pair()
        (extra_id,) = self.emu.create_api_keys(
            user_id=self.user_id, api_keys=[api_key_params(extra, "second")]
        )["apiKeyIds"]
        self.credentials.append((extra, (API_KEY, extra_id)))
        profile = self.emu.create_session_profile(session_profile_name="p", scope="true")
        self.profile_id = profile["sessionProfileId"]
        for seed, profile_id in ((3, None), (4, self.profile_id)):
            key = TargetKey.generate(bytes([seed]) * 32)
            self.emu.stamp_login(
                public_key=key.compressed_public_key, session_profile_id=profile_id
            )
            self.credentials.append((key.api_key, (SESSION, profile_id or DEFAULT_SESSION)))
        self.root_key = org.api_key
        self.baseline = self.emu.checkpoint()


_world: World | None = None


def world() -> World:
    global _world
    if _world is None:
        _world = World()
    return _world


def satisfied(required: list[list[tuple[str, str | None]]], presented: set[tuple[str, str]]):
    """The docs' rule: every step met by some presented method of its type (and id, if
    pinned); a method may meet several steps."""
    return all(
        any(t == pt and (i is None or i == pi) for (pt, pi) in presented for (t, i) in step)
        for step in required
    )


@st.composite
def methods(draw, w: World) -> tuple[str, str | None]:
    _, (kind, ident) = draw(st.sampled_from(w.credentials))
    return kind, (ident if draw(st.booleans()) else None)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_an_mfa_governed_activity_completes_exactly_when_its_methods_are_presented(data):
    w = world()
    emu = w.emu
    emu.rollback(w.baseline)
    try:
        required = data.draw(
            st.lists(st.lists(methods(w), min_size=1, max_size=3), min_size=1, max_size=3),
            label="required steps",
        )
        emu.create_mfa_policy(
            user_id=w.user_id,
            mfa_policy_name="any",
            condition="activity.resource == 'WALLET'",
            required_authentication_methods=[
                {"any": [{"type": t, **({"id": i} if i else {})} for t, i in step]}
                for step in required
            ],
            order=0,
            caller=w.root_key,
        )
        order = data.draw(st.permutations(range(len(w.credentials))), label="approval order")
        proposer, first_method = w.credentials[order[0]]
        activity = emu.create_wallet(
            wallet_name="governed",
            accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")],
            caller=proposer,
        )["activity"]
        presented = {first_method}
        assert (activity["status"] == "ACTIVITY_STATUS_COMPLETED") == satisfied(required, presented)
        for index in order[1:]:
            if activity["status"] == "ACTIVITY_STATUS_COMPLETED":
                break
            caller, method = w.credentials[index]
            activity = emu.approve_activity(fingerprint=activity["fingerprint"], caller=caller)[
                "activity"
            ]
            presented.add(method)
            done = activity["status"] == "ACTIVITY_STATUS_COMPLETED"
            assert done == satisfied(required, presented), (required, presented)
            wallets = [x["walletName"] for x in emu.get_wallets(caller=w.root_key)["wallets"]]
            assert wallets == (["governed"] if done else [])
        # every credential presented: either it completed, or no credential can meet it
        if activity["status"] != "ACTIVITY_STATUS_COMPLETED":
            assert not satisfied(required, {m for _, m in w.credentials})
    finally:
        emu.rollback(w.baseline)
