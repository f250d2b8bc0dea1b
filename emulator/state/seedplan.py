"""Seed files read and checked: every check that needs no emulator, before anything is made.

``parse`` turns a seed mapping into plans (``OrganizationPlan`` and the plans of
its users, wallets, private keys, policies and root quorum); ``seedfile.apply``
then creates them. A bad entry is a ``SeedError`` naming it
(``organizations[0] ('Acme').users[1]``). Plans keep mnemonics and private keys
out of their reprs.

A policy's expressions may hold ``{{kind:name}}`` placeholders for ids
(``placeholders.py``); ``parse`` checks each kind and name, and the expressions
themselves are checked by the emulator when the policy is created (the real
``invalid policy condition: ...`` errors). The small checks of every entry are
in ``seedchecks.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..crypto.api_keys import P256, key_pair_from_private
from ..ground.enums import API_KEY_CURVES
from .placeholders import checked_expression
from .seed_keys import PrivateKeyPlan, WalletPlan, private_key_plan, wallet_plan
from .seedchecks import (
    SeedError,
    as_list,
    fields,
    labelled,
    optional_text,
    references,
    tag_names,
    text,
    unique,
)

SEED_FORMAT = "turnkey-emulator-seed"
SEED_VERSION = 1
ROOT_API_KEY_NAME = "Root API key"  # what bootstrap_organization names the root key
DEFAULT_ROOT_USER = "Root User"
EFFECTS = ("EFFECT_ALLOW", "EFFECT_DENY")  # as the API's policy activities take them

Json = dict[str, Any]


# ----- parsing: every check that needs no emulator, before anything is created ---------------


@dataclass
class KeyPlan:
    where: str
    name: str
    curve: str
    public_key: str | None
    private_key: str | None = field(repr=False)  # secrets stay out of reprs and tracebacks
    expiration: str | None


@dataclass
class UserPlan:
    where: str
    name: str
    email: str | None
    phone: str | None
    tags: list[str]
    api_keys: list[KeyPlan]


@dataclass
class PolicyPlan:
    where: str
    name: str
    effect: str
    condition: str | None  # with its {{kind:name}} placeholders, filled when applied
    consensus: str | None
    time: str | None
    notes: str


@dataclass
class QuorumPlan:
    where: str
    threshold: int
    users: list[str]  # user names, the root user's included


@dataclass
class OrganizationPlan:
    where: str
    name: str
    root_user: str
    root_email: str | None
    api_public_key: str | None
    api_private_key: str | None
    user_tags: list[str]
    users: list[UserPlan]
    private_key_tags: list[str]
    wallets: list[WalletPlan]
    private_keys: list[PrivateKeyPlan]
    policies: list[PolicyPlan]
    root_quorum: QuorumPlan | None
    subs: list[OrganizationPlan]


def parse(data: Mapping[str, Any]) -> list[OrganizationPlan]:
    """The organizations ``data`` names, checked; raises ``SeedError`` naming the bad entry."""
    top = fields(data, "", {"format", "version", "description", "organizations"})
    if top.get("format", SEED_FORMAT) != SEED_FORMAT:
        raise SeedError("format", f"not a seed file: expected {SEED_FORMAT!r}")
    if top.get("version", SEED_VERSION) != SEED_VERSION:
        raise SeedError("version", f"seed file version {SEED_VERSION} is the only one known")
    names: set[str] = set()
    return [
        _organization(entry, f"organizations[{i}]", names)
        for i, entry in enumerate(as_list(top.get("organizations", []), "organizations"))
    ]


def _organization(data: Any, where: str, names: set[str]) -> OrganizationPlan:
    where = labelled(data, where)
    spec = fields(
        data,
        where,
        {
            "name",
            "rootUser",
            "apiKey",
            "users",
            "userTags",
            "wallets",
            "privateKeys",
            "privateKeyTags",
            "policies",
            "rootQuorum",
            "subOrganizations",
        },
        required=("name",),
    )
    name = text(spec["name"], f"{where}.name")
    if name in names:
        raise SeedError(f"{where}.name", f"another organization is named {name!r}")
    names.add(name)
    root = fields(spec.get("rootUser", {}), f"{where}.rootUser", {"name", "email"})
    root_user = text(root.get("name", DEFAULT_ROOT_USER), f"{where}.rootUser.name")
    root_email = optional_text(root.get("email"), f"{where}.rootUser.email")
    api_public, api_private = None, None
    if "apiKey" in spec:
        key = _api_key(spec["apiKey"], f"{where}.apiKey", ROOT_API_KEY_NAME)
        if key.curve != P256:
            raise SeedError(f"{where}.apiKey.curve", "an organization's root key is P-256")
        if key.name != ROOT_API_KEY_NAME or key.expiration is not None:
            raise SeedError(f"{where}.apiKey", "the root key takes no name or expirationSeconds")
        api_public, api_private = key.public_key, key.private_key  # None, None: generated
    user_tags = tag_names(spec.get("userTags", []), f"{where}.userTags")
    key_tags = tag_names(spec.get("privateKeyTags", []), f"{where}.privateKeyTags")
    users = [
        _user(entry, f"{where}.users[{i}]", user_tags)
        for i, entry in enumerate(as_list(spec.get("users", []), f"{where}.users"))
    ]
    unique([root_user, *(u.name for u in users)], f"{where}.users", "user")
    wallets = [
        wallet_plan(entry, f"{where}.wallets[{i}]")
        for i, entry in enumerate(as_list(spec.get("wallets", []), f"{where}.wallets"))
    ]
    unique([w.name for w in wallets], f"{where}.wallets", "wallet")
    keys = [
        private_key_plan(entry, f"{where}.privateKeys[{i}]", key_tags)
        for i, entry in enumerate(as_list(spec.get("privateKeys", []), f"{where}.privateKeys"))
    ]
    unique([k.name for k in keys], f"{where}.privateKeys", "private key")
    declared = {
        "user": [root_user, *(u.name for u in users)],
        "userTag": user_tags,
        "wallet": [w.name for w in wallets],
        "privateKey": [k.name for k in keys],
        "privateKeyTag": key_tags,
    }
    policies = [
        _policy(entry, f"{where}.policies[{i}]", declared)
        for i, entry in enumerate(as_list(spec.get("policies", []), f"{where}.policies"))
    ]
    unique([p.name for p in policies], f"{where}.policies", "policy")
    quorum = None
    if "rootQuorum" in spec:
        quorum = _quorum(spec["rootQuorum"], f"{where}.rootQuorum", root_user, declared["user"])
    subs = [
        _organization(entry, f"{where}.subOrganizations[{i}]", names)
        for i, entry in enumerate(
            as_list(spec.get("subOrganizations", []), f"{where}.subOrganizations")
        )
    ]
    return OrganizationPlan(
        where,
        name,
        root_user,
        root_email,
        api_public,
        api_private,
        user_tags,
        users,
        key_tags,
        wallets,
        keys,
        policies,
        quorum,
        subs,
    )


def _user(data: Any, where: str, tags: list[str]) -> UserPlan:
    where = labelled(data, where)
    spec = fields(
        data, where, {"name", "email", "phone", "phoneNumber", "tags", "apiKeys"}, ("name",)
    )
    name = text(spec["name"], f"{where}.name")
    if "phone" in spec and "phoneNumber" in spec:
        raise SeedError(where, "give phone or phoneNumber, not both")
    user_tags = references(spec.get("tags", []), f"{where}.tags", tags, "userTags")
    keys = [
        _api_key(entry, f"{where}.apiKeys[{i}]", f"API key {i + 1}")
        for i, entry in enumerate(as_list(spec.get("apiKeys", []), f"{where}.apiKeys"))
    ]
    unique([k.name for k in keys], f"{where}.apiKeys", "API key")
    return UserPlan(
        where,
        name,
        optional_text(spec.get("email"), f"{where}.email"),
        optional_text(spec.get("phone", spec.get("phoneNumber")), f"{where}.phone"),
        user_tags,
        keys,
    )


def _api_key(data: Any, where: str, default_name: str) -> KeyPlan:
    if data == "generate":
        return KeyPlan(where, default_name, P256, None, None, None)
    spec = fields(
        data, where, {"name", "publicKey", "privateKey", "curve", "expirationSeconds", "generate"}
    )
    curve = spec.get("curve", P256)
    if curve not in API_KEY_CURVES:
        raise SeedError(f"{where}.curve", f"must be one of {', '.join(API_KEY_CURVES)}")
    public = optional_text(spec.get("publicKey"), f"{where}.publicKey")
    private = optional_text(spec.get("privateKey"), f"{where}.privateKey")
    generate = spec.get("generate", False)
    if not isinstance(generate, bool):
        raise SeedError(f"{where}.generate", "must be true or false")
    if generate and (public or private):
        raise SeedError(where, "generate: true takes no publicKey or privateKey")
    if not generate and public is None and private is None:
        raise SeedError(where, 'give publicKey and/or privateKey (hex), or "generate": true')
    if private is not None:
        try:
            pair = key_pair_from_private(private, curve)
        except Exception:
            raise SeedError(f"{where}.privateKey", f"not a {curve} private key (hex)") from None
        if public is not None and public.lower() != pair.public_key:
            raise SeedError(where, "publicKey is not the public key of privateKey")
        public = pair.public_key
    expiration = spec.get("expirationSeconds")
    if expiration is not None:
        if isinstance(expiration, bool) or not isinstance(expiration, int | str):
            raise SeedError(f"{where}.expirationSeconds", "must be a number of seconds")
        expiration = str(expiration)
    name = text(spec.get("name", default_name), f"{where}.name")
    return KeyPlan(where, name, curve, public, private, expiration)


def _policy(data: Any, where: str, declared: Mapping[str, list[str]]) -> PolicyPlan:
    where = labelled(data, where)
    spec = fields(
        data,
        where,
        {"name", "effect", "condition", "consensus", "time", "notes"},
        ("name", "effect"),
    )
    name = text(spec["name"], f"{where}.name")
    effect = spec["effect"]
    if effect not in EFFECTS:
        raise SeedError(f"{where}.effect", f"must be one of {', '.join(EFFECTS)}")
    notes = spec.get("notes", "")
    if not isinstance(notes, str):
        raise SeedError(f"{where}.notes", "expected a string")
    condition, consensus, time = (
        checked_expression(spec.get(key), f"{where}.{key}", declared)
        for key in ("condition", "consensus", "time")
    )
    return PolicyPlan(where, name, effect, condition, consensus, time, notes)


def _quorum(data: Any, where: str, root_user: str, users: list[str]) -> QuorumPlan:
    spec = fields(data, where, {"threshold", "users"}, ("threshold",))
    members = [
        text(entry, f"{where}.users[{i}]")
        for i, entry in enumerate(as_list(spec.get("users", [root_user]), f"{where}.users"))
    ]
    for i, member in enumerate(members):
        if member not in users:
            raise SeedError(
                f"{where}.users[{i}]", f"no user {member!r} in the organization's users"
            )
    if len(set(members)) != len(members):
        raise SeedError(f"{where}.users", "names a user twice")
    threshold = spec["threshold"]
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, int)
        or not 1 <= threshold <= len(members)
    ):
        raise SeedError(
            f"{where}.threshold",
            f"must be a whole number from 1 to the number of quorum users ({len(members)})",
        )
    return QuorumPlan(where, threshold, members)
