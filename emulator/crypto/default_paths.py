"""The official SDKs' default derivation path of each address format
(``defaultXAccountAtIndex`` in ``@turnkey/core`` ``turnkey-helpers.ts``).

``emulator.accounts`` is the public face of this table (``account_spec``, typed for the
facade); the seed files read it from here.
"""

from __future__ import annotations

_SECP256K1 = "CURVE_SECP256K1"
_ED25519 = "CURVE_ED25519"

# address format -> (curve, path template with {i} as the account index)
DEFAULT_PATHS: dict[str, tuple[str, str]] = {
    "ADDRESS_FORMAT_ETHEREUM": (_SECP256K1, "m/44'/60'/{i}'/0/0"),
    "ADDRESS_FORMAT_COSMOS": (_SECP256K1, "m/44'/118'/{i}'/0/0"),
    "ADDRESS_FORMAT_TRON": (_SECP256K1, "m/44'/195'/{i}'"),
    "ADDRESS_FORMAT_SEI": (_SECP256K1, "m/44'/118'/{i}'/0'/0'"),
    "ADDRESS_FORMAT_XRP": (_SECP256K1, "m/44'/144'/{i}'/0'/0'"),
    "ADDRESS_FORMAT_DOGE_MAINNET": (_SECP256K1, "m/44'/3'/{i}'/0/0"),
    "ADDRESS_FORMAT_DOGE_TESTNET": (_SECP256K1, "m/44'/3'/{i}'/0/0"),
    "ADDRESS_FORMAT_SOLANA": (_ED25519, "m/44'/501'/{i}'/0'"),
    "ADDRESS_FORMAT_SUI": (_ED25519, "m/44'/784'/{i}'/0'/0'"),
    "ADDRESS_FORMAT_APTOS": (_ED25519, "m/44'/637'/{i}'/0'/0'"),
    "ADDRESS_FORMAT_XLM": (_ED25519, "m/44'/148'/{i}'"),
    "ADDRESS_FORMAT_TON_V3R2": (_ED25519, "m/44'/607'/{i}'/0'/0'"),
    "ADDRESS_FORMAT_TON_V4R2": (_ED25519, "m/44'/607'/{i}'/0'/0'"),
}
_BITCOIN_PURPOSES = {"P2PKH": "44'", "P2SH": "44'", "P2WPKH": "84'", "P2WSH": "48'", "P2TR": "86'"}
for _network, _coin in (("MAINNET", "0'"), ("TESTNET", "1'"), ("SIGNET", "1'"), ("REGTEST", "1'")):
    for _kind, _purpose in _BITCOIN_PURPOSES.items():
        _tail = "2'/0/0" if _kind == "P2WSH" else "0/0"
        DEFAULT_PATHS[f"ADDRESS_FORMAT_BITCOIN_{_network}_{_kind}"] = (
            _SECP256K1,
            f"m/{_purpose}/{_coin}/{{i}}'/{_tail}",
        )


def default_account(address_format: str, index: int = 0) -> dict[str, str]:
    """The ``v1WalletAccountParams`` the SDKs send for ``address_format`` at account ``index``."""
    try:
        curve, template = DEFAULT_PATHS[address_format]
    except KeyError:
        raise ValueError(f"no default path for {address_format}") from None
    return {
        "curve": curve,
        "pathFormat": "PATH_FORMAT_BIP32",
        "path": template.format(i=index),
        "addressFormat": address_format,
    }
