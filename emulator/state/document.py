"""The whole state of an emulator as one versioned JSON document, and back.

THE DOCUMENT CONTAINS SECRETS: the mnemonic of every wallet and every private
key (hex, in ``vault``), the private halves of the organizations' bootstrap API
keys (``facade.callers``) and the keys of the id and key-material streams
(``ids``). It says so in its ``warning`` field, and ``write`` creates files
readable by their owner only (mode 0o600). It is for tests and local tools:
never put real funds behind a key that has been in one.

Top-level keys: ``format`` (``"turnkey-emulator-state"``), ``version`` (1),
``warning``, ``organizations`` (each with its users and their credentials,
tags, wallets and accounts, private keys, features, root quorum, parent and
sub-organization links, and activities with their votes), ``vault``,
``indexOrder``, ``ids``, ``clock``, ``settings`` and ``facade``.

Records are written field by field from the dataclasses of ``models.py``
(camelCase names, times as integer nanoseconds), so a field added there is
saved and loaded with no change here; a field of a type JSON cannot hold
fails loudly at the first save. The indexes (API keys by public key,
activities by id and fingerprint, each organization's signers) are not
saved: ``load`` rebuilds them from the records, ordering the holders of one
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
import types
import typing
from collections import Counter
from dataclasses import MISSING, dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any, Union

from ..codec import camel
from ..crypto import hd
from ..crypto.api_keys import ApiKeyPair
from ..ids import IdSource
from ..models import Organization, SignerRef, User, Vote
from ..store import KeyOwner, Store
from ..vault import WalletSecret
from ..world import Settings, World

FORMAT = "turnkey-emulator-state"
VERSION = 1
SUPPORTED_VERSIONS = (1,)
WARNING = (
    "This document contains secrets: every wallet's mnemonic, every private key, the "
    "organizations' root API private keys and the keys of the emulator's id streams. Keep it "
    "private (mode 0o600) and never put real funds behind any key that has been in it."
)

Json = dict[str, Any]


class DocumentError(ValueError):
    """A state document that cannot be loaded; the message names the bad place."""


@dataclass
class Loaded:
    """What a document holds, ready to be put into an emulator."""

    store: Store
    ids: IdSource
    clock: tuple[int, int | None]  # Clock.getstate()
    settings: Settings
    # callers (organization id -> ApiKeyPair), first_org_id, seed, last_timestamp_ms
    facade: dict[str, Any]


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
            organizations.append(_ORGANIZATION.encode(org, _Context(org)))
            hints = _order_hints(
                f" of organization {org.organization_id}", org.signers, _signers_of(org), "signer"
            )
            if hints:
                signer_order[org.organization_id] = {
                    value: [_SIGNER_REF.encode(ref, None) for ref in refs]
                    for value, refs in hints.items()
                }
        key_hints = _order_hints(
            "", store.api_keys_by_public_key, _key_owners_of(store), "API key owner"
        )
        return {
            "format": FORMAT,
            "version": VERSION,
            "warning": WARNING,
            "organizations": organizations,
            "vault": {
                "wallets": {wid: s.mnemonic for wid, s in store.vault.wallets.items()},
                "privateKeys": {kid: k.hex() for kid, k in store.vault.private_keys.items()},
            },
            "indexOrder": {
                "apiKeyOwners": {
                    key: [[o.organization_id, o.user_id, o.api_key_id] for o in owners]
                    for key, owners in key_hints.items()
                },
                "signers": signer_order,
            },
            "ids": world.ids.to_dict(),
            "clock": dict(zip(("offsetNs", "frozenNs"), world.clock.getstate(), strict=True)),
            "settings": _SETTINGS.encode(world.settings, None),
            "facade": _dump_facade(facade_state),
        }


def _dump_facade(state: dict[str, Any]) -> Json:
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
    text = Path(path).read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(f"{path}: not a JSON state document ({exc})") from None


# ----- loading ---------------------------------------------------------------------------


def load(document: Any) -> Loaded:
    """The state ``document`` holds, checked and with its indexes rebuilt.

    Raises ``DocumentError`` (a ``ValueError``) naming the first bad place, and for a
    document of another format or an unknown version.
    """
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
    for index, data in enumerate(_list(document.get("organizations", []), "organizations")):
        org = _ORGANIZATION.decode(data, f"organizations[{index}]")
        if org.organization_id in store.organizations:
            raise DocumentError(f"organizations[{index}]: duplicate id {org.organization_id}")
        _bind_voters(org, f"organizations[{index}]")
        store.organizations[org.organization_id] = org
    _check_links(store)
    _load_vault(store, _object(document.get("vault"), "vault"))
    _rebuild_indexes(store, _object(document.get("indexOrder", {}), "indexOrder"))
    return Loaded(
        store=store,
        ids=_load_ids(_object(document.get("ids"), "ids")),
        clock=_load_clock(_object(document.get("clock"), "clock")),
        settings=_SETTINGS.decode(document.get("settings", {}), "settings"),
        facade=_load_facade(_object(document.get("facade"), "facade"), store),
    )


def _load_ids(data: Json) -> IdSource:
    try:
        return IdSource.from_dict(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise DocumentError(f"ids: not an id source state ({exc!r})") from None


def _load_clock(data: Json) -> tuple[int, int | None]:
    offset, frozen = data.get("offsetNs", 0), data.get("frozenNs")
    if not _is_int(offset) or not (frozen is None or _is_int(frozen)):
        raise DocumentError("clock: offsetNs and frozenNs are integer nanoseconds")
    return offset, frozen


def _load_facade(data: Json, store: Store) -> dict[str, Any]:
    callers: dict[str, ApiKeyPair] = {}
    for index, entry in enumerate(_list(data.get("callers", []), "facade.callers")):
        where = f"facade.callers[{index}]"
        entry = _object(entry, where)
        org_id = entry.get("organizationId")
        if org_id not in store.organizations:
            raise DocumentError(f"{where}: no organization {org_id!r}")
        parts = [entry.get(k) for k in ("publicKey", "privateKey", "curve")]
        if not all(isinstance(p, str) for p in parts):
            raise DocumentError(f"{where}: publicKey, privateKey and curve are strings")
        callers[org_id] = ApiKeyPair(*parts)
    first = data.get("firstOrganizationId")
    if first is not None and first not in store.organizations:
        raise DocumentError(f"facade.firstOrganizationId: no organization {first!r}")
    seed, last = data.get("seed"), data.get("lastTimestampMs", 0)
    if not (seed is None or _is_int(seed)) or not _is_int(last):
        raise DocumentError("facade: seed and lastTimestampMs are integers")
    return {"callers": callers, "first_org_id": first, "seed": seed, "last_timestamp_ms": last}


def _bind_voters(org: Organization, where: str) -> None:
    """A vote whose voter is still a member points at that member's record, as live."""
    for activity in org.activities.values():
        for vote in activity.votes:
            if vote.voter is _CURRENT:
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
    wallets = _object(data.get("wallets", {}), "vault.wallets")
    keys = _object(data.get("privateKeys", {}), "vault.privateKeys")
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
    for section, ids, held in (("wallets", wallet_ids, wallets), ("privateKeys", key_ids, keys)):
        orphans = sorted(set(held) - set(ids))
        if orphans:
            raise DocumentError(f"vault.{section}: {orphans[0]} belongs to nothing in the document")


# ----- indexes -------------------------------------------------------------------------


def _signers_of(org: Organization) -> dict[str, tuple[SignerRef, ...]]:
    """``org.signers`` as its records make it: every holder of a value, oldest first."""
    entries: list[tuple[int, str, SignerRef]] = []
    for wallet in org.wallets.values():
        for account in wallet.accounts.values():
            ref = SignerRef(wallet_id=wallet.wallet_id, wallet_account_id=account.wallet_account_id)
            entries.append((account.created_at, account.address, ref))
    for key in org.private_keys.values():
        ref = SignerRef(private_key_id=key.private_key_id)
        entries.append((key.created_at, key.private_key_id, ref))
        entries.extend((key.created_at, a.address, ref) for a in key.addresses)
    return _grouped(entries)


def _key_owners_of(store: Store) -> dict[str, tuple[KeyOwner, ...]]:
    """``store.api_keys_by_public_key`` as the records make it, oldest key first."""
    entries: list[tuple[int, str, KeyOwner]] = [
        (key.created_at, key.public_key.lower(), KeyOwner(org_id, user.user_id, key.api_key_id))
        for org_id, org in store.organizations.items()
        for user in org.users.values()
        for key in user.api_keys.values()
    ]
    return _grouped(entries)


def _grouped(entries: list[tuple[int, str, Any]]) -> dict[str, tuple[Any, ...]]:
    entries.sort(key=lambda entry: entry[0])  # stable: ties keep the records' order
    grouped: dict[str, tuple[Any, ...]] = {}
    for _, value, holder in entries:
        grouped[value] = (*grouped.get(value, ()), holder)
    return grouped


def _order_hints(where: str, live: dict, rebuilt: dict, what: str) -> dict[str, tuple]:
    """The entries of ``live`` whose order the rebuild would not reproduce."""
    hints = {}
    for value in live.keys() | rebuilt.keys():
        have, want = live.get(value, ()), rebuilt.get(value, ())
        if have == want:
            continue
        if Counter(have) != Counter(want):  # a bug elsewhere: refuse to save a lie
            raise RuntimeError(f"the {what} index{where} disagrees with the records at {value!r}")
        hints[value] = have
    return hints


def _rebuild_indexes(store: Store, order: Json) -> None:
    key_order = _object(order.get("apiKeyOwners", {}), "indexOrder.apiKeyOwners")
    signer_order = _object(order.get("signers", {}), "indexOrder.signers")
    owners = _key_owners_of(store)
    for key, listed in key_order.items():
        where = f"indexOrder.apiKeyOwners[{key!r}]"
        try:
            wanted = tuple(KeyOwner(*entry) for entry in _list(listed, where))
        except TypeError:
            raise DocumentError(
                f"{where}: entries are [organizationId, userId, apiKeyId]"
            ) from None
        owners[key] = _reordered(owners.get(key, ()), wanted, where)
    store.api_keys_by_public_key = owners
    for org in store.organizations.values():
        org.signers = _signers_of(org)
        for activity in org.activities.values():
            store.activities_by_id[activity.activity_id] = activity
            store.activities_by_fingerprint[activity.fingerprint] = activity
    for org_id, values in signer_order.items():
        org = store.organizations.get(org_id)
        if org is None:
            raise DocumentError(f"indexOrder.signers: no organization {org_id!r}")
        for value, listed in _object(values, f"indexOrder.signers[{org_id!r}]").items():
            where = f"indexOrder.signers[{org_id!r}][{value!r}]"
            wanted = tuple(
                _SIGNER_REF.decode(ref, f"{where}[{i}]")
                for i, ref in enumerate(_list(listed, where))
            )
            org.signers[value] = _reordered(org.signers.get(value, ()), wanted, where)


def _reordered(rebuilt: tuple, wanted: tuple, where: str) -> tuple:
    if Counter(rebuilt) != Counter(wanted):
        raise DocumentError(f"{where}: not an order of what the records hold there")
    return wanted


# ----- records <-> JSON, driven by the dataclasses' field types ---------------------------

_CURRENT = object()  # a vote's voter is the organization's live record of that user


class _Context:
    __slots__ = ("org",)

    def __init__(self, org: Organization | None) -> None:
        self.org = org


class _Codec:
    def encode(self, value: Any, ctx: _Context | None) -> Any:
        raise NotImplementedError

    def decode(self, data: Any, where: str) -> Any:
        raise NotImplementedError


class _Scalar(_Codec):
    def __init__(self, kind: type) -> None:
        self.kind = kind

    def encode(self, value: Any, ctx: _Context | None) -> Any:
        return value

    def decode(self, data: Any, where: str) -> Any:
        kind = self.kind
        if kind is float and _is_number(data):
            return float(data)
        if kind is int and _is_int(data):
            return data
        if kind in (str, bool) and isinstance(data, kind):
            return data
        raise DocumentError(f"{where}: expected {kind.__name__}, got {_json_type(data)}")


class _Plain(_Codec):
    """Any JSON value (intents, results, failures): copied, never shared."""

    def encode(self, value: Any, ctx: _Context | None) -> Any:
        return _copied(value)  # the emulator's own values: JSON already, no checks needed

    def decode(self, data: Any, where: str) -> Any:
        return _plain(data, where)


class _Optional(_Codec):
    def __init__(self, inner: _Codec) -> None:
        self.inner = inner

    def encode(self, value: Any, ctx: _Context | None) -> Any:
        return None if value is None else self.inner.encode(value, ctx)

    def decode(self, data: Any, where: str) -> Any:
        return None if data is None else self.inner.decode(data, where)


class _List(_Codec):
    def __init__(self, inner: _Codec, make: type = list) -> None:
        self.inner, self.make = inner, make

    def encode(self, value: Any, ctx: _Context | None) -> Any:
        return [self.inner.encode(item, ctx) for item in value]

    def decode(self, data: Any, where: str) -> Any:
        items = _list(data, where)
        return self.make(self.inner.decode(item, f"{where}[{i}]") for i, item in enumerate(items))


class _Mapping(_Codec):
    def __init__(self, inner: _Codec) -> None:
        self.inner = inner

    def encode(self, value: Any, ctx: _Context | None) -> Any:
        return {key: self.inner.encode(item, ctx) for key, item in value.items()}

    def decode(self, data: Any, where: str) -> Any:
        items = _object(data, where)
        return {key: self.inner.decode(item, f"{where}.{key}") for key, item in items.items()}


class _Keyed(_Codec):
    """``dict[id, Record]`` as a list of records, each keyed by its first field (its id)."""

    def __init__(self, record: _Record) -> None:
        self.record = record

    def encode(self, value: Any, ctx: _Context | None) -> Any:
        out = []
        for key, item in value.items():
            if getattr(item, self.record.id_field) != key:
                raise RuntimeError(f"{type(item).__name__} {key} is stored under another id")
            out.append(self.record.encode(item, ctx))
        return out

    def decode(self, data: Any, where: str) -> Any:
        out: dict[str, Any] = {}
        for i, item in enumerate(_list(data, where)):
            record = self.record.decode(item, f"{where}[{i}]")
            key = getattr(record, self.record.id_field)
            if key in out:
                raise DocumentError(f"{where}[{i}]: duplicate id {key}")
            out[key] = record
        return out


class _Voter(_Codec):
    """``Vote.voter``: ``"current"`` while the voter is a member, else their last record."""

    def encode(self, value: Any, ctx: _Context | None) -> Any:
        if value is None:
            return None
        if ctx is not None and ctx.org is not None and ctx.org.users.get(value.user_id) is value:
            return "current"
        return _record(User).encode(value, ctx)

    def decode(self, data: Any, where: str) -> Any:
        if data is None:
            return None
        if data == "current":
            return _CURRENT
        return _record(User).decode(data, where)


class _Record(_Codec):
    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.id_field = fields(cls)[0].name
        self.fields: list[tuple[str, str, _Codec, bool]] = []  # name, json name, codec, required

    def build(self) -> None:
        hints = typing.get_type_hints(self.cls)
        for f in fields(self.cls):
            if (self.cls, f.name) in _SKIPPED:
                continue
            codec = _SPECIAL.get((self.cls, f.name)) or _codec(hints[f.name])
            required = f.default is MISSING and f.default_factory is MISSING
            self.fields.append((f.name, camel(f.name), codec, required))

    def encode(self, value: Any, ctx: _Context | None) -> Any:
        return {key: codec.encode(getattr(value, name), ctx) for name, key, codec, _ in self.fields}

    def decode(self, data: Any, where: str) -> Any:
        data = _object(data, where)
        kwargs = {}
        for name, key, codec, required in self.fields:
            if key in data:
                kwargs[name] = codec.decode(data[key], f"{where}.{key}")
            elif required:
                raise DocumentError(f"{where}: missing field {key!r}")
        if len(kwargs) != len(data):
            known = {key for _, key, _, _ in self.fields}
            extra = sorted(set(data) - known)
            raise DocumentError(f"{where}: unknown field {extra[0]!r}")
        return self.cls(**kwargs)


# Fields not saved as they are: rebuilt from the records, or saved another way.
_SKIPPED = {(Organization, "signers")}  # rebuilt from the wallets and private keys
_SPECIAL: dict[tuple[type, str], _Codec] = {(Vote, "voter"): _Voter()}
_RECORDS: dict[type, _Record] = {}


def _record(cls: type) -> _Record:
    record = _RECORDS.get(cls)
    if record is None:
        record = _RECORDS[cls] = _Record(cls)
        record.build()
    return record


def _codec(hint: Any) -> _Codec:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return _Plain()
    if origin in (Union, types.UnionType):
        others = [a for a in args if a is not type(None)]
        if len(others) == 1 and len(args) == 2:
            return _Optional(_codec(others[0]))
    elif is_dataclass(hint):
        return _record(hint)  # type: ignore[arg-type]
    elif origin is dict and args[0] is str:
        if is_dataclass(args[1]):
            return _Keyed(_record(args[1]))
        return _Mapping(_codec(args[1]))
    elif origin is list:
        return _List(_codec(args[0]))
    elif origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return _List(_codec(args[0]), tuple)
    elif hint in (str, int, float, bool):
        return _Scalar(hint)
    raise TypeError(f"state document: no JSON form for fields of type {hint!r}")


def _copied(value: Any) -> Any:
    """A deep copy of a JSON value (tuples become lists), without the checks of ``_plain``."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_copied(item) for item in value]
    return value


def _plain(value: Any, where: str) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise DocumentError(f"{where}: object keys are strings")
            out[key] = _plain(item, f"{where}.{key}")
        return out
    if isinstance(value, list | tuple):
        return [_plain(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise DocumentError(f"{where or 'value'}: {type(value).__name__} is not JSON")


def _object(data: Any, where: str) -> Json:
    if not isinstance(data, dict):
        raise DocumentError(f"{where}: expected an object, got {_json_type(data)}")
    return data


def _list(data: Any, where: str) -> list:
    if not isinstance(data, list):
        raise DocumentError(f"{where}: expected an array, got {_json_type(data)}")
    return data


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _json_type(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number" if _is_number(value) else type(value).__name__)


_ORGANIZATION = _record(Organization)
_SIGNER_REF = _record(SignerRef)
_SETTINGS = _record(Settings)
