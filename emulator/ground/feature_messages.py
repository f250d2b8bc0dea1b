"""The error texts of the features added after the core API: IP allowlists, session
profiles, smart contract interfaces, secrets, MFA policies, OAuth 2.0 credentials, velocity
controls, webhooks, proofs and broadcasting.

Split out of ``messages.py`` (which re-exports every name here, so ``messages.X`` still
works). Most texts are the emulator's own; each section names the doc page it follows.
"""

from __future__ import annotations

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
