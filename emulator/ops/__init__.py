"""The operations, one module per family; importing this fills the registry."""

from . import (
    activities,
    api_keys,
    authenticators,
    invitations,
    organization_settings,
    organizations,
    policies,
    private_key_tags,
    private_keys,
    signing,
    sub_organizations,
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
    "invitations",
    "organization_settings",
    "organizations",
    "policies",
    "private_key_tags",
    "private_keys",
    "signing",
    "sub_organizations",
    "user_tags",
    "users",
    "wallets",
]
