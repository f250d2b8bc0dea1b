"""The chains one emulator broadcasts to: embedded by default, a node where a URL is given.

``Chains`` starts each chain on first use (an EVM per EIP-155 id, a Solana runtime per
cluster), keeps the gas station's accounts and nonces, and remembers which transactions it
broadcast on each chain (the transaction history reads that index, on a node as on an
embedded chain). It is the outside world: the organization's state (checkpoints, snapshots,
``reset``) does not roll it back, as a real chain would not be.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from ..crypto.hashing import keccak256
from . import catalog
from .errors import ChainUnavailable

# What the gas station's account holds on an embedded chain (and is topped up to on a node).
SPONSOR_FUNDS = 10**6 * 10**18
SOLANA_SPONSOR_FUNDS = 10**6 * 10**9


class Chains:
    def __init__(self, rpc_urls: Mapping[str, str] | None = None) -> None:
        self.rpc_urls = {catalog.canonical(k): v for k, v in (rpc_urls or {}).items()}
        self._evm: dict[str, Any] = {}
        self._solana: dict[str, Any] = {}
        self._lock = threading.RLock()
        # caip2 -> the address of the gas station's delegate contract on that chain
        self.delegates: dict[str, str] = {}
        # caip2 -> the transactions broadcast there, oldest first: (hash or signature, record)
        self.sent: dict[str, list[Any]] = {}
        self._sponsor_key = keccak256(b"turnkey-emulator gas station")
        # the CAIP-19 ids of the tokens written onto their chains so far
        self.tokens_deployed: set[str] = set()
        # the simulated swap provider's side of the chains (``swap_provider.Provider``)
        self.swap_provider: Any = None

    # ----- the chains -----------------------------------------------------------------------

    def started(self) -> list[str]:
        return sorted([*self._evm, *self._solana])

    def evm(self, caip2: str) -> Any:
        """The EVM chain of ``caip2`` (an ``EmbeddedEvm`` or an ``RpcEvm``), started now if new."""
        caip2 = catalog.canonical(caip2)
        network = catalog.NETWORKS.get(caip2)
        if network is None or network.family != catalog.EIP155:
            raise ChainUnavailable(f"unknown EVM network {caip2}")
        with self._lock:
            node = self._evm.get(caip2)
            if node is None:
                url = self.rpc_urls.get(caip2)
                if url is not None:
                    from .evm_rpc import RpcEvm

                    node = RpcEvm(url, network.chain_id)
                else:
                    from .evm import EmbeddedEvm

                    node = EmbeddedEvm(network.chain_id)
                if node.balance(self.evm_sponsor_address) < SPONSOR_FUNDS // 2:
                    node.set_balance(self.evm_sponsor_address, SPONSOR_FUNDS)
                self.delegates[caip2] = self._deploy_delegate(node)
                self._evm[caip2] = node
            return node

    def solana(self, caip2: str) -> Any:
        caip2 = catalog.canonical(caip2)
        network = catalog.NETWORKS.get(caip2)
        if network is None or network.family != catalog.SOLANA:
            raise ChainUnavailable(f"unknown Solana network {caip2}")
        with self._lock:
            node = self._solana.get(caip2)
            if node is None:
                if caip2 in self.rpc_urls:
                    raise ChainUnavailable(
                        "Solana JSON-RPC nodes are not supported yet; the embedded runtime is"
                    )
                from .solana import EmbeddedSolana

                node = EmbeddedSolana()
                node.set_balance(self.solana_sponsor_address, SOLANA_SPONSOR_FUNDS)
                self._solana[caip2] = node
            return node

    # ----- the funding seam (not Turnkey's API) ---------------------------------------------

    def fund(self, asset: str, address: str, amount: int) -> None:
        """Set ``address``'s balance of ``asset`` to ``amount`` base units. ``asset`` is a
        CAIP-2 id (the native asset: wei, lamports, like Anvil's ``anvil_setBalance``) or a
        CAIP-19 id (the native asset, or a token of ``tokens.py``, written onto its chain first
        if new). A test seam, not part of Turnkey's API; ``UnknownAsset`` for an asset the
        emulator does not hold."""
        from . import token_accounts
        from .tokens import parse

        if amount < 0:
            raise ValueError("a balance is not negative")
        if "/" not in asset:
            network = catalog.network(asset)
            token = None
        else:
            parsed = parse(asset)
            network, token = parsed.network, parsed.token
        if network.family == catalog.EIP155:
            node = self.evm(network.caip2)
            if token is None:
                node.set_balance(address, amount)
            else:
                self.ensure_token(token)
                token_accounts.fund_erc20(node, token, address, amount)
        else:
            node = self.solana(network.caip2)
            if token is None:
                node.set_balance(address, amount)
            else:
                self.ensure_token(token)
                token_accounts.fund_spl(node, token, address, amount)

    def balance(self, caip2: str, address: str) -> int:
        if catalog.network(caip2).family == catalog.EIP155:
            return int(self.evm(caip2).balance(address))
        return int(self.solana(caip2).balance(address))

    # ----- tokens ---------------------------------------------------------------------------

    def ensure_token(self, token: Any) -> None:
        """Write ``token`` (a ``tokens.Token``) onto its chain if it is not there yet."""
        from . import token_accounts

        with self._lock:
            if token.caip19 in self.tokens_deployed:
                return
            if token.family == catalog.EIP155:
                node = self.evm(token.caip2)
                if not node.code(token.address):
                    token_accounts.deploy_erc20(node, token)
            else:
                token_accounts.deploy_mint(self.solana(token.caip2), token)
            self.tokens_deployed.add(token.caip19)

    def token_balance(self, token: Any, address: str) -> int:
        """``address``'s balance of ``token``, read from the chain (0 where the token was
        never written)."""
        from . import token_accounts

        if token.caip19 not in self.tokens_deployed:
            return 0
        if token.family == catalog.EIP155:
            return token_accounts.erc20_balance(self.evm(token.caip2), token, address)
        return token_accounts.spl_balance(self.solana(token.caip2), token, address)

    def asset_balance(self, caip19: str, address: str) -> int:
        """``address``'s balance of any asset the emulator holds, by CAIP-19 id."""
        from .tokens import parse

        parsed = parse(caip19)
        if parsed.token is None:
            return self.balance(parsed.network.caip2, address)
        return self.token_balance(parsed.token, address)

    # ----- the gas station ------------------------------------------------------------------

    @property
    def evm_sponsor_address(self) -> str:
        from coincurve import PrivateKey

        from ..crypto.addresses.chains import eip55

        public = PrivateKey(self._sponsor_key).public_key.format(compressed=False)[1:]
        return eip55(keccak256(public)[-20:])

    @property
    def solana_sponsor_address(self) -> str:
        from nacl.signing import SigningKey

        from ..crypto.base58 import base58_encode

        return base58_encode(bytes(SigningKey(self._sponsor_key).verify_key))

    def sign_as_sponsor(self, unsigned_hex: str) -> bytes:
        """The gas station sponsor's signature of an EVM transaction (signed, raw bytes)."""
        from ..crypto import signing
        from ..crypto.transactions.ethereum import sign_ethereum_transaction

        def sign_digest(digest: bytes) -> tuple[int, int, int]:
            signature = signing.sign_digest_secp256k1(self._sponsor_key, digest)
            return int(signature.r, 16), int(signature.s, 16), signature.recovery_id

        return bytes.fromhex(sign_ethereum_transaction(unsigned_hex, sign_digest))

    def _deploy_delegate(self, node: Any) -> str:
        """Deploy the gas station's delegate contract from the sponsor; its address."""
        from .evm_tx import unsigned_1559
        from .gas_station import init_code

        max_fee, tip = node.suggested_fees()
        nonce = node.nonce(self.evm_sponsor_address)
        unsigned = unsigned_1559(
            node.chain_id, nonce, tip, max_fee, 3_000_000, None, 0, init_code()
        )
        receipt = node.receipt(node.send_raw(self.sign_as_sponsor(unsigned)))
        if receipt is None or receipt.status != 1 or not receipt.contract_address:
            raise ChainUnavailable("the gas station's delegate contract could not be deployed")
        return str(receipt.contract_address)

    def gas_station_nonce(self, caip2: str, address: str) -> int:
        """The account's gas station nonce, read from its storage on the chain."""
        from .gas_station import NONCE_SLOT

        return int(self.evm(caip2).storage(address, NONCE_SLOT))

    def record(self, caip2: str, entry: Any) -> None:
        self.sent.setdefault(catalog.canonical(caip2), []).append(entry)


def chains_of(world: Any) -> Chains:
    """The world's chains, made on first use from its settings."""
    chains = world.chains
    if chains is None:
        with world.lock:
            if world.chains is None:
                world.chains = Chains(world.settings.chain_rpc_urls)
            chains = world.chains
    return chains
