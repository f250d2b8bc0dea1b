"""One Auth Proxy request's engine calls, as its configuration's parent organization, and
the checks every endpoint shares."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any, Protocol

from ..ground import jsontext
from ..ground.errors import InvalidArgument, NotFound, PermissionDenied, ValidationFailed
from ..ground.schema import Object, check
from .config import AuthProxyConfig

if TYPE_CHECKING:
    from ..engine_state.world import World
    from ..ground.clock import Clock

Json = dict[str, Any]


class Emulator(Protocol):
    """What the Auth Proxy needs of the emulator that owns it (``emulator.Emulator`` is one:
    it makes ``emu.auth_proxy``). The proxy sits below the facade and names it through this."""

    _first_org_id: str | None

    @property
    def world(self) -> World: ...
    @property
    def clock(self) -> Clock: ...
    def call(
        self,
        operation: str,
        parameters: Json | None = None,
        *,
        organization_id: str | None = None,
        activity_type: str | None = None,
    ) -> Json: ...


class Run:
    """One request's engine calls, as the configuration's parent organization."""

    def __init__(self, emulator: Emulator, config: AuthProxyConfig) -> None:
        self.emulator = emulator
        self.config = config

    def activity(
        self, name: str, activity_type: str, params: Json, org_id: str | None = None
    ) -> Json:
        return self.emulator.call(
            name,
            params,
            organization_id=org_id or self.config.organization_id,
            activity_type=activity_type,
        )

    def query(self, name: str, params: Json) -> Json:
        return self.emulator.call(name, params, organization_id=self.config.organization_id)

    def require(self, method: str) -> None:
        if not self.config.allows(method):
            raise disabled(method)

    def sub_organization(self, org_id: str) -> str:
        """``org_id`` once it is the parent or one of its sub-organizations."""
        org = self.emulator.world.store.organizations.get(org_id)
        parent = self.config.organization_id
        if org is None or (org.organization_id != parent and org.parent_id != parent):
            raise NotFound(f"organization {org_id} is not served by this Auth Proxy config")
        return org_id

    def first_sub_org(self, filter_type: str, value: str, *, verified: bool = False) -> str | None:
        name = "list_verified_suborgs" if verified else "list_suborgs"
        found = self.query(name, {"filterType": filter_type, "filterValue": value})
        ids = found.get("organizationIds") or []
        return ids[0] if ids else None


def disabled(method: str) -> PermissionDenied:
    return PermissionDenied(f"{method} sign-in is not enabled in this Auth Proxy config")


def checked(spec: Object, params: Json) -> Json:
    cleaned, errors = check(spec, params)
    if errors:
        raise ValidationFailed(errors)
    return cleaned  # type: ignore[return-value]


def token_claims(token: str) -> Json:
    """The claims of a verification token, unverified (the engine verifies it)."""
    try:
        payload = token.split(".")[1]
        claims = jsontext.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError, UnicodeDecodeError):
        raise InvalidArgument("invalid verification token") from None
    if not isinstance(claims, dict):
        raise InvalidArgument("invalid verification token")
    return claims
