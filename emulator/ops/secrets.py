"""Secrets: init_import_secrets, import_secrets, export_secrets, delete_secrets, list_secrets.

Arbitrary secrets travel as keys and wallets do (``TRANSPORT_ENCRYPTION_SUITE_ENCLAVE_ENCRYPT_V1``,
the bundles of ``services/bundles.py``, as ``@turnkey/crypto``'s ``encryptSecretToBundle`` and
``decryptSecretBundle`` make and open them):

* ``init_import_secrets`` answers ``numSecrets`` signed target bundles (``ServerTargetMsgV1``:
  a fresh single-use enclave key each, for the requesting user, kept in the vault);
* ``import_secrets`` opens each ``secretPayload`` (``{encappedPublic, ciphertext}``) with the
  target named by its ``targetPublicKey``, uses the target up and keeps the bytes in the vault;
* ``export_secrets`` seals each secret to the client's ``targetPublicKey`` in a signed export
  bundle (``ServerSendMsg``);
* ``list_secrets`` answers the metadata, most recent first; ``delete_secrets`` 1 to 32 at once.

The secret's bytes never appear in a record, a response or an error.
"""

from __future__ import annotations

from typing import Any

from ..ground import messages
from ..ground.errors import InvalidArgument, NotFound
from ..ground.external_records import KeyValue, Secret
from ..ground.models import Organization
from ..ground.schema import Array, Enum, Integer, String, label, obj, opt, uuid
from ..services import bundles
from ..services.context import Context
from ..services.imports import SECRET_TARGET
from ..services.pagination import PAGINATION, paginate
from .registry import Version, activity, query

Params = dict[str, Any]

ENCLAVE_ENCRYPT_V1 = "TRANSPORT_ENCRYPTION_SUITE_ENCLAVE_ENCRYPT_V1"
SUITE = Enum((ENCLAVE_ENCRYPT_V1,))
MAX_PER_CALL = 32


def find_secret(org: Organization, secret_id: str) -> Secret:
    found = org.secrets.get(secret_id)
    if found is None:
        raise NotFound(messages.secret_not_found(secret_id, org.organization_id))
    return found


def _slot(ctx: Context, target_public_key: str) -> tuple[str, str, str]:
    key = target_public_key.lower()
    return (ctx.org.organization_id, ctx.caller.user.user_id, SECRET_TARGET + key)


@activity(
    "init_import_secrets",
    summary="Init import secrets",
    default="ACTIVITY_TYPE_INIT_IMPORT_SECRETS",
    versions=[
        Version(
            "ACTIVITY_TYPE_INIT_IMPORT_SECRETS",
            "initImportSecretsIntent",
            "initImportSecretsResult",
            obj(encryptionSuite=SUITE, numSecrets=Integer()),
        )
    ],
)
def init_import_secrets(ctx: Context, params: Params) -> Params:
    count = params["numSecrets"]
    if not 1 <= count <= MAX_PER_CALL:
        raise InvalidArgument(messages.secrets_count(MAX_PER_CALL))
    messages_out = []
    for _ in range(count):
        secret = bundles.new_p256_secret(ctx.world)
        public = bundles.public_key_of(secret, compressed=False)
        ctx.tx.put(ctx.store.vault.import_targets, _slot(ctx, public), secret)
        messages_out.append(
            bundles.target_bundle(
                ctx.world, secret, ctx.org.organization_id, ctx.caller.user.user_id
            )
        )
    return {"enclaveTargetMessages": messages_out}


KEY_VALUE = obj(key=opt(String()), value=opt(String(allow_empty=True)))  # v1KeyValue

IMPORT_SECRET = obj(
    name=opt(label()),
    secretPayload=String(),
    targetPublicKey=String(fmt="hex"),
    encryptionSuite=SUITE,
    staticProperties=opt(Array(KEY_VALUE)),
)


@activity(
    "import_secrets",
    summary="Import secrets",
    default="ACTIVITY_TYPE_IMPORT_SECRETS",
    versions=[
        Version(
            "ACTIVITY_TYPE_IMPORT_SECRETS",
            "importSecretsIntent",
            "importSecretsResult",
            obj(secrets=Array(IMPORT_SECRET, min_items=1)),
        )
    ],
)
def import_secrets(ctx: Context, params: Params) -> Params:
    specs = params["secrets"]
    if len(specs) > MAX_PER_CALL:
        raise InvalidArgument(messages.secrets_count(MAX_PER_CALL))
    names = [s["name"] for s in specs if s.get("name")]
    taken = {s.name for s in ctx.org.secrets.values() if s.name}
    if len(set(names)) != len(names) or taken & set(names):
        raise InvalidArgument(messages.SECRET_NAME_NOT_UNIQUE)
    made = []
    for index, spec in enumerate(specs):
        slot = _slot(ctx, spec["targetPublicKey"])
        target = ctx.store.vault.import_targets.get(slot)
        if target is None:
            raise InvalidArgument(messages.secret_target_not_found(index))
        try:
            plaintext = bundles.open_client_bundle(spec["secretPayload"], target)
        except bundles.BundleError:
            raise InvalidArgument(messages.secret_payload_does_not_open(index)) from None
        ctx.tx.pop(ctx.store.vault.import_targets, slot)
        secret = Secret(
            secret_id=ctx.new_id(),
            name=spec.get("name") or None,
            static_properties=tuple(
                KeyValue(p.get("key", ""), p.get("value", ""))
                for p in spec.get("staticProperties", [])
            ),
            created_at=ctx.now_ns,
        )
        ctx.tx.put(ctx.org.secrets, secret.secret_id, secret)
        ctx.tx.put(ctx.store.vault.secrets, secret.secret_id, plaintext)
        made.append(secret.secret_id)
    return {"secretIds": made}


@activity(
    "export_secrets",
    summary="Export secrets",
    default="ACTIVITY_TYPE_EXPORT_SECRETS",
    versions=[
        Version(
            "ACTIVITY_TYPE_EXPORT_SECRETS",
            "exportSecretsIntent",
            "exportSecretsResult",
            obj(
                secrets=Array(
                    obj(
                        secretId=uuid(),
                        targetPublicKey=String(fmt="hex"),
                        encryptionSuite=SUITE,
                        requestContext=opt(Array(KEY_VALUE)),  # accepted; binds nothing here
                    ),
                    min_items=1,
                )
            ),
        )
    ],
)
def export_secrets(ctx: Context, params: Params) -> Params:
    payloads = []
    for spec in params["secrets"]:
        secret = find_secret(ctx.org, spec["secretId"])
        plaintext = ctx.store.vault.secrets[secret.secret_id]
        try:
            payloads.append(
                bundles.export_bundle(
                    ctx.world, ctx.org.organization_id, spec["targetPublicKey"], plaintext
                )
            )
        except bundles.BundleError:
            raise InvalidArgument(
                messages.invalid_target_public_key(spec["targetPublicKey"])
            ) from None
    return {"secretPayloads": payloads}


@activity(
    "delete_secrets",
    summary="Delete secrets",
    default="ACTIVITY_TYPE_DELETE_SECRETS",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_SECRETS",
            "deleteSecretsIntent",
            "deleteSecretsResult",
            obj(secretIds=Array(uuid(), min_items=1)),
        )
    ],
)
def delete_secrets(ctx: Context, params: Params) -> Params:
    ids = params["secretIds"]
    if len(ids) > MAX_PER_CALL or len(set(ids)) != len(ids):
        raise InvalidArgument(messages.secrets_to_delete(MAX_PER_CALL))
    for secret_id in ids:
        find_secret(ctx.org, secret_id)
    for secret_id in ids:
        ctx.tx.pop(ctx.org.secrets, secret_id)
        ctx.tx.pop(ctx.store.vault.secrets, secret_id)
    return {"secretIds": ids}


def render_secret(secret: Secret) -> Params:
    """``v1SecretMetadata``."""
    out: Params = {
        "secretId": secret.secret_id,
        "staticProperties": [{"key": p.key, "value": p.value} for p in secret.static_properties],
        "createdAtUnixMs": str(secret.created_at // 1_000_000),
    }
    if secret.name is not None:
        out["name"] = secret.name
    return out


@query(
    "list_secrets",
    summary="List secrets",
    body=obj(paginationOptions=opt(PAGINATION)),
    result_keys=("secrets",),
)
def list_secrets(ctx: Context, body: Params) -> Params:
    newest_first = list(reversed(ctx.org.secrets.values()))
    page = paginate(newest_first, body.get("paginationOptions"), lambda s: s.secret_id)
    return {"secrets": [render_secret(s) for s in page]}
