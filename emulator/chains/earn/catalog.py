"""The seeded Earn catalog: the tokens and vaults the emulator's ``list_earn_vaults`` offers.

Addresses are the real ones on each chain (USDC, WETH and MORPHO, the Morpho vaults), so an
application's constants work unchanged; an Aave entry's ``vault_address`` is the reserve's
underlying asset, as the docs say (``features/transaction-management/earn/vault-catalog``),
and its ERC-4626 stand-in lives at an address of the emulator's own. TVL, APY, names and
curators are plausible seeds, not live figures: ``docs/earn.md`` lists them.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

MORPHO = "EARN_PROVIDER_MORPHO"
AAVE = "EARN_PROVIDER_AAVE"
PROVIDERS = (MORPHO, AAVE, "EARN_PROVIDER_KAMINO")

# Turnkey's fee on yield (docs: "up to 10% of yield (1,000 bps)"), the client's cap and the total's.
TURNKEY_FEE_BPS = 1000
CLIENT_FEE_CAP_BPS = 4000
TOTAL_FEE_CAP_BPS = 5000
# The catalog's floor (docs: "only includes vaults with at least $100k TVL").
MIN_TVL_USD = Decimal(100_000)


@dataclass(frozen=True)
class Token:
    caip2: str
    address: str
    symbol: str
    name: str
    decimals: int
    usd: Decimal

    @property
    def caip19(self) -> str:
        return f"{self.caip2}/erc20:{self.address}"


@dataclass(frozen=True)
class Vault:
    caip2: str
    vault_address: str  # what the API names (an Aave reserve's underlying asset)
    provider: str
    asset: str  # the underlying token's address
    name: str
    curator: str
    apy: str  # a decimal fraction
    tvl_tokens: int  # the seeded TVL, in whole tokens

    @property
    def key(self) -> tuple[str, str]:
        return (self.caip2, self.vault_address.lower())


BASE, ETHEREUM, ARBITRUM, POLYGON = "eip155:8453", "eip155:1", "eip155:42161", "eip155:137"

TOKENS: tuple[Token, ...] = (
    Token(BASE, "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "USDC", "USD Coin", 6, Decimal(1)),
    Token(
        BASE,
        "0x4200000000000000000000000000000000000006",
        "WETH",
        "Wrapped Ether",
        18,
        Decimal(3000),
    ),
    Token(
        BASE, "0xBAa5CC21fd487B8Fcc2F632f3F4E8D37262a0842", "MORPHO", "Morpho Token", 18, Decimal(2)
    ),
    Token(
        ETHEREUM, "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "USDC", "USD Coin", 6, Decimal(1)
    ),
    Token(
        ETHEREUM,
        "0x58D97B57BB95320F9a05dC918Aef65434969c2B2",
        "MORPHO",
        "Morpho Token",
        18,
        Decimal(2),
    ),
    Token(
        ARBITRUM, "0xaf88d065e77c8cC2239327C5EDb3A432268e5831", "USDC", "USD Coin", 6, Decimal(1)
    ),
    Token(POLYGON, "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", "USDC", "USD Coin", 6, Decimal(1)),
)

VAULTS: tuple[Vault, ...] = (
    Vault(
        BASE,
        "0xbeeF010f9cb27031ad51e3333f9aF9C6B1228183",
        MORPHO,
        "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        "Steakhouse USDC",
        "Steakhouse Financial",
        "0.0512",
        410_000_000,
    ),
    Vault(
        BASE,
        "0xeE8F4eC5672F09119b96Ab6fB59C27E1b7e44b61",
        MORPHO,
        "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        "Gauntlet USDC Prime",
        "Gauntlet",
        "0.0487",
        180_000_000,
    ),
    Vault(
        BASE,
        "0xc1256Ae5FF1cf2719D4937adb3bbCCab2E00A2Ca",
        MORPHO,
        "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        "Moonwell Flagship USDC",
        "B.Protocol, Block Analitica",
        "0.0455",
        95_000_000,
    ),
    Vault(
        BASE,
        "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        AAVE,
        "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        "USDC",
        "",
        "0.0391",
        120_000_000,
    ),
    Vault(
        BASE,
        "0xa0E430870c4604CcfC7B38Ca7845B1FF653D0ff1",
        MORPHO,
        "0x4200000000000000000000000000000000000006",
        "Moonwell Flagship ETH",
        "B.Protocol, Block Analitica",
        "0.0231",
        30_000,
    ),
    Vault(
        ETHEREUM,
        "0xBEEF01735c132Ada46AA9aA4c54623cAA92A64CB",
        MORPHO,
        "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
        "Steakhouse USDC",
        "Steakhouse Financial",
        "0.0468",
        620_000_000,
    ),
    Vault(
        ETHEREUM,
        "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
        AAVE,
        "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
        "USDC",
        "",
        "0.0402",
        900_000_000,
    ),
    Vault(
        ARBITRUM,
        "0xaf88d065e77c8cC2239327C5EDb3A432268e5831",
        AAVE,
        "0xaf88d065e77c8cC2239327C5EDb3A432268e5831",
        "USDC",
        "",
        "0.0445",
        150_000_000,
    ),
    Vault(
        POLYGON,
        "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
        AAVE,
        "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
        "USDC",
        "",
        "0.0421",
        60_000_000,
    ),
)

# Merkl reward campaigns, seeded: (caip2, the reward token) per chain with Morpho vaults.
REWARD_TOKENS: dict[str, str] = {
    BASE: "0xBAa5CC21fd487B8Fcc2F632f3F4E8D37262a0842",
    ETHEREUM: "0x58D97B57BB95320F9a05dC918Aef65434969c2B2",
}
# The Merkl Distributor: "same address on all supported chains" (earn/rewards docs).
MERKL_DISTRIBUTOR = "0x3Ef3D8bA38EBe18DB133cEc108f4D14CE00Dd9Ae"
# Merkl publishes a new root "roughly every 8 hours".
ROOT_PERIOD_MS = 8 * 3600 * 1000


def token(caip2: str, address: str) -> Token | None:
    for found in TOKENS:
        if found.caip2 == caip2 and found.address.lower() == address.lower():
            return found
    return None


def vaults_on(caip2: str) -> list[Vault]:
    return [v for v in VAULTS if v.caip2 == caip2]


def vault(caip2: str, address: str) -> Vault | None:
    for found in VAULTS:
        if found.key == (caip2, address.lower()):
            return found
    return None


def chains() -> list[str]:
    return sorted({v.caip2 for v in VAULTS})
