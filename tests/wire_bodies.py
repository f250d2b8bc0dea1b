"""Request bodies of an exact size that round-trip meaningfully: a stamped ``sign_raw_payload``
whose text payload pads it, and the check that the answer signed exactly that payload."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from eth_keys import keys
from eth_utils import keccak

from emulator import Emulator, OrganizationHandle
from emulator.accounts import account_spec
from emulator.crypto.stamps import sign_stamp
from emulator.http.options import WireOptions
from emulator.http.server import ApiServer

T = TypeVar("T")
SIGN_PATH = "/public/v1/submit/sign_raw_payload"
KIB = 1024
MIB = 1024 * KIB
_last_stamp = [0]


def fresh_timestamp_ms() -> int:
    """Now, in ms, and never the same twice (a fresh body each time: no replays)."""
    _last_stamp[0] = max(int(time.time() * 1000), _last_stamp[0] + 1)
    return _last_stamp[0]


def run_async(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to its end in a thread of its own (a test before may have left an
    event loop running in this one)."""
    result: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(asyncio.run(make()))
        except BaseException as error:
            failure.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return result[0]


@dataclass(frozen=True)
class Signing:
    """An organization and one Ethereum address of it, to sign padded payloads with."""

    org: OrganizationHandle
    address: str

    @classmethod
    def of(cls, emu: Emulator, org: OrganizationHandle) -> Signing:
        wallet = emu.create_wallet(
            wallet_name=f"wire-{fresh_timestamp_ms()}",
            accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")],
        )
        return cls(org, wallet["addresses"][0])

    def body(self, size: int) -> tuple[bytes, str]:
        """A ``sign_raw_payload`` body of exactly ``size`` bytes and its payload (``size`` 0:
        the empty body, which the API answers 400)."""
        if size == 0:
            return b"", ""

        def encode(payload: str) -> bytes:
            return json.dumps(
                {
                    "type": "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
                    "timestampMs": str(stamp),
                    "organizationId": self.org.organization_id,
                    "parameters": {
                        "signWith": self.address,
                        "payload": payload,
                        "encoding": "PAYLOAD_ENCODING_TEXT_UTF8",
                        "hashFunction": "HASH_FUNCTION_KECCAK256",
                    },
                }
            ).encode()

        stamp = fresh_timestamp_ms()
        bare = len(encode(""))
        if size <= bare:
            raise ValueError(f"a signing body has at least {bare + 1} bytes")
        payload = "p" * (size - bare)
        body = encode(payload)
        assert len(body) == size
        return body, payload

    def headers(self, body: bytes) -> dict[str, str]:
        return {
            "Content-Type": "application/json",
            "X-Stamp": sign_stamp(body, self.org.api_key).header_value(),
        }


def check_answer(status: int, answer: dict, payload: str, address: str) -> None:
    """The answer to a padded body: 400 for the empty one; else the completed activity that
    signed exactly ``payload`` (the signature recovers ``address``)."""
    if not payload:
        assert status == 400, (status, answer)
        assert answer["code"] == 3 and answer["turnkeyErrorCode"] == "REQUEST_INVALID"
        return
    assert status == 200, (status, str(answer)[:300])
    activity = answer["activity"]
    assert activity["status"] == "ACTIVITY_STATUS_COMPLETED"
    intent = activity["intent"]["signRawPayloadIntentV2"]
    assert len(intent["payload"]) == len(payload) and intent["payload"] == payload
    result = activity["result"]["signRawPayloadResult"]
    signature = keys.Signature(
        vrs=(int(result["v"], 16), int(result["r"], 16), int(result["s"], 16))
    )
    digest = keccak(payload.encode())
    recovered = signature.recover_public_key_from_msg_hash(digest).to_checksum_address()
    assert recovered == address


LIMIT = 2 * MIB  # the body limit of the client tests: light, and every size below is under it
SIZES = (0, 1 * KIB, 31 * KIB, 33 * KIB, 64 * KIB, 1 * MIB, LIMIT - 1)
PIECE = 16 * KIB  # a streamed body's pieces
Case = tuple[bytes, dict[str, str], str]  # body, headers, payload


def cases(signing: Signing) -> list[Case]:
    """A body of every size in ``SIZES``, with its headers and payload."""
    made = []
    for size in SIZES:
        body, payload = signing.body(size)
        made.append((body, signing.headers(body), payload))
    return made


def pieces(body: bytes) -> Iterator[bytes]:
    for at in range(0, len(body), PIECE):
        yield body[at : at + PIECE]


@dataclass
class Live:
    emu: Emulator
    server: ApiServer
    signing: Signing

    @property
    def url(self) -> str:
        return self.server.base_url + SIGN_PATH


@contextmanager
def live_server(limit: int) -> Iterator[Live]:
    """A served emulator (its ``ApiServer``, to count connections) with ``limit``."""
    emu = Emulator(seed=22)
    org = emu.create_organization("Clients")
    server = ApiServer(emu.world, "127.0.0.1", 0, options=WireOptions(max_body_bytes=limit))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Live(emu, server, Signing.of(emu, org))
    finally:
        server.shutdown()
        thread.join(timeout=15)
