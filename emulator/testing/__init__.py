"""Helpers for tests of code that talks to the API (not part of the API itself)."""

from .virtual_authenticator import VirtualAuthenticator

__all__ = ["VirtualAuthenticator"]
