"""``python -m emulator serve``: bootstrap an organization and serve the API.

The first line on stdout is one JSON object with ``baseUrl``,
``organizationId``, ``userId``, ``apiPublicKey`` and ``apiPrivateKey`` (the
credentials of the root user, so that a client can talk to the server), and
the enclave's ``signerPublicKey``, ``notarizerPublicKey`` and
``tlsFetcherPublicKey`` (uncompressed P-256 hex) for the SDKs' key overrides.

In memory by default. ``--state PATH`` keeps everything in a SQLite file
(``state/persistence.py``, ``state/journal.py``): each committed change is
written to its journal, only what it changed, before it is answered (and
fsynced with ``--sync full``), and a restart comes back with the same
organization, root key and everything else. Only a path where nothing exists
starts a new world: a file that is not a whole state file of ours is refused
(exit status 2), never replaced. Control endpoints (``/emulator/v1/...``) are
served too.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from collections.abc import Sequence

from .api import Emulator, OrganizationHandle
from .gc_tuning import freeze_survivors
from .http.control import Control
from .http.server import base_url, make_api_server
from .state.journal import Journal
from .state.persistence import SYNC_MODES, StateFile


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
        "--state",
        metavar="PATH",
        help="keep the state in this SQLite file across restarts (it holds the world's secrets)",
    )
    serve.add_argument(
        "--sync",
        choices=SYNC_MODES,
        default="normal",
        help="normal: an answered change survives the process being killed at any moment;"
        " full: it survives the machine stopping too, at an fsync per change (default: normal)",
    )
    serve.add_argument(
        "--compact-every",
        type=int,
        metavar="N",
        help="write the whole state every N journal rows (default: once the rows since the"
        " last whole document add up to four times its size)",
    )
    serve.add_argument(
        "--timestamp-window",
        type=float,
        default=600.0,
        help="seconds an activity's timestampMs may be off the clock (0 turns the check off)",
    )
    return parser


def _start(args: argparse.Namespace) -> tuple[Emulator, OrganizationHandle, Journal | None]:
    """The emulator and its organization: read from the state file, or made anew; with
    ``--state``, the journal that writes every commit to the file, attached."""
    window = args.timestamp_window or None
    if args.state and os.path.lexists(args.state):
        state = StateFile.open(args.state, sync=args.sync)
        try:
            emulator = Emulator.from_document(
                state.read(), exact_order=False, timestamp_window_s=window
            )
            org = emulator.organization()
        except BaseException:
            state.close()
            raise
        return emulator, org, _journal(emulator, state, args)
    emulator = Emulator(seed=args.seed, timestamp_window_s=window)
    org = emulator.create_organization(
        args.organization_name,
        api_public_key=args.api_public_key,
        api_private_key=args.api_private_key,
    )
    if not args.state:
        return emulator, org, None
    state = StateFile.create(args.state, emulator.to_document(), sync=args.sync)
    return emulator, org, _journal(emulator, state, args)


def _journal(emulator: Emulator, state: StateFile, args: argparse.Namespace) -> Journal:
    journal = Journal(
        emulator, state, compact_every=args.compact_every, on_compacted=freeze_survivors
    )
    return journal.attach()


def serve(args: argparse.Namespace) -> int:
    try:
        emulator, org, journal = _start(args)
    except (ValueError, KeyError, OSError) as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return 2
    freeze_survivors()  # the bootstrapped or loaded world: never scanned by the collector again
    # The journal writes each commit from inside it (a hook on the world, below the HTTP
    # layer); ``sync`` after a control request writes a reset, restore or moved clock.
    on_change = journal.sync if journal is not None else None
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
        if journal is not None:
            journal.close()  # the shutdown step: the whole document as the new base
    return 0


def _one_line(exc: BaseException) -> str:
    text = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
    return " ".join(str(text).split())


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return serve(args)
