"""``activity.params``: the only request fields a policy may read, under their snake_case
names, transcribed from Turnkey's policy-language page
(https://docs.turnkey.com/features/policies/language, "Activity parameters" and the Spark
structs). A field the request left out is left out of the view too (reading it is the
engine's ``MissingField``), except where the docs give a default: ``session_profile_id`` is
``''`` when omitted, and so are Spark's optional strings. ``catalog.py`` holds the kinds,
resources and actions beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple


class Param(NamedTuple):
    """One field of a policy view: its policy (snake_case) name, its wire (camelCase) name, and
    its shape.

    Shapes: ``"value"`` (copied as sent), ``"string?"`` (an optional string the docs say reads
    as ``''`` when omitted), a struct name from ``SPARK_STRUCTS``, ``"SparkKeyDerivation"``, or
    ``"list<…>"`` of one of those.
    """

    name: str
    wire: str
    shape: str = "value"


_HASH_FUNCTION = Param("hash_function", "hashFunction")
_ENCODING = Param("encoding", "encoding")
_TARGET_PUBLIC_KEY = Param("target_public_key", "targetPublicKey")
_USER_ID = Param("user_id", "userId")
_OTP_LENGTH = Param("otp_length", "otpLength")
_SESSION_PROFILE_ID = Param("session_profile_id", "sessionProfileId", "string?")
_ENDPOINT_ID = Param("endpoint_id", "endpointId")
_SIGN_WITH = Param("sign_with", "signWith")

# "Activity parameters": activity type -> the fields activity.params exposes, in the docs' order.
PARAMS_TABLE: tuple[tuple[str, tuple[Param, ...]], ...] = (
    # Signing
    ("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD", (_HASH_FUNCTION, _ENCODING)),
    ("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", (_HASH_FUNCTION, _ENCODING)),
    ("ACTIVITY_TYPE_SIGN_RAW_PAYLOADS", (_HASH_FUNCTION, _ENCODING)),
    ("ACTIVITY_TYPE_SIGN_TRANSACTION_V2", (Param("type", "type"),)),
    # User Management
    ("ACTIVITY_TYPE_DELETE_USERS", (Param("user_ids", "userIds"),)),
    # API Key Management
    ("ACTIVITY_TYPE_CREATE_API_KEYS", (_USER_ID,)),
    ("ACTIVITY_TYPE_CREATE_API_KEYS_V2", (_USER_ID,)),
    ("ACTIVITY_TYPE_DELETE_API_KEYS", (_USER_ID, Param("api_key_ids", "apiKeyIds"))),
    # Export
    ("ACTIVITY_TYPE_EXPORT_WALLET", (_TARGET_PUBLIC_KEY,)),
    ("ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT", (_TARGET_PUBLIC_KEY,)),
    ("ACTIVITY_TYPE_EXPORT_PRIVATE_KEY", (_TARGET_PUBLIC_KEY,)),
    # Wallet Management
    ("ACTIVITY_TYPE_UPDATE_WALLET", (Param("wallet_id", "walletId"),)),
    # Authentication
    ("ACTIVITY_TYPE_INIT_OTP_AUTH_V2", (_OTP_LENGTH,)),
    ("ACTIVITY_TYPE_INIT_OTP_AUTH_V3", (_OTP_LENGTH,)),
    ("ACTIVITY_TYPE_OTP_LOGIN", (_SESSION_PROFILE_ID,)),
    ("ACTIVITY_TYPE_OTP_LOGIN_V2", (_SESSION_PROFILE_ID,)),
    ("ACTIVITY_TYPE_STAMP_LOGIN", (_SESSION_PROFILE_ID,)),
    ("ACTIVITY_TYPE_OAUTH_LOGIN", (_SESSION_PROFILE_ID,)),
    # Webhook Endpoint
    ("ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT", (_ENDPOINT_ID,)),
    ("ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT", (_ENDPOINT_ID,)),
    # Spark
    (
        "ACTIVITY_TYPE_SPARK_SIGN_FROST",
        (_SIGN_WITH, Param("signatures", "signatures", "list<SparkSignatureRequest>")),
    ),
    (
        "ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER",
        (_SIGN_WITH, Param("transfer", "transfer", "SparkTransferPackage")),
    ),
    (
        "ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER",
        (_SIGN_WITH, Param("claim", "claim", "SparkClaimPackage")),
    ),
    (
        "ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE",
        (
            _SIGN_WITH,
            Param("lightning_receive", "lightningReceive", "SparkLightningReceivePackage"),
        ),
    ),
)

_OPERATOR_RECIPIENTS = Param(
    "operator_recipients", "operatorRecipients", "list<SparkOperatorRecipient>"
)

# The Spark structs of the policy-language page's Spark table (wire names from the API
# reference's spark_sign_frost, spark_prepare_transfer, spark_claim_transfer and
# spark_prepare_lightning_receive bodies). SparkKeyDerivation is a one-of, handled below.
SPARK_STRUCTS: dict[str, tuple[Param, ...]] = {
    "SparkSignatureRequest": (
        Param("derivation", "derivation", "SparkKeyDerivation"),
        Param("message", "message"),
        Param("verifying_key", "verifyingKey"),
        Param("operator_commitments", "operatorCommitments", "list<SparkFrostCommitment>"),
        Param("adaptor_public_key", "adaptorPublicKey", "string?"),
    ),
    "SparkFrostCommitment": (
        Param("id", "id"),
        Param("hiding", "hiding"),
        Param("binding", "binding"),
    ),
    "SparkTransferPackage": (
        Param("transfer_id", "transferId"),
        Param("leaves", "leaves", "list<SparkTransferLeaf>"),
        Param("threshold", "threshold"),
        _OPERATOR_RECIPIENTS,
        Param("receiver_public_key", "receiverPublicKey"),
    ),
    "SparkTransferLeaf": (
        Param("leaf_id", "leafId"),
        Param("old_leaf_derivation", "oldLeafDerivation", "SparkKeyDerivation"),
        Param("new_leaf_derivation", "newLeafDerivation", "SparkKeyDerivation"),
        Param("refund_signature", "refundSignature", "string?"),
        Param("direct_refund_signature", "directRefundSignature", "string?"),
        Param("direct_from_cpfp_refund_signature", "directFromCpfpRefundSignature", "string?"),
    ),
    "SparkOperatorRecipient": (
        Param("operator_id", "operatorId"),
        Param("encryption_public_key", "encryptionPublicKey"),
    ),
    "SparkClaimPackage": (
        Param("leaves", "leaves", "list<SparkClaimLeaf>"),
        Param("threshold", "threshold"),
        _OPERATOR_RECIPIENTS,
        Param("transfer_id", "transferId"),
        Param("sender_identity_public_key", "senderIdentityPublicKey"),
    ),
    "SparkClaimLeaf": (
        Param("leaf_id", "leafId"),
        Param("ciphertext", "ciphertext"),
        Param("sender_signature", "senderSignature"),
    ),
    "SparkLightningReceivePackage": (
        Param("threshold", "threshold"),
        _OPERATOR_RECIPIENTS,
    ),
}

# SparkKeyDerivation: (wire variant key, policy ``type`` value), in the API reference's order.
SPARK_DERIVATION_VARIANTS: tuple[tuple[str, str], ...] = (
    ("identity", "identity"),
    ("signingLeaf", "signing_leaf"),
    ("deposit", "deposit"),
    ("staticDeposit", "static_deposit"),
    ("htlcPreimage", "htlc_preimage"),
)

_PARAMS_BY_TYPE: dict[str, tuple[Param, ...]] = dict(PARAMS_TABLE)


def exposed_params(activity_type: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``activity.params``: only the documented fields, snake_case, values as the request sent.

    ``params`` are the wire (camelCase) parameters of the request. A field the request omitted
    (or sent as null) is absent from the view unless the docs give it a default.
    """
    fields = _PARAMS_BY_TYPE.get(activity_type) if isinstance(activity_type, str) else None
    if not fields or not isinstance(params, Mapping):
        return {}
    return _struct(fields, params)


# --------------------------------------------------------------------------------- converters


def _struct(fields: tuple[Param, ...], wire: Mapping[str, Any]) -> dict[str, Any]:
    view: dict[str, Any] = {}
    for field in fields:
        value = wire.get(field.wire)
        if value is None:
            if field.shape == "string?":
                view[field.name] = ""
            continue
        view[field.name] = _convert(field.shape, value)
    return view


def _convert(shape: str, value: Any) -> Any:
    """Turn one wire value into its policy shape; a value of an unexpected type passes as is."""
    if shape.startswith("list<") and shape.endswith(">"):
        if not isinstance(value, list):
            return value
        return [_convert(shape[5:-1], item) for item in value]
    converter = _CONVERTERS.get(shape)
    if converter is not None:
        return converter(value)
    if shape in SPARK_STRUCTS and isinstance(value, Mapping):
        return _struct(SPARK_STRUCTS[shape], value)
    return _plain(value)


def _plain(value: Any) -> Any:
    """A copy of a JSON value, so the view never aliases the request's lists and objects."""
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _spark_key_derivation(value: Any) -> Any:
    """SparkKeyDerivation: the active variant's name in ``type`` and both variant structs.

    The docs: ``type`` is ``''`` when unset, and inactive variants read as their type defaults
    (``signing_leaf.leaf_id`` ``''``, ``static_deposit.index`` ``0``).
    """
    if not isinstance(value, Mapping):
        return value
    active = next((name for key, name in SPARK_DERIVATION_VARIANTS if key in value), "")
    signing_leaf = value.get("signingLeaf") if active == "signing_leaf" else None
    static_deposit = value.get("staticDeposit") if active == "static_deposit" else None
    leaf_id = signing_leaf.get("leafId") if isinstance(signing_leaf, Mapping) else None
    index = static_deposit.get("index") if isinstance(static_deposit, Mapping) else None
    return {
        "type": active,
        "signing_leaf": {"leaf_id": "" if leaf_id is None else leaf_id},
        "static_deposit": {"index": 0 if index is None else index},
    }


_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    "value": _plain,
    "string?": _plain,
    "SparkKeyDerivation": _spark_key_derivation,
}
