"""HD wallets and their accounts.

create_wallet, create_wallet_accounts, update_wallet, delete_wallets,
delete_wallet_accounts, get_wallet, list_wallets, list_wallet_accounts,
get_wallet_account.
"""

from __future__ import annotations

from typing import Any

from ..engine_state.vault import WalletSecret
from ..ground import messages, render
from ..ground.enums import ADDRESS_FORMATS, CURVES, PATH_FORMATS
from ..ground.errors import InvalidArgument, NotFound, ResourceExhausted, ValidationFailed
from ..ground.models import Organization, SignerRef, Wallet, WalletAccount
from ..ground.schema import Array, Boolean, Enum, Integer, String, Violations, label, obj, opt, uuid
from ..services import keys
from ..services.context import Context
from ..services.pagination import PAGINATION, paginate
from .registry import Version, activity, query

Params = dict[str, Any]

WALLET_ACCOUNT_PARAMS = obj(  # v1WalletAccountParams
    curve=Enum(CURVES),
    pathFormat=Enum(PATH_FORMATS),
    path=String(),
    addressFormat=Enum(ADDRESS_FORMATS),
    name=opt(label()),
)
DEFAULT_MNEMONIC_LENGTH = 12


def find_wallet(org: Organization, wallet_id: str) -> Wallet:
    wallet = org.wallets.get(wallet_id)
    if wallet is None:
        raise NotFound(messages.wallet_not_found(wallet_id, org.organization_id))
    return wallet


def check_name_free(ctx: Context, name: str, field: str, except_id: str | None = None) -> None:
    """Wallet names are unique in an organization (the real ``This field must be unique.``)."""
    if ctx.org.wallet_names.get(name, except_id) != except_id:
        errors = Violations()
        errors.add(field, messages.MUST_BE_UNIQUE)
        raise ValidationFailed(errors)


def add_accounts(
    ctx: Context, wallet: Wallet, secret: WalletSecret, specs: list[Params], *, persist: bool = True
) -> list[str]:
    """Derive the accounts ``specs`` name; store them unless ``persist`` is false."""
    taken = keys.account_keys(wallet)
    accounts = [keys.derive_account(ctx, wallet, secret, spec, taken) for spec in specs]
    if persist:
        for account in accounts:
            store_account(ctx, wallet, account)
    return [a.address for a in accounts]


def store_account(ctx: Context, wallet: Wallet, account: WalletAccount) -> None:
    ctx.tx.put(wallet.accounts, account.wallet_account_id, account)
    ref = SignerRef(wallet_id=wallet.wallet_id, wallet_account_id=account.wallet_account_id)
    keys.index_signer(ctx, account.address, ref)


def new_wallet(
    ctx: Context, name: str, mnemonic: str, accounts: list[Params], *, imported: bool = False
) -> tuple[Wallet, list[str]]:
    """Store a wallet of ``mnemonic`` with its first accounts (shared by create and import)."""
    if len(ctx.org.wallets) >= ctx.settings.max_wallets_per_organization:
        raise ResourceExhausted(messages.MAX_WALLETS, turnkey_error_code="RATE_LIMIT_EXCEEDED")
    check_name_free(ctx, name, "walletName")
    wallet = Wallet(ctx.new_id(), name, ctx.now_ns, ctx.now_ns, imported=imported)
    secret = WalletSecret(mnemonic)
    addresses = add_accounts(ctx, wallet, secret, accounts)
    ctx.tx.put(ctx.org.wallets, wallet.wallet_id, wallet)
    ctx.tx.put(ctx.org.wallet_names, name, wallet.wallet_id)
    ctx.tx.put(ctx.store.vault.wallets, wallet.wallet_id, secret)
    return wallet, addresses


@activity(
    "create_wallet",
    summary="Create wallet",
    default="ACTIVITY_TYPE_CREATE_WALLET",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_WALLET",
            "createWalletIntent",
            "createWalletResult",
            obj(
                walletName=label(),
                accounts=Array(WALLET_ACCOUNT_PARAMS),
                mnemonicLength=opt(Integer()),
            ),
        )
    ],
)
def create_wallet(ctx: Context, params: Params) -> Params:
    mnemonic = keys.new_mnemonic(ctx, params.get("mnemonicLength") or DEFAULT_MNEMONIC_LENGTH)
    wallet, addresses = new_wallet(ctx, params["walletName"], mnemonic, params["accounts"])
    return {"walletId": wallet.wallet_id, "addresses": addresses}


@activity(
    "create_wallet_accounts",
    summary="Create wallet accounts",
    default="ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
    in_seed=True,
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
            "createWalletAccountsIntent",
            "createWalletAccountsResult",
            obj(
                walletId=uuid(),
                accounts=Array(WALLET_ACCOUNT_PARAMS),
                persist=opt(Boolean()),
            ),
        )
    ],
)
def create_wallet_accounts(ctx: Context, params: Params) -> Params:
    """Derive more accounts from a wallet's seed; ``persist: false`` only answers the addresses."""
    wallet = find_wallet(ctx.org, params["walletId"])
    secret = ctx.store.vault.wallets[wallet.wallet_id]
    persist = params.get("persist", True)
    addresses = add_accounts(ctx, wallet, secret, params["accounts"], persist=persist)
    if persist and params["accounts"]:
        ctx.tx.set(wallet, "updated_at", ctx.now_ns)
    return {"addresses": addresses}


@activity(
    "update_wallet",
    summary="Update wallet",
    default="ACTIVITY_TYPE_UPDATE_WALLET",
    versions=[
        Version(
            "ACTIVITY_TYPE_UPDATE_WALLET",
            "updateWalletIntent",
            "updateWalletResult",
            obj(walletId=uuid(), walletName=opt(label())),
        )
    ],
)
def update_wallet(ctx: Context, params: Params) -> Params:
    wallet = find_wallet(ctx.org, params["walletId"])
    name = params.get("walletName")
    if name:
        check_name_free(ctx, name, "walletName", except_id=wallet.wallet_id)
        ctx.tx.pop(ctx.org.wallet_names, wallet.name)
        ctx.tx.put(ctx.org.wallet_names, name, wallet.wallet_id)
        ctx.tx.set(wallet, "name", name)
        ctx.tx.set(wallet, "updated_at", ctx.now_ns)
    return {"walletId": wallet.wallet_id}


def remove_wallet(ctx: Context, wallet: Wallet) -> None:
    keys.unindex_signers(ctx, lambda ref: ref.wallet_id == wallet.wallet_id)
    ctx.tx.pop(ctx.org.wallets, wallet.wallet_id)
    if ctx.org.wallet_names.get(wallet.name) == wallet.wallet_id:
        ctx.tx.pop(ctx.org.wallet_names, wallet.name)
    ctx.tx.pop(ctx.store.vault.wallets, wallet.wallet_id)


@activity(
    "delete_wallets",
    summary="Delete wallets",
    default="ACTIVITY_TYPE_DELETE_WALLETS",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_WALLETS",
            "deleteWalletsIntent",
            "deleteWalletsResult",
            obj(walletIds=Array(uuid(), min_items=1), deleteWithoutExport=opt(Boolean())),
        )
    ],
)
def delete_wallets(ctx: Context, params: Params) -> Params:
    """Delete wallets; each must have been exported unless ``deleteWithoutExport`` is set."""
    wallet_ids = list(dict.fromkeys(params["walletIds"]))
    wallets = [find_wallet(ctx.org, wallet_id) for wallet_id in wallet_ids]
    if not params.get("deleteWithoutExport"):
        for wallet in wallets:
            if not wallet.exported:
                raise InvalidArgument(
                    messages.not_exported(messages.WALLET_NOT_EXPORTED, wallet.wallet_id)
                )
    for wallet in wallets:
        remove_wallet(ctx, wallet)
    return {"walletIds": wallet_ids}


def _find_account(org: Organization, account_id: str) -> tuple[Wallet, WalletAccount]:
    for wallet in org.wallets.values():
        account = wallet.accounts.get(account_id)
        if account is not None:
            return wallet, account
    raise InvalidArgument(
        f"{messages.WALLET_ACCOUNT_NOT_IN_ORGANIZATION} walletAccountId={account_id}"
    )


@activity(
    "delete_wallet_accounts",
    summary="Delete wallet accounts",
    default="ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS",
            "deleteWalletAccountsIntent",
            "deleteWalletAccountsResult",
            obj(walletAccountIds=Array(uuid(), min_items=1), deleteWithoutExport=opt(Boolean())),
        )
    ],
)
def delete_wallet_accounts(ctx: Context, params: Params) -> Params:
    """Delete accounts; each must be exported (alone or with its wallet) unless told otherwise."""
    account_ids = list(dict.fromkeys(params["walletAccountIds"]))
    found = [_find_account(ctx.org, account_id) for account_id in account_ids]
    if not params.get("deleteWithoutExport"):
        for wallet, account in found:
            if not (account.exported or wallet.exported):
                raise InvalidArgument(
                    messages.not_exported(
                        messages.WALLET_ACCOUNT_NOT_EXPORTED, account.wallet_account_id
                    ),
                    turnkey_error_code="WALLET_ACCOUNT_NOT_EXPORTED",
                )
    doomed = set(account_ids)
    keys.unindex_signers(ctx, lambda ref: ref.wallet_account_id in doomed)
    for wallet, account in found:
        ctx.tx.pop(wallet.accounts, account.wallet_account_id)
        ctx.tx.set(wallet, "updated_at", ctx.now_ns)
    return {"walletAccountIds": account_ids}


# --- queries --------------------------------------------------------------------------


@query(
    "get_wallet",
    summary="Get wallet",
    body=obj(walletId=uuid()),
    result_keys=("wallet",),
)
def get_wallet(ctx: Context, body: Params) -> Params:
    return {"wallet": render.wallet(find_wallet(ctx.org, body["walletId"]))}


@query(
    "list_wallets",
    summary="List wallets",
    sdk_method="get_wallets",
    body=obj(),
    result_keys=("wallets",),
)
def list_wallets(ctx: Context, body: Params) -> Params:
    return {"wallets": [render.wallet(w) for w in ctx.org.wallets.values()]}


@query(
    "list_wallet_accounts",
    summary="List wallets accounts",
    sdk_method="get_wallet_accounts",
    body=obj(
        walletId=opt(uuid()),
        includeWalletDetails=opt(Boolean()),
        paginationOptions=opt(PAGINATION),
    ),
    result_keys=("accounts",),
)
def list_wallet_accounts(ctx: Context, body: Params) -> Params:
    """The accounts of one wallet, or of every wallet (wallet by wallet); paginated."""
    if body.get("walletId"):
        wallets = [find_wallet(ctx.org, body["walletId"])]
    else:
        wallets = list(ctx.org.wallets.values())
    accounts = [(w, a) for w in wallets for a in w.accounts.values()]
    page = paginate(accounts, body.get("paginationOptions"), lambda wa: wa[1].wallet_account_id)
    details = bool(body.get("includeWalletDetails"))
    return {"accounts": [render.wallet_account(a, w if details else None) for w, a in page]}


@query(
    "get_wallet_account",
    summary="Get wallet account",
    in_seed=True,
    body=obj(walletId=uuid(), address=opt(String()), path=opt(String())),
    result_keys=("account",),
)
def get_wallet_account(ctx: Context, body: Params) -> Params:
    """One account of a wallet, by address (exact match) or else by path."""
    wallet = find_wallet(ctx.org, body["walletId"])
    address, path = body.get("address"), body.get("path")
    if address:
        match = [a for a in wallet.accounts.values() if a.address == address]
        missing = messages.wallet_account_not_found(address)
    elif path:
        wanted = keys.canonical_path(path)
        match = [a for a in wallet.accounts.values() if keys.canonical_path(a.path) == wanted]
        missing = messages.wallet_account_path_not_found(path)
    else:
        errors = Violations()
        errors.add("address", "is required when path is not given")
        raise ValidationFailed(errors)
    if not match:
        raise NotFound(missing)
    return {"account": render.wallet_account(match[0])}
