"""End to end through the official Python SDK: wallets, private keys, their tags and signing.

Each test runs twice, through the ``sdk`` fixture: in-process (``requests``
interception) and over a real socket. Requests are built with the SDK's typed
bodies and every answer is parsed by the SDK's own response models. Signatures
are checked with libraries other than the ones that made them: the emulator
signs secp256k1 with coincurve and Ed25519 with PyNaCl; here eth-keys and
eth-account recover, ``cryptography`` verifies, and solders decodes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

pytest.importorskip("turnkey_http")

import rlp as pyrlp
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_keys import keys as eth_keys
from eth_utils import is_checksum_address, keccak
from solders.address_lookup_table_account import AddressLookupTableAccount
from solders.hash import Hash
from solders.message import Message, MessageV0, to_bytes_versioned
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction
from turnkey_http import TurnkeyClient
from turnkey_sdk_types import (
    CreatePrivateKeysBody,
    CreatePrivateKeyTagBody,
    CreateWalletAccountsBody,
    CreateWalletBody,
    DeletePrivateKeysBody,
    DeletePrivateKeyTagsBody,
    DeleteWalletAccountsBody,
    DeleteWalletsBody,
    GetActivityBody,
    GetPrivateKeyBody,
    GetPrivateKeysBody,
    GetWalletAccountBody,
    GetWalletAccountsBody,
    GetWalletBody,
    GetWalletsBody,
    ListPrivateKeyTagsBody,
    SignRawPayloadBody,
    SignRawPayloadResponse,
    SignRawPayloadsBody,
    SignTransactionBody,
    TurnkeyNetworkError,
    UpdatePrivateKeyTagBody,
    UpdateWalletBody,
    v1Pagination,
    v1PrivateKeyParams,
    v1WalletAccountParams,
)

from emulator.accounts import account_spec
from tests.test_sdk_e2e import api_error, assert_completed, assert_submitted, submit, value

from .typed_data import MAIL

Account.enable_unaudited_hdwallet_features()

ETHEREUM = "ADDRESS_FORMAT_ETHEREUM"
SOLANA = "ADDRESS_FORMAT_SOLANA"
SECP256K1 = "CURVE_SECP256K1"
ED25519 = "CURVE_ED25519"
HEX = "PAYLOAD_ENCODING_HEXADECIMAL"
TEXT = "PAYLOAD_ENCODING_TEXT_UTF8"
EIP712 = "PAYLOAD_ENCODING_EIP712"
NO_OP = "HASH_FUNCTION_NO_OP"
SHA256 = "HASH_FUNCTION_SHA256"
KECCAK256 = "HASH_FUNCTION_KECCAK256"
NOT_APPLICABLE = "HASH_FUNCTION_NOT_APPLICABLE"
TX_ETHEREUM = "TRANSACTION_TYPE_ETHEREUM"
TX_SOLANA = "TRANSACTION_TYPE_SOLANA"

SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141

# BIP39's all-"abandon" test mnemonic and its well-known accounts at the SDKs' default paths.
ABANDON = (
    "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
)
ABANDON_ETH = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
ABANDON_SOL = "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk"
UNKNOWN_ID = "11111111-1111-4111-8111-111111111111"


# ----- helpers ---------------------------------------------------------------


def account_params(address_format: str, index: int = 0, name: str | None = None):
    """The SDK's ``v1WalletAccountParams`` at the SDKs' default path for ``address_format``."""
    return v1WalletAccountParams(**account_spec(address_format, index), name=name)


def key_params(name: str, curve: str, formats: list[str], tags: list[str] | None = None):
    return v1PrivateKeyParams(
        privateKeyName=name, curve=curve, privateKeyTags=tags or [], addressFormats=formats
    )


@contextmanager
def rejected(status: int, *fragments: str, code: str | None = None) -> Iterator[Any]:
    """``api_error``, and the wire body's ``turnkeyErrorCode`` when ``code`` is given."""
    with api_error(status, *fragments) as info:
        yield info
    if code is not None:
        assert json.loads(info.value.cause)["turnkeyErrorCode"] == code


def as_root(turnkey_org) -> dict[str, str]:
    return {"public_key": turnkey_org.api_public_key, "user_id": turnkey_org.user_id}


def create_wallet(sdk: TurnkeyClient, name: str, *accounts: v1WalletAccountParams) -> Any:
    return sdk.create_wallet(CreateWalletBody(walletName=name, accounts=list(accounts)))


def accounts_of(sdk: TurnkeyClient, wallet_id: str, **options: Any) -> list[Any]:
    return sdk.get_wallet_accounts(GetWalletAccountsBody(walletId=wallet_id, **options)).accounts


def wallet_ids(sdk: TurnkeyClient) -> list[str]:
    return [w.walletId for w in sdk.get_wallets(GetWalletsBody()).wallets]


def private_key_ids(sdk: TurnkeyClient) -> list[str]:
    return [k.privateKeyId for k in sdk.get_private_keys(GetPrivateKeysBody()).privateKeys]


def tags_of(sdk: TurnkeyClient, private_key_id: str) -> list[str]:
    key = sdk.get_private_key(GetPrivateKeyBody(privateKeyId=private_key_id)).privateKey
    return key.privateKeyTags


def tag_names(sdk: TurnkeyClient) -> dict[str, str]:
    tags = sdk.list_private_key_tags(ListPrivateKeyTagsBody()).privateKeyTags
    return {t.tagId: t.tagName for t in tags}


def sign(sdk: TurnkeyClient, sign_with: str, payload: str, encoding: str, hash_function: str):
    return sdk.sign_raw_payload(
        SignRawPayloadBody(
            signWith=sign_with, payload=payload, encoding=encoding, hashFunction=hash_function
        )
    )


def sign_tx(sdk: TurnkeyClient, sign_with: str, unsigned_hex: str, tx_type: str) -> str:
    return sdk.sign_transaction(
        SignTransactionBody(signWith=sign_with, unsignedTransaction=unsigned_hex, type=tx_type)
    ).signedTransaction


def recovered(signature: Any, digest: bytes) -> eth_keys.PublicKey:
    """The secp256k1 public key that made ``signature`` ({r, s, v}) over ``digest`` (eth-keys)."""
    assert_ecdsa_shape(signature)
    vrs = (int(signature.v, 16), int(signature.r, 16), int(signature.s, 16))
    return eth_keys.Signature(vrs=vrs).recover_public_key_from_msg_hash(digest)


def assert_ecdsa_shape(signature: Any) -> None:
    """r and s: 64 lowercase hex characters; low S; v the recovery id "00" or "01"."""
    for part in (signature.r, signature.s):
        assert len(part) == 64
        assert part == part.lower()
        int(part, 16)
    assert 0 < int(signature.s, 16) <= SECP256K1_N // 2
    assert signature.v in ("00", "01")


def assert_ed25519(signature: Any, public_key_hex: str, message: bytes) -> None:
    """Verified by ``cryptography`` against the account's public key (raises if not)."""
    assert signature.v == "00"
    assert len(signature.r) == len(signature.s) == 64
    key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key_hex))
    key.verify(bytes.fromhex(signature.r + signature.s), message)


def eip712_digest(typed_data: dict) -> bytes:
    signable = encode_typed_data(full_message=typed_data)
    return keccak(b"\x19" + signable.version + signable.header + signable.body)


def eth_address(public_key_hex: str) -> str:
    """The checksummed EVM address of a compressed or uncompressed secp256k1 public key."""
    raw = bytes.fromhex(public_key_hex)
    if len(raw) == 33:
        return eth_keys.PublicKey.from_compressed_bytes(raw).to_checksum_address()
    return eth_keys.PublicKey(raw[-64:]).to_checksum_address()


@pytest.fixture
def abandon(turnkey_emulator, turnkey_org) -> dict[str, Any]:
    """The all-"abandon" wallet (test seam), with an Ethereum and a Solana account."""
    return turnkey_emulator.backdoor.import_wallet(
        ABANDON,
        name="abandon",
        accounts=[account_spec(ETHEREUM), account_spec(SOLANA)],
        organization_id=turnkey_org.organization_id,
    )


def account_by_address(sdk: TurnkeyClient, wallet_id: str, address: str) -> Any:
    return sdk.get_wallet_account(GetWalletAccountBody(walletId=wallet_id, address=address)).account


# ----- wallets -------------------------------------------------------------------


def test_create_wallet_derives_its_accounts_from_a_fresh_mnemonic(
    sdk, turnkey_emulator, turnkey_org
):
    created = sdk.create_wallet(
        CreateWalletBody(
            walletName="main",
            accounts=[
                account_params(ETHEREUM, 0, name="eth-0"),
                account_params(ETHEREUM, 1),
                account_params(SOLANA, 0),
            ],
            mnemonicLength=24,
        )
    )
    assert_completed(created.activity, "ACTIVITY_TYPE_CREATE_WALLET", **as_root(turnkey_org))
    result = created.activity.result.createWalletResult
    assert (result.walletId, result.addresses) == (created.walletId, created.addresses)
    eth0, eth1, sol0 = created.addresses
    assert is_checksum_address(eth0) and is_checksum_address(eth1) and eth0 != eth1
    (intent_account, *_) = created.activity.intent.createWalletIntent.accounts
    assert intent_account.path == "m/44'/60'/0'/0/0"

    # An independent derivation (eth-account's BIP32) of the same mnemonic agrees.
    mnemonic = turnkey_emulator.backdoor.mnemonic(created.walletId)
    assert len(mnemonic.split()) == 24
    for index, address in enumerate((eth0, eth1)):
        path = f"m/44'/60'/{index}'/0/0"
        assert Account.from_mnemonic(mnemonic, account_path=path).address == address

    wallet = sdk.get_wallet(GetWalletBody(walletId=created.walletId)).wallet
    assert (wallet.walletId, wallet.walletName) == (created.walletId, "main")
    assert (wallet.exported, wallet.imported) == (False, False)
    assert wallet.createdAt.seconds == wallet.updatedAt.seconds

    accounts = accounts_of(sdk, created.walletId)
    assert [a.address for a in accounts] == created.addresses
    assert [a.path for a in accounts] == [
        "m/44'/60'/0'/0/0",
        "m/44'/60'/1'/0/0",
        "m/44'/501'/0'/0'",
    ]
    assert [value(a.curve) for a in accounts] == [SECP256K1, SECP256K1, ED25519]
    assert [value(a.addressFormat) for a in accounts] == [ETHEREUM, ETHEREUM, SOLANA]
    assert {value(a.pathFormat) for a in accounts} == {"PATH_FORMAT_BIP32"}
    assert [a.name for a in accounts] == ["eth-0", None, None]
    assert [a.caip2Prefix for a in accounts] == ["eip155", "eip155", "solana"]
    assert {a.walletId for a in accounts} == {created.walletId}
    assert {a.organizationId for a in accounts} == {turnkey_org.organization_id}
    assert all(a.walletDetails is None for a in accounts)
    assert eth_address(accounts[0].publicKey) == eth0
    assert bytes(Pubkey.from_string(sol0)) == bytes.fromhex(accounts[2].publicKey)


def test_an_imported_known_mnemonic_answers_its_well_known_addresses(sdk, abandon):
    assert abandon["addresses"] == [ABANDON_ETH, ABANDON_SOL]
    wallet = sdk.get_wallet(GetWalletBody(walletId=abandon["walletId"])).wallet
    assert (wallet.walletName, wallet.imported, wallet.exported) == ("abandon", True, False)
    eth, sol = accounts_of(sdk, abandon["walletId"])
    assert (eth.address, eth.path) == (ABANDON_ETH, "m/44'/60'/0'/0/0")
    assert (sol.address, sol.path) == (ABANDON_SOL, "m/44'/501'/0'/0'")
    assert Account.from_mnemonic(ABANDON).address == ABANDON_ETH
    assert eth_address(eth.publicKey) == ABANDON_ETH
    assert str(Pubkey(bytes.fromhex(sol.publicKey))) == ABANDON_SOL


def test_create_wallet_accounts_stores_more_accounts_unless_persist_is_false(
    sdk, turnkey_emulator, turnkey_org
):
    wallet_id = create_wallet(sdk, "grow", account_params(ETHEREUM, 0)).walletId
    mnemonic = turnkey_emulator.backdoor.mnemonic(wallet_id)

    added = sdk.create_wallet_accounts(
        CreateWalletAccountsBody(
            walletId=wallet_id, accounts=[account_params(ETHEREUM, 1), account_params(SOLANA, 0)]
        )
    )
    assert_completed(added.activity, "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS", **as_root(turnkey_org))
    assert added.activity.result.createWalletAccountsResult.addresses == added.addresses
    eth1, sol0 = added.addresses
    assert Account.from_mnemonic(mnemonic, account_path="m/44'/60'/1'/0/0").address == eth1
    assert [a.address for a in accounts_of(sdk, wallet_id)][1:] == [eth1, sol0]

    preview = sdk.create_wallet_accounts(
        CreateWalletAccountsBody(
            walletId=wallet_id, accounts=[account_params(ETHEREUM, 2)], persist=False
        )
    )
    (eth2,) = preview.addresses
    assert Account.from_mnemonic(mnemonic, account_path="m/44'/60'/2'/0/0").address == eth2
    assert eth2 not in [a.address for a in accounts_of(sdk, wallet_id)]
    assert len(accounts_of(sdk, wallet_id)) == 3
    with rejected(404, "Could not find any resource to sign with."):
        sign(sdk, eth2, "hello", TEXT, KECCAK256)

    stored = sdk.create_wallet_accounts(
        CreateWalletAccountsBody(walletId=wallet_id, accounts=[account_params(ETHEREUM, 2)])
    )
    assert stored.addresses == [eth2]
    assert accounts_of(sdk, wallet_id)[-1].address == eth2


def test_create_wallet_accounts_of_an_unknown_wallet_is_404(sdk):
    with rejected(404, UNKNOWN_ID):
        sdk.create_wallet_accounts(
            CreateWalletAccountsBody(walletId=UNKNOWN_ID, accounts=[account_params(ETHEREUM)])
        )


def test_update_wallet_renames_it_and_names_stay_unique(sdk, turnkey_org):
    wallet_id = create_wallet(sdk, "before", account_params(ETHEREUM)).walletId
    create_wallet(sdk, "taken")

    updated = sdk.update_wallet(UpdateWalletBody(walletId=wallet_id, walletName="after"))
    assert updated.walletId == wallet_id
    assert_completed(updated.activity, "ACTIVITY_TYPE_UPDATE_WALLET", **as_root(turnkey_org))
    assert updated.activity.result.updateWalletResult.walletId == wallet_id
    assert sdk.get_wallet(GetWalletBody(walletId=wallet_id)).wallet.walletName == "after"

    with rejected(400, "walletName"):
        sdk.update_wallet(UpdateWalletBody(walletId=wallet_id, walletName="taken"))
    assert sdk.get_wallet(GetWalletBody(walletId=wallet_id)).wallet.walletName == "after"
    with rejected(404, UNKNOWN_ID):
        sdk.update_wallet(UpdateWalletBody(walletId=UNKNOWN_ID, walletName="x"))


def test_get_wallets_lists_every_wallet(sdk, abandon):
    assert sdk.get_wallets(GetWalletsBody()).wallets[0].walletId == abandon["walletId"]
    first = create_wallet(sdk, "first", account_params(ETHEREUM)).walletId
    second = create_wallet(sdk, "second").walletId
    wallets = sdk.get_wallets(GetWalletsBody()).wallets
    assert [(w.walletId, w.walletName, w.imported) for w in wallets] == [
        (abandon["walletId"], "abandon", True),
        (first, "first", False),
        (second, "second", False),
    ]
    with rejected(404, UNKNOWN_ID):
        sdk.get_wallet(GetWalletBody(walletId=UNKNOWN_ID))


def test_delete_wallets_needs_an_export_or_delete_without_export(sdk, turnkey_org):
    created = create_wallet(sdk, "doomed", account_params(ETHEREUM))
    kept = create_wallet(sdk, "kept").walletId
    (address,) = created.addresses

    with rejected(400, "wallet has not been exported", created.walletId):
        sdk.delete_wallets(DeleteWalletsBody(walletIds=[created.walletId]))
    assert wallet_ids(sdk) == [created.walletId, kept]
    assert sign(sdk, address, "still here", TEXT, KECCAK256).r

    deleted = sdk.delete_wallets(
        DeleteWalletsBody(walletIds=[created.walletId], deleteWithoutExport=True)
    )
    assert deleted.walletIds == [created.walletId]
    assert_completed(deleted.activity, "ACTIVITY_TYPE_DELETE_WALLETS", **as_root(turnkey_org))
    assert deleted.activity.result.deleteWalletsResult.walletIds == [created.walletId]
    assert wallet_ids(sdk) == [kept]
    with rejected(404, created.walletId):
        sdk.get_wallet(GetWalletBody(walletId=created.walletId))
    with rejected(404, "Could not find any resource to sign with."):
        sign(sdk, address, "gone", TEXT, KECCAK256)


def test_delete_wallet_accounts_needs_an_export_or_delete_without_export(sdk, turnkey_org):
    created = create_wallet(
        sdk, "w", account_params(ETHEREUM, 0), account_params(ETHEREUM, 1), account_params(SOLANA)
    )
    accounts = accounts_of(sdk, created.walletId)
    doomed = accounts[1]

    not_exported = ("wallet account has not been exported", doomed.walletAccountId)
    with rejected(400, *not_exported, code="WALLET_ACCOUNT_NOT_EXPORTED"):
        sdk.delete_wallet_accounts(
            DeleteWalletAccountsBody(walletAccountIds=[doomed.walletAccountId])
        )
    assert accounts_of(sdk, created.walletId) == accounts

    deleted = sdk.delete_wallet_accounts(
        DeleteWalletAccountsBody(
            walletAccountIds=[doomed.walletAccountId], deleteWithoutExport=True
        )
    )
    assert deleted.walletAccountIds == [doomed.walletAccountId]
    assert_completed(
        deleted.activity, "ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS", **as_root(turnkey_org)
    )
    assert deleted.activity.result.deleteWalletAccountsResult.walletAccountIds == [
        doomed.walletAccountId
    ]
    remaining = accounts_of(sdk, created.walletId)
    assert [a.walletAccountId for a in remaining] == [
        accounts[0].walletAccountId,
        accounts[2].walletAccountId,
    ]
    with rejected(404, f"Could not find wallet account with address: {doomed.address}"):
        account_by_address(sdk, created.walletId, doomed.address)
    with rejected(404, "Could not find any resource to sign with."):
        sign(sdk, doomed.address, "gone", TEXT, KECCAK256)
    with rejected(400, "wallet account not part of your organization"):
        sdk.delete_wallet_accounts(
            DeleteWalletAccountsBody(walletAccountIds=[UNKNOWN_ID], deleteWithoutExport=True)
        )


def test_list_wallet_accounts_pages_with_limit_after_and_before(sdk, abandon):
    wallet_id = create_wallet(
        sdk, "many", *[account_params(ETHEREUM, i) for i in range(7)]
    ).walletId
    everything = [a.walletAccountId for a in accounts_of(sdk, wallet_id)]
    assert len(everything) == 7

    def page(**options: Any) -> list[str]:
        pagination = v1Pagination(**options)
        return [
            a.walletAccountId for a in accounts_of(sdk, wallet_id, paginationOptions=pagination)
        ]

    page1 = page(limit="3")
    page2 = page(limit="3", after=page1[-1])
    page3 = page(limit="3", after=page2[-1])
    assert (len(page1), len(page2), len(page3)) == (3, 3, 1)
    assert page1 + page2 + page3 == everything
    assert page(limit="3", after=page3[-1]) == []
    assert page(limit="3", before=page3[0]) == page2
    assert page(limit="2", before=page2[0]) == page1[-2:]
    assert page(before=page1[0]) == []
    with rejected(400, "paginationOptions.limit"):
        page(limit="101")

    # Without a walletId: the accounts of every wallet (10 by default).
    all_wallets = sdk.get_wallet_accounts(
        GetWalletAccountsBody(paginationOptions=v1Pagination(limit="100"))
    ).accounts
    assert [a.address for a in all_wallets][:2] == [ABANDON_ETH, ABANDON_SOL]
    assert [a.walletAccountId for a in all_wallets][2:] == everything
    assert len(sdk.get_wallet_accounts(GetWalletAccountsBody()).accounts) == 9


def test_list_wallet_accounts_includes_wallet_details_on_request(sdk, abandon):
    plain = accounts_of(sdk, abandon["walletId"])
    assert [a.walletDetails for a in plain] == [None, None]
    detailed = accounts_of(sdk, abandon["walletId"], includeWalletDetails=True)
    for account in detailed:
        details = account.walletDetails
        assert (details.walletId, details.walletName) == (abandon["walletId"], "abandon")
        assert (details.imported, details.exported) == (True, False)
    assert [a.address for a in detailed] == [a.address for a in plain]


def test_get_wallet_account_by_address_and_by_path(sdk, abandon):
    wallet_id = abandon["walletId"]
    eth = account_by_address(sdk, wallet_id, ABANDON_ETH)
    assert (eth.address, eth.path, value(eth.curve)) == (ABANDON_ETH, "m/44'/60'/0'/0/0", SECP256K1)
    by_path = sdk.get_wallet_account(
        GetWalletAccountBody(walletId=wallet_id, path="m/44'/501'/0'/0'")
    )
    assert by_path.account.address == ABANDON_SOL
    assert value(by_path.account.addressFormat) == SOLANA

    missing = "0x" + "12" * 20
    with rejected(404, f"Could not find wallet account with address: {missing}"):
        account_by_address(sdk, wallet_id, missing)
    with rejected(404, f"Could not find wallet account with address: {ABANDON_ETH.lower()}"):
        account_by_address(sdk, wallet_id, ABANDON_ETH.lower())
    with rejected(404, "Could not find wallet account with path"):
        sdk.get_wallet_account(GetWalletAccountBody(walletId=wallet_id, path="m/44'/60'/9'/0/0"))


# ----- private keys --------------------------------------------------------------


def test_create_private_keys_answers_ids_and_addresses(sdk, turnkey_org):
    created = sdk.create_private_keys(
        CreatePrivateKeysBody(
            privateKeys=[
                key_params("evm", SECP256K1, [ETHEREUM]),
                key_params("sol", ED25519, [SOLANA]),
                key_params("bare", SECP256K1, []),
            ]
        )
    )
    assert_completed(
        created.activity, "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", **as_root(turnkey_org)
    )
    assert created.activity.result.createPrivateKeysResultV2.privateKeys == created.privateKeys
    evm, sol, bare = created.privateKeys
    assert [value(a.format) for a in evm.addresses] == [ETHEREUM]
    assert [value(a.format) for a in sol.addresses] == [SOLANA]
    assert bare.addresses == []
    assert private_key_ids(sdk) == [evm.privateKeyId, sol.privateKeyId, bare.privateKeyId]

    key = sdk.get_private_key(GetPrivateKeyBody(privateKeyId=evm.privateKeyId)).privateKey
    assert (key.privateKeyId, key.privateKeyName, value(key.curve)) == (
        evm.privateKeyId,
        "evm",
        SECP256K1,
    )
    assert (key.exported, key.imported, key.privateKeyTags) == (False, False, [])
    assert [(value(a.format), a.address) for a in key.addresses] == [
        (ETHEREUM, evm.addresses[0].address)
    ]
    assert eth_address(key.publicKey) == evm.addresses[0].address

    sol_key = sdk.get_private_key(GetPrivateKeyBody(privateKeyId=sol.privateKeyId)).privateKey
    assert value(sol_key.curve) == ED25519
    assert str(Pubkey(bytes.fromhex(sol_key.publicKey))) == sol.addresses[0].address

    with rejected(404, UNKNOWN_ID):
        sdk.get_private_key(GetPrivateKeyBody(privateKeyId=UNKNOWN_ID))
    with rejected(400, "privateKeys.0.privateKeyName"):
        sdk.create_private_keys(
            CreatePrivateKeysBody(privateKeys=[key_params("evm", SECP256K1, [])])
        )
    assert len(private_key_ids(sdk)) == 3


def test_delete_private_keys_needs_an_export_or_delete_without_export(sdk, turnkey_org):
    doomed, kept = (
        k.privateKeyId
        for k in sdk.create_private_keys(
            CreatePrivateKeysBody(
                privateKeys=[
                    key_params("doomed", SECP256K1, [ETHEREUM]),
                    key_params("kept", ED25519, []),
                ]
            )
        ).privateKeys
    )
    with rejected(400, "private key has not been exported", doomed):
        sdk.delete_private_keys(DeletePrivateKeysBody(privateKeyIds=[doomed]))
    assert private_key_ids(sdk) == [doomed, kept]

    deleted = sdk.delete_private_keys(
        DeletePrivateKeysBody(privateKeyIds=[doomed], deleteWithoutExport=True)
    )
    assert deleted.privateKeyIds == [doomed]
    assert_completed(deleted.activity, "ACTIVITY_TYPE_DELETE_PRIVATE_KEYS", **as_root(turnkey_org))
    assert deleted.activity.result.deletePrivateKeysResult.privateKeyIds == [doomed]
    assert private_key_ids(sdk) == [kept]
    with rejected(404, doomed):
        sdk.get_private_key(GetPrivateKeyBody(privateKeyId=doomed))
    with rejected(404, "Could not find any resource to sign with."):
        sign(sdk, doomed, "gone", TEXT, KECCAK256)


# ----- private key tags ----------------------------------------------------------


def make_keys(sdk: TurnkeyClient, *names: str) -> list[str]:
    body = CreatePrivateKeysBody(privateKeys=[key_params(n, SECP256K1, []) for n in names])
    return [k.privateKeyId for k in sdk.create_private_keys(body).privateKeys]


def test_create_private_key_tag_tags_the_keys(sdk, turnkey_org):
    alpha, beta = make_keys(sdk, "alpha", "beta")
    created = sdk.create_private_key_tag(
        CreatePrivateKeyTagBody(privateKeyTagName="hot", privateKeyIds=[alpha])
    )
    assert created.privateKeyIds == [alpha]
    assert_completed(
        created.activity, "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG", **as_root(turnkey_org)
    )
    assert created.activity.result.createPrivateKeyTagResult.privateKeyTagId == (
        created.privateKeyTagId
    )
    (tag,) = sdk.list_private_key_tags(ListPrivateKeyTagsBody()).privateKeyTags
    assert (tag.tagId, tag.tagName, value(tag.tagType)) == (
        created.privateKeyTagId,
        "hot",
        "TAG_TYPE_PRIVATE_KEY",
    )
    assert tags_of(sdk, alpha) == [created.privateKeyTagId]
    assert tags_of(sdk, beta) == []

    # A key may be created with the tag, too.
    (gamma,) = (
        k.privateKeyId
        for k in sdk.create_private_keys(
            CreatePrivateKeysBody(
                privateKeys=[key_params("gamma", SECP256K1, [], [created.privateKeyTagId])]
            )
        ).privateKeys
    )
    assert tags_of(sdk, gamma) == [created.privateKeyTagId]


def test_update_private_key_tag_renames_and_moves_keys(sdk, turnkey_org):
    alpha, beta = make_keys(sdk, "alpha", "beta")
    tag_id = sdk.create_private_key_tag(
        CreatePrivateKeyTagBody(privateKeyTagName="team", privateKeyIds=[alpha])
    ).privateKeyTagId

    updated = sdk.update_private_key_tag(
        UpdatePrivateKeyTagBody(
            privateKeyTagId=tag_id,
            newPrivateKeyTagName="squad",
            addPrivateKeyIds=[beta],
            removePrivateKeyIds=[alpha],
        )
    )
    assert updated.privateKeyTagId == tag_id
    assert_completed(
        updated.activity, "ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG", **as_root(turnkey_org)
    )
    assert updated.activity.result.updatePrivateKeyTagResult.privateKeyTagId == tag_id
    assert tag_names(sdk) == {tag_id: "squad"}
    assert (tags_of(sdk, alpha), tags_of(sdk, beta)) == ([], [tag_id])


def test_a_rejected_update_private_key_tag_changes_nothing(sdk):
    """The update names an unknown key: the rename before it does not happen either."""
    (alpha,) = make_keys(sdk, "alpha")
    tag_id = sdk.create_private_key_tag(
        CreatePrivateKeyTagBody(privateKeyTagName="team", privateKeyIds=[alpha])
    ).privateKeyTagId
    with rejected(404, UNKNOWN_ID):
        sdk.update_private_key_tag(
            UpdatePrivateKeyTagBody(
                privateKeyTagId=tag_id,
                newPrivateKeyTagName="renamed",
                addPrivateKeyIds=[UNKNOWN_ID],
                removePrivateKeyIds=[alpha],
            )
        )
    assert tag_names(sdk) == {tag_id: "team"}
    assert tags_of(sdk, alpha) == [tag_id]


def test_delete_private_key_tags_untags_the_keys(sdk, turnkey_org):
    alpha, beta = make_keys(sdk, "alpha", "beta")
    doomed = sdk.create_private_key_tag(
        CreatePrivateKeyTagBody(privateKeyTagName="old", privateKeyIds=[alpha, beta])
    ).privateKeyTagId
    kept = sdk.create_private_key_tag(
        CreatePrivateKeyTagBody(privateKeyTagName="new", privateKeyIds=[alpha])
    ).privateKeyTagId

    deleted = sdk.delete_private_key_tags(DeletePrivateKeyTagsBody(privateKeyTagIds=[doomed]))
    assert deleted.privateKeyTagIds == [doomed]
    assert deleted.privateKeyIds == [alpha, beta]
    assert_completed(
        deleted.activity, "ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS", **as_root(turnkey_org)
    )
    assert tag_names(sdk) == {kept: "new"}
    assert (tags_of(sdk, alpha), tags_of(sdk, beta)) == ([kept], [])
    with rejected(404, UNKNOWN_ID):
        sdk.delete_private_key_tags(DeletePrivateKeyTagsBody(privateKeyTagIds=[UNKNOWN_ID]))


# ----- sign_raw_payload(s): secp256k1 -------------------------------------------------


def evm_signers(sdk: TurnkeyClient, wallet: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """signWith value -> (the address its signature recovers to, its compressed public key)."""
    (key,) = sdk.create_private_keys(
        CreatePrivateKeysBody(privateKeys=[key_params("signer", SECP256K1, [ETHEREUM])])
    ).privateKeys
    public_key = sdk.get_private_key(GetPrivateKeyBody(privateKeyId=key.privateKeyId)).privateKey
    key_address = key.addresses[0].address
    account = account_by_address(sdk, wallet["walletId"], ABANDON_ETH)
    return {
        "wallet account address": (ABANDON_ETH, ABANDON_ETH, account.publicKey),
        "private key address": (key_address, key_address, public_key.publicKey),
        "private key id": (key.privateKeyId, key_address, public_key.publicKey),
    }


@pytest.mark.parametrize(
    "kind", ["wallet account address", "private key address", "private key id"]
)
def test_sign_raw_payload_with_each_kind_of_secp256k1_signer(sdk, abandon, kind):
    sign_with, address, public_key = evm_signers(sdk, abandon)[kind]
    message = b"sign me, please"
    signature = sign(sdk, sign_with, message.hex(), HEX, KECCAK256)
    key = recovered(signature, keccak(message))
    assert key.to_checksum_address() == address
    assert key.to_compressed_bytes().hex() == public_key.removeprefix("0x")


# (payload, encoding, hash function, the digest it stands for)
MESSAGE = "Hello, Turnkey! ✓"
DIGEST = hashlib.sha256(b"a digest").digest()
ENCODING_CASES = {
    "hex-no-op-0x": ("0x" + DIGEST.hex(), HEX, NO_OP, DIGEST),
    "hex-no-op": (DIGEST.hex(), HEX, NO_OP, DIGEST),
    "hex-0x-keccak": ("0x" + MESSAGE.encode().hex(), HEX, KECCAK256, keccak(MESSAGE.encode())),
    "hex-sha256": (
        MESSAGE.encode().hex(),
        HEX,
        SHA256,
        hashlib.sha256(MESSAGE.encode()).digest(),
    ),
    "text-keccak": (MESSAGE, TEXT, KECCAK256, keccak(MESSAGE.encode())),
    "text-sha256": (MESSAGE, TEXT, SHA256, hashlib.sha256(MESSAGE.encode()).digest()),
}


@pytest.mark.parametrize("case", list(ENCODING_CASES))
def test_sign_raw_payload_encodings_and_hash_functions(sdk, turnkey_emulator, abandon, case):
    payload, encoding, hash_function, digest = ENCODING_CASES[case]
    signature = sign(sdk, ABANDON_ETH, payload, encoding, hash_function)
    assert recovered(signature, digest).to_checksum_address() == ABANDON_ETH
    # RFC 6979: eth-account, signing the same digest with the same key, makes the same signature.
    expected = Account.from_key(turnkey_emulator.backdoor.private_key(ABANDON_ETH))
    theirs = expected.unsafe_sign_hash(digest)
    assert (int(signature.r, 16), int(signature.s, 16), int(signature.v, 16) + 27) == (
        theirs.r,
        theirs.s,
        theirs.v,
    )


@pytest.mark.parametrize("hash_function", [NO_OP, KECCAK256])
def test_sign_raw_payload_eip712_signs_the_typed_data_digest(
    sdk, turnkey_emulator, abandon, hash_function
):
    digest = eip712_digest(MAIL)
    signature = sign(sdk, ABANDON_ETH, json.dumps(MAIL), EIP712, hash_function)
    assert recovered(signature, digest).to_checksum_address() == ABANDON_ETH
    expected = Account.from_key(turnkey_emulator.backdoor.private_key(ABANDON_ETH))
    theirs = expected.unsafe_sign_hash(digest)
    assert (int(signature.r, 16), int(signature.s, 16), int(signature.v, 16)) == (
        theirs.r,
        theirs.s,
        theirs.v - 27,
    )
    # And eth-account's own typed-data signature recovers to the same account.
    ours = bytes.fromhex(signature.r + signature.s) + bytes([int(signature.v, 16) + 27])
    assert Account.recover_message(encode_typed_data(full_message=MAIL), signature=ours) == (
        ABANDON_ETH
    )


def test_sign_raw_payload_refuses_a_no_op_payload_that_is_not_a_digest(sdk, abandon):
    with rejected(400, "expected a 32-bytes-long digest"):
        sign(sdk, ABANDON_ETH, "ab" * 31, HEX, NO_OP)
    with rejected(400, "expected a 32-bytes-long digest"):
        sign(sdk, ABANDON_ETH, "not a digest", TEXT, NO_OP)


def test_sign_raw_payload_with_an_unknown_signer_is_404(sdk, abandon):
    for sign_with in ("0x" + "12" * 20, UNKNOWN_ID, ABANDON_ETH.lower(), ABANDON_SOL.lower()):
        with rejected(404, "Could not find any resource to sign with."):
            sign(sdk, sign_with, "hello", TEXT, KECCAK256)


def test_sign_raw_payloads_signs_each_payload_in_order(sdk, turnkey_org, abandon):
    messages = [b"first", b"second", b"", "✓ third".encode()]
    signed = sdk.sign_raw_payloads(
        SignRawPayloadsBody(
            signWith=ABANDON_ETH,
            payloads=[m.hex() for m in messages],
            encoding=HEX,
            hashFunction=KECCAK256,
        )
    )
    assert_completed(signed.activity, "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS", **as_root(turnkey_org))
    assert signed.activity.result.signRawPayloadsResult.signatures == signed.signatures
    assert len(signed.signatures) == len(messages)
    for signature, message in zip(signed.signatures, messages, strict=True):
        assert recovered(signature, keccak(message)).to_checksum_address() == ABANDON_ETH
    intent = signed.activity.intent.signRawPayloadsIntent
    assert (intent.signWith, intent.payloads) == (ABANDON_ETH, [m.hex() for m in messages])


# ----- sign_raw_payload(s): ed25519 --------------------------------------------------


def test_sign_raw_payload_with_a_solana_account_and_key(sdk, abandon):
    sol = account_by_address(sdk, abandon["walletId"], ABANDON_SOL)
    (key,) = sdk.create_private_keys(
        CreatePrivateKeysBody(privateKeys=[key_params("sol", ED25519, [SOLANA])])
    ).privateKeys
    key_public = sdk.get_private_key(GetPrivateKeyBody(privateKeyId=key.privateKeyId)).privateKey

    message = MESSAGE.encode()
    for sign_with, public_key in (
        (ABANDON_SOL, sol.publicKey),
        (key.addresses[0].address, key_public.publicKey),
        (key.privateKeyId, key_public.publicKey),
    ):
        assert_ed25519(sign(sdk, sign_with, MESSAGE, TEXT, NOT_APPLICABLE), public_key, message)
        hex_signature = sign(sdk, sign_with, "0x" + message.hex(), HEX, NOT_APPLICABLE)
        assert_ed25519(hex_signature, public_key, message)

    many = sdk.sign_raw_payloads(
        SignRawPayloadsBody(
            signWith=ABANDON_SOL,
            payloads=["one", "two"],
            encoding=TEXT,
            hashFunction=NOT_APPLICABLE,
        )
    ).signatures
    for signature, text in zip(many, ["one", "two"], strict=True):
        assert_ed25519(signature, sol.publicKey, text.encode())


def test_an_ed25519_signer_refuses_a_hash_function(sdk, abandon):
    with rejected(400, "invalid hash function"):
        sign(sdk, ABANDON_SOL, "hello", TEXT, KECCAK256)
    with rejected(400, "invalid hash function"):
        sign(sdk, ABANDON_ETH, "hello", TEXT, NOT_APPLICABLE)


# ----- the activity record of a signature ----------------------------------------------


def test_sign_raw_payload_records_both_intents_and_the_result(sdk, turnkey_org, abandon):
    body = SignRawPayloadBody(
        signWith=ABANDON_ETH, payload=MESSAGE, encoding=TEXT, hashFunction=KECCAK256
    )
    response, signed = submit(sdk, "sign_raw_payload", body, SignRawPayloadResponse)
    assert json.loads(signed.body)["type"] == "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
    assert_submitted(response.activity, signed, **as_root(turnkey_org))
    activity = response.activity

    v2 = activity.intent.signRawPayloadIntentV2
    assert (v2.signWith, v2.payload, value(v2.encoding), value(v2.hashFunction)) == (
        ABANDON_ETH,
        MESSAGE,
        TEXT,
        KECCAK256,
    )
    seed = activity.intent.signRawPayloadIntent
    assert (seed.privateKeyId, seed.payload, value(seed.encoding), value(seed.hashFunction)) == (
        ABANDON_ETH,
        MESSAGE,
        TEXT,
        KECCAK256,
    )
    result = activity.result.signRawPayloadResult
    assert (result.r, result.s, result.v) == (response.r, response.s, response.v)
    assert recovered(result, keccak(MESSAGE.encode())).to_checksum_address() == ABANDON_ETH

    fetched = sdk.get_activity(GetActivityBody(activityId=activity.id)).activity
    assert fetched.id == activity.id
    assert value(fetched.type) == "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
    assert fetched.intent == activity.intent
    assert fetched.result == activity.result
    assert fetched.fingerprint == activity.fingerprint


# ----- sign_transaction: Ethereum ------------------------------------------------------

RECIPIENT = "0x" + "11" * 20
THROWAWAY = Account.from_key(b"\x01" * 32)
EIP1559_TX = {
    "type": 2,
    "chainId": 1,
    "nonce": 3,
    "maxPriorityFeePerGas": 10**9,
    "maxFeePerGas": 3 * 10**10,
    "gas": 60000,
    "to": RECIPIENT,
    "value": 12345,
    "data": bytes.fromhex("a9059cbb") + bytes(64),
    "accessList": [],
}
LEGACY_TX = {
    "chainId": 137,
    "nonce": 7,
    "gasPrice": 20 * 10**9,
    "gas": 21000,
    "to": RECIPIENT,
    "value": 10**18,
    "data": b"",
}


def unsigned_hex(tx: dict) -> str:
    """eth-account's serialisation of ``tx`` without its signature fields, hex without 0x."""
    raw = bytes(THROWAWAY.sign_transaction(tx).raw_transaction)
    if raw[0] < 0x80:  # typed: type ‖ rlp([..., yParity, r, s])
        return (raw[:1] + pyrlp.encode(pyrlp.decode(raw[1:])[:-3])).hex()
    fields = pyrlp.decode(raw)[:-3]  # legacy EIP-155: [..., chainId, 0, 0] is what is signed
    return pyrlp.encode([*fields, tx["chainId"], 0, 0]).hex()


@pytest.mark.parametrize("tx", [EIP1559_TX, LEGACY_TX], ids=["eip1559", "legacy-eip155"])
def test_sign_transaction_ethereum(sdk, turnkey_emulator, turnkey_org, abandon, tx):
    unsigned = unsigned_hex(tx)
    response = sdk.sign_transaction(
        SignTransactionBody(signWith=ABANDON_ETH, unsignedTransaction=unsigned, type=TX_ETHEREUM)
    )
    assert_completed(response.activity, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", **as_root(turnkey_org))
    intent = response.activity.intent.signTransactionIntentV2
    assert (intent.signWith, intent.unsignedTransaction, value(intent.type)) == (
        ABANDON_ETH,
        unsigned,
        TX_ETHEREUM,
    )
    signed = response.signedTransaction
    assert response.activity.result.signTransactionResult.signedTransaction == signed
    assert signed == signed.lower() and not signed.startswith("0x")
    assert Account.recover_transaction("0x" + signed) == ABANDON_ETH
    key = Account.from_key(turnkey_emulator.backdoor.private_key(ABANDON_ETH))
    assert bytes.fromhex(signed) == bytes(key.sign_transaction(tx).raw_transaction)


def test_sign_transaction_ethereum_with_a_private_key(sdk):
    (key,) = sdk.create_private_keys(
        CreatePrivateKeysBody(privateKeys=[key_params("evm", SECP256K1, [ETHEREUM])])
    ).privateKeys
    address = key.addresses[0].address
    for sign_with in (key.privateKeyId, address):
        signed = sign_tx(sdk, sign_with, unsigned_hex(EIP1559_TX), TX_ETHEREUM)
        assert Account.recover_transaction("0x" + signed) == address


# ----- sign_transaction: Solana ----------------------------------------------------------

BLOCKHASH = Hash(bytes([9]) * 32)
SOL_RECIPIENT = Pubkey(bytes([3]) * 32)


def solana_message(payer: Pubkey, version: str) -> Message | MessageV0:
    pay = transfer(TransferParams(from_pubkey=payer, to_pubkey=SOL_RECIPIENT, lamports=5000))
    if version == "legacy":
        return Message.new_with_blockhash([pay], payer, BLOCKHASH)
    table = AddressLookupTableAccount(Pubkey(bytes([5]) * 32), [SOL_RECIPIENT])
    return MessageV0.try_compile(payer, [pay], [table], BLOCKHASH)


def unsigned_solana(message: Message | MessageV0) -> str:
    slots = [Signature.default()] * message.header.num_required_signatures
    return bytes(VersionedTransaction.populate(message, slots)).hex()


@pytest.mark.parametrize("version", ["legacy", "v0"])
def test_sign_transaction_solana(sdk, turnkey_org, abandon, version):
    payer = Pubkey.from_string(ABANDON_SOL)
    message = solana_message(payer, version)
    response = sdk.sign_transaction(
        SignTransactionBody(
            signWith=ABANDON_SOL, unsignedTransaction=unsigned_solana(message), type=TX_SOLANA
        )
    )
    assert_completed(response.activity, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", **as_root(turnkey_org))
    signed = VersionedTransaction.from_bytes(bytes.fromhex(response.signedTransaction))
    assert all(signed.verify_with_results())
    assert to_bytes_versioned(signed.message) == to_bytes_versioned(message)
    assert signed.message.account_keys[0] == payer
    public_key = account_by_address(sdk, abandon["walletId"], ABANDON_SOL).publicKey
    Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key)).verify(
        bytes(signed.signatures[0]), to_bytes_versioned(message)
    )


def test_sign_transaction_solana_with_a_private_key_id(sdk):
    (key,) = sdk.create_private_keys(
        CreatePrivateKeysBody(privateKeys=[key_params("sol", ED25519, [SOLANA])])
    ).privateKeys
    payer = Pubkey.from_string(key.addresses[0].address)
    signed_hex = sign_tx(
        sdk, key.privateKeyId, unsigned_solana(solana_message(payer, "v0")), TX_SOLANA
    )
    signed = VersionedTransaction.from_bytes(bytes.fromhex(signed_hex))
    assert all(signed.verify_with_results())
    assert signed.message.account_keys[0] == payer


def test_sign_transaction_refusals(sdk, abandon):
    with rejected(400, "unsupported transaction type", code="UNSUPPORTED_TRANSACTION_TYPE"):
        sign_tx(sdk, ABANDON_ETH, unsigned_hex(EIP1559_TX), "TRANSACTION_TYPE_TRON")
    with rejected(400, code="INVALID_TRANSACTION") as info:
        sign_tx(sdk, ABANDON_ETH, "02c0ffee", TX_ETHEREUM)
    assert str(info.value).startswith("failed to parse transaction")
    with rejected(400) as info:
        sign_tx(sdk, ABANDON_SOL, "00ff", TX_SOLANA)
    assert str(info.value).startswith("failed to parse transaction")
    with rejected(400, code="INVALID_TRANSACTION"):
        sign_tx(sdk, ABANDON_SOL, unsigned_hex(EIP1559_TX), TX_ETHEREUM)
    with rejected(404, "Could not find any resource to sign with."):
        sign_tx(sdk, ABANDON_ETH.lower(), unsigned_hex(EIP1559_TX), TX_ETHEREUM)


def test_errors_reach_the_sdk_as_turnkey_network_errors(sdk, abandon):
    """The SDK surfaces the wire error: status, the message, the body as ``cause``."""
    with pytest.raises(TurnkeyNetworkError) as info:
        sign(sdk, ABANDON_SOL, "hello", TEXT, KECCAK256)
    body = json.loads(info.value.cause)
    assert info.value.status_code == 400
    assert str(info.value) == body["message"]
    assert body["code"] == 3  # INVALID_ARGUMENT
