"""The Auth Proxy: Turnkey's sign-up and sign-in service for browser apps, emulated
(``service.py``) with its configurations (``config.py``); served by ``http/auth_proxy.py``.

Layer: below the facade (which owns it: ``emu.auth_proxy``), above the request path;
the HTTP door serving it is ``http/auth_proxy.py``. May import: dispatch, ops, services and
everything below them; never the facade (its emulator is the ``Emulator`` Protocol of
``run.py``) nor the doors.
"""
