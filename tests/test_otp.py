"""OTP records and the OTP auth flow: init_otp_auth and otp_auth.

Codes (length, alphabet, the seeded stream), their delivery (e-mail, SMS templates,
sender), expiry on the virtual clock, wrong codes and the attempt counter that outlives
the failed activity, the per-identifier rate limits, features, and the full round trip
to a credential bundle whose key stamps a request. The generic flow (init_otp,
verify_otp, otp_login) is in ``test_otp_login.py``.
"""

from __future__ import annotations

import pytest

from emulator import Emulator, Settings, TurnkeyApiError
from emulator.ground import messages
from emulator.ground.models import Otp
from emulator.services import otp as otps
from emulator.testing.client_crypto import TargetKey, decrypt_credential_bundle
from emulator.testing.digest import state_digest

from .helpers import NIL_UUID, error_of, fails, violations

EMAIL = "root@example.com"
PHONE = "+15555550100"
COMPLETED = "ACTIVITY_STATUS_COMPLETED"
CROCKFORD = set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
NS = 1_000_000_000


@pytest.fixture
def emu(turnkey_emulator, turnkey_org):
    """The shared emulator, its root user reachable by e-mail and phone, its clock frozen."""
    turnkey_emulator.update_user(
        user_id=turnkey_org.user_id, user_email=EMAIL, user_phone_number=PHONE, user_tag_ids=[]
    )
    turnkey_emulator.clock.freeze()
    return turnkey_emulator


def init_auth(emu, contact: str = EMAIL, otp_type: str = "OTP_TYPE_EMAIL", **params):
    return emu.init_otp_auth(otp_type=otp_type, contact=contact, app_name="Acme", **params)


def record(emu, otp_id: str, organization_id: str | None = None) -> Otp:
    org_id = organization_id or emu.organization().organization_id
    return emu.world.store.organizations[org_id].otps[otp_id]


def code_of(emu, otp_id: str) -> str:
    """The code the last message for ``otp_id`` carried (what the user would type)."""
    (message,) = [m for m in emu.outbox if m.fields["otpId"] == otp_id]
    return message.fields["otpCode"]


def otp_auth(emu, otp_id: str, code: str, target: TargetKey | None = None, **params):
    target = target or TargetKey.generate()
    return emu.otp_auth(otp_id=otp_id, otp_code=code, target_public_key=target.public_key, **params)


def fails_counting_attempt(emu, otp: Otp, call, *args, **kwargs):
    """``call`` fails and changes nothing but ``otp.attempts``, by one."""
    before, attempts = state_digest(emu), otp.attempts
    with pytest.raises(TurnkeyApiError) as caught:
        call(*args, **kwargs)
    assert otp.attempts == attempts + 1
    otp.attempts = attempts  # put it back: then nothing else differs
    assert state_digest(emu) == before
    otp.attempts = attempts + 1
    return caught.value


# ----- init_otp_auth -------------------------------------------------------------------


def test_init_otp_auth_sends_the_code_by_email(emu, turnkey_org):
    params = {"otpType": "OTP_TYPE_EMAIL", "contact": EMAIL, "appName": "Acme"}
    made = emu.call("init_otp_auth", params)
    otp_id, activity = made["otpId"], made["activity"]
    assert (activity["type"], activity["status"]) == ("ACTIVITY_TYPE_INIT_OTP_AUTH_V3", COMPLETED)
    assert activity["intent"] == {"initOtpAuthIntentV3": params}
    assert activity["result"]["initOtpAuthResultV2"] == {"otpId": otp_id}
    stored = record(emu, otp_id)
    now = emu.clock.now_ns()
    assert stored == Otp(
        otp_id, "otp_auth", "OTP_TYPE_EMAIL", EMAIL, stored.code, now, now + 300 * NS
    )
    assert len(stored.code) == 9 and set(stored.code) <= CROCKFORD
    (message,) = emu.outbox.messages
    assert message.to_json() == {
        "id": "message-1",
        "timeNs": now,
        "timeMs": now // 1_000_000,
        "channel": "email",
        "to": EMAIL,
        "senderAddress": "notifications@turnkey.com",
        "senderName": "Notifications",
        "replyTo": None,
        "template": "otp",
        "organizationId": turnkey_org.organization_id,
        "fields": {
            "otpId": otp_id,
            "otpCode": stored.code,
            "otpType": "OTP_TYPE_EMAIL",
            "expirationSeconds": 300,
            "appName": "Acme",
        },
    }
    # nothing of the code in what the API answers
    assert stored.code not in str(emu.get_activity(activity_id=activity["id"]))


def test_init_otp_auth_v2_has_the_seed_names_and_v1_its_own(emu):
    v2 = init_auth(emu, activity_type="ACTIVITY_TYPE_INIT_OTP_AUTH_V2", otp_length=6)
    assert v2["activity"]["intent"] == {
        "initOtpAuthIntentV2": {
            "otpType": "OTP_TYPE_EMAIL",
            "contact": EMAIL,
            "otpLength": 6,
        }  # appName is not a V2 field: dropped
    }
    assert v2["activity"]["result"]["initOtpAuthResultV2"] == {"otpId": v2["otpId"]}
    assert len(code_of(emu, v2["otpId"])) == 6
    v1 = emu.init_otp_auth(
        otp_type="OTP_TYPE_EMAIL",
        contact=EMAIL,
        email_customization={"appName": "Old App", "logoUrl": "https://acme.test/logo.png"},
        activity_type="ACTIVITY_TYPE_INIT_OTP_AUTH",
    )
    assert list(v1["activity"]["intent"]) == ["initOtpAuthIntent"]
    assert v1["activity"]["result"]["initOtpAuthResult"] == {"otpId": v1["otpId"]}
    fields = emu.outbox.last().fields
    assert (fields["appName"], fields["logoUrl"]) == ("Old App", "https://acme.test/logo.png")
    assert len(fields["otpCode"]) == 9  # V1 has no otpLength: the default


def test_codes_are_crockford_base32_or_digits_of_the_asked_length(emu):
    for length in (6, 7, 8, 9):
        alnum = code_of(emu, init_auth(emu, otp_length=length)["otpId"])
        digits = code_of(emu, init_auth(emu, otp_length=length, alphanumeric=False)["otpId"])
        assert len(alnum) == len(digits) == length
        assert set(alnum) <= CROCKFORD
        assert digits.isdigit()
    default = code_of(emu, init_auth(emu)["otpId"])
    assert len(default) == 9 and set(default) <= CROCKFORD
    for bad in (5, 10):
        error = fails(emu, init_auth, emu, otp_length=bad)
        assert error_of(error)[:2] == (400, 3)
        bound = "at least 6" if bad == 5 else "at most 9"
        assert violations(error) == [
            {"field": "otpLength", "description": f"This field must be {bound}."}
        ]


def test_codes_come_from_the_seeded_secret_stream():
    def first_code(seed: int) -> str:
        emu = Emulator(seed=seed)
        emu.create_organization()
        emu.clock.freeze(1_800_000_000_000)
        otp_id = emu.init_otp_auth(otp_type="OTP_TYPE_EMAIL", contact=EMAIL, app_name="A")["otpId"]
        return code_of(emu, otp_id)

    assert first_code(11) == first_code(11)
    assert first_code(11) != first_code(12)


def test_sms_renders_the_template(emu, turnkey_org):
    template = "Acme code: {{.OtpCode}} (or {{ .OtpCode }}); {{.Other}} stays"
    otp_id = init_auth(emu, PHONE, "OTP_TYPE_SMS", sms_customization={"template": template})[
        "otpId"
    ]
    code = record(emu, otp_id).code
    message = emu.outbox.last()
    assert (message.channel, message.to, message.sender_address, message.sender_name) == (
        "sms",
        PHONE,
        None,
        None,
    )
    assert message.fields == {
        "otpId": otp_id,
        "otpCode": code,
        "otpType": "OTP_TYPE_SMS",
        "expirationSeconds": 300,
        "appName": "Acme",
        "message": f"Acme code: {code} (or {code}); {{{{.Other}}}} stays",
    }
    default = init_auth(emu, PHONE, "OTP_TYPE_SMS")["otpId"]
    assert emu.outbox.last().fields["message"] == f"Your OTP is {record(emu, default).code}"


def test_custom_sender_and_customization(emu):
    init_auth(
        emu,
        send_from_email_address="notifs@mail.acme.test",
        reply_to_email_address="help@acme.test",
        email_customization={"logoUrl": "https://acme.test/l.png", "magicLinkTemplate": "x/%s"},
    )
    message = emu.outbox.last()
    assert (message.sender_address, message.sender_name, message.reply_to) == (
        "notifs@mail.acme.test",
        "Notifications",
        "help@acme.test",
    )
    assert message.fields["logoUrl"] == "https://acme.test/l.png"
    assert message.fields["magicLink"] == "x/" + message.fields["otpCode"]
    # without a sender address, the name and reply-to are ignored (email.mdx)
    init_auth(emu, send_from_email_sender_name="Acme", reply_to_email_address="help@acme.test")
    message = emu.outbox.last()
    assert (message.sender_address, message.sender_name, message.reply_to) == (
        "notifications@turnkey.com",
        "Notifications",
        None,
    )


def test_contacts_and_expirations_are_checked(emu):
    error = fails(emu, init_auth, emu, "not-an-email")
    assert error_of(error) == (400, 3, "invalid email address", "INVALID_EMAIL")
    error = fails(emu, init_auth, emu, "555-0100", "OTP_TYPE_SMS")
    assert error_of(error) == (
        400,
        3,
        "invalid phone number: not in E.164 format contact=555-0100",
        "REQUEST_INVALID",
    )
    for bad, why in (("601", "must be at most 600 seconds"), ("0", "must be a positive whole")):
        error = fails(emu, init_auth, emu, expiration_seconds=bad)
        assert violations(error) == [
            {
                "field": "expirationSeconds",
                "description": f"This field {why}" + (" number of seconds." if bad == "0" else "."),
            }
        ]
    error = fails(emu, init_auth, emu, otp_type="OTP_TYPE_WHATSAPP")
    assert violations(error)[0]["field"] == "otpType"
    assert emu.outbox.messages == []


# ----- otp_auth ------------------------------------------------------------------------


def test_otp_auth_round_trip_to_a_key_that_stamps(emu, turnkey_org, wire):
    otp_id = init_auth(emu)["otpId"]
    code = emu.outbox.last().fields["otpCode"]
    target = TargetKey.generate()
    made = emu.otp_auth(otp_id=otp_id, otp_code=code, target_public_key=target.public_key)
    activity = made["activity"]
    assert (activity["type"], activity["status"]) == ("ACTIVITY_TYPE_OTP_AUTH", COMPLETED)
    assert made["userId"] == turnkey_org.user_id
    assert activity["result"]["otpAuthResult"] == {
        "userId": turnkey_org.user_id,
        "apiKeyId": made["apiKeyId"],
        "credentialBundle": made["credentialBundle"],
    }
    key = decrypt_credential_bundle(made["credentialBundle"], target)
    api_key = emu.get_api_key(api_key_id=made["apiKeyId"])["apiKey"]
    assert api_key["credential"] == {
        "publicKey": key.public_key,
        "type": "CREDENTIAL_TYPE_OTP_AUTH_KEY_P256",
    }
    assert api_key["apiKeyName"] == f"OTP Auth - {emu.clock.now_ns() // NS}"
    assert api_key["expirationSeconds"] == "900"
    assert record(emu, otp_id).used
    # the contact is proven
    assert (
        emu.world.store.organizations[turnkey_org.organization_id]
        .users[turnkey_org.user_id]
        .email_verified
    )
    # the issued key stamps a real request
    body = {"organizationId": turnkey_org.organization_id}
    status, answer = wire.post("/public/v1/query/whoami", body, key)
    assert (status, answer["userId"]) == (200, turnkey_org.user_id)
    # ... until it expires on the virtual clock (issue 4: OTP and session expiry)
    emu.clock.advance(900)
    status, answer = wire.post("/public/v1/query/whoami", body, key)
    assert (status, answer["code"], answer["turnkeyErrorCode"]) == (401, 16, "API_KEY_EXPIRED")
    assert answer["message"] == messages.expired_api_key(key.public_key)


def test_otp_auth_options_and_sms(emu, turnkey_org):
    otp_id = init_auth(emu, PHONE, "OTP_TYPE_SMS")["otpId"]
    made = otp_auth(
        emu,
        otp_id,
        code_of(emu, otp_id).lower(),  # codes are read without regard to case
        api_key_name="phone login",
        expiration_seconds="60",
    )
    api_key = emu.get_api_key(api_key_id=made["apiKeyId"])["apiKey"]
    assert (api_key["apiKeyName"], api_key["expirationSeconds"]) == ("phone login", "60")
    user = emu.world.store.organizations[turnkey_org.organization_id].users[turnkey_org.user_id]
    assert (user.email_verified, user.phone_number_verified) == (False, True)
    # invalidateExisting removes the earlier OTP auth keys
    again = init_auth(emu, PHONE, "OTP_TYPE_SMS")["otpId"]
    newer = otp_auth(emu, again, code_of(emu, again), invalidate_existing=True)
    types = [k["credential"]["type"] for k in emu.get_api_keys(user_id=user.user_id)["apiKeys"]]
    assert types.count("CREDENTIAL_TYPE_OTP_AUTH_KEY_P256") == 1
    assert newer["apiKeyId"] in {k.api_key_id for k in user.api_keys.values()}


def test_a_wrong_code_fails_and_counts_an_attempt(emu):
    otp_id = init_auth(emu)["otpId"]
    otp = record(emu, otp_id)
    error = fails_counting_attempt(emu, otp, otp_auth, emu, otp_id, "WRONGCODE")
    assert error_of(error) == (400, 3, "Invalid OTP code", "")
    fails_counting_attempt(emu, otp, otp_auth, emu, otp_id, "WRONGCODE")
    assert otp.attempts == 2
    otp_auth(emu, otp_id, otp.code)  # the third try is still allowed
    assert otp.used and otp.attempts == 2


def test_a_code_locks_after_three_wrong_tries(emu):
    otp_id = init_auth(emu)["otpId"]
    otp = record(emu, otp_id)
    for _ in range(3):
        fails_counting_attempt(emu, otp, otp_auth, emu, otp_id, "000000000")
    error = fails(emu, otp_auth, emu, otp_id, otp.code)  # locked: the right code fails too
    assert error_of(error) == (
        400,
        3,
        f"OTP is locked after too many failed attempts otpId={otp_id} attempts=3",
        "",
    )
    assert otp.attempts == 3


def test_a_checkpoint_rollback_undoes_counted_attempts(emu):
    otp_id = init_auth(emu)["otpId"]
    checkpoint = emu.checkpoint()
    with pytest.raises(TurnkeyApiError):
        otp_auth(emu, otp_id, "WRONG")
    assert record(emu, otp_id).attempts == 1
    emu.rollback(checkpoint)
    assert record(emu, otp_id).attempts == 0


def test_expired_and_reused_and_unknown_otps(emu):
    otp_id = init_auth(emu)["otpId"]
    code = code_of(emu, otp_id)
    emu.clock.advance(300)
    assert error_of(fails(emu, otp_auth, emu, otp_id, code)) == (
        400,
        3,
        f"OTP has expired otpId={otp_id}",
        "",
    )
    longer = init_auth(emu, expiration_seconds="600")["otpId"]
    emu.clock.advance(599)
    otp_auth(emu, longer, code_of(emu, longer))
    assert error_of(fails(emu, otp_auth, emu, longer, code_of(emu, longer))) == (
        400,
        3,
        f"OTP has already been used otpId={longer}",
        "",
    )
    org_id = emu.organization().organization_id
    assert error_of(fails(emu, otp_auth, emu, NIL_UUID, "123456")) == (
        404,
        5,
        f"unable to find OTP {NIL_UUID} in organization {org_id}",
        "",
    )
    # an OTP of the generic flow is not one for otp_auth
    generic = emu.init_otp(otp_type="OTP_TYPE_EMAIL", contact=EMAIL, app_name="A")["otpId"]
    assert error_of(fails(emu, otp_auth, emu, generic, code_of(emu, generic)))[:2] == (404, 5)


def test_otp_auth_needs_a_user_with_the_contact_and_a_valid_target(emu):
    otp_id = init_auth(emu, "nobody@example.com")["otpId"]
    code = code_of(emu, otp_id)
    org_id = emu.organization().organization_id
    assert error_of(fails(emu, otp_auth, emu, otp_id, code)) == (
        404,
        5,
        f"no user found with this contact in organization {org_id} contact=nobody@example.com",
        "",
    )
    assert not record(emu, otp_id).used  # the failed activity used nothing up
    error = fails(emu, emu.otp_auth, otp_id=otp_id, otp_code=code, target_public_key="04ab")
    assert error_of(error) == (
        400,
        3,
        messages.invalid_target_public_key("04ab"),
        "REQUEST_INVALID",
    )
    assert record(emu, otp_id).attempts == 0  # a malformed request tries no code


def test_otps_are_saved_and_loaded_with_their_attempts(emu, turnkey_org):
    otp_id = init_auth(emu)["otpId"]
    with pytest.raises(TurnkeyApiError):
        otp_auth(emu, otp_id, "WRONG")
    loaded = Emulator.from_document(emu.to_document())
    org_id = turnkey_org.organization_id
    assert loaded.world.store.organizations[org_id].otps == {otp_id: record(emu, otp_id)}
    made = otp_auth(loaded, otp_id, code_of(emu, otp_id))
    assert made["userId"] == turnkey_org.user_id
    assert not record(emu, otp_id).used  # the original is untouched


# ----- rate limits -----------------------------------------------------------------------


MAX_OTP = (
    400,
    3,
    "Max number of OTPs have been initiated please wait and try again",
    "MAX_OTP_INITIATED",
)


def test_three_requests_per_three_minutes_per_identifier(emu):
    made = [init_auth(emu, user_identifier="ip-hash-1")["otpId"] for _ in range(3)]
    error = fails(emu, init_auth, emu, user_identifier="ip-hash-1")
    assert error_of(error) == MAX_OTP
    assert error.details == [
        {
            "@type": "type.googleapis.com/errors.v1.TurnkeyErrorDetail",
            "turnkeyErrorCode": "MAX_OTP_INITIATED",
        }
    ]
    init_auth(emu, user_identifier="ip-hash-2")  # another identifier
    init_auth(emu)  # no identifier: no limit
    # past the window the three codes are still live (5 minute TTL): still refused
    emu.clock.advance(180)
    assert error_of(fails(emu, init_auth, emu, user_identifier="ip-hash-1")) == MAX_OTP
    # a used code is not live any more
    otp_auth(emu, made[0], code_of(emu, made[0]))
    init_auth(emu, user_identifier="ip-hash-1")
    # once every code expired and the window passed, the identifier starts afresh
    emu.clock.advance(300)
    for _ in range(3):
        init_auth(emu, user_identifier="ip-hash-1")


def test_locked_codes_are_not_live(emu):
    otp_id = init_auth(emu, user_identifier="u")["otpId"]
    for _ in range(3):
        with pytest.raises(TurnkeyApiError):
            otp_auth(emu, otp_id, "BAD")
    init_auth(emu, user_identifier="u")
    init_auth(emu, user_identifier="u")
    emu.clock.advance(180)
    init_auth(emu, user_identifier="u")  # two live codes and a locked one


def test_limits_are_settings(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    emu.settings.otp_max_requests = 1
    emu.settings.otp_max_attempts = 1
    emu.clock.freeze()
    otp_id = init_auth(emu, user_identifier="u")["otpId"]
    assert error_of(fails(emu, init_auth, emu, user_identifier="u")) == MAX_OTP
    with pytest.raises(TurnkeyApiError):
        otp_auth(emu, otp_id, "BAD")
    error = fails(emu, otp_auth, emu, otp_id, code_of(emu, otp_id))
    assert "locked" in error.message
    assert Settings().otp_max_active_codes == 3
    assert Settings().otp_request_window_s == 180


# ----- features, parents ---------------------------------------------------------------


def test_a_sub_organization_without_the_feature_refuses(emu, turnkey_org):
    sub = emu.create_organization(
        "Sub", user_email=EMAIL, parent_organization_id=turnkey_org.organization_id
    )
    org_id = sub.organization_id
    otp_id = init_auth(emu, organization_id=org_id)["otpId"]
    emu.remove_organization_feature(name="FEATURE_NAME_OTP_EMAIL_AUTH", organization_id=org_id)
    error = fails(emu, init_auth, emu, organization_id=org_id)
    assert error_of(error) == (
        403,
        7,
        "OTP email auth is disabled for this organization: FEATURE_NAME_OTP_EMAIL_AUTH is not "
        f"enabled organizationId={org_id}",
        "",
    )
    assert error_of(
        fails(emu, otp_auth, emu, otp_id, code_of(emu, otp_id), organization_id=org_id)
    )[:2] == (403, 7)
    # SMS has a feature of its own, still enabled
    init_auth(emu, PHONE, "OTP_TYPE_SMS", organization_id=org_id)
    emu.remove_organization_feature(name="FEATURE_NAME_SMS_AUTH", organization_id=org_id)
    error = fails(emu, init_auth, emu, PHONE, "OTP_TYPE_SMS", organization_id=org_id)
    assert error.message == messages.otp_feature_disabled("FEATURE_NAME_SMS_AUTH", org_id)
    assert error.message.startswith("SMS auth is disabled for this organization")
    # a top-level organization needs no feature
    init_auth(emu)


def test_the_parent_runs_otp_auth_in_a_sub_organization(emu, turnkey_org):
    sub = emu.create_organization(
        "Sub", user_email=EMAIL, parent_organization_id=turnkey_org.organization_id
    )
    otp_id = init_auth(emu, organization_id=sub.organization_id, caller=turnkey_org)["otpId"]
    assert otp_id in emu.world.store.organizations[sub.organization_id].otps
    made = otp_auth(
        emu,
        otp_id,
        code_of(emu, otp_id),
        organization_id=sub.organization_id,
        caller=turnkey_org,
    )
    assert made["userId"] == sub.user_id
    # an OTP of the sub-organization is not one of the parent
    with pytest.raises(TurnkeyApiError) as caught:
        otp_auth(emu, otp_id, code_of(emu, otp_id))
    assert caught.value.status == 404


# ----- the official SDK ----------------------------------------------------------------


def test_otp_auth_through_the_official_sdk(emu, turnkey_org, turnkey_client):
    from turnkey_sdk_types import InitOtpAuthBody, OtpAuthBody, v1SmsCustomizationParams

    started = turnkey_client.init_otp_auth(
        InitOtpAuthBody(
            otpType="OTP_TYPE_SMS",
            contact=PHONE,
            appName="Acme",
            otpLength=6,
            alphanumeric=False,
            smsCustomization=v1SmsCustomizationParams(template="Code {{.OtpCode}}"),
            userIdentifier="ip-hash",
        )
    )
    message = emu.outbox.last()
    code = message.fields["otpCode"]
    assert message.fields["otpId"] == started.otpId
    assert len(code) == 6 and code.isdigit() and message.fields["message"] == f"Code {code}"
    target = TargetKey.generate()
    done = turnkey_client.otp_auth(
        OtpAuthBody(otpId=started.otpId, otpCode=code, targetPublicKey=target.public_key)
    )
    assert done.userId == turnkey_org.user_id
    key = decrypt_credential_bundle(done.credentialBundle, target)
    stored = emu.world.store.organizations[turnkey_org.organization_id].users[turnkey_org.user_id]
    assert stored.api_keys[done.apiKeyId].public_key == key.public_key
    assert otps.is_live(emu.world, record(emu, started.otpId), emu.clock.now_ns()) is False
