"""Declarative seed files: the organizations, users, keys and wallets a test starts from.

A seed file is JSON (or YAML, when PyYAML is installed; it is not a dependency)
naming what to create. ``apply`` creates it through the public facade
(``create_organization``, ``create_users``, ``create_wallet``...), so the
records, activities and ids are what an API client would have produced; a
wallet of a known mnemonic and a private key of a known value go in through the
test-only backdoor, as imports. Keys may be spelled in camelCase or snake_case.

.. code-block:: json

    {
      "format": "turnkey-emulator-seed", "version": 1,
      "organizations": [{
        "name": "Acme",
        "rootUser": {"name": "Root User", "email": "root@acme.test"},
        "apiKey": {"publicKey": "02…", "privateKey": "…"},
        "userTags": ["admins"],
        "users": [{"name": "alice", "email": "alice@acme.test", "phone": "+15555550100",
                   "tags": ["admins"],
                   "apiKeys": ["generate",
                               {"name": "laptop", "publicKey": "02…", "curve": "API_KEY_CURVE_P256"}]}],
        "privateKeyTags": ["treasury"],
        "wallets": [{"name": "hot", "mnemonic": "abandon … about",
                     "accounts": ["ADDRESS_FORMAT_ETHEREUM", {"format": "ADDRESS_FORMAT_SOLANA", "index": 1}]},
                    {"name": "cold", "mnemonicLength": 24, "accounts": [{"curve": "CURVE_SECP256K1",
                     "pathFormat": "PATH_FORMAT_BIP32", "path": "m/44'/60'/0'/0/0",
                     "addressFormat": "ADDRESS_FORMAT_ETHEREUM"}]}],
        "privateKeys": [{"name": "signer", "curve": "CURVE_SECP256K1", "privateKey": "…",
                         "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"], "tags": ["treasury"]}],
        "subOrganizations": [{"name": "Acme EU", "users": []}]
      }]
    }

* An API key is ``"generate"`` (a new key pair, from the emulator's seeded key stream), or an
  object with ``publicKey`` and/or ``privateKey`` (hex) or ``"generate": true``, and optionally
  ``name``, ``curve`` (``API_KEY_CURVE_P256`` by default) and ``expirationSeconds``.
* An account is an address format (the SDKs' default path, account 0), ``{"format", "index",
  "name"}``, or a full ``v1WalletAccountParams`` (``curve``, ``pathFormat``, ``path``,
  ``addressFormat``, ``name``).
* A wallet without ``mnemonic`` is created (``mnemonicLength`` 12 by default); with one it is
  imported (``"imported": false`` makes it look created). A private key without ``privateKey``
  is created (``curve`` ``CURVE_SECP256K1`` by default), with one it is imported.
* ``policies``: the policy engine is not built yet (issue 6); a non-empty list is an error.

Errors are ``SeedError`` (a ``ValueError``) naming the bad entry, like
``organizations[0].users[1] ('bob').apiKeys[0]: …``. ``apply`` is all or nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..accounts import account_spec
from ..codec import camel
from ..crypto import hd
from ..crypto.api_keys import P256, ApiKeyPair, key_pair_from_entropy, key_pair_from_private
from ..crypto.curves import CURVES
from ..enums import API_KEY_CURVES
from ..errors import TurnkeyApiError, ValidationFailed

if TYPE_CHECKING:
    from ..api import Emulator, OrganizationHandle

SEED_FORMAT = "turnkey-emulator-seed"
SEED_VERSION = 1
ROOT_API_KEY_NAME = "Root API key"  # what bootstrap_organization names the root key
DEFAULT_ROOT_USER = "Root User"

Json = dict[str, Any]


class SeedError(ValueError):
    """A seed file that cannot be applied; ``where`` names the bad entry."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}" if where else problem)
        self.where = where
        self.problem = problem


# ----- what apply answers ------------------------------------------------------------------


@dataclass(frozen=True)
class ApiKeySeed:
    api_key_id: str
    name: str
    key: ApiKeyPair  # usable as ``caller=``; ``private_key`` is "" when the file gave none

    @property
    def public_key(self) -> str:
        return self.key.public_key


@dataclass(frozen=True)
class UserSeed:
    user_id: str
    name: str
    api_keys: dict[str, ApiKeySeed]
    tag_ids: list[str]


@dataclass(frozen=True)
class WalletSeed:
    wallet_id: str
    name: str
    addresses: list[str]  # one per account, in the file's order
    accounts: list[Json]  # the v1WalletAccountParams each address came from


@dataclass(frozen=True)
class PrivateKeySeed:
    private_key_id: str
    name: str
    curve: str
    addresses: dict[str, str]  # address format -> address
    tag_ids: list[str]


@dataclass
class OrganizationSeed:
    name: str
    organization_id: str
    handle: OrganizationHandle  # the root API key: ``caller=`` and ``emu.client(handle)``
    parent_id: str | None = None
    users: dict[str, UserSeed] = field(default_factory=dict)  # the root user too
    user_tags: dict[str, str] = field(default_factory=dict)  # name -> id
    wallets: dict[str, WalletSeed] = field(default_factory=dict)
    private_keys: dict[str, PrivateKeySeed] = field(default_factory=dict)
    private_key_tags: dict[str, str] = field(default_factory=dict)  # name -> id
    sub_organizations: dict[str, OrganizationSeed] = field(default_factory=dict)

    @property
    def root_user_id(self) -> str:
        return self.handle.user_id


@dataclass
class SeedResult:
    """Names to ids and addresses: ``result.organizations["Acme"].wallets["hot"].addresses``.

    ``organizations`` holds every organization of the file, sub-organizations included.
    """

    organizations: dict[str, OrganizationSeed] = field(default_factory=dict)

    def __getitem__(self, name: str) -> OrganizationSeed:
        return self.organizations[name]


# ----- reading ------------------------------------------------------------------------------


def read(path: str | os.PathLike[str]) -> Json:
    """The seed in the file at ``path``: JSON, or YAML (``.yaml``/``.yml``) with PyYAML."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() in (".yaml", ".yml"):
        try:
            import yaml  # type: ignore[import-untyped]
        except ImportError:
            raise ImportError(
                f"{path}: reading a YAML seed file needs PyYAML, which is not installed"
                " (pip install pyyaml), or write the seed file as JSON"
            ) from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise SeedError(str(path), f"not valid YAML ({exc})") from None
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SeedError(str(path), f"not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise SeedError(str(path), "a seed file is an object at the top level")
    return data


def apply(emulator: Emulator, source: str | os.PathLike[str] | Mapping[str, Any]) -> SeedResult:
    """Create everything the seed ``source`` (a file path or a mapping) names, all or nothing."""
    data = source if isinstance(source, Mapping) else read(source)
    plans = parse(data)
    world = emulator.world
    with world.lock:
        if world.journal is not None:  # checkpoints are in use: roll back, keep them valid
            mark = emulator.checkpoint()
            undo: Callable[[], None] = lambda: emulator.rollback(mark)  # noqa: E731
        else:
            saved = emulator.snapshot()
            undo = lambda: emulator.restore(saved)  # noqa: E731
        result = SeedResult()
        try:
            for plan in plans:
                _apply_organization(emulator, plan, None, result)
        except BaseException:
            undo()
            raise
    return result


# ----- parsing: every check that needs no emulator, before anything is created ---------------


@dataclass
class _Key:
    where: str
    name: str
    curve: str
    public_key: str | None
    private_key: str | None = field(repr=False)  # secrets stay out of reprs and tracebacks
    expiration: str | None


@dataclass
class _User:
    where: str
    name: str
    email: str | None
    phone: str | None
    tags: list[str]
    api_keys: list[_Key]


@dataclass
class _Wallet:
    where: str
    name: str
    mnemonic: str | None = field(repr=False)
    mnemonic_length: int | None
    accounts: list[Json]
    imported: bool


@dataclass
class _PrivateKey:
    where: str
    name: str
    curve: str
    private_key: str | None = field(repr=False)
    address_formats: list[str]
    tags: list[str]
    imported: bool


@dataclass
class _Organization:
    where: str
    name: str
    root_user: str
    root_email: str | None
    api_public_key: str | None
    api_private_key: str | None
    user_tags: list[str]
    users: list[_User]
    private_key_tags: list[str]
    wallets: list[_Wallet]
    private_keys: list[_PrivateKey]
    subs: list[_Organization]


def parse(data: Mapping[str, Any]) -> list[_Organization]:
    """The organizations ``data`` names, checked; raises ``SeedError`` naming the bad entry."""
    top = _fields(data, "", {"format", "version", "description", "organizations"})
    if top.get("format", SEED_FORMAT) != SEED_FORMAT:
        raise SeedError("format", f"not a seed file: expected {SEED_FORMAT!r}")
    if top.get("version", SEED_VERSION) != SEED_VERSION:
        raise SeedError("version", f"seed file version {SEED_VERSION} is the only one known")
    names: set[str] = set()
    return [
        _organization(entry, f"organizations[{i}]", names)
        for i, entry in enumerate(_list(top.get("organizations", []), "organizations"))
    ]


def _organization(data: Any, where: str, names: set[str]) -> _Organization:
    where = _labelled(data, where)
    spec = _fields(
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
            "subOrganizations",
        },
        required=("name",),
    )
    name = _text(spec["name"], f"{where}.name")
    if name in names:
        raise SeedError(f"{where}.name", f"another organization is named {name!r}")
    names.add(name)
    if _list(spec.get("policies", []), f"{where}.policies"):
        raise SeedError(
            f"{where}.policies",
            "policies are not supported yet: the policy engine is issue 6",
        )
    root = _fields(spec.get("rootUser", {}), f"{where}.rootUser", {"name", "email"})
    root_user = _text(root.get("name", DEFAULT_ROOT_USER), f"{where}.rootUser.name")
    root_email = _optional_text(root.get("email"), f"{where}.rootUser.email")
    api_public, api_private = None, None
    if "apiKey" in spec:
        key = _api_key(spec["apiKey"], f"{where}.apiKey", ROOT_API_KEY_NAME)
        if key.curve != P256:
            raise SeedError(f"{where}.apiKey.curve", "an organization's root key is P-256")
        if key.name != ROOT_API_KEY_NAME or key.expiration is not None:
            raise SeedError(f"{where}.apiKey", "the root key takes no name or expirationSeconds")
        api_public, api_private = key.public_key, key.private_key  # None, None: generated
    user_tags = _names(spec.get("userTags", []), f"{where}.userTags")
    key_tags = _names(spec.get("privateKeyTags", []), f"{where}.privateKeyTags")
    users = [
        _user(entry, f"{where}.users[{i}]", user_tags)
        for i, entry in enumerate(_list(spec.get("users", []), f"{where}.users"))
    ]
    _unique([root_user, *(u.name for u in users)], f"{where}.users", "user")
    wallets = [
        _wallet(entry, f"{where}.wallets[{i}]")
        for i, entry in enumerate(_list(spec.get("wallets", []), f"{where}.wallets"))
    ]
    _unique([w.name for w in wallets], f"{where}.wallets", "wallet")
    keys = [
        _private_key(entry, f"{where}.privateKeys[{i}]", key_tags)
        for i, entry in enumerate(_list(spec.get("privateKeys", []), f"{where}.privateKeys"))
    ]
    _unique([k.name for k in keys], f"{where}.privateKeys", "private key")
    subs = [
        _organization(entry, f"{where}.subOrganizations[{i}]", names)
        for i, entry in enumerate(
            _list(spec.get("subOrganizations", []), f"{where}.subOrganizations")
        )
    ]
    return _Organization(
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
        subs,
    )


def _user(data: Any, where: str, tags: list[str]) -> _User:
    where = _labelled(data, where)
    spec = _fields(
        data, where, {"name", "email", "phone", "phoneNumber", "tags", "apiKeys"}, ("name",)
    )
    name = _text(spec["name"], f"{where}.name")
    if "phone" in spec and "phoneNumber" in spec:
        raise SeedError(where, "give phone or phoneNumber, not both")
    user_tags = _references(spec.get("tags", []), f"{where}.tags", tags, "userTags")
    keys = [
        _api_key(entry, f"{where}.apiKeys[{i}]", f"API key {i + 1}")
        for i, entry in enumerate(_list(spec.get("apiKeys", []), f"{where}.apiKeys"))
    ]
    _unique([k.name for k in keys], f"{where}.apiKeys", "API key")
    return _User(
        where,
        name,
        _optional_text(spec.get("email"), f"{where}.email"),
        _optional_text(spec.get("phone", spec.get("phoneNumber")), f"{where}.phone"),
        user_tags,
        keys,
    )


def _api_key(data: Any, where: str, default_name: str) -> _Key:
    if data == "generate":
        return _Key(where, default_name, P256, None, None, None)
    spec = _fields(
        data, where, {"name", "publicKey", "privateKey", "curve", "expirationSeconds", "generate"}
    )
    curve = spec.get("curve", P256)
    if curve not in API_KEY_CURVES:
        raise SeedError(f"{where}.curve", f"must be one of {', '.join(API_KEY_CURVES)}")
    public = _optional_text(spec.get("publicKey"), f"{where}.publicKey")
    private = _optional_text(spec.get("privateKey"), f"{where}.privateKey")
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
    name = _text(spec.get("name", default_name), f"{where}.name")
    return _Key(where, name, curve, public, private, expiration)


def _wallet(data: Any, where: str) -> _Wallet:
    where = _labelled(data, where)
    spec = _fields(
        data, where, {"name", "mnemonic", "mnemonicLength", "accounts", "imported"}, ("name",)
    )
    name = _text(spec["name"], f"{where}.name")
    mnemonic = _optional_text(spec.get("mnemonic"), f"{where}.mnemonic")
    length = spec.get("mnemonicLength")
    imported = spec.get("imported", mnemonic is not None)
    if not isinstance(imported, bool):
        raise SeedError(f"{where}.imported", "must be true or false")
    if mnemonic is not None:
        mnemonic = " ".join(mnemonic.split())
        if not hd.is_valid_mnemonic(mnemonic):
            raise SeedError(f"{where}.mnemonic", "not a valid BIP39 English mnemonic")
        if length is not None:
            raise SeedError(f"{where}.mnemonicLength", "only for a generated mnemonic")
    elif "imported" in spec:
        raise SeedError(f"{where}.imported", "only for a wallet of a given mnemonic")
    if length is not None and (isinstance(length, bool) or not isinstance(length, int)):
        raise SeedError(f"{where}.mnemonicLength", "must be a number of words")
    accounts = [
        _account(entry, f"{where}.accounts[{i}]")
        for i, entry in enumerate(_list(spec.get("accounts", []), f"{where}.accounts"))
    ]
    return _Wallet(where, name, mnemonic, length, accounts, imported)


def _account(data: Any, where: str) -> Json:
    if isinstance(data, str):
        return _default_account(data, 0, where)
    spec = _fields(
        data, where, {"format", "index", "name", "curve", "pathFormat", "path", "addressFormat"}
    )
    if "format" in spec:
        extra = sorted(set(spec) - {"format", "index", "name"})
        if extra:
            raise SeedError(where, f"{extra[0]!r} does not go with format (use addressFormat)")
        index = spec.get("index", 0)
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise SeedError(f"{where}.index", "must be a whole number from 0")
        account = _default_account(_text(spec["format"], f"{where}.format"), index, where)
    else:
        if "index" in spec:
            raise SeedError(f"{where}.index", "goes with format, not with a full account spec")
        missing = [k for k in ("curve", "pathFormat", "path", "addressFormat") if k not in spec]
        if missing:
            raise SeedError(
                where,
                f"missing {missing[0]!r}: give an address format, {{format, index}}, or curve,"
                " pathFormat, path and addressFormat",
            )
        account = {k: spec[k] for k in ("curve", "pathFormat", "path", "addressFormat")}
    if "name" in spec:
        account["name"] = _text(spec["name"], f"{where}.name")
    return account


def _default_account(address_format: str, index: int, where: str) -> Json:
    try:
        return account_spec(address_format, index)
    except ValueError:
        raise SeedError(
            where,
            f"no default path for {address_format!r}: give curve, pathFormat, path and"
            " addressFormat",
        ) from None


def _private_key(data: Any, where: str, tags: list[str]) -> _PrivateKey:
    where = _labelled(data, where)
    spec = _fields(
        data,
        where,
        {"name", "curve", "privateKey", "addressFormats", "tags", "imported"},
        ("name",),
    )
    name = _text(spec["name"], f"{where}.name")
    curve = spec.get("curve", hd.SECP256K1)
    if curve not in CURVES:
        raise SeedError(f"{where}.curve", f"must be one of {', '.join(CURVES)}")
    secret = _optional_text(spec.get("privateKey"), f"{where}.privateKey")
    if secret is not None:
        try:
            value = bytes.fromhex(secret.removeprefix("0x"))
            if len(value) != 32:
                raise ValueError
            hd.public_key(curve, value)
        except Exception:
            raise SeedError(
                f"{where}.privateKey", f"not a 32-byte hex {curve} private key"
            ) from None
        secret = value.hex()
    imported = spec.get("imported", secret is not None)
    if not isinstance(imported, bool):
        raise SeedError(f"{where}.imported", "must be true or false")
    if secret is None and "imported" in spec:
        raise SeedError(f"{where}.imported", "only for a private key of a given value")
    formats = [
        _text(f, f"{where}.addressFormats[{i}]")
        for i, f in enumerate(_list(spec.get("addressFormats", []), f"{where}.addressFormats"))
    ]
    key_tags = _references(spec.get("tags", []), f"{where}.tags", tags, "privateKeyTags")
    return _PrivateKey(where, name, curve, secret, formats, key_tags, imported)


# ----- applying -----------------------------------------------------------------------------


def _apply_organization(
    emu: Emulator, plan: _Organization, parent: OrganizationSeed | None, result: SeedResult
) -> OrganizationSeed:
    handle = _step(
        plan.where,
        emu.create_organization,
        plan.name,
        user_name=plan.root_user,
        user_email=plan.root_email,
        api_public_key=plan.api_public_key,
        api_private_key=plan.api_private_key,
        parent_organization_id=parent.organization_id if parent else None,
    )
    org_id = handle.organization_id
    seeded = OrganizationSeed(plan.name, org_id, handle, parent.organization_id if parent else None)
    result.organizations[plan.name] = seeded
    if parent is not None:
        parent.sub_organizations[plan.name] = seeded
    root_key = ApiKeySeed(handle.api_key_id, ROOT_API_KEY_NAME, handle.api_key)
    seeded.users[plan.root_user] = UserSeed(
        handle.user_id, plan.root_user, {ROOT_API_KEY_NAME: root_key}, []
    )

    for i, tag in enumerate(plan.user_tags):
        made = _step(
            f"{plan.where}.userTags[{i}] ({tag!r})",
            emu.create_user_tag,
            user_tag_name=tag,
            user_ids=[],
            organization_id=org_id,
        )
        seeded.user_tags[tag] = made["userTagId"]
    for user in plan.users:
        seeded.users[user.name] = _apply_user(emu, user, seeded)
    for i, tag in enumerate(plan.private_key_tags):
        made = _step(
            f"{plan.where}.privateKeyTags[{i}] ({tag!r})",
            emu.create_private_key_tag,
            private_key_tag_name=tag,
            private_key_ids=[],
            organization_id=org_id,
        )
        seeded.private_key_tags[tag] = made["privateKeyTagId"]
    for wallet in plan.wallets:
        seeded.wallets[wallet.name] = _apply_wallet(emu, wallet, org_id)
    for key in plan.private_keys:
        seeded.private_keys[key.name] = _apply_private_key(emu, key, seeded)
    for sub in plan.subs:
        _apply_organization(emu, sub, seeded, result)
    return seeded


def _apply_user(emu: Emulator, plan: _User, org: OrganizationSeed) -> UserSeed:
    pairs = []
    for key in plan.api_keys:
        if key.public_key is None:
            pair = key_pair_from_entropy(emu.world.ids.secret_bytes(32), key.curve)
        else:
            pair = ApiKeyPair(key.public_key.lower(), key.private_key or "", key.curve)
        pairs.append(pair)
    params: Json = {
        "userName": plan.name,
        "apiKeys": [
            {
                "apiKeyName": key.name,
                "publicKey": pair.public_key,
                "curveType": key.curve,
                **({"expirationSeconds": key.expiration} if key.expiration else {}),
            }
            for key, pair in zip(plan.api_keys, pairs, strict=True)
        ],
        "authenticators": [],
        "oauthProviders": [],
        "userTags": [org.user_tags[tag] for tag in plan.tags],
    }
    if plan.email is not None:
        params["userEmail"] = plan.email
    if plan.phone is not None:
        params["userPhoneNumber"] = plan.phone
    made = _step(plan.where, emu.create_users, users=[params], organization_id=org.organization_id)
    (user_id,) = made["userIds"]
    record = emu.world.store.organizations[org.organization_id].users[user_id]
    keys = {
        key.name: ApiKeySeed(key_id, key.name, pair)
        for key, pair, key_id in zip(plan.api_keys, pairs, record.api_keys, strict=True)
    }
    return UserSeed(user_id, plan.name, keys, list(record.tag_ids))


def _apply_wallet(emu: Emulator, plan: _Wallet, org_id: str) -> WalletSeed:
    if plan.mnemonic is not None:
        made = _step(
            plan.where,
            emu.backdoor.import_wallet,
            plan.mnemonic,
            name=plan.name,
            accounts=plan.accounts,
            organization_id=org_id,
            imported=plan.imported,
        )
    else:
        extra = {"mnemonic_length": plan.mnemonic_length} if plan.mnemonic_length else {}
        made = _step(
            plan.where,
            emu.create_wallet,
            wallet_name=plan.name,
            accounts=plan.accounts,
            organization_id=org_id,
            **extra,
        )
    return WalletSeed(made["walletId"], plan.name, list(made["addresses"]), plan.accounts)


def _apply_private_key(emu: Emulator, plan: _PrivateKey, org: OrganizationSeed) -> PrivateKeySeed:
    tag_ids = [org.private_key_tags[tag] for tag in plan.tags]
    if plan.private_key is not None:
        made = _step(
            plan.where,
            emu.backdoor.import_private_key,
            plan.private_key,
            curve=plan.curve,
            name=plan.name,
            address_formats=plan.address_formats,
            tags=tag_ids,
            organization_id=org.organization_id,
            imported=plan.imported,
        )
    else:
        spec = {
            "privateKeyName": plan.name,
            "curve": plan.curve,
            "privateKeyTags": tag_ids,
            "addressFormats": plan.address_formats,
        }
        answer = _step(
            plan.where,
            emu.create_private_keys,
            private_keys=[spec],
            organization_id=org.organization_id,
        )
        (made,) = answer["privateKeys"]
    addresses = {a["format"]: a["address"] for a in made["addresses"]}
    return PrivateKeySeed(made["privateKeyId"], plan.name, plan.curve, addresses, tag_ids)


def _step(where: str, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``call``, with an API error (or a backdoor's ValueError) as a SeedError naming ``where``."""
    try:
        return call(*args, **kwargs)
    except TurnkeyApiError as exc:
        problem = exc.message
        if isinstance(exc, ValidationFailed):
            problem = "; ".join(f"{v.field}: {v.description}" for v in exc.violations)
        raise SeedError(where, problem) from exc
    except ValueError as exc:
        raise SeedError(where, str(exc)) from exc


# ----- small checks ---------------------------------------------------------------------------


def _fields(data: Any, where: str, allowed: set[str], required: tuple[str, ...] = ()) -> Json:
    """``data`` as an object with camelCase keys, each one ``allowed``, ``required`` present."""
    if not isinstance(data, Mapping):
        raise SeedError(where, f"expected an object, got {type(data).__name__}")
    out: Json = {}
    for key, value in data.items():
        name = camel(key) if isinstance(key, str) else key
        if name not in allowed:
            raise SeedError(where, f"unknown key {key!r} (known: {', '.join(sorted(allowed))})")
        if name in out:
            raise SeedError(where, f"{key!r} is given twice (as camelCase and snake_case)")
        out[name] = value
    for name in required:
        if name not in out:
            raise SeedError(where, f"missing {name!r}")
    return out


def _labelled(data: Any, where: str) -> str:
    """``where`` with the entry's name, when it has one: ``users[1] ('bob')``."""
    name = data.get("name") if isinstance(data, Mapping) else None
    return f"{where} ({name!r})" if isinstance(name, str) and name.strip() else where


def _list(data: Any, where: str) -> list:
    if not isinstance(data, list):
        raise SeedError(where, f"expected a list, got {type(data).__name__}")
    return data


def _text(data: Any, where: str) -> str:
    if not isinstance(data, str) or not data.strip():
        raise SeedError(where, "expected a non-empty string")
    return data


def _optional_text(data: Any, where: str) -> str | None:
    return None if data is None else _text(data, where)


def _names(data: Any, where: str) -> list[str]:
    names = [_text(entry, f"{where}[{i}]") for i, entry in enumerate(_list(data, where))]
    _unique(names, where, "tag")
    return names


def _references(data: Any, where: str, declared: list[str], section: str) -> list[str]:
    names = [_text(entry, f"{where}[{i}]") for i, entry in enumerate(_list(data, where))]
    for i, name in enumerate(names):
        if name not in declared:
            raise SeedError(f"{where}[{i}]", f"no tag {name!r} in the organization's {section}")
    return names


def _unique(names: list[str], where: str, what: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise SeedError(
                where, f"two of them are named {name!r}: each {what} needs its own name"
            )
        seen.add(name)
