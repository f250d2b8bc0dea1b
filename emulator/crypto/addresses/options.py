"""Curve names, encoding options and errors shared by the address encoders."""

from __future__ import annotations

from dataclasses import dataclass

# Scripts a single key can be wrapped in (the names AddressOptions accepts).
P2SH_SCRIPTS = frozenset({"p2wpkh", "p2pk", "multisig", "p2pkh"})
P2WSH_SCRIPTS = frozenset({"p2pk", "multisig"})


class UnsupportedAddressFormat(ValueError):
    """The address format is unknown, or does not fit the key's curve."""


class InvalidPublicKey(ValueError):
    """The public key bytes are not a valid key of the named curve, in the expected form."""


@dataclass(frozen=True)
class AddressOptions:
    """Choices the live service makes but does not document.

    NOT confirmed against the live Turnkey API: no public Turnkey P2SH, P2WSH or TON address
    exists. The defaults are the most common single-key conventions; each is one switch here.

    * ``p2sh_script``: the redeem script of ``*_P2SH``. Default ``"p2wpkh"`` (P2SH-P2WPKH,
      BIP49; the docs' ``m/49'`` path points there). ``"p2pk"`` is ``<pk> OP_CHECKSIG``,
      ``"multisig"`` is ``OP_1 <pk> OP_1 OP_CHECKMULTISIG``, ``"p2pkh"`` the P2PKH script.
      (Turnkey's docs say it cannot sign wrapped P2SH-P2WPKH inputs, which hints its P2SH may be
      a legacy script instead.)
    * ``p2wsh_script``: the witness script of ``*_P2WSH``. Default ``"p2pk"``; ``"multisig"``
      is the 1-of-1 ``OP_CHECKMULTISIG`` (the SDK's BIP48 path hints at a multisig shape).
    * ``ton_bounceable`` / ``ton_test_only``: the user-friendly TON flags. Default
      non-bounceable mainnet (``UQ…``), the current wallet convention (TEP-2, Tonkeeper).
    """

    p2sh_script: str = "p2wpkh"
    p2wsh_script: str = "p2pk"
    ton_bounceable: bool = False
    ton_test_only: bool = False

    def __post_init__(self) -> None:
        if self.p2sh_script not in P2SH_SCRIPTS:
            raise ValueError(f"p2sh_script must be one of {sorted(P2SH_SCRIPTS)}")
        if self.p2wsh_script not in P2WSH_SCRIPTS:
            raise ValueError(f"p2wsh_script must be one of {sorted(P2WSH_SCRIPTS)}")


DEFAULT_OPTIONS = AddressOptions()
