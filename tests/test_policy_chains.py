"""The policy views eth.tx, eth.eip_712, eth.eip_7702_authorization and solana.tx.

Transactions are built with eth-account and solders; every field of each view is checked
against the values the transaction was built from.
"""

from __future__ import annotations

import json

import pytest
import rlp as pyrlp
from eth_account import Account
from eth_utils import to_checksum_address
from solders.address_lookup_table_account import AddressLookupTableAccount
from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.message import Message, MessageV0, to_bytes_versioned
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.system_program import (
    CreateAccountParams,
    TransferParams,
    TransferWithSeedParams,
    create_account,
    transfer,
    transfer_with_seed,
)
from solders.transaction import VersionedTransaction

from emulator.crypto.signing import SigningError
from emulator.crypto.transactions import TransactionError
from emulator.policy.chains import eip712_view, eip7702_view, ethereum_view
from emulator.policy.solana_view import ADDRESS_TABLE_LOOKUP, solana_view

PARSE = "failed to parse transaction"
INVALID = "invalid payload encoding"

# ----------------------------------------------------------------------------------- Ethereum

SIGNER = Account.from_key(bytes([7]) * 32)
SENDER = SIGNER.address  # EIP-55, as Turnkey stores it
TO_HEX = "0x" + "ab" * 10 + "cd" * 10
TO = to_checksum_address(TO_HEX)


def unsigned_typed(tx: dict) -> str:
    """eth-account's signed serialisation with the trailing [yParity, r, s] removed."""
    signed = bytes(SIGNER.sign_transaction(tx).raw_transaction)
    return (signed[:1] + pyrlp.encode(pyrlp.decode(signed[1:])[:-3])).hex()


def unsigned_legacy(tx: dict) -> str:
    to = bytes.fromhex(tx["to"][2:]) if tx.get("to") else b""
    fields = [tx["nonce"], tx["gasPrice"], tx["gas"], to, tx["value"], tx["data"]]
    if "chainId" in tx:
        fields += [tx["chainId"], 0, 0]
    return pyrlp.encode(fields).hex()


LEGACY = {"nonce": 7, "gasPrice": 20 * 10**9, "gas": 21000, "to": TO, "value": 10**18, "data": b""}
EIP1559 = {
    "type": 2,
    "chainId": 1,
    "nonce": 3,
    "maxPriorityFeePerGas": 10**9,
    "maxFeePerGas": 3 * 10**10,
    "gas": 60000,
    "to": TO,
    "value": 12345,
    "data": bytes.fromhex("a9059cbb") + bytes(31) + b"\x01",
    "accessList": [],
}
TRANSFER_DATA = "0xa9059cbb" + "00" * 31 + "01"


def test_legacy_without_chain_id():
    view = ethereum_view(unsigned_legacy(LEGACY), SENDER)
    assert view == {
        "from": SENDER.lower(),
        "to": TO_HEX,
        "data": "0x",
        "value": 10**18,
        "gas": 21000,
        "gas_price": 20 * 10**9,
        "nonce": 7,
        "type": "LEGACY",
    }


@pytest.mark.parametrize("chain_id", [1, 11155111])
def test_legacy_eip155(chain_id):
    tx = {**LEGACY, "data": b"\x01\xab", "chainId": chain_id}
    assert ethereum_view(unsigned_legacy(tx), SENDER) == {
        "from": SENDER.lower(),
        "to": TO_HEX,
        "data": "0x01ab",
        "value": 10**18,
        "gas": 21000,
        "gas_price": 20 * 10**9,
        "chain_id": chain_id,
        "nonce": 7,
        "type": "LEGACY",
    }


def test_eip2930():
    access_list = [{"address": to_checksum_address("0x" + "22" * 20), "storageKeys": []}]
    tx = {**LEGACY, "type": 1, "chainId": 5, "data": b"\xff", "accessList": access_list}
    assert ethereum_view(unsigned_typed(tx), SENDER) == {
        "from": SENDER.lower(),
        "to": TO_HEX,
        "data": "0xff",
        "value": 10**18,
        "gas": 21000,
        "gas_price": 20 * 10**9,
        "chain_id": 5,
        "nonce": 7,
        "type": "TYPE_1",
    }


EIP1559_VIEW = {
    "from": SENDER.lower(),
    "to": TO_HEX,
    "data": TRANSFER_DATA,
    "value": 12345,
    "gas": 60000,
    "gas_price": 3 * 10**10,  # the docs: populated with max_fee_per_gas for EIP-1559
    "chain_id": 1,
    "nonce": 3,
    "max_fee_per_gas": 3 * 10**10,
    "max_priority_fee_per_gas": 10**9,
    "type": "TYPE_2",
}


def test_eip1559():
    assert ethereum_view(unsigned_typed(EIP1559), SENDER) == EIP1559_VIEW
    # The docs' raw-calldata selector check works on the view.
    assert ethereum_view(unsigned_typed(EIP1559), SENDER)["data"][0:10] == "0xa9059cbb"


def test_eip1559_contract_creation_has_an_empty_to():
    tx = {**EIP1559, "data": bytes.fromhex("6080604052")}
    del tx["to"]
    view = ethereum_view(unsigned_typed(tx), SENDER)
    assert view == {**EIP1559_VIEW, "to": "", "data": "0x6080604052"}


def test_eip4844():
    hashes = ["0x01" + "ab" * 31]
    tx = {**EIP1559, "type": 3, "maxFeePerBlobGas": 77, "blobVersionedHashes": hashes}
    view = ethereum_view(unsigned_typed(tx), SENDER)
    assert view == {**EIP1559_VIEW, "max_fee_per_blob_gas": 77, "type": "TYPE_3"}


def test_eip7702_set_code_transaction():
    authority = Account.from_key(b"\x02" * 32)
    auth = authority.sign_authorization({"chainId": 1, "address": "0x" + "44" * 20, "nonce": 9})
    tx = {**EIP1559, "type": 4, "authorizationList": [auth]}
    assert ethereum_view(unsigned_typed(tx), SENDER) == {**EIP1559_VIEW, "type": "TYPE_4"}


def test_sender_is_optional_and_abi_fields_are_absent():
    view = ethereum_view(unsigned_typed(EIP1559), None)
    assert "from" not in view
    assert not {"function_name", "function_signature", "contract_call_args"} & set(view)


def test_huge_values_and_hex_spellings():
    tx = {**EIP1559, "value": 2**256 - 1, "chainId": 2**63}
    unsigned = unsigned_typed(tx)
    expected = {**EIP1559_VIEW, "value": 2**256 - 1, "chain_id": 2**63}
    for spelling in (unsigned, "0x" + unsigned, "0X" + unsigned.upper()):
        assert ethereum_view(spelling, SENDER) == expected


def test_sender_that_is_not_an_address_is_kept():
    assert ethereum_view(unsigned_typed(EIP1559), "pk-id")["from"] == "pk-id"


@pytest.mark.parametrize(
    "unsigned",
    [
        "",
        "0x",
        "zz",
        "05c0",  # unknown type
        "02c0",  # wrong field count
        bytes.fromhex("02").hex() + "ff",  # bad RLP
        pyrlp.encode([1, 2, 3]).hex(),  # legacy with 3 fields
    ],
)
def test_unparsable_ethereum(unsigned):
    with pytest.raises(TransactionError, match=PARSE):
        ethereum_view(unsigned, SENDER)


# ------------------------------------------------------------------------------------ EIP-712

USDC = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
PERMIT2 = "0x000000000022D473030F116dDEE9F6B43aC78BA3"
SPENDER = to_checksum_address("0x" + "5e" * 20)

# The docs' Permit2 PermitBatchTransferFrom example, with its types.
PERMIT_BATCH = {
    "types": {
        "EIP712Domain": [
            {"name": "name", "type": "string"},
            {"name": "chainId", "type": "uint256"},
            {"name": "verifyingContract", "type": "address"},
        ],
        "TokenPermissions": [
            {"name": "token", "type": "address"},
            {"name": "amount", "type": "uint256"},
        ],
        "PermitBatchTransferFrom": [
            {"name": "permitted", "type": "TokenPermissions[]"},
            {"name": "spender", "type": "address"},
            {"name": "nonce", "type": "uint256"},
            {"name": "deadline", "type": "uint256"},
        ],
    },
    "primaryType": "PermitBatchTransferFrom",
    "domain": {"name": "Permit2", "chainId": 1, "verifyingContract": PERMIT2},
    "message": {
        "permitted": [
            {"token": USDC, "amount": "1000000000"},
            {"token": USDC, "amount": 5},
        ],
        "spender": SPENDER,
        "nonce": 0,
        "deadline": 1234567890,
    },
}
PERMIT_BATCH_VIEW = {
    "primary_type": "PermitBatchTransferFrom",
    "domain": {"name": "Permit2", "chain_id": 1, "verifying_contract": PERMIT2.lower()},
    "message": {
        "permitted": [
            {"token": USDC.lower(), "amount": 1000000000},
            {"token": USDC.lower(), "amount": 5},
        ],
        "spender": SPENDER.lower(),
        "nonce": 0,
        "deadline": 1234567890,
    },
}


def test_eip712_permit2_example():
    view = eip712_view(PERMIT_BATCH)
    assert view == PERMIT_BATCH_VIEW
    # The docs' conditions, read the way the engine reads them.
    assert view["message"]["permitted"][0]["amount"] < 10000000000
    assert all(p["token"] == USDC.lower() for p in view["message"]["permitted"])


def test_eip712_from_json_text():
    assert eip712_view(json.dumps(PERMIT_BATCH)) == PERMIT_BATCH_VIEW


def test_eip712_does_not_alias_or_change_the_input():
    document = json.loads(json.dumps(PERMIT_BATCH))
    view = eip712_view(document)
    view["message"]["permitted"].append({})
    assert document == PERMIT_BATCH


def test_eip712_value_kinds():
    document = {
        "types": {
            "Mail": [
                {"name": "contents", "type": "string"},
                {"name": "tag", "type": "bytes32"},
                {"name": "blob", "type": "bytes"},
                {"name": "delta", "type": "int64"},
                {"name": "ok", "type": "bool"},
                {"name": "grid", "type": "uint8[2][]"},
                {"name": "big", "type": "uint256"},
            ]
        },
        "primaryType": "Mail",
        "domain": {"version": "2", "chainId": "0x89", "salt": "0x" + "00" * 32},
        "message": {
            "contents": "Hello 0xABCDEF",
            "tag": "0x" + "AB" * 32,
            "blob": "0xDEAD",
            "delta": "-5",
            "ok": True,
            "grid": [["1", "0x02"], [3, 4]],
            "big": str(2**256 - 1),
            "undeclared": "0xABC",
        },
    }
    assert eip712_view(document) == {
        "primary_type": "Mail",
        "domain": {"version": "2", "chain_id": 137},
        "message": {
            "contents": "Hello 0xABCDEF",
            "tag": "0x" + "ab" * 32,
            "blob": "0xdead",
            "delta": -5,
            "ok": True,
            "grid": [[1, 2], [3, 4]],
            "big": 2**256 - 1,
            "undeclared": "0xABC",
        },
    }


def test_eip712_domain_only():
    document = {"types": {}, "primaryType": "EIP712Domain", "domain": {"name": "Only"}}
    assert eip712_view(document) == {"primary_type": "EIP712Domain", "domain": {"name": "Only"}}


@pytest.mark.parametrize(
    "document",
    [
        "not json",
        "[]",
        json.dumps({"types": {}, "message": {}}),
        [],
        {"types": {}, "message": {}},
        {"types": {}, "primaryType": "X", "message": []},
        {"types": {}, "primaryType": "X", "domain": "d"},
    ],
)
def test_eip712_malformed(document):
    with pytest.raises(SigningError, match=INVALID):
        eip712_view(document)


# ----------------------------------------------------------------------------------- EIP-7702

DELEGATE = to_checksum_address("0x" + "4c" * 20)


@pytest.mark.parametrize(
    "authorization",
    [
        {"address": DELEGATE, "chainId": 1, "nonce": 9},
        {"contractAddress": DELEGATE, "chainId": "1", "nonce": "0x9"},
        json.dumps(
            {"address": DELEGATE, "contractAddress": DELEGATE, "chainId": "0x1", "nonce": 9}
        ),
    ],
)
def test_eip7702_authorization(authorization):
    assert eip7702_view(authorization) == {"address": DELEGATE.lower(), "chain_id": 1, "nonce": 9}


@pytest.mark.parametrize(
    "authorization",
    [
        "{",
        [],
        {"chainId": 1, "nonce": 0},
        {"address": DELEGATE, "contractAddress": "0x" + "00" * 20, "chainId": 1, "nonce": 0},
        {"address": "0x1234", "chainId": 1, "nonce": 0},
        {"address": DELEGATE, "nonce": 0},
        {"address": DELEGATE, "chainId": 1, "nonce": 2**64},
        {"address": DELEGATE, "chainId": -1, "nonce": 0},
        {"address": DELEGATE, "chainId": True, "nonce": 0},
    ],
)
def test_eip7702_authorization_malformed(authorization):
    with pytest.raises(SigningError, match=INVALID):
        eip7702_view(authorization)


# ------------------------------------------------------------------------------------- Solana

BLOCKHASH = Hash(bytes([9]) * 32)
PAYER = Keypair.from_seed(bytes([1]) * 32).pubkey()
RECIPIENT = Keypair.from_seed(bytes([3]) * 32).pubkey()
SOURCE = Pubkey(bytes([10]) * 32)
DESTINATION = Pubkey(bytes([11]) * 32)
MINT = Pubkey(bytes([12]) * 32)
MULTISIG = Pubkey(bytes([13]) * 32)
COSIGNER_A = Keypair.from_seed(bytes([14]) * 32).pubkey()
COSIGNER_B = Keypair.from_seed(bytes([15]) * 32).pubkey()
TABLE = Pubkey(bytes([5]) * 32)
SYSTEM = "11111111111111111111111111111111"
TOKEN = Pubkey.from_string("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")
TOKEN_2022 = Pubkey.from_string("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb")


def pay(lamports: int = 5000, to: Pubkey = RECIPIENT) -> Instruction:
    return transfer(TransferParams(from_pubkey=PAYER, to_pubkey=to, lamports=lamports))


def u64(value: int) -> bytes:
    return value.to_bytes(8, "little")


def transfer_checked(amount: int = 250, program: Pubkey = TOKEN) -> Instruction:
    metas = [
        AccountMeta(SOURCE, False, True),
        AccountMeta(MINT, False, False),
        AccountMeta(DESTINATION, False, True),
        AccountMeta(PAYER, True, False),
    ]
    return Instruction(program, bytes([12]) + u64(amount) + bytes([6]), metas)


def multisig_transfer(amount: int = 99) -> Instruction:
    metas = [
        AccountMeta(SOURCE, False, True),
        AccountMeta(DESTINATION, False, True),
        AccountMeta(MULTISIG, False, False),
        AccountMeta(COSIGNER_A, True, False),
        AccountMeta(COSIGNER_B, True, False),
    ]
    return Instruction(TOKEN, bytes([3]) + u64(amount), metas)


def transfer_checked_with_fee(amount: int = 1000, fee: int = 3) -> Instruction:
    metas = [
        AccountMeta(SOURCE, False, True),
        AccountMeta(MINT, False, False),
        AccountMeta(DESTINATION, False, True),
        AccountMeta(PAYER, True, False),
    ]
    data = bytes([26, 1]) + u64(amount) + bytes([9]) + u64(fee)
    return Instruction(TOKEN_2022, data, metas)


def legacy(*instructions: Instruction) -> Message:
    return Message.new_with_blockhash(list(instructions), PAYER, BLOCKHASH)


def unsigned_tx_hex(message) -> str:
    slots = [Signature.default()] * message.header.num_required_signatures
    return bytes(VersionedTransaction.populate(message, slots)).hex()


def expected_accounts(instruction: Instruction) -> list[dict]:
    """Each account of the instruction with its signer / writable flags merged across the
    message (the payer signs and is writable; others as their metas say)."""
    flags: dict[str, tuple[bool, bool]] = {str(PAYER): (True, True)}
    for meta in instruction.accounts:
        signer, writable = flags.get(str(meta.pubkey), (False, False))
        flags[str(meta.pubkey)] = (signer or meta.is_signer, writable or meta.is_writable)
    return [
        {
            "account_key": str(meta.pubkey),
            "signer": flags[str(meta.pubkey)][0],
            "writable": flags[str(meta.pubkey)][1],
        }
        for meta in instruction.accounts
    ]


def expected_instruction(instruction: Instruction) -> dict:
    return {
        "program_key": str(instruction.program_id),
        "accounts": expected_accounts(instruction),
        "instruction_data_hex": bytes(instruction.data).hex(),
        "address_table_lookups": [],
    }


def test_solana_system_transfer_legacy():
    instruction = pay(5000)
    message = legacy(instruction)
    view = solana_view(unsigned_tx_hex(message))
    assert view == {
        "account_keys": [str(PAYER), str(RECIPIENT), SYSTEM],
        "program_keys": [SYSTEM],
        "instructions": [
            {
                "program_key": SYSTEM,
                "accounts": [
                    {"account_key": str(PAYER), "signer": True, "writable": True},
                    {"account_key": str(RECIPIENT), "signer": False, "writable": True},
                ],
                "instruction_data_hex": "02000000" + u64(5000).hex(),
                "address_table_lookups": [],
            }
        ],
        "transfers": [{"from": str(PAYER), "to": str(RECIPIENT), "amount": 5000}],
        "recent_blockhash": str(BLOCKHASH),
        "spl_transfers": [],
        "address_table_lookups": [],
    }
    assert view["account_keys"] == [str(key) for key in message.account_keys]
    # A bare message reads the same as the transaction around it.
    assert solana_view(bytes(message).hex()) == view


def test_solana_spl_transfer_checked_legacy():
    message = legacy(transfer_checked(250), pay(7))
    view = solana_view(unsigned_tx_hex(message))
    assert view["account_keys"] == [str(key) for key in message.account_keys]
    assert view["program_keys"] == [str(TOKEN), SYSTEM]
    assert view["instructions"] == [
        expected_instruction(transfer_checked(250)),
        expected_instruction(pay(7)),
    ]
    assert view["instructions"][0]["instruction_data_hex"] == "0c" + u64(250).hex() + "06"
    assert view["transfers"] == [{"from": str(PAYER), "to": str(RECIPIENT), "amount": 7}]
    assert view["spl_transfers"] == [
        {
            "from": str(SOURCE),
            "to": str(DESTINATION),
            "amount": 250,
            "owner": str(PAYER),
            "signers": [],
            "token_mint": str(MINT),
        }
    ]
    assert view["recent_blockhash"] == str(BLOCKHASH)
    assert view["address_table_lookups"] == []


def test_solana_spl_transfer_with_multisig_owner_has_no_mint():
    message = legacy(multisig_transfer(99))
    view = solana_view(unsigned_tx_hex(message))
    assert view["instructions"] == [expected_instruction(multisig_transfer(99))]
    assert view["spl_transfers"] == [
        {
            "from": str(SOURCE),
            "to": str(DESTINATION),
            "amount": 99,
            "owner": str(MULTISIG),
            "signers": [str(COSIGNER_A), str(COSIGNER_B)],
            "token_mint": "",
        }
    ]
    assert view["transfers"] == []


def test_solana_token_2022_transfers():
    message = legacy(transfer_checked(42, TOKEN_2022), transfer_checked_with_fee(1000, 3))
    view = solana_view(unsigned_tx_hex(message))
    assert view["program_keys"] == [str(TOKEN_2022)]
    expected = {
        "from": str(SOURCE),
        "to": str(DESTINATION),
        "owner": str(PAYER),
        "signers": [],
        "token_mint": str(MINT),
    }
    assert view["spl_transfers"] == [{**expected, "amount": 42}, {**expected, "amount": 1000}]


def test_solana_non_transfer_instructions():
    new_account = Keypair.from_seed(bytes([20]) * 32).pubkey()
    create = create_account(
        CreateAccountParams(
            from_pubkey=PAYER, to_pubkey=new_account, lamports=10, space=0, owner=TOKEN
        )
    )
    close_account = Instruction(
        TOKEN, bytes([9]), [AccountMeta(SOURCE, False, True), AccountMeta(PAYER, True, True)]
    )
    # TransferCheckedWithFee's bytes under the original Token program are no transfer there.
    fee_bytes = Instruction(
        TOKEN, transfer_checked_with_fee().data, list(transfer_checked_with_fee().accounts)
    )
    short_transfer = Instruction(
        Pubkey.from_string(SYSTEM),
        bytes([2, 0, 0, 0]),
        [AccountMeta(PAYER, True, True), AccountMeta(RECIPIENT, False, True)],
    )
    short_checked = Instruction(TOKEN, bytes([12]) + u64(5), list(transfer_checked().accounts))
    message = legacy(create, close_account, fee_bytes, short_transfer, short_checked)
    view = solana_view(unsigned_tx_hex(message))
    assert view["program_keys"] == [SYSTEM, str(TOKEN)]
    assert [i["instruction_data_hex"] for i in view["instructions"]][1:4] == [
        "09",
        bytes(transfer_checked_with_fee().data).hex(),
        "02000000",
    ]
    assert view["transfers"] == []
    assert view["spl_transfers"] == []


def test_solana_transfer_with_seed_and_repeated_program():
    base = Keypair.from_seed(bytes([21]) * 32).pubkey()
    derived = Pubkey.create_with_seed(base, "vault", Pubkey.from_string(SYSTEM))
    with_seed = transfer_with_seed(
        TransferWithSeedParams(
            from_pubkey=derived,
            from_base=base,
            from_seed="vault",
            from_owner=Pubkey.from_string(SYSTEM),
            lamports=321,
            to_pubkey=RECIPIENT,
        )
    )
    message = legacy(pay(1), with_seed, pay(2, DESTINATION))
    view = solana_view(unsigned_tx_hex(message))
    assert view["program_keys"] == [SYSTEM]
    assert view["transfers"] == [
        {"from": str(PAYER), "to": str(RECIPIENT), "amount": 1},
        {"from": str(derived), "to": str(RECIPIENT), "amount": 321},
        {"from": str(PAYER), "to": str(DESTINATION), "amount": 2},
    ]


def test_solana_v0_with_lookup_table():
    # The table holds the SOL recipient (writable when loaded) and the mint (read-only).
    table = AddressLookupTableAccount(TABLE, [Pubkey(bytes([6]) * 32), RECIPIENT, MINT])
    message = MessageV0.try_compile(PAYER, [pay(77), transfer_checked(5)], [table], BLOCKHASH)
    (lookup,) = message.address_table_lookups
    assert (list(lookup.writable_indexes), list(lookup.readonly_indexes)) == ([1], [2])
    static = [str(key) for key in message.account_keys]
    view = solana_view(unsigned_tx_hex(message))
    assert view["account_keys"] == [*static, ADDRESS_TABLE_LOOKUP, ADDRESS_TABLE_LOOKUP]
    assert view["program_keys"] == [SYSTEM, str(TOKEN)]
    assert view["address_table_lookups"] == [
        {"address_table_key": str(TABLE), "writable_indexes": [1], "readonly_indexes": [2]}
    ]
    system_ix, token_ix = view["instructions"]
    assert system_ix == {
        "program_key": SYSTEM,
        "accounts": [
            {"account_key": str(PAYER), "signer": True, "writable": True},
            {"account_key": ADDRESS_TABLE_LOOKUP, "signer": False, "writable": True},
        ],
        "instruction_data_hex": "02000000" + u64(77).hex(),
        "address_table_lookups": [
            {"address_table_key": str(TABLE), "writable_indexes": [1], "readonly_indexes": []}
        ],
    }
    assert token_ix["accounts"] == [
        {"account_key": str(SOURCE), "signer": False, "writable": True},
        {"account_key": ADDRESS_TABLE_LOOKUP, "signer": False, "writable": False},
        {"account_key": str(DESTINATION), "signer": False, "writable": True},
        {"account_key": str(PAYER), "signer": True, "writable": True},
    ]
    assert token_ix["address_table_lookups"] == [
        {"address_table_key": str(TABLE), "writable_indexes": [], "readonly_indexes": [2]}
    ]
    assert view["transfers"] == [{"from": str(PAYER), "to": ADDRESS_TABLE_LOOKUP, "amount": 77}]
    assert view["spl_transfers"] == [
        {
            "from": str(SOURCE),
            "to": str(DESTINATION),
            "amount": 5,
            "owner": str(PAYER),
            "signers": [],
            "token_mint": ADDRESS_TABLE_LOOKUP,
        }
    ]
    assert view["recent_blockhash"] == str(BLOCKHASH)
    assert solana_view(to_bytes_versioned(message).hex()) == view


def test_solana_readonly_signer():
    """A second signer that only signs is a read-only signed account (header count)."""
    witness = Keypair.from_seed(bytes([30]) * 32).pubkey()
    memo_like = Instruction(TOKEN, bytes([9]), [AccountMeta(witness, True, False)])
    message = legacy(pay(1), memo_like)
    view = solana_view(unsigned_tx_hex(message))
    assert message.header.num_readonly_signed_accounts == 1
    assert view["instructions"][1]["accounts"] == [
        {"account_key": str(witness), "signer": True, "writable": False}
    ]


@pytest.mark.parametrize(
    "unsigned",
    [
        "",
        "0x",
        "xyz",
        "00",
        bytes(legacy(pay()))[:-3].hex(),  # truncated
        "80" + bytes(legacy(pay())).hex()[2:],  # v0 marker on a legacy body
    ],
)
def test_unparsable_solana(unsigned):
    with pytest.raises(TransactionError, match=PARSE):
        solana_view(unsigned)


def test_evm_hex_values_match_checksummed_literals_in_policies() -> None:
    from emulator.policy import parse
    from emulator.policy.chains import EvmHex

    checksummed = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
    env = {"eth": {"tx": {"to": EvmHex(checksummed.lower())}}}
    assert parse(f"eth.tx.to == '{checksummed}'").test(env) is True
    assert parse(f"'{checksummed}' == eth.tx.to").test(env) is True
    assert parse(f"eth.tx.to != '{checksummed}'").test(env) is False
    assert parse(f"eth.tx.to in ['0x01', '{checksummed}']").test(env) is True
    assert parse("eth.tx.to == '0x0000000000000000000000000000000000000001'").test(env) is False
