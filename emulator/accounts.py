"""Account specs at the official SDKs' default paths (``defaultXAccountAtIndex``).

The API requires a ``path`` on every account; clients fill it in from these
tables (``@turnkey/core`` ``turnkey-helpers.ts``). ``account_spec`` builds the
same ``v1WalletAccountParams`` for tests and fixtures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from .facade.generated import WalletAccountParams

from .crypto.default_paths import DEFAULT_PATHS, default_account

__all__ = ["DEFAULT_PATHS", "account_spec"]


def account_spec(address_format: str, index: int = 0) -> WalletAccountParams:
    """The ``v1WalletAccountParams`` the SDKs send for ``address_format`` at account ``index``."""
    return cast("WalletAccountParams", default_account(address_format, index))
