"""One run's connection to the endpoint: requests through the official SDK, and the ledger
of what the run made (and may therefore delete).

Every request is built and stamped by the SDK's ``stamp_<operation>`` and sent by its
``send_signed_request``, which polls an activity to a terminal status; an HTTP error comes
back as the SDK's ``TurnkeyNetworkError``, whose ``cause`` is the answer's text. ``call``
turns both into an ``Answer`` (status, JSON) so that a check can compare either.

The ledger holds the id of everything the run created, by kind; ``cleanup`` deletes those
and nothing else, and ``inventory`` lists what the organization has, so the runner can
show that the organization ends as it began.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from turnkey_api_key_stamper import ApiKeyStamper, ApiKeyStamperConfig
from turnkey_http import TurnkeyClient
from turnkey_sdk_types import (
    DeletePoliciesBody,
    DeletePrivateKeysBody,
    DeleteUsersBody,
    DeleteUserTagsBody,
    DeleteWalletsBody,
    GetPoliciesBody,
    GetPrivateKeysBody,
    GetUsersBody,
    GetWalletsBody,
    ListUserTagsBody,
    TurnkeyNetworkError,
)

from ..ground import jsontext  # json.loads with a bound on nesting (standard library only)
from .report import Mismatch

Json = dict[str, Any]
COMPLETED = "ACTIVITY_STATUS_COMPLETED"

#: What the run may create, in the order ``cleanup`` deletes it (policies name users,
#: tags hold users, so they go first).
KINDS = ("policy", "user_tag", "user", "private_key", "wallet")
Inventory = dict[str, dict[str, str]]  # kind -> id -> name
_LISTS = {  # kind -> (query, body, list key, id key, name key)
    "wallet": ("get_wallets", GetWalletsBody(), "wallets", "walletId", "walletName"),
    "private_key": (
        "get_private_keys",
        GetPrivateKeysBody(),
        "privateKeys",
        "privateKeyId",
        "privateKeyName",
    ),
    "user": ("get_users", GetUsersBody(), "users", "userId", "userName"),
    "policy": ("get_policies", GetPoliciesBody(), "policies", "policyId", "policyName"),
    "user_tag": ("list_user_tags", ListUserTagsBody(), "userTags", "tagId", "tagName"),
}


@dataclass(frozen=True)
class Answer:
    """An HTTP status and the JSON that came with it."""

    status: int
    body: Json

    @property
    def activity(self) -> Json:
        activity = self.body.get("activity")
        return activity if isinstance(activity, dict) else {}

    @property
    def activity_status(self) -> str | None:
        return self.activity.get("status")

    def result(self, key: str) -> Json:
        """The completed activity's ``result[key]`` (``{}`` when absent)."""
        result = self.activity.get("result") or {}
        value = result.get(key) if isinstance(result, dict) else None
        return value if isinstance(value, dict) else {}

    def object(self, key: str) -> Json:
        """The answer's ``key``, an object (a ``Mismatch`` when it is not one)."""
        value = self.body.get(key)
        if not isinstance(value, dict):
            raise Mismatch(f"an object at {key}", self.brief())
        return value

    def items(self, key: str) -> list[Json]:
        """The answer's ``key``, a list of objects (a ``Mismatch`` when it is not one)."""
        value = self.body.get(key)
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise Mismatch(f"a list of objects at {key}", self.brief())
        return value

    def brief(self) -> str:
        """A one-line account of the answer, for a FAIL line."""
        if self.status != 200:
            return f"HTTP {self.status} {json.dumps(self.body, sort_keys=True)[:300]}"
        status = self.activity_status
        failure = self.activity.get("failure")
        return f"HTTP 200 {status or 'query'}" + (f" failure={failure}" if failure else "")


@dataclass
class Ledger:
    """The ids this run created, by kind."""

    created: dict[str, list[str]] = field(default_factory=lambda: {k: [] for k in KINDS})

    def add(self, kind: str, *ids: str) -> None:
        self.created[kind].extend(i for i in ids if i not in self.created[kind])

    def forget(self, kind: str, *ids: str) -> None:
        self.created[kind] = [i for i in self.created[kind] if i not in ids]


def client_for(base_url: str, organization_id: str, public_key: str, private_key: str) -> Any:
    return TurnkeyClient(
        base_url=base_url,
        stamper=ApiKeyStamper(ApiKeyStamperConfig(public_key, private_key)),
        organization_id=organization_id,
        polling_interval_ms=250,
        max_polling_retries=40,
    )


class Session:
    """The root client of the test organization, the ledger, and the run's settings."""

    def __init__(
        self,
        base_url: str,
        organization_id: str,
        public_key: str,
        private_key: str,
        *,
        prefix: str,
        signer_public_key: str,
        max_examples: int,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.organization_id = organization_id
        self.client = client_for(self.base_url, organization_id, public_key, private_key)
        self.prefix = prefix
        self.signer_public_key = signer_public_key
        self.max_examples = max_examples
        self.ledger = Ledger()
        self.user_id = ""  # the caller's, from whoami
        self.facts: dict[str, Any] = {}  # what one check leaves for the next

    def name(self, what: str) -> str:
        return f"{self.prefix}-{what}"

    def as_user(self, public_key: str, private_key: str) -> Any:
        return client_for(self.base_url, self.organization_id, public_key, private_key)

    # ----- requests --------------------------------------------------------------------

    def call(self, operation: str, body: Any, client: Any = None) -> Answer:
        """``operation`` through the SDK: stamped by ``stamp_<operation>``, sent (and an
        activity polled) by ``send_signed_request``."""
        sdk = client or self.client
        signed = getattr(sdk, f"stamp_{operation}")(body)
        try:
            payload = sdk.send_signed_request(signed)
        except TurnkeyNetworkError as error:
            if error.status_code is None:
                raise
            return Answer(error.status_code, _json_of(error.cause))
        return Answer(200, _plain(payload) if isinstance(payload, dict) else {"value": payload})

    def ok(self, operation: str, body: Any, client: Any = None) -> Answer:
        """``call``, expecting HTTP 200 and (for an activity) a completed activity."""
        answer = self.call(operation, body, client)
        if answer.status != 200 or answer.activity_status not in (None, COMPLETED):
            raise Mismatch(f"{operation} to succeed (HTTP 200, {COMPLETED})", answer.brief())
        return answer

    # ----- what the organization has ---------------------------------------------------

    def inventory(self) -> Inventory:
        """Every resource of the kinds the run creates: id -> name, by kind."""
        found: Inventory = {}
        for kind, (operation, body, key, id_key, name_key) in _LISTS.items():
            items = self.ok(operation, body).items(key)
            found[kind] = {str(item.get(id_key)): str(item.get(name_key)) for item in items}
        return found

    def claim_strays(self, before: Inventory) -> None:
        """Put in the ledger what is new since ``before`` and carries the run's prefix: what
        a request that was interrupted made after all (the prefix is the run's own)."""
        for kind, resources in self.inventory().items():
            mine = f"{self.prefix}-"
            new = [
                i
                for i, name in resources.items()
                if i not in before[kind] and name.startswith(mine)
            ]
            self.ledger.add(kind, *new)

    def cleanup(self, before: Inventory | None) -> list[tuple[str, str | None]]:
        """Delete what the ledger holds (and, given ``before``, the strays), never an id
        that existed before the run: one ``(kind, problem or None)`` per kind that had
        something to delete."""
        if before is not None:
            with contextlib.suppress(Exception):  # the ledger alone is still deleted
                self.claim_strays(before)
        deleters = {
            "policy": lambda ids: ("delete_policies", DeletePoliciesBody(policyIds=ids)),
            "user_tag": lambda ids: ("delete_user_tags", DeleteUserTagsBody(userTagIds=ids)),
            "user": lambda ids: ("delete_users", DeleteUsersBody(userIds=ids)),
            "private_key": lambda ids: (
                "delete_private_keys",
                DeletePrivateKeysBody(privateKeyIds=ids, deleteWithoutExport=True),
            ),
            "wallet": lambda ids: (
                "delete_wallets",
                DeleteWalletsBody(walletIds=ids, deleteWithoutExport=True),
            ),
        }
        outcomes: list[tuple[str, str | None]] = []
        for kind in KINDS:
            ids = [i for i in self.ledger.created[kind] if before is None or i not in before[kind]]
            if not ids:
                continue
            operation, body = deleters[kind](ids)
            try:
                answer = self.call(operation, body)
            except Exception as error:  # keep deleting the other kinds
                outcomes.append((kind, f"{type(error).__name__}: {error}"))
                continue
            if answer.status == 200 and answer.activity_status == COMPLETED:
                self.ledger.forget(kind, *ids)
                outcomes.append((kind, None))
            else:
                outcomes.append((kind, answer.brief()))
        return outcomes


def _plain(value: Any) -> Any:
    """JSON values only: the SDK's polled activity holds its enums as ``Enum`` members."""
    if isinstance(value, Enum):
        return _plain(value.value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _json_of(text: Any) -> Json:
    try:
        value = jsontext.loads(text) if isinstance(text, str | bytes) else None
    except ValueError:
        value = None
    return value if isinstance(value, dict) else {"text": str(text)[:300]}
