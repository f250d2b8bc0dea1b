"""Properties: any rejected activity changes nothing; any body's stamp verifies."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator import Emulator, TurnkeyApiError
from emulator.crypto.api_keys import CURVES, generate_key_pair
from emulator.crypto.stamps import SCHEME_CURVES, sign_stamp, verify_stamp

from .helpers import state_digest

json_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)

user_field_values = {
    "userName": st.one_of(st.text(max_size=300), json_values),
    "userEmail": st.one_of(st.text(max_size=30), json_values),
    "userPhoneNumber": st.one_of(st.text(max_size=16), json_values),
    "apiKeys": st.one_of(
        st.just([]),
        json_values,
        st.lists(
            st.fixed_dictionaries(
                {
                    "apiKeyName": st.text(max_size=5),
                    "publicKey": st.text(alphabet="0123456789abcdef", max_size=70),
                    "curveType": st.sampled_from(
                        ["API_KEY_CURVE_P256", "API_KEY_CURVE_ED25519", "X"]
                    ),
                }
            ),
            max_size=2,
        ),
    ),
    "authenticators": st.one_of(st.just([]), json_values),
    "oauthProviders": st.one_of(st.just([]), json_values),
    "userTags": st.one_of(st.just([]), json_values, st.lists(st.uuids().map(str), max_size=2)),
}
users = st.lists(st.fixed_dictionaries({}, optional=user_field_values), min_size=0, max_size=3)

EMU = Emulator()
ORG = EMU.create_organization()
EMU.create_users(
    users=[
        {
            "userName": "seed",
            "apiKeys": [],
            "authenticators": [],
            "oauthProviders": [],
            "userTags": [],
        }
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(users=users)
def test_a_rejected_create_users_changes_nothing(users):
    before = state_digest(EMU)
    try:
        made = EMU.create_users(users=users)
    except TurnkeyApiError as error:
        assert 400 <= error.status < 500
        assert state_digest(EMU) == before
    else:
        created = {u["userId"] for u in EMU.list_users()["users"]}
        assert set(made["userIds"]) <= created
        EMU.delete_users(user_ids=made["userIds"])


@settings(max_examples=60, deadline=None)
@given(
    body=st.binary(max_size=512),
    scheme=st.sampled_from(sorted(SCHEME_CURVES)),
    flip=st.integers(min_value=0),
)
def test_any_body_stamps_and_verifies_and_tampering_fails(body, scheme, flip):
    key = generate_key_pair(SCHEME_CURVES[scheme])
    stamp = sign_stamp(body, key, scheme)
    assert verify_stamp(stamp, body)
    tampered = bytearray(body or b"\x00")
    tampered[flip % len(tampered)] ^= 0x01
    assert not verify_stamp(stamp, bytes(tampered))


def test_curves_cover_every_scheme():
    assert set(SCHEME_CURVES.values()) == set(CURVES)
