"""The words of the swap operations' refusals (``services/swaps.py`` and its helpers).

Turnkey does not publish these messages; each says what is wrong and names the value, in the
style of the API's other messages. docs/swap.md lists them.
"""

from __future__ import annotations

SWAPS_NOT_ENABLED = "swaps are not enabled for this organization (Early Access)"
PARENT_ONLY = "this activity must be submitted against the parent organization"
PRIVATE_KEY_SIGNER = "swaps must be signed by a wallet account; private keys are not supported"
SAME_TOKEN = "inputToken and outputToken must differ"
CROSS_PROTOCOL = "cross-chain swaps between EVM and Solana are not supported yet"
NO_FEES_TO_CLAIM = "there are no accrued swap fees to claim"
NO_FEE_RECEIVER = "no swap fee receiver is configured"


def unsupported_asset(field: str, detail: str) -> str:
    return f"invalid {field}: {detail}"


def unsupported_chain(field: str, caip2: str) -> str:
    return f"invalid {field}: swaps are not supported on {caip2}"


def positive_amount(field: str, value: str) -> str:
    return f"invalid {field}: must be a positive base-unit integer, got {value!r}"


def bps(field: str, value: str, cap: int) -> str:
    return (
        f"invalid {field}: must be an integer number of basis points from 0 to {cap}, got {value!r}"
    )


def wrong_family(field: str, value: str, caip2: str) -> str:
    return f"invalid {field}: {value} is not an address on {caip2}"


def insufficient_balance(address: str, caip19: str, held: int, needed: int) -> str:
    return f"insufficient balance: {address} holds {held} of {caip19}, the swap needs {needed}"


def quote_not_found(quote_id: str) -> str:
    return f"swap quote not found: {quote_id}"


def quote_expired(quote_id: str, expires_at_ms: int) -> str:
    return f"swap quote {quote_id} expired at {expires_at_ms}; request a new quote"


def quote_executed(quote_id: str) -> str:
    return f"swap quote {quote_id} was already executed"


def quote_mismatch(field: str, given: str, quoted: str) -> str:
    return f"{field} {given!r} does not match the quote ({quoted!r})"


def swap_not_found(swap_request_id: str) -> str:
    return f"swap request not found: {swap_request_id}"


def feature_missing(feature: str) -> str:
    return f"{feature} is not enabled for this organization"


def window_closed(feature: str) -> str:
    return f"the {feature} spending window is not enabled or has no remaining capacity"


def fixed_rate_pair() -> str:
    return "a fixed-rate quote needs two supported stablecoins"


def stable_fee_enterprise() -> str:
    return "stableFeeBps is available on Enterprise plans only"


def fee_receiver(value: str) -> str:
    return (
        f"invalid feeReceiverWalletAddress: {value} is not an EVM wallet account or private key "
        "of the parent organization"
    )


def usd_limit(field: str, value: str) -> str:
    return (
        f"invalid {field}: must be a positive USD amount with at most 18 integer and 12 "
        f"fractional digits, got {value!r}"
    )


def sub_org_limit_above(sub: str, org: str) -> str:
    return f"subOrgWindowLimitUsd {sub} is greater than orgWindowLimitUsd {org}"


def window_minutes(value: str, cap: int) -> str:
    return f"invalid windowDurationMinutes: must be a positive integer at most {cap}, got {value!r}"
