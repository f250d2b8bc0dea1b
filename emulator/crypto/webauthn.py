"""Reading WebAuthn registration data (the attestation of a new passkey).

Parsing is done by ``py_webauthn``; this module turns its result into what the
API stores for an authenticator: credential id, COSE public key, AAGUID and
the attestation format.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from webauthn.helpers import parse_attestation_object
from webauthn.helpers.exceptions import InvalidAuthenticatorDataStructure, WebAuthnException

from .encoding import b64url_decode, b64url_encode


class AttestationError(ValueError):
    """The attestation is not a readable WebAuthn registration."""


class MissingAuthData(AttestationError):
    """The authenticator data carries no attested credential."""


@dataclass(frozen=True, slots=True)
class RegisteredCredential:
    credential_id: str  # base64url
    public_key: str  # base64url of the COSE key
    aaguid: str  # base64url of the 16 bytes
    attestation_format: str


def read_attestation(
    attestation_object_b64: str, client_data_json_b64: str
) -> RegisteredCredential:
    """Parse a registration; raise ``AttestationError`` if it cannot be read."""
    try:
        raw_object = b64url_decode(attestation_object_b64)
        client_data = json.loads(b64url_decode(client_data_json_b64))
    except ValueError as exc:
        raise AttestationError(str(exc)) from exc
    if not isinstance(client_data, dict) or "challenge" not in client_data:
        raise AttestationError("clientDataJSON is not a WebAuthn client data object")
    try:
        parsed = parse_attestation_object(raw_object)
    except InvalidAuthenticatorDataStructure as exc:
        raise MissingAuthData(str(exc)) from exc
    except (WebAuthnException, ValueError, TypeError, KeyError) as exc:
        raise AttestationError(str(exc)) from exc
    attested = parsed.auth_data.attested_credential_data
    if attested is None:
        raise MissingAuthData("authenticator data has no attested credential data")
    return RegisteredCredential(
        credential_id=b64url_encode(attested.credential_id),
        public_key=b64url_encode(attested.credential_public_key),
        aaguid=b64url_encode(attested.aaguid),
        attestation_format=str(parsed.fmt.value if hasattr(parsed.fmt, "value") else parsed.fmt),
    )
