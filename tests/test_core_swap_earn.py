"""Swap and Earn through ``@turnkey/core`` 2.8.1's own client, in node, over a real socket.

``@turnkey/core``'s HTTP client (``TurnkeySDKClientBase``: what ``turnkeyClient.httpClient`` is)
has generated methods for Swap and Earn: ``upsertSwapConfig``, ``createSwapQuote`` (it sends
``ACTIVITY_TYPE_CREATE_SWAP_QUOTE``), ``executeSwap`` (``ACTIVITY_TYPE_EXECUTE_SWAP_V2``),
``getSwapStatus``, ``claimSwapFees``, ``listEarnVaults``, ``earnDeposit``, ``earnWithdraw`` and
the status queries; it has no plain method for ``earn_deploy_wrapper``, only its stamp method,
which a user sends with ``sendSignedRequest``. ``tests/browser_app/core_client.mjs`` runs those
methods, stamped by the API-key stamper ``@turnkey/core`` re-exports, on ``serving(world)``; core
wraps each activity's parameters itself, adds ``generateAppProofs``, polls and flattens the
result. Balances are read back with eth-tester (``balanceOf`` through its own ``call``), not the
emulator's reads. Skipped without node and npm.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("eth_tester")

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.crypto.api_keys import ApiKeyPair, generate_key_pair
from emulator.http.server import serving

from .browser_app import core_modules_or_skip
from .swap_helpers import BASE, HUNDRED_USDC, ONE_ETH, USDC, WETH, erc20_balance
from .typescript import node_batch

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

STEAKHOUSE = "0xbeeF010f9cb27031ad51e3333f9aF9C6B1228183"  # the catalog's Base USDC vault


class CoreError(RuntimeError):
    """What ``@turnkey/core``'s client threw (its message)."""


class Core:
    """Batches of ``@turnkey/core`` client calls against one served emulator."""

    def __init__(self, folder: Path, url: str, org_id: str, key: ApiKeyPair) -> None:
        self.folder, self.node = folder, shutil.which("node") or "node"
        self.config = {
            "apiBaseUrl": url,
            "organizationId": org_id,
            "apiPublicKey": key.public_key,
            "apiPrivateKey": key.private_key,
        }

    def run(self, *calls: tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], str]) -> list:
        """Each call's result (core's flattened answer), or a ``CoreError`` in its place."""
        batch = [{"method": c[0], "input": c[1], "resultKey": c[2] if len(c) > 2 else None}
                 for c in calls]  # fmt: skip
        payload = {"config": self.config, "calls": batch}
        return node_batch(self.node, self.folder / "core_client.mjs", payload, CoreError)

    def one(self, method: str, params: dict[str, Any], result_key: str | None = None) -> Any:
        (result,) = self.run((method, params, result_key) if result_key else (method, params))
        if isinstance(result, CoreError):
            raise result
        return result


@pytest.fixture(scope="module")
def folder() -> Path:
    return core_modules_or_skip()


def _world(seed: int) -> tuple[Emulator, ApiKeyPair, str, str, str]:
    emu = Emulator(seed=seed)
    key = generate_key_pair()
    org = emu.create_organization(api_public_key=key.public_key, api_private_key=key.private_key)
    alice, bob = emu.create_wallet(
        wallet_name="core",
        accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM", i) for i in range(2)],
    )["addresses"]
    emu.chains.fund(BASE, alice, ONE_ETH)
    return emu, key, org.organization_id, alice, bob


def test_core_quotes_executes_polls_and_claims_a_swap(folder: Path):
    emu, key, org_id, alice, bob = _world(91)
    emu.chains.fund(USDC, alice, HUNDRED_USDC)
    with serving(emu.world) as url:
        core = Core(folder, url, org_id, key)
        config, quoted = core.run(
            ("upsertSwapConfig", {"feeReceiverWalletAddress": bob, "feeBps": "50"}),
            (
                "createSwapQuote",
                {
                    "signWith": alice,
                    "inputToken": USDC,
                    "outputToken": WETH,
                    "inputAmount": str(HUNDRED_USDC),
                    "slippageBps": "50",
                },
            ),
        )
        # core flattens the result into its answer, beside the activity it came from
        assert config["feeReceiverWalletAddress"] == bob and config["feeBps"] == "50"
        assert quoted["activity"]["type"] == "ACTIVITY_TYPE_CREATE_SWAP_QUOTE"
        (quote,) = quoted["quotes"]
        # the V1 quote: the client fee and slippage applied, no sponsorship fields
        assert quote["clientFeeBps"] == "50" and quote["slippageBps"] == "50"
        assert "feeSponsorship" not in quote and "fixedRate" not in quote
        assert int(quote["minOutputAmount"]) == int(quote["outputAmount"]) * 9950 // 10_000
        execute = {
            "quoteId": quote["quoteId"],
            "inputToken": USDC,
            "outputToken": WETH,
            "inputAmount": str(HUNDRED_USDC),
            "quotedOutputAmount": quote["outputAmount"],
            "minOutputAmount": quote["minOutputAmount"],
            "sponsor": False,
        }
        # a changed amount is refused in the API's shape, and moves nothing
        (refused,) = core.run(("executeSwap", {**execute, "inputAmount": "1"}))
        assert str(refused) == (
            "Turnkey error 3: inputAmount '1' does not match the quote ('100000000') (Details: [])"
        )
        assert erc20_balance(emu, USDC, alice) == HUNDRED_USDC
        executed = core.one("executeSwap", execute)
        assert executed["activity"]["type"] == "ACTIVITY_TYPE_EXECUTE_SWAP_V2"
        assert executed["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
        status, claimed, again = core.run(
            ("getSwapStatus", {"swapRequestId": executed["swapRequestId"]}),
            ("claimSwapFees", {}),
            ("executeSwap", execute),  # the quote was used: refused
        )
    assert status["status"] == "COMPLETED"
    assert status["outputAmount"] == quote["outputAmount"]
    assert status["originTxHash"].startswith("0x")
    receipt = emu.chains.evm(BASE).tester.get_transaction_receipt(status["originTxHash"])
    assert receipt["status"] == 1
    assert erc20_balance(emu, WETH, alice) == int(quote["outputAmount"])
    assert erc20_balance(emu, USDC, alice) == 0
    assert claimed["requestId"]
    assert erc20_balance(emu, USDC, bob) == HUNDRED_USDC * 50 // 10_000
    assert str(again) == (
        f"Turnkey error 3: swap quote {quote['quoteId']} was already executed (Details: [])"
    )
    assert erc20_balance(emu, WETH, alice) == int(quote["outputAmount"])


def test_core_lists_vaults_deposits_and_withdraws_everything(folder: Path):
    emu, key, org_id, alice, fees = _world(92)
    usdc_amount = 25 * 10**6
    emu.chains.fund(USDC, alice, usdc_amount)
    with serving(emu.world) as url:
        core = Core(folder, url, org_id, key)
        catalog, deployed = core.run(
            ("listEarnVaults", {"caip19": USDC}),
            (
                # core has no earnDeployWrapper method: its stamp method, then sendSignedRequest
                "signed:stampEarnDeployWrapper",
                {
                    "vaultAddress": STEAKHOUSE,
                    "chainCaip2": BASE,
                    "clientFeeBps": "100",
                    "clientFeeWallet": fees,
                },
                "earnDeployWrapperResult",
            ),
        )
        assert STEAKHOUSE in [v["vaultAddress"] for v in catalog["vaults"]]
        assert all(v["caip19"] == USDC for v in catalog["vaults"])
        wrapper = deployed["wrapperAddress"]
        deposit = {
            "wrapperAddress": wrapper,
            "signWith": alice,
            "assets": str(usdc_amount),
            "chainCaip2": BASE,
            "sponsor": True,
        }
        (too_much,) = core.run(("earnDeposit", {**deposit, "assets": str(usdc_amount + 1)}))
        assert str(too_much) == (
            f"Turnkey error 3: insufficient balance: {alice} holds {usdc_amount} of {USDC},"
            f" the deposit needs {usdc_amount + 1} (Details: [])"
        )
        assert erc20_balance(emu, USDC, alice) == usdc_amount
        built, sent = core.run(
            ("getEarnDeployStatus", {"deployRequestId": deployed["deployRequestId"]}),
            ("earnDeposit", deposit),
        )
        assert built["status"] == "COMPLETED"
        assert erc20_balance(emu, USDC, alice) == 0
        polled, held = core.run(
            ("getEarnDepositStatus", {"depositRequestId": sent["depositRequestId"]}),
            ("listEarnPositions", {"walletAddress": alice}),
        )
        assert polled["status"] == "COMPLETED"
        (position,) = held["positions"]
        assert position["wrapperAddress"] == wrapper
        assert position["totalDeposited"] == str(usdc_amount)
        assert erc20_balance(emu, f"{BASE}/erc20:{wrapper}", alice) > 0  # the wrapper's shares
        withdrawn = core.one(
            "earnWithdraw",
            {
                "wrapperAddress": wrapper,
                "signWith": alice,
                "chainCaip2": BASE,
                "amountValue": "MAX",
                "sponsor": True,
            },
        )
        final = core.one(
            "getEarnWithdrawStatus", {"withdrawRequestId": withdrawn["withdrawRequestId"]}
        )
    assert final["status"] == "COMPLETED"
    receipt = emu.chains.evm(BASE).tester.get_transaction_receipt(final["withdrawTxHash"])
    assert receipt["status"] == 1
    # every share redeemed: the USDC is back (less ERC-4626 rounding), the gas station paid
    assert usdc_amount - 2 <= erc20_balance(emu, USDC, alice) <= usdc_amount
    assert erc20_balance(emu, f"{BASE}/erc20:{wrapper}", alice) == 0
    assert emu.chains.evm(BASE).tester.get_balance(alice) == ONE_ETH
