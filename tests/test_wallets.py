"""HD wallets and their accounts, through the facade and the wire.

Also the properties that span wallets and private keys: a seed gives the same
ids and key material, secrets never leave the vault, and the test-only
backdoor leaves no trace in the API.
"""

from __future__ import annotations

import json
import logging

import coincurve
import pytest

from emulator import Emulator, Settings, TurnkeyApiError
from emulator.accounts import DEFAULT_PATHS, account_spec
from emulator.crypto import hd
from emulator.crypto.addresses import ADDRESS_FORMATS
from emulator.ground import messages

from .helpers import NIL_UUID, activity_body, error_of, fails, state_digest, violations

ETH, SOL = "ADDRESS_FORMAT_ETHEREUM", "ADDRESS_FORMAT_SOLANA"
SECP256K1, ED25519, P256 = "CURVE_SECP256K1", "CURVE_ED25519", "CURVE_P256"
CURVES = (SECP256K1, ED25519, P256)
COMPLETED = "ACTIVITY_STATUS_COMPLETED"
ABANDON = "abandon " * 11 + "about"  # the BIP39 all-zero-entropy phrase
ABANDON_ETH = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"  # its m/44'/60'/0'/0/0 address
DIGEST = "ab" * 32


@pytest.fixture
def emu(turnkey_emulator, turnkey_org):
    return turnkey_emulator


def spec(address_format: str, index: int = 0, **overrides):
    return {**account_spec(address_format, index), **overrides}


def sign(emu, sign_with: str, hash_function: str = "HASH_FUNCTION_NO_OP"):
    return emu.sign_raw_payload(
        sign_with=sign_with,
        payload=DIGEST,
        encoding="PAYLOAD_ENCODING_HEXADECIMAL",
        hash_function=hash_function,
    )


def assert_cannot_sign(emu, sign_with: str) -> None:
    error = fails(emu, sign, emu, sign_with)
    assert error_of(error) == (404, 5, messages.NO_SIGNING_RESOURCE, "")


def accounts_of(emu, wallet_id: str | None = None, **options):
    body = {"walletId": wallet_id} if wallet_id else {}
    options.setdefault("pagination_options", {"limit": "100"})
    return emu.list_wallet_accounts(**body, **options)["accounts"]


def org_record(emu):
    (org,) = emu.world.store.organizations.values()
    return org


# --- create_wallet ------------------------------------------------------------------


def test_create_wallet_defaults_to_twelve_words_and_no_accounts(emu, turnkey_org):
    made = emu.create_wallet(wallet_name="main", accounts=[])
    wallet_id = made["walletId"]
    assert made["addresses"] == []
    activity = made["activity"]
    assert (activity["status"], activity["type"]) == (COMPLETED, "ACTIVITY_TYPE_CREATE_WALLET")
    assert activity["intent"] == {"createWalletIntent": {"walletName": "main", "accounts": []}}
    assert activity["result"]["createWalletResult"] == {"walletId": wallet_id, "addresses": []}
    mnemonic = emu.backdoor.mnemonic(wallet_id)
    assert len(mnemonic.split()) == 12 and hd.is_valid_mnemonic(mnemonic)
    wallet = emu.get_wallet(wallet_id=wallet_id)["wallet"]
    assert wallet == {
        "walletId": wallet_id,
        "walletName": "main",
        "createdAt": wallet["createdAt"],
        "updatedAt": wallet["createdAt"],
        "exported": False,
        "imported": False,
    }
    assert accounts_of(emu, wallet_id) == []


@pytest.mark.parametrize("words", [12, 15, 18, 21, 24])
def test_every_mnemonic_length(emu, words):
    made = emu.create_wallet(walletName="w", accounts=[], mnemonicLength=words)
    assert made["activity"]["intent"]["createWalletIntent"]["mnemonicLength"] == words
    mnemonic = emu.backdoor.mnemonic(made["walletId"])
    assert len(mnemonic.split()) == words and hd.is_valid_mnemonic(mnemonic)


@pytest.mark.parametrize("words", [13, 11, 25, 48, -12])
def test_invalid_mnemonic_length(emu, words):
    error = fails(emu, emu.create_wallet, wallet_name="w", accounts=[], mnemonic_length=words)
    assert error_of(error) == (400, 3, messages.invalid_mnemonic_length(words), "")
    assert error.message == (
        f"invalid mnemonic length: {words}; accepted values are 12, 15, 18, 21 and 24"
    )


def test_many_formats_at_once_answer_addresses_in_request_order(emu):
    formats = list(DEFAULT_PATHS)
    specs = [account_spec(f) for f in formats]
    made = emu.create_wallet(wallet_name="everything", accounts=specs)
    assert len(made["addresses"]) == len(formats) == 33
    listed = accounts_of(emu, made["walletId"])
    assert [(a["addressFormat"], a["curve"], a["path"]) for a in listed] == [
        (f, DEFAULT_PATHS[f][0], DEFAULT_PATHS[f][1].format(i=0)) for f in formats
    ]
    assert [a["address"] for a in listed] == made["addresses"]
    # the same accounts asked in the reverse order answer the same addresses reversed
    mnemonic = emu.backdoor.mnemonic(made["walletId"])
    copy = emu.backdoor.import_wallet(mnemonic, name="copy", accounts=specs[::-1])
    assert copy["addresses"] == made["addresses"][::-1]
    assert made["addresses"][formats.index(ETH)].startswith("0x")


def test_known_mnemonic_gives_the_published_addresses(emu):
    made = emu.backdoor.import_wallet(ABANDON, accounts=[account_spec(ETH), account_spec(SOL)])
    assert made["addresses"] == [ABANDON_ETH, "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk"]


MISFITS = [
    (f, curve) for f, fmt in ADDRESS_FORMATS.items() for curve in CURVES if curve not in fmt.curves
]


@pytest.mark.parametrize(("address_format", "curve"), MISFITS)
def test_address_format_on_a_curve_that_does_not_fit(emu, address_format, curve):
    account = {
        "curve": curve,
        "pathFormat": "PATH_FORMAT_BIP32",
        "path": "m/44'/0'/0'",  # hardened only, so that every curve can take it
        "addressFormat": address_format,
    }
    error = fails(emu, emu.create_wallet, wallet_name="w", accounts=[account])
    assert error_of(error) == (
        400,
        3,
        messages.invalid_address_format(address_format, curve),
        "REQUEST_INVALID",
    )
    assert error.message == f"invalid address format: {address_format} is not available on {curve}"


def test_misfits_cover_the_table():
    assert len(MISFITS) == 38 * 3 - sum(len(f.curves) for f in ADDRESS_FORMATS.values()) == 73
    assert (ETH, ED25519) in MISFITS and (SOL, SECP256K1) in MISFITS


def test_solana_on_secp256k1_at_its_default_path(emu):
    error = fails(emu, emu.create_wallet, wallet_name="w", accounts=[spec(SOL, curve=SECP256K1)])
    assert error.message == messages.invalid_address_format(SOL, SECP256K1)


def test_ethereum_on_ed25519_at_its_default_path_is_an_address_format_error(emu):
    error = fails(emu, emu.create_wallet, wallet_name="w", accounts=[spec(ETH, curve=ED25519)])
    assert error_of(error) == (
        400,
        3,
        messages.invalid_address_format(ETH, ED25519),
        "REQUEST_INVALID",
    )


def test_ed25519_paths_must_be_hardened(emu):
    path = "m/44'/501'/0'/0"
    error = fails(emu, emu.create_wallet, wallet_name="w", accounts=[spec(SOL, path=path)])
    assert (error.status, error.code, error.turnkey_error_code) == (400, 3, "REQUEST_INVALID")
    assert error.message.startswith("invalid path: ") and error.message.endswith(f" path={path}")


@pytest.mark.parametrize(
    "path", ["44'/60'", "m/abc", "m/2147483648", "m/2147483648'", "m/44'/-1", "M/44'", "m/1/"]
)
def test_malformed_paths(emu, path):
    error = fails(emu, emu.create_wallet, wallet_name="w", accounts=[spec(ETH, path=path)])
    assert (error.status, error.code, error.turnkey_error_code) == (400, 3, "REQUEST_INVALID")
    assert error.message.startswith("invalid path: ") and error.message.endswith(f" path={path}")


def test_the_same_curve_path_and_format_twice_is_refused(emu):
    twice = [account_spec(ETH), account_spec(ETH)]
    error = fails(emu, emu.create_wallet, wallet_name="w", accounts=twice)
    assert (error.status, error.code, error.turnkey_error_code) == (400, 3, "REQUEST_INVALID")
    assert error.message.startswith("invalid path") and "m/44'/60'/0'/0/0" in error.message


def test_the_same_path_with_another_format_or_curve_is_fine(emu):
    path = "m/84'/0'/0'/0/0"  # as the official with-bitcoin example: one path, several formats
    compressed = {"addressFormat": "ADDRESS_FORMAT_COMPRESSED"}
    made = emu.create_wallet(
        wallet_name="btc",
        accounts=[
            spec("ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH", path=path),
            spec("ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR", path=path),
            spec("ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH", path=path, curve=SECP256K1, **compressed),
            spec("ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH", path=path, curve=P256, **compressed),
        ],
    )
    p2wpkh, p2tr, secp_key, p256_key = made["addresses"]
    assert p2wpkh.startswith("bc1q") and p2tr.startswith("bc1p")
    assert secp_key != p256_key and len(secp_key) == len(p256_key) == 66
    listed = accounts_of(emu, made["walletId"])
    assert {a["publicKey"] for a in listed[:3]} == {secp_key}


def test_a_path_already_in_the_wallet_is_refused_in_any_spelling(emu):
    wallet_id = emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH)])["walletId"]
    for path in ("m/44'/60'/0'/0/0", "m/44h/60h/0h/0/0"):
        error = fails(
            emu,
            emu.create_wallet_accounts,
            wallet_id=wallet_id,
            accounts=[spec(ETH, path=path)],
        )
        assert (error.status, error.turnkey_error_code) == (400, "REQUEST_INVALID")
        assert error.message.startswith("invalid path") and error.message.endswith(path)


def test_wallet_names_are_unique(emu):
    emu.create_wallet(wallet_name="main", accounts=[])
    error = fails(emu, emu.create_wallet, wallet_name="main", accounts=[])
    assert error_of(error) == (
        400,
        3,
        "invalid request (fieldViolations: walletName)",
        "REQUEST_INVALID",
    )
    assert violations(error) == [
        {"field": "walletName", "description": "This field must be unique."}
    ]


def test_wallet_limit():
    emu = Emulator(settings=Settings(max_wallets_per_organization=2))
    emu.create_organization()
    first = emu.create_wallet(wallet_name="a", accounts=[])["walletId"]
    emu.create_wallet(wallet_name="b", accounts=[])
    error = fails(emu, emu.create_wallet, wallet_name="c", accounts=[])
    assert error_of(error) == (
        429,
        8,
        "organization has exceeded maximum wallets",
        "RATE_LIMIT_EXCEEDED",
    )
    with pytest.raises(TurnkeyApiError) as caught:
        emu.backdoor.import_wallet(ABANDON, name="c")
    assert caught.value.status == 429
    emu.delete_wallets(wallet_ids=[first], delete_without_export=True)
    assert emu.create_wallet(wallet_name="c", accounts=[])["walletId"]


def test_accounts_of_one_seed_are_the_same_in_any_wallet_of_it(emu):
    specs = [account_spec(ETH), account_spec(SOL), account_spec("ADDRESS_FORMAT_COSMOS")]
    first = emu.create_wallet(wallet_name="first", accounts=specs)
    mnemonic = emu.backdoor.mnemonic(first["walletId"])
    copy = emu.backdoor.import_wallet(mnemonic, name="copy")
    assert copy["addresses"] == []
    later = emu.create_wallet_accounts(wallet_id=copy["walletId"], accounts=specs)
    assert later["addresses"] == first["addresses"]
    keys = [[a["publicKey"] for a in accounts_of(emu, w["walletId"])] for w in (first, copy)]
    assert keys[0] == keys[1]
    # and another index is another key of the same seed
    again = emu.create_wallet_accounts(wallet_id=copy["walletId"], accounts=[account_spec(ETH, 1)])
    (index_one,) = again["addresses"]
    assert index_one not in first["addresses"]
    private = bytes.fromhex(emu.backdoor.private_key(index_one))
    node = hd.Keychain(hd.mnemonic_to_seed(mnemonic)).derive(
        SECP256K1, hd.parse_path("m/44'/60'/1'/0/0")
    )
    assert private == node.private_key
    assert coincurve.PrivateKey(private).public_key.format().hex() == node.public_key.hex()


def test_create_wallet_accounts_without_persist_stores_nothing(emu):
    made = emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH)])
    wallet_id = made["walletId"]
    wallet_before = emu.get_wallet(wallet_id=wallet_id)["wallet"]
    emu.clock.advance(5)
    answer = emu.create_wallet_accounts(
        wallet_id=wallet_id, accounts=[account_spec(ETH, 1), account_spec(SOL)], persist=False
    )
    assert answer["activity"]["result"]["createWalletAccountsResult"] == {
        "addresses": answer["addresses"]
    }
    assert len(answer["addresses"]) == 2
    assert [a["address"] for a in accounts_of(emu, wallet_id)] == made["addresses"]
    assert emu.get_wallet(wallet_id=wallet_id)["wallet"] == wallet_before
    for address in answer["addresses"]:
        assert_cannot_sign(emu, address)
    # persisted, the same accounts answer the same addresses and are stored
    stored = emu.create_wallet_accounts(
        wallet_id=wallet_id, accounts=[account_spec(ETH, 1), account_spec(SOL)]
    )
    assert stored["addresses"] == answer["addresses"]
    listed = accounts_of(emu, wallet_id)
    assert [a["address"] for a in listed] == made["addresses"] + answer["addresses"]
    after = emu.get_wallet(wallet_id=wallet_id)["wallet"]
    assert int(after["updatedAt"]["seconds"]) >= int(wallet_before["updatedAt"]["seconds"]) + 5
    assert sign(emu, answer["addresses"][0])["r"]


def test_create_wallet_accounts_in_an_unknown_wallet(emu, turnkey_org):
    error = fails(emu, emu.create_wallet_accounts, wallet_id=NIL_UUID, accounts=[account_spec(ETH)])
    assert error_of(error) == (
        404,
        5,
        f"unable to find wallet {NIL_UUID} in organization {turnkey_org.organization_id}",
        "",
    )


def test_create_wallet_accounts_is_all_or_nothing(emu):
    wallet_id = emu.create_wallet(wallet_name="w", accounts=[])["walletId"]
    bad = spec(SOL, path="m/44'/501'/0'/0")
    fails(emu, emu.create_wallet_accounts, wallet_id=wallet_id, accounts=[account_spec(ETH), bad])
    assert accounts_of(emu, wallet_id) == []


# --- update_wallet ------------------------------------------------------------------


def test_update_wallet_renames(emu):
    wallet_id = emu.create_wallet(wallet_name="old", accounts=[])["walletId"]
    created = emu.get_wallet(wallet_id=wallet_id)["wallet"]
    emu.clock.advance(3)
    result = emu.update_wallet(wallet_id=wallet_id, wallet_name="new")
    assert result["walletId"] == wallet_id
    assert result["activity"]["intent"] == {
        "updateWalletIntent": {"walletId": wallet_id, "walletName": "new"}
    }
    assert result["activity"]["result"]["updateWalletResult"] == {"walletId": wallet_id}
    wallet = emu.get_wallet(wallet_id=wallet_id)["wallet"]
    assert wallet["walletName"] == "new" and wallet["createdAt"] == created["createdAt"]
    assert int(wallet["updatedAt"]["seconds"]) >= int(created["updatedAt"]["seconds"]) + 3
    emu.update_wallet(wallet_id=wallet_id, wallet_name="new")  # its own name is no clash


def test_update_wallet_to_a_taken_name(emu):
    emu.create_wallet(wallet_name="taken", accounts=[])
    wallet_id = emu.create_wallet(wallet_name="mine", accounts=[])["walletId"]
    error = fails(emu, emu.update_wallet, wallet_id=wallet_id, wallet_name="taken")
    assert error_of(error) == (
        400,
        3,
        "invalid request (fieldViolations: walletName)",
        "REQUEST_INVALID",
    )
    assert violations(error) == [
        {"field": "walletName", "description": "This field must be unique."}
    ]


def test_update_unknown_wallet(emu, turnkey_org):
    error = fails(emu, emu.update_wallet, wallet_id=NIL_UUID, wallet_name="x")
    assert error_of(error) == (
        404,
        5,
        messages.wallet_not_found(NIL_UUID, turnkey_org.organization_id),
        "",
    )
    assert error.message.startswith(f"unable to find wallet {NIL_UUID}")


# --- delete_wallets -----------------------------------------------------------------


def test_delete_wallets_needs_an_export_first(emu):
    kept = emu.create_wallet(wallet_name="kept", accounts=[account_spec(ETH)])
    other = emu.create_wallet(wallet_name="other", accounts=[])["walletId"]
    org_record(emu).wallets[other].exported = True
    error = fails(emu, emu.delete_wallets, wallet_ids=[other, kept["walletId"]])
    assert error_of(error) == (
        400,
        3,
        f"wallet has not been exported: set deleteWithoutExport to delete it anyway "
        f"id={kept['walletId']}",
        "",
    )
    assert error.message == messages.not_exported(messages.WALLET_NOT_EXPORTED, kept["walletId"])
    assert [w["walletId"] for w in emu.list_wallets()["wallets"]] == [kept["walletId"], other]
    assert sign(emu, kept["addresses"][0])["r"]


def test_delete_without_export(emu, turnkey_org):
    made = emu.create_wallet(wallet_name="doomed", accounts=[account_spec(ETH), account_spec(SOL)])
    wallet_id = made["walletId"]
    result = emu.delete_wallets(wallet_ids=[wallet_id, wallet_id], deleteWithoutExport=True)
    assert result["walletIds"] == [wallet_id]
    assert result["activity"]["result"]["deleteWalletsResult"] == {"walletIds": [wallet_id]}
    assert emu.list_wallets()["wallets"] == []
    assert accounts_of(emu) == []
    error = fails(emu, emu.get_wallet, wallet_id=wallet_id)
    assert error_of(error) == (
        404,
        5,
        messages.wallet_not_found(wallet_id, turnkey_org.organization_id),
        "",
    )
    assert wallet_id not in emu.world.store.vault.wallets
    with pytest.raises(KeyError):
        emu.backdoor.mnemonic(wallet_id)
    for address in made["addresses"]:
        assert_cannot_sign(emu, address)
    # the name is free again
    emu.create_wallet(wallet_name="doomed", accounts=[])


def test_an_exported_wallet_deletes_without_the_flag(emu):
    wallet_id = emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH)])["walletId"]
    org_record(emu).wallets[wallet_id].exported = True
    assert emu.get_wallet(wallet_id=wallet_id)["wallet"]["exported"] is True
    assert emu.delete_wallets(wallet_ids=[wallet_id])["walletIds"] == [wallet_id]
    assert emu.list_wallets()["wallets"] == []


def test_delete_unknown_wallet(emu, turnkey_org):
    wallet_id = emu.create_wallet(wallet_name="w", accounts=[])["walletId"]
    error = fails(
        emu, emu.delete_wallets, wallet_ids=[wallet_id, NIL_UUID], delete_without_export=True
    )
    assert error_of(error) == (
        404,
        5,
        messages.wallet_not_found(NIL_UUID, turnkey_org.organization_id),
        "",
    )


# --- delete_wallet_accounts ---------------------------------------------------------


def test_delete_wallet_accounts_needs_an_export_first(emu):
    made = emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH), account_spec(SOL)])
    eth, sol = accounts_of(emu, made["walletId"])
    error = fails(emu, emu.delete_wallet_accounts, wallet_account_ids=[eth["walletAccountId"]])
    assert error_of(error) == (
        400,
        3,
        f"wallet account has not been exported: set deleteWithoutExport to delete it anyway "
        f"id={eth['walletAccountId']}",
        "WALLET_ACCOUNT_NOT_EXPORTED",
    )
    emu.clock.advance(2)
    result = emu.delete_wallet_accounts(
        walletAccountIds=[eth["walletAccountId"]], deleteWithoutExport=True
    )
    assert result["walletAccountIds"] == [eth["walletAccountId"]]
    assert result["activity"]["result"]["deleteWalletAccountsResult"] == {
        "walletAccountIds": [eth["walletAccountId"]]
    }
    assert accounts_of(emu, made["walletId"]) == [sol]
    assert_cannot_sign(emu, eth["address"])
    assert sign(emu, sol["address"], hash_function="HASH_FUNCTION_NOT_APPLICABLE")["r"]
    wallet = emu.get_wallet(wallet_id=made["walletId"])["wallet"]
    assert int(wallet["updatedAt"]["seconds"]) >= int(wallet["createdAt"]["seconds"]) + 2


def test_accounts_of_an_exported_wallet_or_exported_accounts_delete_without_the_flag(emu):
    exported = emu.create_wallet(wallet_name="e", accounts=[account_spec(ETH)])["walletId"]
    plain = emu.create_wallet(wallet_name="p", accounts=[account_spec(ETH)])["walletId"]
    org = org_record(emu)
    org.wallets[exported].exported = True
    (account,) = accounts_of(emu, exported)
    assert emu.delete_wallet_accounts(wallet_account_ids=[account["walletAccountId"]])
    (other,) = accounts_of(emu, plain)
    org.wallets[plain].accounts[other["walletAccountId"]].exported = True
    assert emu.delete_wallet_accounts(wallet_account_ids=[other["walletAccountId"]])
    assert accounts_of(emu) == []


def test_delete_unknown_or_foreign_wallet_account(emu):
    error = fails(
        emu, emu.delete_wallet_accounts, wallet_account_ids=[NIL_UUID], delete_without_export=True
    )
    assert error_of(error) == (
        400,
        3,
        f"wallet account not part of your organization walletAccountId={NIL_UUID}",
        "",
    )
    other = emu.create_organization("Other")
    emu.create_wallet(
        wallet_name="theirs", accounts=[account_spec(ETH)], organization_id=other.organization_id
    )
    (theirs,) = emu.list_wallet_accounts(organization_id=other.organization_id)["accounts"]
    error = fails(
        emu,
        emu.delete_wallet_accounts,
        wallet_account_ids=[theirs["walletAccountId"]],
        delete_without_export=True,
    )
    assert error.status == 400 and error.message.startswith(
        "wallet account not part of your organization"
    )


# --- queries ------------------------------------------------------------------------


def test_get_wallet_and_list_wallets(emu, turnkey_org):
    first = emu.create_wallet(wallet_name="first", accounts=[])["walletId"]
    second = emu.backdoor.import_wallet(ABANDON, name="second")["walletId"]
    answer = emu.get_wallet(wallet_id=second)
    assert answer["wallet"]["imported"] is True and answer["wallet"]["walletName"] == "second"
    envelope = answer["activity"]
    assert (envelope["type"], envelope["status"], envelope["result"]) == (
        "ACTIVITY_TYPE_UNKNOWN_V1",
        COMPLETED,
        {"wallet": answer["wallet"]},
    )
    listed = emu.list_wallets()["wallets"]
    assert listed == emu.get_wallets()["wallets"]
    assert listed == [emu.get_wallet(wallet_id=w)["wallet"] for w in (first, second)]
    assert [(w["walletName"], w["imported"], w["exported"]) for w in listed] == [
        ("first", False, False),
        ("second", True, False),
    ]
    error = fails(emu, emu.get_wallet, wallet_id=NIL_UUID)
    assert error.message == messages.wallet_not_found(NIL_UUID, turnkey_org.organization_id)


def test_wallet_account_shape(emu, turnkey_org):
    made = emu.create_wallet(wallet_name="w", accounts=[spec(ETH, name="main eth"), spec(SOL)])
    eth, sol = accounts_of(emu, made["walletId"])
    assert eth == {
        "walletAccountId": eth["walletAccountId"],
        "organizationId": turnkey_org.organization_id,
        "walletId": made["walletId"],
        "curve": SECP256K1,
        "pathFormat": "PATH_FORMAT_BIP32",
        "path": "m/44'/60'/0'/0/0",
        "addressFormat": ETH,
        "address": made["addresses"][0],
        "createdAt": eth["createdAt"],
        "updatedAt": eth["createdAt"],
        "publicKey": eth["publicKey"],
        "name": "main eth",
        "caip2Prefix": "eip155",
    }
    assert len(eth["publicKey"]) == 66 and eth["publicKey"][:2] in ("02", "03")
    assert "name" not in sol and sol["caip2Prefix"] == "solana" and len(sol["publicKey"]) == 64
    assert emu.get_wallet_accounts(wallet_id=made["walletId"])["accounts"] == [eth, sol]


def test_list_wallet_accounts_of_all_wallets_or_one(emu):
    a = emu.create_wallet(wallet_name="a", accounts=[account_spec(ETH, i) for i in range(3)])
    b = emu.create_wallet(wallet_name="b", accounts=[account_spec(SOL)])
    everything = emu.list_wallet_accounts()["accounts"]
    assert [x["address"] for x in everything] == a["addresses"] + b["addresses"]
    assert [x["walletId"] for x in everything] == [a["walletId"]] * 3 + [b["walletId"]]
    only_b = emu.list_wallet_accounts(wallet_id=b["walletId"])["accounts"]
    assert only_b == everything[3:]
    assert all("walletDetails" not in x for x in everything)
    detailed = emu.list_wallet_accounts(include_wallet_details=True)["accounts"]
    wallets = {w: emu.get_wallet(wallet_id=w)["wallet"] for w in (a["walletId"], b["walletId"])}
    assert [x["walletDetails"] for x in detailed] == [wallets[x["walletId"]] for x in everything]
    assert [{k: v for k, v in x.items() if k != "walletDetails"} for x in detailed] == everything


def test_list_wallet_accounts_pagination(emu):
    made = emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH, i) for i in range(12)])
    ids = [a["walletAccountId"] for a in accounts_of(emu, made["walletId"])]
    assert len(ids) == 12

    def page(**options):
        answer = emu.list_wallet_accounts(pagination_options=options)
        return [a["walletAccountId"] for a in answer["accounts"]]

    assert [a["walletAccountId"] for a in emu.list_wallet_accounts()["accounts"]] == ids[:10]
    assert page(limit="3") == ids[:3]
    assert page(limit="3", after=ids[2]) == ids[3:6]
    assert page(limit="3", before=ids[6]) == ids[3:6]
    assert page(before=ids[1]) == ids[:1]
    assert page(after=ids[-1]) == []
    assert page(limit="100") == ids


@pytest.mark.parametrize("limit", ["0", "101"])
def test_list_wallet_accounts_limit_out_of_range(emu, limit):
    error = fails(emu, emu.list_wallet_accounts, pagination_options={"limit": limit})
    assert error_of(error) == (
        400,
        3,
        "invalid request (fieldViolations: paginationOptions.limit)",
        "REQUEST_INVALID",
    )
    assert violations(error) == [
        {"field": "paginationOptions.limit", "description": "This field must be between 1 and 100."}
    ]


def test_list_wallet_accounts_unknown_cursor_or_wallet(emu, turnkey_org):
    error = fails(emu, emu.list_wallet_accounts, pagination_options={"after": NIL_UUID})
    assert error_of(error) == (
        400,
        3,
        messages.invalid_pagination_cursor(NIL_UUID),
        "REQUEST_INVALID",
    )
    error = fails(emu, emu.list_wallet_accounts, wallet_id=NIL_UUID)
    assert error.message == messages.wallet_not_found(NIL_UUID, turnkey_org.organization_id)


def test_get_wallet_account_by_address_or_path(emu):
    made = emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH), account_spec(SOL)])
    wallet_id = made["walletId"]
    eth, sol = accounts_of(emu, wallet_id)
    address = made["addresses"][0]
    assert address != address.lower()  # checksummed
    assert emu.get_wallet_account(wallet_id=wallet_id, address=address)["account"] == eth
    assert emu.get_wallet_account(wallet_id=wallet_id, path="m/44'/501'/0'/0'")["account"] == sol
    error = fails(emu, emu.get_wallet_account, wallet_id=wallet_id, address=address.lower())
    assert error_of(error) == (
        404,
        5,
        f"Could not find wallet account with address: {address.lower()}",
        "",
    )
    error = fails(emu, emu.get_wallet_account, wallet_id=wallet_id, path="m/44'/60'/1'/0/0")
    assert error_of(error) == (
        404,
        5,
        "Could not find wallet account with path: m/44'/60'/1'/0/0",
        "",
    )
    error = fails(emu, emu.get_wallet_account, wallet_id=wallet_id)
    assert error_of(error) == (
        400,
        3,
        "invalid request (fieldViolations: address)",
        "REQUEST_INVALID",
    )
    assert violations(error) == [
        {"field": "address", "description": "This field is required when path is not given."}
    ]
    other = emu.create_wallet(wallet_name="other", accounts=[])["walletId"]
    error = fails(emu, emu.get_wallet_account, wallet_id=other, address=address)
    assert error.status == 404


# --- the wire -----------------------------------------------------------------------


def submit(wire, org, op, activity_type, params):
    body = activity_body(activity_type, org.organization_id, params)
    return wire.post(f"/public/v1/submit/{op}", body, org.api_key)


def query(wire, org, op, **fields):
    body = {"organizationId": org.organization_id, **fields}
    return wire.post(f"/public/v1/query/{op}", body, org.api_key)


def test_wallets_on_the_wire(wire, turnkey_emulator, turnkey_org):
    params = {"walletName": "wired", "accounts": [account_spec(ETH)], "mnemonicLength": 24}
    status, body = submit(wire, turnkey_org, "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", params)
    assert status == 200 and body["activity"]["status"] == COMPLETED
    result = body["activity"]["result"]["createWalletResult"]
    wallet_id = result["walletId"]
    assert len(turnkey_emulator.backdoor.mnemonic(wallet_id).split()) == 24
    status, body = query(wire, turnkey_org, "get_wallet", walletId=wallet_id)
    assert status == 200 and body["wallet"]["walletName"] == "wired"
    status, body = query(
        wire, turnkey_org, "get_wallet_account", walletId=wallet_id, address=result["addresses"][0]
    )
    assert status == 200 and body["account"]["path"] == "m/44'/60'/0'/0/0"


def test_wallet_errors_on_the_wire(wire, turnkey_emulator, turnkey_org):
    before = state_digest(turnkey_emulator)
    params = {"walletName": "w", "accounts": [], "mnemonicLength": 13}
    status, body = submit(wire, turnkey_org, "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", params)
    assert (status, body) == (
        400,
        {
            "code": 3,
            "message": messages.invalid_mnemonic_length(13),
            "details": [],
            "turnkeyErrorCode": "",
        },
    )
    params = {"walletName": "w", "accounts": [spec(SOL, curve=SECP256K1)]}
    status, body = submit(wire, turnkey_org, "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", params)
    assert status == 400 and body["turnkeyErrorCode"] == "REQUEST_INVALID"
    assert body["message"] == messages.invalid_address_format(SOL, SECP256K1)
    status, body = query(wire, turnkey_org, "get_wallet", walletId=NIL_UUID)
    assert status == 404 and body["code"] == 5
    assert body["message"] == messages.wallet_not_found(NIL_UUID, turnkey_org.organization_id)
    assert state_digest(turnkey_emulator) == before


# --- the signer index: an address held twice --------------------------------------------


def test_an_address_held_twice_still_signs_after_one_holder_goes(emu):
    # TESTNET and SIGNET share their P2WPKH encoding: two accounts, one address
    made = emu.create_wallet(
        wallet_name="w",
        accounts=[
            account_spec("ADDRESS_FORMAT_BITCOIN_TESTNET_P2WPKH"),
            account_spec("ADDRESS_FORMAT_BITCOIN_SIGNET_P2WPKH"),
        ],
    )
    testnet, signet = made["addresses"]
    assert testnet == signet
    first, _ = accounts_of(emu, made["walletId"])
    emu.delete_wallet_accounts(
        wallet_account_ids=[first["walletAccountId"]], delete_without_export=True
    )
    assert sign(emu, signet)["r"]


def test_a_wallet_of_the_same_seed_still_signs_after_the_other_goes(emu):
    first = emu.backdoor.import_wallet(ABANDON, name="first", accounts=[account_spec(ETH)])
    emu.backdoor.import_wallet(ABANDON, name="second", accounts=[account_spec(ETH)])
    emu.delete_wallets(wallet_ids=[first["walletId"]], delete_without_export=True)
    assert sign(emu, ABANDON_ETH)["r"]


# --- determinism ----------------------------------------------------------------------


def scripted_run(emu: Emulator, *, stumble: bool = False) -> dict:
    org = emu.create_organization("Seeded")
    wallet = emu.create_wallet(
        wallet_name="w", accounts=[account_spec(ETH), account_spec(SOL)], mnemonic_length=15
    )
    if stumble:  # a failed activity draws nothing from the seeded streams
        with pytest.raises(TurnkeyApiError):
            emu.create_wallet(wallet_name="x", accounts=[spec(SOL, path="m/1")])
    more = emu.create_wallet_accounts(wallet_id=wallet["walletId"], accounts=[account_spec(ETH, 1)])
    keys = emu.create_private_keys(
        private_keys=[
            {
                "privateKeyName": curve,
                "curve": curve,
                "privateKeyTags": [],
                "addressFormats": ["ADDRESS_FORMAT_COMPRESSED"],
            }
            for curve in CURVES
        ]
    )["privateKeys"]
    key_ids = [k["privateKeyId"] for k in keys]
    return {
        "org": [org.organization_id, org.user_id, org.api_key_id, org.api_private_key],
        "wallet": wallet["walletId"],
        "mnemonic": emu.backdoor.mnemonic(wallet["walletId"]),
        "addresses": wallet["addresses"] + more["addresses"],
        "accounts": [a["walletAccountId"] for a in accounts_of(emu)],
        "keys": [(k["privateKeyId"], k["addresses"]) for k in keys],
        "secrets": [emu.backdoor.private_key(k) for k in key_ids],
    }


def test_a_seed_gives_the_same_ids_and_keys():
    first = scripted_run(Emulator(seed=7))
    assert scripted_run(Emulator(seed=7)) == first
    assert scripted_run(Emulator(seed=7), stumble=True) == first
    other = scripted_run(Emulator(seed=8))
    assert other["mnemonic"] != first["mnemonic"] and other["secrets"] != first["secrets"]


def test_without_a_seed_keys_differ():
    one, two = scripted_run(Emulator()), scripted_run(Emulator())
    assert one["mnemonic"] != two["mnemonic"]
    assert all(a != b for a, b in zip(one["secrets"], two["secrets"], strict=True))
    assert one["wallet"] != two["wallet"]


# --- secrets stay in the vault --------------------------------------------------------


def test_secrets_never_leak(emu, wire, turnkey_org, caplog):
    caplog.set_level(logging.DEBUG)
    made = emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH), account_spec(SOL)])
    wallet_id = made["walletId"]
    more = emu.create_wallet_accounts(
        wallet_id=wallet_id, accounts=[account_spec(ETH, 1)], persist=False
    )
    keys = emu.create_private_keys(
        private_keys=[
            {
                "privateKeyName": curve,
                "curve": curve,
                "privateKeyTags": [],
                "addressFormats": ["ADDRESS_FORMAT_COMPRESSED"],
            }
            for curve in CURVES
        ]
    )["privateKeys"]
    key_ids = [k["privateKeyId"] for k in keys]
    tag_id = emu.create_private_key_tag(private_key_tag_name="t", private_key_ids=key_ids)[
        "privateKeyTagId"
    ]
    signed = [
        sign(emu, made["addresses"][0]),
        sign(emu, made["addresses"][1], hash_function="HASH_FUNCTION_NOT_APPLICABLE"),
        sign(emu, key_ids[0]),
        sign(emu, key_ids[1], hash_function="HASH_FUNCTION_NOT_APPLICABLE"),
        sign(emu, key_ids[2]),
        emu.sign_raw_payloads(
            sign_with=key_ids[0],
            payloads=[DIGEST, "cd" * 32],
            encoding="PAYLOAD_ENCODING_HEXADECIMAL",
            hash_function="HASH_FUNCTION_NO_OP",
        ),
    ]
    failures = [
        fails(emu, emu.create_wallet, wallet_name="w", accounts=[]),
        fails(emu, emu.delete_wallets, wallet_ids=[wallet_id]),
        fails(emu, emu.delete_private_keys, private_key_ids=key_ids),
        fails(emu, sign, emu, made["addresses"][0].lower()),
    ]
    queries = [
        emu.get_wallet(wallet_id=wallet_id),
        emu.list_wallets(),
        emu.list_wallet_accounts(include_wallet_details=True),
        emu.get_wallet_account(wallet_id=wallet_id, address=made["addresses"][0]),
        emu.list_private_keys(),
        emu.get_private_key(private_key_id=key_ids[0]),
        emu.list_private_key_tags(),
        emu.list_activities(pagination_options={"limit": "100"}),
        emu.get_activity(activity_id=signed[0]["activity"]["id"]),
        wire.post(
            "/public/v1/query/list_wallet_accounts",
            {"organizationId": turnkey_org.organization_id},
            turnkey_org.api_key,
        ),
    ]
    org = org_record(emu)
    records = [
        *org.wallets.values(),
        *(a for w in org.wallets.values() for a in w.accounts.values()),
        *org.private_keys.values(),
        *org.signers.values(),
        org.private_key_tags[tag_id],
        *emu.world.store.vault.wallets.values(),
        emu.world.store.vault,
        emu.backdoor,
    ]
    haystack = "\n".join(
        [
            json.dumps([made, more, keys, signed, queries]),
            json.dumps([f.body() for f in failures]),
            " ".join(str(f) + repr(f) for f in failures),
            repr(emu),
            repr(emu.world),
            repr(emu.world.store),
            repr(org),
            *(repr(r) for r in records),
            caplog.text,
        ]
    ).lower()
    mnemonic = emu.backdoor.mnemonic(wallet_id)
    secrets = [emu.backdoor.private_key(k) for k in key_ids]
    secrets += [emu.backdoor.private_key(a) for a in made["addresses"]]
    assert mnemonic not in haystack
    for secret in secrets:
        assert len(secret) == 64 and secret.lower() not in haystack
    # the haystack does hold the public side, so the search is not vacuous
    assert made["addresses"][0].lower() in haystack
    assert all(k["publicKey"] in haystack for k in emu.list_private_keys()["privateKeys"])


# --- the backdoor ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "mnemonic",
    [
        "abandon " * 12,  # bad checksum
        "abandon " * 10 + "about",  # 11 words
        "not a mnemonic at all",
        "",
        ABANDON.replace("about", "aboutt"),
    ],
)
def test_import_wallet_refuses_an_invalid_mnemonic(emu, mnemonic):
    before = state_digest(emu)
    with pytest.raises(ValueError, match="not a valid BIP39 English mnemonic"):
        emu.backdoor.import_wallet(mnemonic)
    assert state_digest(emu) == before


def test_import_wallet_is_imported_and_records_no_activity(emu):
    activities = emu.list_activities()["activities"]
    made = emu.backdoor.import_wallet(
        "  " + ABANDON.replace(" ", "   ") + "\n", name="known", accounts=[account_spec(ETH)]
    )
    assert made["addresses"] == [ABANDON_ETH]
    assert emu.backdoor.mnemonic(made["walletId"]) == ABANDON
    assert emu.get_wallet(wallet_id=made["walletId"])["wallet"]["imported"] is True
    plain = emu.backdoor.import_wallet(ABANDON, name="plain", imported=False)
    assert emu.get_wallet(wallet_id=plain["walletId"])["wallet"]["imported"] is False
    assert emu.list_activities()["activities"] == activities
    assert all(
        not a["intent"] or "createWalletIntent" not in a["intent"]
        for a in emu.list_activities()["activities"]
    )
    assert sign(emu, ABANDON_ETH)["r"]


def test_a_failed_import_changes_nothing(emu):
    before = state_digest(emu)
    with pytest.raises(TurnkeyApiError):
        emu.backdoor.import_wallet(ABANDON, accounts=[spec(SOL, path="m/1")])
    assert state_digest(emu) == before
