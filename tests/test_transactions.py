"""sign_transaction: RLP, Ethereum and Solana signing, checked against independent libraries."""

from __future__ import annotations

import coincurve
import nacl.signing
import pytest
import rlp as pyrlp
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from eth_account import Account
from eth_account.typed_transactions import TypedTransaction
from hypothesis import given, settings
from hypothesis import strategies as st
from solders.address_lookup_table_account import AddressLookupTableAccount
from solders.hash import Hash
from solders.keypair import Keypair
from solders.message import Message, MessageV0, to_bytes_versioned
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction

from emulator.crypto import rlp
from emulator.crypto.curves import SECP256K1_ORDER as SECP256K1_N
from emulator.crypto.transactions import ETHEREUM, SOLANA, TransactionError
from emulator.crypto.transactions.ethereum import (
    parse_ethereum_transaction,
    sign_ethereum_transaction,
)
from emulator.crypto.transactions.solana import (
    encode_compact_u16,
    parse_solana_transaction,
    sign_solana_transaction,
)

PARSE = "failed to parse transaction"

# ---------------------------------------------------------------------------------------- RLP

# Examples from the Ethereum RLP specification page,
# https://ethereum.org/en/developers/docs/data-structures-and-encoding/rlp/ ("Examples").
LOREM = b"Lorem ipsum dolor sit amet, consectetur adipisicing elit"
RLP_EXAMPLES = [
    (b"dog", bytes([0x83]) + b"dog"),
    ([b"cat", b"dog"], bytes([0xC8, 0x83]) + b"cat" + bytes([0x83]) + b"dog"),
    (b"", bytes([0x80])),
    ([], bytes([0xC0])),
    (0, bytes([0x80])),
    (b"\x00", bytes([0x00])),
    (b"\x0f", bytes([0x0F])),
    (b"\x04\x00", bytes([0x82, 0x04, 0x00])),
    (15, bytes([0x0F])),
    (1024, bytes([0x82, 0x04, 0x00])),
    # the set-theoretic representation of three: [ [], [[]], [ [], [[]] ] ]
    ([[], [[]], [[], [[]]]], bytes([0xC7, 0xC0, 0xC1, 0xC0, 0xC3, 0xC0, 0xC1, 0xC0])),
    (LOREM, bytes([0xB8, 0x38]) + LOREM),
]


@pytest.mark.parametrize(("item", "encoded"), RLP_EXAMPLES)
def test_rlp_known_encodings(item, encoded):
    assert rlp.encode(item) == encoded
    decoded = rlp.decode(encoded)
    assert rlp.encode(decoded) == encoded
    if isinstance(item, int):
        assert rlp.decode_uint(decoded) == item


rlp_items = st.recursive(
    st.binary(max_size=80),
    lambda children: st.lists(children, max_size=6),
    max_leaves=30,
)


@given(rlp_items)
def test_rlp_round_trip(item):
    encoded = rlp.encode(item)
    assert rlp.decode(encoded) == item
    assert encoded == pyrlp.encode(item)


@given(st.integers(min_value=0, max_value=2**300))
def test_rlp_integers(value):
    encoded = rlp.encode(value)
    assert encoded == pyrlp.encode(value)
    assert rlp.decode_uint(rlp.decode(encoded)) == value


@pytest.mark.parametrize(
    "data",
    [
        b"",  # nothing
        b"\x81\x05",  # single byte < 0x80 must encode as itself
        b"\xb8\x05hello",  # long form for a short string
        b"\xb9\x00\x38" + bytes(56),  # length with a leading zero
        b"\x83do",  # truncated string
        b"\xc2\x83dog",  # list item overruns the list
        b"\x83dogs",  # trailing byte
        b"\xf8\x02\x80\x80",  # long-form list of two bytes
    ],
)
def test_rlp_rejects_malformed(data):
    with pytest.raises(rlp.RlpError):
        rlp.decode(data)


def test_rlp_decode_uint_is_canonical():
    assert rlp.decode_uint(b"") == 0
    assert rlp.decode_uint(b"\x01\x00") == 256
    with pytest.raises(rlp.RlpError):
        rlp.decode_uint(b"\x00")
    with pytest.raises(rlp.RlpError):
        rlp.decode_uint(b"\x00\x01")
    with pytest.raises(rlp.RlpError):
        rlp.encode(-1)


def test_transaction_type_constants():
    assert ETHEREUM == "TRANSACTION_TYPE_ETHEREUM"
    assert SOLANA == "TRANSACTION_TYPE_SOLANA"
    assert issubclass(TransactionError, ValueError)


# ----------------------------------------------------------------------------------- Ethereum

ETH_KEY = bytes.fromhex("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
ACCOUNT = Account.from_key(ETH_KEY)
TO = "0x" + "11" * 20


def coincurve_signer(key: bytes = ETH_KEY):
    def sign_digest(digest: bytes) -> tuple[int, int, int]:
        sig = coincurve.PrivateKey(key).sign_recoverable(digest, hasher=None)
        return int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:64], "big"), sig[64]

    return sign_digest


def unsigned_typed(tx: dict) -> bytes:
    """eth-account's signed serialisation with the trailing [yParity, r, s] removed."""
    signed = bytes(ACCOUNT.sign_transaction(tx).raw_transaction)
    fields = pyrlp.decode(signed[1:])
    return signed[:1] + pyrlp.encode(fields[:-3])


def unsigned_legacy(tx: dict) -> bytes:
    fields = [
        tx["nonce"],
        tx["gasPrice"],
        tx["gas"],
        bytes.fromhex(tx["to"][2:]) if tx.get("to") else b"",
        tx["value"],
        tx["data"],
    ]
    if "chainId" in tx:
        fields += [tx["chainId"], 0, 0]
    return pyrlp.encode(fields)


def check_signed(unsigned: bytes, tx: dict) -> str:
    signed = sign_ethereum_transaction(unsigned.hex(), coincurve_signer())
    assert signed == signed.lower() and not signed.startswith("0x")
    assert Account.recover_transaction("0x" + signed) == ACCOUNT.address
    assert bytes.fromhex(signed) == bytes(ACCOUNT.sign_transaction(tx).raw_transaction)
    return signed


LEGACY_PRE155 = {"nonce": 7, "gasPrice": 20 * 10**9, "gas": 21000, "to": TO, "value": 10**18}
ACCESS_LIST = [
    {"address": "0x" + "22" * 20, "storageKeys": ["0x" + "00" * 31 + "01", "0x" + "ab" * 32]},
    {"address": "0x" + "33" * 20, "storageKeys": []},
]
EIP1559 = {
    "type": 2,
    "chainId": 1,
    "nonce": 3,
    "maxPriorityFeePerGas": 10**9,
    "maxFeePerGas": 3 * 10**10,
    "gas": 60000,
    "to": TO,
    "value": 12345,
    "data": bytes.fromhex("a9059cbb") + bytes(64),
    "accessList": [],
}


def test_legacy_pre_eip155():
    tx = {**LEGACY_PRE155, "data": b""}
    unsigned = unsigned_legacy(tx)
    parsed = parse_ethereum_transaction(unsigned.hex())
    assert (parsed.tx_type, parsed.chain_id, parsed.type_name) == (0, None, "LEGACY")
    assert (parsed.nonce, parsed.gas_price, parsed.gas, parsed.to) == (7, 20 * 10**9, 21000, TO)
    signed = check_signed(unsigned, tx)
    assert pyrlp.decode(bytes.fromhex(signed))[6][0] in (27, 28)


@pytest.mark.parametrize("chain_id", [1, 137, 11155111])
def test_legacy_eip155(chain_id):
    tx = {**LEGACY_PRE155, "data": b"\x01\x02", "chainId": chain_id}
    unsigned = unsigned_legacy(tx)
    assert parse_ethereum_transaction(unsigned.hex()).chain_id == chain_id
    signed = check_signed(unsigned, tx)
    v = int.from_bytes(pyrlp.decode(bytes.fromhex(signed))[6], "big")
    assert v - 35 - 2 * chain_id in (0, 1)


def test_eip2930_with_access_list():
    tx = {**LEGACY_PRE155, "type": 1, "chainId": 5, "data": b"\xff", "accessList": ACCESS_LIST}
    unsigned = unsigned_typed(tx)
    parsed = parse_ethereum_transaction(unsigned.hex())
    assert (parsed.tx_type, parsed.type_name, parsed.gas_price) == (1, "TYPE_1", 20 * 10**9)
    assert [e.address for e in parsed.access_list] == ["0x" + "22" * 20, "0x" + "33" * 20]
    assert parsed.access_list[0].storage_keys == (bytes(31) + b"\x01", b"\xab" * 32)
    assert parsed.access_list[1].storage_keys == ()
    check_signed(unsigned, tx)


def test_eip1559():
    unsigned = unsigned_typed(EIP1559)
    parsed = parse_ethereum_transaction(unsigned.hex())
    assert parsed.signing_digest == TypedTransaction.from_dict(EIP1559).hash()
    assert (parsed.max_fee_per_gas, parsed.max_priority_fee_per_gas) == (3 * 10**10, 10**9)
    assert (parsed.gas_price, parsed.value, parsed.data) == (None, 12345, EIP1559["data"])
    check_signed(unsigned, EIP1559)


def test_contract_creation():
    tx = {**EIP1559, "data": bytes.fromhex("6080604052")}
    del tx["to"]
    unsigned = unsigned_typed(tx)
    assert parse_ethereum_transaction(unsigned.hex()).to is None
    check_signed(unsigned, tx)
    legacy = {"nonce": 0, "gasPrice": 1, "gas": 100000, "value": 0, "data": b"\x60", "chainId": 1}
    unsigned = unsigned_legacy(legacy)
    assert parse_ethereum_transaction(unsigned.hex()).to is None
    check_signed(unsigned, legacy)


def test_eip7702_set_code():
    authority = Account.from_key(b"\x02" * 32)
    auth = authority.sign_authorization({"chainId": 1, "address": "0x" + "44" * 20, "nonce": 9})
    tx = {**EIP1559, "type": 4, "authorizationList": [auth]}
    unsigned = unsigned_typed(tx)
    parsed = parse_ethereum_transaction(unsigned.hex())
    assert parsed.type_name == "TYPE_4"
    (item,) = parsed.authorization_list
    assert (item.chain_id, item.address, item.nonce) == (1, "0x" + "44" * 20, 9)
    assert (item.y_parity, item.r, item.s) == (auth.y_parity, auth.r, auth.s)
    check_signed(unsigned, tx)


def test_eip4844_without_sidecar():
    hashes = ["0x01" + "ab" * 31, "0x01" + "cd" * 31]
    tx = {**EIP1559, "type": 3, "maxFeePerBlobGas": 77, "blobVersionedHashes": hashes}
    unsigned = unsigned_typed(tx)
    parsed = parse_ethereum_transaction(unsigned.hex())
    assert parsed.max_fee_per_blob_gas == 77
    assert parsed.blob_versioned_hashes == tuple(bytes.fromhex(h[2:]) for h in hashes)
    check_signed(unsigned, tx)


@settings(max_examples=25, deadline=None)
@given(
    nonce=st.integers(0, 2**64 - 1),
    fees=st.tuples(st.integers(0, 2**128), st.integers(0, 2**128)),
    gas=st.integers(21000, 2**63),
    value=st.integers(0, 2**256 - 1),
    data=st.binary(max_size=100),
    chain_id=st.integers(1, 2**63),
)
def test_eip1559_property(nonce, fees, gas, value, data, chain_id):
    tx = {
        **EIP1559,
        "nonce": nonce,
        "maxPriorityFeePerGas": min(fees),
        "maxFeePerGas": max(fees),
        "gas": gas,
        "value": value,
        "data": data,
        "chainId": chain_id,
    }
    check_signed(unsigned_typed(tx), tx)


def test_hex_prefix_and_case_are_accepted():
    unsigned = unsigned_typed(EIP1559).hex()
    expected = sign_ethereum_transaction(unsigned, coincurve_signer())
    for variant in ("0x" + unsigned, "0X" + unsigned.upper(), unsigned.upper()):
        assert sign_ethereum_transaction(variant, coincurve_signer()) == expected


def test_high_s_signature_is_normalised():
    unsigned = unsigned_typed(EIP1559).hex()
    signer = coincurve_signer()

    def high_s(digest: bytes) -> tuple[int, int, int]:
        r, s, recovery_id = signer(digest)
        return r, SECP256K1_N - s, recovery_id ^ 1

    assert sign_ethereum_transaction(unsigned, high_s) == sign_ethereum_transaction(
        unsigned, signer
    )


def test_sign_digest_receives_the_signing_hash():
    seen = []
    signer = coincurve_signer()

    def spy(digest: bytes) -> tuple[int, int, int]:
        seen.append(digest)
        return signer(digest)

    sign_ethereum_transaction(unsigned_typed(EIP1559).hex(), spy)
    assert seen == [TypedTransaction.from_dict(EIP1559).hash()]


def _typed(type_byte: int, fields: list) -> str:
    return (bytes([type_byte]) + pyrlp.encode(fields)).hex()


GOOD_1559 = unsigned_typed(EIP1559)
GOOD_FIELDS = pyrlp.decode(GOOD_1559[1:])
SIGNED_1559 = bytes(ACCOUNT.sign_transaction(EIP1559).raw_transaction)
TO_BYTES = bytes.fromhex(TO[2:])

MALFORMED_ETH = {
    "not hex": "zz",
    "empty": "",
    "bare prefix": "0x",
    "odd length": GOOD_1559.hex()[:-1],
    "whitespace": "02 " + GOOD_1559.hex()[2:],
    "trailing bytes": GOOD_1559.hex() + "00",
    "truncated": GOOD_1559.hex()[:-4],
    "legacy with 7 fields": pyrlp.encode([0, 1, 21000, TO_BYTES, 0, b"", 1]).hex(),
    "legacy not a list": pyrlp.encode(b"\x01" * 60).hex(),
    "typed with v r s": SIGNED_1559.hex(),
    "typed too short": _typed(2, GOOD_FIELDS[:-1]),
    "unknown type 0x05": _typed(5, GOOD_FIELDS),
    "unknown type 0x00": _typed(0, GOOD_FIELDS),
    "unknown type 0x7f": _typed(0x7F, GOOD_FIELDS),
    "typed payload not a list": _typed(2, b"abc"),
    "non-canonical nonce": _typed(2, [GOOD_FIELDS[0], b"\x00\x03", *GOOD_FIELDS[2:]]),
    "non-canonical legacy gas": pyrlp.encode([0, 1, b"\x00\x52\x08", TO_BYTES, 0, b""]).hex(),
    "nonce over 64 bits": _typed(2, [GOOD_FIELDS[0], 2**64, *GOOD_FIELDS[2:]]),
    "value over 256 bits": _typed(2, [*GOOD_FIELDS[:6], 2**256, *GOOD_FIELDS[7:]]),
    "19-byte to": _typed(2, [*GOOD_FIELDS[:5], TO_BYTES[:19], *GOOD_FIELDS[6:]]),
    "list as nonce": _typed(2, [GOOD_FIELDS[0], [], *GOOD_FIELDS[2:]]),
    "bad access list": _typed(2, [*GOOD_FIELDS[:8], [[TO_BYTES]]]),
    "short storage key": _typed(2, [*GOOD_FIELDS[:8], [[TO_BYTES, [b"\x01"]]]]),
    "eip155 already signed": pyrlp.encode([0, 1, 21000, TO_BYTES, 0, b"", 37, 5, 6]).hex(),
    "eip155 chain id 0": pyrlp.encode([0, 1, 21000, TO_BYTES, 0, b"", 0, 0, 0]).hex(),
    "7702 empty authorization list": _typed(4, [*GOOD_FIELDS, []]),
    "7702 contract creation": _typed(
        4, [*GOOD_FIELDS[:5], b"", *GOOD_FIELDS[6:], [[1, TO_BYTES, 0, 0, 1, 1]]]
    ),
    "7702 short authorization": _typed(4, [*GOOD_FIELDS, [[1, TO_BYTES, 0]]]),
    "4844 no blob hashes": _typed(3, [*GOOD_FIELDS, 1, []]),
    "4844 sidecar wrapper": _typed(3, [[*GOOD_FIELDS, 1, [bytes(32)]], [], [], []]),
}


@pytest.mark.parametrize("unsigned", MALFORMED_ETH.values(), ids=MALFORMED_ETH.keys())
def test_ethereum_malformed_inputs(unsigned):
    with pytest.raises(TransactionError) as parse_info:
        parse_ethereum_transaction(unsigned)
    assert str(parse_info.value).startswith(PARSE + ": ")
    with pytest.raises(TransactionError) as sign_info:
        sign_ethereum_transaction(unsigned, coincurve_signer())
    assert str(sign_info.value) == str(parse_info.value)


def test_typed_with_signature_explains_why():
    with pytest.raises(TransactionError, match="must not contain v, r, s"):
        parse_ethereum_transaction(SIGNED_1559.hex())


def test_non_string_input_is_a_parse_error():
    with pytest.raises(TransactionError, match=PARSE):
        parse_ethereum_transaction(GOOD_1559)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------- Solana

BLOCKHASH = Hash(bytes([9]) * 32)


def nacl_key(seed_byte: int) -> tuple[nacl.signing.SigningKey, Keypair]:
    seed = bytes([seed_byte]) * 32
    return nacl.signing.SigningKey(seed), Keypair.from_seed(seed)


PAYER_NACL, PAYER = nacl_key(1)
SECOND_NACL, SECOND = nacl_key(2)
RECIPIENT = Keypair.from_seed(bytes([3]) * 32).pubkey()


def nacl_signer(key: nacl.signing.SigningKey):
    return lambda message: key.sign(message).signature


def pay(source: Pubkey, lamports: int = 5000):
    return transfer(TransferParams(from_pubkey=source, to_pubkey=RECIPIENT, lamports=lamports))


def legacy_message() -> Message:
    return Message.new_with_blockhash([pay(PAYER.pubkey())], PAYER.pubkey(), BLOCKHASH)


def v0_message() -> MessageV0:
    table = AddressLookupTableAccount(Pubkey(bytes([5]) * 32), [RECIPIENT, Pubkey(bytes([6]) * 32)])
    return MessageV0.try_compile(PAYER.pubkey(), [pay(PAYER.pubkey())], [table], BLOCKHASH)


def unsigned_tx_hex(message) -> str:
    slots = [Signature.default()] * message.header.num_required_signatures
    return bytes(VersionedTransaction.populate(message, slots)).hex()


def check_solana(signed_hex: str, message_bytes: bytes) -> VersionedTransaction:
    tx = VersionedTransaction.from_bytes(bytes.fromhex(signed_hex))
    assert all(tx.verify_with_results())
    assert to_bytes_versioned(tx.message) == message_bytes
    Ed25519PublicKey.from_public_bytes(bytes(PAYER.pubkey())).verify(
        bytes(tx.signatures[0]), message_bytes
    )
    return tx


@pytest.mark.parametrize("build", [legacy_message, v0_message], ids=["legacy", "v0"])
def test_solana_full_transaction_and_bare_message(build):
    message = build()
    message_bytes = to_bytes_versioned(message)
    signer = nacl_signer(PAYER_NACL)
    from_tx = sign_solana_transaction(unsigned_tx_hex(message), bytes(PAYER.pubkey()), signer)
    from_message = sign_solana_transaction(message_bytes.hex(), bytes(PAYER.pubkey()), signer)
    assert from_tx == from_message == from_tx.lower()
    check_solana(from_tx, message_bytes)


def test_solana_parse_legacy():
    message = legacy_message()
    parsed = parse_solana_transaction(unsigned_tx_hex(message))
    assert parsed.version == "legacy" and not parsed.bare_message
    assert parsed.num_required_signatures == 1
    assert parsed.account_keys == [bytes(k) for k in message.account_keys]
    assert parsed.account_addresses == [str(k) for k in message.account_keys]
    assert parsed.recent_blockhash == bytes(BLOCKHASH)
    assert parsed.message_bytes == bytes(message)
    assert parsed.existing_signatures == [bytes(64)]
    (ix,) = parsed.instructions
    (expected,) = message.instructions
    assert (ix.program_id_index, ix.accounts, ix.data) == (
        expected.program_id_index,
        tuple(expected.accounts),
        bytes(expected.data),
    )


def test_solana_parse_v0_lookups():
    message = v0_message()
    parsed = parse_solana_transaction(to_bytes_versioned(message).hex())
    assert parsed.version == 0 and parsed.bare_message
    assert parsed.existing_signatures == [bytes(64)]
    (lookup,) = parsed.address_table_lookups
    (expected,) = message.address_table_lookups
    assert lookup.account_key == bytes(expected.account_key)
    assert lookup.writable_indexes == tuple(expected.writable_indexes)
    assert lookup.readonly_indexes == tuple(expected.readonly_indexes)
    assert RECIPIENT not in message.account_keys  # it comes from the lookup table


def test_solana_second_signer_slot():
    message = Message.new_with_blockhash([pay(SECOND.pubkey())], PAYER.pubkey(), BLOCKHASH)
    assert message.header.num_required_signatures == 2
    partly = sign_solana_transaction(
        bytes(message).hex(), bytes(SECOND.pubkey()), nacl_signer(SECOND_NACL)
    )
    tx = VersionedTransaction.from_bytes(bytes.fromhex(partly))
    assert bytes(tx.signatures[0]) == bytes(64)
    assert tx.verify_with_results() == [False, True]
    Ed25519PublicKey.from_public_bytes(bytes(SECOND.pubkey())).verify(
        bytes(tx.signatures[1]), bytes(message)
    )
    full = sign_solana_transaction(partly, bytes(PAYER.pubkey()), nacl_signer(PAYER_NACL))
    tx = check_solana(full, bytes(message))
    assert bytes(tx.signatures[1]) == bytes.fromhex(partly)[65:129]


@pytest.mark.parametrize(
    "who", [RECIPIENT, Pubkey(bytes([8]) * 32)], ids=["non-signer account", "absent"]
)
def test_solana_signer_not_required(who):
    with pytest.raises(TransactionError) as info:
        sign_solana_transaction(unsigned_tx_hex(legacy_message()), bytes(who), lambda m: bytes(64))
    assert str(info.value) == f"failed to sign transaction: {who} is not a required signer"


def _legacy_bytes() -> bytes:
    return bytes(legacy_message())


def _with_program_index(index: int) -> bytes:
    """The legacy transfer message with its instruction's program index replaced."""
    data = bytearray(_legacy_bytes())
    assert data[-17] == legacy_message().instructions[0].program_id_index  # ix data is 12 bytes
    data[-17] = index
    return bytes(data)


MALFORMED_SOL = {
    "not hex": "zz",
    "empty": "",
    "garbage": "deadbeef",
    "one zero byte": "00",
    "truncated message": _legacy_bytes()[:-3].hex(),
    "trailing bytes": (_legacy_bytes() + b"\x00").hex(),
    "unsupported version": (b"\x81" + _legacy_bytes()).hex(),
    "too many signature slots": (encode_compact_u16(2) + bytes(128) + _legacy_bytes()).hex(),
    "non-canonical slot count": (b"\x81\x00" + bytes(64) + _legacy_bytes()).hex(),
    "program index out of range": _with_program_index(7).hex(),
    "fee payer as program": _with_program_index(0).hex(),
    "v0 without lookup section": bytes(v0_message()).hex(),
}


@pytest.mark.parametrize("unsigned", MALFORMED_SOL.values(), ids=MALFORMED_SOL.keys())
def test_solana_malformed_inputs(unsigned):
    with pytest.raises(TransactionError) as info:
        sign_solana_transaction(unsigned, bytes(PAYER.pubkey()), nacl_signer(PAYER_NACL))
    assert str(info.value).startswith(PARSE + ": ")


def test_solana_hex_prefix_and_case():
    hex_tx = unsigned_tx_hex(legacy_message())
    signer = nacl_signer(PAYER_NACL)
    expected = sign_solana_transaction(hex_tx, bytes(PAYER.pubkey()), signer)
    assert sign_solana_transaction("0X" + hex_tx.upper(), bytes(PAYER.pubkey()), signer) == (
        expected
    )


@pytest.mark.parametrize(
    ("value", "encoded"),
    [(0, "00"), (127, "7f"), (128, "8001"), (16383, "ff7f"), (16384, "808001"), (65535, "ffff03")],
)
def test_compact_u16_encoding(value, encoded):
    assert encode_compact_u16(value).hex() == encoded
