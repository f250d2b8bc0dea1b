"""The snapshot's packed collections come back exactly as the plain pickle brings them.

``emulator/state/packing.py`` writes an organization's private keys, wallets (with their
accounts) and ``signers`` index, and the vault's sealed dicts, as packed strings, and
rebuilds the name indexes from the records. These tests compare a restored store with a
plain ``pickle`` copy of the same store, object for object: the same classes, the same
values, the same order, the same sharing (a key's id and its addresses name one signer ref;
the indexes' and the vault's ids are the records' own strings), for random organizations
and for the values the packing refuses (then that collection is pickled the plain way).
"""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator import Emulator
from emulator.engine_state.vault import WalletSecret
from emulator.ground.models import Address, Organization, PrivateKey
from emulator.ground.redact import Sealed
from emulator.state import packing

ETH = "ADDRESS_FORMAT_ETHEREUM"


def same(a: Any, b: Any, path: str = "store") -> None:
    """``a`` and ``b`` equal object for object: classes, values, order."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, WalletSecret):
        assert a is b, f"{path}: not shared"
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{path}: keys or their order differ"
        for key in a:
            same(a[key], b[key], f"{path}[{key!r}]")
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), f"{path}: lengths differ"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{path}[{i}]")
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def plain_copy(emu: Emulator) -> Any:
    """The store through the plain pickle, its wallet secrets the live ones (a snapshot
    shares them: ``state/snapshot.py``)."""
    store = emu.world.store
    plain = pickle.loads(pickle.dumps(store, protocol=pickle.HIGHEST_PROTOCOL))
    plain.vault.wallets = dict(store.vault.wallets)
    return plain


def restored(emu: Emulator) -> Any:
    emu.restore(emu.snapshot())
    return emu.world.store


def check_sharing(org: Organization, vault_keys: Sealed) -> None:
    """What the plain pickle's memo kept shared is shared after a packed restore."""
    for key_id, key in org.private_keys.items():
        assert key_id is key.private_key_id
        (ref,) = org.signers[key_id]
        for address in key.addresses:
            assert org.signers[address.address][-1] is ref  # one ref for id and addresses
            sign_with = next(v for v in org.signers if v == address.address)
            assert sign_with is address.address
        assert ref.private_key_id is key.private_key_id
        assert next(k for k in vault_keys if k == key_id) is key_id
        assert org.private_key_names[key.name] is key.private_key_id
    for wallet_id, wallet in org.wallets.items():
        assert org.wallet_names[wallet.name] is wallet.wallet_id is wallet_id
        for account_id, account in wallet.accounts.items():
            assert account_id is account.wallet_account_id
            ref = org.signers[account.address][-1]
            assert ref.wallet_id is wallet.wallet_id
            assert ref.wallet_account_id is account.wallet_account_id


def populated(keys: int, wallets: int, accounts: int, seed: int = 5) -> Emulator:
    emu = Emulator(seed=seed)
    emu.create_organization("Packed")
    if keys:
        emu.create_private_keys(
            private_keys=[
                {
                    "privateKeyName": f"key {i}",
                    "curve": "CURVE_SECP256K1" if i % 3 else "CURVE_ED25519",
                    "privateKeyTags": [],
                    "addressFormats": [ETH] if i % 3 else ["ADDRESS_FORMAT_SOLANA"],
                }
                for i in range(keys)
            ]
        )
    for w in range(wallets):
        emu.create_wallet(
            wallet_name=f"wallet {w}",
            accounts=[
                {
                    "curve": "CURVE_SECP256K1",
                    "pathFormat": "PATH_FORMAT_BIP32",
                    "path": f"m/44'/60'/0'/0/{i}",
                    "addressFormat": ETH,
                }
                for i in range(accounts)
            ],
        )
    return emu


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    keys=st.integers(0, 40),
    wallets=st.integers(0, 20),
    accounts=st.integers(0, 4),
    min_packed=st.sampled_from([0, 1, 16, 10_000]),
)
def test_a_packed_restore_is_the_plain_pickle_object_for_object(
    keys: int, wallets: int, accounts: int, min_packed: int
) -> None:
    emu = populated(keys, wallets, accounts)
    plain = plain_copy(emu)
    with mock.patch.object(packing, "MIN_PACKED", min_packed):
        store = restored(emu)
        same(plain, store)
        store = restored(emu)  # from a store restored already: the same again
    same(plain, store)
    (org,) = store.organizations.values()
    check_sharing(org, store.vault.private_keys)
    # The restored emulator works on: its records are live, its indexes current.
    emu.create_private_keys(
        private_keys=[
            {
                "privateKeyName": "after",
                "curve": "CURVE_SECP256K1",
                "privateKeyTags": [],
                "addressFormats": [ETH],
            }
        ]
    )
    assert "after" in org.private_key_names


def test_large_collections_are_packed_and_small_ones_are_not():
    emu = populated(keys=20, wallets=2, accounts=1)
    (org,) = emu.world.store.organizations.values()
    _, (values, packed) = packing._reduce_organization(org)
    names = {packing._PACKED[place].name for place, _ in packed}
    assert names == {"private_keys", "signers"}  # 20 keys, 22 signers; 2 wallets: plain
    at = {f.name: i for i, f in enumerate(dataclasses.fields(Organization))}
    assert values[at["private_keys"]] is None and values[at["private_key_names"]] is None
    assert values[at["wallets"]] is org.wallets and values[at["wallet_names"]] is not None
    with mock.patch.object(packing, "MIN_PACKED", 0):
        _, (_, packed) = packing._reduce_organization(org)
    assert {packing._PACKED[place].name for place, _ in packed} == {
        "private_keys",
        "wallets",
        "signers",
    }


class Name(str):
    """A value marshal refuses (an ``str`` subclass): its collection goes the plain way."""


class Tags(list):
    pass


@pytest.mark.parametrize(
    "spoil",
    [
        lambda org: setattr(next(iter(org.private_keys.values())), "name", Name("odd")),
        lambda org: setattr(next(iter(org.private_keys.values())), "tag_ids", Tags(["t"])),
        lambda org: next(iter(org.private_keys.values())).addresses.append(("not", "one")),
        lambda org: org.private_keys.__setitem__(
            "another id", next(iter(org.private_keys.values()))
        ),
        lambda org: setattr(
            next(iter(next(iter(org.wallets.values())).accounts.values())), "name", Name("x")
        ),
        lambda org: org.signers.__setitem__("odd", [*next(iter(org.signers.values()))]),
        lambda org: setattr(next(iter(org.private_keys.values())), "curve", None),
        lambda org: setattr(
            next(iter(next(iter(org.wallets.values())).accounts.values())), "path_format", None
        ),
        lambda org: org.signers.__setitem__("odd", (("k", None, None),)),
    ],
    ids=[
        "str-subclass",
        "list-subclass",
        "not-an-address",
        "key-not-its-id",
        "account-str-subclass",
        "signers-list",
        "curve-not-a-string",
        "path-format-not-a-string",
        "signers-not-a-ref",
    ],
)
def test_what_the_packing_refuses_is_pickled_the_plain_way(spoil):
    emu = populated(keys=3, wallets=1, accounts=3)
    (org,) = emu.world.store.organizations.values()
    spoil(org)
    plain = plain_copy(emu)
    with mock.patch.object(packing, "MIN_PACKED", 0):
        _, (_, packed) = packing._reduce_organization(org)
        assert len(packed) == 2  # the other two collections are still packed
        store = restored(emu)
    same(plain, store)


def test_sealed_dicts_keep_their_class_keys_and_order():
    secrets = Sealed({("org", "user", "wallet"): b"\x01" * 32, "id": b"\x02" * 32})
    with mock.patch.object(packing, "MIN_PACKED", 0):
        back = pickle.loads(packing.dumps(secrets))
    same(secrets, back)
    assert repr(back) == "<2 hidden>"
    odd = Sealed({Name("id"): b"\x03"})  # refused by marshal: plain
    with mock.patch.object(packing, "MIN_PACKED", 0):
        same(odd, pickle.loads(packing.dumps(odd)))


def test_a_snapshot_reads_back_without_packing_loads_and_from_another_thread():
    import threading

    emu = populated(keys=20, wallets=1, accounts=1)
    plain = plain_copy(emu)
    saved = emu.snapshot()
    bare = pickle.loads(saved.pickled)  # what ``Snapshot.store`` does, but the plain ``loads``
    bare.vault.wallets = dict(saved.wallet_secrets)
    same(plain, bare)
    got: list[Any] = []
    thread = threading.Thread(target=lambda: got.append(saved.store))
    thread.start()
    thread.join()
    same(plain, got[0])


def test_private_key_records_are_what_the_packing_expects():
    """The packing names fields by the models' own field lists; a new field of a record
    comes along, and a record of another class is refused (checked above)."""
    key = PrivateKey("id", "n", "CURVE_SECP256K1", "02ab", [Address(ETH, "0x1")], [], 1, 2)
    blob = packing._pack_private_keys({"id": key})
    (back,) = packing._unpack_private_keys(blob, {}).values()
    same(key, back)
