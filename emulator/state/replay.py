"""The journal's rows applied to the last whole document: the state at the last commit.

A row is ``{"c": [entry, ...], "ids": [next, nextSecret], "clock": [offsetNs, frozenNs]}``
with the entries of ``state/changes.py``. Replaying works on the JSON document, so
that loading it (``document.load``) checks every record and rebuilds the indexes
exactly as for a saved document. A malformed row is a ``DocumentError``.
"""

from __future__ import annotations

from typing import Any

from ..ground.codec import camel
from .changes import COLLECTIONS
from .records import DocumentError

Json = dict[str, Any]

# collection JSON key -> the JSON key of its records' ids
_RECORD_ID_KEY = {key: camel(codec.id_field) for _, key, codec in COLLECTIONS}


class Replay:
    """A document being brought forward row by row; ``document()`` is the result."""

    def __init__(self, document: Json) -> None:
        if not isinstance(document, dict) or not isinstance(document.get("organizations"), list):
            raise DocumentError("the base document has no organizations")
        self._doc = document
        self._orgs: dict[str, Json] = {}
        for org in document["organizations"]:
            if not isinstance(org, dict) or not isinstance(org.get("organizationId"), str):
                raise DocumentError("the base document has an organization without an id")
            self._orgs[org["organizationId"]] = org
        self._open: dict[str, dict[str, dict[str, Json]]] = {}  # org -> collection -> records
        self._vault: dict[str, dict] | None = None
        self.rows = 0

    def apply(self, row: Any, where: str) -> None:
        try:
            self._apply(row)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise DocumentError(
                f"{where}: not a journal row this emulator wrote ({exc!r})"
            ) from None
        self.rows += 1

    def _apply(self, row: Json) -> None:
        for entry in row["c"]:
            kind = entry[0]
            if kind == "org":
                self._put_org(entry[1], entry[2])
            elif kind == "head":
                org = self._orgs[entry[1]]
                org.update(entry[2])
            elif kind == "rec":
                self._put_record(*entry[1:5])
            elif kind == "vault":
                self._put_vault(*entry[1:4])
            else:
                raise ValueError(f"unknown entry {kind!r}")
        if "facade" in row:
            self._doc["facade"] = row["facade"]
        ids = self._doc["ids"]
        ids["next"], ids["nextSecret"] = row["ids"]
        clock = self._doc["clock"]
        clock["offsetNs"], clock["frozenNs"] = row["clock"]

    def _put_org(self, org_id: str, encoded: Json | None) -> None:
        self._open.pop(org_id, None)
        if encoded is None:
            self._orgs.pop(org_id, None)  # the row's facade drops its root key, if it had one
        else:
            self._orgs[org_id] = encoded

    def _put_record(self, org_id: str, collection: str, record_id: str, encoded: Any) -> None:
        records = self._collection(org_id, collection)
        if encoded is None:
            removed = records.pop(record_id, None)
            if collection == "users" and removed is not None:
                self._freeze_voter(org_id, removed)
        else:
            records[record_id] = encoded

    def _freeze_voter(self, org_id: str, user: Json) -> None:
        """Votes of a user who leaves keep the user's last record (as ``_Voter`` saves it)."""
        for activity in self._collection(org_id, "activities").values():
            for vote in activity.get("votes") or ():
                if vote.get("voter") == "current" and vote.get("userId") == user.get("userId"):
                    vote["voter"] = user

    def _collection(self, org_id: str, collection: str) -> dict[str, Json]:
        opened = self._open.get(org_id)
        if opened is None:
            opened = self._open[org_id] = {}
        records = opened.get(collection)
        if records is None:
            id_key = _RECORD_ID_KEY[collection]
            listed = self._orgs[org_id].get(collection) or []
            records = opened[collection] = {item[id_key]: item for item in listed}
        return records

    def _put_vault(self, section: str, key: Any, value: Any) -> None:
        vault = self._vault_sections()
        if section == "importTargets":
            key = tuple(key)
        held = vault[section]
        if value is None:
            held.pop(key, None)
        else:
            held[key] = value

    def _vault_sections(self) -> dict[str, dict]:
        if self._vault is None:
            vault = self._doc.get("vault") or {}
            targets = {
                (t["organizationId"], t["userId"], t["kind"]): t["secret"]
                for t in vault.get("importTargets") or []
            }
            self._vault = {
                "wallets": dict(vault.get("wallets") or {}),
                "privateKeys": dict(vault.get("privateKeys") or {}),
                "importTargets": targets,
                "secrets": dict(vault.get("secrets") or {}),
            }
        return self._vault

    def document(self) -> Json:
        """The document as of the last row applied."""
        for org_id, collections in self._open.items():
            org = self._orgs.get(org_id)
            if org is not None:
                for collection, records in collections.items():
                    org[collection] = list(records.values())
        self._open = {}
        self._doc["organizations"] = list(self._orgs.values())
        if self._vault is not None:
            sections = self._vault
            self._doc["vault"] = {
                "wallets": sections["wallets"],
                "privateKeys": sections["privateKeys"],
                "secrets": sections["secrets"],
                "importTargets": [
                    {"organizationId": o, "userId": u, "kind": k, "secret": secret}
                    for (o, u, k), secret in sections["importTargets"].items()
                ],
            }
        return self._doc
