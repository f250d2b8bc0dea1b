"""Signing: sign_raw_payload with the imported wallet's accounts and a created private key,
every signature checked by a library of its own (``coincurve`` recovery, ``eth-keys``
addresses, ``pynacl`` Ed25519), and idempotency (the same body is the same activity)."""

from __future__ import annotations

import time

from hypothesis import strategies as st
from turnkey_sdk_types import (
    CreatePrivateKeysBody,
    GetPrivateKeyBody,
    SignRawPayloadBody,
    v1PrivateKeyParams,
)

from . import crypto, shapes
from .checks_wallets import KNOWN
from .properties import for_all, payload_bytes, texts
from .report import Mismatch, expect, expect_equal
from .session import Answer, Session

HEX = "PAYLOAD_ENCODING_HEXADECIMAL"
TEXT = "PAYLOAD_ENCODING_TEXT_UTF8"


def _public_key(session: Session, address: str) -> str:
    keys = session.facts.get("public_keys") or {}
    if address not in keys:
        raise Mismatch(f"the public key of {address} (wallet.accounts_shape)", "none")
    return str(keys[address])


def _signature(answer: Answer) -> dict[str, str]:
    signature = answer.result("signRawPayloadResult")
    shapes.conforms(signature, shapes.SIGNATURE, "signRawPayloadResult")
    return signature


def _sign(
    session: Session, sign_with: str, payload: str, encoding: str, hash_function: str
) -> Answer:
    body = SignRawPayloadBody(
        signWith=sign_with, payload=payload, encoding=encoding, hashFunction=hash_function
    )
    return session.ok("sign_raw_payload", body)


def _check_secp256k1(
    sign_with: str,
    public_key: str,
    address: str,
    message: bytes,
    answer: Answer,
    hash_function: str,
) -> None:
    signature = _signature(answer)
    expect(signature["v"] in ("00", "01"), "v of 00 or 01", signature["v"])
    digest = crypto.digest(message, hash_function)
    recovered = crypto.recover_secp256k1(digest, signature["r"], signature["s"], signature["v"])
    compressed = crypto.PublicKey(bytes.fromhex(public_key)).format().hex()  # either form
    expect_equal(recovered, compressed, f"the key that signed with {sign_with}")
    expect_equal(crypto.ethereum_address_of(recovered), address, "the signer's address")


def secp256k1_property(session: Session) -> None:
    address = KNOWN["ethereum"]
    public_key = _public_key(session, address)
    hashes = st.sampled_from(["HASH_FUNCTION_KECCAK256", "HASH_FUNCTION_SHA256"])

    def check(drawn: tuple[bytes, str]) -> None:
        message, hash_function = drawn
        answer = _sign(session, address, message.hex(), HEX, hash_function)
        _check_secp256k1(address, public_key, address, message, answer, hash_function)

    for_all(st.tuples(payload_bytes(), hashes), check, session.max_examples)


def text_property(session: Session) -> None:
    address = KNOWN["ethereum"]
    public_key = _public_key(session, address)

    def check(message: str) -> None:
        answer = _sign(session, address, message, TEXT, "HASH_FUNCTION_KECCAK256")
        _check_secp256k1(
            address,
            public_key,
            address,
            message.encode(),
            answer,
            "HASH_FUNCTION_KECCAK256",
        )

    for_all(texts(), check, session.max_examples)


def ed25519_property(session: Session) -> None:
    address = KNOWN["solana"]
    verify_key = crypto.base58_decode(address)

    def check(message: bytes) -> None:
        answer = _sign(session, address, message.hex(), HEX, "HASH_FUNCTION_NOT_APPLICABLE")
        signature = _signature(answer)
        ok = crypto.ed25519_verifies(verify_key, message, signature["r"], signature["s"])
        expect(ok, "an Ed25519 signature that verifies", signature)

    for_all(payload_bytes(), check, session.max_examples)


def idempotency(session: Session) -> None:
    """One body (same timestampMs) stamped twice is one activity, with one signature; a new
    timestampMs is a new activity."""
    address = KNOWN["ethereum"]
    _public_key(session, address)
    stamp_time = str(int(time.time() * 1000))

    def send(timestamp: str) -> Answer:
        body = SignRawPayloadBody(
            timestampMs=timestamp,
            signWith=address,
            payload="c0ffee",
            encoding=HEX,
            hashFunction="HASH_FUNCTION_KECCAK256",
        )
        return session.ok("sign_raw_payload", body)

    first, again = send(stamp_time), send(stamp_time)
    expect_equal(again.activity.get("id"), first.activity.get("id"), "the same activity id")
    expect_equal(_signature(again), _signature(first), "the same signature")
    other = send(str(int(stamp_time) + 1))
    expect(
        other.activity.get("id") != first.activity.get("id"),
        "a new activity for a new timestampMs",
        other.activity.get("id"),
    )


def private_key_signs(session: Session) -> None:
    params = v1PrivateKeyParams(
        privateKeyName=session.name("key"),
        curve="CURVE_SECP256K1",
        privateKeyTags=[],
        addressFormats=["ADDRESS_FORMAT_ETHEREUM"],
    )
    answer = session.call("create_private_keys", CreatePrivateKeysBody(privateKeys=[params]))
    results = answer.result("createPrivateKeysResultV2").get("privateKeys") or []
    key_id = results[0].get("privateKeyId") if results else None
    if key_id:
        session.ledger.add("private_key", key_id)
    expect(answer.status == 200 and bool(key_id), "a completed create_private_keys", answer.brief())
    if not isinstance(key_id, str):
        raise Mismatch("a privateKeyId", answer.brief())
    key = session.ok("get_private_key", GetPrivateKeyBody(privateKeyId=key_id)).object("privateKey")
    shapes.conforms(key, shapes.PRIVATE_KEY, "get_private_key.privateKey")
    address = key["addresses"][0]["address"]
    public_key = key["publicKey"]
    expect_equal(crypto.ethereum_address_of(public_key), address, "the key's Ethereum address")
    message = b"conformance"
    signed = _sign(session, key_id, message.hex(), HEX, "HASH_FUNCTION_KECCAK256")
    _check_secp256k1(key_id, public_key, address, message, signed, "HASH_FUNCTION_KECCAK256")


CHECKS = [
    ("sign.secp256k1_recovers_account_key", secp256k1_property),
    ("sign.text_payload_recovers_account_key", text_property),
    ("sign.ed25519_verifies", ed25519_property),
    ("idempotency.same_body_same_activity", idempotency),
    ("private_key.create_and_sign", private_key_signs),
]
