"""Earn's activities: deploy a wrapper, deposit, withdraw, pause deposits, claim fees and
rewards, on the embedded EVM's real contracts (``chains/earn``).

Deploys are sent by Turnkey's deployer account (Turnkey pays their gas, as the docs say);
deposits, withdrawals and claims are transactions of the organization's wallets through
``eth_send_transaction``'s path (``services/evm_send.py``): a deposit's approval and
``deposit`` are one atomic gas station batch, a claim of fees is sponsored. Each answers a
request id whose status (``services/earn_views.py``) follows the transaction.
"""

from __future__ import annotations

from typing import Any

from ..chains import catalog as networks
from ..chains.earn import calldata, catalog
from ..chains.earn.deployment import EarnChain, earn_of
from ..chains.errors import ChainUnavailable
from ..chains.network import chains_of
from ..ground.earn_records import EarnPositionTotals, EarnRequest, EarnWrapper
from ..ground.errors import InvalidArgument, NotFound
from ..ground.models import Organization
from ..ground.numbers import integer
from . import evm_send
from .broadcast import INCLUDED, chain_unavailable, evm_address, evm_signer
from .context import Context

DEPLOY, DEPOSIT, WITHDRAW, CLAIM_FEES, CLAIM_REWARDS = (
    "DEPLOY",
    "DEPOSIT",
    "WITHDRAW",
    "CLAIM_FEES",
    "CLAIM_REWARDS",
)
MAX = "MAX"

# The docs' words where they give them (earn/vault-catalog, earn/deploy-wrapper), else ours.
PARENT_ONLY = "this endpoint is only callable by a parent organization"
# The docs' name of a deposit's refusal without a deployed wrapper. It is not in the table of
# turnkeyErrorCodes (``ground/error_codes.py``, the errors page), so the message carries it.
SETUP_REQUIRED = "EARN_SETUP_REQUIRED"


def parent_only(org: Organization) -> None:
    if org.parent_id is not None:
        raise InvalidArgument(PARENT_ONLY)


def now_ms(ctx: Context) -> int:
    return ctx.now_ns // 1_000_000


def caip2_of(params: dict[str, Any]) -> str:
    """The chain: ``caip2`` (the Python SDK) or ``chainCaip2`` (the TypeScript docs)."""
    caip2 = params.get("caip2") or params.get("chainCaip2")
    if not isinstance(caip2, str) or not caip2:
        raise InvalidArgument("missing required field: caip2")
    return checked_chain(caip2)


def checked_chain(caip2: str) -> str:
    canonical = networks.canonical(caip2)
    if canonical not in catalog.chains():
        raise InvalidArgument(f"Earn is not supported on chain {caip2}")
    return canonical


def earn_chain(ctx: Context, caip2: str, wrapper: str | None = None) -> EarnChain:
    """The chain's Earn contracts; with ``wrapper``, its vault's yield paid to now first."""
    try:
        earn = earn_of(chains_of(ctx.world)).chain(caip2, now_ms(ctx))
        if wrapper is not None:
            earn.accrue_wrapper(wrapper, now_ms(ctx))
        return earn
    except ChainUnavailable as exc:
        raise chain_unavailable(exc) from None


def amount(value: Any, name: str) -> int:
    number = integer(value) if isinstance(value, str) else None
    if number is None or number <= 0:
        raise InvalidArgument(f"invalid {name}: {value!r}: a positive integer in raw units")
    return number


def wrappers_visible(ctx: Context) -> dict[str, EarnWrapper]:
    """The wrappers this organization may use: its own, or its parent's for a sub-organization."""
    org = ctx.org
    if org.parent_id is not None:
        parent = ctx.store.organizations.get(org.parent_id)
        return dict(parent.earn_wrappers) if parent is not None else {}
    return dict(org.earn_wrappers)


def find_wrapper(ctx: Context, address: Any, caip2: str | None = None) -> EarnWrapper:
    evm_address(address, "wrapperAddress")
    found = wrappers_visible(ctx).get(str(address).lower())
    if found is None or (caip2 is not None and found.caip2 != caip2):
        raise InvalidArgument(
            f"{SETUP_REQUIRED}: no Earn wrapper {address} is deployed for this organization"
            + (f" on {caip2}" if caip2 else ""),
        )
    return found


def new_request(
    ctx: Context,
    kind: str,
    caip2: str,
    wrapper: str | None,
    *,
    send_status_id: str | None = None,
    tx_hash: str | None = None,
) -> str:
    request_id = ctx.new_id()
    block_ms = int(ctx.settings.chain_block_time_s * 1000)
    record = EarnRequest(
        request_id=request_id,
        kind=kind,
        caip2=caip2,
        wrapper_address=wrapper,
        send_status_id=send_status_id,
        tx_hash=tx_hash,
        completes_at_ms=now_ms(ctx) + block_ms,
        error=None,
        created_at=ctx.now_ns,
    )
    ctx.tx.put(ctx.org.earn_requests, request_id, record)
    return request_id


def landed(ctx: Context, status_id: str) -> bool:
    sent = ctx.org.sent_transactions[status_id]
    return sent.outcome == INCLUDED and sent.error is None


# Gas limits of the wrapper's calls (their measured use, with room for a first delegation to
# the gas station and for the vault's own bookkeeping), so no estimate runs them twice.
DEPOSIT_GAS = 700_000
WITHDRAW_GAS = 500_000
CLAIM_FEES_GAS = 600_000


def _send(
    ctx: Context,
    caip2: str,
    sender: str,
    calls: list[tuple[str, bytes]],
    sponsor: bool,
    gas: int | None = None,
) -> str:
    params: dict[str, Any] = {
        "caip2": caip2,
        "from": sender,
        "sponsor": sponsor,
        "calls": [{"to": to, "value": "0", "data": "0x" + data.hex()} for to, data in calls],
    }
    if gas is not None:
        params["gasLimit"] = str(gas)
    return evm_send.send_evm(ctx, params)


# ----- earn_deploy_wrapper -------------------------------------------------------------------


def deploy_wrapper(ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    parent_only(ctx.org)
    caip2 = caip2_of(params)
    vault_address = evm_address(params["vaultAddress"], "vaultAddress")
    spec = catalog.vault(caip2, vault_address)
    if spec is None:
        raise InvalidArgument(f"vault {vault_address} is not in the Earn catalog on {caip2}")
    raw_bps = str(params["clientFeeBps"])
    bps = integer(raw_bps)
    if bps is None:
        raise InvalidArgument(f"invalid clientFeeBps: {raw_bps!r}")
    if (
        bps > catalog.CLIENT_FEE_CAP_BPS
        or bps + catalog.TURNKEY_FEE_BPS > catalog.TOTAL_FEE_CAP_BPS
    ):
        raise InvalidArgument(
            f"clientFeeBps {bps} exceeds the maximum of {catalog.CLIENT_FEE_CAP_BPS} bps "
            f"(total fee cap {catalog.TOTAL_FEE_CAP_BPS} bps)",
        )
    wallet = evm_address(params["clientFeeWallet"], "clientFeeWallet")
    holders = ctx.org.signers.get(wallet) or ()
    if not any(ref.wallet_account_id is not None for ref in holders):
        raise InvalidArgument(
            f"clientFeeWallet {wallet} must be a wallet account owned by this organization"
        )
    earn = earn_chain(ctx, caip2)
    vault_contract = earn.vaults[spec.vault_address.lower()].contract
    wrapper, splitter = earn.wrapper_addresses(vault_contract, bps, wallet)
    existing = ctx.org.earn_wrappers.get(wrapper.lower())
    if existing is not None and earn.has_code(wrapper):
        # idempotent: the same parameters derive the same addresses; nothing is broadcast
        return {
            "wrapperAddress": existing.wrapper_address,
            "splitterAddress": existing.splitter_address,
            "deployRequestId": existing.deploy_request_id,
        }
    tx_hash = (
        None if earn.has_code(wrapper) else earn.deploy_wrapper(vault_contract, bps, wallet).tx_hash
    )
    request_id = new_request(ctx, DEPLOY, caip2, wrapper, tx_hash=tx_hash)
    asset = catalog.token(caip2, spec.asset)
    assert asset is not None
    record = EarnWrapper(
        wrapper_id=wrapper.lower(),
        wrapper_address=wrapper,
        splitter_address=splitter,
        vault_address=spec.vault_address,
        provider=spec.provider,
        caip2=caip2,
        caip19=asset.caip19,
        client_fee_bps=bps,
        client_fee_wallet=wallet,
        deposits_disabled=False,
        deploy_request_id=request_id,
        created_at=ctx.now_ns,
    )
    ctx.tx.put(ctx.org.earn_wrappers, wrapper.lower(), record)
    return {"wrapperAddress": wrapper, "splitterAddress": splitter, "deployRequestId": request_id}


def deploy_completed(ctx: Context, wrapper: EarnWrapper) -> bool:
    org = ctx.org if wrapper.wrapper_address.lower() in ctx.org.earn_wrappers else None
    if org is None and ctx.org.parent_id is not None:
        org = ctx.store.organizations.get(ctx.org.parent_id)
    request = org.earn_requests.get(wrapper.deploy_request_id) if org is not None else None
    return request is not None and now_ms(ctx) >= request.completes_at_ms


# ----- deposits and withdrawals --------------------------------------------------------------


def _totals(ctx: Context, wallet: str, wrapper: str) -> EarnPositionTotals:
    key = f"{wallet.lower()}:{wrapper.lower()}"
    found = ctx.org.earn_positions.get(key)
    return found or EarnPositionTotals(key, wallet, wrapper, "0", "0")


def _put_totals(ctx: Context, totals: EarnPositionTotals) -> None:
    ctx.tx.put(ctx.org.earn_positions, totals.position_id, totals)


def deposit(ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    caip2 = caip2_of(params)
    wrapper = find_wrapper(ctx, params["wrapperAddress"], caip2)
    if not deploy_completed(ctx, wrapper):
        raise InvalidArgument(
            f"{SETUP_REQUIRED}: the wrapper {wrapper.wrapper_address} is not deployed yet "
            "(deploy status PENDING)",
        )
    if wrapper.deposits_disabled:
        raise InvalidArgument(
            f"deposits to wrapper {wrapper.wrapper_address} are disabled",
        )
    assets = amount(params["assets"], "assets")
    sender = evm_address(params["signWith"], "signWith")
    evm_signer(ctx, sender)
    earn = earn_chain(ctx, caip2, wrapper.wrapper_address)
    token = wrapper.caip19.rsplit(":", 1)[1]
    held = earn.token_balance(token, sender)
    if held < assets:
        raise InvalidArgument(
            f"insufficient balance: {sender} holds {held} of {wrapper.caip19}, the deposit needs {assets}",
        )
    calls = [
        (token, calldata("approve(address,uint256)", wrapper.wrapper_address, assets)),
        (wrapper.wrapper_address, calldata("deposit(uint256,address)", assets, sender)),
    ]
    status_id = _send(ctx, caip2, sender, calls, bool(params.get("sponsor")), DEPOSIT_GAS)
    if landed(ctx, status_id):
        totals = _totals(ctx, sender, wrapper.wrapper_address)
        totals.total_deposited = str(int(totals.total_deposited) + assets)
        _put_totals(ctx, totals)
    request_id = new_request(ctx, DEPOSIT, caip2, wrapper.wrapper_address, send_status_id=status_id)
    return {"depositRequestId": request_id}


def withdraw(ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    caip2 = caip2_of(params)
    wrapper = find_wrapper(ctx, params["wrapperAddress"], caip2)
    sender = evm_address(params["signWith"], "signWith")
    evm_signer(ctx, sender)
    earn = earn_chain(ctx, caip2, wrapper.wrapper_address)
    address = wrapper.wrapper_address
    shares = earn.uint(address, "balanceOf(address)", sender)
    if shares == 0:
        raise InvalidArgument(f"{sender} has no position in wrapper {address}")
    value = earn.uint(address, "previewRedeem(uint256)", shares)
    raw = params["amountValue"]
    if raw == MAX:
        data = calldata("redeem(uint256,address,address)", shares, sender, sender)
        assets = value
    else:
        assets = amount(raw, "amountValue")
        if assets > value:
            raise InvalidArgument(
                f"amountValue {assets} exceeds the position's current value {value}",
            )
        data = calldata("withdraw(uint256,address,address)", assets, sender, sender)
    status_id = _send(
        ctx, caip2, sender, [(address, data)], bool(params.get("sponsor")), WITHDRAW_GAS
    )
    if landed(ctx, status_id):
        totals = _totals(ctx, sender, address)
        if raw == MAX:
            totals.total_deposited = totals.total_withdrawn = "0"
        else:
            totals.total_withdrawn = str(int(totals.total_withdrawn) + assets)
        _put_totals(ctx, totals)
    request_id = new_request(ctx, WITHDRAW, caip2, address, send_status_id=status_id)
    return {"withdrawRequestId": request_id}


# ----- management ----------------------------------------------------------------------------


def set_wrapper_state(ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    parent_only(ctx.org)
    wrapper = find_wrapper(ctx, params["wrapperAddress"])
    disabled = bool(params["depositsDisabled"])
    ctx.tx.put(
        ctx.org.earn_wrappers,
        wrapper.wrapper_address.lower(),
        _replace(wrapper, deposits_disabled=disabled),
    )
    return {"wrapperAddress": wrapper.wrapper_address, "depositsDisabled": disabled}


def _replace(wrapper: EarnWrapper, **changes: Any) -> EarnWrapper:
    from dataclasses import replace

    return replace(wrapper, **changes)


def claim_fees(ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    parent_only(ctx.org)
    wrapper = find_wrapper(ctx, params["wrapperAddress"])
    earn = earn_chain(ctx, wrapper.caip2, wrapper.wrapper_address)
    claimable = earn.uint(
        wrapper.splitter_address, "releasableAssets(address)", wrapper.client_fee_wallet
    )
    if claimable == 0:
        raise InvalidArgument(
            f"no fees to claim for wrapper {wrapper.wrapper_address}",
        )
    evm_signer(ctx, wrapper.client_fee_wallet)
    calls = [(wrapper.splitter_address, calldata("claim()"))]
    status_id = _send(ctx, wrapper.caip2, wrapper.client_fee_wallet, calls, True, CLAIM_FEES_GAS)
    request_id = new_request(
        ctx, CLAIM_FEES, wrapper.caip2, wrapper.wrapper_address, send_status_id=status_id
    )
    return {"claimRequestId": request_id}


def claim_rewards(ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    caip2 = caip2_of(params)
    sender = evm_address(params["signWith"], "signWith")
    evm_signer(ctx, sender)
    earn = earn_chain(ctx, caip2)
    data = earn.claim_rewards_data(sender, now_ms(ctx))
    if data is None:
        raise InvalidArgument(
            f"no rewards are claimable for {sender} on {caip2}",
        )
    status_id = _send(
        ctx, caip2, sender, [(catalog.MERKL_DISTRIBUTOR, data)], bool(params.get("sponsor"))
    )
    request_id = new_request(ctx, CLAIM_REWARDS, caip2, None, send_status_id=status_id)
    return {"claimRequestId": request_id}


def find_request(ctx: Context, request_id: str, kind: str) -> EarnRequest:
    found = ctx.org.earn_requests.get(request_id)
    if found is None or found.kind != kind:
        raise NotFound(f"no Earn request found with ID {request_id!r}")
    return found
