"""An embedded Solana runtime: LiteSVM (shipped by ``solders``), one per CAIP-2 id.

Started on first use. A transaction is simulated first, as an RPC node's preflight does; one
that fails there is refused (``SolanaRefusal``: the error, logs and compute units, as the
JSON-RPC ``sendTransaction`` answers them) and changes nothing. One that passes is processed at
once. ``set_balance`` is the funding seam (the account's lamports, like ``solana airdrop``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import ChainError, ChainUnavailable

# JSON-RPC's "Transaction simulation failed" error code (SendTransactionPreflightFailure).
PREFLIGHT_FAILURE = -32002
SYSTEM_PROGRAM = "11111111111111111111111111111111"


@dataclass(frozen=True)
class SolanaOutcome:
    signature: str
    slot: int
    block_time: int
    fee: int
    compute_units: int
    logs: tuple[str, ...]
    signers: tuple[tuple[str, bool], ...]  # (address, writable), in message order
    balance_changes: dict[str, int] = field(default_factory=dict)  # lamports, per account


class SolanaRefusal(ChainError):
    """A transaction the preflight refused, with what the node reports of it."""

    def __init__(self, message: str, error_json: str, logs: list[str], units: int) -> None:
        super().__init__(message)
        self.error_json = error_json
        self.logs = logs
        self.units = units


class EmbeddedSolana:
    kind = "embedded"

    def __init__(self) -> None:
        try:
            from solders.litesvm import LiteSVM
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ChainUnavailable(
                "the embedded Solana runtime needs the 'chains' extra (solders with LiteSVM)"
            ) from exc
        self.svm = LiteSVM()

    def balance(self, address: str) -> int:
        from solders.pubkey import Pubkey

        return int(self.svm.get_balance(Pubkey.from_string(address)) or 0)

    def latest_blockhash(self) -> str:
        return str(self.svm.latest_blockhash())

    def set_balance(self, address: str, lamports: int) -> None:
        from solders.account import Account
        from solders.pubkey import Pubkey

        key = Pubkey.from_string(address)
        current = self.svm.get_account(key)
        if current is None:
            account = Account(lamports, b"", Pubkey.from_string(SYSTEM_PROGRAM), False)
        else:
            account = Account(
                lamports, bytes(current.data), current.owner, current.executable, current.rent_epoch
            )
        self.svm.set_account(key, account)

    def write_account(self, address: str, data: bytes, owner: str, lamports: int = 0) -> None:
        """Write an account (its data, owner, and at least the rent-exempt lamports)."""
        from solders.account import Account
        from solders.pubkey import Pubkey

        rent = int(self.svm.minimum_balance_for_rent_exemption(len(data)))
        account = Account(max(lamports, rent), data, Pubkey.from_string(owner), False)
        self.svm.set_account(Pubkey.from_string(address), account)

    def account_data(self, address: str) -> bytes | None:
        """The account's data, None if it does not exist."""
        from solders.pubkey import Pubkey

        account = self.svm.get_account(Pubkey.from_string(address))
        return None if account is None else bytes(account.data)

    def send(self, wire: bytes) -> SolanaOutcome:
        """Preflight then process a signed transaction (wire format)."""
        from solders.transaction import VersionedTransaction
        from solders.transaction_metadata import FailedTransactionMetadata

        try:
            tx = VersionedTransaction.from_bytes(wire)
        except Exception as exc:
            raise ChainError(f"failed to deserialize transaction: {exc}") from None
        simulated = self.svm.simulate_transaction(tx)
        if isinstance(simulated, FailedTransactionMetadata):
            raise _refusal(simulated)
        message = tx.message
        keys = [str(k) for k in message.account_keys]
        before = {k: self.balance(k) for k in keys}
        done = self.svm.send_transaction(tx)
        if isinstance(done, FailedTransactionMetadata):
            raise _refusal(done)
        header = message.header
        writable_signers = header.num_required_signatures - header.num_readonly_signed_accounts
        signers = tuple(
            (keys[i], i < writable_signers) for i in range(header.num_required_signatures)
        )
        changes = {k: self.balance(k) - before[k] for k in keys if self.balance(k) != before[k]}
        clock = self.svm.get_clock()
        self.svm.expire_blockhash()  # the next transaction lands in a later "block"
        return SolanaOutcome(
            signature=str(done.signature()),
            slot=int(clock.slot),
            block_time=int(clock.unix_timestamp),
            fee=int(done.fee()),
            compute_units=int(done.compute_units_consumed()),
            logs=tuple(done.logs()),
            signers=signers,
            balance_changes=changes,
        )


def _refusal(failed) -> SolanaRefusal:
    error = failed.err()
    meta = failed.meta()
    text = str(error)
    return SolanaRefusal(
        f"Transaction simulation failed: {text}",
        text,
        list(meta.logs()),
        int(meta.compute_units_consumed()),
    )
