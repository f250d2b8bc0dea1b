"""Bundles between the enclave and a client (``emulator/services/bundles.py``) and the
client's side of them (``emulator/testing/client_crypto.py``).

Turnkey's own vectors (``fixtures/hpke-vectors.json``, made by the production
enclaves) check the client side; the client side then checks what the emulator
makes, in the same formats.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from emulator import Emulator
from emulator.crypto import hpke
from emulator.crypto.base58 import base58check_decode, base58check_encode
from emulator.crypto.enclave import NOTARIZER, SIGNER, TLS_FETCHER
from emulator.services import bundles
from emulator.services.bundles import BundleError
from emulator.testing import client_crypto
from emulator.testing.client_crypto import ClientBundleError, TargetKey

from .vectors import FIXTURES

ORG_ID = "f9a31c64-d604-42e4-9bef-a773096afad7"
USER_ID = "6912b819-f4df-40f4-a192-20ee43090974"


@cache
def turnkey_vectors() -> dict[str, Any]:
    return json.loads((FIXTURES / "hpke-vectors.json").read_text())["turnkey"]


def production_key(role: str) -> str:
    return turnkey_vectors()["production_keys"][role]


def verify_der(public_hex: str, signature: bytes, data: bytes) -> None:
    """``cryptography``'s own ECDSA P-256 / SHA-256 check (raises ``InvalidSignature``)."""
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(public_hex))
    key.verify(signature, data, ec.ECDSA(hashes.SHA256()))


def compact(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


@pytest.fixture
def emu() -> Emulator:
    return Emulator(seed=7)


@pytest.fixture
def target() -> TargetKey:
    return TargetKey.generate(bytes.fromhex("11" * 32))


# ----- Turnkey's vectors, opened by the client side ---------------------------


def test_turnkeys_credential_bundle_is_33_plus_32_plus_16_bytes_and_opens():
    vector = turnkey_vectors()["credential_bundle"]
    raw = base58check_decode(vector["bundle"])
    assert len(raw) == 33 + 32 + 16 and raw[0] in (2, 3)
    receiver = TargetKey(bytes.fromhex(vector["receiver_private_key"]))
    key = client_crypto.decrypt_credential_bundle(vector["bundle"], receiver)
    assert key.private_key == vector["plaintext"]
    assert key.public_key == bundles.public_key_of(bytes.fromhex(vector["plaintext"]))
    assert key.curve == "API_KEY_CURVE_P256"


def test_turnkeys_credential_bundle_refuses_another_target_and_a_changed_bundle():
    vector = turnkey_vectors()["credential_bundle"]
    receiver = TargetKey(bytes.fromhex(vector["receiver_private_key"]))
    with pytest.raises(ClientBundleError, match=r"^credential bundle does not open: "):
        client_crypto.decrypt_credential_bundle(vector["bundle"], TargetKey.generate(b"x" * 32))
    raw = bytearray(base58check_decode(vector["bundle"]))
    raw[-1] ^= 1
    with pytest.raises(ClientBundleError, match=r"does not open with this key"):
        client_crypto.decrypt_credential_bundle(base58check_encode(bytes(raw)), receiver)
    broken = vector["bundle"][:-1] + ("2" if vector["bundle"][-1] != "2" else "3")
    with pytest.raises(ClientBundleError, match=r"checksum mismatch"):
        client_crypto.decrypt_credential_bundle(broken, receiver)


def export_vector() -> tuple[str, TargetKey, dict[str, Any]]:
    vector = turnkey_vectors()["export_bundle"]
    receiver = TargetKey(bytes.fromhex(vector["receiver_private_key"]))
    return json.dumps(vector["bundle"]), receiver, vector


def test_turnkeys_export_bundle_opens_to_the_mnemonic():
    bundle, receiver, vector = export_vector()
    opened = client_crypto.decrypt_export_bundle(
        bundle,
        receiver,
        organization_id=vector["organization_id"],
        signer_public_key=production_key("signer"),
    )
    assert opened.decode() == vector["mnemonic"]
    assert vector["bundle"]["enclaveQuorumPublic"] == production_key("signer")
    verify_der(
        production_key("signer"),
        bytes.fromhex(vector["bundle"]["dataSignature"]),
        bytes.fromhex(vector["bundle"]["data"]),
    )


def test_turnkeys_export_bundle_has_the_layout_the_emulator_makes():
    _, _, vector = export_vector()
    assert list(vector["bundle"]) == ["version", "data", "dataSignature", "enclaveQuorumPublic"]
    inner_bytes = bytes.fromhex(vector["bundle"]["data"])
    inner = json.loads(inner_bytes)
    assert list(inner) == ["encappedPublic", "ciphertext", "organizationId"]
    assert compact(inner) == inner_bytes  # compact JSON, as ``bundles`` writes it
    assert len(inner["encappedPublic"]) == 130 and inner["encappedPublic"].startswith("04")


def test_turnkeys_export_bundle_is_refused_for_another_organization():
    bundle, receiver, _ = export_vector()
    with pytest.raises(ClientBundleError, match=r"^export bundle is for another organization$"):
        client_crypto.decrypt_export_bundle(
            bundle,
            receiver,
            organization_id="7ff189fb-df7d-452e-8540-57632e380b77",
            signer_public_key=production_key("signer"),
        )


def test_turnkeys_export_bundle_is_refused_for_another_signer_key():
    bundle, receiver, vector = export_vector()
    for other in (production_key("notarizer"), Emulator(seed=1).enclave.signer_public_key):
        with pytest.raises(
            ClientBundleError, match=r"^bundle signed by an unexpected enclave key$"
        ):
            client_crypto.decrypt_export_bundle(
                bundle,
                receiver,
                organization_id=vector["organization_id"],
                signer_public_key=other,
            )


def test_turnkeys_export_bundle_with_a_changed_signature_or_data_is_refused():
    _, receiver, vector = export_vector()
    signature = bytearray(bytes.fromhex(vector["bundle"]["dataSignature"]))
    signature[10] ^= 1
    inner = json.loads(bytes.fromhex(vector["bundle"]["data"]))
    inner["organizationId"] = "7ff189fb-df7d-452e-8540-57632e380b77"
    for changed in (
        {**vector["bundle"], "dataSignature": signature.hex()},
        {**vector["bundle"], "data": compact(inner).hex()},
    ):
        with pytest.raises(ClientBundleError, match=r"^bundle signature does not verify$"):
            client_crypto.decrypt_export_bundle(
                json.dumps(changed),
                receiver,
                organization_id=inner["organizationId"],
                signer_public_key=production_key("signer"),
            )
    with pytest.raises(ClientBundleError, match=r"^unsupported bundle version 'v2.0.0'$"):
        client_crypto.verify_signed_bundle(
            json.dumps({**vector["bundle"], "version": "v2.0.0"}), production_key("signer")
        )
    no_signer = {**vector["bundle"], "enclaveQuorumPublic": None}
    for malformed in ("", "[]", "{}", '{"data": "zz"}', json.dumps(no_signer)):
        with pytest.raises(ClientBundleError, match=r"^not a signed bundle: "):
            client_crypto.verify_signed_bundle(malformed, production_key("signer"))


# ----- credential bundles the emulator makes -----------------------------------


def test_credential_bundle_is_base58check_of_33_plus_32_plus_16_bytes_and_opens(emu, target):
    secret = bundles.new_p256_secret(emu.world)
    bundle = bundles.credential_bundle(emu.world, target.public_key, secret)
    raw = base58check_decode(bundle)
    assert len(raw) == 33 + 32 + 16 and raw[0] in (2, 3)
    assert hpke.open_sealed(target.private_key, raw[:33], raw[33:]) == secret
    key = client_crypto.decrypt_credential_bundle(bundle, target)
    assert key.private_key == secret.hex()
    assert key.public_key == bundles.public_key_of(secret)


def test_credential_bundle_to_a_compressed_target_opens(emu, target):
    secret = bundles.new_p256_secret(emu.world)
    bundle = bundles.credential_bundle(emu.world, target.compressed_public_key, secret)
    assert client_crypto.decrypt_credential_bundle(bundle, target).private_key == secret.hex()
    with pytest.raises(ClientBundleError):
        client_crypto.decrypt_credential_bundle(bundle, TargetKey.generate(b"\x22" * 32))


def test_public_key_of_and_new_p256_secret(emu):
    secret = bundles.new_p256_secret(emu.world)
    assert len(secret) == 32 and int.from_bytes(secret, "big") > 0
    assert bundles.new_p256_secret(emu.world) != secret
    compressed = bundles.public_key_of(secret)
    full = bundles.public_key_of(secret, compressed=False)
    assert len(compressed) == 66 and compressed[:2] in ("02", "03")
    assert len(full) == 130 and full[:2] == "04" and full[2:66] == compressed[2:]
    assert full == TargetKey(secret).public_key


# ----- signed bundles: export, target --------------------------------------------


def outer_and_inner(bundle: str) -> tuple[dict[str, Any], bytes]:
    outer = json.loads(bundle)
    return outer, bytes.fromhex(outer["data"])


def test_export_bundle_shape_signature_and_contents(emu, target):
    bundle = bundles.export_bundle(emu.world, ORG_ID, target.public_key, b"leaf lady until")
    outer, inner_bytes = outer_and_inner(bundle)
    assert list(outer) == ["version", "data", "dataSignature", "enclaveQuorumPublic"]
    assert bundle == compact(outer).decode()
    assert outer["version"] == "v1.0.0"
    assert outer["enclaveQuorumPublic"] == emu.enclave.signer_public_key
    verify_der(emu.enclave.signer_public_key, bytes.fromhex(outer["dataSignature"]), inner_bytes)
    inner = json.loads(inner_bytes)
    assert list(inner) == ["encappedPublic", "ciphertext", "organizationId"]
    assert inner_bytes == compact(inner)
    assert inner["organizationId"] == ORG_ID
    assert len(inner["encappedPublic"]) == 130 and inner["encappedPublic"].startswith("04")
    assert len(bytes.fromhex(inner["ciphertext"])) == len(b"leaf lady until") + 16
    opened = client_crypto.decrypt_export_bundle(
        bundle,
        target,
        organization_id=ORG_ID,
        signer_public_key=emu.enclave.signer_public_key,
    )
    assert opened == b"leaf lady until"


def test_export_bundle_is_refused_by_a_client_pinning_another_key_or_org(emu, target):
    bundle = bundles.export_bundle(emu.world, ORG_ID, target.public_key, b"secret")
    with pytest.raises(ClientBundleError, match=r"unexpected enclave key"):
        client_crypto.decrypt_export_bundle(
            bundle, target, organization_id=ORG_ID, signer_public_key=production_key("signer")
        )
    with pytest.raises(ClientBundleError, match=r"another organization"):
        client_crypto.decrypt_export_bundle(
            bundle,
            target,
            organization_id="other",
            signer_public_key=emu.enclave.signer_public_key,
        )
    with pytest.raises(ClientBundleError, match=r"^export bundle does not open: "):
        client_crypto.decrypt_export_bundle(
            bundle,
            TargetKey.generate(b"\x33" * 32),
            organization_id=ORG_ID,
            signer_public_key=emu.enclave.signer_public_key,
        )


@pytest.mark.parametrize("user_id", [USER_ID, None])
def test_target_bundle_shape_and_signature(emu, user_id):
    secret = bundles.new_p256_secret(emu.world)
    bundle = bundles.target_bundle(emu.world, secret, ORG_ID, user_id)
    outer, inner_bytes = outer_and_inner(bundle)
    assert list(outer) == ["version", "data", "dataSignature", "enclaveQuorumPublic"]
    assert outer["enclaveQuorumPublic"] == emu.enclave.signer_public_key
    verify_der(emu.enclave.signer_public_key, bytes.fromhex(outer["dataSignature"]), inner_bytes)
    inner = json.loads(inner_bytes)
    expected = {"targetPublic": bundles.public_key_of(secret, compressed=False)}
    expected["organizationId"] = ORG_ID
    if user_id is not None:
        expected["userId"] = user_id
    assert inner == expected and list(inner) == list(expected)
    assert inner_bytes == compact(expected)
    assert client_crypto.verify_signed_bundle(bundle, emu.enclave.signer_public_key) == expected


def test_target_bundle_signed_by_another_role(emu):
    secret = bundles.new_p256_secret(emu.world)
    bundle = bundles.target_bundle(emu.world, secret, ORG_ID, role=TLS_FETCHER)
    outer, inner_bytes = outer_and_inner(bundle)
    assert outer["enclaveQuorumPublic"] == emu.enclave.tls_fetcher_public_key
    verify_der(
        emu.enclave.tls_fetcher_public_key, bytes.fromhex(outer["dataSignature"]), inner_bytes
    )
    with pytest.raises(InvalidSignature):
        verify_der(
            emu.enclave.signer_public_key, bytes.fromhex(outer["dataSignature"]), inner_bytes
        )


def test_signed_bundle_of_any_data(emu):
    bundle = bundles.signed_bundle(emu.world, {"b": 1, "a": [True, None]}, NOTARIZER)
    outer, inner_bytes = outer_and_inner(bundle)
    assert inner_bytes == b'{"b":1,"a":[true,null]}'
    assert outer["enclaveQuorumPublic"] == emu.enclave.notarizer_public_key
    assert client_crypto.verify_signed_bundle(bundle, emu.enclave.notarizer_public_key) == {
        "b": 1,
        "a": [True, None],
    }


def test_import_flow_encrypt_for_import_then_open_client_bundle(emu):
    secret = bundles.new_p256_secret(emu.world)
    import_bundle = bundles.target_bundle(emu.world, secret, ORG_ID, USER_ID)
    encrypted = client_crypto.encrypt_for_import(
        import_bundle,
        b"leaf lady until indicate",
        organization_id=ORG_ID,
        user_id=USER_ID,
        signer_public_key=emu.enclave.signer_public_key,
    )
    assert bundles.open_client_bundle(encrypted, secret) == b"leaf lady until indicate"
    with pytest.raises(ClientBundleError, match=r"another organization or user"):
        client_crypto.encrypt_for_import(
            import_bundle,
            b"x",
            organization_id=ORG_ID,
            user_id="someone else",
            signer_public_key=emu.enclave.signer_public_key,
        )


# ----- client bundles the emulator opens --------------------------------------------


def test_open_client_bundle_round_trip(emu):
    secret = bundles.new_p256_secret(emu.world)
    for public in (
        bundles.public_key_of(secret, compressed=False),
        bundles.public_key_of(secret),
    ):
        encrypted = client_crypto.encrypt_to_bundle(public, b"\x00\x01 raw key bytes")
        assert list(json.loads(encrypted)) == ["encappedPublic", "ciphertext"]
        assert bundles.open_client_bundle(encrypted, secret) == b"\x00\x01 raw key bytes"


def test_open_client_bundle_with_a_compressed_encapped_public(emu):
    secret = bundles.new_p256_secret(emu.world)
    parsed = json.loads(client_crypto.encrypt_to_bundle(bundles.public_key_of(secret), b"m"))
    parsed["encappedPublic"] = hpke.compress(bytes.fromhex(parsed["encappedPublic"])).hex()
    assert bundles.open_client_bundle(json.dumps(parsed), secret) == b"m"


@pytest.mark.parametrize(
    "malformed",
    [
        "",
        "not json",
        "[]",
        '"text"',
        "1",
        "{}",
        '{"encappedPublic": "04"}',
        '{"ciphertext": "00"}',
        '{"encappedPublic": "zz", "ciphertext": "00"}',
        '{"encappedPublic": "04", "ciphertext": "0g"}',
        '{"encappedPublic": 4, "ciphertext": "00"}',
        '{"encappedPublic": null, "ciphertext": "00"}',
    ],
)
def test_open_client_bundle_refuses_malformed_bundles(emu, malformed):
    secret = bundles.new_p256_secret(emu.world)
    with pytest.raises(BundleError, match=r"^not an encrypted bundle: "):
        bundles.open_client_bundle(malformed, secret)


def test_open_client_bundle_refuses_a_bad_key_or_ciphertext(emu):
    secret = bundles.new_p256_secret(emu.world)
    encrypted = client_crypto.encrypt_to_bundle(bundles.public_key_of(secret), b"m")
    with pytest.raises(BundleError, match=r"^the ciphertext does not open with this key$"):
        bundles.open_client_bundle(encrypted, bundles.new_p256_secret(emu.world))
    parsed = json.loads(encrypted)
    with pytest.raises(BundleError, match=r"^not a P-256 public key: "):
        bundles.open_client_bundle(
            json.dumps({**parsed, "encappedPublic": "04" + "00" * 64}), secret
        )
    changed = bytearray(bytes.fromhex(parsed["ciphertext"]))
    changed[0] ^= 1
    with pytest.raises(BundleError, match=r"does not open"):
        bundles.open_client_bundle(json.dumps({**parsed, "ciphertext": changed.hex()}), secret)
    assert issubclass(BundleError, ValueError)


# ----- target public keys ---------------------------------------------------------


def test_parse_target_public_key_accepts_compressed_and_uncompressed(target):
    full, short = target.public_key, target.compressed_public_key
    assert bundles.parse_target_public_key(full) == bytes.fromhex(full)
    assert bundles.parse_target_public_key(short) == bytes.fromhex(short)
    assert bundles.parse_target_public_key(full.upper()) == bytes.fromhex(full)


@pytest.mark.parametrize(
    "junk",
    ["", "04", "zz", "04" + "00" * 64, "02" + "ff" * 32, "05" + "11" * 64, "0x04", None, 4],
)
def test_parse_target_public_key_rejects_junk(emu, junk, target):
    with pytest.raises(BundleError, match=r"^not a P-256 public key: "):
        bundles.parse_target_public_key(junk)
    with pytest.raises(BundleError, match=r"^not a P-256 public key: "):
        bundles.credential_bundle(emu.world, junk, b"\x01" * 32)
    with pytest.raises(BundleError, match=r"^not a P-256 public key: "):
        bundles.export_bundle(emu.world, ORG_ID, junk, b"x")


# ----- determinism ------------------------------------------------------------------


def make_all(emu: Emulator, target: TargetKey) -> tuple[str, str, str]:
    secret = bundles.new_p256_secret(emu.world)
    return (
        bundles.credential_bundle(emu.world, target.public_key, secret),
        bundles.export_bundle(emu.world, ORG_ID, target.public_key, b"mnemonic"),
        bundles.target_bundle(emu.world, bundles.new_p256_secret(emu.world), ORG_ID, USER_ID),
    )


def test_a_seeded_emulator_makes_the_same_bundles_from_the_same_state(target):
    first = make_all(Emulator(seed=7), target)
    assert make_all(Emulator(seed=7), target) == first
    assert make_all(Emulator(seed=8), target) != first

    emu = Emulator(seed=7)
    saved = emu.snapshot()
    assert make_all(emu, target) == first
    second = make_all(emu, target)
    assert second != first  # the secret stream moved on
    emu.restore(saved)
    assert make_all(emu, target) == first
    checkpoint = emu.checkpoint()
    assert make_all(emu, target) == second
    emu.rollback(checkpoint)
    assert make_all(emu, target) == second


def test_an_unseeded_emulator_makes_fresh_bundles(target):
    emu = Emulator()
    secret = b"\x05" * 32
    one = bundles.credential_bundle(emu.world, target.public_key, secret)
    two = bundles.credential_bundle(emu.world, target.public_key, secret)
    assert one != two
    for bundle in (one, two):
        assert client_crypto.decrypt_credential_bundle(bundle, target).private_key == secret.hex()


def test_enclave_roles_sign_bundles_with_their_own_keys(emu):
    keys = {role: emu.enclave.public_key(role) for role in (SIGNER, NOTARIZER, TLS_FETCHER)}
    assert len(set(keys.values())) == 3
    for role, public in keys.items():
        outer, inner = outer_and_inner(bundles.signed_bundle(emu.world, {"role": role}, role))
        assert outer["enclaveQuorumPublic"] == public
        verify_der(public, bytes.fromhex(outer["dataSignature"]), inner)
