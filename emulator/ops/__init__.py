"""The operations, one module per family; importing this fills the registry."""

from . import (
    activities,
    api_keys,
    authenticators,
    organizations,
    private_key_tags,
    private_keys,
    signing,
    user_tags,
    users,
    wallets,
)
from .registry import ACTIVITY, QUERY, REGISTRY, Operation, Version, find_by_path

__all__ = [
    "ACTIVITY",
    "QUERY",
    "REGISTRY",
    "Operation",
    "Version",
    "activities",
    "api_keys",
    "authenticators",
    "find_by_path",
    "organizations",
    "private_key_tags",
    "private_keys",
    "signing",
    "user_tags",
    "users",
    "wallets",
]
