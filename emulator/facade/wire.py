"""The facade's ways onto the wire: this emulator as a WSGI or ASGI application, requests
intercepted in-process (``intercept``), and an official-SDK client (``client``).

``Emulator`` inherits them (``api.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from .doors import ASGI_APP, INTERCEPTING, SITE, WSGI_APP, door

if TYPE_CHECKING:
    from ..engine_state.world import World
    from .handles import OrganizationHandle

#: The base URL the in-process interception answers on (besides the real one).
EMULATOR_BASE_URL = "http://turnkey-emulator.invalid"
TURNKEY_BASE_URL = "https://api.turnkey.com"

_Self = TypeVar("_Self", bound="WireAccess")


class WireAccess:
    """This emulator served, intercepted or called through the official SDK (mixed into
    ``Emulator``)."""

    _world: World

    @property
    def wsgi_app(self) -> Callable[..., Any]:
        """A WSGI application serving this emulator's API (for a WSGI server of your own)."""
        return door(WSGI_APP)(self._world)

    @property
    def asgi_app(self) -> Callable[..., Any]:
        """The ASGI application over ``serve``'s routes, for an ASGI server of your own."""
        return door(ASGI_APP)(door(SITE)(self._world))

    @contextmanager
    def intercept(self: _Self, *base_urls: str) -> Iterator[_Self]:
        """Route ``requests`` calls to ``base_urls`` into this emulator, with no socket.

        By default both ``EMULATOR_BASE_URL`` and the real service's URL are
        routed here.
        """
        with door(INTERCEPTING)(self._world, base_urls or (EMULATOR_BASE_URL, TURNKEY_BASE_URL)):
            yield self

    def client(self, org: OrganizationHandle, base_url: str = EMULATOR_BASE_URL) -> Any:
        """An official-SDK ``TurnkeyClient`` for ``org`` (needs the ``sdk`` extra).

        Its requests reach this emulator while ``intercept()`` is active, or a
        server when ``base_url`` is that server's URL.
        """
        try:
            from turnkey_api_key_stamper import ApiKeyStamper, ApiKeyStamperConfig
            from turnkey_http import TurnkeyClient
        except ImportError as missing:
            raise ModuleNotFoundError(
                f"emu.client() needs the official Python SDK ({missing.name} is not installed):"
                " pip install 'turnkey-emulator[sdk]' (turnkey-http and turnkey-api-key-stamper)",
                name=missing.name,
            ) from missing

        stamper = ApiKeyStamper(ApiKeyStamperConfig(org.api_public_key, org.api_private_key))
        return TurnkeyClient(
            base_url=base_url, stamper=stamper, organization_id=org.organization_id
        )
