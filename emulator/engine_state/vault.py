"""Key material, kept apart from the records so that no renderer can reach it.

Records (``models.py``) hold only public keys and addresses. The mnemonic of
each wallet and the private key of each private key live here, with reprs
that show nothing. Only the signing service and the test-only seams read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..crypto.hd import Keychain, mnemonic_to_seed
from ..ground.redact import Sealed

# The kinds of a pending import target: ``import_wallet``'s, ``import_private_key``'s, and
# ``import_secrets``' ("secret:<target public key>").
IMPORT_WALLET = "wallet"
IMPORT_PRIVATE_KEY = "private_key"
IMPORT_SECRET_TARGET = "secret:"


class WalletSecret:
    """A wallet's mnemonic and the keychain of its seed (derived on first use)."""

    __slots__ = ("_keychain", "mnemonic")

    def __init__(self, mnemonic: str) -> None:
        self.mnemonic = mnemonic
        self._keychain: Keychain | None = None

    @property
    def keychain(self) -> Keychain:
        if self._keychain is None:
            self._keychain = Keychain(mnemonic_to_seed(self.mnemonic))
        return self._keychain

    def __deepcopy__(self, memo: dict) -> WalletSecret:
        twin = WalletSecret(self.mnemonic)
        twin._keychain = self._keychain  # a cache of a pure function of the mnemonic
        return twin

    def __repr__(self) -> str:
        return "WalletSecret(<hidden>)"


@dataclass
class Vault:
    # wallet id -> its mnemonic and keychain
    wallets: dict[str, WalletSecret] = field(default_factory=dict)
    # private key id -> the 32-byte private key (scalar, or ed25519 seed)
    private_keys: dict[str, bytes] = field(default_factory=Sealed)
    # (organization id, user id, kind) -> the enclave's single-use P-256 import target
    # secret (32 bytes) that init_import_wallet / init_import_private_key made; kind is
    # "wallet" or "private_key" (``services/imports.py``), or "secret:<target public key>"
    # for init_import_secrets, which makes several
    import_targets: dict[tuple[str, str, str], bytes] = field(default_factory=Sealed)
    # secret id -> the secret's bytes, as import_secrets received them (``ops/secrets.py``)
    secrets: dict[str, bytes] = field(default_factory=Sealed)

    def __repr__(self) -> str:
        return (
            f"Vault(wallets={len(self.wallets)}, private_keys={len(self.private_keys)}, "
            f"import_targets={len(self.import_targets)}, secrets={len(self.secrets)})"
        )
