"""EIP-712 typed data shared by the signing tests."""

from __future__ import annotations


def field(name: str, kind: str) -> dict:
    return {"name": name, "type": kind}


DOMAIN_TYPE = [
    field("name", "string"),
    field("version", "string"),
    field("chainId", "uint256"),
    field("verifyingContract", "address"),
]

# The example in EIP-712 itself (https://eips.ethereum.org/EIPS/eip-712, assets Example.js /
# Example.sol), whose published digest is MAIL_DIGEST.
MAIL = {
    "types": {
        "EIP712Domain": DOMAIN_TYPE,
        "Person": [field("name", "string"), field("wallet", "address")],
        "Mail": [field("from", "Person"), field("to", "Person"), field("contents", "string")],
    },
    "primaryType": "Mail",
    "domain": {
        "name": "Ether Mail",
        "version": "1",
        "chainId": 1,
        "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC",
    },
    "message": {
        "from": {"name": "Cow", "wallet": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
        "to": {"name": "Bob", "wallet": "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},
        "contents": "Hello, Bob!",
    },
}
MAIL_DIGEST = "be609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2"
