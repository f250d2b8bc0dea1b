"""Spark: the wallet a ``signWith`` names, its keys by derivation, the checks every Spark
activity shares, and FROST signing (``docs/spark.md``). Transfers and Lightning receives
are ``spark_transfers.py``.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

from ..crypto.curves import SECP256K1
from ..crypto.spark import frost, points
from ..crypto.spark import keys as spark_keys
from ..crypto.spark.points import SparkCryptoError
from ..engine_state.vault import WalletSecret
from ..ground.errors import InvalidArgument
from ..ground.ids import is_uuid
from . import keys
from .context import Context

Params = dict[str, Any]
SPARK_FORMATS = ("ADDRESS_FORMAT_SPARK_MAINNET", "ADDRESS_FORMAT_SPARK_REGTEST")
DERIVATIONS = ("identity", "signingLeaf", "deposit", "staticDeposit", "htlcPreimage")


def invalid(message: str) -> InvalidArgument:
    return InvalidArgument(message, turnkey_error_code="REQUEST_INVALID")


@dataclass(frozen=True)
class SparkWallet:
    """The HD wallet behind a Spark identity account, at its account number."""

    secret: WalletSecret
    account: int

    def __repr__(self) -> str:
        return f"SparkWallet(account={self.account})"

    def key(self, key_type: int, child: int | None = None) -> tuple[bytes, bytes]:
        """(private key, compressed public key) of one Spark key of this account."""
        node = self.secret.keychain.derive(
            SECP256K1, spark_keys.path(self.account, key_type, child)
        )
        return node.private_key, node.public_key

    def identity(self) -> tuple[bytes, bytes]:
        return self.key(spark_keys.IDENTITY)

    def leaf(self, leaf_id: str) -> tuple[bytes, bytes]:
        return self.key(spark_keys.SIGNING, spark_keys.leaf_index(leaf_id))


def resolve(ctx: Context, sign_with: str) -> SparkWallet:
    """The Spark wallet ``sign_with`` (a Spark address of a wallet account) names."""
    signer = keys.resolve_signer(ctx, sign_with)
    if signer.address_format not in SPARK_FORMATS or signer.ref.wallet_id is None:
        raise invalid(
            "signWith must be the Spark address (ADDRESS_FORMAT_SPARK_MAINNET or "
            "ADDRESS_FORMAT_SPARK_REGTEST) of a wallet account"
        )
    wallet = ctx.org.wallets[signer.ref.wallet_id]
    account = wallet.accounts[signer.ref.wallet_account_id]
    number = spark_keys.account_of(keys.parse_path(account.path))
    if number is None:
        raise invalid(
            f"the Spark account {sign_with} is not at a Spark identity path m/8797555'/{{account}}'/0'"
        )
    return SparkWallet(ctx.store.vault.wallets[signer.ref.wallet_id], number)


def derive(wallet: SparkWallet, derivation: Params, field: str) -> tuple[bytes, bytes]:
    """The key one ``v1SparkKeyDerivation`` names (exactly one of its members set)."""
    chosen = [name for name in DERIVATIONS if derivation.get(name) is not None]
    if len(chosen) != 1:
        raise invalid(f"{field} must set exactly one of {', '.join(DERIVATIONS)}")
    name, value = chosen[0], derivation[chosen[0]]
    if name == "identity":
        return wallet.identity()
    if name == "signingLeaf":
        return wallet.leaf(leaf_id(value.get("leafId"), f"{field}.signingLeaf.leafId"))
    if name == "deposit":
        return wallet.key(spark_keys.DEPOSIT)
    if name == "staticDeposit":
        index = value.get("index")
        if type(index) is not int or not 0 <= index < 2**31:
            raise invalid(f"{field}.staticDeposit.index must be an integer from 0 to 2147483647")
        return wallet.key(spark_keys.STATIC_DEPOSIT, index)
    return wallet.key(spark_keys.HTLC_PREIMAGE)


def leaf_derivation(
    wallet: SparkWallet, derivation: Params, field: str
) -> tuple[str, bytes, bytes]:
    """A derivation that must be a signing leaf: (leaf id, private key, public key)."""
    if derivation.get("signingLeaf") is None or any(
        derivation.get(n) is not None for n in DERIVATIONS if n != "signingLeaf"
    ):
        raise invalid(f"{field} must be a signingLeaf derivation")
    leaf = leaf_id(derivation["signingLeaf"].get("leafId"), f"{field}.signingLeaf.leafId")
    return (leaf, *wallet.leaf(leaf))


def leaf_id(value: object, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise invalid(f"{field} must be a non-empty string")
    return value


def transfer_id(value: str, field: str) -> str:
    if not is_uuid(value):
        raise invalid(f"{field} must be a UUID")
    return value


def hex_bytes(value: object, field: str, length: int | None = None) -> bytes:
    text = value if isinstance(value, str) else ""
    text = text[2:] if text.startswith("0x") else text
    try:
        data = bytes.fromhex(text)
    except ValueError:
        raise invalid(f"{field} must be hex-encoded") from None
    if length is not None and len(data) != length:
        raise invalid(f"{field} must be {length} bytes, hex-encoded")
    return data


def hex_point(value: object, field: str) -> bytes:
    data = hex_bytes(value, field, 33)
    try:
        return points.point(data)
    except SparkCryptoError:
        raise invalid(f"{field} must be a compressed secp256k1 point") from None


def hex_scalar(value: object, field: str) -> int:
    try:
        return points.scalar(hex_bytes(value, field, 32))
    except SparkCryptoError:
        raise invalid(f"{field} must be below the secp256k1 group order") from None


def operators(recipients: list[Params], threshold: int, field: str) -> list[tuple[str, bytes]]:
    """``(operatorId, encryption key)`` in order; the threshold between 1 and their number."""
    if not recipients:
        raise invalid(f"{field}.operatorRecipients must not be empty")
    out, seen = [], set()
    for i, r in enumerate(recipients):
        name = f"{field}.operatorRecipients[{i}]"
        operator_id = leaf_id(r.get("operatorId"), f"{name}.operatorId")
        if operator_id in seen:
            raise invalid(f"{name}.operatorId repeats {operator_id!r}")
        seen.add(operator_id)
        out.append(
            (operator_id, hex_point(r.get("encryptionPublicKey"), f"{name}.encryptionPublicKey"))
        )
    if not 1 <= threshold <= len(out):
        raise invalid(
            f"{field}.threshold must be between 1 and the number of operators ({len(out)})"
        )
    return out


def random_scalar(ctx: Context) -> int:
    while True:
        k = int.from_bytes(ctx.world.ids.secret_bytes(32), "big")
        if 0 < k < points.N:
            return k


# --- FROST ----------------------------------------------------------------------------


def _commitments(request: Params, field: str) -> dict[int, frost.Commitment]:
    given = request.get("operatorCommitments") or []
    if not given:
        raise invalid(f"{field}.operatorCommitments must not be empty")
    out: dict[int, frost.Commitment] = {}
    for i, c in enumerate(given):
        name = f"{field}.operatorCommitments[{i}]"
        identifier = hex_scalar(c.get("id"), f"{name}.id")
        if identifier == 0:
            raise invalid(f"{name}.id must not be zero")
        if identifier == frost.USER_IDENTIFIER:
            raise invalid(f"{name}.id is Turnkey's own identifier")
        if identifier in out:
            raise invalid(f"{name}.id repeats an operator")
        out[identifier] = frost.Commitment(
            hex_point(c.get("hiding"), f"{name}.hiding"),
            hex_point(c.get("binding"), f"{name}.binding"),
        )
    return out


def sign_frost(ctx: Context, wallet: SparkWallet, request: Params, field: str) -> Params:
    """One partial signature: fresh nonces bound by HMAC to every input, Turnkey's share."""
    private_key, _ = derive(wallet, request.get("derivation") or {}, f"{field}.derivation")
    message = hex_bytes(request.get("message"), f"{field}.message", 32)
    verifying_key = hex_point(request.get("verifyingKey"), f"{field}.verifyingKey")
    commitments = _commitments(request, field)
    adaptor_hex = request.get("adaptorPublicKey") or ""
    adaptor = hex_point(adaptor_hex, f"{field}.adaptorPublicKey") if adaptor_hex else None
    bound = (
        message
        + verifying_key
        + (adaptor or b"")
        + b"".join(
            frost.points.to_bytes(i) + c.hiding + c.binding for i, c in sorted(commitments.items())
        )
    )
    seed = hmac.new(private_key, ctx.world.ids.secret_bytes(32) + bound, hashlib.sha256).digest()
    secret = int.from_bytes(private_key, "big")
    hiding = frost.nonce(seed + b"hiding", secret)
    binding = frost.nonce(seed + b"binding", secret)
    own = frost.Commitment(points.base_mul(hiding), points.base_mul(binding))
    try:
        session = frost.session(
            message, verifying_key, {**commitments, frost.USER_IDENTIFIER: own}, adaptor
        )
    except SparkCryptoError as exc:
        raise invalid(f"{field}: {exc}") from None
    share = frost.user_share(session, hiding, binding, secret)
    return {
        "signatureShare": points.to_bytes(share).hex(),
        "hiding": own.hiding.hex(),
        "binding": own.binding.hex(),
    }
