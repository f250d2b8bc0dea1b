"""Transfers of on-chain assets in a transaction being signed, as velocity controls measure them.

An asset is named by CAIP-19 with its ``decimals``; each transfer of it is one amount in the
asset's units (raw amount / 10**decimals, exact):

* ``eip155:<chain id>/slip44:60``: the non-zero ``value`` of an Ethereum transaction on that
  chain (a legacy transaction without a chain id is on none);
* ``eip155:<chain id>/erc20:<token>``: a ``transfer`` or ``transferFrom`` call to the token;
* ``solana:<any cluster>/slip44:501``: System Program transfers (an unsigned Solana
  transaction names no cluster, so any reference matches);
* ``solana:<any cluster>/token:<mint>``: SPL transfers that name the mint (``TransferChecked``
  and ``TransferCheckedWithFee``; a plain ``Transfer`` names none).

* a swap (``execute_swap``): its input, one transfer of the input asset.

Other assets are accepted and never match.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..crypto.transactions import TransactionError
from ..crypto.transactions.ethereum import parse_ethereum_transaction
from ..policy import PolicyEvaluationError
from ..policy.solana_view import solana_view

Number = int | Fraction  # exact: an int where it can be (the common case, and cheaper)

_ERC20_TRANSFER = bytes.fromhex("a9059cbb")  # transfer(address,uint256)
_ERC20_TRANSFER_FROM = bytes.fromhex("23b872dd")  # transferFrom(address,address,uint256)
_CAIP19 = re.compile(
    r"([-a-z0-9]{3,8}):([-_a-zA-Z0-9]{1,32})/([-a-z0-9]{3,8}):([-.%a-zA-Z0-9]{1,128})"
)


def is_caip19(text: str) -> bool:
    return _CAIP19.fullmatch(text) is not None


def amounts(
    definitions: list[Mapping[str, Any]],
    params: Mapping[str, Any],
    earn_transfer: str | None = None,
) -> list[Number]:
    """The amounts of the listed assets that the transaction of a sign_transaction's
    ``params`` transfers, or of a send's (``eth_send_transaction``, every call of its
    batch; ``eth_send_raw_transaction``; ``sol_send_transaction``); one that does not parse
    is a policy evaluation error."""
    unsigned, kind = params.get("unsignedTransaction"), params.get("type")
    swap_input = params.get("swapInput")
    if isinstance(swap_input, Mapping):  # a swap's input (services/swap_intents.py)
        return _swap_input(definitions, swap_input)
    try:
        if earn_transfer is not None:  # an Earn deposit's transfer (services/earn_intents.py)
            return _ethereum_transfers(definitions, earn_transfer)
        if isinstance(params.get("caip2"), str):
            return _sent(definitions, params)
        if not isinstance(unsigned, str):
            return []
        if kind == "TRANSACTION_TYPE_ETHEREUM":
            return _ethereum_transfers(definitions, unsigned)
        if kind == "TRANSACTION_TYPE_SOLANA":
            return _solana_transfers(definitions, unsigned)
    except (TransactionError, ValueError) as error:
        raise PolicyEvaluationError(f"InvalidTransaction: {error}") from None
    return []


def _swap_input(definitions: list[Mapping[str, Any]], swap: Mapping[str, Any]) -> list[Number]:
    """A swap moves its input out of the wallet: one transfer of the input asset (the address
    of an ERC-20 compared without case)."""
    return [
        _scaled(int(swap["amount"]), 10 ** int(definition["decimals"]))
        for definition in definitions
        if str(definition["caip19"]).lower() == str(swap["caip19"]).lower()
    ]


def _sent(definitions: list[Mapping[str, Any]], params: Mapping[str, Any]) -> list[Number]:
    """A send's transfers, read from the transaction(s) it will sign as the policy sees them
    (``services/policy_environment.py``)."""
    from .send_intents import send_intent_transaction, unsigned_of_signed_send

    unsigned = params.get("unsignedTransaction")
    if isinstance(params.get("signWiths"), list) and isinstance(unsigned, str):
        return _solana_transfers(definitions, unsigned.removeprefix("0x"))
    signed = params.get("signedTransaction")
    if isinstance(signed, str):
        return _ethereum_transfers(definitions, unsigned_of_signed_send(signed))
    found: list[Number] = []
    for call in params.get("calls") or ():
        if isinstance(call, Mapping):
            one = send_intent_transaction(params["caip2"], params, call)
            if one is not None:
                found.extend(_ethereum_transfers(definitions, one))
    return found


def _ethereum_transfers(definitions: list[Mapping[str, Any]], unsigned: str) -> list[Number]:
    tx = parse_ethereum_transaction(unsigned)
    found = []
    for definition in definitions:
        namespace, chain, asset_namespace, asset = _CAIP19.fullmatch(  # type: ignore[union-attr]
            definition["caip19"]
        ).groups()
        if namespace != "eip155" or tx.chain_id is None or chain != str(tx.chain_id):
            continue
        scale = 10 ** int(definition["decimals"])
        if asset_namespace == "slip44" and asset == "60" and tx.value:
            found.append(_scaled(tx.value, scale))
        elif asset_namespace == "erc20" and tx.to is not None and _same_address(tx.to, asset):
            amount = _erc20_amount(tx.data)
            if amount is not None:
                found.append(_scaled(amount, scale))
    return found


def _same_address(address: Any, text: str) -> bool:
    mine = address.hex() if isinstance(address, bytes) else str(address).lower()
    return mine.removeprefix("0x") == text.lower().removeprefix("0x")


def _erc20_amount(data: bytes) -> int | None:
    if data[:4] == _ERC20_TRANSFER and len(data) >= 68:
        return int.from_bytes(data[36:68], "big")
    if data[:4] == _ERC20_TRANSFER_FROM and len(data) >= 100:
        return int.from_bytes(data[68:100], "big")
    return None


def _solana_transfers(definitions: list[Mapping[str, Any]], unsigned: str) -> list[Number]:
    view = solana_view(unsigned)
    found = []
    for definition in definitions:
        namespace, _, asset_namespace, asset = _CAIP19.fullmatch(  # type: ignore[union-attr]
            definition["caip19"]
        ).groups()
        if namespace != "solana":
            continue  # an unsigned Solana transaction names no cluster: any reference matches
        scale = 10 ** int(definition["decimals"])
        if asset_namespace == "slip44" and asset == "501":
            found += [_scaled(t["amount"], scale) for t in view["transfers"]]
        elif asset_namespace == "token":
            found += [
                _scaled(t["amount"], scale)
                for t in view["spl_transfers"]
                if t["token_mint"] == asset
            ]
    return found


def _scaled(raw: int, scale: int) -> Number:
    """``raw`` smallest units in the asset's units (``scale`` = 10**decimals), exactly."""
    return raw if scale == 1 else Fraction(raw, scale)
