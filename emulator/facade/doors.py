"""The HTTP doors the facade hands out: ``emu.wsgi_app``, ``emu.asgi_app``, ``emu.intercept()``.

The doors stand above the facade (``http/`` serves an ``Emulator``), so the facade does not
import them: it names them here by module path and loads them on first use (``import
emulator`` never loads the HTTP stack). ``tests/test_layers.py`` checks that every name here
resolves, so a moved door fails a test rather than a user.
"""

from __future__ import annotations

import importlib
from typing import Any

WSGI_APP = "emulator.http.wsgi:WsgiApp"  # WsgiApp(world): a WSGI application
ASGI_APP = "emulator.http.asgi:AsgiApp"  # AsgiApp(site): an ASGI application
SITE = "emulator.http.site:Site"  # Site(world): the routes of one server over one world
INTERCEPTING = "emulator.http.intercept:intercepting"  # intercepting(world, urls): a context
DOORS = (WSGI_APP, ASGI_APP, SITE, INTERCEPTING)


def door(ref: str) -> Any:
    """The object ``ref`` (``module:name``) names, its module loaded if need be."""
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)
