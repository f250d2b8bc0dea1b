"""JSON nested a thousand levels deep, wherever the emulator parses JSON, is a clear 4xx.

The body's own depth bound has always held; these are the JSON texts inside strings and
headers (stamps, tokens, passkey client data, e-mail template variables, import bundles).
Every one goes through ``emulator.ground.jsontext``; a static check keeps it that way.
"""

from __future__ import annotations

import ast
import base64
import json
from pathlib import Path

import pytest

from emulator import TurnkeyApiError
from emulator.accounts import account_spec
from emulator.crypto.authenticator import VirtualAuthenticator
from emulator.crypto.encoding import b64url_encode
from emulator.ground import jsontext
from emulator.http.app import handle
from emulator.testing.client_crypto import TargetKey

DEEP = "[" * 5000 + "]" * 5000
DEEP_OBJECT = '{"a":' * 3000 + "1" + "}" * 3000
ROOT = Path(__file__).parent.parent / "emulator"
# Modules that parse only JSON the emulator wrote itself (its own test issuer's keys, a
# test-only signature check, its own package data).
OWN_JSON = {
    "facade/oidc.py",
    "testing/signature_checks.py",
    "ops/coverage.py",  # its own package data
}


def deep_jwt(where: str) -> str:
    header = b64url_encode(json.dumps({"alg": "ES256", "typ": "JWT"}).encode())
    deep = b64url_encode(DEEP_OBJECT.encode())
    return f"{deep}.e30.sig" if where == "header" else f"{header}.{deep}.sig"


def test_every_json_parse_of_outside_text_goes_through_jsontext():
    offenders = []
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative == "ground/jsontext.py" or relative in OWN_JSON:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in {"loads", "load"}
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "json"
            ):
                offenders.append(f"{relative}:{node.lineno}")
    assert offenders == []


@pytest.mark.parametrize("text", [DEEP, DEEP_OBJECT, f'{{"a": "{DEEP}"}}'.replace(DEEP, "x")])
def test_the_bounded_parser(text):
    if text.count("[") + text.count("{") > jsontext.MAX_DEPTH:
        with pytest.raises(jsontext.TooDeep):
            jsontext.loads(text)
    else:
        assert jsontext.loads(text) == {"a": "x"}


# ----- headers, before authentication --------------------------------------------------


def whoami(emu, org, headers):
    body = json.dumps({"organizationId": org.organization_id}).encode()
    status, payload = handle(emu.world, "POST", "/public/v1/query/whoami", headers, body)
    return status, json.loads(payload)


@pytest.mark.parametrize("text", [DEEP, DEEP_OBJECT])
def test_a_deep_x_stamp_is_401(turnkey_emulator, turnkey_org, text):
    header = base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
    status, answer = whoami(turnkey_emulator, turnkey_org, {"x-stamp": header})
    assert status == 401 and answer["code"] == 16


@pytest.mark.parametrize("text", [DEEP, DEEP_OBJECT])
def test_a_deep_x_stamp_webauthn_is_401(turnkey_emulator, turnkey_org, text):
    status, answer = whoami(turnkey_emulator, turnkey_org, {"x-stamp-webauthn": text})
    assert status == 401 and answer["code"] == 16


def test_a_deep_passkey_client_data_in_a_stamp_is_401(turnkey_emulator, turnkey_org):
    device = VirtualAuthenticator()
    turnkey_emulator.create_authenticators(
        user_id=turnkey_org.user_id, authenticators=[device.authenticator_params("laptop")]
    )
    body = json.dumps({"organizationId": turnkey_org.organization_id}).encode()
    stamp = json.loads(device.stamp(body))
    stamp["clientDataJson"] = b64url_encode(DEEP_OBJECT.encode())
    status, answer = whoami(turnkey_emulator, turnkey_org, {"x-stamp-webauthn": json.dumps(stamp)})
    assert status == 401 and answer["code"] == 16


# ----- inside parameters ------------------------------------------------------------------


def refused(call) -> TurnkeyApiError:
    with pytest.raises(TurnkeyApiError) as caught:
        call()
    assert caught.value.status in (400, 401, 403, 404), caught.value.body()
    return caught.value


def test_a_deep_client_data_json_in_a_registration_is_400(turnkey_emulator, turnkey_org):
    params = VirtualAuthenticator().authenticator_params("laptop")
    params["attestation"]["clientDataJson"] = b64url_encode(DEEP_OBJECT.encode())
    error = refused(
        lambda: turnkey_emulator.create_authenticators(
            user_id=turnkey_org.user_id, authenticators=[params]
        )
    )
    assert error.status == 400


@pytest.mark.parametrize("where", ["header", "claims"])
def test_a_deep_oidc_token_is_400(turnkey_emulator, where):
    error = refused(
        lambda: turnkey_emulator.create_users(
            users=[
                {
                    "userName": "o",
                    "apiKeys": [],
                    "authenticators": [],
                    "userTags": [],
                    "oauthProviders": [{"providerName": "p", "oidcToken": deep_jwt(where)}],
                }
            ]
        )
    )
    assert error.status == 400


@pytest.mark.parametrize("where", ["header", "claims"])
def test_a_deep_verification_token_is_400(turnkey_emulator, where):
    key = TargetKey.generate()
    error = refused(
        lambda: turnkey_emulator.otp_login(
            verification_token=deep_jwt(where),
            public_key=key.compressed_public_key,
            client_signature={
                "publicKey": key.compressed_public_key,
                "scheme": "CLIENT_SIGNATURE_SCHEME_API_P256",
                "message": DEEP,
                "signature": "00",
            },
        )
    )
    assert error.status in (400, 401)


def test_deep_template_variables_are_400(turnkey_emulator, turnkey_org):
    sub = turnkey_emulator.create_sub_organization(
        sub_organization_name="deep",
        root_quorum_threshold=1,
        root_users=[
            {
                "userName": "alice",
                "userEmail": "alice@acme.test",
                "apiKeys": [],
                "authenticators": [],
                "oauthProviders": [],
            }
        ],
    )
    error = refused(
        lambda: turnkey_emulator.email_auth(
            email="alice@acme.test",
            target_public_key=TargetKey.generate().public_key,
            email_customization={"appName": "A", "templateVariables": DEEP_OBJECT},
            organization_id=sub["subOrganizationId"],
        )
    )
    assert error.status == 400


@pytest.mark.parametrize("bundle", [DEEP, DEEP_OBJECT])
def test_a_deep_import_bundle_is_400(turnkey_emulator, turnkey_org, bundle):
    error = refused(
        lambda: turnkey_emulator.import_wallet(
            user_id=turnkey_org.user_id,
            wallet_name="w",
            encrypted_bundle=bundle,
            accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")],
        )
    )
    assert error.status == 400


def test_a_deep_state_document_is_a_clear_error(tmp_path):
    from emulator import Emulator
    from emulator.state.records import DocumentError

    path = tmp_path / "deep.json"
    path.write_text(DEEP)
    with pytest.raises(DocumentError, match="not a JSON state document"):
        Emulator.load(path)
