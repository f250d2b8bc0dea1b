"""A swap driven by the official TypeScript client (``@turnkey/http`` 6.6.0's
``TurnkeyClient`` stamped by ``@turnkey/api-key-stamper``) over a real socket: the fee
configuration, a quote (its ``ACTIVITY_TYPE_CREATE_SWAP_QUOTE``), the execution (its
``ACTIVITY_TYPE_EXECUTE_SWAP_V2``), the status poll and the fee claim; the balances read back
with eth-tester (skipped without node and npm)."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("eth_tester")

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.crypto.api_keys import generate_key_pair
from emulator.http.server import serving
from tests.typescript import TypeScript, typescript_or_skip

from .swap_helpers import BASE, HUNDRED_USDC, ONE_ETH, USDC, WETH, erc20_balance

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def ts() -> TypeScript:
    return typescript_or_skip()


def test_the_typescript_client_configures_quotes_executes_polls_and_claims(ts: TypeScript):
    emu = Emulator(seed=81)
    key = generate_key_pair()
    org = emu.create_organization(api_public_key=key.public_key, api_private_key=key.private_key)
    alice, bob = emu.create_wallet(
        wallet_name="ts",
        accounts=[
            account_spec("ADDRESS_FORMAT_ETHEREUM"),
            account_spec("ADDRESS_FORMAT_ETHEREUM", 1),
        ],
    )["addresses"]
    emu.chains.fund(BASE, alice, ONE_ETH)
    emu.chains.fund(USDC, alice, HUNDRED_USDC)
    org_id = org.organization_id

    def call(method: str, body: dict) -> dict:
        return ts.one(
            "call",
            baseUrl=url,
            apiPublicKey=key.public_key,
            apiPrivateKey=key.private_key,
            method=method,
            body=body,
        )

    def activity(kind: str, parameters: dict) -> dict:
        return {
            "type": kind,
            "timestampMs": str(int(time.time() * 1000)),
            "organizationId": org_id,
            "parameters": parameters,
        }

    with serving(emu.world) as url:
        config = call(
            "upsertSwapConfig",
            activity(
                "ACTIVITY_TYPE_UPSERT_SWAP_CONFIG",
                {"feeReceiverWalletAddress": bob, "feeBps": "50"},
            ),
        )
        assert config["activity"]["result"]["upsertSwapConfigResult"] == {
            "feeReceiverWalletAddress": bob,
            "feeBps": "50",
        }
        quoted = call(
            "createSwapQuote",
            activity(
                "ACTIVITY_TYPE_CREATE_SWAP_QUOTE",
                {
                    "signWith": alice,
                    "inputToken": USDC,
                    "outputToken": WETH,
                    "inputAmount": str(HUNDRED_USDC),
                    "slippageBps": "50",
                },
            ),
        )
        (quote,) = quoted["activity"]["result"]["createSwapQuoteResult"]["quotes"]
        assert quote["clientFeeBps"] == "50" and "feeSponsorship" not in quote
        executed = call(
            "executeSwap",
            activity(
                "ACTIVITY_TYPE_EXECUTE_SWAP_V2",
                {
                    "quoteId": quote["quoteId"],
                    "inputToken": USDC,
                    "outputToken": WETH,
                    "inputAmount": str(HUNDRED_USDC),
                    "quotedOutputAmount": quote["outputAmount"],
                    "minOutputAmount": quote["minOutputAmount"],
                    "sponsor": False,
                },
            ),
        )
        result = executed["activity"]["result"]["executeSwapResult"]
        status = call(
            "getSwapStatus", {"organizationId": org_id, "swapRequestId": result["swapRequestId"]}
        )
        claimed = call("claimSwapFees", activity("ACTIVITY_TYPE_CLAIM_SWAP_FEES", {}))
    assert status["status"] == "COMPLETED" and status["outputAmount"] == quote["outputAmount"]
    assert erc20_balance(emu, WETH, alice) == int(quote["outputAmount"])
    assert erc20_balance(emu, USDC, alice) == 0
    assert claimed["activity"]["result"]["claimSwapFeesResult"]["requestId"]
    assert erc20_balance(emu, USDC, bob) == HUNDRED_USDC * 50 // 10_000
