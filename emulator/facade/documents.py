"""The facade's documents: the whole state saved and loaded (``save``, ``load``,
``to_document``, ``from_document``), and seed files applied (``seed``).

``Emulator`` inherits them (``api.py``); the formats are ``emulator/state/``'s.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, TypeVar

from ..crypto.enclave import EnclaveKeys

if TYPE_CHECKING:
    from ..crypto.api_keys import ApiKeyPair
    from ..engine_state.world import World
    from .seedfile import SeedResult

Json = dict[str, Any]
_Self = TypeVar("_Self", bound="Documents")


class Documents:
    """Saving, loading and seeding one emulator (mixed into ``Emulator``)."""

    _world: World
    _seed: int | None
    _last_timestamp_ms: int
    _callers: dict[str, ApiKeyPair]
    _first_org_id: str | None

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the whole state to ``path`` as a versioned JSON document (``to_document``),
        readable by its owner only (mode 0o600): it CONTAINS SECRETS."""
        from ..state import document

        document.write(path, self.to_document())

    @classmethod
    def load(cls: type[_Self], path: str | os.PathLike[str], **emulator_kwargs: Any) -> _Self:
        """A new emulator in the state ``save`` wrote to ``path`` (see ``from_document``)."""
        from ..state import document

        return cls.from_document(document.read(path), **emulator_kwargs)

    def to_document(self, *, archived: bool = True) -> Json:
        """The whole state as a versioned, JSON-ready document: organizations and everything
        in them, the vault, ids, clock, settings and the root API keys. It CONTAINS SECRETS
        (mnemonics, private keys, API private keys); see ``emulator/state/document.py``.
        ``archived=False`` leaves out the activities archived in the state file of
        ``serve --state`` (``state/archive.py``), as its journal's compactions do."""
        from ..state import document

        with self._world.lock:
            doc = document.dump(self._world, self._saved_facade())
            if archived and self._world.archive is not None:
                self._world.archive.merge_into(doc)
            return doc

    def facade_document(self) -> Json:
        """The facade's part of ``to_document`` (root API keys, seed, first organization):
        what the state file's journal writes when it changes. It CONTAINS SECRETS."""
        from ..state import document

        with self._world.lock:
            return document.dump_facade(self._saved_facade())

    def _saved_facade(self) -> dict:
        facade = {
            **self._facade_state(),
            "seed": self._seed,
            "last_timestamp_ms": self._last_timestamp_ms,
        }
        # A sub-organization made here may have been deleted since: its key goes too.
        orgs = self._world.store.organizations
        facade["callers"] = {k: v for k, v in facade["callers"].items() if k in orgs}
        return facade

    @classmethod
    def from_document(
        cls: type[_Self], doc: Json, *, exact_order: bool = True, **emulator_kwargs: Any
    ) -> _Self:
        """A new emulator in the state ``doc`` holds; it goes on with the same id stream.

        A document of another format or an unknown version, or a malformed one, is a
        ``ValueError`` naming the bad place. ``clock``, ``timestamp_window_s`` and
        ``settings`` given here win over the document's; ``seed`` cannot be given.
        ``exact_order=False`` lets the records' order stand where an order hint of the
        document no longer fits them (a document the state file's journal brought forward).
        """
        if "seed" in emulator_kwargs:
            raise TypeError("from_document() takes no seed: the document carries its id stream")
        from ..state import document

        loaded = document.load(doc, exact_order=exact_order)
        kwargs = dict(emulator_kwargs)
        if "settings" not in kwargs:
            kwargs["settings"] = loaded.settings
            kwargs.setdefault("timestamp_window_s", loaded.settings.timestamp_window_s)
        emu = cls(**kwargs)  # an Emulator's keywords
        emu._seed = loaded.facade["seed"]
        emu._last_timestamp_ms = loaded.facade["last_timestamp_ms"]
        emu._world.store, emu._world.ids = loaded.store, loaded.ids
        emu._world.enclave = loaded.enclave or EnclaveKeys.create(emu._seed)
        if "clock" not in kwargs:
            emu._world.clock.setstate(loaded.clock)
        emu._set_facade_state(loaded.facade)
        return emu

    def seed(self, path_or_mapping: str | os.PathLike[str] | Json) -> SeedResult:
        """Create what a declarative seed file (JSON, or YAML with PyYAML) or mapping names,
        through this facade, all or nothing; answer its names' ids and addresses
        (``result.organizations["Acme"].wallets["hot"].addresses``). See
        ``emulator/facade/seedfile.py`` for the format. A name without a path finds one of
        the examples shipped in ``emulator/seeds/`` (``emu.seed("basic")``)."""
        if isinstance(path_or_mapping, str | os.PathLike):
            from ..seeds import locate

            path_or_mapping = locate(path_or_mapping)
        from . import seedfile

        return seedfile.apply(self, path_or_mapping)

    def _facade_state(self) -> dict:
        return {"callers": dict(self._callers), "first_org_id": self._first_org_id}

    def _set_facade_state(self, state: dict) -> None:
        self._callers = dict(state["callers"])
        self._first_org_id = state["first_org_id"]
