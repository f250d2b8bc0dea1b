"""Private keys: create_private_keys, get_private_key, list_private_keys, delete_private_keys."""

from __future__ import annotations

from typing import Any

from ..ground import messages, render
from ..ground.enums import ADDRESS_FORMATS, CURVES
from ..ground.errors import InvalidArgument, NotFound, ResourceExhausted, ValidationFailed
from ..ground.models import Organization, PrivateKey, SignerRef
from ..ground.schema import Array, Boolean, Enum, String, Violations, label, obj, opt, uuid
from ..services import keys
from ..services.context import Context
from .registry import Version, activity, query

Params = dict[str, Any]

PRIVATE_KEY_PARAMS = obj(  # v1PrivateKeyParams
    privateKeyName=label(),
    curve=Enum(CURVES),
    privateKeyTags=Array(uuid()),
    addressFormats=Array(Enum(ADDRESS_FORMATS)),
)


def find_private_key(org: Organization, private_key_id: str) -> PrivateKey:
    key = org.private_keys.get(private_key_id)
    if key is None:
        raise NotFound(messages.private_key_not_found(private_key_id, org.organization_id))
    return key


def check_tags(org: Organization, tag_ids: list[str]) -> None:
    for tag_id in tag_ids:
        if tag_id not in org.private_key_tags:
            raise NotFound(messages.private_key_tag_not_found(tag_id, org.organization_id))


def new_private_key(
    ctx: Context,
    spec: Params,
    field: str,
    private_key: bytes | None = None,
    *,
    imported: bool = False,
) -> PrivateKey:
    """Store one private key of ``spec`` (generated unless ``private_key`` is given)."""
    if len(ctx.org.private_keys) >= ctx.settings.max_private_keys_per_organization:
        raise ResourceExhausted(messages.MAX_PRIVATE_KEYS, turnkey_error_code="RATE_LIMIT_EXCEEDED")
    name, curve = spec["privateKeyName"], spec["curve"]
    if name in ctx.org.private_key_names:
        errors = Violations()
        errors.add(f"{field}.privateKeyName", messages.MUST_BE_UNIQUE)
        raise ValidationFailed(errors)
    check_tags(ctx.org, spec.get("privateKeyTags", []))
    secret = private_key if private_key is not None else keys.new_private_key(ctx, curve)
    public_key = bytes.fromhex(keys.public_key_hex(curve, secret))
    key = PrivateKey(
        private_key_id=ctx.new_id(),
        name=name,
        curve=curve,
        public_key=public_key.hex(),
        addresses=keys.addresses(ctx, spec.get("addressFormats", []), curve, public_key),
        tag_ids=list(dict.fromkeys(spec.get("privateKeyTags", []))),
        created_at=ctx.now_ns,
        updated_at=ctx.now_ns,
        imported=imported,
    )
    ctx.tx.put(ctx.org.private_keys, key.private_key_id, key)
    ctx.tx.put(ctx.org.private_key_names, name, key.private_key_id)
    ctx.tx.put(ctx.store.vault.private_keys, key.private_key_id, secret)
    ref = SignerRef(private_key_id=key.private_key_id)
    keys.index_signer(ctx, key.private_key_id, ref)
    for entry in key.addresses:
        keys.index_signer(ctx, entry.address, ref)
    return key


def _address_entries(key: PrivateKey) -> list[Params]:
    return [{"format": a.address_format, "address": a.address} for a in key.addresses]


@activity(
    "create_private_keys",
    summary="Create private keys",
    default="ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
    in_seed=True,
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS",
            "createPrivateKeysIntent",
            "createPrivateKeysResult",
            obj(privateKeys=Array(PRIVATE_KEY_PARAMS, min_items=1)),
            downgrade_result=lambda result: {
                "privateKeyIds": [k["privateKeyId"] for k in result["privateKeys"]]
            },
        ),
        Version(
            "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
            "createPrivateKeysIntentV2",
            "createPrivateKeysResultV2",
            obj(
                privateKeys=Array(PRIVATE_KEY_PARAMS, min_items=1),
                externalSignerPubkey=opt(String()),
            ),
        ),
    ],
)
def create_private_keys(ctx: Context, params: Params) -> Params:
    made = [
        new_private_key(ctx, spec, f"privateKeys.{index}")
        for index, spec in enumerate(params["privateKeys"])
    ]
    return {
        "privateKeys": [
            {"privateKeyId": k.private_key_id, "addresses": _address_entries(k)} for k in made
        ]
    }


@activity(
    "delete_private_keys",
    summary="Delete private keys",
    default="ACTIVITY_TYPE_DELETE_PRIVATE_KEYS",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_PRIVATE_KEYS",
            "deletePrivateKeysIntent",
            "deletePrivateKeysResult",
            obj(privateKeyIds=Array(uuid(), min_items=1), deleteWithoutExport=opt(Boolean())),
        )
    ],
)
def delete_private_keys(ctx: Context, params: Params) -> Params:
    """Delete private keys; each must have been exported unless ``deleteWithoutExport`` is set."""
    key_ids = list(dict.fromkeys(params["privateKeyIds"]))
    found = [find_private_key(ctx.org, key_id) for key_id in key_ids]
    if not params.get("deleteWithoutExport"):
        for key in found:
            if not key.exported:
                raise InvalidArgument(
                    messages.not_exported(messages.PRIVATE_KEY_NOT_EXPORTED, key.private_key_id)
                )
    doomed = set(key_ids)
    keys.unindex_signers(ctx, lambda ref: ref.private_key_id in doomed)
    for key in found:
        if ctx.org.private_key_names.get(key.name) == key.private_key_id:
            ctx.tx.pop(ctx.org.private_key_names, key.name)
    for key_id in key_ids:
        ctx.tx.pop(ctx.org.private_keys, key_id)
        ctx.tx.pop(ctx.store.vault.private_keys, key_id)
    return {"privateKeyIds": key_ids}


@query(
    "get_private_key",
    summary="Get private key",
    body=obj(privateKeyId=uuid()),
    result_keys=("privateKey",),
)
def get_private_key(ctx: Context, body: Params) -> Params:
    return {"privateKey": render.private_key(find_private_key(ctx.org, body["privateKeyId"]))}


@query(
    "list_private_keys",
    summary="List private keys",
    sdk_method="get_private_keys",
    in_seed=True,
    body=obj(),
    result_keys=("privateKeys",),
)
def list_private_keys(ctx: Context, body: Params) -> Params:
    return {"privateKeys": [render.private_key(k) for k in ctx.org.private_keys.values()]}
