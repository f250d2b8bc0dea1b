"""The official SDKs, the in-process interception and the ASGI and WSGI apps with the bodies
of ``test_wire_clients.py``: every size up to just under the body limit, whole and in pieces."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator

import pytest
import requests
from eth_keys import keys
from eth_utils import keccak

from .typescript import typescript_or_skip
from .wire_bodies import (
    LIMIT,
    SIGN_PATH,
    SIZES,
    Live,
    cases,
    check_answer,
    live_server,
    pieces,
    run_async,
)

KEYS = 250  # a real batch: ~35 KB of JSON, past the 32 KiB head limit as one write


@pytest.fixture(scope="module")
def live() -> Iterator[Live]:
    with live_server(LIMIT) as served:
        yield served


def recovers(result: dict | object, payload: str, address: str) -> bool:
    def get(name: str) -> str:
        return result[name] if isinstance(result, dict) else getattr(result, name)

    signature = keys.Signature(vrs=(int(get("v"), 16), int(get("r"), 16), int(get("s"), 16)))
    public = signature.recover_public_key_from_msg_hash(keccak(payload.encode()))
    return public.to_checksum_address() == address


def key_batch(prefix: str) -> list[dict]:
    return [
        {
            "privateKeyName": f"{prefix}-signing-key-{i:03}",
            "curve": "CURVE_SECP256K1",
            "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
            "privateKeyTags": [],
        }
        for i in range(KEYS)
    ]


def test_the_official_python_sdk_sends_every_size_and_a_batch_of_250_keys(live):
    pytest.importorskip("turnkey_http")
    from turnkey_sdk_types.generated.types import CreatePrivateKeysBody, SignRawPayloadBody

    client = live.emu.client(live.signing.org, base_url=live.server.base_url)
    for size in SIZES[1:]:
        payload = "p" * (size - 400)  # the SDK's body is about 300 bytes besides
        answer = client.sign_raw_payload(
            SignRawPayloadBody(
                signWith=live.signing.address,
                payload=payload,
                encoding="PAYLOAD_ENCODING_TEXT_UTF8",
                hashFunction="HASH_FUNCTION_KECCAK256",
            )
        )
        assert recovers(answer, payload, live.signing.address), size
    batch = key_batch("py")
    assert len(json.dumps({"parameters": {"privateKeys": batch}})) > 32 * 1024
    made = client.create_private_keys(CreatePrivateKeysBody(privateKeys=batch))
    assert len(made.privateKeys) == KEYS
    assert all(key.addresses[0].address.startswith("0x") for key in made.privateKeys)


def test_the_official_typescript_client_sends_every_size_and_a_batch_of_250_keys(live):
    ts = typescript_or_skip()
    org = live.signing.org
    common = {
        "op": "call",
        "baseUrl": live.server.base_url,
        "apiPublicKey": org.api_public_key,
        "apiPrivateKey": org.api_private_key,
    }
    payloads = ["p" * (size - 400) for size in SIZES[1:]]
    now = int(time.time() * 1000)
    commands = [
        {
            **common,
            "method": "signRawPayload",
            "body": {
                "type": "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
                "timestampMs": str(now + i),
                "organizationId": org.organization_id,
                "parameters": {
                    "signWith": live.signing.address,
                    "payload": payload,
                    "encoding": "PAYLOAD_ENCODING_TEXT_UTF8",
                    "hashFunction": "HASH_FUNCTION_KECCAK256",
                },
            },
        }
        for i, payload in enumerate(payloads)
    ]
    commands.append(
        {
            **common,
            "method": "createPrivateKeys",
            "body": {
                "type": "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
                "timestampMs": str(now + 99),
                "organizationId": org.organization_id,
                "parameters": {"privateKeys": key_batch("ts")},
            },
        }
    )
    *signed, made = ts.run(commands)
    for answer, payload in zip(signed, payloads, strict=True):
        assert not isinstance(answer, Exception), answer
        check_answer(200, answer, payload, live.signing.address)
    assert not isinstance(made, Exception), made
    keys_made = made["activity"]["result"]["createPrivateKeysResultV2"]["privateKeys"]
    assert len(keys_made) == KEYS


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_the_same_bodies_through_the_interception(live, stream):
    base = "http://intercepted.example"
    with live.emu.intercept(base), requests.Session() as session:
        for body, headers, payload in cases(live.signing):
            answer = session.post(base + SIGN_PATH, data=pieces(body) if stream else body,
                                  headers=headers, timeout=60)  # fmt: skip
            check_answer(answer.status_code, answer.json(), payload, live.signing.address)


def asgi_call(app, body: bytes, headers: dict[str, str], stream: bool) -> tuple[int, dict]:
    parts = list(pieces(body)) if stream else [body]
    messages = [
        {"type": "http.request", "body": part, "more_body": i < len(parts) - 1}
        for i, part in enumerate(parts or [b""])
    ]
    sent: list[dict] = []
    wire_headers = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    if not stream:
        wire_headers.append((b"content-length", str(len(body)).encode()))
    else:
        wire_headers.append((b"transfer-encoding", b"chunked"))
    scope = {"type": "http", "method": "POST", "path": SIGN_PATH, "headers": wire_headers}

    async def receive():
        return messages.pop(0)

    async def send(message):
        sent.append(message)

    run_async(lambda: app(scope, receive, send))
    status = sent[0]["status"]
    return status, json.loads(b"".join(m.get("body", b"") for m in sent[1:]))


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_the_same_bodies_through_the_asgi_app(live, stream):
    app = live.emu.asgi_app
    for body, headers, payload in cases(live.signing):
        status, answer = asgi_call(app, body, headers, stream)
        check_answer(status, answer, payload, live.signing.address)


class Trickle(io.RawIOBase):
    """A WSGI input that hands out at most a few KiB a read, as a socket would."""

    def __init__(self, data: bytes) -> None:
        self.data = io.BytesIO(data)

    def read(self, size: int = -1) -> bytes:
        return self.data.read(min(size, 3000) if size >= 0 else 3000)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_the_same_bodies_through_the_wsgi_app(live, stream):
    app = live.emu.wsgi_app
    for body, headers, payload in cases(live.signing):
        environ = {
            "REQUEST_METHOD": "POST",
            "PATH_INFO": SIGN_PATH,
            "CONTENT_TYPE": headers["Content-Type"],
            "HTTP_X_STAMP": headers["X-Stamp"],
        }
        if stream:  # a chunked body the server decodes and ends itself
            environ.update(HTTP_TRANSFER_ENCODING="chunked", **{"wsgi.input_terminated": True})
            environ["wsgi.input"] = Trickle(body)
        else:
            environ.update(CONTENT_LENGTH=str(len(body)), **{"wsgi.input": io.BytesIO(body)})
        seen: list[str] = []
        payload_bytes = b"".join(app(environ, lambda status, _h, seen=seen: seen.append(status)))
        status = int(seen[0].split()[0])
        check_answer(status, json.loads(payload_bytes), payload, live.signing.address)


def test_the_wsgi_app_refuses_a_chunked_body_past_the_limit(live):
    app = live.emu.wsgi_app
    limit = app.site.options.max_body_bytes
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": SIGN_PATH,
        "HTTP_TRANSFER_ENCODING": "chunked",
        "wsgi.input_terminated": True,
        "wsgi.input": Trickle(b"x" * (limit + 1)),
    }
    seen: list[str] = []
    answer = json.loads(b"".join(app(environ, lambda status, _h: seen.append(status))))
    assert seen[0].startswith("413") and answer["code"] == 8
