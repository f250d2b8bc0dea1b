"""Earn's queries: the vault catalog, the enabled vaults, positions, rewards and the five
status polls, read from the chain (``chains/earn``) and the organization's records."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ..chains.earn import catalog
from ..chains.earn.deployment import EarnChain
from ..crypto.hashing import keccak256
from ..ground.earn_records import EarnRequest
from ..ground.errors import InvalidArgument
from .broadcast import INCLUDED
from .context import Context
from .earn import (
    DEPLOY,
    checked_chain,
    earn_chain,
    find_request,
    now_ms,
    parent_only,
    wrappers_visible,
)
from .pagination import paginate

PENDING, COMPLETED, FAILED = "PENDING", "COMPLETED", "FAILED"


def _decimal_text(value: Decimal) -> str:
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _crypto(raw: int, decimals: int) -> Decimal:
    return Decimal(raw) / (Decimal(10) ** decimals)


def display(raw: int, token: catalog.Token) -> dict[str, str]:
    crypto = _crypto(raw, token.decimals)
    return {
        "usd": f"{(crypto * token.usd).quantize(Decimal('0.01'))}",
        "crypto": _decimal_text(crypto),
    }


def _token_of(caip19: str) -> catalog.Token:
    caip2, _, asset = caip19.partition("/")
    token = catalog.token(caip2, asset.partition(":")[2])
    assert token is not None
    return token


def _parse_caip19(caip19: str) -> tuple[str, str]:
    caip2, sep, asset = caip19.partition("/")
    namespace, sep2, address = asset.partition(":")
    if not sep or not sep2 or namespace != "erc20" or not caip2.startswith("eip155:"):
        raise InvalidArgument(f"invalid caip19: {caip19!r}: an ERC-20 asset on an EVM chain")
    return checked_chain(caip2), address


def net_apy(apy: str, client_bps: int) -> str:
    total = client_bps + catalog.TURNKEY_FEE_BPS
    return _decimal_text(Decimal(apy) * (1 - Decimal(total) / 10000))


# ----- list_earn_vaults ----------------------------------------------------------------------


def list_vaults(ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    parent_only(ctx.org)
    caip2, asset = _parse_caip19(params["caip19"])
    provider = params.get("provider")
    earn = earn_chain(ctx, caip2)
    earn.accrue(now_ms(ctx))
    enabled = {w.vault_address.lower() for w in ctx.org.earn_wrappers.values()}
    rows = []
    for spec in catalog.vaults_on(caip2):
        if spec.asset.lower() != asset.lower():
            continue
        if provider not in (None, "", "EARN_PROVIDER_UNSPECIFIED") and spec.provider != provider:
            continue
        token = catalog.token(caip2, spec.asset)
        assert token is not None
        state = earn.vaults[spec.vault_address.lower()]
        tvl = earn.uint(state.contract, "totalAssets()")
        usd = _crypto(tvl, token.decimals) * token.usd
        if usd < catalog.MIN_TVL_USD:
            continue
        liquidity = earn.token_balance(spec.asset, state.contract)
        rows.append(
            (
                usd,
                {
                    "vaultAddress": spec.vault_address,
                    "provider": spec.provider,
                    "caip19": token.caip19,
                    "tvl": str(tvl),
                    "apyPct": _decimal_text(state.apy.numerator / Decimal(state.apy.denominator)),
                    "enabled": spec.vault_address.lower() in enabled,
                    "display": display(tvl, token),
                    "name": spec.name,
                    "curator": spec.curator,
                    "liquidity": str(liquidity),
                    "liquidityDisplay": display(liquidity, token),
                },
            )
        )
    ordered = [row for _, row in sorted(rows, key=lambda r: -r[0])]
    page = paginate(ordered, params.get("paginationOptions"), lambda v: v["vaultAddress"])
    info: dict[str, Any] = {
        "hasNextPage": bool(page) and ordered.index(page[-1]) < len(ordered) - 1,
        "hasPreviousPage": bool(page) and ordered.index(page[0]) > 0,
    }
    if page:
        info["startCursor"] = page[0]["vaultAddress"]
        info["endCursor"] = page[-1]["vaultAddress"]
    return {"vaults": page, "pageInfo": info}


# ----- list_earn_enabled_vaults --------------------------------------------------------------


def _exposure(earn: EarnChain, contract: str, token: catalog.Token) -> list[dict[str, Any]]:
    """The emulator's vaults hold their assets idle: one idle market with all of them."""
    supplied = earn.token_balance(token.address, contract)
    market = "0x" + keccak256(f"idle:{contract.lower()}".encode()).hex()
    return [
        {
            "marketId": market,
            "collateralSymbol": "",
            "collateralCaip19": "",
            "lltvPct": "0",
            "supplied": str(supplied),
            "display": display(supplied, token),
            "sharePct": "1",
        }
    ]


def list_enabled(ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    provider, caip19 = params.get("provider"), params.get("caip19")
    is_parent = ctx.org.parent_id is None
    out = []
    wrappers = sorted(
        wrappers_visible(ctx).values(), key=lambda w: (w.created_at, w.wrapper_address)
    )
    for wrapper in wrappers:
        if provider not in (None, "", "EARN_PROVIDER_UNSPECIFIED") and wrapper.provider != provider:
            continue
        if caip19 and caip19.lower() != wrapper.caip19.lower():
            continue
        spec = catalog.vault(wrapper.caip2, wrapper.vault_address)
        assert spec is not None
        earn = earn_chain(ctx, wrapper.caip2, wrapper.wrapper_address)
        state = earn.vaults[spec.vault_address.lower()]
        token = _token_of(wrapper.caip19)
        apy = _decimal_text(state.apy.numerator / Decimal(state.apy.denominator))
        total = (
            earn.uint(wrapper.wrapper_address, "totalAssets()")
            if earn.has_code(wrapper.wrapper_address)
            else 0
        )
        liquidity = earn.token_balance(token.address, state.contract)
        row: dict[str, Any] = {
            "vaultAddress": wrapper.vault_address,
            "wrapperAddress": wrapper.wrapper_address,
            "provider": wrapper.provider,
            "caip19": wrapper.caip19,
            "apyPct": apy,
            "totalDeposited": str(total),
            "display": display(total, token),
            "netApyPct": net_apy(apy, wrapper.client_fee_bps),
            "clientFeeBps": str(wrapper.client_fee_bps),
            "depositsDisabled": wrapper.deposits_disabled,
            "name": spec.name,
            "curator": spec.curator,
            "liquidity": str(liquidity),
            "liquidityDisplay": display(liquidity, token),
        }
        if is_parent:
            fee = (
                earn.uint(
                    wrapper.splitter_address,
                    "releasableAssets(address)",
                    wrapper.client_fee_wallet,
                )
                if earn.has_code(wrapper.splitter_address)
                else 0
            )
            row["claimableClientFee"] = str(fee)
            row["claimableClientFeeDisplay"] = display(fee, token)
            row["clientFeeWallet"] = wrapper.client_fee_wallet
        if params.get("includeExposure") and wrapper.provider == catalog.MORPHO:
            row["exposures"] = _exposure(earn, state.contract, token)
        owner = ctx.org if is_parent else ctx.store.organizations.get(str(ctx.org.parent_id))
        deploy = owner.earn_requests.get(wrapper.deploy_request_id) if owner else None
        if deploy is not None:
            status, _, error = request_status(ctx, deploy)
            row["deployStatus"] = status
            row["deployRequestId"] = deploy.request_id
            if error:
                row["deployError"] = error
        out.append(row)
    return {"enabledVaults": out}


# ----- list_earn_positions -------------------------------------------------------------------


def list_positions(ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    wallet = params["walletAddress"]
    out = []
    wrappers = sorted(
        wrappers_visible(ctx).values(), key=lambda w: (w.created_at, w.wrapper_address)
    )
    for wrapper in wrappers:
        earn = earn_chain(ctx, wrapper.caip2, wrapper.wrapper_address)
        if not earn.has_code(wrapper.wrapper_address):
            continue
        shares = earn.uint(wrapper.wrapper_address, "balanceOf(address)", wallet)
        if shares == 0:
            continue
        value = earn.uint(wrapper.wrapper_address, "previewRedeem(uint256)", shares)
        key = f"{str(wallet).lower()}:{wrapper.wrapper_address.lower()}"
        totals = ctx.org.earn_positions.get(key)
        deposited = int(totals.total_deposited) if totals else 0
        withdrawn = int(totals.total_withdrawn) if totals else 0
        token = _token_of(wrapper.caip19)
        shown = {
            k: display(v, token)
            for k, v in (("current", value), ("deposited", deposited), ("withdrawn", withdrawn))
        }
        out.append(
            {
                "vaultAddress": wrapper.vault_address,
                "wrapperAddress": wrapper.wrapper_address,
                "provider": wrapper.provider,
                "caip19": wrapper.caip19,
                "currentValue": str(value),
                "totalDeposited": str(deposited),
                "totalWithdrawn": str(withdrawn),
                "display": {
                    "currentValueUsd": shown["current"]["usd"],
                    "totalDepositedUsd": shown["deposited"]["usd"],
                    "totalWithdrawnUsd": shown["withdrawn"]["usd"],
                    "currentValueCrypto": shown["current"]["crypto"],
                    "totalDepositedCrypto": shown["deposited"]["crypto"],
                    "totalWithdrawnCrypto": shown["withdrawn"]["crypto"],
                },
                "depositsDisabled": wrapper.deposits_disabled,
            }
        )
    return {"positions": out}


# ----- list_earn_rewards ---------------------------------------------------------------------


def list_rewards(ctx: Context, params: dict[str, Any]) -> dict[str, Any]:
    wallet = params["walletAddress"]
    if params.get("caip2"):
        chains = [checked_chain(params["caip2"])]
    else:
        chains = sorted({w.caip2 for w in wrappers_visible(ctx).values()})
    out = []
    for caip2 in chains:
        if caip2 not in catalog.REWARD_TOKENS:
            continue
        earn = earn_chain(ctx, caip2)
        for token_address, claimable, claimed, pending in earn.reward_rows(wallet, now_ms(ctx)):
            if claimable == claimed == pending == 0:
                continue
            token = catalog.token(caip2, token_address)
            assert token is not None
            a, b, c = (display(v, token) for v in (claimable, claimed, pending))
            out.append(
                {
                    "caip2": caip2,
                    "caip19": token.caip19,
                    "symbol": token.symbol,
                    "decimals": token.decimals,
                    "claimable": str(claimable),
                    "claimed": str(claimed),
                    "pending": str(pending),
                    "display": {
                        "claimableUsd": a["usd"],
                        "claimableCrypto": a["crypto"],
                        "claimedUsd": b["usd"],
                        "claimedCrypto": b["crypto"],
                        "pendingUsd": c["usd"],
                        "pendingCrypto": c["crypto"],
                    },
                }
            )
    return {"rewards": out}


# ----- the status polls ----------------------------------------------------------------------


def request_status(ctx: Context, request: EarnRequest) -> tuple[str, str | None, str | None]:
    """(status, tx hash, error) of a request at the emulator's clock."""
    if request.send_status_id is None:  # a deploy, sent by Turnkey
        if now_ms(ctx) < request.completes_at_ms:
            return PENDING, None, None
        if request.error:
            return FAILED, request.tx_hash, request.error
        return COMPLETED, request.tx_hash, None
    sent = ctx.org.sent_transactions.get(request.send_status_id)
    if sent is None:
        return FAILED, None, "the transaction was not found"
    if now_ms(ctx) < sent.included_at_ms:
        return PENDING, None, None
    if sent.outcome == INCLUDED and sent.error is None:
        return COMPLETED, sent.tx_hash, None
    return FAILED, sent.tx_hash, str((sent.error or {}).get("message") or "the transaction failed")


def status(ctx: Context, request_id: str, kind: str, hash_key: str) -> dict[str, Any]:
    if kind == DEPLOY:
        parent_only(ctx.org)
    request = find_request(ctx, request_id, kind)
    state, tx_hash, error = request_status(ctx, request)
    out: dict[str, Any] = {"status": state}
    if tx_hash is not None and state != PENDING:
        out[hash_key] = tx_hash
    if error is not None:
        out["error"] = error
    return out
