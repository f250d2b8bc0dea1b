"""Spark: spark_sign_frost, spark_prepare_transfer, spark_claim_transfer,
spark_prepare_lightning_receive (``docs/spark.md``). The intents' shapes are the official
SDK's ``v1Spark*`` types; the work is ``services/spark.py`` and ``services/spark_transfers.py``.
"""

from __future__ import annotations

from typing import Any

from ..ground.schema import Array, Integer, String, obj, opt
from ..services import spark, spark_transfers
from ..services.context import Context
from .registry import Version, activity

Params = dict[str, Any]

DERIVATION = obj(
    identity=opt(obj()),
    signingLeaf=opt(obj(leafId=String())),
    deposit=opt(obj()),
    staticDeposit=opt(obj(index=Integer(minimum=0, maximum=2**31 - 1))),
    htlcPreimage=opt(obj()),
)
COMMITMENT = obj(id=String(), hiding=String(), binding=String())
SIGNATURE_REQUEST = obj(
    derivation=DERIVATION,
    message=String(),
    verifyingKey=String(),
    operatorCommitments=Array(COMMITMENT, min_items=1),
    adaptorPublicKey=opt(String(allow_empty=True)),
)
RECIPIENT = obj(operatorId=String(), encryptionPublicKey=String())
RECIPIENTS = Array(RECIPIENT, min_items=1)
TRANSFER_LEAF = obj(
    leafId=String(),
    oldLeafDerivation=DERIVATION,
    newLeafDerivation=DERIVATION,
    refundSignature=opt(String(allow_empty=True)),
    directRefundSignature=opt(String(allow_empty=True)),
    directFromCpfpRefundSignature=opt(String(allow_empty=True)),
)
TRANSFER = obj(
    transferId=String(),
    leaves=Array(TRANSFER_LEAF, min_items=1),
    threshold=Integer(minimum=1),
    operatorRecipients=RECIPIENTS,
    receiverPublicKey=String(),
)
CLAIM_LEAF = obj(leafId=String(), ciphertext=String(), senderSignature=String())
CLAIM = obj(
    leaves=Array(CLAIM_LEAF, min_items=1),
    threshold=Integer(minimum=1),
    operatorRecipients=RECIPIENTS,
    transferId=String(),
    senderIdentityPublicKey=String(),
)
LIGHTNING_RECEIVE = obj(threshold=Integer(minimum=1), operatorRecipients=RECIPIENTS)


@activity(
    "spark_sign_frost",
    summary="Sign with FROST as a Spark participant",
    default="ACTIVITY_TYPE_SPARK_SIGN_FROST",
    versions=[
        Version(
            "ACTIVITY_TYPE_SPARK_SIGN_FROST",
            "sparkSignFrostIntent",
            "sparkSignFrostResult",
            obj(signWith=String(), signatures=Array(SIGNATURE_REQUEST, min_items=1)),
        )
    ],
)
def spark_sign_frost(ctx: Context, params: Params) -> Params:
    """One FROST partial signature and Turnkey's commitments per request, in order."""
    wallet = spark.resolve(ctx, params["signWith"])
    return {
        "signatures": [
            spark.sign_frost(ctx, wallet, request, f"signatures[{i}]")
            for i, request in enumerate(params["signatures"])
        ]
    }


@activity(
    "spark_prepare_transfer",
    summary="Prepare a Spark transfer",
    default="ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER",
    versions=[
        Version(
            "ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER",
            "sparkPrepareTransferIntent",
            "sparkPrepareTransferResult",
            obj(signWith=String(), transfer=TRANSFER),
        )
    ],
)
def spark_prepare_transfer(ctx: Context, params: Params) -> Params:
    wallet = spark.resolve(ctx, params["signWith"])
    return spark_transfers.prepare_transfer(ctx, wallet, params["transfer"])


@activity(
    "spark_claim_transfer",
    summary="Claim a Spark transfer",
    default="ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER",
    versions=[
        Version(
            "ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER",
            "sparkClaimTransferIntent",
            "sparkClaimTransferResult",
            obj(signWith=String(), claim=CLAIM),
        )
    ],
)
def spark_claim_transfer(ctx: Context, params: Params) -> Params:
    wallet = spark.resolve(ctx, params["signWith"])
    return spark_transfers.claim_transfer(ctx, wallet, params["claim"])


@activity(
    "spark_prepare_lightning_receive",
    summary="Prepare a Spark Lightning receive",
    default="ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE",
    versions=[
        Version(
            "ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE",
            "sparkPrepareLightningReceiveIntent",
            "sparkPrepareLightningReceiveResult",
            obj(signWith=String(), lightningReceive=LIGHTNING_RECEIVE),
        )
    ],
)
def spark_prepare_lightning_receive(ctx: Context, params: Params) -> Params:
    wallet = spark.resolve(ctx, params["signWith"])
    return spark_transfers.prepare_lightning_receive(ctx, wallet, params["lightningReceive"])
