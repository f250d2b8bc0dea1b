"""The transactions of Earn's activities as the policy engine and the velocity controls see
them, before anything is signed: an ``earn_deposit`` is its call to the wrapper
(``deposit(assets, signWith)``), and it transfers ``assets`` of the underlying token; an
``earn_withdraw`` is its ``withdraw`` (or, for ``MAX``, ``redeem`` of every share: the share
count is only known on the chain, so the view carries ``2**256-1``); ``claim_earn_fees`` is
the fee wallet's ``claim()`` on the splitter; ``earn_claim_rewards`` is a call to the Merkl
distributor (its proofs are only built when it runs, so the view's data is the selector).
Fees are 0 and the nonce 0, as for a send intent that leaves them to Turnkey.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..chains import catalog as networks
from ..chains.earn import calldata, catalog, selector
from ..chains.earn.deployment import known_asset
from ..chains.evm_tx import unsigned_1559
from ..ground.models import Organization
from ..ground.numbers import integer

DEPOSIT = "ACTIVITY_TYPE_EARN_DEPOSIT"
WITHDRAW = "ACTIVITY_TYPE_EARN_WITHDRAW"
CLAIM_FEES = "ACTIVITY_TYPE_CLAIM_EARN_FEES"
CLAIM_REWARDS = "ACTIVITY_TYPE_EARN_CLAIM_REWARDS"
TYPES = frozenset({DEPOSIT, WITHDRAW, CLAIM_FEES, CLAIM_REWARDS})


def _chain_id(params: Mapping[str, Any]) -> int | None:
    caip2 = params.get("caip2") or params.get("chainCaip2")
    if not isinstance(caip2, str) or not caip2.startswith("eip155:"):
        return None
    try:
        return networks.network(caip2).chain_id
    except (KeyError, ValueError):
        return None


def _uint(value: Any) -> int | None:
    return integer(value) if isinstance(value, str) and len(value) < 78 else None


def _address(value: Any) -> str | None:
    if isinstance(value, str) and len(value) == 42 and value[:2] in ("0x", "0X"):
        try:
            bytes.fromhex(value[2:])
        except ValueError:
            return None
        return value
    return None


def transaction(
    org: Organization, activity_type: str, params: Mapping[str, Any]
) -> tuple[str, str | None] | None:
    """(the unsigned transaction's hex, its sender) of an Earn activity; None otherwise."""
    if activity_type not in TYPES:
        return None
    sender, to, data, chain_id = _address(params.get("signWith")), None, b"", _chain_id(params)
    wrapper = _address(params.get("wrapperAddress"))
    if activity_type == DEPOSIT:
        assets = _uint(params.get("assets"))
        if wrapper is None or sender is None or assets is None:
            return None
        to, data = wrapper, calldata("deposit(uint256,address)", assets, sender)
    elif activity_type == WITHDRAW:
        raw = params.get("amountValue")
        if wrapper is None or sender is None:
            return None
        if raw == "MAX":
            data = calldata("redeem(uint256,address,address)", 2**256 - 1, sender, sender)
        elif (assets := _uint(raw)) is not None:
            data = calldata("withdraw(uint256,address,address)", assets, sender, sender)
        else:
            return None
        to = wrapper
    elif activity_type == CLAIM_FEES:
        record = org.earn_wrappers.get(str(wrapper).lower()) if wrapper else None
        if record is None:
            return None
        sender, to, data = record.client_fee_wallet, record.splitter_address, calldata("claim()")
        chain_id = networks.network(record.caip2).chain_id
    else:
        if sender is None:
            return None
        to = catalog.MERKL_DISTRIBUTOR
        data = selector("claim(address[],address[],uint256[],bytes32[][])")
    if chain_id is None:
        return None
    return unsigned_1559(chain_id, 0, 0, 0, 0, to, 0, data), sender


def deposit_transfer(
    org: Organization, activity_type: str, params: Mapping[str, Any]
) -> str | None:
    """A deposit's transfer of the underlying token, as an unsigned ERC-20 ``transfer`` to the
    wrapper (what velocity controls measure); None for anything else."""
    if activity_type != DEPOSIT:
        return None
    wrapper, assets, chain_id = (
        _address(params.get("wrapperAddress")),
        _uint(params.get("assets")),
        _chain_id(params),
    )
    if wrapper is None or assets is None or chain_id is None:
        return None
    record = org.earn_wrappers.get(wrapper.lower())
    token = record.caip19.rsplit(":", 1)[1] if record else known_asset(wrapper)
    if token is None:
        return None
    data = calldata("transfer(address,uint256)", wrapper, assets)
    return unsigned_1559(chain_id, 0, 0, 0, 0, token, 0, data)
