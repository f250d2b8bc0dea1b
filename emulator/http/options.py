"""What the HTTP layer allows: sizes, timeouts, browsers (CORS), the control plane's keys.

One ``WireOptions`` is read by the server (``server.py``, ``protocol.py``), the
ASGI and WSGI apps and the site's rules (``site.py``); ``serve`` fills it from
its command line.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

MIB = 1024 * 1024

# The headers the official SDKs send on /public/ (checked against @turnkey/http, the
# stampers and @turnkey/core): a browser's preflight asks for these.
CORS_ALLOWED_HEADERS = (
    "Content-Type",
    "X-Stamp",
    "X-Stamp-Webauthn",
    "X-Stamp-Attested",
    "X-Client-Version",
    "X-Session",
    "Authorization",
)
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})


@dataclass(frozen=True)
class WireOptions:
    """Limits and access rules of one server. Defaults suit a local test machine."""

    max_body_bytes: int = 4 * MIB
    max_header_bytes: int = 32 * 1024
    read_timeout_s: float = 30.0  # a request whose next bytes take longer is cut off (408)
    idle_timeout_s: float = 15.0  # a keep-alive connection with no request is closed
    max_connections: int = 1024  # beyond, a new connection is answered 503 and closed
    backlog: int = 1024
    graceful_timeout_s: float = 10.0  # how long a stop waits for requests in flight
    cors_origins: tuple[str, ...] = ("*",)  # "*": any origin, as the real API
    control_token: str | None = field(default=None, repr=False)  # a bearer credential
    bound_host: str = "127.0.0.1"
    # µs the event loop polls without waiting before it sleeps (polling.py); 0: it sleeps at
    # once. ``serve`` sets 500 where there are two CPUs or more.
    busy_poll_us: int = 0
    # Write each answer before the compaction its request made due (``compact.Young``):
    # ``serve`` sets it, where nothing but the next request (read after the compaction) can
    # look at the records; ``serving()`` does not, where the test's own thread may take a
    # snapshot the moment its answer arrives.
    compact_after_answer: bool = False

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_header_bytes", "max_connections", "backlog"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
        if not 0 <= self.busy_poll_us <= 100_000:
            raise ValueError("busy_poll_us must be between 0 and 100000")
        for name in ("read_timeout_s", "idle_timeout_s", "graceful_timeout_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
        if not is_loopback(self.bound_host) and not self.control_token:
            raise ValueError(
                f"refusing to serve on {self.bound_host} without a control token: anyone who "
                "can reach it could reset the state or read the outbox; pass --control-token "
                "TOKEN (sent as 'Authorization: Bearer TOKEN' on /emulator/v1/)"
            )

    def allows_origin(self, origin: str) -> bool:
        return "*" in self.cors_origins or origin in self.cors_origins

    @property
    def binds_wildcard(self) -> bool:
        return self.bound_host in ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) is this machine's loopback."""
    if host.strip("[]").lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
