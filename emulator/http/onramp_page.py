"""The sandbox on-ramp provider's page: where an ``onRampUrl`` leads (``services/onramp.py``).

* ``GET /onramp/<provider host>/...?<the provider's parameters>``: a small page showing the
  purchase (provider, asset, network, wallet, amount) with Complete, Fail and Cancel
  buttons, as a person (or a headless browser) meets it. The page reads its own query.
* ``GET /onramp/page.js``: its script (the page's policy allows no inline script).
* ``POST /onramp/v1/purchase {query}`` → the purchase the query names, as the provider sees
  it; ``POST /onramp/v1/settle {query, outcome, fiatAmount?}`` → the same after the
  provider's decision (``COMPLETED`` delivers the asset). The purchase is named by the
  provider's own parameter (MoonPay's ``externalTransactionId``, Coinbase's
  ``partnerUserId``), and a Coinbase page must carry the ``sessionToken`` the emulator
  minted for it. POSTs are JSON only (no cross-site form reaches them), from this origin.

Like a real provider's checkout, the page needs no control token: having the URL is the
right to pay. Errors are the API's shape.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs

from ..engine_state.world import World
from ..facade.onramp import transaction_json
from ..ground import jsontext
from ..ground.errors import (
    INVALID_ARGUMENT,
    NOT_FOUND,
    PERMISSION_DENIED,
    UNIMPLEMENTED,
    TurnkeyApiError,
)
from ..ground.onramp import COINBASE
from ..services import onramp
from .answers import JSON_TYPE, Answer, error_answer

PREFIX = onramp.PAGE_PREFIX
SECURITY_HEADERS = [
    (
        "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
]

PAGE = b"""<!doctype html>
<meta charset="utf-8">
<title>Sandbox on-ramp (turnkey-emulator)</title>
<style>
body { font: 15px system-ui, sans-serif; max-width: 30rem; margin: 3rem auto; }
dt { color: #666; } dd { margin: 0 0 .6rem 0; font-family: monospace; word-break: break-all; }
button { font-size: 1rem; margin-right: .5rem; padding: .4rem 1rem; }
#status { font-weight: bold; }
</style>
<h1 id="provider">Sandbox on-ramp</h1>
<p>A sandbox purchase: no money moves. Completing it delivers the asset to the wallet on the
emulator's chain.</p>
<dl>
<dt>Buy</dt><dd id="asset"></dd>
<dt>Network</dt><dd id="network"></dd>
<dt>Wallet</dt><dd id="wallet"></dd>
<dt>Pay</dt><dd><input id="amount" size="10"> <span id="fiat"></span></dd>
<dt>Status</dt><dd id="status">loading</dd>
</dl>
<button id="complete" data-outcome="COMPLETED" disabled>Complete purchase</button>
<button id="fail" data-outcome="FAILED" disabled>Fail</button>
<button id="cancel" data-outcome="CANCELLED" disabled>Cancel</button>
<p id="error" role="alert"></p>
<script src="/onramp/page.js"></script>
"""

SCRIPT = b""""use strict";
const $ = (id) => document.getElementById(id);
async function post(path, body) {
  const answer = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ query: location.search, ...body }),
  });
  const data = await answer.json();
  if (!answer.ok) throw new Error(data.message);
  return data;
}
function show(p) {
  $("provider").textContent = p.onrampProvider.replace("FIAT_ON_RAMP_PROVIDER_", "") +
    (p.sandboxMode ? " (sandbox)" : "");
  $("asset").textContent = p.symbol;
  $("network").textContent = p.network.replace("FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_", "") +
    " (" + p.caip2 + ")";
  $("wallet").textContent = p.walletAddress;
  $("fiat").textContent = p.fiatCurrencyCode.replace("FIAT_ON_RAMP_CURRENCY_", "");
  if (p.fiatCurrencyAmount) { $("amount").value = p.fiatCurrencyAmount; $("amount").readOnly = true; }
  else if (!$("amount").value) { $("amount").value = "100"; }
  $("status").textContent = p.providerStatus;
  document.body.dataset.status = p.providerStatus;
  const open = p.providerStatus === "PENDING";
  for (const id of ["complete", "fail", "cancel"]) $(id).disabled = !open;
}
async function decide(event) {
  $("error").textContent = "";
  try {
    show(await post("/onramp/v1/settle", {
      outcome: event.target.dataset.outcome, fiatAmount: $("amount").value,
    }));
  } catch (e) { $("error").textContent = e.message; }
}
for (const id of ["complete", "fail", "cancel"]) $(id).addEventListener("click", decide);
post("/onramp/v1/purchase", {}).then(show, (e) => {
  $("status").textContent = "unknown"; $("error").textContent = e.message;
});
"""


def respond(
    world: World, method: str, path: str, headers: Mapping[str, str], body: bytes
) -> Answer:
    if path == PREFIX + "page.js":
        if method not in ("GET", "HEAD"):
            return error_answer(501, UNIMPLEMENTED, "the page's script answers GET")
        return 200, [("Content-Type", "text/javascript; charset=utf-8"), *SECURITY_HEADERS], SCRIPT
    if path in (PREFIX + "v1/purchase", PREFIX + "v1/settle"):
        return _api(world, method, path, headers, body)
    if method not in ("GET", "HEAD"):
        return error_answer(501, UNIMPLEMENTED, "the provider's page answers GET")
    return 200, [("Content-Type", "text/html; charset=utf-8"), *SECURITY_HEADERS], PAGE


def _api(world: World, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Answer:
    if method != "POST":
        return error_answer(501, UNIMPLEMENTED, f"{path} answers POST")
    media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media != "application/json":
        return error_answer(415, INVALID_ARGUMENT, "send Content-Type: application/json")
    origin, host = headers.get("origin"), headers.get("host", "")
    if origin is not None and origin.split("://", 1)[-1] != host:
        return error_answer(403, PERMISSION_DENIED, f"requests from {origin} are refused")
    try:
        params = jsontext.loads(body)
    except (ValueError, UnicodeDecodeError):
        return error_answer(400, INVALID_ARGUMENT, "the body must be JSON")
    if not isinstance(params, dict) or not isinstance(params.get("query"), str):
        return error_answer(400, INVALID_ARGUMENT, "the body must be an object with a query")
    try:
        with world.lock:
            transaction_id = _named(world, params["query"])
            if path.endswith("/settle"):
                tx = onramp.settle(
                    world, transaction_id, params.get("outcome"), params.get("fiatAmount")
                )
            else:
                tx = onramp.find(world, transaction_id)[1]
            answer = transaction_json(tx)
    except TurnkeyApiError as error:
        return error.status, [JSON_TYPE], json.dumps(error.body()).encode()
    return 200, [JSON_TYPE, ("Cache-Control", "no-store")], json.dumps(answer).encode()


def _named(world: World, query: str) -> str:
    """The transaction a page's query names; a Coinbase page's session token checked."""
    params: dict[str, Any] = {k: v[-1] for k, v in parse_qs(query.lstrip("?")).items()}
    transaction_id = params.get("externalTransactionId") or params.get("partnerUserId")
    _, tx = onramp.find(world, transaction_id)
    if tx.onramp_provider == COINBASE:
        expected = onramp.session_token(world, tx.transaction_id)
        if not hmac.compare_digest(str(params.get("sessionToken", "")), expected):
            raise TurnkeyApiError(PERMISSION_DENIED, "the sessionToken does not match")
    return tx.transaction_id


__all__ = ["NOT_FOUND", "PREFIX", "respond"]
