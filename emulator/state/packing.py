"""The snapshot's pickler: a bulk collection of plain records written as one packed string.

``snapshot.take`` pickles the store (records, indexes, vault). The plain pickler writes every
object it meets (each record, its lists, each string) and keeps a memo entry for each, a hash
table keyed by address and read at random, so that an object reached twice comes back once.
At 10,000 private keys that is about 200,000 entries: the table outgrows the core's L2 cache,
and the pickle's cost per record grew with the number of records (12-24 x from 1,000 to
10,000 records for 10 x the records; docs/snapshots.md).

Most of those objects are in a few collections of plain records, each record reached from
one place only: an organization's private keys, its wallets and their accounts, its
``signers`` index and its two name indexes, and the vault's sealed dicts of key bytes. This
pickler writes each such collection as one ``marshal`` string of tuples (version 2: no
back-references, so no table keyed by address either) and reads it back into records of the
same classes, in the same order, equal field for field: one pickled object and one memo entry
where there were about twenty a record. Measured: the round trip costs about half of the plain
pickle's at both sizes, and grows linearly (bench/snapshots.py).

What keeps it exact:

* only a record of exactly the expected class, whose fields ``marshal`` takes as they are
  (``str``, ``int``, ``bool``, ``None``, ``bytes``, exact ``list``/``dict``), is packed; any
  other value, and any collection whose keys are not its records' own ids, makes
  ``marshal`` refuse or the check fail, and that collection is pickled the plain way;
* a record packed is reached from its collection only (nothing else in the store holds
  private keys, wallets, accounts or signer refs: other records name them by id), so writing
  it once, not through the memo, loses no sharing that matters. Strings are values: a
  restored record's strings are equal to the saved ones, and enum-like ones (curves, address
  and path formats) are interned again; ids and names in the indexes are the records' own
  string objects, as before;
* ``tests/test_snapshot_property.py`` (random steps, snapshot, more steps, restore twice)
  and ``tests/test_snapshot_packing.py`` (each collection, the fallbacks) are the proof.

Made and read in this process only, like the rest of the snapshot: never written anywhere.
"""

from __future__ import annotations

import io
import marshal
import pickle
import sys
import threading
from collections.abc import Callable
from dataclasses import fields
from operator import attrgetter
from typing import Any, NamedTuple

from ..ground.models import (
    Address,
    NameIndex,
    Organization,
    PrivateKey,
    SignerRef,
    Wallet,
    WalletAccount,
)
from ..ground.redact import Sealed

MARSHAL_VERSION = 2  # version 3 and later keep a table of the objects written, by address
MIN_PACKED = 16  # smaller collections are pickled the plain way: packing them saves nothing

_intern = sys.intern
_loading = threading.local()
_ORG_FIELDS = tuple(f.name for f in fields(Organization))
_PK_FIELDS = tuple(f.name for f in fields(PrivateKey))
_WALLET_FIELDS = tuple(f.name for f in fields(Wallet) if f.name != "accounts")
_ACCOUNT_FIELDS = tuple(f.name for f in fields(WalletAccount))
_pk_values = attrgetter(*_PK_FIELDS)
_wallet_values = attrgetter(*_WALLET_FIELDS)
_account_values = attrgetter(*_ACCOUNT_FIELDS)
_PK_ADDRESSES = _PK_FIELDS.index("addresses")
_PK_CURVE = _PK_FIELDS.index("curve")
assert _PK_FIELDS[0] == "private_key_id" and _WALLET_FIELDS[0] == "wallet_id"
assert _ACCOUNT_FIELDS[0] == "wallet_account_id"


class _NotPlain(Exception):
    """A collection that is not one of plain records keyed by their ids."""


def _pack(value: Any) -> bytes:
    try:
        return marshal.dumps(value, MARSHAL_VERSION)
    except ValueError as refused:  # a value of a type marshal does not take as it is
        raise _NotPlain from refused


# ----- private keys ----------------------------------------------------------------------


def _pack_private_keys(keys: dict[str, PrivateKey]) -> bytes:
    rows = []
    for key_id, key in keys.items():
        if (
            type(key) is not PrivateKey
            or key.private_key_id != key_id
            or type(key.curve) is not str
        ):
            raise _NotPlain  # (the curve and formats are interned again: strings only)
        row = list(_pk_values(key))
        addresses = key.addresses
        if type(addresses) is not list:
            raise _NotPlain
        row[_PK_ADDRESSES] = [
            (a.address_format, a.address)
            if type(a) is Address and type(a.address_format) is str
            else _refuse()
            for a in addresses
        ]
        rows.append(row)
    return _pack(rows)


def _unpack_private_keys(blob: bytes, strings: dict[str, str]) -> dict[str, PrivateKey]:
    keys: dict[str, PrivateKey] = {}
    for row in marshal.loads(blob):
        row[_PK_CURVE] = _intern(row[_PK_CURVE])
        addresses = row[_PK_ADDRESSES] = [Address(_intern(f), a) for f, a in row[_PK_ADDRESSES]]
        key = PrivateKey(*row)
        key_id = key.private_key_id
        keys[key_id] = key
        strings[key_id] = key_id
        for address in addresses:
            strings[address.address] = address.address
    return keys


def _refuse() -> Any:
    raise _NotPlain


# ----- wallets and their accounts --------------------------------------------------------

_ACCOUNT_INTERNED = tuple(
    _ACCOUNT_FIELDS.index(name) for name in ("curve", "path_format", "address_format")
)


def _pack_wallets(wallets: dict[str, Wallet]) -> bytes:
    rows = []
    for wallet_id, wallet in wallets.items():
        if type(wallet) is not Wallet or wallet.wallet_id != wallet_id:
            raise _NotPlain
        accounts = []
        for account_id, account in wallet.accounts.items():
            if type(account) is not WalletAccount or account.wallet_account_id != account_id:
                raise _NotPlain
            values = _account_values(account)
            if any(type(values[at]) is not str for at in _ACCOUNT_INTERNED):
                raise _NotPlain
            accounts.append(values)
        if type(wallet.accounts) is not dict:
            raise _NotPlain
        rows.append((_wallet_values(wallet), accounts))
    return _pack(rows)


def _unpack_wallets(blob: bytes, strings: dict[str, str]) -> dict[str, Wallet]:
    wallets: dict[str, Wallet] = {}
    curve, path_format, address_format = _ACCOUNT_INTERNED
    for values, rows in marshal.loads(blob):
        accounts: dict[str, WalletAccount] = {}
        for row in rows:
            row = list(row)
            row[curve] = _intern(row[curve])
            row[path_format] = _intern(row[path_format])
            row[address_format] = _intern(row[address_format])
            account = WalletAccount(*row)
            account_id = account.wallet_account_id
            accounts[account_id] = account
            strings[account_id] = account_id
            strings[account.address] = account.address
        wallet = Wallet(*values, accounts=accounts)  # type: ignore[misc]
        wallets[wallet.wallet_id] = wallet
        strings[wallet.wallet_id] = wallet.wallet_id
    return wallets


# ----- the indexes: signers and names ----------------------------------------------------


def _pack_signers(signers: dict[str, tuple[SignerRef, ...]]) -> bytes:
    """The refs once each (a private key's id and its addresses share one), then each value
    with the places of its refs."""
    places: dict[int, int] = {}  # id(ref) -> its place in ``refs``
    refs: list[tuple[str | None, str | None, str | None]] = []
    rows = []
    for sign_with, holders in signers.items():
        if type(holders) is not tuple:
            raise _NotPlain
        row = []
        for ref in holders:
            place = places.get(id(ref))
            if place is None:
                if type(ref) is not SignerRef:
                    raise _NotPlain
                place = places[id(ref)] = len(refs)
                refs.append((ref.private_key_id, ref.wallet_id, ref.wallet_account_id))
            row.append(place)
        rows.append((sign_with, row))
    return _pack((refs, rows))


def _unpack_signers(blob: bytes, strings: dict[str, str]) -> dict[str, tuple[SignerRef, ...]]:
    """The index, its strings the records' own where they are equal (``strings``: those
    of the records unpacked before it), as the plain pickle kept them shared."""
    plain, rows = marshal.loads(blob)
    get = strings.get
    refs = [
        SignerRef(
            key_id if key_id is None else get(key_id, key_id),
            wallet_id if wallet_id is None else get(wallet_id, wallet_id),
            account_id if account_id is None else get(account_id, account_id),
        )
        for key_id, wallet_id, account_id in plain
    ]
    return {get(sign_with, sign_with): tuple([refs[i] for i in at]) for sign_with, at in rows}


def _private_key_names(org: Organization) -> NameIndex:
    return NameIndex((key.name, key_id) for key_id, key in org.private_keys.items())


def _wallet_names(org: Organization) -> NameIndex:
    return NameIndex((wallet.name, wallet_id) for wallet_id, wallet in org.wallets.items())


# An organization's packed collections, in the order they are unpacked: the field, how it
# is packed and unpacked, and the name index derived from it (saved by no state file
# either: ``state/document.py`` rebuilds it the same way, ``tests/test_engine_costs.py``
# holds it equal to its records through every change), made again from the records.
def _remember_private_keys(keys: dict[str, PrivateKey], strings: dict[str, str]) -> None:
    """A collection pickled the plain way: its strings, for the indexes unpacked after it."""
    for key in keys.values():
        _remember(strings, key.private_key_id)
        for address in key.addresses:
            _remember(strings, getattr(address, "address", None))


def _remember_wallets(wallets: dict[str, Wallet], strings: dict[str, str]) -> None:
    for wallet in wallets.values():
        _remember(strings, wallet.wallet_id)
        for account in wallet.accounts.values():
            _remember(strings, account.wallet_account_id)
            _remember(strings, account.address)


def _remember(strings: dict[str, str], value: Any) -> None:
    if type(value) is str:  # never a subclass in the place of an equal string
        strings[value] = value


class _Collection(NamedTuple):
    name: str  # the organization's field
    pack: Callable[[Any], bytes]
    unpack: Callable[[bytes, dict[str, str]], Any]  # the string and the strings met so far
    derived: str | None  # the name index made from its records
    remember: Callable[[Any, dict[str, str]], None] | None  # when pickled the plain way


# In the order they are unpacked: the records before the index over them.
_PACKED = (
    _Collection(
        "private_keys",
        _pack_private_keys,
        _unpack_private_keys,
        "private_key_names",
        _remember_private_keys,
    ),
    _Collection("wallets", _pack_wallets, _unpack_wallets, "wallet_names", _remember_wallets),
    _Collection("signers", _pack_signers, _unpack_signers, None, None),
)
# The name indexes are saved by no state file either: ``state/document.py`` makes them
# again from the records the same way, and ``tests/test_engine_costs.py`` holds them equal
# to their records through every change.
_DERIVED: dict[str, Callable[[Organization], NameIndex]] = {
    "private_key_names": _private_key_names,
    "wallet_names": _wallet_names,
}
_AT = {name: at for at, name in enumerate(_ORG_FIELDS)}
_org_values = attrgetter(*_ORG_FIELDS)


def _reduce_organization(org: Organization) -> tuple[Any, ...]:
    values = list(_org_values(org))
    packed: list[tuple[int, bytes]] = []
    for place, collection in enumerate(_PACKED):
        value = values[_AT[collection.name]]
        if len(value) < MIN_PACKED:
            continue
        try:
            blob = collection.pack(value)
        except _NotPlain:
            continue  # pickled the plain way, as a value of the organization
        values[_AT[collection.name]] = None
        if collection.derived is not None:
            values[_AT[collection.derived]] = None
        packed.append((place, blob))
    return (_organization, (tuple(values), tuple(packed)))


def _organization(values: tuple[Any, ...], packed: tuple[tuple[int, bytes], ...]) -> Organization:
    org = Organization(*values)
    strings = _strings()
    blobs = dict(packed)
    for place, collection in enumerate(_PACKED):
        blob = blobs.get(place)
        if blob is None:
            if collection.remember is not None:
                collection.remember(getattr(org, collection.name), strings)
            continue
        setattr(org, collection.name, collection.unpack(blob, strings))
        if collection.derived is not None:
            setattr(org, collection.derived, _DERIVED[collection.derived](org))
    return org


# ----- the vault's sealed dicts ----------------------------------------------------------


def _reduce_sealed(sealed: Sealed[Any, Any]) -> tuple[Any, ...]:
    if len(sealed) >= MIN_PACKED:
        try:
            return (_sealed, (_pack(list(sealed.items())),))
        except _NotPlain:
            pass
    return (Sealed, (dict(sealed),))


def _sealed(blob: bytes) -> Sealed[Any, Any]:
    get = _strings().get  # the vault's ids: the records' own strings (unpacked before it)
    return Sealed([(get(k, k) if type(k) is str else k, v) for k, v in marshal.loads(blob)])


_DISPATCH = {Organization: _reduce_organization, Sealed: _reduce_sealed}


def loads(pickled: bytes) -> Any:
    """``pickle.loads(pickled)``, the strings of the records unpacked shared with the
    indexes and the vault unpacked after them (as the plain pickle's memo kept them)."""
    _loading.strings = {}
    try:
        return pickle.loads(pickled)
    finally:
        del _loading.strings


def _strings() -> dict[str, str]:
    """The strings met so far by this thread's ``loads`` (a table of its own outside one)."""
    strings: dict[str, str] | None = getattr(_loading, "strings", None)
    return {} if strings is None else strings


def dumps(value: Any) -> bytes:
    """``pickle.dumps(value)`` with the collections above packed; ``pickle.loads`` reads it."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _DISPATCH  # this pickler's only: copy and pickle elsewhere are plain
    pickler.dump(value)
    return out.getvalue()
