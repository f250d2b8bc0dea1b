"""The software passkey's former home: ``VirtualAuthenticator`` lives in ``authenticator.py``
(registration and stamps); this name stays for the code that imports it from here."""

from __future__ import annotations

from ..crypto.authenticator import VirtualAuthenticator

__all__ = ["VirtualAuthenticator"]
