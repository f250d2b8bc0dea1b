"""What one committed transaction changed, as entries of the durable journal.

A transaction that writes through (``Transaction(durable=...)``) notes each mapping
and key it put or popped, and each record and attribute it set. ``changed_units``
turns that list into the units of the state document that changed:

* ``("org", id)``: a whole organization (one was added or removed);
* ``("head", id)``: an organization's own fields (name, quorum, features, links);
* ``("rec", id, collection, record_id)``: one record of an organization (a user with
  its credentials, a wallet with its accounts, an activity with its votes, ...);
* ``("vault", section, key)``: one wallet mnemonic, private key, import target or secret.

``entries`` reads the live value of each unit (or its absence) and encodes it as the
state document does (``state/records.py``): the cost is what changed, never the size
of the state. The indexes are not written: loading rebuilds them from the records.

Units are found by identity: a touched mapping is one of an organization's
collections, or the credentials of one of its users; a touched record is found in
its collection by its id. The organizations named by the records that carry their
organization id (activities, wallet accounts) are searched first, then all.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..engine_state.store import Store
from ..ground.external_records import Unsaved
from ..ground.models import Activity, NameIndex, Organization, WalletAccount
from ..ground.redact import Sealed
from .records import Context, _Keyed, record

Unit = tuple
Json = dict[str, Any]

_ORGANIZATION = record(Organization)
# The organization's keyed collections: attribute, JSON key, record codec.
COLLECTIONS = tuple(
    (name, key, codec.record)
    for name, key, codec, _ in _ORGANIZATION.fields
    if isinstance(codec, _Keyed)
)
HEAD_FIELDS = tuple(
    (name, key, codec)
    for name, key, codec, _ in _ORGANIZATION.fields
    if not isinstance(codec, _Keyed)
)
_JSON_NAME = {name: key for name, key, _ in COLLECTIONS}
# record type -> the collections (attribute names) that may hold it
_HOLDERS: dict[type, tuple[str, ...]] = {}
for _name, _, _codec in COLLECTIONS:
    _HOLDERS[_codec.cls] = (*_HOLDERS.get(_codec.cls, ()), _name)
_ID_FIELD = {codec.cls: codec.id_field for _, _, codec in COLLECTIONS}
# Mappings inside a record of a collection: the record's credentials, a wallet's accounts.
_NESTED = {"users": ("api_keys", "authenticators", "oauth_providers"), "wallets": ("accounts",)}
VAULT_SECTIONS = {
    "wallets": "wallets",
    "private_keys": "privateKeys",
    "import_targets": "importTargets",
    "secrets": "secrets",
}


def changed_units(store: Store, touched: Iterable[tuple[Any, Any, Any]]) -> list[Unit]:
    """The units of the document that ``touched`` (a transaction's list) changed, in order."""
    units: dict[Unit, None] = {}
    pending: list[tuple[Any, Any, Any]] = []
    hints: dict[str, None] = {}
    derived = (
        store.api_keys_by_public_key,
        store.activities_by_id,
        store.activities_by_fingerprint,
    )
    vault = store.vault
    for target, key, value in touched:
        if type(target) is NameIndex or type(target) is Unsaved:
            continue  # derived: rebuilt on load; or outside the saved state
        if type(target) is dict or type(target) is Sealed:  # the vault's are Sealed
            if target is store.organizations:
                units[("org", key)] = None
                continue
            if any(target is index for index in derived) or type(value) is tuple:
                continue  # an index (org.signers holds tuples): rebuilt on load
            section = _vault_section(vault, target)
            if section is not None:
                units[("vault", section, key)] = None
                continue
            carrier = value
        else:
            if type(target) is Organization:
                units[("head", target.organization_id)] = None
                continue
            carrier = target
        unit = _carried(carrier)
        if unit is not None:
            units[unit] = None
            hints[unit[1]] = None
        else:
            pending.append((target, key, value))
    for touch in pending:
        candidates = [store.organizations[o] for o in hints if o in store.organizations]
        unit = _find(touch, candidates)
        if unit is None:
            unit = _find(touch, store.organizations.values())
        if unit is not None:  # else detached: a record of something removed since
            units[unit] = None
            hints[unit[1]] = None
    whole = {unit[1] for unit in units if unit[0] == "org"}
    return [u for u in units if u[0] in ("org", "vault") or u[1] not in whole]


def entries(store: Store, units: Iterable[Unit]) -> list[list]:
    """The journal entries of ``units``: each unit's live value, or ``None`` if it is gone."""
    out: list[list] = []
    for unit in units:
        kind = unit[0]
        if kind == "vault":
            _, section, key = unit
            out.append(["vault", VAULT_SECTIONS[section], *_vault_entry(store, section, key)])
            continue
        org = store.organizations.get(unit[1])
        if kind == "org":
            encoded = None if org is None else _ORGANIZATION.encode(org, Context(org))
            out.append(["org", unit[1], encoded])
        elif org is None:
            continue  # its organization is gone (and its own entry says so)
        elif kind == "head":
            ctx = Context(org)
            out.append(
                ["head", unit[1], {k: c.encode(getattr(org, n), ctx) for n, k, c in HEAD_FIELDS}]
            )
        else:
            _, org_id, name, record_id = unit
            value = getattr(org, name).get(record_id)
            codec = record(type(value)) if value is not None else None
            encoded = None if codec is None else codec.encode(value, Context(org))
            out.append(["rec", org_id, _JSON_NAME[name], record_id, encoded])
    return out


def _vault_section(vault: Any, target: dict) -> str | None:
    for section in VAULT_SECTIONS:
        if target is getattr(vault, section):
            return section
    return None


def _vault_entry(store: Store, section: str, key: Any) -> list:
    value = getattr(store.vault, section).get(key)
    if section == "wallets":
        return [key, None if value is None else value.mnemonic]
    if section in ("private_keys", "secrets"):
        return [key, None if value is None else value.hex()]
    return [list(key), None if value is None else value.hex()]


def _carried(value: Any) -> Unit | None:
    """The unit of a record that names its organization itself."""
    kind = type(value)
    if kind is Activity:
        return ("rec", value.organization_id, "activities", value.activity_id)
    if kind is WalletAccount:
        return ("rec", value.organization_id, "wallets", value.wallet_id)
    return None


def _find(touch: tuple[Any, Any, Any], orgs: Iterable[Organization]) -> Unit | None:
    target, key, _ = touch
    for org in orgs:
        unit = (
            _mapping_unit(org, target, key) if type(target) is dict else _record_unit(org, target)
        )
        if unit is not None:
            return unit
    return None


def _mapping_unit(org: Organization, target: dict, key: Any) -> Unit | None:
    org_id = org.organization_id
    for name, _, _ in COLLECTIONS:
        if target is getattr(org, name):
            return ("rec", org_id, name, key)
    if target is org.features:
        return ("head", org_id)
    for name, nested in _NESTED.items():
        for holder_id, holder in getattr(org, name).items():
            if any(target is getattr(holder, attribute) for attribute in nested):
                return ("rec", org_id, name, holder_id)
    return None


def _record_unit(org: Organization, target: Any) -> Unit | None:
    org_id = org.organization_id
    kind = type(target)
    for name in _HOLDERS.get(kind, ()):
        record_id = getattr(target, _ID_FIELD[kind])
        if getattr(org, name).get(record_id) is target:
            return ("rec", org_id, name, record_id)
    if kind in _HOLDERS:
        return None
    for name, nested in _NESTED.items():  # a credential or an account set in place
        for holder_id, holder in getattr(org, name).items():
            for attribute in nested:
                if any(item is target for item in getattr(holder, attribute).values()):
                    return ("rec", org_id, name, holder_id)
    return None
