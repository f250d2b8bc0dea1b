"""The simulated swap provider's side of the chains: its solver account, its settlement
contract on each EVM chain, its liquidity, and the transactions of a swap.

The provider (named ``relay``, the one provider the docs list) holds one secp256k1 and one
ed25519 key, derived from a fixed seed like the gas station's. On an EVM chain its solver
deploys ``contracts/EmulatorSwapRouter.sol`` with its first transaction (so the router's
address is the CREATE address of the solver and nonce 0 on every chain), the first time a swap
touches that chain. The router pays same-chain outputs from its own balances; the solver pays
cross-chain fills, refunds and fee claims through the router's ``pay``. On Solana a swap is one
transaction the wallet and the solver both sign: the wallet's input to the solver, the
solver's output to the wallet (SPL ``TransferChecked`` or System transfers; the wallet's token
account created on the way when missing).

Liquidity is the emulator's to give: before a payout the provider's balance of the asset is
topped up through the token layer's funding seam (a real provider rebalances off-chain).
"""

from __future__ import annotations

import struct
import threading
from dataclasses import dataclass
from typing import Any

from eth_abi import encode

from ..crypto import rlp
from ..crypto.addresses.chains import eip55
from ..crypto.hashing import keccak256
from . import catalog, contracts, token_accounts
from .errors import ChainError, ChainUnavailable
from .tokens import Asset

PROVIDER = "relay"
ROUTER = "EmulatorSwapRouter"
NATIVE_TOKEN = "0x" + "00" * 20
ORDER_TUPLE = "(bytes32,address,uint256,address,uint256,uint256,address,uint256)"
SWAP = keccak256(f"swap({ORDER_TUPLE},bytes)".encode())[:4]
PAY = keccak256(b"pay(bytes32,uint8,address,address,uint256)")[:4]
FILL, REFUND, FEE_CLAIM = 1, 2, 3
# what the solver keeps for gas on each chain, and the liquidity it holds beyond a payout
SOLVER_GAS_FUNDS = 10**6 * 10**18
SOLANA_SOLVER_FUNDS = 10**6 * 10**9
SYSTEM_PROGRAM = "11111111111111111111111111111111"


@dataclass(frozen=True)
class Order:
    quote_id: bytes
    token_in: str
    amount_in: int
    token_out: str
    amount_out: int
    min_out: int
    recipient: str
    destination_chain_id: int

    def as_tuple(self) -> tuple[Any, ...]:
        return (
            self.quote_id,
            self.token_in,
            self.amount_in,
            self.token_out,
            self.amount_out,
            self.min_out,
            self.recipient,
            self.destination_chain_id,
        )


def evm_token(asset: Asset) -> str:
    """The router's name of an asset: the token's address, or the zero address if native."""
    return asset.token.address if asset.token is not None else NATIVE_TOKEN


class Provider:
    """The provider of one ``Chains``: which routers are deployed, under a lock."""

    def __init__(self, chains: Any = None) -> None:
        # ``chains`` None: a provider that only computes (addresses, orders, signatures)
        self.chains = chains
        self._evm_key = keccak256(b"turnkey-emulator swap provider")
        self._lock = threading.RLock()
        self._routers: set[str] = set()
        # injected fill failures (``emu.swap.fail_next_fill``): the provider reason of each
        self.fill_failures: list[str] = []

    def take_fill_failure(self) -> str | None:
        with self._lock:
            return self.fill_failures.pop(0) if self.fill_failures else None

    # ----- the accounts ---------------------------------------------------------------------

    @property
    def solver(self) -> str:
        from coincurve import PrivateKey

        public = PrivateKey(self._evm_key).public_key.format(compressed=False)[1:]
        return eip55(keccak256(public)[-20:])

    @property
    def router(self) -> str:
        """The router's address on every EVM chain: CREATE(solver, nonce 0)."""
        sender = bytes.fromhex(self.solver[2:])
        return eip55(keccak256(rlp.encode([sender, b""]))[-20:])

    @property
    def solana_solver(self) -> str:
        return str(self._solana_keypair().pubkey())

    def _solana_keypair(self) -> Any:
        from solders.keypair import Keypair

        return Keypair.from_seed(keccak256(b"turnkey-emulator swap provider solana"))

    # ----- EVM ------------------------------------------------------------------------------

    def deployed(self, caip2: str) -> bool:
        return catalog.canonical(caip2) in self._routers

    def evm(self, caip2: str) -> Any:
        """The chain, with the solver funded for gas and the router deployed."""
        caip2 = catalog.canonical(caip2)
        node = self.chains.evm(caip2)
        with self._lock:
            if caip2 in self._routers:
                return node
            if node.balance(self.solver) < SOLVER_GAS_FUNDS // 2:
                node.set_balance(self.solver, SOLVER_GAS_FUNDS)
            if not node.code(self.router):
                if node.nonce(self.solver) != 0:
                    raise ChainUnavailable("the swap provider's router cannot be deployed here")
                receipt = self._send(node, None, 0, contracts.init_code(ROUTER), 3_000_000)
                if receipt is None or receipt.status != 1:
                    raise ChainUnavailable("the swap provider's router could not be deployed")
            self._routers.add(caip2)
        return node

    def order_digest(self, chain_id: int, sender: str, order: Order) -> bytes:
        encoded = encode(
            ["uint256", "address", "address", ORDER_TUPLE],
            [chain_id, self.router, sender, order.as_tuple()],
        )
        return keccak256(encoded)

    def sign_order(self, chain_id: int, sender: str, order: Order) -> bytes:
        from ..crypto import signing

        signature = signing.sign_digest_secp256k1(
            self._evm_key, self.order_digest(chain_id, sender, order)
        )
        return (
            bytes.fromhex(signature.r.rjust(64, "0"))
            + bytes.fromhex(signature.s.rjust(64, "0"))
            + bytes([27 + signature.recovery_id])
        )

    def swap_data(self, chain_id: int, sender: str, order: Order) -> bytes:
        signature = self.sign_order(chain_id, sender, order)
        return SWAP + encode([ORDER_TUPLE, "bytes"], [order.as_tuple(), signature])

    def provide(self, asset: Asset, holder: str, amount: int) -> None:
        """Top ``holder``'s balance of ``asset`` up to at least ``amount`` (liquidity)."""
        current = self.chains.asset_balance(asset.caip19, holder)
        if current < amount:
            self.chains.fund(asset.caip19, holder, amount)

    def pay(self, asset: Asset, kind: int, ident: bytes, recipient: str, amount: int) -> str:
        """The solver's payout through the router on the asset's chain: its transaction hash
        (a ``ChainError`` if it did not succeed)."""
        node = self.evm(asset.network.caip2)
        self.provide(asset, self.router, amount)
        data = PAY + encode(
            ["bytes32", "uint8", "address", "address", "uint256"],
            [ident, kind, evm_token(asset), recipient, amount],
        )
        receipt = self._send(node, self.router, 0, data, 200_000)
        if receipt is None or receipt.status != 1:
            raise ChainError("the swap provider's payout reverted")
        return str(receipt.tx_hash)

    def _send(self, node: Any, to: str | None, value: int, data: bytes, gas: int) -> Any:
        from ..crypto import signing
        from ..crypto.transactions.ethereum import sign_ethereum_transaction
        from .evm_tx import unsigned_1559

        max_fee, tip = node.suggested_fees()
        unsigned = unsigned_1559(
            node.chain_id, node.nonce(self.solver), tip, max_fee, gas, to, value, data
        )

        def sign_digest(digest: bytes) -> tuple[int, int, int]:
            signature = signing.sign_digest_secp256k1(self._evm_key, digest)
            return int(signature.r, 16), int(signature.s, 16), signature.recovery_id

        raw = bytes.fromhex(sign_ethereum_transaction(unsigned, sign_digest))
        return node.receipt(node.send_raw(raw))

    # ----- Solana ---------------------------------------------------------------------------

    def solana_swap(
        self,
        caip2: str,
        owner: str,
        asset_in: Asset,
        amount_in: int,
        asset_out: Asset,
        amount_out: int,
        recipient: str,
        blockhash: str | None = None,
        liquidity: bool = True,
    ) -> bytes:
        """The swap's transaction (wire bytes), signed by the solver only: the wallet signs
        it as the fee payer, through the same path as ``sol_send_transaction``."""
        from solders.hash import Hash

        node = self.chains.solana(caip2)
        solver = self._solana_keypair()
        if node.balance(self.solana_solver) < SOLANA_SOLVER_FUNDS // 2:
            node.set_balance(self.solana_solver, SOLANA_SOLVER_FUNDS)
        if asset_in.token is not None:
            self._ensure_token_account(asset_in, self.solana_solver)
        if not liquidity:
            pass
        elif asset_out.token is not None:
            self.provide(asset_out, self.solana_solver, amount_out)
        else:
            node.set_balance(self.solana_solver, node.balance(self.solana_solver) + amount_out)
        recent = Hash.from_string(blockhash or node.latest_blockhash())
        tx = self.solana_unsigned(
            owner, asset_in, amount_in, asset_out, amount_out, recipient, recent
        )
        tx.partial_sign([solver], recent)
        return bytes(tx)

    def solana_unsigned(
        self,
        owner: str,
        asset_in: Asset,
        amount_in: int,
        asset_out: Asset,
        amount_out: int,
        recipient: str,
        recent: Any = None,
    ) -> Any:
        """The swap's unsigned transaction (a solders ``Transaction``); no chain is read."""
        from solders.hash import Hash
        from solders.message import Message
        from solders.pubkey import Pubkey
        from solders.transaction import Transaction

        instructions = [
            *_moves(asset_in, owner, self.solana_solver, amount_in, owner),
            *_moves(asset_out, self.solana_solver, recipient, amount_out, owner),
        ]
        message = Message.new_with_blockhash(
            instructions, Pubkey.from_string(owner), recent or Hash.default()
        )
        return Transaction.new_unsigned(message)

    def _ensure_token_account(self, asset: Asset, owner: str) -> None:
        assert asset.token is not None
        node = self.chains.solana(asset.network.caip2)
        self.chains.ensure_token(asset.token)
        address = token_accounts.associated_token_address(owner, asset.token.address)
        if node.account_data(address) is None:
            self.chains.fund(asset.caip19, owner, 0)


def _moves(asset: Asset, source: str, target: str, amount: int, payer: str) -> list[Any]:
    """The instructions that move ``amount`` of ``asset`` from ``source`` to ``target``: a
    System transfer (native), or the target's token account created if missing (the
    Associated Token program's ``CreateIdempotent``, paid by ``payer``) and the Token
    program's ``TransferChecked``."""
    from solders.instruction import AccountMeta, Instruction
    from solders.pubkey import Pubkey
    from solders.system_program import TransferParams, transfer

    if asset.token is None:
        return [
            transfer(
                TransferParams(
                    from_pubkey=Pubkey.from_string(source),
                    to_pubkey=Pubkey.from_string(target),
                    lamports=amount,
                )
            )
        ]
    mint = Pubkey.from_string(asset.token.address)
    token_program = Pubkey.from_string(token_accounts.TOKEN_PROGRAM)
    source_account = Pubkey.from_string(
        token_accounts.associated_token_address(source, asset.token.address)
    )
    target_account = Pubkey.from_string(
        token_accounts.associated_token_address(target, asset.token.address)
    )
    create = Instruction(
        Pubkey.from_string(token_accounts.ASSOCIATED_TOKEN_PROGRAM),
        bytes([1]),  # CreateIdempotent
        [
            AccountMeta(Pubkey.from_string(payer), True, True),
            AccountMeta(target_account, False, True),
            AccountMeta(Pubkey.from_string(target), False, False),
            AccountMeta(mint, False, False),
            AccountMeta(Pubkey.from_string(SYSTEM_PROGRAM), False, False),
            AccountMeta(token_program, False, False),
        ],
    )
    move = Instruction(
        token_program,
        bytes([12]) + struct.pack("<QB", amount, asset.token.decimals),  # TransferChecked
        [
            AccountMeta(source_account, False, True),
            AccountMeta(mint, False, False),
            AccountMeta(target_account, False, True),
            AccountMeta(Pubkey.from_string(source), True, False),
        ],
    )
    return [create, move]


def provider_of(chains: Any) -> Provider:
    """The chains' swap provider, made on first use."""
    if chains.swap_provider is None:
        chains.swap_provider = Provider(chains)
    return chains.swap_provider
