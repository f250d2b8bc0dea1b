"""The state document's indexes (``state/document.py``): not saved, rebuilt from the records on
load (API keys by public key, activities by id and fingerprint, each organization's signers
and name indexes), the holders of one value ordered by creation time. Where the live order
differs from that (two holders made in the same nanosecond on a frozen clock), the document's
``indexOrder`` keeps it: ``order_hints`` finds those entries when saving, ``rebuild`` puts
them back when loading."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..engine_state.store import KeyOwner, Store
from ..ground.models import NameIndex, Organization, SignerRef
from .records import DocumentError, json_list, json_object, record

Json = dict[str, Any]
SIGNER_REF = record(SignerRef)


def signers_of(org: Organization) -> dict[str, tuple[SignerRef, ...]]:
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


def key_owners_of(store: Store) -> dict[str, tuple[KeyOwner, ...]]:
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


def order_hints(where: str, live: dict, rebuilt: dict, what: str) -> dict[str, tuple]:
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


def rebuild(store: Store, order: Json, exact: bool = True) -> None:
    key_order = json_object(order.get("apiKeyOwners", {}), "indexOrder.apiKeyOwners")
    signer_order = json_object(order.get("signers", {}), "indexOrder.signers")
    owners = key_owners_of(store)
    for key, listed in key_order.items():
        where = f"indexOrder.apiKeyOwners[{key!r}]"
        try:
            wanted = tuple(KeyOwner(*entry) for entry in json_list(listed, where))
        except TypeError:
            raise DocumentError(
                f"{where}: entries are [organizationId, userId, apiKeyId]"
            ) from None
        owners[key] = _reordered(owners.get(key, ()), wanted, where, exact)
    store.api_keys_by_public_key = owners
    for org in store.organizations.values():
        org.signers = signers_of(org)
        org.wallet_names = NameIndex((w.name, i) for i, w in org.wallets.items())
        org.private_key_names = NameIndex((k.name, i) for i, k in org.private_keys.items())
        for activity in org.activities.values():
            store.activities_by_id[activity.activity_id] = activity
            store.activities_by_fingerprint[activity.fingerprint] = activity
    for org_id, values in signer_order.items():
        org = store.organizations.get(org_id)
        if org is None:
            if not exact:
                continue
            raise DocumentError(f"indexOrder.signers: no organization {org_id!r}")
        for value, listed in json_object(values, f"indexOrder.signers[{org_id!r}]").items():
            where = f"indexOrder.signers[{org_id!r}][{value!r}]"
            wanted = tuple(
                SIGNER_REF.decode(ref, f"{where}[{i}]")
                for i, ref in enumerate(json_list(listed, where))
            )
            org.signers[value] = _reordered(org.signers.get(value, ()), wanted, where, exact)


def _reordered(rebuilt: tuple, wanted: tuple, where: str, exact: bool = True) -> tuple:
    if Counter(rebuilt) != Counter(wanted):
        if not exact:
            return rebuilt
        raise DocumentError(f"{where}: not an order of what the records hold there")
    return wanted
