"""``python -m emulator serve``: bootstrap an organization and serve the API.

The first line on stdout is one JSON object with ``baseUrl``,
``organizationId``, ``userId``, ``apiPublicKey`` and ``apiPrivateKey`` (the
credentials of the root user, so that a client can talk to the server).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Sequence

from .api import Emulator
from .http.control import Control
from .http.server import base_url, make_api_server


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m emulator", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the API over HTTP (in memory)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8787, help="0 picks a free port")
    serve.add_argument("--api-public-key", help="root API public key (compressed P-256 hex)")
    serve.add_argument("--api-private-key", help="root API private key (hex)")
    serve.add_argument("--organization-name", default="Emulated Organization")
    serve.add_argument("--seed", type=int, help="make ids and keys the same on every run")
    serve.add_argument(
        "--timestamp-window",
        type=float,
        default=600.0,
        help="seconds an activity's timestampMs may be off the clock (0 turns the check off)",
    )
    return parser


def serve(args: argparse.Namespace) -> int:
    emulator = Emulator(seed=args.seed, timestamp_window_s=args.timestamp_window or None)
    try:
        org = emulator.create_organization(
            args.organization_name,
            api_public_key=args.api_public_key,
            api_private_key=args.api_private_key,
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    server = make_api_server(emulator.world, args.host, args.port, Control(emulator))
    print(
        json.dumps(
            {
                "baseUrl": base_url(server),
                "organizationId": org.organization_id,
                "organizationName": org.organization_name,
                "userId": org.user_id,
                "apiKeyId": org.api_key_id,
                "apiPublicKey": org.api_public_key,
                "apiPrivateKey": org.api_private_key or None,
            }
        ),
        flush=True,
    )

    def stop(signum: int, frame: object) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever(poll_interval=0.1)
    finally:
        server.server_close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return serve(args)
