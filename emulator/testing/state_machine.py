"""A hypothesis state machine over the emulator (needs ``hypothesis``, an optional extra).

``TurnkeyStateMachine`` creates, renames and deletes users, wallets and their accounts
(``persist: false`` previews too), private keys and private key tags with random valid
parameters (``emulator.testing.strategies``), signs with random accounts and keys
(``sign_raw_payload`` V1 and V2, ``sign_raw_payloads``), and sends invalid requests (unknown
ids, bad paths, address formats that do not fit the curve, a hash for ed25519, deleting an
unexported wallet or the root user). Whether a request should succeed is the model's call
(names taken, ids deleted, limits reached). After every step it checks:

* ``list_users``, ``list_wallets``, ``list_private_keys``, ``list_private_key_tags`` and
  ``list_wallet_accounts`` answer exactly what the model holds;
* every account of the model is found by ``get_wallet_account``;
* a successful activity adds exactly one activity, a failed one none, and a failed request
  (``TurnkeyApiError``) leaves ``state_digest`` unchanged; queries add no activity;
* every signature verifies with a library other than the one that signed (``eth_keys``
  recovery for secp256k1, ``cryptography`` for P-256 and Ed25519, a reference BIP340
  verifier for a P2TR address, ``eth_account`` for EIP-712 digests; imported when first
  needed: install the package's ``test`` extra, or set ``check_signatures = False``).

Run it as is (``TestTurnkey = TurnkeyStateMachine.TestCase``), or subclass it to check your
own code against the emulator: a rule of yours gets ``self.emu`` (a seeded ``Emulator``, made
in ``__init__`` so your own ``@initialize`` rules can use it), ``self.org`` (its organization
handle), the bundles (``users``, ``wallets``, ``accounts`` from ``create_wallet_accounts``,
``private_keys``, ``tags``; ``self.created[name]`` lists everything each has received, and
every account ever made), and the machine's invariants keep running::

    from hypothesis import settings
    from hypothesis.stateful import rule

    from emulator.testing.state_machine import TurnkeyStateMachine

    import my_app


    class MyAppMachine(TurnkeyStateMachine):
        @rule(account=TurnkeyStateMachine.accounts)
        def my_app_signs_a_greeting(self, account):
            if not self.is_live_account(account.address) or account.curve != "CURVE_SECP256K1":
                return
            signature = my_app.sign_greeting(self.emu, account.address)  # calls the facade
            assert my_app.verify_greeting(account.address, signature)
            self.note_activities(1)  # your call submitted one activity


    class TestMyApp(MyAppMachine.TestCase):
        settings = settings(max_examples=25, stateful_step_count=20, deadline=None)

A rule of yours that submits activities says how many with ``note_activities(n)`` (the
count is an invariant). One that creates or deletes users, wallets, keys or tags updates
``self.model`` the same way (see ``Model``), or the list invariants will report it. Set
``seed`` on the subclass for other ids and keys, ``max_accounts_per_request`` and friends to
draw bigger requests.
"""

from __future__ import annotations

from typing import Any

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    multiple,
    precondition,
    rule,
)

from ..facade.api import Emulator, OrganizationHandle
from ..ground.errors import TurnkeyApiError
from . import strategies as ts
from .digest import state_digest
from .machine_key_rules import KeyRules
from .machine_model import (  # noqa: F401  (public names of this module)
    _BAD_PATHS,
    CREATE_USERS_TYPES,
    SIGN_RAW_PAYLOAD_V1,
    SIGN_RAW_PAYLOAD_V2,
    Account,
    Json,
    KeyModel,
    Model,
    PrivateKeyRef,
    UserModel,
    _account_key,
)
from .machine_rules import SigningRules
from .signature_checks import check_address, check_signature, signed_message

__all__ = [
    "Account",
    "KeyModel",
    "Model",
    "PrivateKeyRef",
    "TurnkeyStateMachine",
    "UserModel",
    "check_signature",
    "signed_message",
    "state_digest",
]


class TurnkeyStateMachine(SigningRules, KeyRules, RuleBasedStateMachine):
    """Random valid and invalid requests against one organization, checked against a model."""

    #: The emulator's seed (ids, keys and signatures are the same on every run).
    seed: int | None = 0
    #: Verify every signature with another library (needs eth_keys, eth_account).
    check_signatures: bool = True
    max_users_per_request: int = 3
    max_accounts_per_request: int = 3
    max_keys_per_request: int = 2

    users = Bundle("users")
    wallets = Bundle("wallets")
    accounts = Bundle("accounts")
    private_keys = Bundle("private_keys")
    tags = Bundle("private_key_tags")

    def __init__(self) -> None:
        super().__init__()
        # Made here rather than in an @initialize rule so that a subclass's own
        # @initialize rules (run in any order) can already use ``self.emu``.
        self.emu = Emulator(seed=self.seed)
        self.org: OrganizationHandle = self.emu.create_organization("State Machine Org")
        self.model = Model()
        self.model.users[self.org.user_id] = UserModel(
            self.org.user_name, api_keys={self.org.api_public_key}
        )
        self._activities = self.activity_count()
        # Everything each bundle has received (dead or alive), for lists and preconditions.
        self.created: dict[str, list[Any]] = {
            name: [] for name in ("users", "wallets", "accounts", "private_keys", "tags")
        }

    @initialize(target=users)
    def root_user(self):
        """The root user is in the ``users`` bundle too (deleting it must fail)."""
        return self._made("users", self.org.user_id)

    def _made(self, bundle: str, *values: Any):
        self.created[bundle].extend(values)
        return multiple(*values)

    def _some(self, data: st.DataObject, bundle: str, label: str) -> list[Any]:
        """Up to two things the bundle has received (none while it is empty)."""
        if not self.created[bundle]:
            return []
        return data.draw(st.lists(st.sampled_from(self.created[bundle]), max_size=2), label)

    # ----- plumbing ----------------------------------------------------------------------

    def activity_count(self) -> int:
        """How many activities the organization holds."""
        return len(self.emu.world.store.organizations[self.org.organization_id].activities)

    def note_activities(self, count: int) -> None:
        """Say that a rule of yours submitted ``count`` activities outside ``submit``."""
        self._activities += count

    def is_live_account(self, address: str) -> bool:
        return self.model.live_account(address) is not None

    def submit(
        self, expect_ok: bool, operation: str, params: Json, activity_type: str | None = None
    ) -> Json | None:
        """Run an activity the model expects to succeed (answer its result) or to fail (check
        that it raises TurnkeyApiError and changes nothing; answer None)."""
        assert self.activity_count() == self._activities, "activities appeared between steps"
        if expect_ok:
            event(f"{operation}: ok")
            result = self.emu.call(operation, params, activity_type=activity_type)
            assert result["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED", result
            self._activities += 1
            assert self.activity_count() == self._activities, f"{operation}: not one activity"
            return result
        self.fails(operation, params, activity_type=activity_type)
        return None

    def fails(self, operation: str, params: Json, *, activity_type: str | None = None) -> None:
        """``operation`` raises TurnkeyApiError and leaves the state digest unchanged."""
        event(f"{operation}: rejected")
        before = state_digest(self.emu)
        try:
            self.emu.call(operation, params, activity_type=activity_type)
        except TurnkeyApiError as error:
            assert 400 <= error.status < 500, (operation, error.status, error.message)
        else:
            raise AssertionError(f"{operation} succeeded; the model expected an error: {params}")
        assert state_digest(self.emu) == before, f"a rejected {operation} changed the state"
        assert self.activity_count() == self._activities

    def _max(self, name: str) -> int:
        return getattr(self.emu.settings, name)

    # ----- users -------------------------------------------------------------------------

    @rule(target=users, data=st.data())
    def create_users(self, data: st.DataObject):
        specs = data.draw(
            st.lists(ts.user_params(), min_size=1, max_size=self.max_users_per_request),
            label="users",
        )
        activity_type = data.draw(st.sampled_from(CREATE_USERS_TYPES), label="type")
        keys = [k["publicKey"].lower() for spec in specs for k in spec["apiKeys"]]
        ok = (
            len(set(keys)) == len(keys)
            and not set(keys) & self.model.api_public_keys()
            and len(self.model.users) + len(specs) <= self._max("max_users_per_organization")
        )
        result = self.submit(ok, "create_users", {"users": specs}, activity_type)
        if result is None:
            return multiple()
        assert len(result["userIds"]) == len(specs)
        for user_id, spec in zip(result["userIds"], specs, strict=True):
            self.model.users[user_id] = UserModel(
                spec["userName"],
                spec.get("userEmail"),
                spec.get("userPhoneNumber"),
                {k["publicKey"].lower() for k in spec["apiKeys"]},
            )
        return self._made("users", *result["userIds"])

    @precondition(lambda self: self.created["users"])
    @rule(user_ids=st.lists(users, min_size=1, max_size=2))
    def delete_users(self, user_ids: list[str]) -> None:
        ok = all(u in self.model.users for u in user_ids) and self.org.user_id not in user_ids
        if self.submit(ok, "delete_users", {"userIds": user_ids}) is not None:
            for user_id in user_ids:
                self.model.users.pop(user_id, None)

    # ----- wallets -----------------------------------------------------------------------

    def _record_accounts(self, wallet_id: str, specs: list[Json], addresses: list[str]):
        assert len(addresses) == len(specs), (specs, addresses)
        made = []
        for spec, address in zip(specs, addresses, strict=True):
            found = self.emu.get_wallet_account(wallet_id=wallet_id, address=address)["account"]
            assert (found["curve"], found["path"], found["addressFormat"]) == ts.account_key(spec)
            check_address(spec["addressFormat"], spec["curve"], found["publicKey"], address)
            account = Account(
                address,
                spec["curve"],
                wallet_id,
                spec["addressFormat"],
                spec["path"],
                found["publicKey"],
                found["walletAccountId"],
            )
            self.model.accounts.setdefault(wallet_id, []).append(account)
            made.append(account)
        return made

    @rule(target=wallets, data=st.data())
    def create_wallet(self, data: st.DataObject):
        name = data.draw(ts.wallet_names(), label="walletName")
        specs = data.draw(ts.account_spec_lists(max_size=self.max_accounts_per_request))
        params: Json = {"walletName": name, "accounts": specs}
        words = data.draw(st.none() | st.sampled_from((12, 15, 18, 21, 24)), label="words")
        if words is not None:
            params["mnemonicLength"] = words
        ok = name not in self.model.wallets.values() and len(self.model.wallets) < self._max(
            "max_wallets_per_organization"
        )
        result = self.submit(ok, "create_wallet", params)
        if result is None:
            return multiple()
        wallet_id = result["walletId"]
        self.model.wallets[wallet_id] = name
        self.model.accounts[wallet_id] = []
        self.created["accounts"].extend(
            self._record_accounts(wallet_id, specs, result["addresses"])
        )
        return self._made("wallets", wallet_id)

    @rule(target=accounts, wallet_id=wallets, data=st.data())
    def create_wallet_accounts(self, wallet_id: str, data: st.DataObject):
        specs = data.draw(
            ts.account_spec_lists(min_size=1, max_size=self.max_accounts_per_request),
            label="accounts",
        )
        taken = {_account_key(a) for a in self.model.accounts.get(wallet_id, [])}
        ok = wallet_id in self.model.wallets and not taken & {ts.account_key(s) for s in specs}
        params = {"walletId": wallet_id, "accounts": specs}
        result = self.submit(ok, "create_wallet_accounts", params)
        if result is None:
            return multiple()
        return self._made("accounts", *self._record_accounts(wallet_id, specs, result["addresses"]))

    @rule(wallet_id=wallets, data=st.data())
    def preview_then_create_accounts(self, wallet_id: str, data: st.DataObject) -> None:
        """``persist: false`` answers the addresses and stores nothing; creating the same
        accounts afterwards gives the same addresses."""
        specs = data.draw(ts.account_spec_lists(min_size=1, max_size=2), label="accounts")
        taken = {_account_key(a) for a in self.model.accounts.get(wallet_id, [])}
        ok = wallet_id in self.model.wallets and not taken & {ts.account_key(s) for s in specs}
        params = {"walletId": wallet_id, "accounts": specs}
        preview = self.submit(ok, "create_wallet_accounts", {**params, "persist": False})
        if preview is None:
            return
        self.accounts_are_found()  # nothing stored
        made = self.submit(True, "create_wallet_accounts", params)
        assert made is not None and made["addresses"] == preview["addresses"], (preview, made)
        self.created["accounts"].extend(self._record_accounts(wallet_id, specs, made["addresses"]))

    @precondition(lambda self: self.created["wallets"])
    @rule(wallet_ids=st.lists(wallets, min_size=1, max_size=2))
    def delete_wallets(self, wallet_ids: list[str]) -> None:
        ok = all(w in self.model.wallets for w in wallet_ids)
        params = {"walletIds": wallet_ids, "deleteWithoutExport": True}
        if self.submit(ok, "delete_wallets", params) is not None:
            for wallet_id in wallet_ids:
                self.model.wallets.pop(wallet_id, None)
                self.model.accounts.pop(wallet_id, None)

    @rule(wallet_id=wallets, name=ts.wallet_names())
    def update_wallet(self, wallet_id: str, name: str) -> None:
        others = {n for w, n in self.model.wallets.items() if w != wallet_id}
        ok = wallet_id in self.model.wallets and name not in others
        params = {"walletId": wallet_id, "walletName": name}
        if self.submit(ok, "update_wallet", params) is not None:
            self.model.wallets[wallet_id] = name

    @precondition(lambda self: self.created["accounts"])
    @rule(data=st.data())
    def delete_wallet_accounts(self, data: st.DataObject) -> None:
        made = st.sampled_from(self.created["accounts"])
        doomed = data.draw(st.lists(made, min_size=1, max_size=2), label="walletAccountIds")
        live = {a.wallet_account_id for accounts in self.model.accounts.values() for a in accounts}
        ids = [a.wallet_account_id for a in doomed]
        ok = all(i in live for i in ids)
        params = {"walletAccountIds": ids, "deleteWithoutExport": True}
        if self.submit(ok, "delete_wallet_accounts", params) is not None:
            for wallet_id, accounts in self.model.accounts.items():
                self.model.accounts[wallet_id] = [
                    a for a in accounts if a.wallet_account_id not in ids
                ]

    @rule(wallet_id=wallets)
    def delete_unexported_wallet_fails(self, wallet_id: str) -> None:
        """Without ``deleteWithoutExport`` an unexported wallet stays."""
        self.submit(False, "delete_wallets", {"walletIds": [wallet_id]})

    # ----- invariants --------------------------------------------------------------------

    @invariant()
    def lists_match_the_model(self) -> None:
        before = self.activity_count()
        users = {u["userId"]: u for u in self.emu.list_users()["users"]}
        assert set(users) == set(self.model.users), "list_users: other user ids"
        for user_id, expected in self.model.users.items():
            user = users[user_id]
            assert user["userName"] == expected.name, user_id
            assert user.get("userEmail") == expected.email, user_id
            assert user.get("userPhoneNumber") == expected.phone_number, user_id
            keys = {k["credential"]["publicKey"] for k in user["apiKeys"]}
            assert keys == expected.api_keys, user_id

        wallets = {w["walletId"]: w["walletName"] for w in self.emu.list_wallets()["wallets"]}
        assert wallets == self.model.wallets, "list_wallets differs from the model"

        listed = {k["privateKeyId"]: k for k in self.emu.list_private_keys()["privateKeys"]}
        assert set(listed) == set(self.model.private_keys), "list_private_keys: other ids"
        for key_id, expected in self.model.private_keys.items():
            key = listed[key_id]
            assert key["privateKeyName"] == expected.name, key_id
            assert key["curve"] == expected.curve, key_id
            assert key["publicKey"] == expected.public_key, key_id
            assert {a["format"]: a["address"] for a in key["addresses"]} == expected.addresses
            assert set(key["privateKeyTags"]) == expected.tags, key_id

        tags = {
            t["tagId"]: t["tagName"] for t in self.emu.list_private_key_tags()["privateKeyTags"]
        }
        assert tags == self.model.tags, "list_private_key_tags differs from the model"
        assert self.activity_count() == before, "a query added an activity"

    def _wallet_accounts(self, wallet_id: str) -> list[Json]:
        """Every account of a wallet, page by page."""
        out: list[Json] = []
        while True:
            options = {"limit": "100"}
            if out:
                options["after"] = out[-1]["walletAccountId"]
            page = self.emu.list_wallet_accounts(wallet_id=wallet_id, pagination_options=options)
            out.extend(page["accounts"])
            if len(page["accounts"]) < 100:
                return out

    @invariant()
    def accounts_are_found(self) -> None:
        before = self.activity_count()
        for wallet_id, accounts in self.model.accounts.items():
            listed = self._wallet_accounts(wallet_id)
            assert [a["address"] for a in listed] == [a.address for a in accounts], wallet_id
            for account in accounts:
                found = self.emu.get_wallet_account(wallet_id=wallet_id, address=account.address)
                assert found["account"]["address"] == account.address
                assert found["account"]["publicKey"] == account.public_key
        assert self.activity_count() == before, "a query added an activity"

    @invariant()
    def activity_count_is_one_per_success(self) -> None:
        found = self.activity_count()
        assert found == self._activities, f"{found} activities, {self._activities} expected"
