"""The whole state of an emulator as one versioned JSON document, and back.

THE DOCUMENT CONTAINS SECRETS: the mnemonic of every wallet and every private
key (hex, in ``vault``, beside the enclave's pending import target keys), the
private halves of the organizations' bootstrap API keys (``facade.callers``)
and the keys of the id and key-material streams (``ids``). It says so in its
``warning`` field, and ``write`` creates files readable by their owner only
(mode 0o600). It is for tests and local tools: never put real funds behind a
key that has been in one.

Top-level keys: ``format`` (``"turnkey-emulator-state"``), ``version`` (1),
``warning``, ``organizations`` (each with its users and their credentials,
tags, wallets and accounts, private keys, features, root quorum, parent and
sub-organization links, and activities with their votes), ``vault``, ``enclave`` (the
private keys of the enclave's signer, notarizer and TLS fetcher),
``indexOrder``, ``ids``, ``clock``, ``settings`` and ``facade``.

Records are written field by field from the ground's dataclasses (``models.py`` and
the modules it draws on; camelCase names, times as integer nanoseconds), so a field
added there is saved and loaded with no change here; a field of a type JSON cannot hold
fails loudly at the first save. The indexes (API keys by public key,
activities by id and fingerprint, each organization's signers) are not
saved: ``load`` rebuilds them (``indexes.py``), ordering the holders of one
key or address by creation time. Where the live order differs from that (two
holders created in the same nanosecond on a frozen clock), ``indexOrder``
keeps the live one. Plain JSON throughout: nothing is unpickled or evaluated.

Not saved: checkpoints (a loaded emulator has none), and what the world keeps
beside its state, the call log and armed faults.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..crypto import hd
from ..crypto.api_keys import ApiKeyPair
from ..crypto.enclave import ROLES, TLS_FETCHER_ENCRYPT, EnclaveKeys
from ..engine_state.store import Store
from ..engine_state.vault import IMPORT_PRIVATE_KEY, IMPORT_WALLET, WalletSecret
from ..engine_state.vault import IMPORT_SECRET_TARGET as SECRET_TARGET
from ..engine_state.world import Settings, World
from ..ground import jsontext
from ..ground.ids import IdSource
from ..ground.models import Organization
from . import indexes
from .records import CURRENT, Context, DocumentError, is_int, json_list, json_object, record

FORMAT = "turnkey-emulator-state"
VERSION = 1
SUPPORTED_VERSIONS = (1,)
WARNING = (
    "This document contains secrets: every wallet's mnemonic, every private key, the "
    "organizations' root API private keys, the enclave's keys and the keys of the emulator's "
    "id streams. Keep it private (mode 0o600) and never put real funds behind any key that "
    "has been in it."
)

Json = dict[str, Any]
IMPORT_KINDS = (IMPORT_WALLET, IMPORT_PRIVATE_KEY)


@dataclass
class Loaded:
    """What a document holds, ready to be put into an emulator."""

    store: Store
    ids: IdSource
    clock: tuple[int, int | None]  # Clock.getstate()
    settings: Settings
    # callers (organization id -> ApiKeyPair), first_org_id, seed, last_timestamp_ms
    facade: dict[str, Any]
    enclave: EnclaveKeys | None = None


# ----- saving ----------------------------------------------------------------------------


def dump(world: World, facade_state: dict[str, Any]) -> Json:
    """The whole state of ``world`` and of its facade as a JSON-ready document (with secrets).

    ``facade_state`` holds ``callers`` (organization id to ``ApiKeyPair``), ``first_org_id``,
    ``seed`` and ``last_timestamp_ms``. Nothing in the answer is shared with the live state.
    """
    with world.lock:
        store = world.store
        organizations = []
        signer_order: dict[str, Json] = {}
        for org in store.organizations.values():
            organizations.append(_ORGANIZATION.encode(org, Context(org)))
            hints = indexes.order_hints(
                f" of organization {org.organization_id}",
                org.signers,
                indexes.signers_of(org),
                "signer",
            )
            if hints:
                signer_order[org.organization_id] = {
                    value: [indexes.SIGNER_REF.encode(ref, None) for ref in refs]
                    for value, refs in hints.items()
                }
        key_hints = indexes.order_hints(
            "", store.api_keys_by_public_key, indexes.key_owners_of(store), "API key owner"
        )
        return {
            "format": FORMAT,
            "version": VERSION,
            "warning": WARNING,
            "organizations": organizations,
            "vault": {
                "wallets": {wid: s.mnemonic for wid, s in store.vault.wallets.items()},
                "privateKeys": {kid: k.hex() for kid, k in store.vault.private_keys.items()},
                "secrets": {sid: s.hex() for sid, s in store.vault.secrets.items()},
                "importTargets": [
                    {"organizationId": o, "userId": u, "kind": kind, "secret": secret.hex()}
                    for (o, u, kind), secret in store.vault.import_targets.items()
                ],
            },
            "indexOrder": {
                "apiKeyOwners": {
                    key: [[o.organization_id, o.user_id, o.api_key_id] for o in owners]
                    for key, owners in key_hints.items()
                },
                "signers": signer_order,
            },
            "enclave": {role: secret.hex() for role, secret in world.enclave.secrets().items()},
            "ids": world.ids.to_dict(),
            "clock": dict(zip(("offsetNs", "frozenNs"), world.clock.getstate(), strict=True)),
            "settings": _SETTINGS.encode(world.settings, None),
            "facade": dump_facade(facade_state),
        }


def dump_facade(state: dict[str, Any]) -> Json:
    state = dict(state)
    callers: dict[str, ApiKeyPair] = state.pop("callers")
    out = {
        "seed": state.pop("seed", None),
        "firstOrganizationId": state.pop("first_org_id"),
        "lastTimestampMs": state.pop("last_timestamp_ms", 0),
        "callers": [
            {
                "organizationId": org_id,
                "publicKey": pair.public_key,
                "privateKey": pair.private_key,
                "curve": pair.curve,
            }
            for org_id, pair in callers.items()
        ],
    }
    if state:  # facade state this module does not know how to save: say so, drop nothing
        raise TypeError(f"state document: no way to save facade state {sorted(state)}")
    return out


def write(path: str | os.PathLike[str], document: Json) -> None:
    """Write ``document`` to ``path`` as JSON, readable by the owner only (mode 0o600).

    The file is written beside its destination and renamed over it, so a reader sees the
    old document or the new one, never half of one.
    """
    target = Path(path)
    text = json.dumps(document, indent=1, ensure_ascii=False)
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            os.fchmod(out.fileno(), 0o600)
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read(path: str | os.PathLike[str]) -> Json:
    """The document in the JSON file at ``path`` (not yet checked: ``load`` does that)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        if not text.strip():
            raise DocumentError(f"{path}: the file is empty, not a state document")
        return jsontext.loads(text)
    except UnicodeDecodeError:
        raise DocumentError(f"{path}: not a JSON state document (not UTF-8 text)") from None
    except ValueError as exc:  # not JSON, or nested past jsontext's bound
        raise DocumentError(f"{path}: not a JSON state document ({exc})") from None


# ----- loading ---------------------------------------------------------------------------


def load(document: Any, *, exact_order: bool = True) -> Loaded:
    """The state ``document`` holds, checked and with its indexes rebuilt.

    Raises ``DocumentError`` (a ``ValueError``) naming the first bad place, and for a
    document of another format or an unknown version. ``exact_order=False`` (a document
    brought forward by the journal, ``state/replay.py``) passes over the order hints that
    no longer fit the records, where the records' own order then holds.
    """
    try:
        return _load(document, exact_order)
    except DocumentError:
        raise
    except (TypeError, KeyError, AttributeError, IndexError, ValueError, RecursionError) as exc:
        # a shape no check above foresaw: still an error about the document, not a crash
        raise DocumentError(f"not a state document this emulator can read ({exc!r})") from None


def _load(document: Any, exact_order: bool) -> Loaded:
    if not isinstance(document, dict):
        raise DocumentError("a state document is a JSON object")
    kind, version = document.get("format"), document.get("version")
    if kind != FORMAT:
        raise DocumentError(f"not a {FORMAT} document (format is {kind!r})")
    if version not in SUPPORTED_VERSIONS:
        raise DocumentError(
            f"{FORMAT} version {version!r} is not supported; this emulator reads version"
            f" {', '.join(map(str, SUPPORTED_VERSIONS))}"
        )
    known = {
        "format",
        "version",
        "warning",
        "organizations",
        "vault",
        "enclave",
        "indexOrder",
        "ids",
        "clock",
        "settings",
        "facade",
    }
    unknown = sorted(set(document) - known)
    if unknown:
        raise DocumentError(f"unknown top-level field {unknown[0]!r}")
    store = Store()
    for index, data in enumerate(json_list(document.get("organizations", []), "organizations")):
        org = _ORGANIZATION.decode(data, f"organizations[{index}]")
        if org.organization_id in store.organizations:
            raise DocumentError(f"organizations[{index}]: duplicate id {org.organization_id}")
        _bind_voters(org, f"organizations[{index}]")
        store.organizations[org.organization_id] = org
    _check_links(store)
    _load_vault(store, json_object(document.get("vault"), "vault"))
    order = json_object(document.get("indexOrder", {}), "indexOrder")
    indexes.rebuild(store, order, exact_order)
    return Loaded(
        store=store,
        ids=_load_ids(json_object(document.get("ids"), "ids")),
        clock=_load_clock(json_object(document.get("clock"), "clock")),
        settings=_SETTINGS.decode(document.get("settings", {}), "settings"),
        facade=_load_facade(json_object(document.get("facade"), "facade"), store),
        enclave=_load_enclave(document.get("enclave")),
    )


def _load_enclave(data: Any) -> EnclaveKeys | None:
    """The enclave keys a document saved (``None`` for a document from before they were
    saved: a seeded emulator then makes them again from its seed)."""
    if data is None:
        return None
    data = json_object(data, "enclave")
    secrets = {}
    for role in ROLES:
        value = data.get(role)
        if value is None and role == TLS_FETCHER_ENCRYPT:
            continue  # a document from before that key: derived from the TLS fetcher's
        try:
            secret = bytes.fromhex(value) if isinstance(value, str) else b""
        except ValueError:
            secret = b""
        if len(secret) != 32:
            raise DocumentError(f"enclave.{role}: a 32-byte private key as hex")
        secrets[role] = secret
    return EnclaveKeys.from_secrets(secrets)


def _load_ids(data: Json) -> IdSource:
    try:
        return IdSource.from_dict(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise DocumentError(f"ids: not an id source state ({exc!r})") from None


def _load_clock(data: Json) -> tuple[int, int | None]:
    offset, frozen = data.get("offsetNs", 0), data.get("frozenNs")
    if not is_int(offset) or not (frozen is None or is_int(frozen)):
        raise DocumentError("clock: offsetNs and frozenNs are integer nanoseconds")
    return offset, frozen


def _load_facade(data: Json, store: Store) -> dict[str, Any]:
    callers: dict[str, ApiKeyPair] = {}
    for index, entry in enumerate(json_list(data.get("callers", []), "facade.callers")):
        where = f"facade.callers[{index}]"
        entry = json_object(entry, where)
        org_id = entry.get("organizationId")
        if not isinstance(org_id, str) or org_id not in store.organizations:
            raise DocumentError(f"{where}: no organization {org_id!r}")
        parts = [entry.get(k) for k in ("publicKey", "privateKey", "curve")]
        if not all(isinstance(p, str) for p in parts):
            raise DocumentError(f"{where}: publicKey, privateKey and curve are strings")
        callers[org_id] = ApiKeyPair(*parts)
    first = data.get("firstOrganizationId")
    if first is not None and (not isinstance(first, str) or first not in store.organizations):
        raise DocumentError(f"facade.firstOrganizationId: no organization {first!r}")
    seed, last = data.get("seed"), data.get("lastTimestampMs", 0)
    if not (seed is None or is_int(seed)) or not is_int(last):
        raise DocumentError("facade: seed and lastTimestampMs are integers")
    return {"callers": callers, "first_org_id": first, "seed": seed, "last_timestamp_ms": last}


def _bind_voters(org: Organization, where: str) -> None:
    """A vote whose voter is still a member points at that member's record, as live."""
    for activity in org.activities.values():
        for vote in activity.votes:
            if vote.voter is CURRENT:
                user = org.users.get(vote.user_id)
                if user is None:
                    raise DocumentError(
                        f"{where}: activity {activity.activity_id} has a vote of user"
                        f" {vote.user_id}, who is not in the organization"
                    )
                vote.voter = user


def _check_links(store: Store) -> None:
    orgs = store.organizations
    for org in orgs.values():
        if org.parent_id is not None:
            parent = orgs.get(org.parent_id)
            if parent is None or org.organization_id not in parent.sub_organization_ids:
                raise DocumentError(
                    f"organization {org.organization_id}: parent {org.parent_id} is missing or"
                    " does not list it among its sub-organizations"
                )
        for sub_id in org.sub_organization_ids:
            sub = orgs.get(sub_id)
            if sub is None or sub.parent_id != org.organization_id:
                raise DocumentError(
                    f"organization {org.organization_id}: sub-organization {sub_id} is missing"
                    " or names another parent"
                )


def _load_vault(store: Store, data: Json) -> None:
    wallets = json_object(data.get("wallets", {}), "vault.wallets")
    keys = json_object(data.get("privateKeys", {}), "vault.privateKeys")
    wallet_ids = [w for org in store.organizations.values() for w in org.wallets]
    key_ids = [k for org in store.organizations.values() for k in org.private_keys]
    for wallet_id in wallet_ids:
        mnemonic = wallets.get(wallet_id)
        if not isinstance(mnemonic, str) or not hd.is_valid_mnemonic(mnemonic):
            raise DocumentError(f"vault.wallets: no valid mnemonic for wallet {wallet_id}")
        store.vault.wallets[wallet_id] = WalletSecret(mnemonic)
    for key_id in key_ids:
        secret = keys.get(key_id)
        try:
            value = bytes.fromhex(secret)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            value = b""
        if len(value) != 32:
            raise DocumentError(f"vault.privateKeys: no 32-byte hex key for private key {key_id}")
        store.vault.private_keys[key_id] = value
    held_secrets = json_object(data.get("secrets", {}), "vault.secrets")
    secret_ids = [s for org in store.organizations.values() for s in org.secrets]
    for secret_id in secret_ids:
        try:
            store.vault.secrets[secret_id] = bytes.fromhex(held_secrets.get(secret_id))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise DocumentError(f"vault.secrets: no hex value for secret {secret_id}") from None
    for section, ids, held in (
        ("wallets", wallet_ids, wallets),
        ("privateKeys", key_ids, keys),
        ("secrets", secret_ids, held_secrets),
    ):
        orphans = sorted(set(held) - set(ids))
        if orphans:
            raise DocumentError(f"vault.{section}: {orphans[0]} belongs to nothing in the document")
    _load_import_targets(store, json_list(data.get("importTargets", []), "vault.importTargets"))


def _load_import_targets(store: Store, entries: list) -> None:
    """The pending import targets (single-use enclave keys); one whose user has gone since
    is kept as live, where nothing can use it."""
    for index, entry in enumerate(entries):
        where = f"vault.importTargets[{index}]"
        entry = json_object(entry, where)
        slot = tuple(entry.get(k) for k in ("organizationId", "userId", "kind"))
        kind = slot[2]
        known = kind in IMPORT_KINDS or (isinstance(kind, str) and kind.startswith(SECRET_TARGET))
        if not all(isinstance(part, str) for part in slot) or not known:
            raise DocumentError(f"{where}: organizationId, userId and a kind of {IMPORT_KINDS}")
        try:
            secret = bytes.fromhex(entry.get("secret"))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            secret = b""
        if len(secret) != 32:
            raise DocumentError(f"{where}: no 32-byte hex secret")
        store.vault.import_targets[slot] = secret  # type: ignore[index]


_ORGANIZATION = record(Organization)
_SETTINGS = record(Settings)
