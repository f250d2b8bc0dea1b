"""Wallets: whoami, the import flow with a known mnemonic, the addresses it derives
(compared with ``bip-utils`` and ``eth-account``), derivation as a property, pagination of
the wallet's accounts, and the export flow back to the same mnemonic."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from turnkey_sdk_types import (
    CreateWalletAccountsBody,
    ExportWalletBody,
    GetActivityBody,
    GetWalletAccountsBody,
    GetWalletBody,
    GetWalletsBody,
    GetWhoamiBody,
    ImportWalletBody,
    InitImportWalletBody,
    v1Pagination,
    v1WalletAccountParams,
)

from . import crypto, shapes
from .properties import for_all
from .report import Mismatch, expect, expect_equal
from .session import Session

#: The BIP-39 test mnemonic (all-zero entropy), with addresses every wallet library agrees
#: on; never hold funds with it.
MNEMONIC = " ".join(["abandon"] * 11 + ["about"])
ETHEREUM = ("CURVE_SECP256K1", "ADDRESS_FORMAT_ETHEREUM", "m/44'/60'/0'/0/{}")
SOLANA = ("CURVE_ED25519", "ADDRESS_FORMAT_SOLANA", "m/44'/501'/{}'/0'")
BITCOIN = ("CURVE_SECP256K1", "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH", "m/84'/0'/0'/0/{}")
CHAINS = {"ethereum": ETHEREUM, "solana": SOLANA, "bitcoin": BITCOIN}
#: Known addresses of MNEMONIC at index 0 (published vectors; recomputed below as well).
KNOWN = {
    "ethereum": "0x9858EfFD232B4033E47d90003D41EC34EcaEda94",
    "solana": "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk",
    "bitcoin": "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu",
}


def account(chain: str, index: int) -> v1WalletAccountParams:
    curve, address_format, path = CHAINS[chain]
    return v1WalletAccountParams(
        curve=curve,
        pathFormat="PATH_FORMAT_BIP32",
        path=path.format(index),
        addressFormat=address_format,
    )


def expected_address(seed: bytes, chain: str, index: int) -> str:
    path = CHAINS[chain][2].format(index)
    if chain == "ethereum":
        return crypto.ethereum_address(seed, path)
    if chain == "solana":
        return crypto.solana_address(seed, path)
    return crypto.bitcoin_p2wpkh_address(seed, path)


def imported_wallet(session: Session) -> str:
    wallet_id = session.facts.get("wallet_id")
    if not wallet_id:
        raise Mismatch("the wallet of import.wallet", "none (that check failed)")
    return str(wallet_id)


# ----- checks ----------------------------------------------------------------------------


def whoami(session: Session) -> None:
    answer = session.ok("get_whoami", GetWhoamiBody())
    shapes.conforms(answer.body, shapes.WHOAMI, "get_whoami")
    expect_equal(answer.body["organizationId"], session.organization_id, "organizationId")
    session.user_id = answer.body["userId"]


def import_bundle(session: Session) -> None:
    answer = session.ok("init_import_wallet", InitImportWalletBody(userId=session.user_id))
    bundle = answer.result("initImportWalletResult").get("importBundle")
    if not isinstance(bundle, str):
        raise Mismatch("initImportWalletResult.importBundle", answer.brief())
    try:
        inner = crypto.open_signed_bundle(bundle, session.signer_public_key)
    except crypto.BundleError as error:
        raise Mismatch("an import bundle signed by the signer key", error) from None
    expect_equal(inner.get("organizationId"), session.organization_id, "organizationId")
    expect_equal(inner.get("userId"), session.user_id, "userId")
    expect(isinstance(inner.get("targetPublic"), str), "a targetPublic", sorted(inner))
    session.facts["import_target"] = inner["targetPublic"]


def import_wallet(session: Session) -> None:
    target = session.facts.get("import_target")
    if not target:
        raise Mismatch("the target key of import.bundle", "none (that check failed)")
    body = ImportWalletBody(
        userId=session.user_id,
        walletName=session.name("imported"),
        encryptedBundle=crypto.seal_to(target, MNEMONIC.encode()),
        accounts=[account(chain, 0) for chain in CHAINS],
    )
    answer = session.call("import_wallet", body)
    wallet_id = answer.result("importWalletResult").get("walletId")
    if wallet_id:
        session.ledger.add("wallet", wallet_id)
        session.facts["wallet_id"] = wallet_id
        session.facts["import_activity_id"] = answer.activity.get("id")
    expect(answer.status == 200 and bool(wallet_id), "a completed import_wallet", answer.brief())
    seed = crypto.seed_of(MNEMONIC)
    computed = {chain: expected_address(seed, chain, 0) for chain in CHAINS}
    by_eth_account = crypto.ethereum_address_by_eth_account(MNEMONIC, ETHEREUM[2].format(0))
    # the checker's own arithmetic, against the published vectors and a second library
    expect_equal(computed, KNOWN, "bip-utils addresses")
    expect_equal(by_eth_account, KNOWN["ethereum"], "eth-account address")
    got = answer.result("importWalletResult").get("addresses")
    expect_equal(got, [KNOWN[chain] for chain in CHAINS], "addresses")


def import_activity(session: Session) -> None:
    """The import's activity as get_activity answers it (the wire's own JSON): its shape,
    type, status, and the caller's approving vote."""
    activity_id = session.facts.get("import_activity_id")
    if not activity_id:
        raise Mismatch("the activity of import.wallet", "none (that check failed)")
    activity = session.ok("get_activity", GetActivityBody(activityId=activity_id)).object(
        "activity"
    )
    shapes.conforms(activity, shapes.ACTIVITY, "get_activity.activity")
    expect_equal(activity["type"], "ACTIVITY_TYPE_IMPORT_WALLET", "type")
    expect_equal(activity["status"], "ACTIVITY_STATUS_COMPLETED", "status")
    voters = [vote.get("userId") for vote in activity["votes"] if isinstance(vote, dict)]
    expect_equal(voters, [session.user_id], "the voters")


def wallet_listed(session: Session) -> None:
    wallet_id = imported_wallet(session)
    wallet = session.ok("get_wallet", GetWalletBody(walletId=wallet_id)).object("wallet")
    shapes.conforms(wallet, shapes.WALLET, "get_wallet.wallet")
    expect_equal(wallet["walletName"], session.name("imported"), "walletName")
    expect_equal(wallet["imported"], True, "imported")
    listed = session.ok("get_wallets", GetWalletsBody()).items("wallets")
    expect(
        any(w.get("walletId") == wallet_id for w in listed), f"{wallet_id} in get_wallets", listed
    )


def accounts_listed(session: Session) -> None:
    wallet_id = imported_wallet(session)
    body = GetWalletAccountsBody(walletId=wallet_id)
    accounts = session.ok("get_wallet_accounts", body).items("accounts")
    shapes.conforms({"accounts": accounts}, {"accounts": [shapes.WALLET_ACCOUNT]}, "accounts")
    expect_equal(
        sorted(a["address"] for a in accounts), sorted(KNOWN.values()), "account addresses"
    )
    session.facts["public_keys"] = {a["address"]: a["publicKey"] for a in accounts}


def derivation_property(session: Session) -> None:
    """create_wallet_accounts with ``persist: false`` (nothing is kept) at drawn indices (from
    1: index 0 of each chain is in the wallet, and a path already there is refused)."""
    wallet_id = imported_wallet(session)
    seed = crypto.seed_of(MNEMONIC)
    draws = st.tuples(st.sampled_from(sorted(CHAINS)), st.integers(1, 2**31 - 1))

    def check(drawn: tuple[str, int]) -> None:
        chain, index = drawn
        body = CreateWalletAccountsBody(
            walletId=wallet_id, accounts=[account(chain, index)], persist=False
        )
        answer = session.ok("create_wallet_accounts", body)
        got = answer.result("createWalletAccountsResult").get("addresses")
        expect_equal(got, [expected_address(seed, chain, index)], f"{chain} address")

    for_all(draws, check, session.max_examples)


def pagination(session: Session) -> None:
    """Three more accounts, then every limit walks the same list, page by page."""
    wallet_id = imported_wallet(session)
    more = [account("ethereum", i) for i in (1, 2, 3)]
    session.ok(
        "create_wallet_accounts", CreateWalletAccountsBody(walletId=wallet_id, accounts=more)
    )
    every = session.ok("get_wallet_accounts", GetWalletAccountsBody(walletId=wallet_id))
    full = [a["walletAccountId"] for a in every.items("accounts")]
    expect_equal(len(full), 6, "accounts in the wallet")

    def walk(limit: int) -> None:
        pages: list[list[str]] = []
        after: str | None = None
        while len(pages) <= len(full):
            options = v1Pagination(limit=str(limit), after=after)
            body = GetWalletAccountsBody(walletId=wallet_id, paginationOptions=options)
            page = [
                a["walletAccountId"]
                for a in session.ok("get_wallet_accounts", body).items("accounts")
            ]
            expect(len(page) <= limit, f"at most {limit} accounts a page", len(page))
            if not page:
                break
            pages.append(page)
            after = page[-1]
        expect_equal([i for page in pages for i in page], full, f"pages of {limit}")

    for_all(st.integers(1, 7), walk, session.max_examples)


def export_wallet(session: Session) -> None:
    wallet_id = imported_wallet(session)
    target = crypto.TargetKey()
    body = ExportWalletBody(walletId=wallet_id, targetPublicKey=target.public_key)
    answer = session.ok("export_wallet", body)
    bundle = answer.result("exportWalletResult").get("exportBundle")
    if not isinstance(bundle, str):
        raise Mismatch("exportWalletResult.exportBundle", answer.brief())
    try:
        inner: dict[str, Any] = crypto.open_signed_bundle(bundle, session.signer_public_key)
        expect_equal(inner.get("organizationId"), session.organization_id, "organizationId")
        plaintext = target.open(inner["encappedPublic"], inner["ciphertext"])
    except (crypto.BundleError, KeyError, ValueError) as error:
        raise Mismatch("an export bundle that opens", f"{type(error).__name__}: {error}") from None
    expect_equal(plaintext.decode(), MNEMONIC, "the exported mnemonic")


CHECKS = [
    ("whoami.shape", whoami),
    ("import.bundle_signed_by_enclave", import_bundle),
    ("import.wallet_known_addresses", import_wallet),
    ("import.activity_shape", import_activity),
    ("wallet.get_and_list", wallet_listed),
    ("wallet.accounts_shape", accounts_listed),
    ("derive.addresses_match_bip_utils", derivation_property),
    ("pagination.wallet_accounts", pagination),
    ("export.wallet_mnemonic_round_trip", export_wallet),
]
