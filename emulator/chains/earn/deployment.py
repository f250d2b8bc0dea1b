"""The Earn contracts on one embedded EVM chain, set up on first use.

On a chain's first Earn request the emulator (as Turnkey's deployer account) makes sure the
catalog's tokens are at their real addresses (USDC and WETH through the chains' token layer,
``chains/tokens.py``; MORPHO, which only Earn uses, as an ``EarnToken`` whose code is written
there, then initialized), deploys each vault (an OpenZeppelin ERC-4626; a Morpho vault's code and its name
moved to the vault's real address), seeds its TVL with a real deposit, deploys the CREATE2
factory and places the rewards distributor at Merkl's address. Nothing of this is the
organization's state: like the chain itself, ``reset`` and snapshots leave it alone.

Yield: before any Earn request reads or writes a chain, each vault is paid the interest of
its APY for the time passed on the emulator's clock (simple interest on its total assets since
the last payment, a real ``mint`` of the underlying into the vault), so a wrapper's shares grow
and its fee accrues onchain.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from eth_abi import encode

from ...crypto.hashing import keccak256
from .. import token_accounts
from .. import tokens as chain_tokens
from ..errors import ChainUnavailable
from ..evm_tx import unsigned_1559
from . import calldata, catalog, create2_address, decoded, init_code, merkle

YEAR_MS = 365 * 24 * 3600 * 1000
DEPLOYER_FUNDS = 10**6 * 10**18
REWARD_RESERVE = 10**9 * 10**18
CREATE_GAS = 6_000_000
CALL_GAS = 500_000
# Yield is paid at most once a second of the clock per vault.
ACCRUAL_STEP_MS = 1000
_DEPLOYER_KEY = keccak256(b"turnkey-emulator earn deployer")
_TURNKEY_FEE_KEY = keccak256(b"turnkey-emulator earn fees")


def _address_of(key: bytes) -> str:
    from coincurve import PrivateKey

    from ...crypto.addresses.chains import eip55

    public = PrivateKey(key).public_key.format(compressed=False)[1:]
    return eip55(keccak256(public)[-20:])


DEPLOYER = _address_of(_DEPLOYER_KEY)
TURNKEY_FEE_WALLET = _address_of(_TURNKEY_FEE_KEY)


# wrapper -> its underlying token, for every wrapper address derived in this process: a pure
# function of the factory (the same on every chain) and the parameters, so safe to share.
_KNOWN_ASSETS: dict[str, str] = {}


def known_asset(wrapper: str) -> str | None:
    return _KNOWN_ASSETS.get(wrapper.lower())


@dataclass
class VaultState:
    spec: catalog.Vault
    contract: str  # the ERC-4626 the emulator deployed (a Morpho vault's real address)
    apy: Fraction
    accrued_at_ms: int


@dataclass
class EarnChain:
    caip2: str
    node: Any
    chains: Any  # the ``Chains`` it lives in (the token layer's writes go through it)
    factory: str = ""
    vaults: dict[str, VaultState] = field(default_factory=dict)  # lower vault address ->
    # (user, token) lower -> [(amount, added at ms)]: the seeded Merkl rewards
    rewards: dict[tuple[str, str], list[tuple[int, int]]] = field(default_factory=dict)

    # ----- raw chain access ---------------------------------------------------------------

    def call(self, to: str, signature: str, *args: Any, out: list[str]) -> tuple[Any, ...]:
        data = calldata(signature, *args)
        result = self.node.tester.call({"from": DEPLOYER, "to": to, "data": "0x" + data.hex()})
        return decoded(out, bytes.fromhex(result[2:]))

    def uint(self, to: str, signature: str, *args: Any) -> int:
        return int(self.call(to, signature, *args, out=["uint256"])[0])

    def send(self, to: str | None, data: bytes, gas: int | None = None) -> Any:
        """A transaction from the deployer account: its receipt (mined, successful)."""
        from ...crypto import signing
        from ...crypto.transactions.ethereum import sign_ethereum_transaction

        node = self.node
        if gas is None:  # generous fixed limits: the deployer's own calls need no estimate
            gas = CREATE_GAS if to is None else CALL_GAS
        max_fee, tip = node.suggested_fees()
        unsigned = unsigned_1559(
            node.chain_id, node.nonce(DEPLOYER), tip, max_fee, gas, to, 0, data
        )

        def sign_digest(digest: bytes) -> tuple[int, int, int]:
            signature = signing.sign_digest_secp256k1(_DEPLOYER_KEY, digest)
            return int(signature.r, 16), int(signature.s, 16), signature.recovery_id

        raw = bytes.fromhex(sign_ethereum_transaction(unsigned, sign_digest))
        receipt = node.receipt(node.send_raw(raw))
        if receipt is None or receipt.status != 1:
            raise ChainUnavailable(f"an Earn setup transaction failed on {self.caip2}")
        return receipt

    def has_code(self, address: str) -> bool:
        return bool(self.node.code(address))

    # ----- tokens -------------------------------------------------------------------------

    def token_balance(self, token: str, holder: str) -> int:
        return self.uint(token, "balanceOf(address)", holder)

    def mint(self, token: str, to: str, amount: int) -> None:
        """Add ``amount`` of ``token`` to ``to``: a token of the chains' token layer
        (``chains/tokens.py``) through its funding seam, an Earn-only token (MORPHO) by a
        real ``mint`` from the deployer."""
        shared = chain_tokens.find(self.caip2, token)
        if shared is None:
            self.send(token, calldata("mint(address,uint256)", to, amount))
            return
        self.chains.ensure_token(shared)
        held = token_accounts.erc20_balance(self.node, shared, to)
        token_accounts.fund_erc20(self.node, shared, to, held + amount)

    # ----- yield --------------------------------------------------------------------------

    def accrue(self, now_ms: int, contracts: set[str] | None = None) -> None:
        """Pay the vaults (those whose contracts are named, or all) their yield up to
        ``now_ms``; a vault paid less than ``ACCRUAL_STEP_MS`` ago waits for the next call
        (the interest is the same: it is simple interest over the time passed)."""
        for state in self.vaults.values():
            if contracts is not None and state.contract.lower() not in contracts:
                continue
            elapsed = now_ms - state.accrued_at_ms
            if elapsed < ACCRUAL_STEP_MS:
                continue
            total = self.uint(state.contract, "totalAssets()")
            interest = int(total * state.apy * elapsed / YEAR_MS)
            if interest > 0:
                self.mint(state.spec.asset, state.contract, interest)
            state.accrued_at_ms = now_ms

    def accrue_wrapper(self, wrapper: str, now_ms: int) -> None:
        """Pay the vault behind ``wrapper`` its yield up to ``now_ms``."""
        if self.has_code(wrapper):
            vault = self.call(wrapper, "vault()", out=["address"])[0]
            self.accrue(now_ms, {str(vault).lower()})

    # ----- wrappers -----------------------------------------------------------------------

    def wrapper_addresses(
        self, vault_contract: str, client_bps: int, client: str
    ) -> tuple[str, str]:
        """(wrapper, splitter): the CREATE2 addresses the factory gives these parameters."""
        salt = keccak256(
            encode(["address", "uint256", "address"], [vault_contract, client_bps, client])
        )
        splitter_init = init_code("FeeSplitter") + encode(
            ["address", "uint256", "address", "uint256"],
            [client, client_bps, TURNKEY_FEE_WALLET, catalog.TURNKEY_FEE_BPS],
        )
        splitter = create2_address(self.factory, salt, splitter_init)
        wrapper_init = init_code("FeeWrapper") + encode(
            ["address", "address", "uint256"],
            [vault_contract, splitter, client_bps + catalog.TURNKEY_FEE_BPS],
        )
        wrapper = create2_address(self.factory, salt, wrapper_init)
        vault = next(v for v in self.vaults.values() if v.contract == vault_contract)
        _KNOWN_ASSETS[wrapper.lower()] = vault.spec.asset
        return wrapper, splitter

    def deploy_wrapper(self, vault_contract: str, client_bps: int, client: str) -> Any:
        data = calldata("deploy(address,uint256,address)", vault_contract, client_bps, client)
        return self.send(self.factory, data, gas=6_000_000)

    # ----- rewards (the Merkl distributor) ------------------------------------------------

    def add_reward(self, user: str, token: str, amount: int, now_ms: int) -> None:
        self.rewards.setdefault((user.lower(), token.lower()), []).append((amount, now_ms))

    def reward_rows(self, user: str, now_ms: int) -> list[tuple[str, int, int, int]]:
        """(token, claimable, claimed, pending) for each reward token of ``user``."""
        rows = []
        for (holder, token), entries in sorted(self.rewards.items()):
            if holder != user.lower():
                continue
            published = _published(entries, now_ms)
            pending = sum(a for a, _ in entries) - published
            claimed = self.uint(
                catalog.MERKL_DISTRIBUTOR, "claimed(address,address)", user, _checksum(token)
            )
            rows.append((_checksum(token), published - claimed, claimed, pending))
        return rows

    def claim_rewards_data(self, user: str, now_ms: int) -> bytes | None:
        """Publish the current root (as Merkl does) and the user's ``claim`` call; None when
        nothing is claimable."""
        cumulative = [
            (holder, token, _published(entries, now_ms))
            for (holder, token), entries in sorted(self.rewards.items())
        ]
        cumulative = [c for c in cumulative if c[2] > 0]
        leaves = [merkle.leaf(_checksum(h), _checksum(t), a) for h, t, a in cumulative]
        root, proofs = merkle.root_and_proofs(leaves)
        users, tokens, amounts, paths = [], [], [], []
        for (holder, token, amount), proof in zip(cumulative, proofs, strict=True):
            if holder != user.lower():
                continue
            claimed = self.uint(
                catalog.MERKL_DISTRIBUTOR, "claimed(address,address)", user, _checksum(token)
            )
            if amount > claimed:
                users.append(user)
                tokens.append(_checksum(token))
                amounts.append(amount)
                paths.append(proof)
        if not users:
            return None
        current = self.call(catalog.MERKL_DISTRIBUTOR, "root()", out=["bytes32"])[0]
        if current != root:
            self.send(catalog.MERKL_DISTRIBUTOR, calldata("updateRoot(bytes32)", root))
        return calldata(
            "claim(address[],address[],uint256[],bytes32[][])", users, tokens, amounts, paths
        )


def _published(entries: list[tuple[int, int]], now_ms: int) -> int:
    """What Merkl's roots include by ``now_ms``: entries added before the last publication
    (a root every ``ROOT_PERIOD_MS`` of the clock)."""
    last_root = now_ms // catalog.ROOT_PERIOD_MS * catalog.ROOT_PERIOD_MS
    return sum(amount for amount, at in entries if at < last_root)


def _checksum(address: str) -> str:
    from ...crypto.addresses.chains import eip55

    return eip55(bytes.fromhex(address[2:]))


# ----- setting a chain up --------------------------------------------------------------------


def _setup(chains: Any, caip2: str, now_ms: int) -> EarnChain:
    node = chains.evm(caip2)
    if not hasattr(node, "tester"):
        raise ChainUnavailable("Earn runs on the embedded EVM only (no RPC node for Earn)")
    node.set_balance(DEPLOYER, DEPLOYER_FUNDS)
    earn = EarnChain(caip2, node, chains)
    token_code = b""
    for token in catalog.TOKENS:
        if token.caip2 != caip2:
            continue
        shared = chain_tokens.find(caip2, token.address)
        if shared is not None:  # the chains' token layer writes it (USDC, WETH, ...)
            chains.ensure_token(shared)
            continue
        if earn.has_code(token.address):
            continue
        if not token_code:
            created = earn.send(None, init_code("EarnToken")).contract_address
            token_code = node.code(str(created))
        node.write_account(token.address, token_code)
        earn.send(
            token.address,
            calldata(
                "initialize(string,string,uint8,address)",
                token.name,
                token.symbol,
                token.decimals,
                DEPLOYER,
            ),
        )
    for spec in catalog.vaults_on(caip2):
        asset = catalog.token(caip2, spec.asset)
        assert asset is not None
        symbol = "".join(w[0] for w in spec.name.split() if w[0].isalpha()).lower() + asset.symbol
        args = encode(["address", "string", "string"], [spec.asset, spec.name, symbol])
        receipt = earn.send(None, init_code("EarnVault") + args)
        contract = str(receipt.contract_address)
        if spec.provider == catalog.MORPHO:
            # the vault at its real address: its code, and its name and symbol (ERC20 slots 3, 4)
            slots = {s: node.storage(contract, s) for s in (3, 4)}
            node.write_account(spec.vault_address, node.code(contract), slots)
            contract = spec.vault_address
        seed = spec.tvl_tokens * 10**asset.decimals
        earn.mint(spec.asset, DEPLOYER, seed)
        earn.send(spec.asset, calldata("approve(address,uint256)", contract, seed))
        earn.send(contract, calldata("deposit(uint256,address)", seed, DEPLOYER))
        earn.vaults[spec.vault_address.lower()] = VaultState(
            spec, contract, Fraction(spec.apy), now_ms
        )
    factory_args = encode(["address", "uint256"], [TURNKEY_FEE_WALLET, catalog.TURNKEY_FEE_BPS])
    earn.factory = str(earn.send(None, init_code("EarnFactory") + factory_args).contract_address)
    reward_token = catalog.REWARD_TOKENS.get(caip2)
    if reward_token is not None:
        distributor = earn.send(None, init_code("RewardsDistributor")).contract_address
        node.write_account(catalog.MERKL_DISTRIBUTOR, node.code(str(distributor)))
        earn.send(catalog.MERKL_DISTRIBUTOR, calldata("initialize(address)", DEPLOYER))
        earn.mint(reward_token, catalog.MERKL_DISTRIBUTOR, REWARD_RESERVE)
    return earn


class Earn:
    """The Earn contracts of every chain of one ``Chains``."""

    def __init__(self, chains: Any) -> None:
        self.chains = chains
        self._by_caip2: dict[str, EarnChain] = {}
        self._lock = threading.RLock()

    def chain(self, caip2: str, now_ms: int) -> EarnChain:
        """The chain's Earn contracts, set up now if new (the callers pay the yield of the
        vaults they read, ``accrue`` / ``accrue_wrapper``)."""
        with self._lock:
            earn = self._by_caip2.get(caip2)
            if earn is None:
                earn = self._by_caip2[caip2] = _setup(self.chains, caip2, now_ms)
            return earn

    def started(self) -> list[str]:
        return sorted(self._by_caip2)


_EARN: weakref.WeakKeyDictionary[Any, Earn] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def earn_of(chains: Any) -> Earn:
    """The Earn contracts of ``chains`` (``chains/network.py``'s ``Chains``)."""
    with _LOCK:
        found = _EARN.get(chains)
        if found is None:
            found = _EARN[chains] = Earn(chains)
        return found
