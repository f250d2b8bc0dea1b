"""Every error text the emulator answers with, in one place.

Texts follow the real service's (Turnkey docs ``api-reference/overview/errors``
and messages captured from the live API). Where the real text appends context,
it does so as unquoted ``key=value`` pairs, and so do we.
"""

from __future__ import annotations

# The texts of the auth flows (auth_messages.py) and of the later features
# (feature_messages.py) are re-exported here, so messages.X works for every text.
from .auth_messages import *  # noqa: F403
from .feature_messages import *  # noqa: F403

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


def invalid_mfa_condition(parse_error: str) -> str:
    """An MFA policy's condition that does not parse (the MFA texts are in feature_messages)."""
    return invalid_policy_expression("condition", parse_error)


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
