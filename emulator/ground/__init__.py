"""The ground the engine stands on: records (models), ids, time, errors, messages, JSON
text, the schema checker, enums, wire casing (codec), rendering of records, transactions,
the collector's tuning.

May import: nothing of the emulator outside this package (the standard library and
third-party packages only).
"""
