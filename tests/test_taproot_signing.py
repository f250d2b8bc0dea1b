"""Signing with a P2TR address: BIP340 Schnorr with the BIP86 tweak, as Turnkey documents.

Turnkey's docs (features/networks/bitcoin.mdx, "Schnorr signatures and tweaks"): pass a
taproot (P2TR) address as ``signWith`` and the signer switches to Schnorr and applies the
BIP341 tweak. Signatures are checked here with a small pure-Python BIP340 verifier (not
libsecp256k1, which signs: ``emulator.testing.bip340``) against the output key read from the
address itself.
"""

from __future__ import annotations

import hashlib

import pytest
from bip_utils import SegwitBech32Decoder
from eth_keys import keys as eth_keys

from emulator import Emulator, TurnkeyApiError
from emulator.accounts import account_spec
from emulator.testing.bip340 import verify as bip340_verify

ABANDON = "abandon " * 11 + "about"
# BIP-0086 test vector: abandon…about at m/86'/0'/0'/0/0 (bitcoin/bips bip-0086.mediawiki)
BIP86_ADDRESS = "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr"
HEX, NO_OP, SHA256 = "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP", "HASH_FUNCTION_SHA256"


def output_key(address: str) -> bytes:
    """The 32-byte x-only output key a P2TR address commits to."""
    hrp = address.split("1", 1)[0]
    version, program = SegwitBech32Decoder.Decode(hrp, address)
    assert version == 1
    return bytes(program)


# --- the tests ------------------------------------------------------------------------


@pytest.fixture
def emu() -> Emulator:
    emulator = Emulator()
    emulator.create_organization()
    return emulator


def test_a_p2tr_wallet_account_signs_bip340_schnorr_with_the_tweaked_key(emu):
    spec = {**account_spec("ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR"), "path": "m/86'/0'/0'/0/0"}
    (address,) = emu.backdoor.import_wallet(ABANDON, accounts=[spec])["addresses"]
    assert address == BIP86_ADDRESS
    digest = hashlib.sha256(b"a taproot sighash").digest()
    signed = emu.sign_raw_payload(
        sign_with=address, payload=digest.hex(), encoding=HEX, hash_function=NO_OP
    )
    assert signed["v"] == "00" and len(signed["r"]) == len(signed["s"]) == 64
    signature = bytes.fromhex(signed["r"] + signed["s"])
    assert bip340_verify(output_key(address), digest, signature)
    # the untweaked key does not verify it: the tweak was applied
    untweaked = bytes.fromhex(emu.get_wallet_accounts()["accounts"][0]["publicKey"])[1:]
    assert not bip340_verify(untweaked, digest, signature)


def test_schnorr_signatures_are_deterministic_and_hash_the_payload_as_asked(emu):
    spec = account_spec("ADDRESS_FORMAT_BITCOIN_TESTNET_P2TR")
    (address,) = emu.create_wallet(wallet_name="btc", accounts=[spec])["addresses"]
    once = emu.sign_raw_payload(
        sign_with=address, payload="cafe", encoding=HEX, hash_function=SHA256
    )
    again = emu.sign_raw_payload(
        sign_with=address, payload="cafe", encoding=HEX, hash_function=SHA256
    )
    assert (once["r"], once["s"]) == (again["r"], again["s"])
    digest = hashlib.sha256(bytes.fromhex("cafe")).digest()
    assert bip340_verify(output_key(address), digest, bytes.fromhex(once["r"] + once["s"]))
    with pytest.raises(TurnkeyApiError) as caught:
        emu.sign_raw_payload(sign_with=address, payload="cafe", encoding=HEX, hash_function=NO_OP)
    assert (caught.value.status, caught.value.message) == (400, "expected a 32-bytes-long digest")


def test_the_same_key_named_otherwise_signs_ecdsa(emu):
    made = emu.create_private_keys(
        private_keys=[
            {
                "private_key_name": "k",
                "curve": "CURVE_SECP256K1",
                "private_key_tags": [],
                "address_formats": [
                    "ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR",
                    "ADDRESS_FORMAT_ETHEREUM",
                ],
            }
        ]
    )
    (key,) = made["privateKeys"]
    p2tr, ethereum = (a["address"] for a in key["addresses"])
    digest = hashlib.sha256(b"one key, two schemes").digest()
    schnorr = emu.sign_raw_payload(
        sign_with=p2tr, payload=digest.hex(), encoding=HEX, hash_function=NO_OP
    )
    assert bip340_verify(output_key(p2tr), digest, bytes.fromhex(schnorr["r"] + schnorr["s"]))
    public_key = emu.get_private_key(private_key_id=key["privateKeyId"])["privateKey"]["publicKey"]
    for sign_with in (key["privateKeyId"], ethereum):
        ecdsa = emu.sign_raw_payload(
            sign_with=sign_with, payload=digest.hex(), encoding=HEX, hash_function=NO_OP
        )
        vrs = (int(ecdsa["v"], 16), int(ecdsa["r"], 16), int(ecdsa["s"], 16))
        recovered = eth_keys.Signature(vrs=vrs).recover_public_key_from_msg_hash(digest)
        assert recovered.to_compressed_bytes().hex() == public_key
