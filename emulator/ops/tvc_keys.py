"""TVC operators and Quorum Keys: create_tvc_operator, create_tvc_quorum_key,
re_encrypt_tvc_quorum_key_share, post_tvc_quorum_key_share, list_tvc_operators,
list_tvc_quorum_keys (``services/tvc_operators.py``, ``services/tvc_provisioning.py``).
"""

from __future__ import annotations

from typing import Any

from ..crypto import quorum
from ..crypto.hpke import load_public_key, uncompressed
from ..ground.errors import InvalidArgument, NotFound
from ..ground.schema import Array, String, label, obj, opt, uuid
from ..ground.schema import Integer as Int
from ..ground.tvc_models import KEY_SOURCE_WALLET, TvcOperator
from ..services import tvc as tvc_service
from ..services import tvc_operators, tvc_provisioning
from ..services.context import Context
from .registry import Version, activity, query
from .wallets import add_accounts, find_wallet, new_wallet

Params = dict[str, Any]
HEX = String(fmt="hex")


def _accounts(path: str) -> list[Params]:
    return [
        {
            "curve": tvc_operators.P256,
            "pathFormat": "PATH_FORMAT_BIP32",
            "path": account_path,
            "addressFormat": "ADDRESS_FORMAT_UNCOMPRESSED",
        }
        for account_path in tvc_operators.wallet_paths(path)
    ]


@activity(
    "create_tvc_operator",
    summary="Create a TVC Operator",
    default="ACTIVITY_TYPE_CREATE_TVC_OPERATOR",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_TVC_OPERATOR",
            "createTvcOperatorIntent",
            "createTvcOperatorResult",
            obj(
                walletName=opt(label()),
                walletId=opt(uuid()),
                path=String(max_length=256),
                operatorName=label(),
            ),
        )
    ],
)
def create_tvc_operator(ctx: Context, params: Params) -> Params:
    has_id, has_name = bool(params.get("walletId")), bool(params.get("walletName"))
    if has_id == has_name:
        raise InvalidArgument("exactly one of walletId and walletName is required")
    specs = _accounts(params["path"])
    if has_id:
        wallet = find_wallet(ctx.org, params["walletId"])
        keys_hex = add_accounts(ctx, wallet, ctx.store.vault.wallets[wallet.wallet_id], specs)
        ctx.tx.set(wallet, "updated_at", ctx.now_ns)
    else:
        from ..services import keys

        mnemonic = keys.new_mnemonic(ctx, 12)
        wallet, keys_hex = new_wallet(ctx, params["walletName"], mnemonic, specs)
    public = "".join(uncompressed(load_public_key(bytes.fromhex(k))).hex() for k in keys_hex)
    if tvc_service.operator_by_public_key(ctx.org, public) is not None:
        raise InvalidArgument("an operator with these keys exists already")
    encrypt_path, sign_path = tvc_operators.wallet_paths(params["path"])
    operator = TvcOperator(
        operator_id=ctx.new_id(),
        name=params["operatorName"],
        public_key=public,
        key_source=KEY_SOURCE_WALLET,
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
        wallet_id=wallet.wallet_id,
        encrypt_path=encrypt_path,
        sign_path=sign_path,
    )
    ctx.tx.put(ctx.org.tvc_operators, operator.operator_id, operator)
    return {
        "walletId": wallet.wallet_id,
        "operatorId": operator.operator_id,
        "encryptPublicKey": public[:130],
        "signPublicKey": public[130:],
    }


@activity(
    "create_tvc_quorum_key",
    summary="Create a TVC Quorum Key",
    default="ACTIVITY_TYPE_CREATE_TVC_QUORUM_KEY",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_TVC_QUORUM_KEY",
            "createTvcQuorumKeyIntent",
            "createTvcQuorumKeyResult",
            obj(threshold=Int(minimum=1, maximum=255), operatorEncryptKeys=Array(HEX, min_items=1)),
        )
    ],
)
def create_tvc_quorum_key(ctx: Context, params: Params) -> Params:
    if len(params["operatorEncryptKeys"]) > tvc_service.MAX_OPERATORS_PER_SET:
        raise InvalidArgument(
            f"operatorEncryptKeys: at most {tvc_service.MAX_OPERATORS_PER_SET} operators"
        )
    record, share_ids = tvc_operators.new_quorum_key(
        ctx, params["threshold"], params["operatorEncryptKeys"]
    )
    return {
        "quorumKeyId": record.quorum_key_id,
        "quorumPublicKey": record.public_key,
        "shareIds": share_ids,
    }


@activity(
    "re_encrypt_tvc_quorum_key_share",
    summary="Re-encrypt a TVC Quorum Key share",
    default="ACTIVITY_TYPE_RE_ENCRYPT_TVC_QUORUM_KEY_SHARE",
    versions=[
        Version(
            "ACTIVITY_TYPE_RE_ENCRYPT_TVC_QUORUM_KEY_SHARE",
            "reEncryptTvcQuorumKeyShareIntent",
            "reEncryptTvcQuorumKeyShareResult",
            obj(
                attestationDocB64=String(),
                manifestB64=String(),
                operatorEncryptKey=HEX,
                operatorSignKey=HEX,
                deploymentId=uuid(),
                appQuorumKey=HEX,
            ),
        )
    ],
)
def re_encrypt_tvc_quorum_key_share(ctx: Context, params: Params) -> Params:
    """A Turnkey-held operator's share, opened and sealed to the deployment's enclave."""
    deployment = tvc_service.find_deployment(ctx.org, params["deploymentId"])
    app = tvc_service.find_app(ctx.org, deployment.app_id)
    if params["appQuorumKey"].lower() != app.quorum_public_key:
        raise InvalidArgument(f"appQuorumKey is not the Quorum Key of app {app.app_id}")
    public = (params["operatorEncryptKey"] + params["operatorSignKey"]).lower()
    operator = tvc_service.operator_by_public_key(ctx.org, public)
    if operator is None:
        raise NotFound("no TVC operator has this encryption and signing key")
    tvc_provisioning.check_attestation(
        ctx.world, deployment, params["attestationDocB64"], params["manifestB64"]
    )
    held = [
        s
        for s in ctx.org.tvc_quorum_key_shares.values()
        if s.operator_id == operator.operator_id
        and ctx.org.tvc_quorum_keys[s.quorum_key_id].public_key == app.quorum_public_key
    ]
    if not held:
        raise InvalidArgument(
            f"operator {operator.operator_id} holds no share of app {app.app_id}'s Quorum Key"
        )
    secrets = tvc_operators.operator_secrets(ctx, operator)
    try:
        share = secrets.decrypt(bytes.fromhex(held[0].encrypted_share))
    except quorum.QuorumEncryptionError:
        raise InvalidArgument("the operator's share does not open with its key") from None
    ephemeral = tvc_provisioning.ephemeral_key(ctx.world.enclave, deployment.deployment_id)
    sealed = quorum.encrypt(ephemeral.encrypt_public, share)
    signature = secrets.sign(bytes.fromhex(deployment.manifest_digest)).hex()
    made = tvc_provisioning.take_share(
        ctx, deployment, operator.operator_id, signature, sealed, "re-encrypted share"
    )
    return {"provisioningShareId": made.provisioning_share_id}


@activity(
    "post_tvc_quorum_key_share",
    summary="Post a TVC Quorum Key share",
    default="ACTIVITY_TYPE_POST_TVC_QUORUM_KEY_SHARE",
    versions=[
        Version(
            "ACTIVITY_TYPE_POST_TVC_QUORUM_KEY_SHARE",
            "postTvcQuorumKeyShareIntent",
            "postTvcQuorumKeyShareResult",
            obj(
                deploymentId=uuid(),
                ephemeralPublicKeyHex=HEX,
                shareApprovalBundle=obj(operatorId=uuid(), reEncryptedShareHex=HEX, signature=HEX),
            ),
        )
    ],
)
def post_tvc_quorum_key_share(ctx: Context, params: Params) -> Params:
    """An operator's own re-encryption of its share to the enclave, with its approval."""
    deployment = tvc_service.find_deployment(ctx.org, params["deploymentId"])
    bundle = params["shareApprovalBundle"]
    tvc_service.find_operator(ctx.org, bundle["operatorId"])
    ephemeral = tvc_provisioning.ephemeral_key(ctx.world.enclave, deployment.deployment_id)
    given = params["ephemeralPublicKeyHex"].lower()
    if given not in (ephemeral.public.hex(), ephemeral.encrypt_public.hex()):
        raise InvalidArgument(
            f"ephemeralPublicKeyHex is not the Ephemeral Key of deployment {deployment.deployment_id}"
        )
    made = tvc_provisioning.take_share(
        ctx,
        deployment,
        bundle["operatorId"],
        bundle["signature"],
        bytes.fromhex(bundle["reEncryptedShareHex"]),
        "shareApprovalBundle",
    )
    return {"provisioningShareId": made.provisioning_share_id}


@query(
    "list_tvc_operators",
    summary="List TVC Operators",
    body=obj(),
    result_keys=("tvcOperators",),
    sdk_method="get_tvc_operators",
)
def list_tvc_operators(ctx: Context, body: Params) -> Params:
    return {
        "tvcOperators": [tvc_service.render_operator(o) for o in ctx.org.tvc_operators.values()]
    }


@query(
    "list_tvc_quorum_keys",
    summary="List TVC Quorum Keys",
    body=obj(),
    result_keys=("tvcQuorumKeys",),
    sdk_method="get_tvc_quorum_keys",
)
def list_tvc_quorum_keys(ctx: Context, body: Params) -> Params:
    return {
        "tvcQuorumKeys": [
            tvc_service.render_quorum_key(k) for k in ctx.org.tvc_quorum_keys.values()
        ]
    }
