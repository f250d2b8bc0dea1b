"""Encryption to an enclave's quorum key (emulator/crypto/quorum.py): @turnkey/crypto's
envelope opens, ours opens, and any change to an envelope or the wrong key is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.crypto import hpke, quorum
from emulator.crypto.quorum import QuorumEncryptionError

VECTORS = json.loads(
    (Path(__file__).parent.parent / "fixtures" / "quorum-vectors.json").read_text()
)
(TS_VECTOR,) = VECTORS["encrypt_oauth2_client_secret"]
PRIVATE = bytes.fromhex(TS_VECTOR["receiverPrivateKey"])
PUBLIC = bytes.fromhex(TS_VECTOR["receiverPublicKey"])


def test_the_envelope_of_turnkey_crypto_opens():
    envelope = bytes.fromhex(TS_VECTOR["encryptedClientSecret"])
    assert quorum.decrypt(PRIVATE, envelope).decode() == TS_VECTOR["plaintext"]
    plaintext = TS_VECTOR["plaintext"].encode()
    # nonce (12) ‖ sender public key (65, uncompressed) ‖ u32 LE length ‖ ciphertext and tag
    assert envelope[12] == 0x04
    assert int.from_bytes(envelope[77:81], "little") == len(plaintext) + 16 == len(envelope) - 81
    assert hpke.uncompressed(hpke.private_key_from_bytes(PRIVATE).public_key()) == PUBLIC


def test_a_fixed_ephemeral_key_and_nonce_give_a_fixed_envelope():
    one = quorum.encrypt(PUBLIC, b"s", ephemeral_private=b"\x01" * 32, nonce=b"\x02" * 12)
    two = quorum.encrypt(PUBLIC, b"s", ephemeral_private=b"\x01" * 32, nonce=b"\x02" * 12)
    assert one == two and one[:12] == b"\x02" * 12
    sender = hpke.uncompressed(hpke.private_key_from_bytes(b"\x01" * 32).public_key())
    assert one[12:77] == sender
    assert quorum.decrypt(PRIVATE, one) == b"s"
    with pytest.raises(QuorumEncryptionError, match="12 bytes"):
        quorum.encrypt(PUBLIC, b"s", nonce=b"\x00")
    with pytest.raises(QuorumEncryptionError):
        quorum.encrypt(b"\x04" + b"\x00" * 64, b"s")


@settings(max_examples=60, deadline=None)
@given(plaintext=st.binary(max_size=300), flip=st.integers(min_value=0), bit=st.integers(0, 7))
def test_any_message_round_trips_and_any_flipped_bit_is_refused(plaintext, flip, bit):
    envelope = quorum.encrypt(PUBLIC, plaintext)
    assert quorum.decrypt(PRIVATE, envelope) == plaintext
    index = flip % len(envelope)
    tampered = bytearray(envelope)
    tampered[index] ^= 1 << bit
    with pytest.raises(QuorumEncryptionError):
        quorum.decrypt(PRIVATE, bytes(tampered))
    with pytest.raises(QuorumEncryptionError):
        quorum.decrypt(b"\x07" * 32, envelope)
    with pytest.raises(QuorumEncryptionError):
        quorum.decrypt(PRIVATE, envelope[: index % 81])
