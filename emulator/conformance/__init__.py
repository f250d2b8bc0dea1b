"""``python -m emulator conformance``: a self-cleaning, property-based suite that sends
requests through the official Python SDK to any endpoint (Turnkey's own service with a
test organization, or this emulator) and reports every difference from the behaviour the
emulator implements. See ``docs/conformance.md``.

The checks import the official SDK (``turnkey_http``), ``hypothesis`` and the crypto
libraries, never the engine: they judge the real service with nothing of ours in between.
This module holds only the command line, so ``cli.py`` can offer the command when the
optional dependencies are missing and answer with a clear error.

Layer: the top, beside ``testing/`` and ``emulator.accounts`` (none imports another).
May import: the ground only (``ground/jsontext.py``); it talks to the emulator over the wire.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import secrets
import signal
import threading
from collections.abc import Iterator

#: The production enclave's signer key, as Turnkey's SDKs pin it (``@turnkey/crypto``
#: ``PRODUCTION_SIGNER_SIGN_PUBLIC_KEY``); ``serve`` prints the emulator's own.
PRODUCTION_SIGNER_PUBLIC_KEY = (
    "04cf288fe433cc4e1aa0ce1632feac4ea26bf2f5a09dcfe5a42c398e06898710330f0572882f4dbdf0f53"
    "04b8fc8703acd69adca9a4bbf7f5d00d20a5e364b2569"
)
INSTALL_HINT = "pip install 'turnkey-emulator[sdk,hypothesis]'"
#: import name -> distribution, of everything the checks need beyond the core dependencies
NEEDS = {
    "turnkey_http": "turnkey-http",
    "turnkey_api_key_stamper": "turnkey-api-key-stamper",
    "hypothesis": "hypothesis",
    "eth_account": "eth-account",
    "eth_keys": "eth-keys",
    "pyhpke": "pyhpke",
}
DEFAULT_MAX_EXAMPLES = 10


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-url", required=True, help="e.g. https://api.turnkey.com")
    parser.add_argument("--organization-id", required=True, help="the test organization")
    parser.add_argument(
        "--api-public-key", required=True, help="a root user's API key (compressed P-256 hex)"
    )
    parser.add_argument("--api-private-key", required=True, help="its private key (hex)")
    parser.add_argument("--report", metavar="FILE", help="write the report here as well")
    parser.add_argument(
        "--max-examples",
        type=int,
        default=DEFAULT_MAX_EXAMPLES,
        metavar="N",
        help=f"examples per property (each a request or a few; default {DEFAULT_MAX_EXAMPLES})",
    )
    parser.add_argument(
        "--prefix",
        metavar="NAME",
        help="name prefix of everything the run creates (default conformance-<random>)",
    )
    parser.add_argument(
        "--signer-public-key",
        default=PRODUCTION_SIGNER_PUBLIC_KEY,
        help="the enclave key that signs import and export bundles (default: production's;"
        " pass the signerPublicKey `serve` prints against the emulator)",
    )


def missing_dependencies() -> list[str]:
    return [dist for module, dist in NEEDS.items() if importlib.util.find_spec(module) is None]


def default_prefix() -> str:
    return f"conformance-{secrets.token_hex(4)}"


@contextlib.contextmanager
def _interrupt_on_sigterm() -> Iterator[None]:
    """While the run goes, a SIGTERM stops it as Ctrl-C does, so it still deletes what it
    made; the previous handler comes back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(args: argparse.Namespace) -> int:
    """Run the suite from parsed arguments: 0 when every check passes, 1 otherwise, 2 when
    it cannot run."""
    import sys

    missing = missing_dependencies()
    if missing:
        print(
            f"error: the conformance runner needs {', '.join(missing)}: {INSTALL_HINT}",
            file=sys.stderr,
        )
        return 2
    if args.max_examples < 1:
        print("error: --max-examples must be at least 1", file=sys.stderr)
        return 2
    from .runner import run

    with _interrupt_on_sigterm():
        return run(
            base_url=args.base_url,
            organization_id=args.organization_id,
            api_public_key=args.api_public_key,
            api_private_key=args.api_private_key,
            prefix=args.prefix or default_prefix(),
            signer_public_key=args.signer_public_key,
            max_examples=args.max_examples,
            report_path=args.report,
        )
