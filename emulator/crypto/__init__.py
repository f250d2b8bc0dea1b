"""Cryptographic primitives. Imports nothing from the layers above.

Layer: just above the ground. May import: the ground only.
"""
