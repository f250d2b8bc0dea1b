"""Webhook endpoints and their deliveries (features/webhooks/overview.mdx, verify-signatures.mdx).

A real HTTP receiver on the loopback interface gets the deliveries and checks each signature
with the documented algorithm, written here independently of the emulator (PyNaCl, the
signed input built from the headers and the raw body).
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from emulator import Emulator, TurnkeyApiError
from emulator.accounts import account_spec
from emulator.engine_state.world import Settings
from emulator.ground import messages
from emulator.http.control import Control
from emulator.http.server import serving

from .helpers import add_user, error_of, fails

ACTIVITY_UPDATES = [{"eventType": "ACTIVITY_UPDATES"}]
COMPLETED = "ACTIVITY_STATUS_COMPLETED"


class Receiver:
    """A loopback HTTP server that records each POST and answers the next scripted status
    (200 once the script is used up); a status of ``"slow"`` answers after ``slow_s``."""

    def __init__(self) -> None:
        self.requests: list[tuple[dict[str, str], bytes]] = []
        self.script: list[int | str] = []
        self.slow_s = 1.0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                owner.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                status = owner.script.pop(0) if owner.script else 200
                if status == "slow":
                    time.sleep(owner.slow_s)
                    status = 200
                try:
                    self.send_response(int(status))
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"ok")
                except OSError:
                    pass  # the sender gave up waiting

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/turnkey/webhooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.close()


def verify_delivery(headers: dict[str, str], body: bytes, jwks: dict) -> None:
    """The docs' manual verification: find the key by id, rebuild the signed input, verify."""
    (key,) = [k for k in jwks["keys"] if k["kid"] == headers["x-turnkey-signature-key-id"]]
    public = base64.urlsafe_b64decode(key["x"] + "=" * (-len(key["x"]) % 4))
    assert (key["kty"], key["crv"], key["alg"]) == ("OKP", "Ed25519", "EdDSA")
    assert headers["x-turnkey-signature-algorithm"] == "ed25519"
    assert headers["x-turnkey-signature-version"] == "v1"
    signed = (
        b"v1.ed25519."
        + headers["x-turnkey-signature-key-id"].encode()
        + b"."
        + headers["x-turnkey-timestamp"].encode()
        + b"."
        + headers["x-turnkey-event-id"].encode()
        + b"."
        + body
    )
    VerifyKey(public).verify(signed, bytes.fromhex(headers["x-turnkey-signature"]))


def subscribe(emu: Emulator, url: str, **kwargs) -> str:
    made = emu.create_webhook_endpoint(
        url=url, name="hooks", subscriptions=ACTIVITY_UPDATES, **kwargs
    )
    return made["endpointId"]


# ----- endpoints ---------------------------------------------------------------------------


def test_create_update_list_and_delete_an_endpoint(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    made = emu.create_webhook_endpoint(
        url="https://hooks.example.com/turnkey",
        name="Activity updates",
        subscriptions=[
            {"eventType": "ACTIVITY_UPDATES"},
            {"eventType": "BALANCE_CONFIRMED_UPDATES", "filtersJson": "{}", "isActive": False},
        ],
    )
    assert made["activity"]["status"] == COMPLETED
    assert made["activity"]["type"] == "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT"
    endpoint = made["webhookEndpoint"]
    assert endpoint == {
        "endpointId": made["endpointId"],
        "organizationId": turnkey_org.organization_id,
        "url": "https://hooks.example.com/turnkey",
        "name": "Activity updates",
        "isActive": True,
        "subscriptions": [
            {"eventType": "ACTIVITY_UPDATES", "isActive": True},
            {"eventType": "BALANCE_CONFIRMED_UPDATES", "filtersJson": "{}", "isActive": False},
        ],
    }
    updated = emu.update_webhook_endpoint(
        endpoint_id=made["endpointId"], is_active=False, name="paused"
    )
    assert updated["webhookEndpoint"]["isActive"] is False
    assert updated["webhookEndpoint"]["name"] == "paused"
    assert updated["webhookEndpoint"]["url"] == endpoint["url"]
    assert emu.list_webhook_endpoints()["webhookEndpoints"] == [updated["webhookEndpoint"]]
    assert (
        emu.delete_webhook_endpoint(endpoint_id=made["endpointId"])["endpointId"]
        == made["endpointId"]
    )
    assert emu.list_webhook_endpoints()["webhookEndpoints"] == []
    unknown = fails(emu, emu.delete_webhook_endpoint, endpoint_id=made["endpointId"])
    assert error_of(unknown)[:3] == (
        404,
        5,
        messages.webhook_endpoint_not_found(made["endpointId"], turnkey_org.organization_id),
    )


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://hooks.example.com/x", "must use https"),
        ("ftp://hooks.example.com/x", "must use https"),
        ("https:///x", "must include a valid host"),
        ("https://user:pw@hooks.example.com/x", "must not include user info"),
        ("https://10.1.2.3/x", "must resolve to a public destination (private address)"),
        ("https://192.168.0.10/x", "must resolve to a public destination (private address)"),
        ("https://169.254.169.254/latest", "must not point to a metadata endpoint"),
        ("https://169.254.10.1/x", "must not point to a link-local address"),
        ("https://metadata.google.internal/x", "must not point to a metadata endpoint"),
        ("https://[fe80::1]/x", "must not point to a link-local address"),
        ("https://not_a_host/x", "must include a valid host"),
        ("https://hooks.example.com/a b", "must not contain whitespace"),
    ],
)
def test_urls_the_docs_reject_are_refused(turnkey_emulator, url, reason):
    error = fails(turnkey_emulator, subscribe, turnkey_emulator, url)
    assert error_of(error)[:3] == (400, 3, messages.invalid_webhook_url(reason))


def test_loopback_is_allowed_for_local_receivers_unless_turned_off(turnkey_emulator):
    emu = turnkey_emulator
    for url in ("http://127.0.0.1:9/x", "http://localhost:8080/hooks", "https://[::1]/x"):
        subscribe(emu, url)
    emu.settings.webhook_allow_loopback = False
    error = fails(emu, subscribe, emu, "http://127.0.0.1:9/x")
    assert error.message == messages.invalid_webhook_url(
        "must resolve to a public destination (localhost is not allowed)"
    )


def test_names_and_subscriptions_are_validated(turnkey_emulator):
    emu = turnkey_emulator
    url = "https://hooks.example.com/x"
    blank = fails(
        emu, emu.create_webhook_endpoint, url=url, name="   ", subscriptions=ACTIVITY_UPDATES
    )
    assert blank.message == messages.WEBHOOK_NAME_EMPTY
    none = fails(emu, emu.create_webhook_endpoint, url=url, name="n", subscriptions=[])
    assert none.message == messages.WEBHOOK_SUBSCRIPTIONS_REQUIRED
    twice = fails(
        emu, emu.create_webhook_endpoint, url=url, name="n", subscriptions=ACTIVITY_UPDATES * 2
    )
    assert twice.message == messages.duplicate_webhook_event_type("ACTIVITY_UPDATES")
    lower = fails(
        emu, emu.create_webhook_endpoint, url=url, name="n", subscriptions=[{"eventType": "x"}]
    )
    assert lower.message == messages.invalid_webhook_event_type(0, "x")
    filters = fails(
        emu,
        emu.create_webhook_endpoint,
        url=url,
        name="n",
        subscriptions=[{"eventType": "ACTIVITY_UPDATES", "filtersJson": "[1"}],
    )
    assert filters.message == messages.invalid_webhook_filters(0)
    missing = fails(emu, emu.call, "create_webhook_endpoint", {"name": "n"})
    assert (missing.status, missing.message) == (400, "invalid request (fieldViolations: url)")
    made = subscribe(emu, url)
    bad_update = fails(emu, emu.update_webhook_endpoint, endpoint_id=made, url="https://10.0.0.1/")
    assert bad_update.status == 400


def test_billing_scoped_endpoints_belong_to_the_parent(turnkey_emulator, turnkey_org):
    emu = turnkey_emulator
    sub = emu.create_organization(
        "end user", parent_organization_id=turnkey_org.organization_id
    ).organization_id
    denied = fails(
        emu,
        emu.create_webhook_endpoint,
        organization_id=sub,
        url="https://hooks.example.com/b",
        name="balances",
        subscriptions=[{"eventType": "BALANCE_CONFIRMED_UPDATES"}],
    )
    assert error_of(denied)[:3] == (
        403,
        7,
        messages.webhook_billing_scoped("BALANCE_CONFIRMED_UPDATES"),
    )
    emu.create_webhook_endpoint(
        url="https://hooks.example.com/b",
        name="balances",
        subscriptions=[{"eventType": "BALANCE_CONFIRMED_UPDATES"}],
    )


def test_a_non_root_user_needs_a_policy(turnkey_emulator):
    emu = turnkey_emulator
    _, key = add_user(emu, "ops")
    denied = fails(emu, subscribe, emu, "https://hooks.example.com/x", caller=key)
    assert denied.status == 403
    emu.create_policy(
        policy_name="webhooks",
        effect="EFFECT_ALLOW",
        notes="",
        condition="activity.type == 'ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT'",
    )
    made = subscribe(emu, "https://hooks.example.com/x", caller=key)
    emu.create_policy(
        policy_name="this endpoint",
        effect="EFFECT_ALLOW",
        notes="",
        condition=(
            "activity.resource == 'WEBHOOK_ENDPOINT' && activity.action == 'UPDATE' "
            f"&& activity.params.endpoint_id == '{made}'"
        ),
    )
    updated = emu.update_webhook_endpoint(endpoint_id=made, name="renamed", caller=key)
    assert updated["activity"]["status"] == COMPLETED
    assert fails(emu, emu.delete_webhook_endpoint, endpoint_id=made, caller=key).status == 403


def test_endpoints_survive_a_state_file(tmp_path):
    emu = Emulator(seed=3)
    emu.create_organization()
    endpoint_id = subscribe(emu, "https://hooks.example.com/x")
    path = tmp_path / "state.json"
    emu.save(path)
    again = Emulator.load(path)
    assert again.list_webhook_endpoints()["webhookEndpoints"][0]["endpointId"] == endpoint_id
    assert again.webhooks.jwks() == emu.webhooks.jwks()  # the same signing key


# ----- deliveries ----------------------------------------------------------------------------


def test_a_real_receiver_gets_signed_deliveries(receiver):
    with Emulator(seed=5) as emu:
        org = emu.create_organization()
        endpoint_id = subscribe(emu, receiver.url)
        made = emu.create_wallet(
            wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
        )
        assert emu.webhooks.wait(10)
        assert len(receiver.requests) == 2  # the endpoint's own creation, then the wallet
        headers, body = receiver.requests[-1]
        verify_delivery(headers, body, emu.webhooks.jwks())
        activity = json.loads(body)
        assert activity["id"] == made["activity"]["id"]
        assert activity["type"] == "ACTIVITY_TYPE_CREATE_WALLET"
        assert activity["status"] == COMPLETED
        assert activity["result"]["createWalletResult"]["addresses"] == made["addresses"]
        assert headers["content-type"] == "application/json"
        assert headers["x-turnkey-organization-id"] == org.organization_id
        assert headers["x-turnkey-event-type"] == "ACTIVITY_UPDATES"
        assert headers["x-turnkey-webhook-version"] == "1"
        assert int(headers["x-turnkey-timestamp"]) <= emu.clock.now_ms()
        delivery = emu.webhooks.last()
        assert (delivery.state, delivery.endpoint_id, delivery.body) == (
            "delivered",
            endpoint_id,
            body,
        )
        assert [(a.number, a.status, a.error) for a in delivery.attempts] == [(1, 200, None)]
        tampered = body.replace(b"COMPLETED", b"FAILED")
        with pytest.raises(BadSignatureError):
            verify_delivery(headers, tampered, emu.webhooks.jwks())


def test_the_event_id_is_stable_and_retries_are_signed_afresh_on_the_clock(receiver):
    with Emulator(seed=5, settings=Settings(webhook_synchronous=True)) as emu:
        emu.create_organization()
        emu.clock.freeze()
        subscribe(emu, receiver.url)
        receiver.requests.clear()
        receiver.script = [503, 500]
        emu.create_wallet(wallet_name="w", accounts=[])
        delivery = emu.webhooks.last()
        assert [a.status for a in delivery.attempts] == [503]
        assert delivery.state == "pending"
        emu.clock.advance(4.9)  # the first retry is 5 s later on the emulator's clock
        assert len(delivery.attempts) == 1
        emu.clock.advance(0.1)
        assert [a.status for a in delivery.attempts] == [503, 500]
        emu.clock.advance(30)
        assert [a.status for a in delivery.attempts] == [503, 500, 200]
        assert delivery.state == "delivered"
        ids = {h["x-turnkey-event-id"] for h, _ in receiver.requests}
        stamps = [int(h["x-turnkey-timestamp"]) for h, _ in receiver.requests]
        assert len(ids) == 1 and stamps[1] - stamps[0] == 5000 and stamps[2] - stamps[1] == 30000
        for headers, body in receiver.requests:
            verify_delivery(headers, body, emu.webhooks.jwks())


def test_retries_stop_after_the_schedule_and_4xx_is_terminal(receiver):
    settings = Settings(webhook_synchronous=True, webhook_retry_delays_s=(1.0, 2.0))
    with Emulator(seed=5, settings=settings) as emu:
        emu.create_organization()
        emu.clock.freeze()
        subscribe(emu, receiver.url)
        receiver.script = [500, 500, 500, 500]
        emu.create_wallet(wallet_name="w", accounts=[])
        delivery = emu.webhooks.last()
        emu.clock.advance(10)
        emu.clock.advance(10)
        assert [a.status for a in delivery.attempts] == [500, 500, 500]
        assert delivery.state == "failed"
        for terminal in (404, 429, 301):
            receiver.script = [terminal]
            emu.create_wallet(wallet_name=f"w{terminal}", accounts=[])
            emu.clock.advance(60)
            assert [a.status for a in emu.webhooks.last().attempts] == [terminal]
            assert emu.webhooks.last().state == "failed"


def test_a_timeout_is_retried(receiver):
    settings = Settings(webhook_synchronous=True, webhook_timeout_s=0.2)
    with Emulator(seed=5, settings=settings) as emu:
        emu.create_organization()
        emu.clock.freeze()
        subscribe(emu, receiver.url)
        receiver.slow_s = 1.0
        receiver.script = ["slow"]
        emu.create_wallet(wallet_name="w", accounts=[])
        delivery = emu.webhooks.last()
        assert delivery.attempts[0].error == "timed out" and delivery.state == "pending"
        emu.clock.advance(5)
        assert delivery.attempts[1].status == 200 and delivery.state == "delivered"


def test_a_network_error_is_retried():
    settings = Settings(webhook_synchronous=True)
    with Emulator(seed=5, settings=settings) as emu:
        emu.create_organization()
        emu.clock.freeze()
        closed = Receiver()
        url = closed.url
        closed.close()  # nothing listens there any more
        subscribe(emu, url)
        delivery = emu.webhooks.last()
        assert delivery.attempts[0].error.startswith("network error")
        assert delivery.state == "pending" and delivery.due_ns == emu.clock.now_ns() + 5 * 10**9


def test_no_delivery_for_a_failed_request_and_none_while_waiting_on_the_world(receiver):
    with Emulator(seed=5) as emu:
        emu.create_organization()
        subscribe(emu, receiver.url)
        emu.webhooks.wait(10)
        before = len(emu.webhooks)
        with pytest.raises(TurnkeyApiError):
            emu.create_wallet(
                wallet_name="w",
                accounts=[{**account_spec("ADDRESS_FORMAT_ETHEREUM"), "path": "nope"}],
            )
        emu.faults.fail_next("create_wallet", status=503)
        with pytest.raises(TurnkeyApiError):
            emu.create_wallet(wallet_name="w2", accounts=[])
        emu.webhooks.wait(10)
        assert len(emu.webhooks) == before  # rolled back: nothing to tell


def test_an_activity_never_waits_for_a_slow_receiver(receiver):
    with Emulator(seed=5) as emu:
        emu.create_organization()
        subscribe(emu, receiver.url)
        emu.webhooks.wait(10)
        receiver.slow_s = 2.0
        receiver.script = ["slow"]
        started = time.monotonic()
        emu.create_wallet(wallet_name="w", accounts=[])
        emu.get_whoami()
        elapsed = time.monotonic() - started
        # a generous bound: the request path never includes the receiver's 2 s
        assert elapsed < 1.5
        assert emu.webhooks.wait(10)
        assert emu.webhooks.last().attempts[0].status == 200


def test_status_changes_after_consensus_are_delivered():
    with Emulator(seed=5, settings=Settings(webhook_synchronous=True)) as emu:
        emu.create_organization()
        got = []
        emu.webhooks.route(
            "https://hooks.example.com/x", lambda request: got.append(request.json())
        )
        subscribe(emu, "https://hooks.example.com/x")
        _, ann_key = add_user(emu, "ann")
        _, bob_key = add_user(emu, "bob")
        emu.create_policy(
            policy_name="two",
            effect="EFFECT_ALLOW",
            notes="",
            condition="activity.resource == 'WALLET'",
            consensus="approvers.count() >= 2",
        )
        got.clear()
        proposal = emu.create_wallet(wallet_name="shared", accounts=[], caller=ann_key)["activity"]
        emu.approve_activity(fingerprint=proposal["fingerprint"], caller=bob_key)
        assert [(a["id"], a["status"]) for a in got] == [
            (proposal["id"], "ACTIVITY_STATUS_CONSENSUS_NEEDED"),
            (proposal["id"], COMPLETED),
        ]
        rejected = emu.create_wallet(wallet_name="no", accounts=[], caller=ann_key)["activity"]
        emu.reject_activity(fingerprint=rejected["fingerprint"], caller=bob_key)
        assert got[-1]["status"] == "ACTIVITY_STATUS_REJECTED"
        assert len({d.event_id for d in emu.webhooks}) == len(emu.webhooks)


def test_a_faulted_activity_is_delivered_in_its_status():
    with Emulator(seed=5, settings=Settings(webhook_synchronous=True)) as emu:
        emu.create_organization()
        got = []
        emu.webhooks.route("https://hooks.example.com/x", lambda request: got.append(request))
        subscribe(emu, "https://hooks.example.com/x")
        emu.faults.fail_next("create_wallet", activity_status="ACTIVITY_STATUS_FAILED")
        emu.create_wallet(wallet_name="w", accounts=[])
        assert got[-1].json()["status"] == "ACTIVITY_STATUS_FAILED"
        assert got[-1].headers["X-Turnkey-Event-Type"] == "ACTIVITY_UPDATES"


def test_parent_endpoints_hear_sub_organizations_and_not_the_other_way():
    with Emulator(seed=5, settings=Settings(webhook_synchronous=True)) as emu:
        parent = emu.create_organization()
        sub = emu.create_organization(
            "end user", parent_organization_id=parent.organization_id
        ).organization_id
        heard: dict[str, list] = {"parent": [], "sub": []}
        for who in heard:
            emu.webhooks.route(
                f"https://{who}.example.com/", lambda r, who=who: heard[who].append(r)
            )
        subscribe(emu, "https://parent.example.com/")
        emu.create_webhook_endpoint(
            organization_id=sub,
            url="https://sub.example.com/",
            name="sub",
            subscriptions=ACTIVITY_UPDATES,
        )
        heard["parent"].clear()
        heard["sub"].clear()
        emu.create_wallet(wallet_name="parent's", accounts=[])
        emu.create_wallet(wallet_name="sub's", accounts=[], organization_id=sub)
        parent_heard = [r.json()["organizationId"] for r in heard["parent"]]
        assert parent_heard == [parent.organization_id, sub]
        assert [r.json()["organizationId"] for r in heard["sub"]] == [sub]
        routed = heard["parent"][1].headers["X-Turnkey-Organization-Id"]
        assert routed == parent.organization_id  # routed to the endpoint's organization


def test_inactive_endpoints_and_subscriptions_get_nothing():
    with Emulator(seed=5, settings=Settings(webhook_synchronous=True)) as emu:
        emu.create_organization()
        got = []
        emu.webhooks.route("https://hooks.example.com/x", lambda r: got.append(r))
        endpoint = subscribe(emu, "https://hooks.example.com/x")
        emu.create_webhook_endpoint(
            url="https://hooks.example.com/x",
            name="off",
            subscriptions=[{"eventType": "ACTIVITY_UPDATES", "isActive": False}],
        )
        got.clear()
        emu.update_webhook_endpoint(endpoint_id=endpoint, is_active=False)
        emu.create_wallet(wallet_name="w", accounts=[])
        assert got == []


def test_an_unrouted_public_url_is_never_contacted():
    with Emulator(seed=5, settings=Settings(webhook_synchronous=True)) as emu:
        emu.create_organization()
        subscribe(emu, "https://hooks.example.com/x")
        delivery = emu.webhooks.last()
        assert delivery.state == "failed"
        assert delivery.attempts[0].error.startswith("not sent: the emulator reaches no host")


def test_a_receiver_that_raises_is_retried_and_answers_are_recorded():
    with Emulator(seed=5, settings=Settings(webhook_synchronous=True)) as emu:
        emu.create_organization()
        emu.clock.freeze()
        answers = iter([RuntimeError("boom"), (202, "queued")])

        def flaky(request):
            answer = next(answers)
            if isinstance(answer, Exception):
                raise answer
            return answer

        emu.webhooks.route("https://hooks.example.com/x", flaky)
        subscribe(emu, "https://hooks.example.com/x")
        delivery = emu.webhooks.last()
        assert delivery.attempts[0].error == "receiver raised RuntimeError"
        emu.clock.advance(5)
        assert (delivery.attempts[1].status, delivery.attempts[1].answer) == (202, "queued")
        assert delivery.state == "delivered"


def test_a_route_to_a_local_url(receiver):
    with Emulator(seed=5, settings=Settings(webhook_synchronous=True)) as emu:
        emu.create_organization()
        emu.webhooks.route("https://hooks.example.com/x", receiver.url)
        subscribe(emu, "https://hooks.example.com/x")
        assert emu.webhooks.last().state == "delivered"
        headers, body = receiver.requests[-1]
        verify_delivery(headers, body, emu.webhooks.jwks())


def test_reset_and_close_stop_cleanly(receiver):
    emu = Emulator(seed=5)
    emu.create_organization()
    emu.clock.freeze()
    subscribe(emu, receiver.url)
    assert emu.webhooks.wait(10)
    receiver.script = [500]
    emu.create_wallet(wallet_name="w", accounts=[])
    assert emu.webhooks.wait(10)  # the retry waits on the frozen clock
    assert emu.webhooks.last().state == "pending"
    emu.reset()
    assert len(emu.webhooks) == 0
    sender = emu.webhooks._thread
    emu.close()
    emu.close()  # idempotent
    assert sender is not None and not sender.is_alive()


# ----- the wire --------------------------------------------------------------------------------


@pytest.fixture
def controlled_server(turnkey_emulator) -> Iterator[str]:
    with serving(turnkey_emulator.world, control=Control(turnkey_emulator)) as url:
        yield url


def test_the_jwks_and_the_control_endpoints(turnkey_emulator, controlled_server):
    import requests

    emu, live_server = turnkey_emulator, controlled_server
    jwks = requests.get(live_server + "/public/v1/discovery/webhooks/jwks", timeout=10)
    assert jwks.status_code == 200 and jwks.json() == emu.webhooks.jwks()
    (key,) = jwks.json()["keys"]
    assert key["kid"] == emu.webhooks.verification_key["keyId"]
    raw = base64.urlsafe_b64decode(key["x"] + "=" * (-len(key["x"]) % 4))
    assert raw.hex() == emu.webhooks.verification_key["publicKey"]
    settle = requests.post(
        live_server + "/emulator/v1/webhooks/run", json={"synchronous": True}, timeout=10
    )
    assert settle.json() == {"settled": True, "synchronous": True}
    subscribe(emu, "https://hooks.example.com/x")
    listed = requests.get(live_server + "/emulator/v1/webhooks", timeout=10).json()["deliveries"]
    assert [(d["eventType"], d["state"], d["url"]) for d in listed] == [
        ("ACTIVITY_UPDATES", "failed", "https://hooks.example.com/x")
    ]
    assert json.loads(listed[0]["body"])["type"] == "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT"
    assert listed[0]["attempts"][0]["headers"]["X-Turnkey-Event-Type"] == "ACTIVITY_UPDATES"
    requests.post(live_server + "/emulator/v1/webhooks/clear", json={}, timeout=10)
    assert requests.get(live_server + "/emulator/v1/webhooks", timeout=10).json() == {
        "deliveries": []
    }


def test_the_python_sdk_manages_endpoints_and_reads_boot_proofs(turnkey_client, turnkey_org):
    from turnkey_sdk_types import (
        CreateWebhookEndpointBody,
        DeleteWebhookEndpointBody,
        GetLatestBootProofBody,
        ListWebhookEndpointsBody,
        UpdateWebhookEndpointBody,
    )

    made = turnkey_client.create_webhook_endpoint(
        CreateWebhookEndpointBody(
            url="https://hooks.example.com/sdk",
            name="sdk",
            subscriptions=[{"eventType": "ACTIVITY_UPDATES"}],
        )
    )
    assert made.activity.status == COMPLETED
    endpoint_id = made.activity.result.createWebhookEndpointResult.endpointId
    turnkey_client.update_webhook_endpoint(
        UpdateWebhookEndpointBody(endpointId=endpoint_id, isActive=False)
    )
    (listed,) = turnkey_client.list_webhook_endpoints(ListWebhookEndpointsBody()).webhookEndpoints
    assert (listed.endpointId, listed.isActive, listed.organizationId) == (
        endpoint_id,
        False,
        turnkey_org.organization_id,
    )
    turnkey_client.delete_webhook_endpoint(DeleteWebhookEndpointBody(endpointId=endpoint_id))
    boot = turnkey_client.get_latest_boot_proof(GetLatestBootProofBody(appName="signer"))
    assert boot.bootProof.enclaveApp == "signer"


def test_requests_through_the_sdk_are_delivered_in_the_background(sdk, turnkey_emulator, receiver):
    from turnkey_sdk_types import CreateWalletBody, CreateWebhookEndpointBody

    emu = turnkey_emulator
    sdk.create_webhook_endpoint(
        CreateWebhookEndpointBody(url=receiver.url, name="sdk", subscriptions=ACTIVITY_UPDATES)
    )
    made = sdk.create_wallet(CreateWalletBody(walletName="over the wire", accounts=[]))
    assert emu.webhooks.wait(10)
    headers, body = receiver.requests[-1]
    verify_delivery(headers, body, emu.webhooks.jwks())
    delivered = json.loads(body)
    assert (delivered["id"], delivered["status"]) == (made.activity.id, COMPLETED)
    # a request through the wire records its real stamp in the delivered vote
    assert delivered["votes"][0]["signature"] != ""
