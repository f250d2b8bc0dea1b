"""Cryptographic primitives. Imports nothing from the layers above."""
