"""The signing rules and the rules of invalid requests of ``TurnkeyStateMachine`` (mixed
into it: see ``state_machine.py``, which holds the rest of the machine and its invariants)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, precondition, rule

from . import strategies as ts
from .machine_model import (
    _BAD_PATHS,
    SIGN_RAW_PAYLOAD_V1,
    SIGN_RAW_PAYLOAD_V2,
    Account,
    Json,
    Model,
    PrivateKeyRef,
)
from .signature_checks import check_signature

if TYPE_CHECKING:
    from ..facade.api import Emulator
    from ..facade.handles import OrganizationHandle

# the machine's bundles, by name (``TurnkeyStateMachine`` declares the same ones)
wallets = Bundle("wallets")
accounts = Bundle("accounts")
private_keys = Bundle("private_keys")


class MachinePart:
    """What a mixin of rules uses of ``TurnkeyStateMachine`` (declared for the type checker)."""

    emu: Emulator
    org: OrganizationHandle
    model: Model
    check_signatures: bool
    created: dict[str, list[Any]]
    max_keys_per_request: int

    if TYPE_CHECKING:

        def submit(
            self, expect_ok: bool, operation: str, params: Json, activity_type: str | None = None
        ) -> Json | None: ...
        def fails(
            self, operation: str, params: Json, *, activity_type: str | None = None
        ) -> None: ...
        def is_live_account(self, address: str) -> bool: ...
        def note_activities(self, count: int) -> None: ...
        def _some(self, data: st.DataObject, bundle: str, label: str) -> list[Any]: ...
        def _made(self, bundle: str, *values: Any) -> Any: ...
        def _max(self, name: str) -> int: ...


class SigningRules(MachinePart):
    """Rules that sign with the model's accounts and keys, and that send invalid requests."""

    # ----- signing -----------------------------------------------------------------------

    def _sign(
        self,
        ok: bool,
        params: Json,
        activity_type: str,
        *,
        curve: str,
        public_key: str | None,
        taproot_address: str | None,
        address_format: str | None = None,
    ) -> None:
        result = self.submit(ok, "sign_raw_payload", params, activity_type)
        if result is None or not self.check_signatures:
            return
        assert public_key is not None
        check_signature(
            result,
            curve=curve,
            public_key=public_key,
            payload=params["payload"],
            encoding=params["encoding"],
            hash_function=params["hashFunction"],
            taproot_address=taproot_address,
            address_format=address_format,
        )

    @rule(account=accounts, data=st.data())
    def sign_with_account(self, account: Account, data: st.DataObject) -> None:
        payload, encoding, hash_function = data.draw(ts.payloads(account.curve), label="payload")
        live = self.model.live_account(account.address)
        params = {
            "signWith": account.address,
            "payload": payload,
            "encoding": encoding,
            "hashFunction": hash_function,
        }
        taproot = live is not None and live.address_format.endswith("_P2TR")
        self._sign(
            live is not None,
            params,
            SIGN_RAW_PAYLOAD_V2,
            curve=account.curve,
            public_key=live.public_key if live else None,
            taproot_address=account.address if taproot else None,
            address_format=live.address_format if live else None,
        )

    @rule(account=accounts, data=st.data())
    def sign_payloads_with_account(self, account: Account, data: st.DataObject) -> None:
        """``sign_raw_payloads``: several payloads, one encoding and hash, signatures in order."""
        drawn = data.draw(st.lists(ts.payloads(account.curve), min_size=1, max_size=3))
        encoding, hash_function = drawn[0][1:]
        payloads = [p for p, e, h in drawn if (e, h) == (encoding, hash_function)]
        live = self.model.live_account(account.address)
        params = {
            "signWith": account.address,
            "payloads": payloads,
            "encoding": encoding,
            "hashFunction": hash_function,
        }
        result = self.submit(live is not None, "sign_raw_payloads", params)
        if result is None or not self.check_signatures:
            return
        assert live is not None
        assert len(result["signatures"]) == len(payloads), result
        taproot = account.address if live.address_format.endswith("_P2TR") else None
        for payload, signature in zip(payloads, result["signatures"], strict=True):
            check_signature(
                signature,
                curve=live.curve,
                public_key=live.public_key,
                payload=payload,
                encoding=encoding,
                hash_function=hash_function,
                taproot_address=taproot,
                address_format=live.address_format,
            )

    @rule(wallet_id=wallets, data=st.data())
    def sign_with_wallet_account(self, wallet_id: str, data: st.DataObject) -> None:
        """Sign with one of the accounts a wallet was made with or given (live or not)."""
        made = [a for a in self.created["accounts"] if a.wallet_id == wallet_id]
        if made:
            self.sign_with_account(data.draw(st.sampled_from(made), label="account"), data)

    @rule(key=private_keys, data=st.data())
    def sign_with_private_key(self, key: PrivateKeyRef, data: st.DataObject) -> None:
        payload, encoding, hash_function = data.draw(ts.payloads(key.curve), label="payload")
        live = self.model.private_keys.get(key.private_key_id)
        names = [key.private_key_id, *(live.addresses.items() if live else ())]
        chosen = data.draw(st.sampled_from(names), label="signWith")
        address_format, sign_with = (None, chosen) if isinstance(chosen, str) else chosen
        options = {"payload": payload, "encoding": encoding, "hashFunction": hash_function}
        if sign_with == key.private_key_id and data.draw(st.booleans(), label="v1"):
            params, activity_type = {"privateKeyId": sign_with, **options}, SIGN_RAW_PAYLOAD_V1
        else:
            params, activity_type = {"signWith": sign_with, **options}, SIGN_RAW_PAYLOAD_V2
        taproot = address_format is not None and address_format.endswith("_P2TR")
        self._sign(
            live is not None,
            params,
            activity_type,
            curve=key.curve,
            public_key=live.public_key if live else None,
            taproot_address=sign_with if taproot else None,
            address_format=address_format,
        )

    # ----- invalid requests --------------------------------------------------------------

    def _some_live_wallet(self, data: st.DataObject) -> str | None:
        if not self.model.wallets:
            return None
        return data.draw(st.sampled_from(sorted(self.model.wallets)), label="wallet")

    @rule(data=st.data())
    def unknown_ids_fail(self, data: st.DataObject) -> None:
        """Every id a request names must exist: an unknown one is an error that changes
        nothing (and a query for it, too)."""
        unknown = data.draw(st.uuids().map(str), label="unknown id")
        known = {
            self.org.user_id,
            *self.model.users,
            *self.model.wallets,
            *self.model.private_keys,
            *self.model.tags,
        }
        if unknown in known:
            return
        account = data.draw(ts.account_specs(), label="account")
        payload = data.draw(ts.payloads(ts.SECP256K1), label="payload")
        operation, params = data.draw(
            st.sampled_from(
                [
                    ("delete_users", {"userIds": [unknown]}),
                    ("delete_wallets", {"walletIds": [unknown], "deleteWithoutExport": True}),
                    ("create_wallet_accounts", {"walletId": unknown, "accounts": [account]}),
                    ("delete_private_keys", {"privateKeyIds": [unknown]}),
                    ("delete_private_key_tags", {"privateKeyTagIds": [unknown]}),
                    (
                        "update_private_key_tag",
                        {
                            "privateKeyTagId": unknown,
                            "addPrivateKeyIds": [],
                            "removePrivateKeyIds": [],
                        },
                    ),
                    (
                        "sign_raw_payload",
                        dict(
                            zip(("payload", "encoding", "hashFunction"), payload, strict=True),
                            signWith=unknown,
                        ),
                    ),
                    ("get_wallet", {"walletId": unknown}),
                    ("get_private_key", {"privateKeyId": unknown}),
                    ("get_user", {"userId": unknown}),
                ]
            ),
            label="request",
        )
        self.fails(operation, params)

    @rule(data=st.data())
    def bad_accounts_fail(self, data: st.DataObject) -> None:
        """A path the curve cannot derive, or an address format it does not make, is a 400
        that changes nothing, whether in create_wallet or create_wallet_accounts."""
        account = dict(data.draw(ts.account_specs(), label="account"))
        kind = data.draw(st.sampled_from(("path", "ed25519 normal step", "format")), label="bad")
        if kind == "path":
            account["path"] = _BAD_PATHS[data.draw(st.sampled_from(sorted(_BAD_PATHS)))]
        elif kind == "ed25519 normal step":
            account["curve"] = ts.ED25519
            account["addressFormat"] = data.draw(
                st.sampled_from(ts.address_formats_for(ts.ED25519))
            )
            account["path"] = data.draw(ts.derivation_paths(ts.ED25519)) + "/0"
        else:
            fits = set(ts.address_formats_for(account["curve"]))
            others = [f for f in ts.address_formats_for(ts.SECP256K1) if f not in fits] + [
                f for f in ts.address_formats_for(ts.ED25519) if f not in fits
            ]
            account["addressFormat"] = data.draw(st.sampled_from(sorted(set(others))))
        good = data.draw(ts.account_spec_lists(max_size=2), label="good accounts")
        good = [a for a in good if ts.account_key(a) != ts.account_key(account)]
        accounts = data.draw(st.permutations([*good, account]), label="accounts")
        wallet_id = self._some_live_wallet(data)
        if wallet_id is None or data.draw(st.booleans(), label="new wallet"):
            name = "bad-accounts"
            while name in self.model.wallets.values():
                name += "!"
            self.fails("create_wallet", {"walletName": name, "accounts": accounts})
        else:
            self.fails("create_wallet_accounts", {"walletId": wallet_id, "accounts": accounts})

    @precondition(lambda self: any(k.curve == ts.ED25519 for k in self.model.private_keys.values()))
    @rule(data=st.data())
    def ed25519_with_a_hash_fails(self, data: st.DataObject) -> None:
        """Ed25519 signs the message itself: any hash function but NOT_APPLICABLE is a 400."""
        ed25519_keys = sorted(
            k for k, v in self.model.private_keys.items() if v.curve == ts.ED25519
        )
        key_id = data.draw(st.sampled_from(ed25519_keys), label="key")
        hash_function = data.draw(st.sampled_from((ts.SHA256, ts.KECCAK256, ts.NO_OP)))
        params = {
            "signWith": key_id,
            "payload": "00" * 32,
            "encoding": ts.HEXADECIMAL,
            "hashFunction": hash_function,
        }
        self.fails("sign_raw_payload", params)
