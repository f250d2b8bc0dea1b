"""Exports and imports that fail: each answers its error and changes nothing (``fails``
compares ``state_digest`` before and after), and no error quotes key material. A
failed import leaves its target in place; a successful one uses it up."""

from __future__ import annotations

import pytest

from emulator import Emulator, Settings
from emulator.accounts import account_spec
from emulator.crypto.curves import P256_ORDER, SECP256K1_ORDER
from emulator.ground import messages
from emulator.testing.client_crypto import TargetKey, encrypt_to_bundle

from .helpers import NIL_UUID, add_user, error_of, fails, violations
from .test_export_import import (
    ABANDON,
    ED25519,
    ETH,
    ETH_DOC_KEY,
    P256,
    SECP256K1,
    key_bundle,
    sealed_for_import,
    wallet_bundle,
)

IMPORT_BUNDLE = messages.IMPORT_BUNDLE_DOES_NOT_OPEN


@pytest.fixture
def emu(turnkey_emulator, turnkey_org):
    return turnkey_emulator


@pytest.fixture
def target() -> TargetKey:
    return TargetKey.generate(b"\x09" * 32)


def bad_request(message: str, code: str = "") -> tuple:
    return (400, 3, message, code)


def import_wallet(emu, org, encrypted: str, name: str = "w", **extra):
    return emu.import_wallet(
        user_id=extra.pop("user_id", org.user_id),
        wallet_name=name,
        encrypted_bundle=encrypted,
        accounts=[account_spec(ETH)],
        **extra,
    )


def import_key(emu, org, encrypted: str, curve: str = SECP256K1, name: str = "k", **extra):
    return emu.import_private_key(
        user_id=extra.pop("user_id", org.user_id),
        private_key_name=name,
        encrypted_bundle=encrypted,
        curve=curve,
        address_formats=extra.pop("address_formats", []),
        **extra,
    )


# ----- exports ----------------------------------------------------------------------------


def test_exports_of_unknown_resources_are_404(emu, turnkey_org, target):
    org_id = turnkey_org.organization_id
    error = fails(emu, emu.export_wallet, wallet_id=NIL_UUID, target_public_key=target.public_key)
    assert error_of(error) == (404, 5, messages.wallet_not_found(NIL_UUID, org_id), "")
    error = fails(
        emu, emu.export_private_key, private_key_id=NIL_UUID, target_public_key=target.public_key
    )
    assert error_of(error) == (404, 5, messages.private_key_not_found(NIL_UUID, org_id), "")
    spec = {
        "privateKeyName": "k",
        "curve": SECP256K1,
        "privateKeyTags": [],
        "addressFormats": [ETH],
    }
    key = emu.create_private_keys(private_keys=[spec])["privateKeys"][0]
    # A private key's address is no wallet account.
    for address in ("0x" + "00" * 20, key["addresses"][0]["address"]):
        error = fails(
            emu, emu.export_wallet_account, address=address, target_public_key=target.public_key
        )
        assert error_of(error) == (404, 5, messages.wallet_account_not_found(address), "")


BAD_TARGETS = [
    "04" + "00" * 64,  # not on the curve
    "02" + "ff" * 32,  # x out of range
    "05" + "11" * 64,  # no such prefix
    "abcd",  # too short
    "abc",  # odd length
    "04" + "11" * 32,  # a compressed length with the uncompressed prefix
]


@pytest.mark.parametrize("bad", BAD_TARGETS)
def test_a_target_public_key_that_is_no_p256_key_is_refused(emu, bad):
    made = emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH)])
    spec = {"privateKeyName": "k", "curve": SECP256K1, "privateKeyTags": [], "addressFormats": []}
    key_id = emu.create_private_keys(private_keys=[spec])["privateKeys"][0]["privateKeyId"]
    expected = bad_request(messages.invalid_target_public_key(bad))
    for call, params in (
        (emu.export_wallet, {"wallet_id": made["walletId"]}),
        (emu.export_private_key, {"private_key_id": key_id}),
        (emu.export_wallet_account, {"address": made["addresses"][0]}),
    ):
        assert error_of(fails(emu, call, target_public_key=bad, **params)) == expected
    assert emu.get_wallet(wallet_id=made["walletId"])["wallet"]["exported"] is False


@pytest.mark.parametrize("bad", ["zz", "0x04ab", "04 ab", "hello"])
def test_a_target_public_key_must_be_hex(emu, bad):
    wallet_id = emu.create_wallet(wallet_name="w", accounts=[])["walletId"]
    error = fails(emu, emu.export_wallet, wallet_id=wallet_id, target_public_key=bad)
    assert error_of(error) == bad_request(
        "invalid request (fieldViolations: targetPublicKey)", "REQUEST_INVALID"
    )
    assert violations(error) == [
        {
            "field": "targetPublicKey",
            "description": "This field must be a valid hexadecimal string.",
        }
    ]


def test_export_wallet_languages(emu, target):
    wallet_id = emu.create_wallet(wallet_name="w", accounts=[])["walletId"]
    japanese = "MNEMONIC_LANGUAGE_JAPANESE"
    error = fails(
        emu,
        emu.export_wallet,
        wallet_id=wallet_id,
        target_public_key=target.public_key,
        language=japanese,
    )
    assert error_of(error) == bad_request(messages.unsupported_mnemonic_language(japanese))
    error = fails(
        emu,
        emu.export_wallet,
        wallet_id=wallet_id,
        target_public_key=target.public_key,
        language="MNEMONIC_LANGUAGE_KLINGON",
    )
    assert [v["field"] for v in violations(error)] == ["language"]


# ----- import targets -------------------------------------------------------------------


def test_an_import_needs_an_init_of_its_kind(emu, turnkey_org):
    user_id = turnkey_org.user_id
    sealed = encrypt_to_bundle(TargetKey.generate(b"\x01" * 32).public_key, ABANDON.encode())
    error = fails(emu, import_wallet, emu, turnkey_org, sealed)
    assert error_of(error) == bad_request(messages.import_target_not_found("wallet", user_id))
    assert messages.import_target_not_found("wallet", user_id) == (
        f"no import target found for user: call init_import_wallet first userId={user_id}"
    )
    error = fails(emu, import_key, emu, turnkey_org, sealed)
    assert error_of(error) == bad_request(messages.import_target_not_found("private_key", user_id))
    # A wallet target does not serve a private key import.
    encrypted = wallet_bundle(emu, turnkey_org)
    error = fails(emu, import_key, emu, turnkey_org, encrypted)
    assert error_of(error) == bad_request(messages.import_target_not_found("private_key", user_id))


def test_a_target_is_used_once(emu, turnkey_org):
    encrypted = wallet_bundle(emu, turnkey_org)
    import_wallet(emu, turnkey_org, encrypted)
    error = fails(emu, import_wallet, emu, turnkey_org, encrypted, name="again")
    assert error_of(error) == bad_request(
        messages.import_target_not_found("wallet", turnkey_org.user_id)
    )
    encrypted = key_bundle(emu, turnkey_org, bytes.fromhex(ETH_DOC_KEY))
    import_key(emu, turnkey_org, encrypted)
    error = fails(emu, import_key, emu, turnkey_org, encrypted, name="again")
    assert error_of(error) == bad_request(
        messages.import_target_not_found("private_key", turnkey_org.user_id)
    )


def test_a_failed_import_keeps_its_target(emu, turnkey_org):
    emu.create_wallet(wallet_name="taken", accounts=[])
    encrypted = wallet_bundle(emu, turnkey_org)
    error = fails(emu, import_wallet, emu, turnkey_org, encrypted, name="taken")
    assert error_of(error) == bad_request(
        "invalid request (fieldViolations: walletName)", "REQUEST_INVALID"
    )
    assert violations(error) == [
        {"field": "walletName", "description": "This field must be unique."}
    ]
    assert import_wallet(emu, turnkey_org, encrypted, name="free")["addresses"] == [
        "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
    ]


def test_a_bundle_sealed_to_a_replaced_target_does_not_open(emu, turnkey_org):
    first = emu.init_import_wallet(user_id=turnkey_org.user_id)["importBundle"]
    emu.init_import_wallet(user_id=turnkey_org.user_id)
    stale = sealed_for_import(emu, turnkey_org, first, ABANDON.encode())
    error = fails(emu, import_wallet, emu, turnkey_org, stale)
    assert error_of(error) == bad_request(IMPORT_BUNDLE)


@pytest.mark.parametrize(
    "bundle",
    [
        "nope",
        "{}",
        "[]",
        '{"encappedPublic": "zz", "ciphertext": "00"}',
        '{"encappedPublic": "04' + "00" * 64 + '", "ciphertext": "00"}',
        None,  # sealed to a key that is not the target
    ],
)
def test_a_bundle_that_does_not_open_is_refused(emu, turnkey_org, bundle):
    emu.init_import_wallet(user_id=turnkey_org.user_id)
    if bundle is None:
        bundle = encrypt_to_bundle(TargetKey.generate(b"\x02" * 32).public_key, ABANDON.encode())
    error = fails(emu, import_wallet, emu, turnkey_org, bundle)
    assert error_of(error) == bad_request(IMPORT_BUNDLE)


def test_imports_must_target_the_requesting_user(emu, turnkey_org):
    other_id, other_key = add_user(emu, "other")
    root_id = turnkey_org.user_id
    for init in (emu.init_import_wallet, emu.init_import_private_key):
        error = fails(emu, init, user_id=other_id)
        assert error_of(error) == bad_request(messages.import_not_own_user(other_id, root_id))
    assert messages.import_not_own_user(other_id, root_id) == (
        f"import requests must target your own user userId={other_id} requestingUserId={root_id}"
    )
    # A target of the caller's does not let them import for another user either.
    encrypted = wallet_bundle(emu, turnkey_org)
    error = fails(emu, import_wallet, emu, turnkey_org, encrypted, user_id=other_id)
    assert error_of(error) == bad_request(messages.import_not_own_user(other_id, root_id))
    encrypted = key_bundle(emu, turnkey_org, bytes.fromhex(ETH_DOC_KEY))
    error = fails(emu, import_key, emu, turnkey_org, encrypted, user_id=NIL_UUID)
    assert error_of(error) == bad_request(messages.import_not_own_user(NIL_UUID, root_id))
    # Without a policy the other user may not import at all (the policy engine's 403).
    error = fails(emu, emu.init_import_wallet, user_id=other_id, caller=other_key)
    assert error.status == 403


def test_the_user_id_must_be_a_uuid(emu):
    error = fails(emu, emu.init_import_wallet, user_id="me")
    assert violations(error) == [
        {"field": "userId", "description": "This field must be a valid UUID."}
    ]


# ----- what an import carries -----------------------------------------------------------


@pytest.mark.parametrize(
    ("plaintext", "why"),
    [
        (" ".join(ABANDON.split()[:11]).encode(), "it has 11 words"),
        ((ABANDON + " about").encode(), "it has 13 words"),
        (b"", "it has 0 words"),
        (("abandon " * 12).encode(), "a word is not in the word list or the checksum is wrong"),
        (ABANDON.replace("about", "zzzzz").encode(), "a word is not in the word list or the"),
        (b"\xff\xfe" * 12, "it is not UTF-8 text"),
    ],
)
def test_a_bundle_without_a_valid_mnemonic_is_refused(emu, turnkey_org, plaintext, why):
    init = emu.init_import_wallet(user_id=turnkey_org.user_id)["importBundle"]
    encrypted = sealed_for_import(emu, turnkey_org, init, plaintext)
    error = fails(emu, import_wallet, emu, turnkey_org, encrypted)
    assert error_of(error)[:2] == (400, 3)
    assert error.message.startswith(f"invalid mnemonic: {why}")
    assert "abandon" not in error.message.lower()


@pytest.mark.parametrize(
    ("curve", "secret", "why"),
    [
        (SECP256K1, bytes(31) + b"\x01", None),
        (SECP256K1, b"\x01" * 31, "expected 32 bytes, got 31"),
        (SECP256K1, b"\x01" * 33, "expected 32 bytes, got 33"),
        (ED25519, b"\x01" * 64, "expected 32 bytes, got 64"),  # a Solana key pair
        (P256, b"", "expected 32 bytes, got 0"),
        (SECP256K1, bytes(32), "the scalar is out of range"),
        (SECP256K1, SECP256K1_ORDER.to_bytes(32, "big"), "the scalar is out of range"),
        (P256, P256_ORDER.to_bytes(32, "big"), "the scalar is out of range"),
        (P256, b"\xff" * 32, "the scalar is out of range"),
        (ED25519, bytes(32), None),  # any 32 bytes are an ed25519 seed
    ],
)
def test_a_private_key_must_fit_its_curve(emu, turnkey_org, curve, secret, why):
    encrypted = key_bundle(emu, turnkey_org, secret)
    if why is None:
        assert import_key(emu, turnkey_org, encrypted, curve=curve)["privateKeyId"]
        return
    error = fails(emu, import_key, emu, turnkey_org, encrypted, curve=curve)
    assert error_of(error) == bad_request(messages.invalid_import_private_key(curve, why))
    assert error.message == f"invalid private key for {curve}: {why}"


def test_import_private_key_checks_names_and_formats(emu, turnkey_org):
    encrypted = key_bundle(emu, turnkey_org, bytes.fromhex(ETH_DOC_KEY))
    error = fails(
        emu, import_key, emu, turnkey_org, encrypted, curve=ED25519, address_formats=[ETH]
    )
    assert error_of(error) == bad_request(
        messages.invalid_address_format(ETH, ED25519), "REQUEST_INVALID"
    )
    import_key(emu, turnkey_org, encrypted, name="taken")
    encrypted = key_bundle(emu, turnkey_org, bytes.fromhex(ETH_DOC_KEY))
    error = fails(emu, import_key, emu, turnkey_org, encrypted, name="taken")
    assert violations(error) == [
        {"field": "privateKeyName", "description": "This field must be unique."}
    ]


def test_import_wallet_honours_the_wallet_limit():
    emu = Emulator(settings=Settings(max_wallets_per_organization=1))
    org = emu.create_organization()
    emu.create_wallet(wallet_name="only", accounts=[])
    encrypted = wallet_bundle(emu, org)
    error = fails(emu, import_wallet, emu, org, encrypted)
    assert error_of(error) == (429, 8, messages.MAX_WALLETS, "RATE_LIMIT_EXCEEDED")
