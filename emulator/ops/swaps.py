"""Swaps (``features/transaction-management/swap``): create_swap_quote, execute_swap,
get_swap_status, upsert_swap_config, claim_swap_fees, and from the official Python SDK only
(turnkey-http 0.2.2): upsert_swap_fee_sponsorship_limit_config,
upsert_swap_fixed_rate_limit_config, get_swap_sponsorship_usage.

Quotes and executions are ``services/swaps.py``; the parent's configuration, windows and fees
``services/swap_windows.py``; the chain side ``chains/swap_provider.py``. docs/swap.md has
every value the emulator chose.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..chains.errors import ChainError, ChainUnavailable
from ..chains.network import chains_of
from ..chains.swap_provider import FEE_CLAIM, provider_of
from ..chains.tokens import parse
from ..crypto.default_paths import default_account
from ..ground import swap_messages as say
from ..ground.errors import InvalidArgument
from ..ground.schema import Boolean, String, obj, opt
from ..services import broadcast, keys, swap_status, swap_windows, swaps
from ..services.context import Context
from .registry import Version, activity, query
from .wallets import new_wallet

Params = dict[str, Any]
# where the client fees are paid: USDC on Base (swap.mdx, "Your fee")
FEE_ASSET = "eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
FEE_WALLET_NAME = "Swap fee receiver"

QUOTE_V1 = obj(
    signWith=String(),
    inputToken=String(),
    outputToken=String(),
    inputAmount=String(),
    slippageBps=opt(String()),
)
QUOTE_V2 = obj(**QUOTE_V1.fields, destinationAddress=opt(String()))
QUOTE_V3 = obj(**QUOTE_V2.fields, feeSponsorship=opt(Boolean()), fixedRate=opt(Boolean()))
EXECUTE_V1 = obj(
    inputToken=String(),
    outputToken=String(),
    inputAmount=String(),
    walletAccount=String(),
    sponsor=opt(Boolean()),
    slippage=opt(String()),
    provider=opt(String()),
    minOutputAmount=String(),
)
EXECUTE_V2 = obj(
    quoteId=String(),
    inputToken=String(),
    inputAmount=String(),
    outputToken=String(),
    quotedOutputAmount=String(),
    minOutputAmount=String(),
    sponsor=Boolean(),
    evmNonce=opt(String(fmt="uint")),
    recentBlockhash=opt(String()),
    gasStationNonce=opt(String(fmt="uint")),
)
EXECUTE_V3 = obj(**EXECUTE_V2.fields, destinationAddress=opt(String()))
LIMIT = obj(
    orgWindowLimitUsd=String(),
    subOrgWindowLimitUsd=String(),
    windowDurationMinutes=String(),
    enabled=Boolean(),
)
STATUS_KEYS = (
    "status",
    "swapKind",
    "provider",
    "inputToken",
    "outputToken",
    "inputAmount",
    "originTxHash",
    "destinationTxHashes",
    "outputAmount",
    "refund",
    "updatedAt",
    "error",
    "destinationAddress",
)


def _v1_quotes(result: Params) -> Params:
    """The V1 result's quotes (``v1SwapQuote``: no sponsorship or fixed-rate fields)."""
    extra = ("feeSponsorship", "fixedRate", "estimatedFixedRateAdjustmentUsd")
    return {"quotes": [{k: v for k, v in q.items() if k not in extra} for q in result["quotes"]]}


@activity(
    "create_swap_quote",
    summary="Create a swap quote",
    default="ACTIVITY_TYPE_CREATE_SWAP_QUOTE_V3",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_SWAP_QUOTE",
            "createSwapQuoteIntent",
            "createSwapQuoteResult",
            QUOTE_V1,
            downgrade_result=_v1_quotes,
        ),
        Version(
            "ACTIVITY_TYPE_CREATE_SWAP_QUOTE_V2",
            "createSwapQuoteIntentV2",
            "createSwapQuoteResultV2",
            QUOTE_V2,
        ),
        Version(
            "ACTIVITY_TYPE_CREATE_SWAP_QUOTE_V3",
            "createSwapQuoteIntentV3",
            "createSwapQuoteResultV2",
            QUOTE_V3,
        ),
    ],
)
def create_swap_quote(ctx: Context, params: Params) -> Params:
    return {"quotes": [swaps.quote_view(swaps.create_quote(ctx, params), v2=True)]}


@activity(
    "execute_swap",
    summary="Execute a swap",
    default="ACTIVITY_TYPE_EXECUTE_SWAP_V3",
    versions=[
        Version(
            "ACTIVITY_TYPE_EXECUTE_SWAP",
            "executeSwapIntent",
            "executeSwapResult",
            EXECUTE_V1,
        ),
        Version(
            "ACTIVITY_TYPE_EXECUTE_SWAP_V2",
            "executeSwapIntentV2",
            "executeSwapResult",
            EXECUTE_V2,
        ),
        Version(
            "ACTIVITY_TYPE_EXECUTE_SWAP_V3",
            "executeSwapIntentV3",
            "executeSwapResult",
            EXECUTE_V3,
        ),
    ],
)
def execute_swap(ctx: Context, params: Params) -> Params:
    return swaps.execute(ctx, params)


@query(
    "get_swap_status",
    summary="Get swap status",
    body=obj(swapRequestId=String()),
    result_keys=STATUS_KEYS,
)
def get_swap_status(ctx: Context, body: Params) -> Params:
    return swap_status.status(ctx, body["swapRequestId"])


def _receiver(ctx: Context, address: str) -> str:
    """A fee receiver: an Ethereum address of a wallet account or private key of the parent."""
    try:
        address = broadcast.evm_address(address, "feeReceiverWalletAddress")
    except InvalidArgument:
        raise InvalidArgument(say.fee_receiver(address)) from None
    for candidate in (address, address.lower()):
        if ctx.org.signers.get(candidate):
            return candidate
    for known in ctx.org.signers:
        if known.lower() == address.lower():
            return known
    raise InvalidArgument(say.fee_receiver(address))


@activity(
    "upsert_swap_config",
    summary="Upsert swap configuration",
    default="ACTIVITY_TYPE_UPSERT_SWAP_CONFIG",
    versions=[
        Version(
            "ACTIVITY_TYPE_UPSERT_SWAP_CONFIG",
            "upsertSwapConfigIntent",
            "upsertSwapConfigResult",
            obj(
                feeReceiverWalletAddress=opt(String()),
                feeBps=opt(String()),
                stableFeeBps=opt(String()),
            ),
        )
    ],
)
def upsert_swap_config(ctx: Context, params: Params) -> Params:
    swap_windows.require_parent(ctx)
    fee, stable = params.get("feeBps"), params.get("stableFeeBps")
    if fee is not None:
        swap_windows.bps_param(fee, "feeBps")
    if stable is not None:
        if not ctx.settings.swap_enterprise:
            raise InvalidArgument(say.stable_fee_enterprise())
        swap_windows.bps_param(stable, "stableFeeBps")
    receiver = params.get("feeReceiverWalletAddress")
    if receiver:
        receiver = _receiver(ctx, receiver)
    elif fee is not None or stable is not None:
        # "Turnkey auto-generates a parent HD wallet to receive fees" (enable-swap.mdx)
        mnemonic = keys.new_mnemonic(ctx, 12)
        name = f"{FEE_WALLET_NAME} {len(ctx.org.wallets) + 1}"
        _, addresses = new_wallet(ctx, name, mnemonic, [default_account("ADDRESS_FORMAT_ETHEREUM")])
        receiver = addresses[0]
    saved = swap_windows.save_config(ctx, receiver or None, fee, stable)
    result = {
        "feeReceiverWalletAddress": saved.fee_receiver_wallet_address,
        "feeBps": saved.fee_bps,
        "stableFeeBps": saved.stable_fee_bps,
    }
    return {k: v for k, v in result.items() if v is not None}


@activity(
    "claim_swap_fees",
    summary="Claim swap fees",
    default="ACTIVITY_TYPE_CLAIM_SWAP_FEES",
    versions=[
        Version(
            "ACTIVITY_TYPE_CLAIM_SWAP_FEES",
            "claimSwapFeesIntent",
            "claimSwapFeesResult",
            obj(),
        )
    ],
)
def claim_swap_fees(ctx: Context, params: Params) -> Params:
    swap_windows.require_parent(ctx)
    config = swap_windows.config(ctx)
    if config is None or not config.fee_receiver_wallet_address:
        raise swap_windows.precondition(say.NO_FEE_RECEIVER)
    fees = swap_windows.unclaimed(ctx.org)
    if not fees:
        raise swap_windows.precondition(say.NO_FEES_TO_CLAIM)
    claim_id = ctx.new_id()
    total = sum(int(f.amount) for f in fees)
    try:
        provider_of(chains_of(ctx.world)).pay(
            parse(FEE_ASSET),
            FEE_CLAIM,
            hashlib.sha256(claim_id.encode()).digest(),
            config.fee_receiver_wallet_address,
            total,
        )
    except ChainUnavailable as exc:
        raise broadcast.chain_unavailable(exc) from None
    except ChainError as exc:
        raise InvalidArgument(str(exc), turnkey_error_code="RPC_CALL_ERROR") from None
    for fee in fees:
        ctx.tx.set(fee, "claim_id", claim_id)
    return {"requestId": claim_id}


@activity(
    "upsert_swap_fee_sponsorship_limit_config",
    summary="Upsert swap fee sponsorship limit configuration",
    default="ACTIVITY_TYPE_UPSERT_SWAP_FEE_SPONSORSHIP_LIMIT_CONFIG",
    versions=[
        Version(
            "ACTIVITY_TYPE_UPSERT_SWAP_FEE_SPONSORSHIP_LIMIT_CONFIG",
            "upsertSwapFeeSponsorshipLimitConfigIntent",
            "upsertSwapFeeSponsorshipLimitConfigResult",
            LIMIT,
        )
    ],
)
def upsert_swap_fee_sponsorship_limit_config(ctx: Context, params: Params) -> Params:
    swap_windows.save_limit(ctx, swap_windows.FEE_SPONSORSHIP, params)
    return {"organizationId": ctx.org.organization_id}


@activity(
    "upsert_swap_fixed_rate_limit_config",
    summary="Upsert swap fixed-rate limit configuration",
    default="ACTIVITY_TYPE_UPSERT_SWAP_FIXED_RATE_LIMIT_CONFIG",
    versions=[
        Version(
            "ACTIVITY_TYPE_UPSERT_SWAP_FIXED_RATE_LIMIT_CONFIG",
            "upsertSwapFixedRateLimitConfigIntent",
            "upsertSwapFixedRateLimitConfigResult",
            LIMIT,
        )
    ],
)
def upsert_swap_fixed_rate_limit_config(ctx: Context, params: Params) -> Params:
    swap_windows.save_limit(ctx, swap_windows.FIXED_RATE, params)
    return {"organizationId": ctx.org.organization_id}


@query(
    "get_swap_sponsorship_usage",
    summary="Get swap sponsorship usage",
    body=obj(),
    result_keys=("feeSponsorship", "fixedRate"),
)
def get_swap_sponsorship_usage(ctx: Context, body: Params) -> Params:
    return {
        "feeSponsorship": swap_windows.window_view(ctx, swap_windows.FEE_SPONSORSHIP),
        "fixedRate": swap_windows.window_view(ctx, swap_windows.FIXED_RATE),
    }
