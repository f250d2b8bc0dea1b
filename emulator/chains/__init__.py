"""The chains the broadcasting operations send to: the catalog of networks, an embedded EVM
(py-evm through eth-tester) and Solana runtime (LiteSVM), or a node named by
``Settings.chain_rpc_urls``, each started on first use (``network.py``), and the gas station.

Layer: beside ``state/``, ``policy/`` and ``events/`` (none imports another), below the
services. May import: the world's state, the recorders, crypto and the ground.
"""
