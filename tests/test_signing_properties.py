"""Properties of keys and signing, through the engine's facade, checked with other libraries.

* any payload signs, and the signature verifies (eth-keys, cryptography), with a low S;
* any valid path derives the key bip-utils derives, and an ed25519 path with a normal
  step is the real 400 "invalid path";
* a rejected activity changes nothing (``tests.helpers.state_digest``);
* a seeded emulator answers the same ids, addresses and signatures every time.
"""

from __future__ import annotations

import hashlib
import json
import re

from bip_utils import Bip32Slip10Ed25519, Bip32Slip10Secp256k1, Bip39SeedGenerator
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, encode_dss_signature
from eth_keys import keys as eth_keys
from eth_utils import keccak
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator import Clock, Emulator, TurnkeyApiError
from emulator.accounts import account_spec

from .helpers import state_digest

HEX = "PAYLOAD_ENCODING_HEXADECIMAL"
TEXT = "PAYLOAD_ENCODING_TEXT_UTF8"
NO_OP = "HASH_FUNCTION_NO_OP"
SHA256 = "HASH_FUNCTION_SHA256"
KECCAK = "HASH_FUNCTION_KECCAK256"
NOT_APPLICABLE = "HASH_FUNCTION_NOT_APPLICABLE"
SECP256K1 = "CURVE_SECP256K1"
ED25519 = "CURVE_ED25519"
P256 = "CURVE_P256"
HARDENED = 2**31

SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
P256_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551

MNEMONICS = (
    "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
    "illness spike retreat truth genius clock brain pass fit cave bargain toe",
    "shoot island position soft burden budget tooth cruel issue economy destroy above",
)
ED25519_FORMATS = (
    "ADDRESS_FORMAT_COMPRESSED",
    "ADDRESS_FORMAT_SOLANA",
    "ADDRESS_FORMAT_SUI",
    "ADDRESS_FORMAT_APTOS",
    "ADDRESS_FORMAT_XLM",
)
SECP256K1_ONLY_FORMATS = (
    "ADDRESS_FORMAT_ETHEREUM",
    "ADDRESS_FORMAT_COSMOS",
    "ADDRESS_FORMAT_TRON",
    "ADDRESS_FORMAT_SEI",
    "ADDRESS_FORMAT_XRP",
    "ADDRESS_FORMAT_DOGE_MAINNET",
    "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH",
    "ADDRESS_FORMAT_BITCOIN_TESTNET_P2TR",
)
ED25519_ONLY_FORMATS = (
    "ADDRESS_FORMAT_SOLANA",
    "ADDRESS_FORMAT_SUI",
    "ADDRESS_FORMAT_APTOS",
    "ADDRESS_FORMAT_XLM",
    "ADDRESS_FORMAT_TON_V4R2",
)

PROPERTY = settings(max_examples=30, deadline=None)

# --- one emulator for the module ------------------------------------------------------

EMU = Emulator()
ORG = EMU.create_organization("signing properties")
WALLETS = {
    mnemonic: EMU.backdoor.import_wallet(mnemonic, name=f"wallet {i}")["walletId"]
    for i, mnemonic in enumerate(MNEMONICS)
}
SEEDS = {mnemonic: Bip39SeedGenerator(mnemonic).Generate() for mnemonic in MNEMONICS}
SIGNING_WALLET = EMU.create_wallet(
    wallet_name="signing",
    accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM"), account_spec("ADDRESS_FORMAT_SOLANA")],
)
SECP_ADDRESS, ED_ADDRESS = SIGNING_WALLET["addresses"]


def _public_key(address: str) -> str:
    wallet_id = SIGNING_WALLET["walletId"]
    return EMU.get_wallet_account(wallet_id=wallet_id, address=address)["account"]["publicKey"]


SECP_PUBLIC_KEY = _public_key(SECP_ADDRESS)
ED_PUBLIC_KEY = _public_key(ED_ADDRESS)
P256_KEY_ID = EMU.create_private_keys(
    private_keys=[
        {"privateKeyName": "p256", "curve": P256, "privateKeyTags": [], "addressFormats": []}
    ]
)["privateKeys"][0]["privateKeyId"]
P256_PUBLIC_KEY = EMU.get_private_key(private_key_id=P256_KEY_ID)["privateKey"]["publicKey"]
TAG_ID = EMU.create_private_key_tag(private_key_tag_name="tag", private_key_ids=[])[
    "privateKeyTagId"
]


def sign(sign_with: str, payload: str, encoding: str, hash_function: str) -> tuple[int, int, int]:
    made = EMU.sign_raw_payload(
        sign_with=sign_with, payload=payload, encoding=encoding, hash_function=hash_function
    )
    assert made["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    return int(made["r"], 16), int(made["s"], 16), int(made["v"], 16)


def digest_of(data: bytes, hash_function: str) -> bytes:
    if hash_function == SHA256:
        return hashlib.sha256(data).digest()
    if hash_function == KECCAK:
        return keccak(data)
    assert len(data) == 32
    return data


def payloads_and_hashes():
    """(bytes, hash function): any bytes hashed, or exactly 32 bytes as the digest itself.

    At least one byte: an empty ``payload`` is a missing required field (400).
    """
    hashed = st.tuples(st.binary(min_size=1, max_size=300), st.sampled_from([SHA256, KECCAK]))
    raw = st.tuples(st.binary(min_size=32, max_size=32), st.just(NO_OP))
    return st.one_of(hashed, raw)


# --- any payload signs and verifies ---------------------------------------------------


@PROPERTY
@given(case=payloads_and_hashes(), prefixed=st.booleans())
def test_any_payload_signs_on_secp256k1_and_recovers_the_key(case, prefixed):
    data, hash_function = case
    payload = ("0x" if prefixed else "") + data.hex()
    r, s, v = sign(SECP_ADDRESS, payload, HEX, hash_function)
    assert 0 < r < SECP256K1_N
    assert 0 < s <= SECP256K1_N // 2
    assert v in (0, 1)
    signature = eth_keys.Signature(vrs=(v, r, s))
    recovered = signature.recover_public_key_from_msg_hash(digest_of(data, hash_function))
    assert recovered.to_compressed_bytes().hex() == SECP_PUBLIC_KEY


@PROPERTY
@given(text=st.text(min_size=1, max_size=200))
def test_any_text_signs_on_ed25519_and_verifies(text):
    made = EMU.sign_raw_payload(
        sign_with=ED_ADDRESS, payload=text, encoding=TEXT, hash_function=NOT_APPLICABLE
    )
    assert made["v"] == "00"
    signature = bytes.fromhex(made["r"] + made["s"])
    Ed25519PublicKey.from_public_bytes(bytes.fromhex(ED_PUBLIC_KEY)).verify(
        signature, text.encode("utf-8")
    )


@PROPERTY
@given(case=payloads_and_hashes())
def test_any_payload_signs_on_p256_and_verifies(case):
    data, hash_function = case
    r, s, v = sign(P256_KEY_ID, data.hex(), HEX, hash_function)
    assert 0 < r < P256_N
    assert 0 < s <= P256_N // 2
    assert v in (0, 1, 2, 3)
    public_key = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), bytes.fromhex(P256_PUBLIC_KEY)
    )
    public_key.verify(
        encode_dss_signature(r, s),
        digest_of(data, hash_function),
        ec.ECDSA(Prehashed(hashes.SHA256())),
    )


# --- any valid path derives -----------------------------------------------------------

indices = st.integers(min_value=0, max_value=HARDENED - 1)
secp256k1_steps = st.lists(st.tuples(indices, st.booleans()), min_size=1, max_size=6)
hardened_steps = st.lists(st.tuples(indices, st.just(True)), min_size=1, max_size=6)
steps_with_a_normal_one = st.lists(st.tuples(indices, st.booleans()), min_size=1, max_size=6).map(
    lambda steps: [*steps, (steps[0][0], False)]
)


def path_of(steps: list[tuple[int, bool]]) -> str:
    return "m/" + "/".join(f"{i}'" if hardened else str(i) for i, hardened in steps)


_MADE: dict[tuple[str, str, str, str], str] = {}


def account_public_key(mnemonic: str, curve: str, path: str, address_format: str) -> str:
    """The publicKey of the account at ``path``, made through the API once per key."""
    wallet_id = WALLETS[mnemonic]
    key = (mnemonic, curve, path, address_format)
    if key not in _MADE:
        spec = {
            "curve": curve,
            "pathFormat": "PATH_FORMAT_BIP32",
            "path": path,
            "addressFormat": address_format,
        }
        (_MADE[key],) = EMU.create_wallet_accounts(wallet_id=wallet_id, accounts=[spec])[
            "addresses"
        ]
    account = EMU.get_wallet_account(wallet_id=wallet_id, address=_MADE[key])["account"]
    assert (account["curve"], account["path"], account["addressFormat"]) == key[1:]
    return account["publicKey"]


@PROPERTY
@given(mnemonic=st.sampled_from(MNEMONICS), steps=secp256k1_steps)
def test_any_secp256k1_path_derives_what_bip_utils_derives(mnemonic, steps):
    path = path_of(steps)
    public_key = account_public_key(mnemonic, SECP256K1, path, "ADDRESS_FORMAT_COMPRESSED")
    expected = Bip32Slip10Secp256k1.FromSeed(SEEDS[mnemonic]).DerivePath(path)
    assert public_key == expected.PublicKey().RawCompressed().ToHex()


@PROPERTY
@given(
    mnemonic=st.sampled_from(MNEMONICS),
    steps=hardened_steps,
    address_format=st.sampled_from(ED25519_FORMATS),
)
def test_any_hardened_ed25519_path_derives_what_bip_utils_derives(mnemonic, steps, address_format):
    path = path_of(steps)
    public_key = account_public_key(mnemonic, ED25519, path, address_format)
    expected = Bip32Slip10Ed25519.FromSeed(SEEDS[mnemonic]).DerivePath(path)
    raw = expected.PublicKey().RawCompressed().ToHex()
    assert raw.startswith("00")
    assert public_key == raw[2:]


@PROPERTY
@given(mnemonic=st.sampled_from(MNEMONICS), steps=steps_with_a_normal_one)
def test_an_ed25519_path_with_a_normal_step_is_invalid(mnemonic, steps):
    path = path_of(steps)
    spec = {
        "curve": ED25519,
        "pathFormat": "PATH_FORMAT_BIP32",
        "path": path,
        "addressFormat": "ADDRESS_FORMAT_SOLANA",
    }
    before = state_digest(EMU)
    try:
        EMU.create_wallet_accounts(wallet_id=WALLETS[mnemonic], accounts=[spec])
    except TurnkeyApiError as error:
        assert error.status == 400
        assert error.message.startswith("invalid path")
    else:
        raise AssertionError(f"{path} derived on ed25519")
    assert state_digest(EMU) == before


# --- a failed activity changes nothing ------------------------------------------------

_VALID_PATH = re.compile(r"m(/[0-9]+['h]?)*")


def _valid(path: str) -> bool:
    if not _VALID_PATH.fullmatch(path):
        return False
    return all(int(part.rstrip("'h")) < HARDENED for part in path.split("/")[1:])


def _account(curve: str, path: str, address_format: str) -> dict:
    return {
        "curve": curve,
        "pathFormat": "PATH_FORMAT_BIP32",
        "path": path,
        "addressFormat": address_format,
    }


def _sign_request(sign_with: str, payload: str, hash_function: str, encoding: str = HEX):
    return (
        "sign_raw_payload",
        {
            "sign_with": sign_with,
            "payload": payload,
            "encoding": encoding,
            "hash_function": hash_function,
        },
    )


unknown_signers = st.one_of(
    st.text(max_size=60), st.uuids().map(str), st.just(SECP_ADDRESS.lower())
).filter(lambda value: value not in (SECP_ADDRESS, ED_ADDRESS, P256_KEY_ID))
bad_sign_with = unknown_signers.map(lambda who: _sign_request(who, "00" * 32, NO_OP))

bad_hash_for_curve = st.one_of(
    st.sampled_from([SHA256, KECCAK, NO_OP]).map(lambda h: _sign_request(ED_ADDRESS, "00" * 32, h)),
    st.sampled_from([SECP_ADDRESS, P256_KEY_ID]).map(
        lambda who: _sign_request(who, "00" * 32, NOT_APPLICABLE)
    ),
)
wrong_length_no_op = st.tuples(
    st.sampled_from([SECP_ADDRESS, P256_KEY_ID]),
    st.binary(max_size=80).filter(lambda data: len(data) != 32),
).map(lambda case: _sign_request(case[0], case[1].hex(), NO_OP))
not_hex = st.tuples(
    st.sampled_from([SECP_ADDRESS, P256_KEY_ID]),
    st.text(min_size=1, max_size=40).filter(
        lambda t: not re.fullmatch(r"(0[xX])?([0-9a-fA-F]{2})*", t)
    ),
).map(lambda case: _sign_request(case[0], case[1], SHA256))

invalid_paths = st.one_of(
    st.text(max_size=30),
    st.lists(st.sampled_from(["m", "/", "0", "1'", "h", "'", "-", " ", "44", "x"]), max_size=8).map(
        "".join
    ),
    st.integers(min_value=HARDENED, max_value=2**40).map(lambda i: f"m/44'/{i}"),
).filter(lambda path: not _valid(path))
bad_path = st.tuples(
    st.sampled_from(MNEMONICS),
    st.one_of(
        invalid_paths.map(lambda p: _account(SECP256K1, p, "ADDRESS_FORMAT_COMPRESSED")),
        steps_with_a_normal_one.map(
            lambda steps: _account(ED25519, path_of(steps), "ADDRESS_FORMAT_SOLANA")
        ),
    ),
    secp256k1_steps,
    st.booleans(),
).map(
    # A valid account beside the bad one: it must not be stored either.
    lambda case: (
        "create_wallet_accounts",
        {
            "wallet_id": WALLETS[case[0]],
            "accounts": (
                [_account(SECP256K1, path_of(case[2]), "ADDRESS_FORMAT_ETHEREUM"), case[1]]
                if case[3]
                else [case[1]]
            ),
        },
    )
)


def _wrong_format_requests(case: tuple[str, str]) -> list:
    curve, address_format = case
    account = _account(curve, "m/44'/1'/2'", address_format)
    key = {
        "privateKeyName": "wrong format",
        "curve": curve,
        "privateKeyTags": [],
        "addressFormats": [address_format],
    }
    return [
        ("create_wallet_accounts", {"wallet_id": WALLETS[MNEMONICS[0]], "accounts": [account]}),
        ("create_private_keys", {"private_keys": [key]}),
    ]


wrong_format_for_curve = st.one_of(
    st.tuples(st.just(ED25519), st.sampled_from(SECP256K1_ONLY_FORMATS)),
    st.tuples(st.just(SECP256K1), st.sampled_from(ED25519_ONLY_FORMATS)),
    st.tuples(st.just(P256), st.sampled_from(SECP256K1_ONLY_FORMATS + ED25519_ONLY_FORMATS)),
).flatmap(lambda case: st.sampled_from(_wrong_format_requests(case)))
duplicate_wallet_name = st.sampled_from(["wallet 0", "wallet 1", "signing"]).map(
    lambda name: (
        "create_wallet",
        {"wallet_name": name, "accounts": [account_spec("ADDRESS_FORMAT_ETHEREUM")]},
    )
)
unknown_wallet_in_delete = st.tuples(st.uuids().map(str), st.booleans(), st.booleans()).map(
    lambda case: (
        "delete_wallets",
        {
            # With a real wallet first, which must survive.
            "wallet_ids": [WALLETS[MNEMONICS[2]], case[0]] if case[1] else [case[0]],
            "delete_without_export": case[2],
        },
    )
)
unknown_tag = st.tuples(st.uuids().map(str), st.text(min_size=1, max_size=20)).map(
    lambda case: (
        "update_private_key_tag",
        {
            "private_key_tag_id": case[0],
            "new_private_key_tag_name": case[1],
            "add_private_key_ids": [P256_KEY_ID],
            "remove_private_key_ids": [],
        },
    )
)
# A known tag, renamed, with an unknown key to add: the rename must not stick.
unknown_key_in_tag = st.uuids().map(
    lambda key_id: (
        "update_private_key_tag",
        {
            "private_key_tag_id": TAG_ID,
            "new_private_key_tag_name": "renamed",
            "add_private_key_ids": [P256_KEY_ID, str(key_id)],
            "remove_private_key_ids": [],
        },
    )
)
invalid_requests = st.one_of(
    bad_sign_with,
    bad_hash_for_curve,
    wrong_length_no_op,
    not_hex,
    bad_path,
    wrong_format_for_curve,
    duplicate_wallet_name,
    unknown_wallet_in_delete,
    unknown_tag,
    unknown_key_in_tag,
)


@settings(max_examples=30, deadline=None)
@given(request=invalid_requests)
def test_a_failed_activity_changes_nothing(request):
    operation, parameters = request
    before = state_digest(EMU)
    try:
        getattr(EMU, operation)(**parameters)
    except TurnkeyApiError as error:
        assert 400 <= error.status < 500, error.body()
    else:
        raise AssertionError(f"{operation} {parameters} succeeded")
    assert state_digest(EMU) == before


# --- determinism ----------------------------------------------------------------------

FROZEN_AT_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def comparable(answer: dict) -> str:
    """An answer as text; the facade signs no stamps, so its votes' signatures are empty."""
    for vote in answer["activity"]["votes"]:
        assert vote["signature"] == ""
    return json.dumps(answer, sort_keys=True)


def seeded_run(seed: int) -> list:
    clock = Clock()
    clock.freeze(FROZEN_AT_MS)
    emu = Emulator(seed=seed, clock=clock)
    org = emu.create_organization("deterministic")
    wallet = emu.create_wallet(
        wallet_name="w",
        accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM"), account_spec("ADDRESS_FORMAT_SOLANA")],
    )
    keys = emu.create_private_keys(
        private_keys=[
            {
                "privateKeyName": name,
                "curve": curve,
                "privateKeyTags": [],
                "addressFormats": formats,
            }
            for name, curve, formats in (
                ("k1", SECP256K1, ["ADDRESS_FORMAT_ETHEREUM"]),
                ("p256", P256, []),
                ("ed", ED25519, ["ADDRESS_FORMAT_SOLANA"]),
            )
        ]
    )
    signatures = [
        emu.sign_raw_payload(
            sign_with=who, payload=payload, encoding=encoding, hash_function=hash_function
        )
        for who, payload, encoding, hash_function in (
            (wallet["addresses"][0], "00" * 32, HEX, NO_OP),
            (wallet["addresses"][1], "hello", TEXT, NOT_APPLICABLE),
            (keys["privateKeys"][0]["privateKeyId"], "abcd", HEX, KECCAK),
            (keys["privateKeys"][1]["privateKeyId"], "abcd", HEX, SHA256),
            (keys["privateKeys"][2]["addresses"][0]["address"], "abcd", HEX, NOT_APPLICABLE),
        )
    ]
    return [
        [org.organization_id, org.user_id, org.api_key_id, org.api_public_key],
        comparable(wallet),
        comparable(keys),
        [comparable(s) for s in signatures],
        emu.backdoor.mnemonic(wallet["walletId"]),
    ]


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**64))
def test_a_seeded_emulator_answers_the_same(seed):
    first = seeded_run(seed)
    assert seeded_run(seed) == first
    # The answers carry the ids, addresses and signatures themselves.
    assert '"r": ' in first[3][0] and '"walletId": ' in first[1]
    other = seeded_run(seed + 1)
    assert other[0][0] != first[0][0]
    assert other[4] != first[4]
