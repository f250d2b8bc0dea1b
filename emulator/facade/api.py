"""The Python facade: ``Emulator``, one isolated emulated world.

Every operation of the registry is a method, named as its path names it
(``emu.create_users``, ``emu.list_users``, ``emu.whoami``) and as the official
Python SDK names it where that differs (``emu.get_users``, ``emu.get_whoami``):
real, typed methods generated into ``facade/generated.py`` (``OperationMethods``,
which ``Emulator`` inherits), all calling ``Emulator._run_operation``. Methods take
the wire parameters as keyword arguments, in snake_case (or camelCase), strictly
(``facade/runtime.py``), and answer what the SDK answers: for an activity the activity and
its result's fields (``{"activity": ..., "userIds": [...]}``), for a query the
response body. Errors raise ``TurnkeyApiError`` with the same code, HTTP status
and message as on the wire.

Calls go through the same path as HTTP requests, acting as the caller's API
key (by default the root key of the organization), or as a passkey user with
``caller=`` a ``VirtualAuthenticator`` whose passkey is registered. No HTTP
request is signed, so an activity's vote records the caller's public key (a
passkey's COSE key) and scheme with an empty signature; requests through the
wire or an SDK record their real stamps.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..crypto.api_keys import P256, ApiKeyPair, key_pair_from_entropy, key_pair_from_private
from ..crypto.enclave import EnclaveKeys
from ..engine_state.store import Store
from ..engine_state.world import DEFAULT_TIMESTAMP_WINDOW_S, Checkpoint, Settings, World
from ..ground import jsontext, operation_table
from ..ground.clock import Clock
from ..ground.codec import camel, to_wire
from ..ground.ids import IdSource
from ..ground.operation_table import OperationLike
from ..webhooks.deliveries import deliver_synchronously
from .documents import Documents
from .engine import SCALARS, Engine, load_engine, operation_named, unsigned_stamp
from .generated import OperationMethods
from .handles import Caller, OrganizationHandle, caller_key
from .oidc import EmulatorOidc
from .runtime import fill_empty_lists
from .seams import Seams
from .timestamps import fresh_body
from .wire import WireAccess

if TYPE_CHECKING:  # the engine, passkeys and state files load on first use (import time)
    from ..authproxy.service import AuthProxy
    from ..crypto.authenticator import VirtualAuthenticator
    from ..crypto.stamps import ApiKeyStamp
    from ..crypto.webauthn import WebauthnStamp
    from ..ops import Operation
    from ..state.snapshot import Snapshot

Json = dict[str, Any]


def _load_operations() -> Mapping[str, OperationLike]:
    from ..ops import REGISTRY  # loaded on first use: import time

    return REGISTRY


# the recorders (emu.calls, emu.faults) name operations before the first call loads them
operation_table.install(_load_operations)


class Emulator(OperationMethods, Seams, Documents, WireAccess):
    """One emulated world with its own state, clock and ids.

    ``seed`` makes ids and generated keys the same on every run;
    ``timestamp_window_s`` bounds how far an activity's ``timestampMs`` may be
    from the emulator's clock (``None`` disables the check).

    Thread-safe: every request runs under the world's lock, and each facade
    activity call is its own activity (its ``timestampMs`` is unique and
    increasing, see ``timestamps.fresh_body``), from any number of threads.
    """

    def __init__(
        self,
        *,
        seed: int | None = None,
        clock: Clock | None = None,
        timestamp_window_s: float | None = DEFAULT_TIMESTAMP_WINDOW_S,
        settings: Settings | None = None,
    ) -> None:
        settings = settings or Settings()
        settings.timestamp_window_s = timestamp_window_s
        self._seed = seed
        self._world = World(
            clock=clock or Clock(),
            ids=IdSource(seed),
            settings=settings,
            enclave=EnclaveKeys.create(seed),
        )
        self._oidc = EmulatorOidc(self._world, seed)
        self._callers: dict[str, ApiKeyPair] = {}
        self._first_org_id: str | None = None
        self._last_timestamp_ms = 0
        self._stamps: dict[ApiKeyPair, ApiKeyStamp | WebauthnStamp] = {}
        self._auth_proxy: AuthProxy | None = None
        # The fused path of the signing activities (``services/fused.py``): on, and how
        # many calls took it. Off only to compare it with the plain path (its tests).
        self.fused = True
        self.fused_calls = 0
        self._callers_seen: dict = {}  # the fused path's callers, by stamp

    # ----- the world --------------------------------------------------------

    @property
    def clock(self) -> Clock:
        return self._world.clock

    @property
    def settings(self) -> Settings:
        return self._world.settings

    def close(self) -> None:
        """Stop the background work (the webhook sender's thread); the state stays usable,
        and a later delivery starts it again."""
        self._world.webhooks.close()

    def __enter__(self) -> Emulator:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def world(self) -> World:
        """The state behind this emulator (for the wire layers and test tools)."""
        return self._world

    def __repr__(self) -> str:
        return f"Emulator(organizations={len(self._world.store.organizations)})"

    # ----- organizations ----------------------------------------------------

    def create_organization(
        self,
        name: str = "Emulated Organization",
        *,
        user_name: str = "Root User",
        user_email: str | None = None,
        api_public_key: str | None = None,
        api_private_key: str | None = None,
        parent_organization_id: str | None = None,
    ) -> OrganizationHandle:
        """Bootstrap an organization: a root user with a P-256 API key, root quorum of one.

        The key pair is generated unless given; a public key alone is
        accepted too (enough for the facade, which signs nothing).
        ``parent_organization_id`` makes it a sub-organization of that one.
        """
        key = self._bootstrap_key(api_public_key, api_private_key)
        if (
            parent_organization_id is not None
            and parent_organization_id not in self._world.store.organizations
        ):
            raise ValueError(f"no organization {parent_organization_id} to be the parent")
        from ..services.organizations import bootstrap_organization

        with self._world.lock:
            made = bootstrap_organization(
                self._world,
                name=name,
                user_name=user_name,
                user_email=user_email,
                public_key=key.public_key,
                curve=P256,
                parent_id=parent_organization_id,
            )
        org_id = made.organization.organization_id
        self._callers[org_id] = key
        if self._first_org_id is None:
            self._first_org_id = org_id
        return OrganizationHandle(
            org_id, name, made.user.user_id, user_name, made.api_key.api_key_id, key
        )

    def held_keys(self) -> list[ApiKeyPair]:
        """The API key pairs whose private half this emulator holds, and so can sign as (the
        dashboard approves activities as their users): the root keys ``create_organization``
        made or was given, every key pair passed as ``caller=`` and ``backdoor.hold_key``."""
        pairs = {pair.public_key: pair for pair in self._stamps if isinstance(pair, ApiKeyPair)}
        pairs.update((pair.public_key, pair) for pair in self._callers.values())
        return [pair for pair in pairs.values() if pair.private_key]

    def _default_organization_id(self) -> str:
        if self._first_org_id is None:
            raise ValueError("create an organization first, or pass organization_id=")
        return self._first_org_id

    def _bootstrap_key(self, public_key: str | None, private_key: str | None) -> ApiKeyPair:
        if private_key is not None:
            pair = key_pair_from_private(private_key, P256)
            if public_key is not None and public_key.lower() != pair.public_key:
                raise ValueError("api_public_key is not the public key of api_private_key")
            return pair
        if public_key is not None:
            return ApiKeyPair(public_key.lower(), "", P256)
        return key_pair_from_entropy(self._world.ids.secret_bytes(32), P256)

    # ----- state control ----------------------------------------------------

    def checkpoint(self) -> EmulatorCheckpoint:
        """Mark the state; ``rollback`` returns to it at the cost of the changes since.

        Cheap enough to run around every test (the pytest plugin does). A
        checkpoint stays usable after a rollback to it; one taken after an
        earlier checkpoint is gone once that earlier one is rolled back to.
        """
        return EmulatorCheckpoint(self._world.checkpoint(), self._facade_state())

    def rollback(self, checkpoint: EmulatorCheckpoint) -> None:
        self._world.rollback(checkpoint.world)
        self._set_facade_state(checkpoint.facade)

    def snapshot(self) -> Snapshot:
        """An independent copy of the whole state; ``restore`` it in any order, any number
        of times. Costs a deep copy; for per-test isolation, ``checkpoint`` is cheaper."""
        from ..state import snapshot

        return snapshot.take(self._world, self._facade_state())

    def restore(self, saved: Snapshot) -> None:
        from ..state import snapshot

        with self._world.lock:
            self._set_facade_state(snapshot.put_back(self._world, saved))
            snapshot.rewind_archive(self._world, saved)

    def reset(self) -> None:
        """Back to the state of a new emulator: no organizations, ids from the start, the
        embedded chains started afresh on their next use."""
        with self._world.lock:
            self._world.store = Store()
            self._world.ids = IdSource(self._seed)
            self._world.journal = None
            self._callers.clear()
            self._first_org_id = None
            self._world.calls.clear()
            self._world.faults.clear()
            self._world.outbox.clear()
            self._world.tvc.reset()
            self._world.webhooks.clear()
            self._world.chains = None  # the embedded chains start afresh on their next use
            if self._world.archive is not None:  # serve --state: no archived activities
                self._world.archive.rewind(None)
            self._world.rate_limits = None  # full rate-limit buckets (``ratelimits.py``)

    def organization(self, organization_id: str | None = None) -> OrganizationHandle:
        """The handle of an organization made by ``create_organization`` (the first one by
        default): its ids and root key pair, for example after ``load``."""
        org_id = organization_id or self._default_organization_id()
        key = self._callers.get(org_id)
        org = self._world.store.organizations.get(org_id)
        if key is None or org is None:
            raise KeyError(f"no organization {org_id} made by create_organization")
        owner = next(
            o for o in self._world.store.key_owners(key.public_key) if o.organization_id == org_id
        )
        user = org.users[owner.user_id]
        return OrganizationHandle(org_id, org.name, user.user_id, user.name, owner.api_key_id, key)

    # ----- calling operations -----------------------------------------------

    def call(
        self,
        operation: str,
        parameters: Json | None = None,
        *,
        organization_id: str | None = None,
        caller: Caller | None = None,
        activity_type: str | None = None,
        timestamp_ms: int | str | None = None,
        generate_app_proofs: bool | None = None,
        **kwargs: Any,
    ) -> Json:
        """Run ``operation`` (its path name or SDK method name) with the given parameters,
        a mapping and keywords, in snake_case or camelCase; unlike the typed methods, keys
        are not checked here (unknown ones are dropped, as on the wire)."""
        params = {camel(k): v for k, v in {**(parameters or {}), **kwargs}.items()}
        op = operation_named(operation)
        return self._run_operation(
            op.name,
            params,
            organization_id,
            caller,
            activity_type,
            timestamp_ms,
            generate_app_proofs,
        )

    def _run_operation(
        self,
        name: str,
        params: Json,
        organization_id: str | None,
        caller: Caller | None,
        activity_type: str | None = None,
        timestamp_ms: int | str | None = None,
        generate_app_proofs: bool | None = None,
    ) -> Json:
        """The one path of every facade method: ``params`` (wire names at the top, values
        in either case; ``None`` is left out) as ``caller`` in ``organization_id``."""
        engine = load_engine()
        op = engine.registry[name]
        org_id = organization_id or self._default_organization_id()
        stamp = self._stamp_of(caller_key(self._world.store, self._callers, org_id, caller))
        wire = {
            k: v if type(v) in SCALARS else to_wire(v) for k, v in params.items() if v is not None
        }
        if op.kind == engine.activity:
            version = op.version(activity_type) if activity_type else op.default_version
            if version is not None:
                fill_empty_lists(version.params, wire)
            return self._submit(
                engine, op, org_id, stamp, wire, activity_type, timestamp_ms, generate_app_proofs
            )
        body = {"organizationId": org_id, **wire}
        request = engine.request(op, body, b"", stamp, check_signature=False)
        return engine.dispatch(self._world, request)

    def _stamp_of(self, key: ApiKeyPair | VirtualAuthenticator) -> ApiKeyStamp | WebauthnStamp:
        """The facade's stamp for a caller: who they are, with no signature (not checked;
        a real stamp costs a P-256 signature per call, the wire has them). One per API key."""
        if not isinstance(key, ApiKeyPair):
            return unsigned_stamp(key)
        stamp = self._stamps.get(key)
        if stamp is None:
            stamp = self._stamps[key] = unsigned_stamp(key)
        return stamp

    def _submit(
        self,
        engine: Engine,
        op: Operation,
        org_id: str,
        stamp: ApiKeyStamp | WebauthnStamp,
        params: Json,
        activity_type: str | None,
        timestamp_ms: int | str | None,
        generate_app_proofs: bool | None = None,
    ) -> Json:
        body: Json = {
            "parameters": params,
            "organizationId": org_id,
            "timestampMs": None if timestamp_ms is None else str(timestamp_ms),
            "type": activity_type or op.default_type,
        }
        if generate_app_proofs is not None:
            body["generateAppProofs"] = generate_app_proofs
        # No HTTP request was signed: the vote records the caller's key and scheme with an
        # empty signature.
        with self._world.lock:  # the timestamp and the activity it makes are one step
            response = None
            if timestamp_ms is None:
                raw, known, self._last_timestamp_ms = fresh_body(
                    self._world, body, engine.fingerprint, self._last_timestamp_ms
                )
                if self.fused and body["type"] in engine.fused_types:  # services/fused.py
                    version = op.version(body["type"])
                    response = engine.fused(
                        self._world,
                        op,
                        version,
                        org_id,
                        stamp,
                        body,
                        raw,
                        known,
                        self._callers_seen,
                    )
                    self.fused_calls += response is not None
            else:
                raw, known = jsontext.dumps(body).encode(), None
            if response is None:
                request = engine.request(
                    op, body, raw, stamp, check_signature=False, fingerprint=known
                )
                response = engine.dispatch(self._world, request)
        deliver_synchronously(self._world)  # now that the world is let go of
        activity = response["activity"]
        version = op.version(activity["type"])
        result = activity["result"].get(version.result_key) if version else None
        return {"activity": activity, **(result or {})}


@dataclass(frozen=True)
class EmulatorCheckpoint:
    world: Checkpoint
    facade: dict
