"""The dashboard: a page at the server's root showing the emulated world, live.

Organizations as a tree, users with their credentials' public parts, wallets, keys and
policies, activities with their votes and policy outcomes (approve or reject as a user whose
key the emulator holds), the outbox, the call log, webhook deliveries where the engine has
them, and the clock and fault controls. Plain files in ``static/`` (no build step, nothing
from the network); JSON views in ``views.py``; routes in ``routes.py``, reached through
``emulator/http/site.py`` behind the control plane's guard.

Layer: a door, with ``http/`` (it is served by the HTTP door, under ``/emulator/ui``;
the two may import each other's modules but never in a circle). May import: http, the
facade and everything below; never the CLI, the pytest plugin nor ``testing/``.
"""
