"""``python -m emulator serve``: bootstrap an organization and serve the API.

The first line on stdout is one JSON object with ``baseUrl``,
``organizationId``, ``userId``, ``apiPublicKey`` and ``apiPrivateKey`` (the
credentials of the root user, so that a client can talk to the server), and
the enclave's ``signerPublicKey``, ``notarizerPublicKey``, ``tlsFetcherPublicKey`` and
``tlsFetcherEncryptPublicKey`` (uncompressed P-256 hex) for the SDKs' key overrides,
``onRampEncryptPublicKey`` (compressed hex, for ``encryptOnRampSecret``), and
``rateLimits``, the plan whose documented rate limits ``--rate-limits`` enforces (or null).

In memory by default. ``--state PATH`` keeps everything in a SQLite file
(``state/persistence.py``, ``state/journal.py``): each committed change is
written to its journal, only what it changed, before it is answered (and
fsynced with ``--sync full``), and a restart comes back with the same
organization, root key and everything else. Only a path where nothing exists
(nor its ``-wal`` or ``-shm``) starts a new world: a file that is not a whole state
file of ours is refused (exit status 2), and not one byte of it changes
(``docs/state-files.md``). Control endpoints (``/emulator/v1/...``) are
served too,
to this machine only (a token is required when binding beyond loopback), and
``/emulator/v1/reset`` goes back to the bootstrapped organization. The dashboard
(``emulator/dashboard/``) is at the root, behind the same guard: ``dashboardUrl`` in the
first line is its address, with the control token for the page when there is one.

The server is HTTP/1.1 with keep-alive (``http/server.py``); its limits and
timeouts are options. A start-up problem (port in use, unknown host, a state
file that cannot be read) is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Sequence
from urllib.parse import urlencode

from . import conformance
from .authproxy.config import AuthProxyConfig
from .engine_state.ratelimits import PLANS, plan_named
from .facade.api import Emulator, OrganizationHandle
from .ground import jsontext
from .ground.gc_tuning import for_latency, freeze_survivors, freeze_young
from .http.auth_proxy import PREFIX as AUTH_PROXY_PREFIX
from .http.control import Control
from .http.options import MIB, WireOptions
from .http.polling import default_budget_us
from .http.server import StartupError, make_api_server
from .state.journal import Journal
from .state.opening import is_new
from .state.persistence import SYNC_MODES, StateFile


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
        "--activities-in-memory",
        type=int,
        default=10_000,
        metavar="N",
        help="with --state: keep the newest N activities in memory, read older ones back from"
        " the file when asked for (default 10000; 0 keeps them all)",
    )
    serve.add_argument(
        "--timestamp-window",
        type=float,
        default=3600.0,
        help="seconds old an activity's timestampMs may be (0 turns the check off; it may be"
        " at most 300 s ahead)",
    )
    serve.add_argument(
        "--rate-limits",
        type=_plan,
        metavar="PLAN",
        help="enforce the documented rate limits of this plan: "
        + ", ".join(PLANS)
        + " (default: none; docs/rate-limits.md)",
    )
    proxy = serve.add_argument_group("Auth Proxy (served under <baseUrl>/authproxy)")
    proxy.add_argument(
        "--auth-proxy",
        action="store_true",
        help="serve an Auth Proxy configuration for the organization, every sign-in method on;"
        " its id is authProxyConfigId in the first line",
    )
    proxy.add_argument(
        "--auth-proxy-config",
        metavar="JSON",
        help='the same, with these settings (wire names, e.g. \'{"enabledProviders":'
        ' ["passkey", "email"], "sessionExpirationSeconds": 3600}\')',
    )
    chains = serve.add_argument_group("chains (the broadcasting operations)")
    chains.add_argument(
        "--chain-rpc",
        action="append",
        metavar="CAIP2=URL",
        help="send to this JSON-RPC node for this CAIP-2 chain, e.g. eip155:8453=http://127.0.0.1:8545"
        " (repeatable; chains not named are embedded in the process)",
    )
    chains.add_argument(
        "--chain-block-time",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="seconds a send reads BROADCASTING on an embedded chain before its outcome (default 0)",
    )
    wire = WireOptions()
    limits = serve.add_argument_group("HTTP limits and access")
    limits.add_argument(
        "--cors-origin",
        action="append",
        metavar="ORIGIN",
        help="an origin browsers may call /public/ from (repeatable; default: any, as the "
        "real API)",
    )
    limits.add_argument(
        "--control-token",
        metavar="TOKEN",
        help="required as 'Authorization: Bearer TOKEN' on /emulator/v1/ (needed to bind "
        "beyond loopback); printed in the first line",
    )
    limits.add_argument(
        "--max-body-mib",
        type=float,
        default=wire.max_body_bytes / MIB,
        help="largest request body, MiB (413 beyond)",
    )
    limits.add_argument(
        "--max-header-kib",
        type=float,
        default=wire.max_header_bytes / 1024,
        help="largest request head, KiB (431 beyond)",
    )
    limits.add_argument(
        "--read-timeout",
        type=float,
        default=wire.read_timeout_s,
        help="seconds a request head may take from its first byte, and a body between two "
        "reads (408 beyond)",
    )
    limits.add_argument(
        "--idle-timeout",
        type=float,
        default=wire.idle_timeout_s,
        help="seconds a keep-alive connection may stay idle",
    )
    limits.add_argument(
        "--max-connections",
        type=int,
        default=wire.max_connections,
        help="open connections at once (503 beyond)",
    )
    limits.add_argument(
        "--backlog", type=int, default=wire.backlog, help="listen backlog (connections queued)"
    )
    limits.add_argument(
        "--graceful-timeout",
        type=float,
        default=wire.graceful_timeout_s,
        help="seconds a stop waits for requests in flight",
    )
    limits.add_argument(
        "--busy-poll-us",
        type=int,
        default=None,
        metavar="MICROSECONDS",
        help="how long the server polls for the next request before it sleeps (default "
        "500 with two CPUs or more, else 0: off); lowers the latency of a client that "
        "sends one request after another",
    )
    conformance.add_arguments(
        commands.add_parser(
            "conformance",
            help="check an endpoint (the real service or this emulator) against the emulator's"
            " behaviour, through the official SDK (docs/conformance.md)",
        )
    )
    return parser


def _plan(name: str) -> str:
    try:
        return plan_named(name).name
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def wire_options(args: argparse.Namespace) -> WireOptions:
    """The server's limits and access rules from the command line (``ValueError`` if bad)."""
    return WireOptions(
        max_body_bytes=int(args.max_body_mib * MIB),
        max_header_bytes=int(args.max_header_kib * 1024),
        read_timeout_s=args.read_timeout,
        idle_timeout_s=args.idle_timeout,
        max_connections=args.max_connections,
        backlog=args.backlog,
        graceful_timeout_s=args.graceful_timeout,
        cors_origins=tuple(args.cors_origin or ("*",)),
        control_token=args.control_token,
        bound_host=args.host,
        busy_poll_us=default_budget_us() if args.busy_poll_us is None else args.busy_poll_us,
        compact_after_answer=True,
    )


def chain_rpc_urls(values: list[str] | None) -> dict[str, str]:
    """``--chain-rpc CAIP2=URL`` values as a mapping; a malformed one is a usage error."""
    from .chains import catalog

    urls = {}
    for value in values or ():
        caip2, sep, url = value.rpartition("=")
        if not sep or not caip2 or not url.startswith(("http://", "https://")):
            raise ValueError(f"--chain-rpc wants CAIP2=URL (an http(s) URL), not {value!r}")
        if catalog.canonical(caip2) not in catalog.NETWORKS:
            raise ValueError(f"--chain-rpc: {caip2} is not a network Turnkey broadcasts to")
        urls[catalog.canonical(caip2)] = url
    return urls


def _configure_chains(emulator: Emulator, args: argparse.Namespace) -> None:
    emulator.settings.chain_rpc_urls.update(chain_rpc_urls(getattr(args, "chain_rpc", None)))
    emulator.settings.chain_block_time_s = getattr(args, "chain_block_time", 0.0) or 0.0
    if getattr(args, "rate_limits", None):  # else a state file's own setting stays
        emulator.settings.rate_limits = args.rate_limits


def _start(args: argparse.Namespace) -> tuple[Emulator, OrganizationHandle, Journal | None]:
    """The emulator and its organization: read from the state file, or made anew; with
    ``--state``, the journal that writes every commit to the file, attached."""
    chain_rpc_urls(getattr(args, "chain_rpc", None))  # refuse a bad option before anything
    window = args.timestamp_window or None
    in_memory = getattr(args, "activities_in_memory", 10_000) or None
    if in_memory is not None and in_memory < 0:
        raise ValueError("--activities-in-memory is 0 (keep them all) or more")
    if args.state and not is_new(args.state):  # a -wal without its file is refused there

        def load(document: dict) -> Emulator:  # on a private copy: a refusal changes nothing
            emulator = Emulator.from_document(
                document, exact_order=False, timestamp_window_s=window
            )
            emulator.organization()
            return emulator

        state = StateFile.open(args.state, sync=args.sync, load=load)
        try:
            emulator = state.loaded
            org = emulator.organization()
            _configure_chains(emulator, args)
            emulator.settings.activities_in_memory = in_memory
        except BaseException:
            state.close()
            raise
        return emulator, org, _journal(emulator, state, args)
    emulator = Emulator(seed=args.seed, timestamp_window_s=window)
    _configure_chains(emulator, args)
    emulator.settings.activities_in_memory = in_memory
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
    journal: Journal | None = None
    try:
        options = wire_options(args)
        emulator, org, journal = _start(args)
        # The journal writes each commit from inside it (a hook on the world, below the HTTP
        # layer); ``sync`` after a control request writes a reset, restore or moved clock.
        on_change = journal.sync if journal is not None else None
        control = Control(emulator, baseline=emulator.snapshot())
        proxy_config = _auth_proxy(emulator, args)
        server = make_api_server(
            emulator.world,
            args.host,
            args.port,
            control,
            options=options,
            on_change=on_change,
            on_second=freeze_young,  # the records made since are state: no rescans
        )
    except (ValueError, KeyError, OSError, sqlite3.Error, StartupError) as exc:
        if journal is not None:
            journal.close()
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return 2
    freeze_survivors()  # the bootstrapped or loaded world: never scanned by the collector again
    for_latency()  # young collections below the 99th percentile of the requests
    print(
        json.dumps(
            {
                "baseUrl": server.base_url,
                "organizationId": org.organization_id,
                "organizationName": org.organization_name,
                "userId": org.user_id,
                "apiKeyId": org.api_key_id,
                "apiPublicKey": org.api_public_key,
                "apiPrivateKey": org.api_private_key or None,
                "signerPublicKey": emulator.enclave.signer_public_key,
                "notarizerPublicKey": emulator.enclave.notarizer_public_key,
                "tlsFetcherPublicKey": emulator.enclave.tls_fetcher_public_key,
                "tlsFetcherEncryptPublicKey": emulator.enclave.tls_fetcher_encrypt_public_key,
                "onRampEncryptPublicKey": emulator.enclave.on_ramp_encrypt_public_key,
                "controlToken": options.control_token,
                "dashboardUrl": dashboard_url(server.base_url, options.control_token),
                "authProxyUrl": server.base_url + AUTH_PROXY_PREFIX if proxy_config else None,
                "authProxyConfigId": proxy_config.config_id if proxy_config else None,
                "rateLimits": emulator.settings.rate_limits,
            }
        ),
        flush=True,
    )
    try:
        server.serve_forever()  # SIGINT and SIGTERM stop it gracefully
    finally:
        emulator.close()  # the webhook sender, if one started
        if journal is not None:
            journal.close()  # the shutdown step: the whole document as the new base
    return 0


def dashboard_url(base_url: str, control_token: str | None) -> str:
    """The dashboard's address, with the control token for the page to take once."""
    url = f"{base_url}/emulator/ui/"
    return f"{url}?{urlencode({'token': control_token})}" if control_token else url


def _auth_proxy(emulator: Emulator, args: argparse.Namespace) -> AuthProxyConfig | None:
    """The Auth Proxy configuration ``--auth-proxy`` or ``--auth-proxy-config`` asks for."""
    if args.auth_proxy_config is None and not args.auth_proxy:
        return None
    try:
        settings = jsontext.loads(args.auth_proxy_config) if args.auth_proxy_config else {}
    except ValueError as exc:
        raise ValueError(f"--auth-proxy-config is not JSON: {exc}") from None
    if not isinstance(settings, dict):
        raise ValueError("--auth-proxy-config must be a JSON object")
    return emulator.auth_proxy.configure(settings)


def _one_line(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return f"{error.filename}: {error.strerror}" if error.filename else error.strerror
    text = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
    return " ".join(str(text).split()) or type(error).__name__


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "conformance":
        return conformance.main(args)
    return serve(args)
