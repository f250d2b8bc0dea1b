"""The shapes the emulator answers with: for each object, the keys it always has and the
JSON type of each. A key the endpoint answers beyond these is not a difference (the API
grows); a missing key or another type is.

Built from the emulator's rendering (``emulator/ground/render.py``) of the objects the checks
read, which follows the official OpenAPI document's required fields.
"""

from __future__ import annotations

from typing import Any

Shape = dict[str, Any]  # key -> type, nested Shape, or [Shape] for a list of objects

TIMESTAMP: Shape = {"seconds": str, "nanos": str}
ERROR: Shape = {"code": int, "message": str, "details": list, "turnkeyErrorCode": str}
ACTIVITY: Shape = {
    "id": str,
    "organizationId": str,
    "status": str,
    "type": str,
    "intent": dict,
    "result": dict,
    "votes": list,
    "fingerprint": str,
    "canApprove": bool,
    "canReject": bool,
    "createdAt": TIMESTAMP,
    "updatedAt": TIMESTAMP,
}
WHOAMI: Shape = {"organizationId": str, "organizationName": str, "userId": str, "username": str}
WALLET: Shape = {
    "walletId": str,
    "walletName": str,
    "createdAt": TIMESTAMP,
    "updatedAt": TIMESTAMP,
    "exported": bool,
    "imported": bool,
}
WALLET_ACCOUNT: Shape = {
    "walletAccountId": str,
    "organizationId": str,
    "walletId": str,
    "curve": str,
    "pathFormat": str,
    "path": str,
    "addressFormat": str,
    "address": str,
    "publicKey": str,
    "createdAt": TIMESTAMP,
    "updatedAt": TIMESTAMP,
}
API_KEY: Shape = {
    "credential": {"publicKey": str, "type": str},
    "apiKeyId": str,
    "apiKeyName": str,
    "createdAt": TIMESTAMP,
    "updatedAt": TIMESTAMP,
}
USER: Shape = {
    "userId": str,
    "userName": str,
    "apiKeys": [API_KEY],
    "authenticators": list,
    "userTags": list,
    "oauthProviders": list,
    "createdAt": TIMESTAMP,
    "updatedAt": TIMESTAMP,
}
POLICY: Shape = {
    "policyId": str,
    "policyName": str,
    "effect": str,
    "createdAt": TIMESTAMP,
    "updatedAt": TIMESTAMP,
    "notes": str,
    "consensus": str,
    "condition": str,
}
ADDRESS: Shape = {"format": str, "address": str}
PRIVATE_KEY: Shape = {
    "privateKeyId": str,
    "publicKey": str,
    "privateKeyName": str,
    "curve": str,
    "addresses": [ADDRESS],
    "privateKeyTags": list,
    "createdAt": TIMESTAMP,
    "updatedAt": TIMESTAMP,
    "exported": bool,
    "imported": bool,
}
TAG: Shape = {"tagId": str, "tagName": str, "tagType": str, "createdAt": TIMESTAMP}
SIGNATURE: Shape = {"r": str, "s": str, "v": str}


def problems(value: Any, shape: Any, path: str = "") -> list[str]:
    """How ``value`` differs from ``shape``: ``path: missing`` or ``path: str, not int``."""
    where = path or "(top)"
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return [f"{where}: object, not {_type(value)}"]
        found: list[str] = []
        for key, inner in shape.items():
            at = f"{path}.{key}" if path else key
            if key not in value:
                found.append(f"{at}: missing")
            else:
                found.extend(problems(value[key], inner, at))
        return found
    if isinstance(shape, list):
        if not isinstance(value, list):
            return [f"{where}: array, not {_type(value)}"]
        return [p for i, item in enumerate(value) for p in problems(item, shape[0], f"{path}[{i}]")]
    if shape is int and isinstance(value, bool):
        return [f"{where}: {shape.__name__}, not bool"]
    if not isinstance(value, shape):
        return [f"{where}: {shape.__name__}, not {_type(value)}"]
    return []


def _type(value: Any) -> str:
    names = {dict: "object", list: "array", str: "str", int: "int", float: "float", bool: "bool"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def conforms(value: Any, shape: Shape, what: str) -> None:
    """Raise a ``Mismatch`` naming every difference of ``value`` from ``shape``."""
    from .report import Mismatch

    found = problems(value, shape)
    if found:
        raise Mismatch(f"{what} with the emulator's keys and types", "; ".join(found[:6]))
