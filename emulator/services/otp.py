"""One-time passwords: codes, their delivery, expiry, attempts and rate limits.

``init_otp_auth`` and ``init_otp`` make an ``Otp`` record in the target organization
and send its code to ``contact``: an e-mail (``OTP_TYPE_EMAIL``) or an SMS
(``OTP_TYPE_SMS``, ``smsCustomization.template`` with ``{{.OtpCode}}`` filled in). The
message lands in the outbox (``emu.outbox``, template ``otp``) with the code in
``fields["otpCode"]`` and the OTP's id in ``fields["otpId"]``, once the activity commits.
``otp_auth`` and ``verify_otp`` then check a code against the record.

Defaults and limits (the ``v1InitOtpIntentV3`` field descriptions, validation tags
``otp_length: min=6,max=9`` and ``expiration_seconds: max=600``, and the "OTP rate
limits" of ``features/authentication/email.mdx`` / ``sms.mdx``):

* a code is 9 characters long (6 to 9) of Crockford's base32 alphabet (digits and
  capitals without I, L, O, U), or digits only when ``alphanumeric`` is false; it is
  drawn from the world's secret stream (seeded emulators repeat them);
* it expires after 300 s (``expirationSeconds``, at most 600) on the emulator's clock;
* with a ``userIdentifier``: at most ``Settings.otp_max_requests`` (3) inits per
  ``otp_request_window_s`` (180 s) and ``otp_max_active_codes`` (3) live codes per
  identifier in the organization, else the real ``MAX_OTP_INITIATED`` error;
* a code locks after ``Settings.otp_max_attempts`` (3) wrong tries. The docs list this
  among the ``userIdentifier`` limits; the emulator locks every code (a code that could
  be guessed forever would be a weaker double than the service).

A wrong code must count even though its activity fails, and a failed activity changes
nothing: the one exception is the attempt counter. The check registers, as the last
undo step of the activity's transaction, a step that commits ``attempts + 1`` in a
transaction of its own (journaled like any change, so a checkpoint rollback undoes it
and ``state_digest`` sees it). Nothing else of the failed activity survives.

Where OTP auth is a feature of the organization: a sub-organization starts with
``FEATURE_NAME_OTP_EMAIL_AUTH`` and ``FEATURE_NAME_SMS_AUTH`` and can lose them
(``disableOtpEmailAuth``, ``disableSmsAuth``, ``remove_organization_feature``); without
the feature of the OTP's type, its OTP activities are refused. A top-level organization
starts with no feature at all in the emulator, and the docs disagree on its default
(organizations.mdx: enabled; email.mdx: disabled), so no feature is required there.

The encrypted flow (INIT_OTP_V3) hands out a target key to encrypt the code to. Its
private half is derived from the enclave's TLS fetcher key and the OTP id when needed,
never stored.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import Any

from ..crypto.curves import P256_ORDER
from ..crypto.enclave import TLS_FETCHER
from ..engine_state.world import World
from ..ground import messages
from ..ground.errors import InvalidArgument, NotFound, PermissionDenied, ValidationFailed
from ..ground.models import Organization, Otp, User
from ..ground.numbers import positive
from ..ground.schema import Violations
from ..recorders.outbox import SMS
from . import emails
from .context import Context

EMAIL_OTP = "OTP_TYPE_EMAIL"
SMS_OTP = "OTP_TYPE_SMS"
OTP_TYPES = (SMS_OTP, EMAIL_OTP)
AUTH_FLOW = "otp_auth"  # init_otp_auth -> otp_auth
VERIFY_FLOW = "verify"  # init_otp -> verify_otp

CROCKFORD_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
DIGITS = "0123456789"
DEFAULT_LENGTH = 9
MIN_LENGTH, MAX_LENGTH = 6, 9
DEFAULT_EXPIRATION_S = 300
MAX_EXPIRATION_S = 600
DEFAULT_SMS_TEMPLATE = "Your OTP is {{.OtpCode}}"  # the field's own example
TEMPLATE = "otp"
FEATURES = {EMAIL_OTP: "FEATURE_NAME_OTP_EMAIL_AUTH", SMS_OTP: "FEATURE_NAME_SMS_AUTH"}

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_E164 = re.compile(r"^\+[1-9][0-9]{1,14}$", re.ASCII)
_OTP_CODE_REFERENCE = re.compile(r"\{\{\s*\.OtpCode\s*\}\}")
NS = 1_000_000_000

Params = dict[str, Any]


# ----- starting an OTP -----------------------------------------------------------------


def check_feature(ctx: Context, otp_type: str) -> None:
    """A sub-organization without the OTP type's feature refuses its OTP activities."""
    feature = FEATURES[otp_type]
    if ctx.org.parent_id is not None and feature not in ctx.org.features:
        raise PermissionDenied(messages.otp_feature_disabled(feature, ctx.org.organization_id))


def check_contact(otp_type: str, contact: str) -> None:
    """An e-mail address for e-mail OTPs, an E.164 phone number for SMS."""
    if otp_type == EMAIL_OTP and not _EMAIL.fullmatch(contact):
        raise InvalidArgument(messages.OTP_CONTACT_NOT_EMAIL, turnkey_error_code="INVALID_EMAIL")
    if otp_type == SMS_OTP and not _E164.match(contact):
        raise InvalidArgument(
            messages.otp_contact_not_phone_number(contact), turnkey_error_code="REQUEST_INVALID"
        )


def lifetime_seconds(value: str | None, *, default: int, maximum: int) -> int:
    """``expirationSeconds`` checked: a positive whole number up to ``maximum``."""
    if value in (None, ""):
        return default
    errors = Violations()
    seconds = positive(value)
    if seconds is None:
        errors.add("expirationSeconds", "must be a positive whole number of seconds")
    elif seconds > maximum:
        errors.add("expirationSeconds", messages.otp_expiration_too_long(maximum))
    if errors:
        raise ValidationFailed(errors)
    return seconds


def check_rate_limits(ctx: Context, user_identifier: str | None) -> None:
    """The per-identifier limits: inits per window, and live codes."""
    if not user_identifier:
        return
    settings, now = ctx.settings, ctx.now_ns
    mine = [o for o in ctx.org.otps.values() if o.user_identifier == user_identifier]
    recent = [o for o in mine if now - o.created_at < settings.otp_request_window_s * NS]
    live = [o for o in mine if is_live(ctx.world, o, now)]
    if len(recent) >= settings.otp_max_requests or len(live) >= settings.otp_max_active_codes:
        raise InvalidArgument(messages.MAX_OTP_INITIATED, turnkey_error_code="MAX_OTP_INITIATED")


def is_live(world: World, otp: Otp, now_ns: int) -> bool:
    """Neither used, expired nor locked."""
    locked = otp.attempts >= world.settings.otp_max_attempts
    return not otp.used and not locked and now_ns < otp.expires_at


def new_code(world: World, length: int, alphanumeric: bool) -> str:
    """A fresh code from the secret stream, every character uniformly drawn."""
    alphabet = CROCKFORD_ALPHABET if alphanumeric else DIGITS
    limit = 256 - 256 % len(alphabet)  # reject the bytes that would bias the draw
    code = ""
    while len(code) < length:
        for byte in world.ids.secret_bytes(32):
            if byte < limit and len(code) < length:
                code += alphabet[byte % len(alphabet)]
    return code


def start(ctx: Context, flow: str, params: Params, *, legacy: bool = False) -> Otp:
    """Check the request, make the OTP record and send its code (on commit)."""
    otp_type, contact = params["otpType"], params["contact"]
    check_feature(ctx, otp_type)
    check_contact(otp_type, contact)
    lifetime = lifetime_seconds(
        params.get("expirationSeconds"), default=DEFAULT_EXPIRATION_S, maximum=MAX_EXPIRATION_S
    )
    user_identifier = params.get("userIdentifier") or None
    check_rate_limits(ctx, user_identifier)
    alphanumeric = params.get("alphanumeric", True)
    code = new_code(ctx.world, params.get("otpLength") or DEFAULT_LENGTH, alphanumeric)
    otp = Otp(
        otp_id=ctx.new_id(),
        flow=flow,
        otp_type=otp_type,
        contact=contact,
        code=code,
        created_at=ctx.now_ns,
        expires_at=ctx.now_ns + lifetime * NS,
        user_identifier=user_identifier,
        legacy=legacy,
    )
    ctx.tx.put(ctx.org.otps, otp.otp_id, otp)
    deliver(ctx, otp, params, lifetime)
    return otp


def render_sms(template: str | None, code: str) -> str:
    """The SMS text: ``template`` (or the default) with ``{{.OtpCode}}`` filled in."""
    return _OTP_CODE_REFERENCE.sub(lambda _: code, template or DEFAULT_SMS_TEMPLATE)


def deliver(ctx: Context, otp: Otp, params: Params, lifetime: int) -> None:
    """The e-mail or SMS carrying the code, into the outbox once the activity commits."""
    fields: Params = {
        "otpId": otp.otp_id,
        "otpCode": otp.code,
        "otpType": otp.otp_type,
        "expirationSeconds": lifetime,
    }
    if otp.otp_type == SMS_OTP:
        if params.get("appName"):
            fields["appName"] = params["appName"]
        template = (params.get("smsCustomization") or {}).get("template")
        fields["message"] = render_sms(template, otp.code)
        ctx.world.outbox.send(
            ctx.tx,
            channel=SMS,
            to=otp.contact,
            template=TEMPLATE,
            organization_id=ctx.org.organization_id,
            time_ns=ctx.now_ns,
            fields=fields,
            sender_address=None,
            sender_name=None,
        )
        return
    options = emails.sender_options(params)
    if params.get("appName"):  # V3 has it beside the customization, V1 inside it
        options["customization"] = {
            **(options["customization"] or {}),
            "appName": params["appName"],
        }
    emails.send_email(
        ctx, to=otp.contact, template=TEMPLATE, fields=fields, magic_link_value=otp.code, **options
    )


# ----- checking a code -------------------------------------------------------------------


def find(ctx: Context, otp_id: str, flow: str) -> Otp:
    """The OTP of this organization and flow; an OTP of the other flow is not found."""
    otp = ctx.org.otps.get(otp_id)
    if otp is None or otp.flow != flow:
        raise NotFound(messages.otp_not_found(otp_id, ctx.org.organization_id))
    return otp


def check_code(ctx: Context, otp: Otp, code: str) -> None:
    """Accept ``code`` for ``otp`` (marking it used) or raise the real service's error; a
    wrong code counts an attempt that outlives the failed activity."""
    if otp.used:
        raise InvalidArgument(messages.otp_already_used(otp.otp_id))
    if ctx.now_ns >= otp.expires_at:
        raise InvalidArgument(messages.otp_expired(otp.otp_id))
    if otp.attempts >= ctx.settings.otp_max_attempts:
        raise InvalidArgument(messages.otp_locked(otp.otp_id, otp.attempts))
    if not hmac.compare_digest(code.strip().upper().encode(), otp.code.encode()):
        _count_failed_attempt(ctx, otp)
        raise InvalidArgument(messages.INVALID_OTP_CODE)
    ctx.tx.set(otp, "used", True)


def _count_failed_attempt(ctx: Context, otp: Otp) -> None:
    """Once the failing activity's transaction rolls back, commit ``attempts + 1``."""
    world = ctx.world

    def persist() -> None:
        tx = world.transaction()
        tx.set(otp, "attempts", otp.attempts + 1)
        tx.commit()

    ctx.tx.on_rollback(persist)


def target_secret(world: World, otp_id: str) -> bytes:
    """The private key of an encrypted OTP's target: derived from the TLS fetcher key."""
    enclave_secret = world.enclave.key(TLS_FETCHER).private_numbers().private_value
    digest = hmac.new(
        enclave_secret.to_bytes(32, "big"), b"otp-target:" + otp_id.encode(), hashlib.sha256
    ).digest()
    return (int.from_bytes(digest, "big") % (P256_ORDER - 1) + 1).to_bytes(32, "big")


# ----- the user behind a contact ---------------------------------------------------------


def user_with_contact(org: Organization, otp_type: str, contact: str) -> User:
    """The organization's (oldest) user with this e-mail address or phone number."""
    for user in org.users.values():
        if otp_type == EMAIL_OTP and user.email and user.email.lower() == contact.lower():
            return user
        if otp_type == SMS_OTP and user.phone_number == contact:
            return user
    raise NotFound(messages.no_user_with_contact(contact, org.organization_id))


def mark_verified(ctx: Context, user: User, otp_type: str) -> None:
    """The contact the OTP went to is proven: ``list_verified_suborgs`` finds the user."""
    attribute = "email_verified" if otp_type == EMAIL_OTP else "phone_number_verified"
    if not getattr(user, attribute):
        ctx.tx.set(user, attribute, True)
