"""Every error text the emulator answers with, in one place.

Texts follow the real service's (Turnkey docs ``api-reference/overview/errors``
and messages captured from the live API). Where the real text appends context,
it does so as unquoted ``key=value`` pairs, and so do we.
"""

from __future__ import annotations

# --- requests --------------------------------------------------------------
BAD_REQUEST_BODY = "bad request body"
INVALID_REQUEST = "invalid request"
MALFORMED_ORGANIZATION_ID = "malformed organization ID provided"
NOT_FOUND_PATH = "Not Found"
METHOD_NOT_ALLOWED = "Method Not Allowed"


def organization_not_found(organization_id: str) -> str:
    return f"no organization found with the given ID organizationId={organization_id}"


def validation_message(fields: list[str]) -> str:
    """The message of a 400 for bad fields; the SDKs surface only the message, so name them."""
    return f"{INVALID_REQUEST} (fieldViolations: {', '.join(fields)})"


def timestamp_outside_window(
    timestamp_ms: int, now_ms: int, window_s: float, future_s: float
) -> str:
    drift_s = (timestamp_ms - now_ms) / 1000
    direction = "ahead of" if drift_s > 0 else "behind"
    return (
        f"request timestamp is outside the allowed window: timestampMs={timestamp_ms} is "
        f"{abs(drift_s):.3f}s {direction} the server clock (now={now_ms}); "
        f"requests must be at most {window_s:g}s old and {future_s:g}s ahead"
    )


# --- authentication (401) --------------------------------------------------
NO_STAMP_QUERY = "no valid authentication signature found for request"
NO_STAMP_ACTIVITY = (
    "cannot authenticate public API activity request without a stamp "
    "(X-Stamp/X-Stamp-Webauthn header)"
)
MALFORMED_STAMP = "malformed activity stamp"
BAD_SIGNATURE = "could not verify api key signature"


def public_key_not_found(organization_id: str, public_key: str, *, has_parent: bool) -> str:
    where = "organization or its parent organization" if has_parent else "organization"
    return (
        f"could not find public key in {where} organizationId={organization_id} "
        f"publicKey={public_key}"
    )


def expired_api_key(public_key: str) -> str:
    return (
        "authentication failed: rpc error: code = Unauthenticated desc = "
        f"expired api key publicKey={public_key}"
    )


# --- authorization (403 / 400) ---------------------------------------------
IMPLICIT_DENY = (
    "You don't have sufficient permissions to take this action. Please add a policy granting "
    "this user permissions. Learn more at https://docs.turnkey.com/concepts/policies/quickstart."
)
NO_POLICY_ALLOWED = "No policies evaluated to outcome: Allow"


def organization_mismatch(target_id: str, voters_org_id: str) -> str:
    return (
        f"organization mismatch: request is targeting organization ({target_id}), "
        f"but voters are in organization ({voters_org_id})"
    )


# --- resources ---------------------------------------------------------------
def user_not_found(user_id: str, organization_id: str) -> str:
    return f"unable to find user {user_id} in organization {organization_id}"


def api_key_not_found(api_key_id: str, organization_id: str) -> str:
    return f"unable to find api key {api_key_id} in organization {organization_id}"


def authenticator_not_found(authenticator_id: str, organization_id: str) -> str:
    return f"unable to find authenticator {authenticator_id} in organization {organization_id}"


def user_tag_not_found(tag_id: str, organization_id: str) -> str:
    return f"unable to find user tag {tag_id} in organization {organization_id}"


def activity_not_found(activity_id: str, organization_id: str) -> str:
    return f"unable to find activity {activity_id} in organization {organization_id}"


INVALID_API_KEY_EXPIRATION = "invalid api key expiration"
INVALID_OIDC_TOKEN = "invalid OIDC token"
MISSING_ATTESTATION = "missing parameter: user authenticator attestation"
INVALID_ATTESTATION = "invalid authenticator attestation"
MISSING_ATTESTATION_AUTH_DATA = "missing parameter: user authenticator attestation auth data"
QUORUM_USERS_MISSING = "quorum users missing"
MAX_AUTHENTICATORS = "user has exceeded maximum authenticators"
MAX_OAUTH_PROVIDERS = "user has exceeded maximum oauth providers"
MAX_LONG_LIVED_API_KEYS = "user has exceeded maximum long-lived api keys"
MAX_USERS = "organization has exceeded maximum users"
MAX_TAGS = "organization has exceeded maximum tags"


def invalid_api_key_public_key(public_key: str, curve: str) -> str:
    return f"invalid api key public key: {public_key!r} is not a {curve} public key"


def duplicate_api_key(public_key: str) -> str:
    return f"api key with public key {public_key} already exists for this user"


def duplicate_authenticator(credential_id: str) -> str:
    return f"authenticator with credential ID {credential_id} already exists for this user"


def tag_name_taken(name: str) -> str:
    return f"tag name must be unique: a tag named {name!r} already exists"


def user_name_taken(name: str) -> str:
    return f"user name must be unique: a user named {name!r} already exists"


def invalid_pagination_cursor(cursor: str) -> str:
    return f"invalid pagination cursor: no object with ID {cursor}"


# --- wallets, private keys, signing ------------------------------------------
INVALID_ADDRESS_FORMAT = "invalid address format"
INVALID_CURVE = "invalid curve"
NO_SIGNING_RESOURCE = "Could not find any resource to sign with."
MAX_WALLETS = "organization has exceeded maximum wallets"
MAX_PRIVATE_KEYS = "organization has exceeded maximum private keys"
WALLET_NOT_EXPORTED = "wallet has not been exported"
WALLET_ACCOUNT_NOT_EXPORTED = "wallet account has not been exported"
PRIVATE_KEY_NOT_EXPORTED = "private key has not been exported"
WALLET_ACCOUNT_NOT_IN_ORGANIZATION = "wallet account not part of your organization"
UNSUPPORTED_TRANSACTION_TYPE = "unsupported transaction type"
MUST_BE_UNIQUE = "must be unique"


def invalid_path(path: str, why: str) -> str:
    return f"invalid path: {why} path={path}"


def invalid_address_format(address_format: str, curve: str) -> str:
    return f"{INVALID_ADDRESS_FORMAT}: {address_format} is not available on {curve}"


def invalid_mnemonic_length(length: int) -> str:
    return f"invalid mnemonic length: {length}; accepted values are 12, 15, 18, 21 and 24"


def wallet_not_found(wallet_id: str, organization_id: str) -> str:
    return f"unable to find wallet {wallet_id} in organization {organization_id}"


def wallet_account_not_found(address: str) -> str:
    return f"Could not find wallet account with address: {address}"


def wallet_account_path_not_found(path: str) -> str:
    return f"Could not find wallet account with path: {path}"


def private_key_not_found(private_key_id: str, organization_id: str) -> str:
    return f"unable to find private key {private_key_id} in organization {organization_id}"


def private_key_tag_not_found(tag_id: str, organization_id: str) -> str:
    return f"unable to find private key tag {tag_id} in organization {organization_id}"


def not_exported(what: str, resource_id: str) -> str:
    return f"{what}: set deleteWithoutExport to delete it anyway id={resource_id}"


def transaction_curve_mismatch(transaction_type: str, curve: str) -> str:
    return f"failed to sign transaction: a {curve} key cannot sign a {transaction_type}"


def unsupported_transaction_type(transaction_type: str) -> str:
    return f"{UNSUPPORTED_TRANSACTION_TYPE}: {transaction_type} is not supported by the emulator"


# --- policies and consensus --------------------------------------------------
POLICY_LABEL_NOT_UNIQUE = "policy label must be unique"
MAX_POLICIES = "organization has exceeded maximum policies"
EXPLICIT_DENY = "policy engine denied request explicitly"
ACTIVITY_FINGERPRINT_NOT_FOUND = (
    "No activity found with fingerprint. Consensus activities must target an existing "
    "activity by fingerprint"
)


def invalid_policy_expression(kind: str, parse_error: str) -> str:
    """``kind`` is condition, consensus or time; ``parse_error`` the parser's own text."""
    return f"invalid policy {kind}: Expression cannot be evaluated: {parse_error}"


def policy_not_found(policy_id: str, organization_id: str) -> str:
    return f"unable to find policy {policy_id} in organization {organization_id}"


def activity_not_awaiting_consensus(activity_id: str, status: str) -> str:
    return f"activity {activity_id} cannot be voted on: its status is {status}"


def already_voted(activity_id: str, user_id: str) -> str:
    return f"user {user_id} has already voted on activity {activity_id}"


# --- sub-organizations, organization settings, invitations -------------------
# "quorum threshold must be non-zero integer" is the documented text (errors.mdx), and
# the description of INVALID_ACTIVITY_CALLER ("This activity cannot be called by
# sub-organizations") gives the sub-organization refusal; the others are the emulator's
# own, in the style of the texts above.
QUORUM_THRESHOLD_NOT_POSITIVE = "quorum threshold must be non-zero integer"
SUB_ORGANIZATION_CALLER = "this activity cannot be called by sub-organizations"
MAX_SUB_ORGANIZATIONS = "organization has exceeded maximum sub-organizations"
MAX_INVITATIONS = "organization has exceeded maximum invitations"


def quorum_threshold_above_members(threshold: int, members: int) -> str:
    return (
        "quorum threshold must be less than or equal to the number of quorum users "
        f"threshold={threshold} users={members}"
    )


def not_a_sub_organization(organization_id: str) -> str:
    return (
        "organization is not a sub-organization: only a sub-organization can be deleted "
        f"organizationId={organization_id}"
    )


def invitation_not_found(invitation_id: str, organization_id: str) -> str:
    return f"unable to find invitation {invitation_id} in organization {organization_id}"


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


# --- IP allowlists (features/ip-allowlisting; the texts are ours) -----------------------------

IP_NOT_EVALUATED = (
    "the request's source IP address could not be determined, and the IP allowlist denies "
    "such requests (onEvaluationError: DENY)"
)
IP_ALLOWLIST_SUB_ORGANIZATION = (
    "IP allowlists belong to parent organizations: a sub-organization cannot set one"
)


def ip_not_allowed(address: str) -> str:
    return f"source IP address {address} is not allowed by the organization's IP allowlist"


def invalid_cidr(index: int, cidr: str) -> str:
    return f"invalid CIDR at rules[{index}]: {cidr!r}"


def cidr_too_wide(index: int, cidr: str, widest: int) -> str:
    return f"CIDR at rules[{index}] is too wide: {cidr!r} (at most /{widest})"


def too_many_cidrs(version: int, limit: int) -> str:
    return f"an IP allowlist holds at most {limit} IPv{version} CIDRs"


def api_key_not_found_by_public_key(public_key: str, organization_id: str) -> str:
    return f"unable to find API key with public key {public_key} in organization {organization_id}"


# --- session profiles (features/authentication/sessions/session-profiles; texts ours) --------

SESSION_PROFILE_EXPIRATION_ZERO = "a session profile's expirationSeconds must be more than 0"


def invalid_session_profile_scope(why: str) -> str:
    return f"invalid session profile scope: {why}"


def session_profile_not_found(session_profile_id: str, organization_id: str) -> str:
    return f"unable to find session profile {session_profile_id} in organization {organization_id}"


def session_scope_denied(session_profile_id: str) -> str:
    return f"the scope of session profile {session_profile_id} does not allow this activity"


# --- smart contract interfaces (concepts/policies/smart-contract-interfaces; texts ours) ------

CONTRACT_INTERFACE_TOO_LARGE = "a smart contract interface is limited to 400 kB"


def invalid_contract_interface(why: str) -> str:
    return f"invalid smart contract interface: {why}"


def invalid_contract_address(address: str, expected: str) -> str:
    return f"invalid smart contract address {address!r}: expected {expected}"


def contract_interface_not_found(interface_id: str, organization_id: str) -> str:
    return (
        f"unable to find smart contract interface {interface_id} in organization {organization_id}"
    )


# --- secrets (texts ours) ----------------------------------------------------------------------

SECRET_NAME_NOT_UNIQUE = "secret names must be unique within an organization"


def secret_not_found(secret_id: str, organization_id: str) -> str:
    return f"unable to find secret {secret_id} in organization {organization_id}"


def secrets_count(limit: int) -> str:
    return f"between 1 and {limit} secrets at a time"


def secrets_to_delete(limit: int) -> str:
    return f"secretIds must hold between 1 and {limit} distinct ids"


def secret_target_not_found(index: int) -> str:
    return (
        f"secrets[{index}].targetPublicKey is not a pending import target of this user: "
        "call init_import_secrets first"
    )


def secret_payload_does_not_open(index: int) -> str:
    return f"secrets[{index}].secretPayload does not decrypt with its target"


# ----- MFA policies (features/authentication/mfa) --------------------------------------


def mfa_unsatisfiable(user_id: str, policy_name: str, labels: str) -> str:
    """The docs' creation-time refusal; ``labels`` lists the step's methods, quoted."""
    return (
        f"user ({user_id}) cannot satisfy mfa policy requirement: mfa policy '{policy_name}' "
        f"requires one of [{labels}] but user does not, or will not, have a matching credential"
    )


def invalid_mfa_condition(parse_error: str) -> str:
    return invalid_policy_expression("condition", parse_error)


MFA_NO_REQUIRED_METHODS = "an mfa policy requires at least one authentication method"


def mfa_empty_step(index: int) -> str:
    return f"requiredAuthenticationMethods[{index}].any must name at least one method"


def mfa_policy_not_found(mfa_policy_id: str, user_id: str) -> str:
    return f"unable to find mfa policy {mfa_policy_id} for user {user_id}"


def awaiting_proposer_authenticators(activity_id: str) -> str:
    return (
        f"activity {activity_id} cannot be voted on yet: its proposer has not satisfied "
        "their MFA requirements"
    )


# --- OAuth 2.0 credentials (texts ours) ----------------------------------------------------------


def oauth2_credential_not_found(credential_id: str, organization_id: str) -> str:
    return f"unable to find OAuth 2.0 credential {credential_id} in organization {organization_id}"


INVALID_ENCRYPTED_CLIENT_SECRET = (
    "encryptedClientSecret does not decrypt with the TLS fetcher's encryption key: "
    "encrypt the client secret with encryptOauth2ClientSecret"
)
EMPTY_CLIENT_ID = "clientId must not be empty"


def oauth2_exchange_failed(provider: str, error: str, description: str) -> str:
    """The provider's token endpoint refused the code (RFC 6749 §5.2 ``error``)."""
    return (
        "failed to exchange OAuth 2.0 auth code: "
        f"provider={provider} error={error} description={description}"
    )


# --- velocity controls (the OpenAPI document's field descriptions; texts ours) -------------------


def invalid_velocity_control(why: str) -> str:
    return f"invalid velocity control: {why}"


def velocity_identifier_not_unique(identifier: str) -> str:
    return f"a velocity control with identifier {identifier!r} already exists in this organization"


def velocity_control_not_found(velocity_control_id: str, organization_id: str) -> str:
    return (
        f"unable to find velocity control {velocity_control_id} in organization {organization_id}"
    )


VELOCITY_CONTROLS_TO_DELETE = "velocityControlIds must hold at least one id, without repeats"


# --- webhooks (the rules of features/webhooks/overview.mdx; texts ours) ------------------------
WEBHOOK_NAME_EMPTY = "name must be a non-empty, human-readable name"
WEBHOOK_SUBSCRIPTIONS_REQUIRED = (
    "subscriptions must hold at least one event type (pass event types inside subscriptions[])"
)


def webhook_endpoint_not_found(endpoint_id: str, organization_id: str) -> str:
    return f"webhook endpoint not found: endpointId={endpoint_id} organizationId={organization_id}"


def invalid_webhook_url(reason: str) -> str:
    return f"invalid webhook url: the url {reason}"


def invalid_webhook_event_type(index: int, event_type: str) -> str:
    return f"subscriptions[{index}].eventType is not an event type: {event_type!r}"


def duplicate_webhook_event_type(event_type: str) -> str:
    return f"duplicate subscription for event type {event_type}"


def webhook_billing_scoped(event_type: str) -> str:
    return (
        f"{event_type} webhook endpoints must be managed from the billing organization, "
        "not a sub-organization"
    )


def invalid_webhook_filters(index: int) -> str:
    return f"subscriptions[{index}].filtersJson must be a JSON object"


def webhook_endpoint_limit(limit: int) -> str:
    return f"an organization may have at most {limit} webhook endpoints"


# --- proofs (texts ours) -------------------------------------------------------------------------
def boot_proof_not_found(ephemeral_key: str) -> str:
    return f"no boot proof found for ephemeral key {ephemeral_key}"


def enclave_app_not_found(app_name: str, known: tuple[str, ...]) -> str:
    return f"no boot proof found for enclave app {app_name!r} (known: {', '.join(known)})"


# --- broadcasting (texts ours, except the nodes' own refusals, which are passed on) ----------

GAS_SPONSORSHIP_DISABLED = "gas sponsorship is not enabled for this organization"
GAS_STATION_DEADLINE_PASSED = "deadline has passed: the sponsored execution is no longer valid"


def invalid_uint_field(name: str, value: str) -> str:
    return f"invalid {name}: {value!r} is not an unsigned integer"


def invalid_hex_field(name: str) -> str:
    return f"invalid {name}: expected hex-encoded bytes"


def gas_sponsorship_limit(limit_usd: str) -> str:
    return f"gas sponsorship limit of ${limit_usd} reached for the current window"


def send_transaction_status_not_found(status_id: str) -> str:
    return f"send transaction status not found: {status_id}"


def calls_count(limit: int) -> str:
    return f"calls must contain between 1 and {limit} entries"


def sign_withs_count(limit: int) -> str:
    return f"signWiths must contain between 1 and {limit} signers"


def gas_station_nonce(expected: int, given: int) -> str:
    return f"invalid gas station nonce: expected {expected}, got {given}"


def broadcast_failed(reason: str) -> str:
    return f"failed to broadcast transaction: {reason}"


def unsupported_address_for_balances(address: str) -> str:
    return f"address {address} is not a wallet account of this organization"


def invalid_limit(limit: int) -> str:
    return f"invalid pagination limit: must be between 1 and {limit}"


def invalid_evm_address(name: str, value: str) -> str:
    return f"invalid {name}: {value!r} is not an EVM address (0x and 40 hex digits)"


def invalid_solana_address(name: str, value: str) -> str:
    return f"invalid {name}: {value!r} is not a Solana address (32 bytes in base58)"
