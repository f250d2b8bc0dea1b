"""Webhook deliveries: what a subscribed endpoint adds to an activity, and deliveries a second.

**The request path.** The floor is the facade ``sign_raw_payload`` (secp256k1, NO_OP, a new
payload each call, so a new activity) on an emulator with no webhook endpoint. Beside it, in turn, call for call, the
same on an emulator with one endpoint subscribed to ``ACTIVITY_UPDATES`` that points at a
local receiver (another process, ``http.server``): the activity notes the event, and its
commit renders the activity and queues one delivery; the background sender then signs and
POSTs it. Each pair of timed calls (in alternating order) is followed, outside the
timed region, by ``emu.webhooks.wait()`` so that the sender is idle when the next pair
starts: the row is the request's own cost. The issue's goal: the endpoint adds at most 0.1x the activity.

**The added work alone.** ``note`` and the commit hook's ``emit`` for a signature activity
(the subscribed endpoints, a shallow copy of the activity, the event id, the queue), timed by
themselves in turn with the activity on an emulator with no endpoint, less the same
scaffolding without them (an empty transaction, the queue emptied): the same cost, with none
of the noise of two whole requests.

**Back to back.** The same pair with no waiting: the sender works while the next
activities run, and shares the interpreter (the GIL) with them; what a tight loop of
activities pays on a 2-core machine while every one of them is being delivered.

**Deliveries a second.** N signatures are made on an emulator whose endpoint points at the
receiver, their deliveries queued (synchronous, the world's lock held by the loop); then
``run_due()`` makes them all in this thread, the sender's own work (render the activity,
sign, POST): N over that time. The floor is N plain ``urllib`` POSTs of the same body and headers to the same receiver,
one after another, in this process (a new connection each, as the sender makes): the
emulator's rate over the raw rate. Both are taken twice, in turn.

    python bench/events.py            # full run (a minute or two)
    python bench/events.py --quick
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request

from measuring import Goal, in_turn

from emulator import Emulator
from emulator.accounts import account_spec

GOAL = Goal(0.1, "x", inclusive=True, against="the activity")
RECEIVER = r"""
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass

server = HTTPServer(("127.0.0.1", 0), Handler)
server.request_queue_size = 1024
print(server.server_port, flush=True)
server.serve_forever()
"""


def start_receiver() -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([sys.executable, "-c", RECEIVER], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    port = int(process.stdout.readline())
    return process, f"http://127.0.0.1:{port}/turnkey"


class Signer:
    """An emulator with an Ethereum account, and a fresh payload for every call."""

    def __init__(self, url: str | None) -> None:
        self.emu = subscribed(url)
        made = self.emu.create_wallet(
            wallet_name="bench", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
        )
        self.address = made["addresses"][0]
        self.emu.webhooks.wait(30)

    def __call__(self) -> None:
        self.emu.sign_raw_payload(
            sign_with=self.address,
            payload=os.urandom(32).hex(),
            encoding="PAYLOAD_ENCODING_HEXADECIMAL",
            hash_function="HASH_FUNCTION_NO_OP",
        )


def subscribed(url: str | None) -> Emulator:
    emu = Emulator()
    emu.create_organization("Acme")
    if url is not None:
        emu.create_webhook_endpoint(
            url=url, name="bench", subscriptions=[{"eventType": "ACTIVITY_UPDATES"}]
        )
        emu.webhooks.wait(30)
    return emu


def request_path(url: str, reps: int, warmup: int, wait: bool) -> tuple[float, float]:
    plain, hooked = Signer(None), Signer(url)
    if wait:
        samples: list[list[float]] = [[], []]
        for i in range(warmup + reps):
            order = (0, 1) if i % 2 == 0 else (1, 0)  # each goes first after the wait half the time
            for j in order:
                call = (plain, hooked)[j]
                start = time.perf_counter()
                call()
                elapsed = time.perf_counter() - start
                if i >= warmup:
                    samples[j].append(elapsed * 1e6)
            hooked.emu.webhooks.wait(30)
    else:
        samples = in_turn([plain, hooked], reps, warmup)
    hooked.emu.webhooks.wait(60)
    failed = [d for d in hooked.emu.webhooks.deliveries if d.state != "delivered"]
    assert not failed, f"{len(failed)} deliveries not made"
    hooked.emu.close()
    return statistics.median(samples[0]), statistics.median(samples[1])


def commit_work(url: str, reps: int, warmup: int) -> tuple[float, float]:
    """The work an endpoint adds under the world's lock, timed alone: ``note`` and the commit
    hook's ``emit`` (the endpoints subscribed, a shallow copy, the event id, the queue) for a
    signature activity; beside it, in turn, that activity with no endpoint (back to back)."""
    from emulator.events import activity_updates
    from emulator.ground.transaction import Transaction

    plain, hooked = Signer(None), Signer(url)
    emu = hooked.emu
    emu.webhooks.close()
    emu.webhooks.synchronous = True  # queued, never sent: the sender's work is not timed
    hooked()
    world = emu.world
    org = world.store.organizations[emu.organization().organization_id]
    activity = next(reversed(org.activities.values()))

    def added() -> None:
        tx = Transaction()
        activity_updates.note(world, tx, org, activity)
        tx.commit()
        emu.webhooks.clear()  # the sender takes it off the queue

    def scaffolding() -> None:  # the same without the endpoint's work: subtracted
        tx = Transaction()
        tx.commit()
        emu.webhooks.clear()

    samples = in_turn([plain, added, scaffolding], reps, warmup)
    emu.webhooks.clear()
    emu.close()
    net = statistics.median(samples[1]) - statistics.median(samples[2])
    return statistics.median(samples[0]), net


def deliveries_per_second(url: str, count: int) -> tuple[float, float]:
    signer = Signer(url)
    emu = signer.emu
    emu.webhooks.close()  # no background sender from here on
    before = len(emu.webhooks)
    emu.webhooks.synchronous = True
    with emu.world.lock:  # held: the synchronous deliveries wait for its release
        for _ in range(count):
            signer()
    start = time.perf_counter()
    emu.webhooks.run_due()  # the sender's own work, in this thread: render, sign, POST
    emulator_s = time.perf_counter() - start
    delivered = [d for d in emu.webhooks.deliveries[before:] if d.state == "delivered"]
    assert len(delivered) == count
    body, headers = delivered[-1].body, delivered[-1].attempts[-1].headers
    emu.close()
    start = time.perf_counter()
    for _ in range(count):
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        with urllib.request.urlopen(request, timeout=10) as answer:
            answer.read()
    raw_s = time.perf_counter() - start
    return count / emulator_s, count / raw_s


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    reps, warmup, count = (200, 20, 200) if args.quick else (1000, 100, 1000)
    receiver, url = start_receiver()
    try:
        alone = commit_work(url, reps, warmup)
        waited = request_path(url, reps, warmup, wait=True)
        loop = request_path(url, reps, warmup, wait=False)
        rates = [deliveries_per_second(url, count) for _ in range(2)]
    finally:
        receiver.terminate()
        receiver.wait()
    added = (waited[1] - waited[0]) / waited[0]
    added_alone = alone[1] / alone[0]
    added_loop = (loop[1] - loop[0]) / loop[0]
    emulator_rate = statistics.median(r[0] for r in rates)
    raw_rate = statistics.median(r[1] for r in rates)
    report = {
        "load_average": os.getloadavg()[0],
        "activity_us": round(waited[0], 1),
        "activity_with_endpoint_us": round(waited[1], 1),
        "endpoint_adds_x": round(added, 3),
        "commit_work_us": round(alone[1], 2),
        "commit_work_over_activity_x": round(added_alone, 3),
        "goal": str(GOAL),
        "met": GOAL.met(0.0, max(added, added_alone)),
        "back_to_back_activity_us": round(loop[0], 1),
        "back_to_back_with_endpoint_us": round(loop[1], 1),
        "back_to_back_adds_x": round(added_loop, 3),
        "deliveries_per_s": round(emulator_rate),
        "raw_posts_per_s": round(raw_rate),
        "deliveries_over_raw": round(emulator_rate / raw_rate, 3),
    }
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"load average {report['load_average']:.2f}")
    print(
        f"sign_raw_payload: {waited[0]:.1f} µs; with a subscribed endpoint {waited[1]:.1f} µs: "
        f"adds {added:.3f}x the activity (goal {GOAL}: {'met' if report['met'] else 'MISSED'})"
    )
    print(
        f"the endpoint's work under the lock alone: {alone[1]:.2f} µs, "
        f"{added_alone:.3f}x the activity ({alone[0]:.1f} µs, back to back)"
    )
    print(
        f"back to back: {loop[0]:.1f} µs; with the endpoint {loop[1]:.1f} µs: adds "
        f"{added_loop:.3f}x (the sender shares the interpreter)"
    )
    print(
        f"deliveries: {emulator_rate:.0f}/s against {raw_rate:.0f} raw urllib POSTs/s: "
        f"{emulator_rate / raw_rate:.3f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
