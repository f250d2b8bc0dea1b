"""Solana IDLs in the policy language: parsed_instruction_data of instructions whose program
has an uploaded Anchor IDL (concepts/policies/smart-contract-interfaces), the borsh types the
docs list, and the docs' examples run as policies on sign_transaction."""

from __future__ import annotations

import hashlib
import json
import struct

import pytest
from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.message import Message
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.policy import borsh, idl

from .helpers import add_user, fails

JUPITER = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4"
SOLANA = "SMART_CONTRACT_INTERFACE_TYPE_SOLANA"
COMPLETED = "ACTIVITY_STATUS_COMPLETED"
BLOCKHASH = Hash(bytes([9]) * 32)
# Jupiter v6's published `route` discriminator: [229, 23, 203, 151, 122, 227, 173, 42].
ROUTE = bytes([229, 23, 203, 151, 122, 227, 173, 42])

# The docs' example IDL (Turnkey's format: legacy Anchor, isMut / isSigner).
DOCS_IDL = {
    "instructions": [
        {
            "name": "initialize",
            "accounts": [
                {"name": "authority", "isMut": False, "isSigner": True, "isOptional": False}
            ],
            "args": [{"name": "amount", "type": "u64"}],
        }
    ],
    "types": [
        {
            "name": "MyStruct",
            "type": {"kind": "struct", "fields": [{"name": "value", "type": "u64"}]},
        }
    ],
}

# The shape of Jupiter v6's legacy IDL `route` instruction (its accounts and arguments as the
# program's published IDL names them, camelCase; a few of its Swap variants).
JUPITER_IDL = {
    "version": "0.1.0",
    "name": "jupiter",
    "instructions": [
        {
            "name": "route",
            "accounts": [
                {"name": "tokenProgram", "isMut": False, "isSigner": False},
                {"name": "userTransferAuthority", "isMut": False, "isSigner": True},
                {"name": "userSourceTokenAccount", "isMut": False, "isSigner": False},
                {"name": "userDestinationTokenAccount", "isMut": False, "isSigner": False},
                {
                    "name": "destinationTokenAccount",
                    "isMut": False,
                    "isSigner": False,
                    "isOptional": True,
                },
                {"name": "destinationMint", "isMut": False, "isSigner": False},
                {
                    "name": "platformFeeAccount",
                    "isMut": True,
                    "isSigner": False,
                    "isOptional": True,
                },
                {"name": "eventAuthority", "isMut": False, "isSigner": False},
                {"name": "program", "isMut": False, "isSigner": False},
            ],
            "args": [
                {"name": "routePlan", "type": {"vec": {"defined": "RoutePlanStep"}}},
                {"name": "inAmount", "type": "u64"},
                {"name": "quotedOutAmount", "type": "u64"},
                {"name": "slippageBps", "type": "u16"},
                {"name": "platformFeeBps", "type": "u8"},
            ],
            "returns": "u64",
        }
    ],
    "types": [
        {
            "name": "RoutePlanStep",
            "type": {
                "kind": "struct",
                "fields": [
                    {"name": "swap", "type": {"defined": "Swap"}},
                    {"name": "percent", "type": "u8"},
                    {"name": "inputIndex", "type": "u8"},
                    {"name": "outputIndex", "type": "u8"},
                ],
            },
        },
        {
            "name": "Swap",
            "type": {
                "kind": "enum",
                "variants": [
                    {"name": "Saber"},
                    {"name": "Whirlpool", "fields": [{"name": "aToB", "type": "bool"}]},
                    {
                        "name": "Symmetry",
                        "fields": [
                            {"name": "fromTokenId", "type": "u64"},
                            {"name": "toTokenId", "type": "u64"},
                        ],
                    },
                ],
            },
        },
    ],
}

DOCS_JUPITER_POLICY = (
    "solana.tx.instructions.any(i, i.program_key == 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4'"
    " && i.parsed_instruction_data.instruction_name == 'route'"
    " && i.parsed_instruction_data.program_call_args['in_amount'] == 995500000)"
)


def u8(v: int) -> bytes:
    return bytes([v])


def u16(v: int) -> bytes:
    return struct.pack("<H", v)


def u32(v: int) -> bytes:
    return struct.pack("<I", v)


def u64(v: int) -> bytes:
    return struct.pack("<Q", v)


def route_data(in_amount: int, steps: bytes | None = None) -> bytes:
    """A `route` call: 2 steps (Saber 60%, Whirlpool a->b 40%), then the amounts."""
    if steps is None:
        steps = u32(2) + u8(0) + u8(60) + u8(0) + u8(1) + u8(1) + u8(1) + u8(40) + u8(1) + u8(2)
    return ROUTE + steps + u64(in_amount) + u64(990_000_000) + u16(50) + u8(0)


def keys(n: int) -> list[Pubkey]:
    return [Pubkey(bytes([40 + i]) * 32) for i in range(n)]


def unsigned(payer: str, *instructions: Instruction) -> str:
    message = Message.new_with_blockhash(list(instructions), Pubkey.from_string(payer), BLOCKHASH)
    slots = [Signature.default()] * message.header.num_required_signatures
    return bytes(VersionedTransaction.populate(message, slots)).hex()


def jupiter_route(payer: str, in_amount: int, program: str = JUPITER) -> Instruction:
    accounts = [AccountMeta(k, False, False) for k in keys(9)]
    accounts[1] = AccountMeta(Pubkey.from_string(payer), True, False)
    return Instruction(Pubkey.from_string(program), route_data(in_amount), accounts)


@pytest.fixture
def signer():
    """An organization, alice (not root) and a Solana account: ``(emu, key, address)``."""
    emu = Emulator(seed=31)
    emu.create_organization("Acme")
    _, key = add_user(emu, "alice")
    wallet = emu.create_wallet(wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_SOLANA")])
    return emu, key, wallet["addresses"][0]


def upload(emu, program: str, interface: dict) -> dict:
    return emu.create_smart_contract_interface(
        smart_contract_address=program,
        smart_contract_interface=json.dumps(interface),
        type=SOLANA,
        label="idl",
    )


def sign(emu, key, address: str, transaction: str):
    return emu.sign_transaction(
        sign_with=address,
        unsigned_transaction=transaction,
        type="TRANSACTION_TYPE_SOLANA",
        caller=key,
    )


# ----- the docs' examples ---------------------------------------------------------------------


def test_the_docs_jupiter_route_policy(signer):
    emu, key, address = signer
    upload(emu, JUPITER, JUPITER_IDL)
    emu.create_policy(
        policy_name="Jupiter route", effect="EFFECT_ALLOW", notes="", condition=DOCS_JUPITER_POLICY
    )
    done = sign(emu, key, address, unsigned(address, jupiter_route(address, 995_500_000)))
    assert done["activity"]["status"] == COMPLETED
    other_amount = unsigned(address, jupiter_route(address, 995_500_001))
    assert fails(emu, sign, emu, key, address, other_amount).status == 403
    # the same bytes to a program without an IDL: no parsed_instruction_data, no policy holds
    elsewhere = Pubkey(bytes([77]) * 32)
    assert (
        fails(
            emu,
            sign,
            emu,
            key,
            address,
            unsigned(address, jupiter_route(address, 995_500_000, str(elsewhere))),
        ).status
        == 403
    )


def test_the_docs_arg_name_example_on_the_docs_idl(signer):
    emu, key, address = signer
    program = str(Pubkey(bytes([66]) * 32))
    upload(emu, program, DOCS_IDL)
    emu.create_policy(
        policy_name="small initialize",
        effect="EFFECT_ALLOW",
        notes="",
        condition="solana.tx.instructions[0].parsed_instruction_data.program_call_args['amount'] == 1",
    )
    discriminator = hashlib.sha256(b"global:initialize").digest()[:8]
    authority = AccountMeta(Pubkey.from_string(address), True, False)

    def initialize(amount: int) -> str:
        instruction = Instruction(
            Pubkey.from_string(program), discriminator + u64(amount), [authority]
        )
        return unsigned(address, instruction)

    assert sign(emu, key, address, initialize(1))["activity"]["status"] == COMPLETED
    assert fails(emu, sign, emu, key, address, initialize(2)).status == 403
    # data too short for its u64: it does not decode, the field is absent
    short = Instruction(Pubkey.from_string(program), discriminator + b"\x01", [authority])
    assert fails(emu, sign, emu, key, address, unsigned(address, short)).status == 403


# ----- what parsed_instruction_data holds ------------------------------------------------------


def test_the_view_of_a_legacy_jupiter_route():
    found = idl.program(JUPITER_IDL)
    account_keys = [str(k) for k in keys(9)]
    parsed = idl.parsed_instruction(found, route_data(995_500_000), account_keys)
    assert parsed == {
        "instruction_name": "route",
        "discriminator": ROUTE.hex(),
        "named_accounts": dict(
            zip(
                [
                    "token_program",
                    "user_transfer_authority",
                    "user_source_token_account",
                    "user_destination_token_account",
                    "destination_token_account",
                    "destination_mint",
                    "platform_fee_account",
                    "event_authority",
                    "program",
                ],
                account_keys,
                strict=True,
            )
        ),
        "named_account": parsed["named_accounts"],
        "program_call_args": {
            "route_plan": [
                {"swap": "Saber", "percent": 60, "input_index": 0, "output_index": 1},
                {
                    "swap": {"Whirlpool": {"a_to_b": True}},
                    "percent": 40,
                    "input_index": 1,
                    "output_index": 2,
                },
            ],
            "in_amount": 995_500_000,
            "quoted_out_amount": 990_000_000,
            "slippage_bps": 50,
            "platform_fee_bps": 0,
        },
    }
    assert idl.parsed_instruction(found, b"\x00" * 8, account_keys) is None  # no such instruction
    assert idl.parsed_instruction(found, route_data(1)[:-1], account_keys) is None  # too short
    bad_variant = u32(1) + u8(9) + u8(100) + u8(0) + u8(1)
    assert idl.parsed_instruction(found, route_data(1, bad_variant), account_keys) is None


NEW_FORMAT_IDL = {
    "address": "Prog1111111111111111111111111111111111111111",
    "metadata": {"name": "vault", "version": "0.1.0", "spec": "0.1.0"},
    "instructions": [
        {
            "name": "deposit",
            "discriminator": [1, 2, 3, 4, 5, 6, 7, 8],
            "accounts": [
                {"name": "owner", "writable": True, "signer": True},
                {"name": "pool", "accounts": [{"name": "pool_state"}, {"name": "pool_vault"}]},
            ],
            "args": [
                {"name": "recipient", "type": "pubkey"},
                {"name": "memo", "type": {"option": "string"}},
                {"name": "note", "type": {"option": "string"}},
                {"name": "delta", "type": "i64"},
                {"name": "big", "type": "u128"},
                {"name": "raw", "type": "bytes"},
                {"name": "pair", "type": {"array": ["u16", 2]}},
                {"name": "rate", "type": "f64"},
                {"name": "side", "type": {"defined": {"name": "Side"}}},
                {"name": "point", "type": {"defined": {"name": "Point"}}},
                {"name": "amount", "type": {"defined": {"name": "Amount"}}},
                {"name": "flags", "type": {"vec": "bool"}},
            ],
        }
    ],
    "types": [
        {"name": "Side", "type": {"kind": "enum", "variants": [{"name": "Bid"}, {"name": "Ask"}]}},
        {"name": "Point", "type": {"kind": "struct", "fields": ["i8", "i8"]}},
        {"name": "Amount", "type": {"kind": "type", "alias": "u32"}},
    ],
}


def test_every_listed_type_of_a_new_format_idl():
    found = idl.program(NEW_FORMAT_IDL)
    recipient = bytes(range(32))
    data = (
        bytes([1, 2, 3, 4, 5, 6, 7, 8])
        + recipient
        + u8(1)
        + u32(2)
        + b"hi"
        + u8(0)
        + struct.pack("<q", -5)
        + (2**100).to_bytes(16, "little")
        + u32(3)
        + b"\xde\xad\xbf"
        + u16(7)
        + u16(9)
        + struct.pack("<d", 1.5)
        + u8(1)
        + struct.pack("<bb", -1, 2)
        + u32(42)
        + u32(2)
        + u8(1)
        + u8(0)
    )
    parsed = idl.parsed_instruction(found, data, ["A", "B", "C"])
    assert parsed is not None
    assert parsed["instruction_name"] == "deposit"
    assert parsed["discriminator"] == "0102030405060708"
    assert parsed["named_accounts"] == {"owner": "A", "pool_state": "B", "pool_vault": "C"}
    assert parsed["program_call_args"] == {
        "recipient": str(Pubkey(recipient)),
        "memo": "hi",  # (note, an absent option, is left out)
        "delta": -5,
        "big": 2**100,
        "raw": "deadbf",
        "pair": [7, 9],
        "rate": "1.5",
        "side": "Ask",
        "point": {"0": -1, "1": 2},
        "amount": 42,
        "flags": [True, False],
    }


def test_snake_case_and_default_discriminators():
    assert idl.snake_case("inAmount") == "in_amount"
    assert idl.snake_case("aToB") == "a_to_b"
    assert idl.snake_case("sharedAccountsRoute") == "shared_accounts_route"
    assert idl.snake_case("token2022Program") == "token2022_program"
    assert idl.snake_case("in_amount") == "in_amount"
    found = idl.program(JUPITER_IDL)
    assert found.instructions[0].discriminator == ROUTE


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda d: d["instructions"][0].pop("name"), "instruction 0 needs a name"),
        (
            lambda d: d["instructions"][0]["args"].append({"name": "x", "type": "u7"}),
            "unsupported type 'u7'",
        ),
        (
            lambda d: d["instructions"][0]["args"].append(
                {"name": "x", "type": {"defined": "Nowhere"}}
            ),
            "type 'Nowhere' is not defined",
        ),
        (lambda d: d["instructions"][0].update(discriminator=[256]), "a list of bytes"),
        (lambda d: d["instructions"][0].update(accounts="all"), "must be lists"),
        (lambda d: d.update(instructions={}), "an IDL is a JSON object with 'instructions'"),
    ],
)
def test_idls_that_do_not_read_are_refused_at_upload(signer, change, why):
    emu, _, _ = signer
    document = json.loads(json.dumps(DOCS_IDL))
    change(document)
    error = fails(emu, upload, emu, str(Pubkey(bytes([66]) * 32)), document)
    assert error.status == 400 and why in error.message, error.message


def test_a_type_defined_through_itself_is_refused():
    looped = {
        "instructions": [
            {"name": "f", "accounts": [], "args": [{"name": "x", "type": {"defined": "A"}}]}
        ],
        "types": [
            {
                "name": "A",
                "type": {"kind": "struct", "fields": [{"name": "a", "type": {"defined": "A"}}]},
            }
        ],
    }
    with pytest.raises(idl.IdlError, match="nested too deep"):
        idl.program(looped)
    with pytest.raises(borsh.BorshError):
        borsh.check_type({"generic": "T"}, lambda name: {})


def test_a_transaction_mixing_programs_and_the_filter_that_reads_only_the_idls(signer):
    """The engine evaluates every operand (no short-circuit), so the docs' policy reads
    parsed_instruction_data of every instruction: one of a program without an IDL (a compute
    budget instruction, as Jupiter transactions carry) makes it an evaluation error. Filtering
    first reads it only where it is."""
    emu, key, address = signer
    upload(emu, JUPITER, JUPITER_IDL)
    budget = Instruction(
        Pubkey.from_string("ComputeBudget111111111111111111111111111111"), u8(2) + u32(200_000), []
    )
    mixed = unsigned(address, budget, jupiter_route(address, 995_500_000))
    emu.create_policy(
        policy_name="docs", effect="EFFECT_ALLOW", notes="", condition=DOCS_JUPITER_POLICY
    )
    assert fails(emu, sign, emu, key, address, mixed).status == 403
    emu.create_policy(
        policy_name="filtered",
        effect="EFFECT_ALLOW",
        notes="",
        condition=(
            f"solana.tx.instructions.filter(i, i.program_key == '{JUPITER}')"
            ".all(i, i.parsed_instruction_data.program_call_args['in_amount'] <= 995500000)"
        ),
    )
    assert sign(emu, key, address, mixed)["activity"]["status"] == COMPLETED
