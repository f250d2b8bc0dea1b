"""``python -m emulator serve``: bootstrap an organization and serve the API.

The first line on stdout is one JSON object with ``baseUrl``,
``organizationId``, ``userId``, ``apiPublicKey`` and ``apiPrivateKey`` (the
credentials of the root user, so that a client can talk to the server), and
the enclave's ``signerPublicKey``, ``notarizerPublicKey`` and
``tlsFetcherPublicKey`` (uncompressed P-256 hex) for the SDKs' key overrides.

In memory by default. ``--state PATH`` keeps everything in a SQLite file
(``state/persistence.py``): each request that changes state is on disk before
it is answered, and a restart comes back with the same organization, root key
and everything else. Control endpoints (``/emulator/v1/...``) are served too.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Sequence

from .api import Emulator, OrganizationHandle
from .http.control import Control
from .http.server import base_url, make_api_server
from .state.persistence import StateFile


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m emulator" if sys.argv[0].endswith("__main__.py") else None,
        description=__doc__,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the API over HTTP (in memory)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8787, help="0 picks a free port")
    serve.add_argument("--api-public-key", help="root API public key (compressed P-256 hex)")
    serve.add_argument("--api-private-key", help="root API private key (hex)")
    serve.add_argument("--organization-name", default="Emulated Organization")
    serve.add_argument("--seed", type=int, help="make ids and keys the same on every run")
    serve.add_argument(
        "--state",
        metavar="PATH",
        help="keep the state in this SQLite file across restarts (it holds the world's secrets)",
    )
    serve.add_argument(
        "--timestamp-window",
        type=float,
        default=600.0,
        help="seconds an activity's timestampMs may be off the clock (0 turns the check off)",
    )
    return parser


def _start(
    args: argparse.Namespace, state: StateFile | None
) -> tuple[Emulator, OrganizationHandle]:
    """The emulator and its organization: loaded from the state file, or made anew."""
    window = args.timestamp_window or None
    saved = state.read() if state is not None else None
    if saved is not None:
        emulator = Emulator.from_document(saved, timestamp_window_s=window)
        return emulator, emulator.organization()
    emulator = Emulator(seed=args.seed, timestamp_window_s=window)
    org = emulator.create_organization(
        args.organization_name,
        api_public_key=args.api_public_key,
        api_private_key=args.api_private_key,
    )
    if state is not None:
        state.write(emulator.to_document())
    return emulator, org


def serve(args: argparse.Namespace) -> int:
    state = StateFile(args.state) if args.state else None
    try:
        emulator, org = _start(args, state)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    on_change = (lambda: state.write(emulator.to_document())) if state is not None else None
    server = make_api_server(
        emulator.world, args.host, args.port, Control(emulator), on_change=on_change
    )
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
                "signerPublicKey": emulator.enclave.signer_public_key,
                "notarizerPublicKey": emulator.enclave.notarizer_public_key,
                "tlsFetcherPublicKey": emulator.enclave.tls_fetcher_public_key,
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
