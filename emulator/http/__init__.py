"""The wire: WSGI app, threaded server and in-process ``requests`` interception.

Layer: a door (with ``dashboard/``). May import: the dashboard, the facade and everything
below; never the CLI, the pytest plugin nor ``testing/``.
"""
