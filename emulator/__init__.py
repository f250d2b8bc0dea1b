"""An in-process emulator of Turnkey's public API.

>>> from emulator import Emulator
>>> emu = Emulator()
>>> org = emu.create_organization("Acme")
>>> emu.get_whoami()["organizationId"] == org.organization_id
True
"""

from .api import EMULATOR_BASE_URL, TURNKEY_BASE_URL, Emulator, OrganizationHandle
from .clock import Clock
from .crypto.api_keys import ApiKeyPair, generate_key_pair, key_pair_from_private
from .errors import TurnkeyApiError
from .world import Settings

__all__ = [
    "EMULATOR_BASE_URL",
    "TURNKEY_BASE_URL",
    "ApiKeyPair",
    "Clock",
    "Emulator",
    "OrganizationHandle",
    "Settings",
    "TurnkeyApiError",
    "generate_key_pair",
    "key_pair_from_private",
]
