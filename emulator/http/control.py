"""Control endpoints outside ``/public/``, for test clients in any language.

Paths under ``/emulator/v1/``; every one takes and answers JSON: POST with
``Content-Type: application/json``, or GET for the read endpoints (``health``,
``calls``, ``outbox``). They are not part of Turnkey's API and take no stamp;
``site.py`` lets only this machine drive them (see there). Errors have the API's
shape ``{code, message, details, turnkeyErrorCode}``.

* ``health``: ``{ok, organizationId}``.
* ``info``: the public half of ``serve``'s first line for a client that attaches to a running
  server (the Node kit's ``attachEmulator``): ``{organizationId, organizationName, userId,
  apiKeyId, apiPublicKey, signerPublicKey, notarizerPublicKey, tlsFetcherPublicKey,
  tlsFetcherEncryptPublicKey}`` (the private key never: the client brings it).
* ``reset``: back to the baseline (for ``serve``: the organization it bootstrapped, so
  the credentials it printed keep working), or a new emulator's state when there is
  none, with full rate-limit buckets; answers ``{organizationId}``.
* ``snapshot`` → ``{snapshotId}``; ``restore`` ``{snapshotId, clearObservations?}`` (with
  ``clearObservations``, the outbox, the call log, pending faults and webhook deliveries are
  emptied too: one request for the Node kit's per-test step).
* ``clock`` ``{freezeAtMs?, freeze?, unfreeze?, advanceSeconds?}`` → ``{nowMs, frozen}``.
* ``calls`` ``{operation?, status?, userId?, organizationId?}`` → ``{calls: [...]}`` (each
  ``{seq, timeNs, operation, kind, httpStatus, errorCode, errorMessage, activityId, ...}``);
  ``calls/clear``.
* ``faults`` ``{operation?, count?, status?, code?, message?, turnkeyErrorCode?,
  activityStatus?}`` → ``{pending: [...]}``; ``faults/clear``.
* ``outbox`` ``{channel?, to?, template?, organizationId?}`` (GET or POST) → ``{messages:
  [...]}``, the e-mails and SMS the service would have sent, oldest first (each ``{id,
  timeNs, timeMs, channel, to, senderAddress, senderName, replyTo, template,
  organizationId, fields}``; see ``emulator/recorders/outbox.py``); ``outbox/clear``.
* ``oauth2/clients`` ``{provider?, clientId?, clientSecret?, redirectUris?}`` → ``{provider,
  clientId, clientSecret}``: an app registered with the built-in OAuth 2.0 provider;
  ``oauth2/authorize`` ``{provider, clientId, userId, redirectUri, codeChallenge,
  codeChallengeMethod?, expiresInSeconds?}`` → ``{code}``: that provider's user grants the
  app access (``emulator/facade/oauth2.py``).
* ``auth_proxy`` (GET or POST) → ``{configs: [...]}``; ``auth_proxy/configure``
  ``{configId?, organizationId?, enabledProviders?, sessionExpirationSeconds?, ...}`` →
  the new configuration (or, with ``configId``, that one updated); see
  ``emulator/authproxy/config.py``.
* ``webhooks`` ``{endpointId?, eventType?, state?, organizationId?}`` (GET or POST) →
  ``{deliveries: [...]}``, every webhook delivery with its attempts (each ``{id, eventId,
  eventType, endpointId, organizationId, url, body, createdMs, state, attempts: [{number,
  timeMs, headers, status, answer, error}], nextAttemptMs}``; ``webhooks/deliveries.py``);
  ``webhooks/clear``; ``webhooks/run`` ``{synchronous?, timeoutSeconds?}`` → ``{settled,
  synchronous}`` (sets the switch, then waits until no attempt is due).
* ``onramp/settle`` ``{onRampTransactionId, outcome, fiatAmount?}`` → the purchase as the
  sandbox provider sees it: ``outcome`` ``COMPLETED`` (the asset delivered to the wallet),
  ``FAILED`` or ``CANCELLED``; ``onramp/quote`` ``{network, cryptoCurrencyCode,
  fiatCurrencyAmount, onrampProvider?, fiatCurrencyCode?, paymentMethod?, sandboxMode?,
  organizationId?}`` → ``{quoteId}`` (``emulator/facade/onramp.py``).
* ``rate_limits`` (GET, or POST ``{plan?}``) → ``{plan, plans, ...}``: the documented rate
  limits enforced (``emulator/engine_state/ratelimits.py``); POST ``{"plan": "pro"}`` turns them on with
  fresh buckets, ``{"plan": null}`` off; an unknown plan is a 400 naming the valid ones.
* ``chains/fund`` ``{caip19, address, amount}`` → ``{caip19, address, balance}``: sets a
  native or token balance on the embedded chains (``control_chains.py``); ``{caip2, address,
  amount}`` (the Node kit's form) sets the native asset's and answers ``{caip2, address,
  balance}``, like Anvil's ``setBalance``; ``chains/balance`` ``{caip2, address}`` → the same
  answer. An unknown network or asset is a 400 naming it.
* ``tvc`` (GET, or POST) → the simulated Verifiable Cloud runtime (``emu.tvc``): POST
  ``{reset?, qosVersions?, bootSeconds?, readySeconds?, unknownImages?, imageDigests?,
  ready?, logs?}`` scripts it (``emulator/recorders/tvc_runtime.py``, docs/tvc.md).
* ``earn/rewards`` ``{caip2, walletAddress, amount, caip19?}`` and ``earn/apy`` ``{caip2,
  vaultAddress, apyPct}``: the seeded Merkl rewards and the vaults' APYs (``control_earn.py``).
* ``swap/prices`` ``{prices?: {caip19: usd}}`` → ``{prices}``; ``swap/fill_failures``
  ``{count?, reason?}`` → ``{pending}``: the simulated swap provider's seams (``emu.swap``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..engine_state.ratelimits import (
    BUCKET_SECONDS,
    ENDPOINT_RPS,
    PLANS,
    SUB_ORGANIZATION_RPS,
    plan_named,
)
from ..ground import jsontext
from ..ground.errors import TurnkeyApiError
from . import control_chains, control_earn
from .control_json import ControlError, Json, call_json, jsonable

if TYPE_CHECKING:
    from ..facade.api import Emulator

PREFIX = "/emulator/v1/"


READABLE = frozenset(
    {"health", "info", "calls", "outbox", "auth_proxy", "webhooks", "rate_limits", "tvc"}
)


class Control:
    """The control endpoints of one emulator. ``baseline``, a snapshot, is what ``reset``
    goes back to (``None``: a new emulator's state)."""

    def __init__(self, emulator: Emulator, baseline: Any = None) -> None:
        self.emulator = emulator
        self.baseline = baseline
        self._snapshots: dict[str, Any] = {}

    @staticmethod
    def _name(path: str) -> str:
        return path[len(PREFIX) :].strip("/")

    def knows(self, path: str) -> bool:
        return self._name(path) in self._ACTIONS

    def readable(self, path: str) -> bool:
        """Whether ``path`` only reads (and so answers GET)."""
        return self._name(path) in READABLE

    @staticmethod
    def changes_state(path: str) -> bool:
        """Whether a successful call of this endpoint may have changed saved state."""
        return Control._name(path) in {"reset", "restore", "clock", "onramp/settle", "onramp/quote"}

    def handle(self, method: str, path: str, body: bytes) -> tuple[int, bytes]:
        name = self._name(path)
        action = self._ACTIONS.get(name)
        try:
            if action is None:
                raise ControlError(404, f"no control endpoint {path}")
            if method not in ("GET", "POST"):
                raise ControlError(501, "use POST (or GET)")
            params = self._params(body)
            answer = action(self, params)
        except ControlError as error:
            return error.status, json.dumps(error.body()).encode()
        except (TypeError, ValueError, KeyError) as error:
            bad = ControlError(400, f"bad control request: {error}")
            return 400, json.dumps(bad.body()).encode()
        return 200, json.dumps(answer, default=jsonable).encode()

    @staticmethod
    def _params(body: bytes) -> Json:
        if not body.strip():
            return {}
        params = jsontext.loads(body)
        if not isinstance(params, dict):
            raise ControlError(400, "the body must be a JSON object")
        return params

    # ----- actions -------------------------------------------------------------------

    def _health(self, params: Json) -> Json:
        org_id = self.emulator._first_org_id
        return {"ok": True, "organizationId": org_id}

    def _info(self, params: Json) -> Json:
        org = self.emulator.organization() if self.emulator._first_org_id else None
        enclave = self.emulator.enclave
        return {
            "organizationId": org.organization_id if org else None,
            "organizationName": org.organization_name if org else None,
            "userId": org.user_id if org else None,
            "apiKeyId": org.api_key_id if org else None,
            "apiPublicKey": org.api_public_key if org else None,
            "signerPublicKey": enclave.signer_public_key,
            "notarizerPublicKey": enclave.notarizer_public_key,
            "tlsFetcherPublicKey": enclave.tls_fetcher_public_key,
            "tlsFetcherEncryptPublicKey": enclave.tls_fetcher_encrypt_public_key,
        }

    def _reset(self, params: Json) -> Json:
        if self.baseline is not None:
            self.emulator.restore(self.baseline)
        else:
            self.emulator.reset()
        self._snapshots.clear()
        self.emulator.world.rate_limits = None  # full rate-limit buckets again
        return {"organizationId": self.emulator._first_org_id}

    def _snapshot(self, params: Json) -> Json:
        snapshot_id = f"snapshot-{len(self._snapshots) + 1}"
        self._snapshots[snapshot_id] = self.emulator.snapshot()
        return {"snapshotId": snapshot_id}

    def _restore(self, params: Json) -> Json:
        saved = self._snapshots.get(params.get("snapshotId", ""))
        if saved is None:
            raise ControlError(404, f"no snapshot {params.get('snapshotId')!r}")
        self.emulator.restore(saved)
        if params.get("clearObservations"):  # what a snapshot does not hold, emptied too
            world = self.emulator.world
            for recorder in (world.outbox, world.calls, world.faults, world.webhooks):
                recorder.clear()
        return {}

    def _clock(self, params: Json) -> Json:
        clock = self.emulator.clock
        if params.get("unfreeze"):
            clock.unfreeze()
        if "freezeAtMs" in params:
            clock.freeze(int(params["freezeAtMs"]))
        elif params.get("freeze"):
            clock.freeze()
        if "advanceSeconds" in params:
            clock.advance(float(params["advanceSeconds"]))
        return {"nowMs": clock.now_ms(), "frozen": clock.frozen}

    def _calls(self, params: Json) -> Json:
        filters = {
            "operation": params.get("operation"),
            "status": params.get("status"),
            "user_id": params.get("userId"),
            "organization_id": params.get("organizationId"),
        }
        calls = self.emulator.world.calls.filter(**{k: v for k, v in filters.items() if v})
        return {"calls": [call_json(call) for call in calls]}

    def _calls_clear(self, params: Json) -> Json:
        self.emulator.world.calls.clear()
        return {}

    def _faults(self, params: Json) -> Json:
        faults = self.emulator.world.faults
        options = {
            "count": int(params.get("count", 1)),
            "status": params.get("status"),
            "code": params.get("code"),
            "message": params.get("message"),
            "turnkey_error_code": params.get("turnkeyErrorCode", ""),
            "activity_status": params.get("activityStatus"),
            "organization_id": params.get("organizationId"),
        }
        faults.fail_next(params.get("operation"), **options)
        return {"pending": [jsonable(rule) for rule in faults.pending()]}

    def _faults_clear(self, params: Json) -> Json:
        self.emulator.world.faults.clear()
        return {}

    def _outbox(self, params: Json) -> Json:
        filters = {
            "channel": params.get("channel"),
            "to": params.get("to"),
            "template": params.get("template"),
            "organization_id": params.get("organizationId"),
        }
        outbox = self.emulator.world.outbox
        return outbox.to_json(**{k: v for k, v in filters.items() if v})

    def _outbox_clear(self, params: Json) -> Json:
        self.emulator.world.outbox.clear()
        return {}

    def _oauth2_clients(self, params: Json) -> Json:
        client = self.emulator.oauth2.register_client(
            params.get("provider", "OAUTH2_PROVIDER_X"),
            client_id=params.get("clientId"),
            client_secret=params.get("clientSecret"),
            redirect_uris=tuple(params.get("redirectUris", ())),
        )
        return {
            "provider": client.provider,
            "clientId": client.client_id,
            "clientSecret": client.client_secret,
        }

    def _oauth2_authorize(self, params: Json) -> Json:
        world = self.emulator.world
        client = world.oauth2_clients.get((params["provider"], params["clientId"]))
        if client is None:
            raise ControlError(404, f"no OAuth 2.0 client {params['clientId']!r}")
        code = self.emulator.oauth2.authorize(
            client,
            user_id=str(params["userId"]),
            redirect_uri=params["redirectUri"],
            code_challenge=params["codeChallenge"],
            code_challenge_method=params.get("codeChallengeMethod", "S256"),
            expires_in=int(params.get("expiresInSeconds", 600)),
        )
        return {"code": code}

    def _auth_proxy(self, params: Json) -> Json:
        return {"configs": [c.to_json() for c in self.emulator.auth_proxy.configs()]}

    def _auth_proxy_configure(self, params: Json) -> Json:
        proxy = self.emulator.auth_proxy
        config_id = params.pop("configId", None)
        if config_id is None:
            return proxy.configure(params).to_json()
        if proxy.config(config_id) is None:
            raise ControlError(404, f"no Auth Proxy config {config_id!r}")
        return proxy.update(config_id, params).to_json()

    def _webhooks(self, params: Json) -> Json:
        filters = {
            "endpoint_id": params.get("endpointId"),
            "event_type": params.get("eventType"),
            "state": params.get("state"),
            "organization_id": params.get("organizationId"),
        }
        webhooks = self.emulator.world.webhooks
        return webhooks.to_json(**{k: v for k, v in filters.items() if v})

    def _webhooks_clear(self, params: Json) -> Json:
        self.emulator.world.webhooks.clear()
        return {}

    def _webhooks_run(self, params: Json) -> Json:
        webhooks = self.emulator.world.webhooks
        if "synchronous" in params:
            webhooks.synchronous = bool(params["synchronous"])
        done = webhooks.wait(float(params.get("timeoutSeconds", 10)))
        return {"settled": done, "synchronous": webhooks.synchronous}

    def _onramp_settle(self, params: Json) -> Json:
        try:
            return self.emulator.onramp.settle(
                params.get("onRampTransactionId"), params.get("outcome"), params.get("fiatAmount")
            )
        except TurnkeyApiError as error:
            raise ControlError(error.status, error.message) from None

    def _onramp_quote(self, params: Json) -> Json:
        options = {
            "network": params.get("network"),
            "crypto_currency_code": params.get("cryptoCurrencyCode"),
            "fiat_currency_amount": params.get("fiatCurrencyAmount"),
            "onramp_provider": params.get("onrampProvider", "FIAT_ON_RAMP_PROVIDER_MOONPAY"),
            "fiat_currency_code": params.get("fiatCurrencyCode", "FIAT_ON_RAMP_CURRENCY_USD"),
            "payment_method": params.get("paymentMethod"),
            "sandbox_mode": bool(params.get("sandboxMode", True)),
            "organization_id": params.get("organizationId"),
        }
        try:
            return {"quoteId": self.emulator.onramp.quote(**options)}
        except TurnkeyApiError as error:
            raise ControlError(error.status, error.message) from None

    def _rate_limits(self, params: Json) -> Json:
        settings = self.emulator.settings
        if "plan" in params:
            plan = params["plan"]
            settings.rate_limits = None if plan is None else plan_named(plan).name
            self.emulator.world.rate_limits = None  # fresh buckets
        plans = [{"name": p.name, "title": p.title, "rps": p.rps} for p in PLANS.values()]
        return {
            "plan": settings.rate_limits,
            "plans": plans,
            "bucketSeconds": BUCKET_SECONDS,
            "subOrganizationRps": SUB_ORGANIZATION_RPS,
            "endpointRps": dict(ENDPOINT_RPS),
        }

    def _tvc(self, params: Json) -> Json:
        from ..recorders.tvc_runtime import configure

        world = self.emulator.world
        with world.lock:
            return configure(world.tvc, params, world.clock.now_ns())

    _ACTIONS = {
        "health": _health,
        "info": _info,
        "reset": _reset,
        "snapshot": _snapshot,
        "restore": _restore,
        "clock": _clock,
        "calls": _calls,
        "calls/clear": _calls_clear,
        "faults": _faults,
        "faults/clear": _faults_clear,
        "outbox": _outbox,
        "outbox/clear": _outbox_clear,
        "oauth2/clients": _oauth2_clients,
        "oauth2/authorize": _oauth2_authorize,
        "auth_proxy": _auth_proxy,
        "auth_proxy/configure": _auth_proxy_configure,
        "webhooks": _webhooks,
        "webhooks/clear": _webhooks_clear,
        "webhooks/run": _webhooks_run,
        "rate_limits": _rate_limits,
        "onramp/settle": _onramp_settle,
        "onramp/quote": _onramp_quote,
        "chains/fund": lambda self, params: control_chains.fund_any(self.emulator, params),
        "chains/balance": lambda self, params: control_chains.balance(self.emulator, params),
        "tvc": _tvc,
        "earn/rewards": lambda self, params: control_earn.rewards(self.emulator, params),
        "earn/apy": lambda self, params: control_earn.apy(self.emulator, params),
        "swap/prices": lambda self, p: control_chains.swap_prices(self.emulator.swap, p),
        "swap/fill_failures": lambda self, p: control_chains.swap_fill_failures(
            self.emulator.swap, p
        ),
    }
