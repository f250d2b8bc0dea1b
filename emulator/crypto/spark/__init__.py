"""Spark's cryptography: FROST secp256k1 (Taproot) signing as the required participant,
Feldman verifiable secret sharing, ECIES in the eciesjs format, the wallet's key paths and
the byte formats the operators read (``docs/spark.md``).

Layer: crypto. May import: the ground and crypto's own modules.
"""
