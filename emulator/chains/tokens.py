"""The tokens of the embedded chains: ERC-20s and SPL mints at their real addresses.

Each entry is a token the swap and earn documentation, the SDKs' examples or the chains'
issuers name (Circle's USDC, Tether's USDT, the wrapped native assets, Dai), at the address or
mint it has on that network. The embedded chains start empty; a token is written there the
first time it is used (funded, quoted, read): ``token_accounts.py`` does the writing. Which
entries exist, and why the others do not, is in docs/swap.md.

A CAIP-19 id names an asset: ``<caip2>/slip44:<coin>`` the network's native asset,
``<caip2>/erc20:<address>`` an ERC-20, ``<caip2>/token:<mint>`` an SPL mint (``spl:`` is
accepted as an alias, as some SDKs write it). EVM addresses compare case-insensitively and are
answered in their EIP-55 form.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..crypto.addresses.chains import eip55
from . import catalog

ERC20 = "erc20"
SPL = "token"
SLIP44 = "slip44"
_SPL_ALIASES = ("token", "spl")


@dataclass(frozen=True)
class Token:
    caip2: str
    address: str  # EIP-55 address or base58 mint
    symbol: str
    name: str
    decimals: int
    stable: bool = False

    @property
    def family(self) -> str:
        return self.caip2.split(":", 1)[0]

    @property
    def caip19(self) -> str:
        namespace = ERC20 if self.family == catalog.EIP155 else SPL
        return f"{self.caip2}/{namespace}:{self.address}"


@dataclass(frozen=True)
class Asset:
    """A parsed CAIP-19 id: the network's native asset (``token`` None) or a token."""

    network: catalog.Network
    token: Token | None

    @property
    def caip19(self) -> str:
        return self.token.caip19 if self.token else self.network.native_caip19

    @property
    def symbol(self) -> str:
        return self.token.symbol if self.token else self.network.native.symbol

    @property
    def name(self) -> str:
        return self.token.name if self.token else self.network.native.name

    @property
    def decimals(self) -> int:
        return self.token.decimals if self.token else self.network.native.decimals

    @property
    def stable(self) -> bool:
        return self.token.stable if self.token else False


class UnknownAsset(ValueError):
    """A CAIP-19 id that is malformed, or names an asset the emulator does not hold."""


def _evm(caip2: str, address: str, symbol: str, name: str, decimals: int, stable: bool) -> Token:
    checksummed = eip55(bytes.fromhex(address[2:]))
    if address != address.lower() and address != checksummed:
        raise AssertionError(f"mistyped address {address}")  # the table is checked on import
    return Token(caip2, checksummed, symbol, name, decimals, stable)


_USDC = ("USDC", "USD Coin", 6, True)
_USDT = ("USDT", "Tether USD", 6, True)
_WETH = ("WETH", "Wrapped Ether", 18, False)

_EVM_TABLE: tuple[tuple[str, str, tuple[str, str, int, bool]], ...] = (
    ("eip155:1", "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", _USDC),
    ("eip155:1", "0xdAC17F958D2ee523a2206206994597C13D831ec7", _USDT),
    ("eip155:1", "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2", _WETH),
    ("eip155:1", "0x6B175474E89094C44Da98b954EedeAC495271d0F", ("DAI", "Dai Stablecoin", 18, True)),
    ("eip155:11155111", "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238", _USDC),
    ("eip155:11155111", "0xfFf9976782d46CC05630D1f6eBAb18b2324d6B14", _WETH),
    ("eip155:8453", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", _USDC),
    ("eip155:8453", "0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2", _USDT),
    ("eip155:8453", "0x4200000000000000000000000000000000000006", _WETH),
    (
        "eip155:8453",
        "0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb",
        ("DAI", "Dai Stablecoin", 18, True),
    ),
    ("eip155:84532", "0x036CbD53842c5426634e7929541eC2318f3dCF7e", _USDC),
    ("eip155:84532", "0x4200000000000000000000000000000000000006", _WETH),
    ("eip155:137", "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", _USDC),
    ("eip155:137", "0xc2132D05D31c914a87C6611C10748AEb04B58e8F", _USDT),
    ("eip155:137", "0x7ceB23fD6bC0adD59E62ac25578270cFf1b9f619", _WETH),
    (
        "eip155:137",
        "0x0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270",
        ("WPOL", "Wrapped POL", 18, False),
    ),
    ("eip155:80002", "0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582", _USDC),
    ("eip155:56", "0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d", ("USDC", "USD Coin", 18, True)),
    ("eip155:56", "0x55d398326f99059fF775485246999027B3197955", ("USDT", "Tether USD", 18, True)),
    ("eip155:56", "0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c", ("WBNB", "Wrapped BNB", 18, False)),
    ("eip155:10", "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85", _USDC),
    ("eip155:10", "0x94b008aA00579c1307B0EF2c499aD98a8ce58e58", _USDT),
    ("eip155:10", "0x4200000000000000000000000000000000000006", _WETH),
    ("eip155:11155420", "0x5fd84259d66Cd46123540766Be93DFE6D43130D7", _USDC),
    ("eip155:42161", "0xaf88d065e77c8cC2239327C5EDb3A432268e5831", _USDC),
    ("eip155:42161", "0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9", _USDT),
    ("eip155:42161", "0x82aF49447D8a07e3bd95BD0d56f35241523fBab1", _WETH),
    ("eip155:421614", "0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d", _USDC),
    ("eip155:143", "0x754704Bc059F8C67012fEd69BC8A327a5aafb603", _USDC),
    (
        "eip155:143",
        "0x3bd359C1119dA7Da1D913D1C4D2B7c461115433A",
        ("WMON", "Wrapped MON", 18, False),
    ),
    (
        "eip155:4217",
        "0x20C000000000000000000000b9537d11c60E8b50",
        ("USDC.e", "Bridged USDC", 6, True),
    ),
    ("eip155:4217", "0x20c0000000000000000000000000000000000000", ("pathUSD", "pathUSD", 6, True)),
)

_SOLANA_TABLE: tuple[tuple[str, str, tuple[str, str, int, bool]], ...] = (
    (catalog.SOLANA_MAINNET, "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", _USDC),
    (catalog.SOLANA_MAINNET, "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB", _USDT),
    (catalog.SOLANA_DEVNET, "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", _USDC),
)

TOKENS: tuple[Token, ...] = (
    *(_evm(c, a, *meta) for c, a, meta in _EVM_TABLE),
    *(Token(c, a, *meta) for c, a, meta in _SOLANA_TABLE),
)

# (caip2, lower-cased EVM address or mint) -> the token
_BY_ADDRESS = {
    (t.caip2, t.address.lower() if t.family == catalog.EIP155 else t.address): t for t in TOKENS
}


def tokens_of(caip2: str) -> tuple[Token, ...]:
    """The tokens of a network, in the table's order."""
    caip2 = catalog.canonical(caip2)
    return tuple(t for t in TOKENS if t.caip2 == caip2)


def find(caip2: str, address: str) -> Token | None:
    caip2 = catalog.canonical(caip2)
    key = address.lower() if caip2.startswith(catalog.EIP155 + ":") else address
    return _BY_ADDRESS.get((caip2, key))


def parse(caip19: str) -> Asset:
    """The asset a CAIP-19 id names; ``UnknownAsset`` if malformed or not held here."""
    if not isinstance(caip19, str) or caip19.count("/") != 1:
        raise UnknownAsset(f"invalid CAIP-19 asset id: {caip19!r}")
    caip2, _, asset = caip19.partition("/")
    namespace, _, reference = asset.partition(":")
    try:
        network = catalog.network(caip2)
    except KeyError:
        raise UnknownAsset(f"unsupported chain in asset id: {caip2!r}") from None
    if not reference:
        raise UnknownAsset(f"invalid CAIP-19 asset id: {caip19!r}")
    if namespace == SLIP44:
        if reference != str(network.native.slip44):
            raise UnknownAsset(f"unsupported asset: {caip19}")
        return Asset(network, None)
    expected = (ERC20,) if network.family == catalog.EIP155 else _SPL_ALIASES
    token = find(network.caip2, reference) if namespace in expected else None
    if token is None:
        raise UnknownAsset(f"unsupported asset: {caip19}")
    return Asset(network, token)
