"""The operations, one module per family; importing this fills the registry."""

from . import activities, api_keys, authenticators, organizations, user_tags, users
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
    "user_tags",
    "users",
]
