"""``emulator.testing.oidc``, the public path of ``emulator.facade.oidc`` (users import it; docs/design.md)."""

from ..facade.oidc import DEFAULT_EXPIRES_IN, DEFAULT_ISSUER, EmulatorOidc, OidcProvider, nonce_for

__all__ = ["DEFAULT_EXPIRES_IN", "DEFAULT_ISSUER", "EmulatorOidc", "OidcProvider", "nonce_for"]
