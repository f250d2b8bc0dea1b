"""The engine's state: the world (``World``, ``Settings``), its store of records, the key
vault and the rate-limit buckets.

May import: webhooks, recorders, crypto, ground.
"""
