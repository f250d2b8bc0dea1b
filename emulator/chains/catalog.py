"""The networks Turnkey broadcasts to, by CAIP-2 id: every id the official API's enums list.

Each network names its native asset (symbol, name, decimals, SLIP-44 coin type: its CAIP-19 id
is ``<caip2>/slip44:<coin>``). Solana's human-readable aliases (``solana:mainnet``,
``solana:devnet``) and the long genesis-hash forms normalize to the canonical 32-character ids,
as the API's descriptions say.
"""

from __future__ import annotations

from dataclasses import dataclass

EIP155 = "eip155"
SOLANA = "solana"

SOLANA_MAINNET = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
SOLANA_DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"


@dataclass(frozen=True)
class NativeAsset:
    symbol: str
    name: str
    decimals: int
    slip44: int


@dataclass(frozen=True)
class Network:
    caip2: str
    name: str
    native: NativeAsset
    testnet: bool = False

    @property
    def family(self) -> str:
        return self.caip2.split(":", 1)[0]

    @property
    def chain_id(self) -> int:
        """The EIP-155 chain id (EVM networks only)."""
        return int(self.caip2.split(":", 1)[1])

    @property
    def native_caip19(self) -> str:
        return f"{self.caip2}/slip44:{self.native.slip44}"


_ETH = NativeAsset("ETH", "Ether", 18, 60)
_POL = NativeAsset("POL", "Polygon Ecosystem Token", 18, 966)
_BNB = NativeAsset("BNB", "BNB", 18, 714)
_MON = NativeAsset("MON", "Monad", 18, 60)
# Tempo has no native gas token of its own (fees are paid in stablecoins); the emulator gives
# its embedded chain an 18-decimal native balance so that it behaves as the others do.
_TEMPO = NativeAsset("USD", "Tempo native balance", 18, 60)
_SOL = NativeAsset("SOL", "Solana", 9, 501)

NETWORKS: dict[str, Network] = {
    n.caip2: n
    for n in (
        Network("eip155:1", "Ethereum", _ETH),
        Network("eip155:11155111", "Ethereum Sepolia", _ETH, testnet=True),
        Network("eip155:8453", "Base", _ETH),
        Network("eip155:84532", "Base Sepolia", _ETH, testnet=True),
        Network("eip155:137", "Polygon", _POL),
        Network("eip155:80002", "Polygon Amoy", _POL, testnet=True),
        Network("eip155:56", "BNB Smart Chain", _BNB),
        Network("eip155:97", "BNB Smart Chain Testnet", _BNB, testnet=True),
        Network("eip155:10", "OP Mainnet", _ETH),
        Network("eip155:11155420", "OP Sepolia", _ETH, testnet=True),
        Network("eip155:143", "Monad", _MON),
        Network("eip155:10143", "Monad Testnet", _MON, testnet=True),
        Network("eip155:42161", "Arbitrum One", _ETH),
        Network("eip155:421614", "Arbitrum Sepolia", _ETH, testnet=True),
        Network("eip155:4217", "Tempo", _TEMPO),
        Network("eip155:42431", "Tempo Testnet", _TEMPO, testnet=True),
        Network(SOLANA_MAINNET, "Solana", _SOL),
        Network(SOLANA_DEVNET, "Solana Devnet", _SOL, testnet=True),
    )
}

# The enums of the API, by request (copied from the official OpenAPI document).
EVM_SEND = tuple(c for c in NETWORKS if c.startswith(EIP155 + ":"))
EVM_UNDELEGATE = tuple(c for c in EVM_SEND if c not in ("eip155:4217", "eip155:42431"))
EVM_HISTORY = (
    "eip155:1",
    "eip155:11155111",
    "eip155:8453",
    "eip155:84532",
    "eip155:137",
    "eip155:80002",
    "eip155:42161",
    "eip155:4217",
    "eip155:42431",
    "eip155:421614",
    "eip155:56",
    "eip155:97",
)
SOLANA_SEND = (
    "solana:mainnet",
    SOLANA_MAINNET,
    SOLANA_MAINNET + "Kuc147dw2N9d",
    "solana:devnet",
    SOLANA_DEVNET,
    SOLANA_DEVNET + "wcaWoxPkrZBG",
)
SOLANA_HISTORY = (SOLANA_MAINNET, SOLANA_DEVNET, "solana:mainnet", "solana:devnet")
# get_wallet_address_balances, list_supported_assets (the Solana aliases accepted too)
ALL_NETWORKS = (*NETWORKS, "solana:mainnet", "solana:devnet")

_SOLANA_ALIASES = {
    "solana:mainnet": SOLANA_MAINNET,
    SOLANA_MAINNET + "Kuc147dw2N9d": SOLANA_MAINNET,
    "solana:devnet": SOLANA_DEVNET,
    SOLANA_DEVNET + "wcaWoxPkrZBG": SOLANA_DEVNET,
}


def canonical(caip2: str) -> str:
    """The canonical CAIP-2 id (Solana aliases and long forms normalized)."""
    return _SOLANA_ALIASES.get(caip2, caip2)


def network(caip2: str) -> Network:
    return NETWORKS[canonical(caip2)]
