"""Which URLs a webhook endpoint may have (features/webhooks/overview.mdx, "Endpoint validation").

The docs: the URL must use ``https``, have a valid host and resolve to a public
destination; URLs pointing to localhost, private IP ranges, link-local addresses or
metadata endpoints, and URLs with user info, are rejected. The emulator checks the URL as
written (it resolves no name: a host name other than ``localhost`` is taken as public).

One exception, for a test double whose receivers run on the test's own machine:
loopback (``localhost``, ``127.0.0.0/8``, ``::1``), over ``http`` or ``https``, is allowed
while ``Settings.webhook_allow_loopback`` is on (the default). Turned off, loopback is
refused as the real service refuses it.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import SplitResult, urlsplit

MAX_URL_LENGTH = 2048
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})
METADATA_NAMES = frozenset({"metadata.google.internal", "metadata", "instance-data"})


class UrlRefused(ValueError):
    """Why a webhook URL is refused (the message names the rule)."""


def is_loopback_host(host: str) -> bool:
    host = host.lower().rstrip(".")
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_url(url: str, *, allow_loopback: bool) -> str:
    """``url`` as given when it is a valid webhook destination; raise ``UrlRefused``."""
    if len(url) > MAX_URL_LENGTH:
        raise UrlRefused(f"must be at most {MAX_URL_LENGTH} characters")
    if url != url.strip() or any(c.isspace() for c in url):
        raise UrlRefused("must not contain whitespace")
    try:
        parts = urlsplit(url)
        port = parts.port  # raises on a bad port
    except ValueError as error:
        raise UrlRefused(f"is not a valid URL ({error})") from None
    host = (parts.hostname or "").rstrip(".")
    if parts.scheme not in ("https", "http"):
        raise UrlRefused("must use https")
    if not host:
        raise UrlRefused("must include a valid host")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise UrlRefused("must not include user info")
    if port == 0:
        raise UrlRefused("must not use port 0")
    loopback = is_loopback_host(host)
    if loopback:
        if not allow_loopback:
            raise UrlRefused("must resolve to a public destination (localhost is not allowed)")
        return url
    if parts.scheme != "https":
        raise UrlRefused("must use https")
    _check_public(host, parts)
    return url


def _check_public(host: str, parts: SplitResult) -> None:
    lowered = host.lower()
    if lowered in METADATA_NAMES:
        raise UrlRefused("must not point to a metadata endpoint")
    try:
        address = ipaddress.ip_address(lowered.strip("[]"))
    except ValueError:
        if not _valid_hostname(lowered):
            raise UrlRefused("must include a valid host") from None
        return
    if str(address) in ("169.254.169.254", "fd00:ec2::254"):
        raise UrlRefused("must not point to a metadata endpoint")
    if address.is_link_local:
        raise UrlRefused("must not point to a link-local address")
    if (
        address.is_private
        or address.is_reserved
        or address.is_multicast
        or address.is_unspecified
        or (isinstance(address, ipaddress.IPv4Address) and address in _SHARED)
    ):
        raise UrlRefused("must resolve to a public destination (private address)")


_SHARED = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT: not public either


def _valid_hostname(host: str) -> bool:
    if len(host) > 253 or "." not in host:
        return False
    for label in host.split("."):
        if not 1 <= len(label) <= 63 or label.startswith("-") or label.endswith("-"):
            return False
        if not all(c.isalnum() or c == "-" for c in label):
            return False
    return not host.split(".")[-1].isdigit()
