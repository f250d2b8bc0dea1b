"""The Python facade: ``Emulator`` (api.py) and what it is made of.

``api.py`` holds ``Emulator`` and ``OrganizationHandle``; ``generated.py`` (written by
``codegen.py`` from the registry) one typed method per operation; ``engine.py`` loads the
request path on first call; ``documents.py`` (save, load, seed), ``seams.py`` (observations
and test seams), ``wire.py`` (WSGI/ASGI apps, intercept, the SDK client), ``oidc.py`` /
``oauth2.py`` (the built-in identity providers) and ``backdoor.py`` (known keys in, secrets
out) are mixed in or handed out by it.

May import: authproxy, dispatch, ops, services, state, policy, chains, events,
engine_state, webhooks, recorders, crypto, ground. Never the doors above it (http/,
dashboard/, the CLI) nor testing/: the HTTP apps it hands out (``wsgi_app``, ``asgi_app``,
``intercept``) are reached through ``doors.py``.
"""
