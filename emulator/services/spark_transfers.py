"""Spark transfers and Lightning receives: key tweaks split with Feldman VSS, sealed with
ECIES to each operator, the new leaf key sealed to the receiver, the sender's signatures
(``docs/spark.md``). Every package is the protobuf message the Spark SDK sends its
operators, so an operator (or a test) opens it as the SDK's own would.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..crypto.spark import ecies, points, secret_sharing, wire
from ..crypto.spark import keys as spark_keys
from ..crypto.spark.points import SparkCryptoError
from .context import Context
from .spark import (
    SparkWallet,
    hex_bytes,
    hex_point,
    invalid,
    leaf_derivation,
    leaf_id,
    operators,
    random_scalar,
    transfer_id,
)

Params = dict[str, Any]


def _seal(ctx: Context, receiver: bytes, plaintext: bytes) -> bytes:
    ephemeral = points.to_bytes(random_scalar(ctx))
    return ecies.encrypt(receiver, plaintext, ephemeral, ctx.world.ids.secret_bytes(16))


def _split(
    ctx: Context, secret: int, threshold: int, recipients: list[tuple[str, bytes]], what: str
) -> tuple[list[secret_sharing.VerifiableShare], dict[str, bytes]]:
    if secret % points.N == 0:
        raise invalid(f"{what} is zero: the old and new keys are the same")
    shares = secret_sharing.split(secret, threshold, len(recipients), lambda: random_scalar(ctx))
    public = {op: points.base_mul(s.share) for (op, _), s in zip(recipients, shares, strict=True)}
    return shares, public


def _packages(
    ctx: Context, recipients: list[tuple[str, bytes]], per_operator: dict[str, bytes]
) -> list[Params]:
    return [
        {"operatorId": op, "encryptedPackage": _seal(ctx, key, per_operator[op]).hex()}
        for op, key in recipients
    ]


def prepare_transfer(ctx: Context, wallet: SparkWallet, transfer: Params) -> Params:
    tid = transfer_id(transfer["transferId"], "transfer.transferId")
    recipients = operators(transfer["operatorRecipients"], transfer["threshold"], "transfer")
    receiver = hex_point(transfer["receiverPublicKey"], "transfer.receiverPublicKey")
    if not transfer["leaves"]:
        raise invalid("transfer.leaves must not be empty")
    identity_key, _ = wallet.identity()
    tweaks: dict[str, list[wire.LeafTweak]] = {op: [] for op, _ in recipients}
    new_keys = []
    for i, leaf in enumerate(transfer["leaves"]):
        field = f"transfer.leaves[{i}]"
        lid = leaf_id(leaf["leafId"], f"{field}.leafId")
        _, old_key, _ = leaf_derivation(
            wallet, leaf["oldLeafDerivation"], f"{field}.oldLeafDerivation"
        )
        new_id, new_key, new_public = leaf_derivation(
            wallet, leaf["newLeafDerivation"], f"{field}.newLeafDerivation"
        )
        refunds = [
            hex_bytes(leaf.get(name) or "", f"{field}.{name}")
            for name in (
                "refundSignature",
                "directRefundSignature",
                "directFromCpfpRefundSignature",
            )
        ]
        tweak = int.from_bytes(old_key, "big") - int.from_bytes(new_key, "big")
        shares, public = _split(ctx, tweak, transfer["threshold"], recipients, f"{field}'s tweak")
        cipher = _seal(ctx, receiver, new_key)
        signature = spark_keys.sign_compact(
            identity_key, wire.leaf_signing_payload(lid, tid, cipher)
        )
        for (op, _), share in zip(recipients, shares, strict=True):
            tweaks[op].append(wire.LeafTweak(lid, share, public, cipher, signature, *refunds))
        new_keys.append({"leafId": new_id, "publicKey": new_public.hex()})
    plain = {op: wire.send_leaf_key_tweaks(leaves) for op, leaves in tweaks.items()}
    packages = _packages(ctx, recipients, plain)
    sealed = {p["operatorId"]: bytes.fromhex(p["encryptedPackage"]) for p in packages}
    payload = wire.transfer_signing_payload(tid, sealed)
    return {
        "operatorPackages": packages,
        "transferUserSignature": spark_keys.sign_der(identity_key, payload).hex(),
        "newLeafPublicKeys": new_keys,
    }


def claim_transfer(ctx: Context, wallet: SparkWallet, claim: Params) -> Params:
    tid = transfer_id(claim["transferId"], "claim.transferId")
    recipients = operators(claim["operatorRecipients"], claim["threshold"], "claim")
    sender = hex_point(claim["senderIdentityPublicKey"], "claim.senderIdentityPublicKey")
    if not claim["leaves"]:
        raise invalid("claim.leaves must not be empty")
    identity_key, _ = wallet.identity()
    tweaks: dict[str, list[wire.LeafTweak]] = {op: [] for op, _ in recipients}
    new_keys = []
    for i, leaf in enumerate(claim["leaves"]):
        field = f"claim.leaves[{i}]"
        lid = leaf_id(leaf["leafId"], f"{field}.leafId")
        cipher = hex_bytes(leaf["ciphertext"], f"{field}.ciphertext")
        signature = hex_bytes(leaf["senderSignature"], f"{field}.senderSignature", 64)
        if not spark_keys.verify_compact(
            sender, wire.leaf_signing_payload(lid, tid, cipher), signature
        ):
            raise invalid(f"{field}.senderSignature does not verify under senderIdentityPublicKey")
        try:
            current = points.scalar(ecies.decrypt(identity_key, cipher))
        except SparkCryptoError:
            raise invalid(
                f"{field}.ciphertext does not open to a leaf key for this wallet"
            ) from None
        new_key, new_public = wallet.leaf(lid)
        tweak = current - int.from_bytes(new_key, "big")
        shares, public = _split(
            ctx, tweak, claim["threshold"], recipients, f"{field}'s claim tweak"
        )
        for (op, _), share in zip(recipients, shares, strict=True):
            tweaks[op].append(wire.LeafTweak(lid, share, public))
        new_keys.append({"leafId": lid, "publicKey": new_public.hex()})
    plain = {op: wire.claim_leaf_key_tweaks(leaves) for op, leaves in tweaks.items()}
    return {"operatorPackages": _packages(ctx, recipients, plain), "newLeafPublicKeys": new_keys}


def prepare_lightning_receive(ctx: Context, wallet: SparkWallet, receive: Params) -> Params:
    recipients = operators(receive["operatorRecipients"], receive["threshold"], "lightningReceive")
    while True:  # a preimage is a scalar for the sharing: below n (all but 2^-128 of them)
        preimage = ctx.world.ids.secret_bytes(32)
        if 0 < int.from_bytes(preimage, "big") < points.N:
            break
    shares, _ = _split(
        ctx, int.from_bytes(preimage, "big"), receive["threshold"], recipients, "preimage"
    )
    plain = {op: wire.secret_share(s) for (op, _), s in zip(recipients, shares, strict=True)}
    return {
        "operatorPackages": _packages(ctx, recipients, plain),
        "paymentHash": hashlib.sha256(preimage).hexdigest(),
    }
