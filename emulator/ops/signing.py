"""Signing: sign_raw_payload, sign_raw_payloads, sign_transaction."""

from __future__ import annotations

from typing import Any

from ..crypto import signing, transactions
from ..crypto.hd import ED25519, SECP256K1
from ..crypto.transactions.ethereum import sign_ethereum_transaction
from ..crypto.transactions.solana import sign_solana_transaction
from ..ground import messages
from ..ground.enums import HASH_FUNCTIONS, PAYLOAD_ENCODINGS, TRANSACTION_TYPES
from ..ground.errors import InvalidArgument
from ..ground.schema import Array, Enum, String, obj, opt
from ..services import keys
from ..services.context import Context
from .registry import Version, activity

Params = dict[str, Any]

_PAYLOAD_OPTIONS = {
    "encoding": Enum(PAYLOAD_ENCODINGS),
    "hashFunction": Enum(HASH_FUNCTIONS),
}
SIGN_RAW_PAYLOAD_V1 = obj(privateKeyId=String(), payload=String(), **_PAYLOAD_OPTIONS)
SIGN_RAW_PAYLOAD_V2 = obj(
    signWith=String(),
    payload=String(),
    **_PAYLOAD_OPTIONS,
    externalSignerPubkey=opt(String()),
)
SIGN_TRANSACTION_V1 = obj(
    privateKeyId=String(), unsignedTransaction=String(), type=Enum(TRANSACTION_TYPES)
)
SIGN_TRANSACTION_V2 = obj(
    signWith=String(),
    unsignedTransaction=String(),
    type=Enum(TRANSACTION_TYPES),
    externalSignerPubkey=opt(String()),
)


def _sign_with_from_private_key_id(params: Params) -> Params:
    """A V1 intent (``privateKeyId``) in the V2 shape (``signWith``)."""
    out = {k: v for k, v in params.items() if k != "privateKeyId"}
    return {"signWith": params["privateKeyId"], **out}


def _seed_sign_raw_payload_intent(params: Params) -> Params:
    """The seed's ``signRawPayloadIntent``: ``privateKeyId`` in place of ``signWith``."""
    intent = {
        "privateKeyId": params["signWith"],
        "payload": params["payload"],
        "encoding": params["encoding"],
        "hashFunction": params["hashFunction"],
    }
    return {"signRawPayloadIntent": intent}


def sign(signer: keys.Signer, payload: str, encoding: str, hash_function: str) -> Params:
    try:
        signature = signing.sign_payload(
            signer.curve,
            signer.private_key,
            payload,
            encoding,
            hash_function,
            taproot=signer.is_taproot,
            schnorr=signer.is_spark,
        )
    except signing.SigningError as exc:
        raise InvalidArgument(str(exc), turnkey_error_code="REQUEST_INVALID") from None
    return {"r": signature.r, "s": signature.s, "v": signature.v}


@activity(
    "sign_raw_payload",
    summary="Sign raw payload",
    default="ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
    in_seed=True,
    versions=[
        Version(
            "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD",
            "signRawPayloadIntent",
            "signRawPayloadResult",
            SIGN_RAW_PAYLOAD_V1,
            upgrade=_sign_with_from_private_key_id,
        ),
        Version(
            "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
            "signRawPayloadIntentV2",
            "signRawPayloadResult",
            SIGN_RAW_PAYLOAD_V2,
            seed_intent_key="signRawPayloadIntent",
            seed_intent=_seed_sign_raw_payload_intent,
        ),
    ],
)
def sign_raw_payload(ctx: Context, params: Params) -> Params:
    signer = keys.resolve_signer(ctx, params["signWith"])
    return sign(signer, params["payload"], params["encoding"], params["hashFunction"])


@activity(
    "sign_raw_payloads",
    summary="Sign raw payloads",
    default="ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
    in_seed=True,
    versions=[
        Version(
            "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
            "signRawPayloadsIntent",
            "signRawPayloadsResult",
            obj(
                signWith=String(),
                payloads=Array(String(), min_items=1),
                **_PAYLOAD_OPTIONS,
                externalSignerPubkey=opt(String()),
            ),
        )
    ],
)
def sign_raw_payloads(ctx: Context, params: Params) -> Params:
    """Sign every payload with one key and one encoding and hash; signatures in order."""
    signer = keys.resolve_signer(ctx, params["signWith"])
    encoding, hash_function = params["encoding"], params["hashFunction"]
    return {"signatures": [sign(signer, p, encoding, hash_function) for p in params["payloads"]]}


def _ecdsa(signer: keys.Signer):
    def sign_digest(digest: bytes) -> tuple[int, int, int]:
        signature = signing.sign_digest_secp256k1(signer.private_key, digest)
        return int(signature.r, 16), int(signature.s, 16), signature.recovery_id

    return sign_digest


def _ed25519(signer: keys.Signer):
    def sign_message(message: bytes) -> bytes:
        return signing.sign_ed25519(signer.private_key, message).to_bytes()

    return sign_message


# Which curve signs each supported transaction type.
_TRANSACTION_CURVES = {transactions.ETHEREUM: SECP256K1, transactions.SOLANA: ED25519}


@activity(
    "sign_transaction",
    summary="Sign transaction",
    default="ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
    versions=[
        Version(
            "ACTIVITY_TYPE_SIGN_TRANSACTION",
            "signTransactionIntent",
            "signTransactionResult",
            SIGN_TRANSACTION_V1,
            upgrade=_sign_with_from_private_key_id,
        ),
        Version(
            "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
            "signTransactionIntentV2",
            "signTransactionResult",
            SIGN_TRANSACTION_V2,
        ),
    ],
)
def sign_transaction(ctx: Context, params: Params) -> Params:
    """Sign an Ethereum (legacy, 2930, 1559, 4844, 7702) or Solana (legacy, v0) transaction."""
    transaction_type = params["type"]
    curve = _TRANSACTION_CURVES.get(transaction_type)
    if curve is None:
        raise InvalidArgument(
            messages.unsupported_transaction_type(transaction_type),
            turnkey_error_code="UNSUPPORTED_TRANSACTION_TYPE",
        )
    signer = keys.resolve_signer(ctx, params["signWith"])
    if signer.curve != curve:
        raise InvalidArgument(
            messages.transaction_curve_mismatch(transaction_type, signer.curve),
            turnkey_error_code="INVALID_TRANSACTION",
        )
    unsigned = params["unsignedTransaction"]
    try:
        if transaction_type == transactions.ETHEREUM:
            signed = sign_ethereum_transaction(unsigned, _ecdsa(signer))
        else:
            signed = sign_solana_transaction(unsigned, signer.public_key, _ed25519(signer))
    except transactions.TransactionError as exc:
        raise InvalidArgument(str(exc), turnkey_error_code="INVALID_TRANSACTION") from None
    return {"signedTransaction": signed}
