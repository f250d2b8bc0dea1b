"""FROST over secp256k1 with BIP-340 (Taproot) challenges, as Spark signs: the ciphersuite
``FROST-secp256k1-SHA256-TR-v1`` (RFC 9591 with the BIP-340 challenge and even-y keys and
nonces, and the BIP-341 key tweak with no script tree: the signature is for the Taproot
output key of the verifying key), in Spark's nested form: the user (here, Turnkey) is a required participant under
the identifier ``derive("user")`` whose share counts in full (Lagrange coefficient 1), the
operators sign as a threshold group among themselves, and the group verifying key is
``P_user + P_operators``. The operators add the Taproot tweak to their shares; the user
does not (checked against the Spark SDK's ``signFrost``, byte for byte). An adaptor point
``T`` moves the challenge to ``R + T``.

The operators' side (``operator_share``, ``aggregate``) is here too so that the simulated
operators in ``emulator/testing/spark.py`` use the same protocol; tests check the result
with a BIP-340 verifier that is not this code, and with the Spark SDK's own aggregation.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..curves import SECP256K1_ORDER as N
from . import points
from .secret_sharing import lagrange_at_zero

CONTEXT = b"FROST-secp256k1-SHA256-TR-v1"


def _expand_message_xmd(msg: bytes, dst: bytes, length: int) -> bytes:
    """RFC 9380 expand_message_xmd with SHA-256."""
    ell = -(-length // 32)
    dst_prime = dst + bytes([len(dst)])
    b0 = hashlib.sha256(bytes(64) + msg + length.to_bytes(2, "big") + b"\x00" + dst_prime).digest()
    out, previous = b"", b"\x00" * 32
    for i in range(1, ell + 1):
        mixed = bytes(a ^ b for a, b in zip(b0, previous, strict=True)) if i > 1 else b0
        previous = hashlib.sha256(mixed + bytes([i]) + dst_prime).digest()
        out += previous
    return out[:length]


def hash_to_scalar(label: bytes, msg: bytes) -> int:
    """RFC 9380 hash_to_field (L = 48) under the DST ``CONTEXT || label``."""
    return int.from_bytes(_expand_message_xmd(msg, CONTEXT + label, 48), "big") % N


def _h4(msg: bytes) -> bytes:
    return hashlib.sha256(CONTEXT + b"msg" + msg).digest()


def _h5(msg: bytes) -> bytes:
    return hashlib.sha256(CONTEXT + b"com" + msg).digest()


def derive_identifier(seed: bytes) -> int:
    """frost-core's ``Identifier::derive``: HID = hash_to_scalar("id", seed)."""
    return hash_to_scalar(b"id", seed)


USER_IDENTIFIER = derive_identifier(b"user")


def nonce(random: bytes, secret: int) -> int:
    """RFC 9591 nonce_generate: H3(random || secret)."""
    return hash_to_scalar(b"nonce", random + points.to_bytes(secret))


@dataclass(frozen=True)
class Commitment:
    hiding: bytes  # D = d*G
    binding: bytes  # E = e*G


@dataclass(frozen=True)
class Session:
    """What every participant computes alike from the public inputs."""

    message: bytes
    output_key: bytes  # the Taproot output key Q, even-y form: what the signature verifies under
    negate_key: bool  # the given verifying key had an odd y
    tweak: int  # BIP-341 TapTweak of the even verifying key (no script tree)
    negate_output: bool  # Q (before its even-y form) had an odd y
    binding_factors: dict[int, int]
    group_commitment: bytes  # R (+ T with an adaptor), before parity
    negate_nonces: bool
    challenge: int


def session(
    message: bytes,
    verifying_key: bytes,
    commitments: dict[int, Commitment],
    adaptor: bytes | None = None,
) -> Session:
    """The binding factors, group commitment and challenge of one signing."""
    negate_key = points.is_odd(verifying_key)
    even_key = points.negate(verifying_key) if negate_key else verifying_key
    tweak = int.from_bytes(points.tagged_hash("TapTweak", even_key[1:]), "big") % N
    output = points.add(even_key, points.base_mul(tweak))
    negate_output = points.is_odd(output)
    output_key = points.negate(output) if negate_output else output
    ordered = sorted(commitments.items())
    encoded = b"".join(points.to_bytes(i) + c.hiding + c.binding for i, c in ordered)
    prefix = output_key + _h4(message) + _h5(encoded)
    factors = {i: hash_to_scalar(b"rho", prefix + points.to_bytes(i)) for i, _ in ordered}
    terms = []
    for i, c in ordered:
        terms.append(c.hiding)
        if factors[i]:
            terms.append(points.mul(c.binding, factors[i]))
    group = points.add(*terms)
    if adaptor is not None:
        group = points.add(group, adaptor)
    challenge_input = group[1:] + output_key[1:] + message
    challenge = int.from_bytes(points.tagged_hash("BIP0340/challenge", challenge_input), "big")
    return Session(
        message,
        output_key,
        negate_key,
        tweak,
        negate_output,
        factors,
        group,
        points.is_odd(group),
        challenge % N,
    )


def signature_share(
    s: Session,
    identifier: int,
    hiding: int,
    binding: int,
    secret: int,
    weight: int = 1,
    *,
    tweaked: bool = False,
) -> int:
    """``z_i = d + e*rho_i + weight * x_i * c`` with the parities (and the tweak) applied."""
    d, e = (N - hiding, N - binding) if s.negate_nonces else (hiding, binding)
    x = N - secret if s.negate_key else secret
    if tweaked:
        x += s.tweak
    if s.negate_output:
        x = N - x % N
    return (d + e * s.binding_factors[identifier] + weight * x * s.challenge) % N


def user_share(s: Session, hiding: int, binding: int, secret: int) -> int:
    """The required participant's share (weight 1)."""
    return signature_share(s, USER_IDENTIFIER, hiding, binding, secret)


def operator_share(
    s: Session, identifier: int, signers: list[int], hiding: int, binding: int, share: int
) -> int:
    """An operator's share, weighted by its Lagrange coefficient among ``signers``."""
    weight = lagrange_at_zero(identifier, signers)
    return signature_share(s, identifier, hiding, binding, share, weight, tweaked=True)


def aggregate(s: Session, shares: list[int]) -> bytes:
    """The 64-byte signature ``x(R) || z`` (a pre-signature when there is an adaptor)."""
    return s.group_commitment[1:] + points.to_bytes(sum(shares))


def complete_adaptor(s: Session, pre_signature: bytes, adaptor_secret: int) -> bytes:
    """Complete an adaptor pre-signature with ``t``: ``z + t``, or ``z - t`` for odd R+T."""
    z = int.from_bytes(pre_signature[32:], "big")
    t = N - adaptor_secret if s.negate_nonces else adaptor_secret
    return pre_signature[:32] + points.to_bytes(z + t)
