"""Broadcasting: eth_send_transaction, eth_send_raw_transaction, sol_send_transaction,
eth_undelegate_7702, get_send_transaction_status, get_nonces, get_gas_usage.

Turnkey builds, signs and broadcasts for its users (features/transaction-management); the
emulator does it on its chains (``emulator/chains``: embedded unless ``Settings.chain_rpc_urls``
names a node) with the same keys and policies as ``sign_transaction``. See
``services/broadcast.py`` for the statuses and the gas station.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
from typing import Any

from ..chains import catalog
from ..chains.errors import ChainUnavailable
from ..chains.network import chains_of
from ..ground.schema import Array, Boolean, Enum, String, obj, opt
from ..services import broadcast, evm_send, undelegation
from ..services.context import Context
from .registry import Version, activity, query

Params = dict[str, Any]

CALL = obj(to=String(), value=opt(String()), data=opt(String()))
_FEES = {
    "nonce": opt(String()),
    "gasLimit": opt(String()),
    "maxFeePerGas": opt(String()),
    "maxPriorityFeePerGas": opt(String()),
}
ETH_SEND_V1 = obj(
    **{"from": String()},
    sponsor=opt(Boolean()),
    caip2=Enum(catalog.EVM_SEND),
    to=String(),
    value=opt(String()),
    data=opt(String()),
    **_FEES,
    deadline=opt(String()),
    gasStationNonce=opt(String()),
)
ETH_SEND_V2 = obj(
    **{"from": String()},
    caip2=Enum(catalog.EVM_SEND),
    sponsor=opt(Boolean()),
    **_FEES,
    deadline=opt(String()),
    gasStationNonce=opt(String()),
    calls=Array(CALL),
)
SOL_SEND_V1 = obj(
    unsignedTransaction=String(),
    signWith=String(),
    sponsor=opt(Boolean()),
    caip2=Enum(catalog.SOLANA_SEND),
    recentBlockhash=opt(String()),
)
SOL_SEND_V2 = obj(
    unsignedTransaction=String(),
    signWiths=Array(String()),
    sponsor=opt(Boolean()),
    caip2=Enum(catalog.SOLANA_SEND),
    recentBlockhash=opt(String()),
)


def _calls_from_one(params: Params) -> Params:
    """A V1 intent (one call's ``to``, ``value``, ``data``) in the V2 shape (``calls``)."""
    call = {k: params[k] for k in ("to", "value", "data") if params.get(k) is not None}
    rest = {k: v for k, v in params.items() if k not in ("to", "value", "data")}
    return {**rest, "calls": [call]}


def _sign_withs_from_one(params: Params) -> Params:
    """A V1 intent (``signWith``, a base64 or hex transaction) in the V2 shape."""
    unsigned = str(params["unsignedTransaction"])
    try:
        bytes.fromhex(unsigned.removeprefix("0x"))
    except ValueError:
        # not base64 either: the signer names what is wrong with it
        with contextlib.suppress(binascii.Error, ValueError):
            unsigned = base64.b64decode(unsigned, validate=True).hex()
    rest = {k: v for k, v in params.items() if k not in ("signWith", "unsignedTransaction")}
    return {**rest, "unsignedTransaction": unsigned, "signWiths": [params["signWith"]]}


@activity(
    "eth_send_transaction",
    summary="Broadcast EVM transaction",
    default="ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2",
    versions=[
        Version(
            "ACTIVITY_TYPE_ETH_SEND_TRANSACTION",
            "ethSendTransactionIntent",
            "ethSendTransactionResult",
            ETH_SEND_V1,
            upgrade=_calls_from_one,
        ),
        Version(
            "ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2",
            "ethSendTransactionIntentV2",
            "ethSendTransactionResultV2",
            ETH_SEND_V2,
        ),
    ],
)
def eth_send_transaction(ctx: Context, params: Params) -> Params:
    return {"sendTransactionStatusId": evm_send.send_evm(ctx, params)}


@activity(
    "eth_send_raw_transaction",
    summary="Submit a raw transaction for broadcasting.",
    default="ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION",
    in_python_sdk=False,
    versions=[
        Version(
            "ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION",
            "ethSendRawTransactionIntent",
            "ethSendRawTransactionResult",
            obj(signedTransaction=String(), caip2=Enum(catalog.EVM_SEND)),
        )
    ],
)
def eth_send_raw_transaction(ctx: Context, params: Params) -> Params:
    return {"transactionHash": evm_send.send_raw_evm(ctx, params)}


@activity(
    "sol_send_transaction",
    summary="Broadcast SVM transaction",
    default="ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2",
    versions=[
        Version(
            "ACTIVITY_TYPE_SOL_SEND_TRANSACTION",
            "solSendTransactionIntent",
            "solSendTransactionResult",
            SOL_SEND_V1,
            upgrade=_sign_withs_from_one,
        ),
        Version(
            "ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2",
            "solSendTransactionIntentV2",
            "solSendTransactionResultV2",
            SOL_SEND_V2,
        ),
    ],
)
def sol_send_transaction(ctx: Context, params: Params) -> Params:
    return {"sendTransactionStatusId": broadcast.send_solana(ctx, params)}


@activity(
    "eth_undelegate_7702",
    summary="Undelegate an EVM account",
    default="ACTIVITY_TYPE_ETH_UNDELEGATE_7702",
    in_python_sdk=False,
    versions=[
        Version(
            "ACTIVITY_TYPE_ETH_UNDELEGATE_7702",
            "ethUndelegate7702Intent",
            "ethUndelegate7702Result",
            obj(**{"from": String()}, caip2=Enum(catalog.EVM_UNDELEGATE), **_FEES),
        )
    ],
)
def eth_undelegate_7702(ctx: Context, params: Params) -> Params:
    return {"sendTransactionStatusId": undelegation.undelegate(ctx, params)}


@query(
    "get_send_transaction_status",
    summary="Get send transaction status",
    body=obj(sendTransactionStatusId=String()),
    result_keys=("txStatus", "eth", "solana", "txError", "error"),
)
def get_send_transaction_status(ctx: Context, body: Params) -> Params:
    sent = broadcast.find_sent(ctx, body["sendTransactionStatusId"])
    return broadcast.status_view(sent, ctx.now_ns // 1_000_000)


@query(
    "get_nonces",
    summary="Get nonces",
    body=obj(
        address=String(),
        caip2=Enum(catalog.EVM_SEND),
        nonce=opt(Boolean()),
        gasStationNonce=opt(Boolean()),
    ),
    result_keys=("nonce", "gasStationNonce"),
)
def get_nonces(ctx: Context, body: Params) -> Params:
    broadcast.network_address(body["caip2"], body["address"])
    out: Params = {}
    try:
        chains = chains_of(ctx.world)
        if body.get("nonce"):
            out["nonce"] = str(chains.evm(body["caip2"]).nonce(body["address"]))
        if body.get("gasStationNonce"):
            out["gasStationNonce"] = str(chains.gas_station_nonce(body["caip2"], body["address"]))
    except ChainUnavailable as exc:
        raise broadcast.chain_unavailable(exc) from None
    return out


@query(
    "get_gas_usage",
    summary="Get gas usage",
    body=obj(),
    result_keys=("windowDurationMinutes", "windowLimitUsd", "usageUsd"),
)
def get_gas_usage(ctx: Context, body: Params) -> Params:
    minutes, limit, used = broadcast.gas_usage(ctx, ctx.now_ns // 1_000_000)
    return {
        "windowDurationMinutes": minutes,
        "windowLimitUsd": broadcast.usd_text(limit),
        "usageUsd": broadcast.usd_text(used),
    }
