"""Every ``turnkeyErrorCode`` the emulator knows: the docs' list, and the codes seen live.

``TURNKEY_ERROR_CODES`` maps each code to its meaning: the 32 codes of the docs' errors
page (``tkhq/docs`` ``api-reference/overview/errors.mdx``, "Available TurnkeyErrorCodes",
in its order), ``ORGANIZATION_MISMATCH`` (in the same page's example of an error, not its
list) and ``MAX_OTP_INITIATED``, which the live API answers although the page does not
list it. ``docs/errors.md`` says where the emulator answers each, and a test keeps the
page, this table and the codes the emulator raises the same set.

``SERVICE_STATES`` are the codes of conditions of Turnkey's own service that no request to
an emulator can bring about (API operations switched off, a billing quota, e-mail sending
switched off, a bug). Fault injection answers them as the docs describe:
``emu.faults.fail_next(turnkey_error_code="API_OPERATIONS_DISABLED")`` takes its status,
gRPC code and message from here.
"""

from __future__ import annotations

from .errors import INTERNAL, INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED, RESOURCE_EXHAUSTED

TURNKEY_ERROR_CODES: dict[str, str] = {
    "UNSPECIFIED": "Error code not specified",
    "INTERNAL": "Internal server error",
    "ORGANIZATION_NOT_FOUND": "The specified organization could not be found",
    "API_OPERATIONS_DISABLED": "Global API access is temporarily disabled",
    "SIGNING_QUOTA_EXCEEDED": "Organization has exceeded its signing quota",
    "REQUEST_NOT_AUTHORIZED": "Request is not authorized (outside permissions or session)",
    "PUBLIC_KEY_NOT_FOUND": "Public key not found in the organization or its parent",
    "RATE_LIMIT_EXCEEDED": "Organization has been rate limited",
    "SIGNATURE_MISSING": "Required authentication signature is missing",
    "SIGNATURE_INVALID": "Could not verify API key or WebAuthn signature",
    "CREDENTIAL_NOT_FOUND": "Credential or authenticator not found in organization or parent",
    "CREDENTIAL_CONFLICT": "Several sub-organizations hold this credential",
    "API_KEY_EXPIRED": "The API key has expired",
    "REQUEST_INVALID": "Request contains invalid or missing parameters",
    "FORBIDDEN": "User may not view or access this organization",
    "UNAUTHENTICATED": "Request lacks valid authentication credentials",
    "UNSUPPORTED_TRANSACTION_TYPE": "Transaction type is not supported",
    "INVALID_TRANSACTION": "Transaction structure is invalid",
    "INVALID_OIDC_TOKEN": "OIDC token is invalid or misses required claims",
    "INVALID_ORGANIZATION_ID": "Organization ID is invalid or malformed",
    "OAUTH2_CREDENTIAL_NOT_FOUND": "The OAuth 2.0 credential could not be found",
    "OAUTH2_PROVIDER_NOT_FOUND": "The OAuth 2.0 provider could not be found",
    "INVALID_OAUTH2_PROVIDER": "OAuth 2.0 provider configuration is invalid",
    "OAUTH2_PROVIDER_NOT_CONFIGURED": "OAuth 2.0 provider not configured for the organization",
    "INVALID_ACTIVITY_CALLER": "This activity cannot be called by sub-organizations",
    "WALLET_ACCOUNT_NOT_EXPORTED": "Wallet account has not been exported",
    "INVALID_TIME": "Time range is invalid",
    "RPC_CALL_ERROR": "RPC provider communication error",
    "INVALID_EMAIL": "Email address is invalid",
    "INVALID_FQDN": "Email domain could not be reached or verified",
    "OAUTH_PROVIDER_ALREADY_EXISTS": "OAuth provider with that audience, subject, issuer exists",
    "EMAIL_SENDING_DISABLED": "Email sending is disabled",
    # Not in the page's list: in its own example of an error (messages.organization_mismatch)
    "ORGANIZATION_MISMATCH": "Voters are not in the organization the request targets",
    # Not on the docs' page; answered by the live API (messages.MAX_OTP_INITIATED).
    "MAX_OTP_INITIATED": "Too many OTPs initiated for this contact",
}

#: Codes only fault injection answers: (gRPC code, message). The messages are the docs'
#: (errors.mdx, "Detailed error messages") where it gives one; EMAIL_SENDING_DISABLED's,
#: FORBIDDEN's and OAUTH2_PROVIDER_NOT_FOUND's are ours, in the docs' style.
SERVICE_STATES: dict[str, tuple[int, str]] = {
    "UNSPECIFIED": (INTERNAL, "internal server error"),
    "INTERNAL": (INTERNAL, "internal server error"),
    "API_OPERATIONS_DISABLED": (PERMISSION_DENIED, "api operations disabled"),
    "SIGNING_QUOTA_EXCEEDED": (
        RESOURCE_EXHAUSTED,
        "this organization cannot execute activities because it is over its allotted quota. "
        "Please reach out to the Turnkey team (help@turnkey.com) for more information.",
    ),
    "FORBIDDEN": (PERMISSION_DENIED, "user does not have permission to view this organization"),
    "OAUTH2_PROVIDER_NOT_FOUND": (NOT_FOUND, "OAuth 2.0 provider not found"),
    "EMAIL_SENDING_DISABLED": (INVALID_ARGUMENT, "email sending is disabled"),
}
