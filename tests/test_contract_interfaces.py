"""Smart contract interfaces: create, delete, get, list (ABIs and IDLs), and what an ABI unlocks in
the policy language: eth.tx.function_name, function_signature and contract_call_args, as the
docs' walkthrough (concepts/policies/smart-contract-interfaces) uses them."""

from __future__ import annotations

import json

import pytest
import rlp as pyrlp
from eth_abi import encode

from emulator.accounts import account_spec
from emulator.ground import messages
from emulator.policy.abi import call_view

from .helpers import add_user, error_of, fails, violations

ETHEREUM = "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM"
SOLANA = "SMART_CONTRACT_INTERFACE_TYPE_SOLANA"
WETH = "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"
WARCHEST = "0x08d2b0a37F869FF76BACB5Bab3278E26ab7067B7"
# The functions of a WETH-like token: transfer(address dst, uint256 wad) and withdraw(uint256).
TOKEN_ABI = [
    {
        "type": "function",
        "name": "transfer",
        "inputs": [{"name": "dst", "type": "address"}, {"name": "wad", "type": "uint256"}],
        "outputs": [{"name": "", "type": "bool"}],
        "stateMutability": "nonpayable",
    },
    {
        "type": "function",
        "name": "withdraw",
        "inputs": [{"name": "wad", "type": "uint256"}],
        "outputs": [],
        "stateMutability": "nonpayable",
    },
    {
        "type": "event",
        "name": "Transfer",
        "inputs": [{"name": "src", "type": "address", "indexed": True}],
        "anonymous": False,
    },
]
IDL = {
    "instructions": [
        {
            "name": "initialize",
            "accounts": [{"name": "authority", "isMut": False, "isSigner": True}],
            "args": [{"name": "amount", "type": "u64"}],
        }
    ]
}
PROGRAM = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4"


def upload(emu, address: str = WETH, interface=TOKEN_ABI, kind: str = ETHEREUM, **extra):
    return emu.create_smart_contract_interface(
        smart_contract_address=address,
        smart_contract_interface=json.dumps(interface),
        type=kind,
        label=extra.pop("label", "WETH mainnet"),
        **extra,
    )


def transfer_data(dst: str, wad: int) -> bytes:
    return bytes.fromhex("a9059cbb") + encode(["address", "uint256"], [dst, wad])


def unsigned(to: str, data: bytes) -> str:
    fields = [1, 0, 1, 100, 90000, bytes.fromhex(to[2:]), 0, data, []]
    return "02" + pyrlp.encode(fields).hex()


def test_create_get_list_and_delete_through_the_official_sdk(sdk, turnkey_emulator, turnkey_org):
    from turnkey_sdk_types import (
        CreateSmartContractInterfaceBody,
        DeleteSmartContractInterfaceBody,
        GetSmartContractInterfaceBody,
        GetSmartContractInterfacesBody,
    )

    text = json.dumps(TOKEN_ABI)
    made = sdk.create_smart_contract_interface(
        CreateSmartContractInterfaceBody(
            smartContractAddress=WETH,
            smartContractInterface=text,
            type=ETHEREUM,
            label="WETH mainnet",
            notes="For WETH mainnet transfers",
        )
    )
    assert made.activity.status.value == "ACTIVITY_STATUS_COMPLETED"
    interface_id = made.smartContractInterfaceId
    got = sdk.get_smart_contract_interface(
        GetSmartContractInterfaceBody(smartContractInterfaceId=interface_id)
    ).smartContractInterface
    assert (got.smartContractAddress, got.smartContractInterface, got.type, got.label) == (
        WETH,
        text,
        ETHEREUM,
        "WETH mainnet",
    )
    assert got.organizationId == turnkey_org.organization_id
    listed = sdk.get_smart_contract_interfaces(GetSmartContractInterfacesBody())
    assert [i.smartContractInterfaceId for i in listed.smartContractInterfaces] == [interface_id]
    gone = sdk.delete_smart_contract_interface(
        DeleteSmartContractInterfaceBody(smartContractInterfaceId=interface_id)
    )
    assert gone.smartContractInterfaceId == interface_id
    assert (
        sdk.get_smart_contract_interfaces(GetSmartContractInterfacesBody()).smartContractInterfaces
        == []
    )


def test_an_idl_is_stored_and_the_organization_references_each_interface(turnkey_emulator):
    emu = turnkey_emulator
    abi_id = upload(emu)["smartContractInterfaceId"]
    idl_id = upload(emu, PROGRAM, IDL, SOLANA, label="Jupiter")["smartContractInterfaceId"]
    references = emu.get_organization()["organizationData"]["smartContractInterfaceReferences"]
    assert [(r["smartContractInterfaceId"], r["smartContractAddress"]) for r in references] == [
        (abi_id, WETH),
        (idl_id, PROGRAM),
    ]
    assert all(len(r["digest"]) == 64 for r in references)


@pytest.mark.parametrize(
    ("address", "interface", "kind", "why"),
    [
        (WETH, "not json", ETHEREUM, "invalid smart contract interface: not JSON"),
        (
            WETH,
            {"not": "a list"},
            ETHEREUM,
            "invalid smart contract interface: an ABI is a JSON list",
        ),
        (
            WETH,
            [{"type": "function", "name": "f", "inputs": [{"name": "x", "type": "uint7"}]}],
            ETHEREUM,
            "invalid smart contract interface: function f: unknown type 'uint7'",
        ),
        ("0x1234", TOKEN_ABI, ETHEREUM, "invalid smart contract address '0x1234'"),
        (PROGRAM, {"types": []}, SOLANA, "invalid smart contract interface: an IDL"),
        (WETH, IDL, SOLANA, "invalid smart contract address"),
    ],
)
def test_bad_interfaces_are_refused(turnkey_emulator, address, interface, kind, why):
    emu = turnkey_emulator
    text = interface if isinstance(interface, str) else json.dumps(interface)
    error = fails(
        emu,
        emu.create_smart_contract_interface,
        smart_contract_address=address,
        smart_contract_interface=text,
        type=kind,
        label="x",
    )
    assert error.status == 400 and error.message.startswith(why), error.message


def test_limits_and_unknown_ids(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    big = json.dumps([{"type": "event", "name": "e" * 500_000, "inputs": []}])
    error = fails(
        emu,
        emu.create_smart_contract_interface,
        smart_contract_address=WETH,
        smart_contract_interface=big,
        type=ETHEREUM,
        label="x",
    )
    assert error.message == messages.CONTRACT_INTERFACE_TOO_LARGE
    error = fails(
        emu,
        emu.create_smart_contract_interface,
        smart_contract_address=WETH,
        smart_contract_interface="[]",
        type="SMART_CONTRACT_INTERFACE_TYPE_TRON",
        label="x",
    )
    assert [v["field"] for v in violations(error)] == ["type"]
    missing = "00000000-0000-4000-8000-000000000000"
    error = fails(emu, emu.get_smart_contract_interface, smart_contract_interface_id=missing)
    assert error_of(error) == (
        404,
        5,
        messages.contract_interface_not_found(missing, turnkey_org.organization_id),
        "",
    )
    assert (
        fails(emu, emu.delete_smart_contract_interface, smart_contract_interface_id=missing).status
        == 404
    )


def test_the_call_view_names_the_function_and_its_arguments():
    view = call_view(TOKEN_ABI, transfer_data(WARCHEST, 5))
    assert view == {
        "function_name": "transfer",
        "function_signature": "0xa9059cbb",  # transfer(address,uint256), as published
        "contract_call_args": {"dst": WARCHEST.lower(), "wad": 5},
    }
    assert view["contract_call_args"]["dst"] == WARCHEST  # addresses match in any case
    assert call_view(TOKEN_ABI, bytes.fromhex("deadbeef")) == {}  # no such function
    assert call_view(TOKEN_ABI, bytes.fromhex("a9059cbb") + b"\x01") == {}  # does not decode
    nested = [
        {
            "type": "function",
            "name": "batch",
            "inputs": [
                {"name": "ids", "type": "uint8[]"},
                {"name": "", "type": "bytes"},
                {
                    "name": "order",
                    "type": "tuple",
                    "components": [
                        {"name": "maker", "type": "address"},
                        {"name": "ok", "type": "bool"},
                    ],
                },
            ],
        }
    ]
    from emulator.crypto.hashing import keccak256

    selector = keccak256(b"batch(uint8[],bytes,(address,bool))")[:4]
    data = selector + encode(
        ["uint8[]", "bytes", "(address,bool)"], [[1, 2], b"\xab", (WARCHEST, True)]
    )
    assert call_view(nested, data)["contract_call_args"] == {
        "ids": [1, 2],
        "1": "0xab",
        "order": {"maker": WARCHEST.lower(), "ok": True},
    }


@pytest.fixture
def signer(turnkey_emulator):
    """A non-root user, and an Ethereum account of a wallet the root made."""
    emu = turnkey_emulator
    _, key = add_user(emu, "alice")
    wallet = emu.create_wallet(wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")])
    return key, wallet["addresses"][0]


def sign(emu, key, sign_with: str, to: str, data: bytes):
    return emu.sign_transaction(
        sign_with=sign_with,
        unsigned_transaction=unsigned(to, data),
        type="TRANSACTION_TYPE_ETHEREUM",
        caller=key,
    )


def test_the_docs_walkthrough_policy_on_contract_call_args(turnkey_emulator, signer):
    emu, (key, sign_with) = turnkey_emulator, signer
    upload(emu)
    emu.create_policy(
        policy_name="small WETH transfers to the warchest",
        effect="EFFECT_ALLOW",
        notes="",
        condition=(
            "eth.tx.contract_call_args['wad'] < 1000000000000000000 && "
            f"eth.tx.contract_call_args['dst'] == '{WARCHEST}'"
        ),
    )
    done = sign(emu, key, sign_with, WETH, transfer_data(WARCHEST, 10**17))
    assert done["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    assert (
        fails(emu, sign, emu, key, sign_with, WETH, transfer_data(WARCHEST, 2 * 10**18)).status
        == 403
    )
    other = "0x" + "11" * 20
    assert fails(emu, sign, emu, key, sign_with, WETH, transfer_data(other, 1)).status == 403
    # the same call to a contract with no ABI uploaded: the fields are missing, no policy holds
    assert (
        fails(emu, sign, emu, key, sign_with, "0x" + "22" * 20, transfer_data(WARCHEST, 1)).status
        == 403
    )


def test_the_docs_walkthrough_policy_on_the_function(turnkey_emulator, signer):
    emu, (key, sign_with) = turnkey_emulator, signer
    interface_id = upload(emu)["smartContractInterfaceId"]
    emu.create_policy(
        policy_name="WETH transfers only",
        effect="EFFECT_ALLOW",
        notes="",
        condition="eth.tx.function_name == 'transfer' && eth.tx.function_signature == '0xa9059cbb'",
    )
    assert sign(emu, key, sign_with, WETH, transfer_data(WARCHEST, 1))["activity"]["status"] == (
        "ACTIVITY_STATUS_COMPLETED"
    )
    withdraw = bytes.fromhex("2e1a7d4d") + encode(["uint256"], [1])
    assert fails(emu, sign, emu, key, sign_with, WETH, withdraw).status == 403
    emu.delete_smart_contract_interface(smart_contract_interface_id=interface_id)
    # without the ABI the call is no longer read: the policy cannot hold
    assert fails(emu, sign, emu, key, sign_with, WETH, transfer_data(WARCHEST, 1)).status == 403
