"""HTTP requests to responses: routing, JSON, the stamp headers, error bodies.

``handle`` is the one entry point of the API on the wire: the site's routes
(``site.py``, under the server and the WSGI app) and the ``requests``
interception call it.
"""

from __future__ import annotations

import json
import sys
import traceback
import uuid
from collections.abc import Mapping

from ..crypto.attested import (
    ATTESTED_STAMP_HEADER,
    AttestedStamp,
    MalformedAttestedStamp,
    parse_attested_stamp_header,
)
from ..crypto.stamps import ApiKeyStamp, MalformedStamp, parse_stamp_header
from ..crypto.webauthn import (
    WEBAUTHN_STAMP_HEADER,
    MalformedWebauthnStamp,
    WebauthnStamp,
    parse_webauthn_stamp_header,
)
from ..dispatch import Request, dispatch
from ..engine_state import ratelimits
from ..engine_state.world import World
from ..ground import jsontext, messages
from ..ground.errors import (
    INTERNAL,
    NOT_FOUND,
    UNIMPLEMENTED,
    InvalidArgument,
    TurnkeyApiError,
    Unauthenticated,
)
from ..ops import find_by_path


def handle(
    world: World,
    method: str,
    path: str,
    headers: Mapping[str, str],
    body: bytes,
    client_ip: str | None = None,
) -> tuple[int, bytes]:
    """Answer one HTTP request: ``(status, JSON body bytes)``. ``headers`` keys are lower case;
    ``client_ip`` is the peer's address, where there is one (IP allowlists read it)."""
    status, _, payload = answer(world, method, path, headers, body, client_ip)
    return status, payload


def answer(
    world: World,
    method: str,
    path: str,
    headers: Mapping[str, str],
    body: bytes,
    client_ip: str | None = None,
) -> tuple[int, list[tuple[str, str]], bytes]:
    """``handle``'s answer with the headers of its own it carries: with rate limits on, the
    quota of the request (``ratelimits.headers``); none otherwise."""
    if world.settings.rate_limits is None:
        status, payload = _handle(world, method, path, headers, body, client_ip)
        return status, [], payload
    ratelimits.forget()
    status, payload = _handle(world, method, path, headers, body, client_ip)
    return status, ratelimits.headers(headers, client_ip), payload


def _handle(
    world: World,
    method: str,
    path: str,
    headers: Mapping[str, str],
    body: bytes,
    client_ip: str | None,
) -> tuple[int, bytes]:
    try:
        op = find_by_path(path)
        if op is None:
            raise TurnkeyApiError(NOT_FOUND, messages.NOT_FOUND_PATH)
        if method != "POST":  # the gateway's answer: code 12, HTTP 501
            raise TurnkeyApiError(UNIMPLEMENTED, messages.METHOD_NOT_ALLOWED)
        try:
            parsed = jsontext.loads(body)
        except (ValueError, UnicodeDecodeError):  # jsontext.TooDeep is a ValueError
            raise InvalidArgument(
                messages.BAD_REQUEST_BODY, turnkey_error_code="REQUEST_INVALID"
            ) from None
        request = Request(op, parsed, body, stamp_of(headers), client_ip=client_ip)
        response = dispatch(world, request)
        return 200, json.dumps(response).encode()
    except TurnkeyApiError as error:
        return error.status, json.dumps(error.body()).encode()
    except Exception:  # a bug of ours: answer like the real service, say why on stderr
        error_id = str(uuid.uuid4())
        print(f"internal server error ({error_id})", file=sys.stderr)
        traceback.print_exc()
        error = TurnkeyApiError(
            INTERNAL, f"internal server error ({error_id})", turnkey_error_code="INTERNAL"
        )
        return error.status, json.dumps(error.body()).encode()


def stamp_of(headers: Mapping[str, str]) -> ApiKeyStamp | WebauthnStamp | AttestedStamp | None:
    """The request's stamp: ``X-Stamp`` (base64url JSON), else ``X-Stamp-Webauthn`` (plain
    JSON), else ``X-Stamp-Attested`` (base64url JSON), else none; a header that does not
    decode is the real 401."""
    header = headers.get("x-stamp")
    if header:
        try:
            return parse_stamp_header(header)
        except MalformedStamp:
            raise Unauthenticated(
                messages.MALFORMED_STAMP, turnkey_error_code="UNAUTHENTICATED"
            ) from None
    webauthn_header = headers.get(WEBAUTHN_STAMP_HEADER.lower())
    if webauthn_header:
        try:
            return parse_webauthn_stamp_header(webauthn_header)
        except MalformedWebauthnStamp:
            raise Unauthenticated(
                messages.MALFORMED_WEBAUTHN_STAMP, turnkey_error_code="UNAUTHENTICATED"
            ) from None
    attested_header = headers.get(ATTESTED_STAMP_HEADER.lower())
    if attested_header:
        try:
            return parse_attested_stamp_header(attested_header)
        except MalformedAttestedStamp:
            raise Unauthenticated(
                messages.MALFORMED_STAMP, turnkey_error_code="UNAUTHENTICATED"
            ) from None
    return None
