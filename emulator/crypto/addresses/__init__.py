"""Addresses of public keys, one encoder per Turnkey ``ADDRESS_FORMAT_*``.

The input is the 33-byte compressed SEC1 point (secp256k1, P-256) or the raw 32-byte ed25519
key. Small hand-written encoders (no bip-utils at run time); every encode is a few to a few tens
of microseconds.

NOT confirmed against the live service (no public Turnkey sample exists), so each is a switch
in ``AddressOptions``:

* ``*_P2SH``: redeem script defaults to P2SH-P2WPKH (BIP49, the docs' ``m/49'`` path, the most
  common single-key meaning); alternatives ``<pk> OP_CHECKSIG``, 1-of-1 multisig, P2PKH script.
* ``*_P2WSH``: witness script defaults to ``<pk> OP_CHECKSIG``; alternative 1-of-1 multisig.
* TON: non-bounceable mainnet (``UQ…``) by default, the current wallet convention (TEP-2).
  ``TON_V5R1`` uses the mainnet wallet id (network -239, subwallet 0).

Aptos is the legacy single-ed25519 authentication key in its untrimmed 64-digit form, and
``UNCOMPRESSED`` / ``COMPRESSED`` are lowercase hex without ``0x``.
"""

from __future__ import annotations

from ..curves import ED25519, P256, SECP256K1
from .encodings import segwit_decode, segwit_encode, segwit_script_pubkey
from .formats import ADDRESS_FORMATS, AddressFormatSpec, curves_for, encode_address
from .options import (
    DEFAULT_OPTIONS,
    AddressOptions,
    InvalidPublicKey,
    UnsupportedAddressFormat,
)

__all__ = [
    "ADDRESS_FORMATS",
    "DEFAULT_OPTIONS",
    "ED25519",
    "P256",
    "SECP256K1",
    "AddressFormatSpec",
    "AddressOptions",
    "InvalidPublicKey",
    "UnsupportedAddressFormat",
    "curves_for",
    "encode_address",
    "segwit_decode",
    "segwit_encode",
    "segwit_script_pubkey",
]
