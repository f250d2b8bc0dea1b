"""Declarative seed files: the organizations, users, keys, wallets and policies a test starts from.

A seed file is JSON (or YAML, when PyYAML is installed; it is not a dependency)
naming what to create. ``apply`` creates it through the public facade
(``create_organization``, ``create_users``, ``create_wallet``, ``create_policy``...), so the
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
        "policies": [{"name": "admins sign with hot", "effect": "EFFECT_ALLOW",
                      "condition": "activity.action == 'SIGN' && wallet.id == '{{wallet:hot}}'",
                      "consensus": "approvers.any(user, user.tags.contains('{{userTag:admins}}'))",
                      "notes": "…"},
                     {"name": "alice never deletes", "effect": "EFFECT_DENY",
                      "condition": "activity.action == 'DELETE'",
                      "consensus": "approvers.any(user, user.id == '{{user:alice}}')"}],
        "rootQuorum": {"threshold": 2, "users": ["Root User", "alice"]},
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
* A policy has ``name`` and ``effect`` (``EFFECT_ALLOW`` or ``EFFECT_DENY``), and optionally
  ``condition``, ``consensus``, ``time`` (policy-language expressions) and ``notes`` (``""``
  by default); each is created with ``create_policy``, after the organization's users, tags,
  wallets and private keys. In the expressions, ``{{kind:name}}`` stands for the id of what
  the same organization's entry names: ``{{user:alice}}`` (the root user too, by its name),
  ``{{userTag:admins}}``, ``{{wallet:hot}}``, ``{{privateKey:signer}}``,
  ``{{privateKeyTag:treasury}}`` (kinds may be snake_case too: ``{{user_tag:admins}}``). A
  placeholder is replaced by the bare id, so quote it as a string: ``'{{wallet:hot}}'``;
  ``{{`` always opens a placeholder. An unknown kind or name is an error before anything is
  created; an expression the emulator cannot parse fails the seed with the API's own
  message (``invalid policy condition: Expression cannot be evaluated: parse error: …``).
* ``rootQuorum`` sets the organization's root quorum (``update_root_quorum``): a
  ``threshold`` and the ``users`` in it, by name (the root user alone by default). It is
  applied last, after every organization of the file: the facade acts as each
  organization's root user, who passes every policy while the quorum is the root user
  alone; under a threshold above 1 (or a quorum without the root user), the facade's later
  activities in that organization need consensus (``approve_activity``) or a policy. Without
  ``rootQuorum`` the quorum is the root user, threshold 1.
* ``subOrganizations`` nest: each is an organization entry of its own, made a
  sub-organization of the one it is in; names and placeholders are the organization's own.

Errors are ``SeedError`` (a ``ValueError``) naming the bad entry, like
``organizations[0].users[1] ('bob').apiKeys[0]: …`` or
``organizations[0] ('Acme').policies[1] ('alice never deletes').condition: …``. ``apply`` is
all or nothing. ``SeedResult`` answers names with ids: ``result["Acme"].policies[name].policy_id``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..crypto.api_keys import ApiKeyPair, key_pair_from_entropy
from ..ground import jsontext
from ..ground.errors import TurnkeyApiError, ValidationFailed
from ..state.placeholders import fill
from ..state.seed_keys import PrivateKeyPlan, WalletPlan
from ..state.seedplan import (
    ROOT_API_KEY_NAME,
    OrganizationPlan,
    PolicyPlan,
    QuorumPlan,
    SeedError,
    UserPlan,
    parse,
)
from .seed_results import (
    ApiKeySeed,
    OrganizationSeed,
    PolicySeed,
    PrivateKeySeed,
    QuorumSeed,
    SeedResult,
    UserSeed,
    WalletSeed,
)

if TYPE_CHECKING:
    from ..engine_state.world import World
    from ..state.snapshot import Snapshot
    from .backdoor import Backdoor
    from .handles import OrganizationHandle


Json = dict[str, Any]


class Emulator(Protocol):
    """What seeding needs of its emulator (``Emulator`` is one: ``emu.seed(...)``); named here
    so that the facade's modules do not import one another in a circle. The operations are the
    generated methods of ``facade/generated.py``."""

    @property
    def world(self) -> World: ...
    @property
    def backdoor(self) -> Backdoor: ...
    def checkpoint(self) -> Any: ...
    def rollback(self, checkpoint: Any, /) -> None: ...
    def snapshot(self) -> Snapshot: ...
    def restore(self, saved: Snapshot, /) -> None: ...
    def create_organization(self, *args: Any, **kwargs: Any) -> OrganizationHandle: ...
    def create_user_tag(self, *args: Any, **kwargs: Any) -> Any: ...
    def create_private_key_tag(self, *args: Any, **kwargs: Any) -> Any: ...
    def create_users(self, *args: Any, **kwargs: Any) -> Any: ...
    def create_wallet(self, *args: Any, **kwargs: Any) -> Any: ...
    def create_private_keys(self, *args: Any, **kwargs: Any) -> Any: ...
    def create_policy(self, *args: Any, **kwargs: Any) -> Any: ...
    def update_root_quorum(self, *args: Any, **kwargs: Any) -> Any: ...


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
            data = jsontext.loads(text)
        except ValueError as exc:  # jsontext.TooDeep too
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
        quorums: list[tuple[QuorumPlan, OrganizationSeed]] = []
        try:
            for plan in plans:
                _apply_organization(emulator, plan, None, result, quorums)
            for quorum, seeded in quorums:  # last: above 1, the facade's calls need consensus
                _apply_quorum(emulator, quorum, seeded)
        except BaseException:
            undo()
            raise
    return result


# ----- applying -----------------------------------------------------------------------------


def _apply_organization(
    emu: Emulator,
    plan: OrganizationPlan,
    parent: OrganizationSeed | None,
    result: SeedResult,
    quorums: list[tuple[QuorumPlan, OrganizationSeed]],
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
    seeded = OrganizationSeed(
        plan.name,
        org_id,
        handle,
        parent.organization_id if parent else None,
        root_quorum=QuorumSeed(1, [handle.user_id]),
    )
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
    for policy in plan.policies:  # after what their placeholders name
        seeded.policies[policy.name] = _apply_policy(emu, policy, seeded)
    if plan.root_quorum is not None:
        quorums.append((plan.root_quorum, seeded))
    for sub in plan.subs:
        _apply_organization(emu, sub, seeded, result, quorums)
    return seeded


def _apply_user(emu: Emulator, plan: UserPlan, org: OrganizationSeed) -> UserSeed:
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


def _apply_wallet(emu: Emulator, plan: WalletPlan, org_id: str) -> WalletSeed:
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


def _apply_private_key(
    emu: Emulator, plan: PrivateKeyPlan, org: OrganizationSeed
) -> PrivateKeySeed:
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


def _apply_policy(emu: Emulator, plan: PolicyPlan, org: OrganizationSeed) -> PolicySeed:
    ids = {
        "user": {name: user.user_id for name, user in org.users.items()},
        "userTag": org.user_tags,
        "wallet": {name: wallet.wallet_id for name, wallet in org.wallets.items()},
        "privateKey": {name: key.private_key_id for name, key in org.private_keys.items()},
        "privateKeyTag": org.private_key_tags,
    }
    condition, consensus, time = (
        fill(text, ids) for text in (plan.condition, plan.consensus, plan.time)
    )
    expressions = {"condition": condition, "consensus": consensus, "time": time}
    made = _step(
        plan.where,
        emu.create_policy,
        policy_name=plan.name,
        effect=plan.effect,
        notes=plan.notes,
        organization_id=org.organization_id,
        **{key: text for key, text in expressions.items() if text is not None},
    )
    return PolicySeed(made["policyId"], plan.name, plan.effect, condition, consensus, time)


def _apply_quorum(emu: Emulator, plan: QuorumPlan, org: OrganizationSeed) -> None:
    user_ids = [org.users[name].user_id for name in plan.users]
    _step(
        plan.where,
        emu.update_root_quorum,
        threshold=plan.threshold,
        user_ids=user_ids,
        organization_id=org.organization_id,
    )
    org.root_quorum = QuorumSeed(plan.threshold, user_ids)


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
