"""Every ``turnkeyErrorCode`` of the docs' errors page, answered over a real socket.

One case per code (``docs/errors.md`` lists them with the condition each stands for): the
request that brings the condition about is sent with ``requests`` to a served emulator and
the answer's HTTP status, gRPC ``code``, ``turnkeyErrorCode`` (in the body and its detail)
and message are asserted. Codes of conditions no request can cause (the service's own
state) are answered by fault injection, with the docs' text. A last test keeps
``docs/errors.md``, ``emulator.ground.error_codes`` and the codes the emulator raises the same set.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.crypto.authenticator import VirtualAuthenticator
from emulator.crypto.stamps import sign_stamp
from emulator.engine_state.world import Settings
from emulator.ground import messages
from emulator.ground.error_codes import SERVICE_STATES, TURNKEY_ERROR_CODES
from emulator.http.server import serving
from emulator.ops.registry import REGISTRY
from emulator.testing.client_crypto import TargetKey, encrypt_oauth2_client_secret

from .authproxy import proxy_served
from .helpers import NIL_UUID, api_key_params, new_key, user_params

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "errors.md"
DETAIL = "type.googleapis.com/errors.v1.TurnkeyErrorDetail"
ETH = "ADDRESS_FORMAT_ETHEREUM"


@dataclass
class Site:
    emu: Emulator
    url: str

    @property
    def org_id(self) -> str:
        return self.emu.organization().organization_id

    def post(self, path: str, body: Any, headers: dict[str, str] | None = None, *, key=None):
        raw = json.dumps(body).encode()
        sent = dict(headers or {})
        if key is not None:
            sent["X-Stamp"] = sign_stamp(raw, key).header_value()
        return requests.post(self.url + path, data=raw, headers=sent, timeout=30)

    def body(self, op: str, params: dict[str, Any], org_id: str | None = None) -> dict:
        operation = REGISTRY[op]
        org = org_id or self.org_id
        if operation.kind == "query":
            return {"organizationId": org, **params}
        return {
            "type": operation.default_version.activity_type,
            "timestampMs": str(self.emu.clock.now_ms()),
            "organizationId": org,
            "parameters": params,
        }

    def send(self, op: str, params: dict[str, Any], *, key=None, org_id=None, headers=None):
        """``op`` (its default version) stamped by ``key`` (the root user's by default)."""
        key = key if key is not None else self.emu.organization().api_key
        return self.post(REGISTRY[op].path, self.body(op, params, org_id), headers, key=key)


@contextmanager
def site(settings: Settings | None = None) -> Iterator[Site]:
    emu = Emulator(seed=22, settings=settings)
    emu.create_organization("Errors")
    with serving(emu.world) as url:
        yield Site(emu, url)


@dataclass(frozen=True)
class Expected:
    status: int
    code: int
    message: str  # the whole message, or a regular expression when ``pattern``
    pattern: bool = False


# ----- the cases: each brings its code's condition about and answers the response ---------


def _fault(site: Site, tk_code: str) -> requests.Response:
    site.emu.faults.fail_next("whoami", turnkey_error_code=tk_code)
    return site.send("whoami", {})


def _service_state(tk_code: str) -> Callable[[Site], requests.Response]:
    return lambda s: _fault(s, tk_code)


def _organization_not_found(site: Site) -> requests.Response:
    return site.send("whoami", {}, org_id=NIL_UUID)


def _not_authorized(site: Site) -> requests.Response:
    site.emu.backdoor.set_client_ip("10.0.0.7")  # the facade's address, to enable it
    site.emu.set_ip_allowlist(rules=[{"cidr": "10.0.0.0/24"}], enabled=True)
    return site.send("create_wallet", {"walletName": "w", "accounts": [account_spec(ETH)]})


def _public_key_not_found(site: Site) -> requests.Response:
    return site.send("whoami", {}, key=new_key())


def _organization_mismatch(site: Site) -> requests.Response:
    sub = site.emu.create_sub_organization(
        sub_organization_name="sub", root_users=[user_params("sub")], root_quorum_threshold=1
    )["subOrganizationId"]
    params = {"walletName": "w", "accounts": [account_spec(ETH)]}
    return site.send("create_wallet", params, org_id=sub)


def _rate_limited(site: Site) -> requests.Response:
    site.emu.create_wallet(wallet_name="one", accounts=[account_spec(ETH)])
    return site.send("create_wallet", {"walletName": "two", "accounts": [account_spec(ETH)]})


def _signature_missing(site: Site) -> requests.Response:
    return site.post("/public/v1/query/whoami", {"organizationId": site.org_id})


def _signature_invalid(site: Site) -> requests.Response:
    body = site.body("whoami", {})
    other = sign_stamp(b"{}", site.emu.organization().api_key).header_value()
    return site.post("/public/v1/query/whoami", body, {"X-Stamp": other})


def _credential_not_found(site: Site) -> requests.Response:
    device = VirtualAuthenticator()
    raw = json.dumps(site.body("whoami", {})).encode()
    return requests.post(
        site.url + "/public/v1/query/whoami", data=raw, headers=device.headers(raw), timeout=30
    )


def _credential_conflict(site: Site) -> requests.Response:
    device = VirtualAuthenticator()
    for name in ("first", "second"):
        site.emu.create_sub_organization(
            sub_organization_name=name,
            root_users=[user_params(name, authenticators=[device.authenticator_params("phone")])],
            root_quorum_threshold=1,
        )
    login = site.body("stamp_login", {"publicKey": TargetKey.generate().compressed_public_key})
    raw = json.dumps(login).encode()
    return requests.post(
        site.url + "/public/v1/submit/stamp_login",
        data=raw,
        headers=device.headers(raw),
        timeout=30,
    )


def _api_key_expired(site: Site) -> requests.Response:
    key = new_key()
    root = site.emu.organization().user_id
    site.emu.create_api_keys(
        user_id=root, api_keys=[{**api_key_params(key, "brief"), "expirationSeconds": "60"}]
    )
    site.emu.clock.advance(60)
    return site.send("whoami", {}, key=key)


def _request_invalid(site: Site) -> requests.Response:
    return site.send("create_wallet", {"walletName": "w"})


def _unauthenticated(site: Site) -> requests.Response:
    return site.post("/public/v1/query/whoami", site.body("whoami", {}), {"X-Stamp": "%%%"})


def _unsupported_transaction(site: Site) -> requests.Response:
    made = site.emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH)])
    (address,) = made["addresses"]
    params = {"signWith": address, "unsignedTransaction": "02c0", "type": "TRANSACTION_TYPE_TRON"}
    return site.send("sign_transaction", params)


def _invalid_transaction(site: Site) -> requests.Response:
    made = site.emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH)])
    (address,) = made["addresses"]
    params = {
        "signWith": address,
        "unsignedTransaction": "02c0ffee",
        "type": "TRANSACTION_TYPE_ETHEREUM",
    }
    return site.send("sign_transaction", params)


def _invalid_oidc_token(site: Site) -> requests.Response:
    root = site.emu.organization().user_id
    providers = [{"providerName": "p", "oidcToken": "not-a-jwt"}]
    return site.send("create_oauth_providers", {"userId": root, "oauthProviders": providers})


def _invalid_organization_id(site: Site) -> requests.Response:
    return site.send("whoami", {}, org_id="not-a-uuid")


def _oauth2_credential_not_found(site: Site) -> requests.Response:
    return site.send("get_oauth2_credential", {"oauth2CredentialId": NIL_UUID})


def _oauth2_authenticate(site: Site, credential_id: str) -> requests.Response:
    params = {
        "oauth2CredentialId": credential_id,
        "authCode": "code",
        "redirectUri": "http://localhost/cb",
        "codeVerifier": "v" * 43,
        "nonce": "n",
    }
    return site.send("oauth2_authenticate", params)


def _invalid_oauth2_provider(site: Site) -> requests.Response:
    # a credential for a client the provider has never registered
    made = site.emu.create_oauth2_credential(
        provider="OAUTH2_PROVIDER_X",
        client_id="unregistered",
        encrypted_client_secret=encrypt_oauth2_client_secret(
            "secret", site.emu.enclave.tls_fetcher_encrypt_public_key
        ),
    )
    return _oauth2_authenticate(site, made["oauth2CredentialId"])


def _invalid_activity_caller(site: Site) -> requests.Response:
    key = new_key()
    made = site.emu.create_sub_organization(
        sub_organization_name="sub",
        root_users=[user_params("sub", apiKeys=[api_key_params(key, "sub key")])],
        root_quorum_threshold=1,
    )
    params = {
        "subOrganizationName": "nested",
        "rootUsers": [user_params("n")],
        "rootQuorumThreshold": 1,
    }
    return site.send("create_sub_organization", params, key=key, org_id=made["subOrganizationId"])


def _wallet_account_not_exported(site: Site) -> requests.Response:
    made = site.emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH)])
    accounts = site.emu.get_wallet_accounts(wallet_id=made["walletId"])["accounts"]
    ids = [accounts[0]["walletAccountId"]]
    return site.send("delete_wallet_accounts", {"walletAccountIds": ids})


def _invalid_time(site: Site) -> requests.Response:
    body = site.body("create_wallet", {"walletName": "w", "accounts": [account_spec(ETH)]})
    body["timestampMs"] = str(site.emu.clock.now_ms() - 3_600_000)
    return site.post(REGISTRY["create_wallet"].path, body, key=site.emu.organization().api_key)


def _rpc_call_error(site: Site) -> requests.Response:
    made = site.emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH)])
    (address,) = made["addresses"]
    return site.send("get_wallet_address_balances", {"address": address, "caip2": "eip155:1"})


def _otp(contact: str) -> Callable[[Site], requests.Response]:
    def send(site: Site) -> requests.Response:
        params = {"otpType": "OTP_TYPE_EMAIL", "contact": contact, "appName": "Acme"}
        return site.send("init_otp_auth", params)

    return send


def _oauth_provider_exists(site: Site) -> requests.Response:
    root = site.emu.organization().user_id
    token = site.emu.oidc.token(sub="ann", aud="app")
    providers = [{"providerName": "a", "oidcToken": token}]
    site.emu.create_oauth_providers(user_id=root, oauth_providers=providers)
    return site.send("create_oauth_providers", {"userId": root, "oauthProviders": providers})


def _max_otp_initiated(site: Site) -> requests.Response:
    params = {
        "otpType": "OTP_TYPE_EMAIL",
        "contact": "ada@example.com",
        "appName": "Acme",
        "userIdentifier": "ip-hash",
    }
    for _ in range(3):
        assert site.send("init_otp_auth", params).status_code == 200
        site.emu.clock.advance(1)
    return site.send("init_otp_auth", params)


def _state(tk_code: str) -> Expected:
    grpc, message = SERVICE_STATES[tk_code]
    return Expected({3: 400, 7: 403, 5: 404, 8: 429, 13: 500}[grpc], grpc, message)


CASES: dict[str, tuple[Callable[[Site], requests.Response], Expected, Settings | None]] = {
    "UNSPECIFIED": (_service_state("UNSPECIFIED"), _state("UNSPECIFIED"), None),
    "INTERNAL": (_service_state("INTERNAL"), _state("INTERNAL"), None),
    "ORGANIZATION_NOT_FOUND": (
        _organization_not_found,
        Expected(404, 5, messages.organization_not_found(NIL_UUID)),
        None,
    ),
    "API_OPERATIONS_DISABLED": (
        _service_state("API_OPERATIONS_DISABLED"),
        _state("API_OPERATIONS_DISABLED"),
        None,
    ),
    "SIGNING_QUOTA_EXCEEDED": (
        _service_state("SIGNING_QUOTA_EXCEEDED"),
        _state("SIGNING_QUOTA_EXCEEDED"),
        None,
    ),
    "REQUEST_NOT_AUTHORIZED": (
        _not_authorized,
        Expected(403, 7, messages.ip_not_allowed("127.0.0.1")),
        None,
    ),
    "PUBLIC_KEY_NOT_FOUND": (
        _public_key_not_found,
        Expected(401, 16, r"could not find public key in organization organizationId=.*", True),
        None,
    ),
    "RATE_LIMIT_EXCEEDED": (
        _rate_limited,
        Expected(429, 8, messages.MAX_WALLETS),
        Settings(max_wallets_per_organization=1),
    ),
    "SIGNATURE_MISSING": (_signature_missing, Expected(401, 16, messages.NO_STAMP_QUERY), None),
    "SIGNATURE_INVALID": (_signature_invalid, Expected(401, 16, messages.BAD_SIGNATURE), None),
    "CREDENTIAL_NOT_FOUND": (
        _credential_not_found,
        Expected(404, 5, r"webauthn authenticator not found in organization .*", True),
        None,
    ),
    "CREDENTIAL_CONFLICT": (
        _credential_conflict,
        Expected(401, 16, messages.CREDENTIAL_IN_SEVERAL_SUB_ORGANIZATIONS),
        None,
    ),
    "API_KEY_EXPIRED": (
        _api_key_expired,
        Expected(401, 16, r"authentication failed: .* expired api key publicKey=\w+", True),
        None,
    ),
    "REQUEST_INVALID": (
        _request_invalid,
        Expected(400, 3, messages.validation_message(["accounts"])),
        None,
    ),
    "FORBIDDEN": (_service_state("FORBIDDEN"), _state("FORBIDDEN"), None),
    "UNAUTHENTICATED": (_unauthenticated, Expected(401, 16, messages.MALFORMED_STAMP), None),
    "UNSUPPORTED_TRANSACTION_TYPE": (
        _unsupported_transaction,
        Expected(400, 3, r"unsupported transaction type.*", True),
        None,
    ),
    "INVALID_TRANSACTION": (
        _invalid_transaction,
        Expected(400, 3, r"failed to parse transaction.*", True),
        None,
    ),
    "INVALID_OIDC_TOKEN": (
        _invalid_oidc_token,
        Expected(400, 3, messages.INVALID_OIDC_TOKEN),
        None,
    ),
    "INVALID_ORGANIZATION_ID": (
        _invalid_organization_id,
        Expected(400, 3, messages.MALFORMED_ORGANIZATION_ID),
        None,
    ),
    "OAUTH2_CREDENTIAL_NOT_FOUND": (
        _oauth2_credential_not_found,
        Expected(404, 5, r"unable to find OAuth 2.0 credential 0{8}-.* in organization .*", True),
        None,
    ),
    "OAUTH2_PROVIDER_NOT_FOUND": (
        _service_state("OAUTH2_PROVIDER_NOT_FOUND"),
        _state("OAUTH2_PROVIDER_NOT_FOUND"),
        None,
    ),
    "INVALID_OAUTH2_PROVIDER": (
        _invalid_oauth2_provider,
        Expected(
            400,
            3,
            messages.oauth2_exchange_failed(
                "OAUTH2_PROVIDER_X", "invalid_client", "client authentication failed"
            ),
        ),
        None,
    ),
    "INVALID_ACTIVITY_CALLER": (
        _invalid_activity_caller,
        Expected(400, 3, "this activity cannot be called by sub-organizations"),
        None,
    ),
    "WALLET_ACCOUNT_NOT_EXPORTED": (
        _wallet_account_not_exported,
        Expected(400, 3, r"wallet account has not been exported: .*", True),
        None,
    ),
    "INVALID_TIME": (
        _invalid_time,
        Expected(400, 3, r"request timestamp is outside the allowed window: .*", True),
        None,
    ),
    "RPC_CALL_ERROR": (
        _rpc_call_error,
        Expected(400, 3, r"the node at http://127\.0\.0\.1:9 did not answer: .*", True),
        Settings(chain_rpc_urls={"eip155:1": "http://127.0.0.1:9"}),
    ),
    "INVALID_EMAIL": (_otp("not-an-email"), Expected(400, 3, messages.OTP_CONTACT_NOT_EMAIL), None),
    "INVALID_FQDN": (_otp("ada@mail.invalid"), Expected(400, 3, messages.EMAIL_UNREACHABLE), None),
    "OAUTH_PROVIDER_ALREADY_EXISTS": (
        _oauth_provider_exists,
        Expected(400, 3, r"oauth provider .* already exists.*", True),
        None,
    ),
    "EMAIL_SENDING_DISABLED": (
        _service_state("EMAIL_SENDING_DISABLED"),
        _state("EMAIL_SENDING_DISABLED"),
        None,
    ),
    "ORGANIZATION_MISMATCH": (
        _organization_mismatch,
        Expected(
            400,
            3,
            r"organization mismatch: request is targeting organization \(.*\), "
            r"but voters are in organization \(.*\)",
            True,
        ),
        None,
    ),
    "MAX_OTP_INITIATED": (_max_otp_initiated, Expected(400, 3, messages.MAX_OTP_INITIATED), None),
}


def assert_answer(answer: requests.Response, tk_code: str, expected: Expected) -> None:
    body = answer.json()
    assert answer.status_code == expected.status, body
    assert set(body) == {"code", "message", "details", "turnkeyErrorCode"}
    assert body["code"] == expected.code
    assert body["turnkeyErrorCode"] == tk_code
    assert body["details"][0] == {"@type": DETAIL, "turnkeyErrorCode": tk_code}
    if expected.pattern:
        assert re.fullmatch(expected.message, body["message"], re.IGNORECASE), body["message"]
    else:
        assert body["message"] == expected.message


@pytest.mark.parametrize("tk_code", list(CASES))
def test_each_code_over_the_wire(tk_code: str) -> None:
    cause, expected, settings = CASES[tk_code]
    with site(settings) as served:
        assert_answer(cause(served), tk_code, expected)


def test_a_bug_of_the_emulator_is_internal_with_an_error_id(monkeypatch) -> None:
    import emulator.http.app as app

    def broken(world, request):
        raise RuntimeError("a bug")

    with site() as served:
        monkeypatch.setattr(app, "dispatch", broken)
        answer = served.send("whoami", {})
    expected = Expected(500, 13, r"internal server error \([0-9a-f-]{36}\)", True)
    assert_answer(answer, "INTERNAL", expected)


def test_an_auth_proxy_without_the_providers_credential_is_not_configured() -> None:
    exchange = {
        "provider": "OAUTH2_PROVIDER_X",
        "clientId": "nobody",
        "authCode": "code",
        "redirectUri": "http://localhost/cb",
        "codeVerifier": "v" * 43,
        "nonce": "n",
    }
    with proxy_served() as proxy:
        answer = proxy.post("/v1/oauth2_authenticate", exchange)
    expected = Expected(404, 5, r"no OAuth 2.0 credential for OAUTH2_PROVIDER_X client .*", True)
    assert_answer(answer, "OAUTH2_PROVIDER_NOT_CONFIGURED", expected)


# ----- the page, the table and the code agree ---------------------------------------------


def documented_codes() -> list[str]:
    """The codes of ``docs/errors.md``'s table (first column, in backquotes)."""
    return re.findall(r"^\| `([A-Z0-9_]+)` \|", DOC.read_text(), re.MULTILINE)


def raised_codes() -> set[str]:
    """Every code the emulator's source passes as ``turnkey_error_code``."""
    found: set[str] = set()
    for path in (ROOT / "emulator").rglob("*.py"):
        if path.name == "error_codes.py":  # the table itself (its docstring names one)
            continue
        found.update(re.findall(r'turnkey_error_code="([A-Z0-9_]+)"', path.read_text()))
    return found


def test_the_page_lists_each_code_of_the_table_once() -> None:
    listed = documented_codes()
    assert len(listed) == len(set(listed))
    assert set(listed) == set(TURNKEY_ERROR_CODES)


def test_every_code_raised_is_in_the_table_and_every_code_has_a_test() -> None:
    assert raised_codes() <= set(TURNKEY_ERROR_CODES)
    covered = set(CASES) | {"OAUTH2_PROVIDER_NOT_CONFIGURED"}
    assert covered == set(TURNKEY_ERROR_CODES)
    # the service's own states are what fault injection stands in for, and nothing else
    # (INTERNAL is both: a bug of the emulator's raises it, and so can a fault)
    assert set(SERVICE_STATES) - {"INTERNAL"} == set(TURNKEY_ERROR_CODES) - raised_codes()
