"""sign_raw_payload against one raw signature of the same curve, measured in the same run.

secp256k1 (an Ethereum wallet account, a HEXADECIMAL 32-byte digest, KECCAK256 or
NO_OP) through the facade, the official SDK in-process and the SDK over HTTP, each
divided by one ``coincurve`` ``sign_recoverable`` over a 32-byte digest with the key
object built once. Ed25519 (a Solana wallet account, NOT_APPLICABLE) through the
facade, divided by one PyNaCl ``SigningKey.sign`` of 32 bytes. Each floor is taken
in two halves, before and after the calls it divides (see ``SigningBench``).

Every timed call signs a different payload, so each one is a new activity even
when the SDK's millisecond timestamp repeats; the count of activities is checked.

Run alone (``python bench/signing.py [--quick] [--json]``) it prints the facade rows and
one more: the facade's NO_OP signature and the coincurve floor called in turn, call for
call, the medians' ratio (issue 28, item 4's figure; the goal ≤ 3).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
from dataclasses import dataclass
from typing import Any

import coincurve
from Crypto.Hash import keccak
from measuring import Goal, Result, calls_made, floor_row, in_turn, measure, quantile
from nacl.signing import SigningKey, VerifyKey

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.http.server import serving

HEXADECIMAL = "PAYLOAD_ENCODING_HEXADECIMAL"
KECCAK256 = "HASH_FUNCTION_KECCAK256"
NO_OP = "HASH_FUNCTION_NO_OP"
NOT_APPLICABLE = "HASH_FUNCTION_NOT_APPLICABLE"
K1 = "k1 sign"  # the floor's short name in the table
ED = "ed sign"
FACADE_GOAL = Goal(3, "x", inclusive=True, against=K1)


@dataclass(frozen=True)
class Reps:
    floor: int  # per half
    facade: int
    sdk: int
    http: int


FULL = Reps(floor=3000, facade=3000, sdk=2000, http=1000)
QUICK = Reps(floor=100, facade=100, sdk=20, http=10)


def digest(tag: str, i: int) -> bytes:
    return hashlib.sha256(f"{tag}-{i}".encode()).digest()


class RawSigners:
    """The floors: one raw signature per call, keys and messages built once."""

    def __init__(self) -> None:
        self.k1 = coincurve.PrivateKey(digest("k1 key", 0))
        self.ed = SigningKey(digest("ed key", 0))
        self.digest = digest("message", 0)

    def k1_sign(self) -> None:
        self.k1.sign_recoverable(self.digest, hasher=None)

    def ed_sign(self) -> None:
        self.ed.sign(self.digest)

    def keccak(self) -> None:
        keccak.new(digest_bits=256, data=self.digest).digest()


class SigningOrg:
    """An emulator with one wallet: an Ethereum account and a Solana account, both index 0."""

    def __init__(self) -> None:
        self.emu = Emulator()
        self.org = self.emu.create_organization("Acme")
        made = self.emu.create_wallet(
            wallet_name="signing",
            accounts=[
                account_spec("ADDRESS_FORMAT_ETHEREUM", 0),
                account_spec("ADDRESS_FORMAT_SOLANA", 0),
            ],
        )
        self.eth, self.sol = made["addresses"]

    def activities(self) -> int:
        return len(self.emu.world.store.organizations[self.org.organization_id].activities)

    def check_new(self, before: int, calls: int, what: str) -> None:
        """Every timed call was a new activity (none deduplicated, none refused)."""
        made = self.activities() - before
        if made != calls:
            raise SystemExit(f"{what}: {calls} sign_raw_payload calls made {made} activities")

    def check_k1(self, signature: Any, message: bytes) -> None:
        """The secp256k1 signature recovers to the Ethereum account's address."""
        raw = bytes.fromhex(signature["r"] + signature["s"]) + bytes([int(signature["v"], 16)])
        public = coincurve.PublicKey.from_signature_and_message(raw, message, hasher=None)
        address = keccak.new(digest_bits=256, data=public.format(compressed=False)[1:]).digest()
        if "0x" + address[-20:].hex() != self.eth.lower():
            raise SystemExit("sign_raw_payload: the signature does not recover to the account")

    def check_ed(self, signature: Any, message: bytes) -> None:
        seed = bytes.fromhex(self.emu.backdoor.private_key(self.sol))
        public: VerifyKey = SigningKey(seed).verify_key
        public.verify(message, bytes.fromhex(signature["r"] + signature["s"]))


def facade_sign(
    s: SigningOrg, reps: int, sign_with: str, hash_function: str, tag: str
) -> list[float]:
    emu = s.emu

    def sign(payload: str) -> None:
        emu.sign_raw_payload(
            sign_with=sign_with, payload=payload, encoding=HEXADECIMAL, hash_function=hash_function
        )

    before = s.activities()
    samples = measure(sign, reps, prepare=lambda i: (digest(tag, i).hex(),))
    s.check_new(before, calls_made(reps), tag)
    return samples


def sdk_sign(s: SigningOrg, client: Any, reps: int, tag: str) -> list[float]:
    from turnkey_sdk_types import SignRawPayloadBody

    def body(i: int) -> tuple[SignRawPayloadBody]:
        return (
            SignRawPayloadBody(
                signWith=s.eth,
                payload=digest(tag, i).hex(),
                encoding=HEXADECIMAL,
                hashFunction=NO_OP,
            ),
        )

    first = client.sign_raw_payload(body(-1)[0])
    assert first.activity.status == "ACTIVITY_STATUS_COMPLETED", first.activity.status
    s.check_k1({"r": first.r, "s": first.s, "v": first.v}, digest(tag, -1))
    before = s.activities()
    samples = measure(client.sign_raw_payload, reps, prepare=body)
    s.check_new(before, calls_made(reps), tag)
    return samples


class SigningBench:
    """The signing rows, taken in steps so that ``run.py`` can place them around the rest.

    The facade rows are taken before the official SDK is imported (its models
    add some 475,000 objects that every full garbage collection then walks),
    the SDK rows after; the floors' halves bracket both.
    """

    def __init__(self, quick: bool) -> None:
        self.reps = QUICK if quick else FULL
        self.raw = RawSigners()
        self.k1: list[float] = []
        self.ed: list[float] = []
        self.samples: dict[str, list[float]] = {}

    def floors(self) -> None:
        """One half of each floor (call it once first and once last)."""
        self.k1 += measure(self.raw.k1_sign, self.reps.floor)
        self.ed += measure(self.raw.ed_sign, self.reps.floor)

    def facade(self) -> None:
        self.samples["keccak"] = measure(self.raw.keccak, self.reps.floor)
        s = SigningOrg()
        message = digest("check", 0)
        payload = message.hex()
        s.check_k1(
            s.emu.sign_raw_payload(
                sign_with=s.eth, payload=payload, encoding=HEXADECIMAL, hash_function=NO_OP
            ),
            message,
        )
        s.check_ed(
            s.emu.sign_raw_payload(
                sign_with=s.sol, payload=payload, encoding=HEXADECIMAL, hash_function=NOT_APPLICABLE
            ),
            message,
        )
        n = self.reps.facade
        self.samples["facade noop"] = facade_sign(s, n, s.eth, NO_OP, "facade-noop")
        self.samples["facade keccak"] = facade_sign(s, n, s.eth, KECCAK256, "facade-keccak")
        self.samples["facade ed"] = facade_sign(s, n, s.sol, NOT_APPLICABLE, "facade-ed25519")

    def sdk(self) -> None:
        """The official SDK in-process, then over HTTP (the SDK must be importable)."""
        s = SigningOrg()
        with s.emu.intercept():
            self.samples["sdk"] = sdk_sign(s, s.emu.client(s.org), self.reps.sdk, "sdk")
        s = SigningOrg()
        with serving(s.emu.world) as url:
            client = s.emu.client(s.org, base_url=url)
            self.samples["http"] = sdk_sign(s, client, self.reps.http, "http")

    def results(self) -> list[Result]:
        half = len(self.k1) // 2
        k1 = floor_row("secp256k1 sign, coincurve (floor)", K1, self.k1[:half], self.k1[half:])
        ed = floor_row("ed25519 sign, PyNaCl (floor)", ED, self.ed[:half], self.ed[half:])
        got = self.samples

        def row(name: str, key: str, floor: Result, goal: Goal | None = None) -> Result:
            return Result(name, got[key], goal, floor=floor.floor, floor_name=floor.floor_name)

        # The tail: the 99th percentile of the facade's calls over the floor's own.
        p99 = Result(
            "facade sign_raw_payload k1 NO_OP, p99 / floor p99",
            [quantile(got["facade noop"], 0.99)],
            FACADE_GOAL,
            floor=quantile(self.k1, 0.99),
            floor_name=f"{K1} p99",
        )
        return [
            k1,
            row("keccak-256 of 32 bytes (reference)", "keccak", k1),
            row("facade sign_raw_payload k1 NO_OP", "facade noop", k1, FACADE_GOAL),
            p99,
            row("facade sign_raw_payload k1 KECCAK256", "facade keccak", k1),  # hashes too
            *(
                row(name, key, k1)
                for name, key in (
                    ("SDK in-process sign_raw_payload k1 NO_OP", "sdk"),
                    ("SDK over HTTP sign_raw_payload k1 NO_OP", "http"),
                )
                if key in got  # measured only by run.py (they import the official SDK)
            ),
            ed,
            row("facade sign_raw_payload ed25519", "facade ed", ed),
        ]


def interleaved(reps: int) -> tuple[list[float], list[float]]:
    """The facade's NO_OP signature and the coincurve floor, call for call (µs each)."""
    s = SigningOrg()
    raw = RawSigners()
    emu = s.emu
    payloads = iter(digest("interleaved", i).hex() for i in range(10**9))

    def facade() -> None:
        emu.sign_raw_payload(
            sign_with=s.eth, payload=next(payloads), encoding=HEXADECIMAL, hash_function=NO_OP
        )

    before = s.activities()
    warmup = max(10, reps // 10)
    floor, ours = in_turn([raw.k1_sign, facade], reps, warmup)
    s.check_new(before, reps + warmup, "interleaved")
    return floor, ours


def main(argv: list[str] | None = None) -> int:
    """The signing rows alone: ``python bench/signing.py [--quick] [--json]``."""
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: tiny counts")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    bench = SigningBench(args.quick)
    bench.floors()
    bench.facade()
    bench.floors()
    floor, ours = interleaved(bench.reps.facade)
    ratio = statistics.median(ours) / statistics.median(floor)
    rows = bench.results()
    rows.insert(
        3,
        Result(
            "facade sign_raw_payload k1 NO_OP, call for call with the floor",
            ours,
            FACADE_GOAL,
            floor=statistics.median(floor),
            floor_name=K1,
        ),
    )
    if args.json:
        print(json.dumps({"load_average": load, "rows": [r.as_json() for r in rows]}, indent=1))
        return 0
    print(f"load average {load[0]:.2f}")
    print("| row | median µs | × floor | floor | goal |")
    print("|---|---|---|---|---|")
    for r in rows:
        goal = f"{r.goal} {r.status}" if r.goal else ""
        print(f"| {r.name} | {r.median:.1f} | {r.ratio:.2f} | {r.floor_name} | {goal} |")
    print()
    means = statistics.mean(ours), statistics.mean(floor)
    print(
        f"means {means[0]:.1f} / {means[1]:.1f} µs ({means[0] / means[1]:.2f}×), "
        f"medians {statistics.median(ours):.1f} / {statistics.median(floor):.1f} µs"
    )
    print(
        f"facade sign_raw_payload NO_OP, call for call: {ratio:.2f}× one coincurve signature "
        f"(goal ≤ {FACADE_GOAL.limit:g})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
