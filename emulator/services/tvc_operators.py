"""TVC operators and Quorum Keys: whose keys they are, and the shares held for them.

An operator is an alias and a QOS public key set (``crypto/qos_keys.py``: encryption key ‖
signing key, 130 bytes hex). ``EXTERNAL_KEY`` operators hold their keys themselves (``tvc
login`` makes one); ``ORG_WALLET_ACCOUNT`` operators (``create_tvc_operator``) are two
P-256 accounts of one of the organization's wallets, the encryption key at ``<path>/0`` and
the signing key at ``<path>/1`` (the emulator's layout: the docs do not give it), so the
organization can open and approve with them (``re_encrypt_tvc_quorum_key_share``).

``create_tvc_quorum_key`` makes a fresh master seed, the Quorum Key its key set; the seed
is split with Shamir (``crypto/shamir.py``, as QOS's genesis does) into one share per
operator, each sealed to that operator's encryption key (``crypto/quorum.py``). The seed
itself is forgotten: only the sealed shares are kept.
"""

from __future__ import annotations

import os

from ..crypto import qos_keys, quorum, shamir
from ..ground.errors import InvalidArgument
from ..ground.tvc_models import (
    KEY_SOURCE_EXTERNAL,
    KEY_SOURCE_WALLET,
    TvcOperator,
    TvcQuorumKey,
    TvcQuorumKeyShare,
)
from . import keys
from .context import Context

P256 = "CURVE_P256"


def check_public_key_set(value: str, what: str) -> str:
    try:
        qos_keys.split_public(bytes.fromhex(value))
    except (ValueError, qos_keys.QosKeyError) as exc:
        raise InvalidArgument(f"{what}: {exc}") from None
    return value.lower()


def external_operator(ctx: Context, name: str, public_key: str) -> TvcOperator:
    """The operator of ``public_key``: the organization's existing one, or a new one."""
    key = check_public_key_set(public_key, f"operator {name!r} publicKey")
    for operator in ctx.org.tvc_operators.values():
        if operator.public_key == key:
            return operator
    made = TvcOperator(
        operator_id=ctx.new_id(),
        name=name,
        public_key=key,
        key_source=KEY_SOURCE_EXTERNAL,
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
    )
    ctx.tx.put(ctx.org.tvc_operators, made.operator_id, made)
    return made


def wallet_paths(base: str) -> tuple[str, str]:
    base = base.rstrip("/")
    return f"{base}/0", f"{base}/1"


def operator_secrets(ctx: Context, operator: TvcOperator) -> qos_keys.KeySet:
    """A wallet operator's two private keys (never rendered, never logged)."""
    if operator.key_source != KEY_SOURCE_WALLET or operator.wallet_id is None:
        raise InvalidArgument(
            f"TVC operator {operator.operator_id} holds its keys outside Turnkey "
            "(keySource EXTERNAL_KEY): post its share with post_tvc_quorum_key_share"
        )
    secret = ctx.store.vault.wallets.get(operator.wallet_id)
    if secret is None or operator.encrypt_path is None or operator.sign_path is None:
        raise InvalidArgument(f"the wallet of TVC operator {operator.operator_id} is gone")
    encrypt = keys.derive(secret, P256, operator.encrypt_path).private_key
    sign = keys.derive(secret, P256, operator.sign_path).private_key
    return qos_keys.KeySet(encrypt, sign)


def new_quorum_key(
    ctx: Context, threshold: int, encrypt_keys: list[str]
) -> tuple[TvcQuorumKey, list[str]]:
    """A Quorum Key sharded to the operators whose encryption keys are given."""
    operators = []
    for index, value in enumerate(encrypt_keys):
        wanted = value.lower()
        found = [o for o in ctx.org.tvc_operators.values() if o.public_key[:130] == wanted]
        if not found:
            raise InvalidArgument(
                f"operatorEncryptKeys[{index}] is not the encryption key of a TVC operator "
                "of this organization"
            )
        operators.append(found[0])
    if len({o.operator_id for o in operators}) != len(operators):
        raise InvalidArgument("operatorEncryptKeys: an operator appears twice")
    if not 1 <= threshold <= len(operators):
        raise InvalidArgument(
            f"threshold must be between 1 and the number of operators ({len(operators)})"
        )
    master_seed = os.urandom(qos_keys.MASTER_SEED_BYTES)
    key_set = qos_keys.KeySet.from_master_seed(master_seed)
    shares = shamir.split(master_seed, len(operators), threshold)
    record = TvcQuorumKey(
        quorum_key_id=ctx.new_id(),
        public_key=key_set.public.hex(),
        threshold=threshold,
        operator_ids=tuple(o.operator_id for o in operators),
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
    )
    ctx.tx.put(ctx.org.tvc_quorum_keys, record.quorum_key_id, record)
    share_ids = []
    for operator, share in zip(operators, shares, strict=True):
        sealed = quorum.encrypt(bytes.fromhex(operator.public_key[:130]), share)
        made = TvcQuorumKeyShare(
            share_id=ctx.new_id(),
            quorum_key_id=record.quorum_key_id,
            operator_id=operator.operator_id,
            encrypted_share=sealed.hex(),
            created_at=ctx.now_ns,
        )
        ctx.tx.put(ctx.org.tvc_quorum_key_shares, made.share_id, made)
        share_ids.append(made.share_id)
    return record, share_ids
