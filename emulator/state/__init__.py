"""The state of an emulator as a whole: snapshots, documents, seed files.

Layer: beside ``policy/``, ``chains/`` and ``events/`` (none imports another), below the
services. May import: the world's state, the recorders, crypto and the ground; the
emulator a journal writes is the ``Journaled`` Protocol of ``journal.py``.
"""
