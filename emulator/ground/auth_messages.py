"""The error texts of export and import, e-mail auth and sessions, OTP and verification
tokens, passkey stamps and e-mail recovery, OIDC tokens and OAuth providers (issue 5).

Split out of ``messages.py`` (which re-exports every name here, so ``messages.X`` still
works).
"""

from __future__ import annotations

# ----- export and import (issue 5) -----
# "invalid mnemonic" is how the real text begins (the TS SDK's core client maps an import
# error containing "invalid mnemonic" to "Invalid mnemonic input"); the rest of that text
# and the other texts here are the emulator's own, in the style above. None quotes the
# key material.
IMPORT_BUNDLE_DOES_NOT_OPEN = (
    "failed to decrypt encrypted bundle: it is not an HPKE bundle sealed to this user's "
    "import target"
)


def invalid_target_public_key(target_public_key: str) -> str:
    return f"invalid target public key: not a P-256 public key targetPublicKey={target_public_key}"


def unsupported_mnemonic_language(language: str) -> str:
    return f"unsupported mnemonic language language={language}"


def import_not_own_user(user_id: str, requester_id: str) -> str:
    return (
        "import requests must target your own user "
        f"userId={user_id} requestingUserId={requester_id}"
    )


def import_target_not_found(kind: str, user_id: str) -> str:
    first = "init_import_wallet" if kind == "wallet" else "init_import_private_key"
    return f"no import target found for user: call {first} first userId={user_id}"


def invalid_mnemonic(why: str) -> str:
    return f"invalid mnemonic: {why}"


def invalid_import_private_key(curve: str, why: str) -> str:
    return f"invalid private key for {curve}: {why}"


# ----- email auth and sessions (issue 5) -----
# The first two are the real texts (errors.mdx, "invalid magic link template" and "failed
# to unmarshal template variables"; when the real service answers them is not documented).
# The others are the emulator's own, in the style above.
INVALID_MAGIC_LINK_TEMPLATE = "invalid magic link template"
TEMPLATE_VARIABLES_NOT_JSON = "failed to unmarshal template variables"


def user_with_email_not_found(email: str, organization_id: str) -> str:
    return f"unable to find user with email {email} in organization {organization_id}"


def email_auth_disabled(organization_id: str) -> str:
    return (
        "email auth is disabled for this organization: FEATURE_NAME_EMAIL_AUTH is not enabled "
        f"organizationId={organization_id}"
    )


# ----- OTP and verification tokens (issue 5) -----
# Real: "Max number of OTPs have been initiated please wait and try again" (captured from the
# live API with MAX_OTP_INITIATED), "Invalid OTP code" (the text the official TypeScript
# client matches a wrong code by) and "invalid email address" (errors.mdx). The others are
# the emulator's own, in the style above.
MAX_OTP_INITIATED = "Max number of OTPs have been initiated please wait and try again"
INVALID_OTP_CODE = "Invalid OTP code"
OTP_CONTACT_NOT_EMAIL = "invalid email address"
INVALID_OTP_BUNDLE = (
    "failed to decrypt encrypted OTP bundle: it is not an HPKE bundle of "
    '{"otp_code", "public_key"} sealed to this OTP\'s encryption target'
)
INVALID_VERIFICATION_TOKEN = "invalid verification token"
VERIFICATION_TOKEN_EXPIRED = "verification token has expired"
VERIFICATION_TOKEN_USED = "verification token has already been used"
LEGACY_VERIFICATION_TOKEN = (
    "legacy verification token: this activity version accepts only tokens of the encrypted "
    "OTP flow (INIT_OTP_V3, VERIFY_OTP_V2)"
)
CLIENT_SIGNATURE_REQUIRED = (
    "client signature required: the verification token is bound to a public key"
)


def otp_contact_not_phone_number(contact: str) -> str:
    return f"invalid phone number: not in E.164 format contact={contact}"


def otp_not_found(otp_id: str, organization_id: str) -> str:
    return f"unable to find OTP {otp_id} in organization {organization_id}"


def otp_expired(otp_id: str) -> str:
    return f"OTP has expired otpId={otp_id}"


def otp_already_used(otp_id: str) -> str:
    return f"OTP has already been used otpId={otp_id}"


def otp_locked(otp_id: str, attempts: int) -> str:
    return f"OTP is locked after too many failed attempts otpId={otp_id} attempts={attempts}"


def otp_flow_mismatch(otp_id: str, expected: str) -> str:
    return (
        f"OTP was not started for this flow: legacy and encrypted OTP activities cannot be "
        f"mixed otpId={otp_id} expected={expected}"
    )


def otp_feature_disabled(feature: str, organization_id: str) -> str:
    what = "SMS auth" if feature == "FEATURE_NAME_SMS_AUTH" else "OTP email auth"
    return (
        f"{what} is disabled for this organization: {feature} is not enabled "
        f"organizationId={organization_id}"
    )


def otp_expiration_too_long(maximum: int) -> str:
    return f"must be at most {maximum} seconds"


def no_user_with_contact(contact: str, organization_id: str) -> str:
    return f"no user found with this contact in organization {organization_id} contact={contact}"


def verification_token_organization(token_organization_id: str, organization_id: str) -> str:
    return (
        "organization mismatch: verification token was issued by organization "
        f"({token_organization_id}), but request is targeting organization ({organization_id})"
    )


def invalid_client_signature(why: str) -> str:
    return f"invalid client signature: {why}"


def invalid_session_public_key(public_key: str) -> str:
    return f"invalid public key: not a P-256 public key publicKey={public_key}"


def invalid_policy_selectors(why: str) -> str:
    """Ours: legacy selectors that do not read as a condition."""
    return f"invalid policy selectors: {why}"


def verification_token_not_for(field: str) -> str:
    """Ours: a verification token for another contact (or kind of contact) than ``field``."""
    return f"verification token is not for this {field}"


def verification_token_contact(field: str) -> str:
    return f"verification token contact does not match the {field} of any root user"


# ----- passkey stamps and e-mail recovery (issue 5) -----
# The three WebAuthn texts are the real ones (errors.mdx: 401 "could not extract webauthn
# stamp", 401 "could not verify WebAuthN signature", 404 "webauthn authenticator not found
# in organization [or parent organization]"); the key=value context is the emulator's.
MALFORMED_WEBAUTHN_STAMP = "could not extract webauthn stamp"
BAD_WEBAUTHN_SIGNATURE = "could not verify WebAuthN signature"


# errors.mdx's text, for a passkey login (``stamp_login``) to a parent organization whose
# credential is in more than one of its sub-organizations.
CREDENTIAL_IN_SEVERAL_SUB_ORGANIZATIONS = "more than one suborg associated with a credential ID"
# errors.mdx's text for an e-mail domain that cannot be reached.
EMAIL_UNREACHABLE = "could not reach email"


def webauthn_authenticator_not_found(
    organization_id: str, credential_id: str, *, has_parent: bool
) -> str:
    where = "organization or parent organization" if has_parent else "organization"
    return (
        f"webauthn authenticator not found in {where} organizationId={organization_id} "
        f"credentialId={credential_id}"
    )


def email_recovery_disabled(organization_id: str) -> str:
    """Guessed text (the docs only say "Email recovery cannot be initiated if disabled")."""
    return (
        "email recovery is disabled for this organization: FEATURE_NAME_EMAIL_RECOVERY is not "
        f"enabled organizationId={organization_id}"
    )


# ----- OIDC tokens and OAuth providers (issue 5) -----
# Every token that fails verification answers the documented "invalid OIDC token" (above,
# INVALID_OIDC_TOKEN). The texts below are the emulator's own: errors.mdx only describes
# OAUTH_PROVIDER_ALREADY_EXISTS ("OAuth provider with same audience, subject, and issuer
# already exists").
def oauth_provider_exists(issuer: str, audience: str, subject: str) -> str:
    return (
        "oauth provider with same audience, subject, and issuer already exists "
        f"issuer={issuer} audience={audience} subject={subject}"
    )


def oauth_provider_not_found(provider_id: str, organization_id: str) -> str:
    return f"unable to find oauth provider {provider_id} in organization {organization_id}"


def oauth_user_not_found(organization_id: str) -> str:
    return (
        "unable to find a user with an oauth provider matching the OIDC token in "
        f"organization {organization_id}"
    )
