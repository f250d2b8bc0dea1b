"""The rewards distributor's Merkle tree: leaves ``keccak256(abi.encode(user, token, amount))``
of cumulative amounts, pairs hashed sorted (OpenZeppelin's ``MerkleProof``)."""

from __future__ import annotations

from eth_abi import encode

from ...crypto.hashing import keccak256


def leaf(user: str, token: str, amount: int) -> bytes:
    return keccak256(encode(["address", "address", "uint256"], [user, token, amount]))


def _pair(a: bytes, b: bytes) -> bytes:
    return keccak256(min(a, b) + max(a, b))


def root_and_proofs(leaves: list[bytes]) -> tuple[bytes, list[list[bytes]]]:
    """The root of ``leaves`` and each leaf's proof (an odd node is carried up as it is)."""
    if not leaves:
        return b"\x00" * 32, []
    proofs: list[list[bytes]] = [[] for _ in leaves]
    # positions[i]: where leaf i's ancestor stands in the current level
    positions = list(range(len(leaves)))
    level = list(leaves)
    while len(level) > 1:
        nxt = [
            _pair(level[i], level[i + 1]) if i + 1 < len(level) else level[i]
            for i in range(0, len(level), 2)
        ]
        for index, pos in enumerate(positions):
            sibling = pos ^ 1
            if sibling < len(level):
                proofs[index].append(level[sibling])
            positions[index] = pos // 2
        level = nxt
    return level[0], proofs


def verify(proof: list[bytes], root: bytes, node: bytes) -> bool:
    for sibling in proof:
        node = _pair(node, sibling)
    return node == root
