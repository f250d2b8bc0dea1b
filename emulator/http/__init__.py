"""The wire: WSGI app, threaded server and in-process ``requests`` interception."""
