"""The Auth Proxy: Turnkey's sign-up and sign-in service for browser apps, emulated
(``service.py``) with its configurations (``config.py``); served by ``http/auth_proxy.py``."""
