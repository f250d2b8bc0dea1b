"""IP allowlists: which source addresses may call an organization (features/ip-allowlisting).

An organization has at most one allowlist of its own and one per API key. The
organization's must be enabled for any to be enforced; then a request stamped with
an API key that has its own allowlist is checked against that one alone, any other
request against the organization's. Sub-organizations have none (the docs: the
feature is the parent organization's; requests to a sub-organization are not
evaluated). A request whose source address is unknown (in-process calls, unless
``emu.backdoor.set_client_ip`` names one) is an evaluation error: the allowlist's
``onEvaluationError`` decides, ``DENY`` by default.

Rules: CIDR blocks, IPv4 no wider than /20 and IPv6 no wider than /48, normalized on
submission (``192.168.1.100/24`` is ``192.168.1.0/24``), duplicates dropped (the first
label kept), at most 10 of each family.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from typing import Any

from ..ground import messages
from ..ground.controls import IpAllowlist, IpRule
from ..ground.errors import InvalidArgument, PermissionDenied
from ..ground.models import Organization
from .auth import Caller

ORGANIZATION = ""  # the key of the organization's own allowlist
WIDEST_PREFIX = {4: 20, 6: 48}
MAX_RULES_PER_FAMILY = 10
ON_ERROR = ("ALLOW", "DENY")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def rules_of(specs: Sequence[Mapping[str, Any]], now_ms: int) -> tuple[IpRule, ...]:
    """The rules of a ``set_ip_allowlist``, checked and normalized (400 naming the bad one)."""
    rules: list[IpRule] = []
    seen: set[Network] = set()
    per_family = {4: 0, 6: 0}
    for index, spec in enumerate(specs):
        cidr = spec["cidr"]
        try:
            network = ipaddress.ip_network(cidr.strip(), strict=False)
        except ValueError:
            raise InvalidArgument(messages.invalid_cidr(index, cidr)) from None
        if network.prefixlen < WIDEST_PREFIX[network.version]:
            raise InvalidArgument(
                messages.cidr_too_wide(index, cidr, WIDEST_PREFIX[network.version])
            )
        if network in seen:
            continue
        seen.add(network)
        per_family[network.version] += 1
        if per_family[network.version] > MAX_RULES_PER_FAMILY:
            raise InvalidArgument(messages.too_many_cidrs(network.version, MAX_RULES_PER_FAMILY))
        rules.append(IpRule(str(network), spec.get("label") or "", now_ms))
    return tuple(rules)


def applicable(org: Organization, caller: Caller) -> IpAllowlist | None:
    """The allowlist a request by ``caller`` to ``org`` is checked against, if any."""
    if org.parent_id is not None:
        return None
    own = org.ip_allowlists.get(ORGANIZATION)
    if own is None or not own.enabled:
        return None
    key = caller.api_key.public_key.lower() if caller.api_key is not None else None
    return (org.ip_allowlists.get(key) if key else None) or own


def enforce(org: Organization, caller: Caller, client_ip: str | None) -> None:
    """Refuse (403) a request whose source address the applicable allowlist does not allow."""
    allowlist = applicable(org, caller)
    if allowlist is None:
        return
    address = _address(client_ip)
    if address is None:
        if allowlist.on_evaluation_error == "ALLOW":
            return
        raise PermissionDenied(
            messages.IP_NOT_EVALUATED, turnkey_error_code="REQUEST_NOT_AUTHORIZED"
        )
    if not any(address in ipaddress.ip_network(rule.cidr) for rule in allowlist.rules):
        raise PermissionDenied(
            messages.ip_not_allowed(str(address)), turnkey_error_code="REQUEST_NOT_AUTHORIZED"
        )


def _address(client_ip: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    if not client_ip:
        return None
    try:
        address = ipaddress.ip_address(client_ip.strip().strip("[]").split("%", 1)[0])
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped if mapped is not None else address


def render(org: Organization, allowlist: IpAllowlist | None, public_key: str) -> dict[str, Any]:
    """``v1IpAllowlist``; a missing one is an empty list of rules (the docs' note)."""
    rules = allowlist.rules if allowlist is not None else ()
    out: dict[str, Any] = {
        "organizationId": org.organization_id,
        "rules": [
            {"cidr": r.cidr, "label": r.label, "createdAt": str(r.created_at_ms)} for r in rules
        ],
    }
    if public_key:
        out["publicKey"] = public_key
    elif allowlist is not None:
        out["enabled"] = bool(allowlist.enabled)
    if allowlist is not None:
        out["onEvaluationError"] = allowlist.on_evaluation_error
    return out
