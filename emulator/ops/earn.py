"""Earn: earn_deploy_wrapper, earn_deposit, earn_withdraw, earn_set_wrapper_state,
claim_earn_fees, earn_claim_rewards, list_earn_vaults, list_earn_enabled_vaults,
list_earn_positions, list_earn_rewards and the five status polls.

ERC-4626 yield vaults on the embedded EVM behind fee wrappers
(``features/transaction-management/earn``): ``services/earn.py`` (the activities),
``services/earn_views.py`` (the queries), ``chains/earn`` (the contracts, the catalog).
Every activity takes the chain as ``caip2`` (the Python SDK's types) or ``chainCaip2``
(the TypeScript docs' examples).
"""

from __future__ import annotations

from typing import Any

from ..chains.earn.catalog import PROVIDERS
from ..ground.schema import Boolean, Enum, String, obj, opt
from ..services import earn, earn_views
from ..services.context import Context
from ..services.pagination import PAGINATION
from .registry import Version, activity, query

Params = dict[str, Any]

_CHAIN = {"caip2": opt(String()), "chainCaip2": opt(String())}
_PROVIDER = opt(Enum((*PROVIDERS, "EARN_PROVIDER_UNSPECIFIED")))


@activity(
    "earn_deploy_wrapper",
    summary="Deploy Earn wrapper",
    default="ACTIVITY_TYPE_EARN_DEPLOY_WRAPPER",
    versions=[
        Version(
            "ACTIVITY_TYPE_EARN_DEPLOY_WRAPPER",
            "earnDeployWrapperIntent",
            "earnDeployWrapperResult",
            obj(
                vaultAddress=String(),
                **_CHAIN,
                clientFeeBps=String(),
                clientFeeWallet=String(),
            ),
        )
    ],
)
def earn_deploy_wrapper(ctx: Context, params: Params) -> Params:
    return earn.deploy_wrapper(ctx, params)


@activity(
    "earn_deposit",
    summary="Deposit into Earn vault",
    default="ACTIVITY_TYPE_EARN_DEPOSIT",
    versions=[
        Version(
            "ACTIVITY_TYPE_EARN_DEPOSIT",
            "earnDepositIntent",
            "earnDepositResult",
            obj(
                wrapperAddress=String(),
                signWith=String(),
                assets=String(),
                **_CHAIN,
                sponsor=opt(Boolean()),
            ),
        )
    ],
)
def earn_deposit(ctx: Context, params: Params) -> Params:
    return earn.deposit(ctx, params)


@activity(
    "earn_withdraw",
    summary="Withdraw from Earn vault",
    default="ACTIVITY_TYPE_EARN_WITHDRAW",
    versions=[
        Version(
            "ACTIVITY_TYPE_EARN_WITHDRAW",
            "earnWithdrawIntent",
            "earnWithdrawResult",
            obj(
                wrapperAddress=String(),
                signWith=String(),
                **_CHAIN,
                sponsor=opt(Boolean()),
                amountValue=String(),
            ),
        )
    ],
)
def earn_withdraw(ctx: Context, params: Params) -> Params:
    return earn.withdraw(ctx, params)


@activity(
    "earn_set_wrapper_state",
    summary="Set Earn wrapper state",
    default="ACTIVITY_TYPE_EARN_SET_WRAPPER_STATE",
    versions=[
        Version(
            "ACTIVITY_TYPE_EARN_SET_WRAPPER_STATE",
            "earnSetWrapperStateIntent",
            "earnSetWrapperStateResult",
            obj(wrapperAddress=String(), depositsDisabled=Boolean()),
        )
    ],
)
def earn_set_wrapper_state(ctx: Context, params: Params) -> Params:
    return earn.set_wrapper_state(ctx, params)


@activity(
    "claim_earn_fees",
    summary="Claim Earn fees",
    default="ACTIVITY_TYPE_CLAIM_EARN_FEES",
    versions=[
        Version(
            "ACTIVITY_TYPE_CLAIM_EARN_FEES",
            "claimEarnFeesIntent",
            "claimEarnFeesResult",
            obj(wrapperAddress=String()),
        )
    ],
)
def claim_earn_fees(ctx: Context, params: Params) -> Params:
    return earn.claim_fees(ctx, params)


@activity(
    "earn_claim_rewards",
    summary="Claim Earn rewards",
    default="ACTIVITY_TYPE_EARN_CLAIM_REWARDS",
    versions=[
        Version(
            "ACTIVITY_TYPE_EARN_CLAIM_REWARDS",
            "earnClaimRewardsIntent",
            "earnClaimRewardsResult",
            obj(signWith=String(), **_CHAIN, sponsor=opt(Boolean())),
        )
    ],
)
def earn_claim_rewards(ctx: Context, params: Params) -> Params:
    return earn.claim_rewards(ctx, params)


@query(
    "list_earn_vaults",
    summary="Get Earn vault catalog",
    body=obj(provider=_PROVIDER, caip19=String(), paginationOptions=opt(PAGINATION)),
    result_keys=("vaults", "pageInfo"),
)
def list_earn_vaults(ctx: Context, body: Params) -> Params:
    return earn_views.list_vaults(ctx, body)


@query(
    "list_earn_enabled_vaults",
    summary="Get Earn enabled vaults",
    body=obj(provider=_PROVIDER, caip19=opt(String()), includeExposure=opt(Boolean())),
    result_keys=("enabledVaults",),
)
def list_earn_enabled_vaults(ctx: Context, body: Params) -> Params:
    return earn_views.list_enabled(ctx, body)


@query(
    "list_earn_positions",
    summary="Get Earn positions",
    body=obj(walletAddress=String()),
    result_keys=("positions",),
)
def list_earn_positions(ctx: Context, body: Params) -> Params:
    return earn_views.list_positions(ctx, body)


@query(
    "list_earn_rewards",
    summary="List Earn rewards",
    body=obj(walletAddress=String(), caip2=opt(String())),
    result_keys=("rewards",),
)
def list_earn_rewards(ctx: Context, body: Params) -> Params:
    return earn_views.list_rewards(ctx, body)


_STATUS_KEYS = ("status", "error")


@query(
    "get_earn_deploy_status",
    summary="Get Earn deploy status",
    body=obj(deployRequestId=String()),
    result_keys=(*_STATUS_KEYS, "deployTxHash"),
)
def get_earn_deploy_status(ctx: Context, body: Params) -> Params:
    return earn_views.status(ctx, body["deployRequestId"], earn.DEPLOY, "deployTxHash")


@query(
    "get_earn_deposit_status",
    summary="Get Earn deposit status",
    body=obj(depositRequestId=String()),
    result_keys=(*_STATUS_KEYS, "depositTxHash"),
)
def get_earn_deposit_status(ctx: Context, body: Params) -> Params:
    return earn_views.status(ctx, body["depositRequestId"], earn.DEPOSIT, "depositTxHash")


@query(
    "get_earn_withdraw_status",
    summary="Get Earn withdraw status",
    body=obj(withdrawRequestId=String()),
    result_keys=(*_STATUS_KEYS, "withdrawTxHash"),
)
def get_earn_withdraw_status(ctx: Context, body: Params) -> Params:
    return earn_views.status(ctx, body["withdrawRequestId"], earn.WITHDRAW, "withdrawTxHash")


@query(
    "get_earn_claim_rewards_status",
    summary="Get Earn claim rewards status",
    body=obj(claimRequestId=String()),
    result_keys=(*_STATUS_KEYS, "claimTxHash"),
)
def get_earn_claim_rewards_status(ctx: Context, body: Params) -> Params:
    return earn_views.status(ctx, body["claimRequestId"], earn.CLAIM_REWARDS, "claimTxHash")


@query(
    "get_claim_earn_fees_status",
    summary="Get claim Earn fees status",
    body=obj(claimRequestId=String()),
    result_keys=(*_STATUS_KEYS, "claimTxHash"),
)
def get_claim_earn_fees_status(ctx: Context, body: Params) -> Params:
    return earn_views.status(ctx, body["claimRequestId"], earn.CLAIM_FEES, "claimTxHash")
