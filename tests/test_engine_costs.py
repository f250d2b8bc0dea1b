"""Flat costs in the engine: name indexes, pickled snapshots, no cyclic garbage per request.

These check behaviour, never time: the indexes answer as the scans did, through every
way the state changes (create, rename, delete, rollback, restore, load), and a request
leaves no garbage that only the cyclic collector could free.
"""

from __future__ import annotations

import gc

import pytest

from emulator import Emulator, TurnkeyApiError
from emulator.accounts import account_spec
from emulator.ground.gc_tuning import paused

ETH = account_spec("ADDRESS_FORMAT_ETHEREUM")


def key_spec(name: str) -> dict:
    return {
        "privateKeyName": name,
        "curve": "CURVE_SECP256K1",
        "privateKeyTags": [],
        "addressFormats": [],
    }


def taken(call) -> bool:
    try:
        call()
    except TurnkeyApiError as error:
        assert "must be unique" in str(error.body()["details"])
        return True
    return False


def names_index_agrees(emu: Emulator) -> None:
    for org in emu.world.store.organizations.values():
        assert dict(org.wallet_names) == {w.name: i for i, w in org.wallets.items()}
        assert dict(org.private_key_names) == {k.name: i for i, k in org.private_keys.items()}


def test_wallet_and_key_names_stay_unique_through_every_change():
    emu = Emulator(seed=2)
    emu.create_organization("Acme")
    first = emu.create_wallet(wallet_name="a", accounts=[])["walletId"]
    assert taken(lambda: emu.create_wallet(wallet_name="a", accounts=[]))
    emu.update_wallet(wallet_id=first, wallet_name="b")
    assert not taken(lambda: emu.create_wallet(wallet_name="a", accounts=[]))
    assert taken(lambda: emu.update_wallet(wallet_id=first, wallet_name="a"))
    emu.update_wallet(wallet_id=first, wallet_name="b")  # its own name again: fine
    emu.delete_wallets(wallet_ids=[first], delete_without_export=True)
    assert not taken(lambda: emu.create_wallet(wallet_name="b", accounts=[ETH]))
    (key,) = emu.create_private_keys(private_keys=[key_spec("k")])["privateKeys"]
    assert taken(lambda: emu.create_private_keys(private_keys=[key_spec("k")]))
    emu.delete_private_keys(private_key_ids=[key["privateKeyId"]], delete_without_export=True)
    assert not taken(lambda: emu.create_private_keys(private_keys=[key_spec("k")]))
    names_index_agrees(emu)

    checkpoint = emu.checkpoint()
    emu.create_wallet(wallet_name="undone", accounts=[])
    emu.rollback(checkpoint)
    assert not taken(lambda: emu.create_wallet(wallet_name="undone", accounts=[]))
    saved = emu.snapshot()
    emu.create_wallet(wallet_name="after", accounts=[])
    emu.restore(saved)
    assert not taken(lambda: emu.create_wallet(wallet_name="after", accounts=[]))
    names_index_agrees(emu)

    loaded = Emulator.from_document(emu.to_document())
    names_index_agrees(loaded)
    assert taken(lambda: loaded.create_wallet(wallet_name="after", accounts=[]))
    assert taken(lambda: loaded.create_private_keys(private_keys=[key_spec("k")]))


def test_a_snapshot_is_independent_and_restores_any_number_of_times():
    emu = Emulator(seed=3)
    emu.create_organization("Acme")
    wallet = emu.create_wallet(wallet_name="w", accounts=[ETH])
    saved = emu.snapshot()
    assert repr(saved) == "Snapshot(organizations=1)"
    emu.delete_wallets(wallet_ids=[wallet["walletId"]], delete_without_export=True)
    for _ in range(2):
        emu.restore(saved)
        signed = emu.sign_raw_payload(
            sign_with=wallet["addresses"][0],
            payload="00" * 32,
            encoding="PAYLOAD_ENCODING_HEXADECIMAL",
            hash_function="HASH_FUNCTION_NO_OP",
        )
        assert set(signed) >= {"r", "s", "v"}
    restored = emu.world.store
    emu.restore(saved)
    assert emu.world.store is not restored  # a fresh copy each time
    # the wallet secret is shared, not copied: it never changes once made
    (wallet_id,) = emu.world.store.vault.wallets
    assert emu.world.store.vault.wallets[wallet_id] is restored.vault.wallets[wallet_id]


def test_a_request_leaves_no_cyclic_garbage():
    emu = Emulator(seed=4)
    emu.create_organization("Acme")
    address = emu.create_wallet(wallet_name="w", accounts=[ETH])["addresses"][0]

    def requests(n: int) -> None:
        for i in range(n):
            emu.sign_raw_payload(
                sign_with=address,
                payload=f"{i:064x}",
                encoding="PAYLOAD_ENCODING_HEXADECIMAL",
                hash_function="HASH_FUNCTION_NO_OP",
            )
            emu.create_users(
                users=[
                    {
                        "userName": f"u{i}",
                        "userTags": [],
                        "apiKeys": [],
                        "authenticators": [],
                        "oauthProviders": [],
                    }
                ]
            )
            emu.get_whoami()
            with pytest.raises(TurnkeyApiError):
                emu.create_wallet(wallet_name="w", accounts=[])

    requests(2)  # warm caches up
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        requests(5)
        gc.collect()
        garbage = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert garbage == []


def test_paused_turns_collection_off_inside_only():
    assert gc.isenabled()
    with paused():
        assert not gc.isenabled()
    assert gc.isenabled()
