"""Bad input: unknown ids, malformed ids and parameters, a stale ``timestampMs``; each in
the API's error shape ``{code, message, details, turnkeyErrorCode}`` with the status and
code the emulator answers, and (for the activities) nothing changed."""

from __future__ import annotations

import time

from turnkey_sdk_types import (
    CreateWalletAccountsBody,
    DeleteWalletsBody,
    GetActivityBody,
    GetPolicyBody,
    GetUserBody,
    GetWalletAccountsBody,
    GetWalletBody,
    SignRawPayloadBody,
    v1WalletAccountParams,
)

from . import shapes
from .checks_wallets import KNOWN, imported_wallet
from .properties import for_all, uuids
from .report import expect
from .session import Answer, Session

NOT_FOUND, INVALID_ARGUMENT = 5, 3  # google.rpc.Code
REQUEST_INVALID, INVALID_TIME = "REQUEST_INVALID", "INVALID_TIME"


def expect_error(answer: Answer, status: int, code: int, turnkey_error_code: str = "") -> None:
    """The status, ``code`` and ``turnkeyErrorCode`` (empty where the emulator answers
    none), in the error shape."""
    wanted = f"HTTP {status} with code {code} and turnkeyErrorCode {turnkey_error_code!r}"
    same = (answer.status, answer.body.get("code")) == (status, code)
    expect(
        same and answer.body.get("turnkeyErrorCode") == turnkey_error_code, wanted, answer.brief()
    )
    shapes.conforms(answer.body, shapes.ERROR, "the error")


def unknown_ids(session: Session) -> None:
    """Random UUIDs name no wallet, policy, activity or user: 404, code 5."""
    lookups = (
        ("get_wallet", lambda i: GetWalletBody(walletId=i)),
        ("get_policy", lambda i: GetPolicyBody(policyId=i)),
        ("get_activity", lambda i: GetActivityBody(activityId=i)),
        ("get_user", lambda i: GetUserBody(userId=i)),
    )

    def check(random_id: str) -> None:
        for operation, body in lookups:
            expect_error(session.call(operation, body(random_id)), 404, NOT_FOUND)

    for_all(uuids(), check, session.max_examples)


def unknown_wallet_delete(session: Session) -> None:
    def check(random_id: str) -> None:
        body = DeleteWalletsBody(walletIds=[random_id], deleteWithoutExport=True)
        expect_error(session.call("delete_wallets", body), 404, NOT_FOUND)

    for_all(uuids(), check, max(1, session.max_examples // 2))


def malformed_id(session: Session) -> None:
    answer = session.call("get_user", GetUserBody(userId="not-a-uuid"))
    expect_error(answer, 400, INVALID_ARGUMENT, REQUEST_INVALID)
    fields = [
        violation.get("field")
        for detail in answer.body["details"]
        if isinstance(detail, dict)
        for violation in detail.get("fieldViolations") or []
        if isinstance(violation, dict)
    ]
    expect("userId" in fields, "a google.rpc.BadRequest detail naming userId", fields)


def sign_with_unknown(session: Session) -> None:
    body = SignRawPayloadBody(
        signWith="0x000000000000000000000000000000000000dEaD",
        payload="00",
        encoding="PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction="HASH_FUNCTION_KECCAK256",
    )
    expect_error(session.call("sign_raw_payload", body), 404, NOT_FOUND)


def _account_count(session: Session, wallet_id: str) -> int:
    body = GetWalletAccountsBody(walletId=wallet_id)
    return len(session.ok("get_wallet_accounts", body).items("accounts"))


def bad_account_params(session: Session) -> None:
    """A path that is not one, a format the curve has no address in: 400, nothing added."""
    wallet_id = imported_wallet(session)
    before = _account_count(session, wallet_id)
    bad = (
        ("CURVE_SECP256K1", "ADDRESS_FORMAT_ETHEREUM", "not-a-path"),
        ("CURVE_SECP256K1", "ADDRESS_FORMAT_SOLANA", "m/44'/501'/0'/0'"),
    )
    for curve, address_format, path in bad:
        params = v1WalletAccountParams(
            curve=curve, pathFormat="PATH_FORMAT_BIP32", path=path, addressFormat=address_format
        )
        body = CreateWalletAccountsBody(walletId=wallet_id, accounts=[params])
        expect_error(
            session.call("create_wallet_accounts", body), 400, INVALID_ARGUMENT, REQUEST_INVALID
        )
    after = _account_count(session, wallet_id)
    expect(after == before, f"{before} accounts still", after)


def stale_timestamp(session: Session) -> None:
    """An activity stamped two hours ago is outside the liveness window (the FAQ: less than an
    hour old): refused."""
    body = SignRawPayloadBody(
        timestampMs=str(int(time.time() * 1000) - 7_200_000),
        signWith=KNOWN["ethereum"],
        payload="00",
        encoding="PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction="HASH_FUNCTION_KECCAK256",
    )
    expect_error(session.call("sign_raw_payload", body), 400, INVALID_ARGUMENT, INVALID_TIME)


CHECKS = [
    ("errors.unknown_ids_not_found", unknown_ids),
    ("errors.delete_unknown_wallet", unknown_wallet_delete),
    ("errors.malformed_id", malformed_id),
    ("errors.sign_with_unknown_address", sign_with_unknown),
    ("errors.bad_account_params_change_nothing", bad_account_params),
    ("errors.stale_timestamp_refused", stale_timestamp),
]
