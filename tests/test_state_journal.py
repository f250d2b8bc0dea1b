"""The durable journal of ``serve --state``: rows of what changed, replayed to the live state."""

from __future__ import annotations

import json
import sqlite3

import pytest

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.state.journal import Journal, StateFileClosed
from emulator.state.persistence import StateFile

from .helpers import state_digest, user_params
from .test_state_document import add_failed_activity, fill_busy


def journaled(tmp_path, emu: Emulator | None = None, **options) -> tuple[Emulator, Journal]:
    emu = emu or Emulator(seed=7)
    state = StateFile.create(tmp_path / "state.sqlite", emu.to_document())
    return emu, Journal(emu, state, **options).attach()


def saved(tmp_path) -> dict:
    """The state as a restart reads it (another connection, as a new process would)."""
    state = StateFile.open(tmp_path / "state.sqlite")
    try:
        return state.read()
    finally:
        state.close()


def rows(tmp_path) -> list[dict]:
    db = sqlite3.connect(tmp_path / "state.sqlite")
    try:
        return [json.loads(text) for (text,) in db.execute("SELECT changes FROM journal")]
    finally:
        db.close()


def test_every_kind_of_change_replays_to_the_live_document(tmp_path):
    emu, journal = journaled(tmp_path, compact_every=10**9)
    fill_busy(emu)
    add_failed_activity(emu)
    assert journal.compactions == 0 and len(rows(tmp_path)) > 10
    document = saved(tmp_path)
    assert document == emu.to_document()
    again = Emulator.from_document(document, exact_order=False)
    assert state_digest(again) == state_digest(emu)


def test_a_row_holds_only_what_changed(tmp_path):
    emu, _ = journaled(tmp_path, compact_every=10**9)
    emu.create_organization("Acme")
    for index in range(20):
        emu.create_wallet(
            wallet_name=f"w{index}", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
        )
    emu.create_users(users=[user_params("alice")])
    last = rows(tmp_path)[-1]
    kinds = sorted((entry[0], entry[2]) for entry in last["c"] if entry[0] == "rec")
    assert kinds == [("rec", "activities"), ("rec", "users")]
    assert len(json.dumps(last)) < 4000  # not the twenty wallets
    assert set(last) >= {"c", "ids", "clock"}


def test_compaction_folds_the_rows_into_the_base(tmp_path):
    emu, journal = journaled(tmp_path, compact_every=3)
    emu.create_organization("Acme")
    for index in range(7):
        emu.create_wallet(wallet_name=f"w{index}", accounts=[])
    assert journal.compactions >= 2 and len(rows(tmp_path)) < 3
    assert saved(tmp_path) == emu.to_document()
    journal.close()
    assert rows(tmp_path) == [] and saved(tmp_path) == emu.to_document()


def test_changes_outside_transactions_are_written_by_sync_or_the_next_commit(tmp_path):
    emu, journal = journaled(tmp_path)
    emu.create_organization("Acme")
    kept = emu.snapshot()
    emu.create_wallet(wallet_name="later", accounts=[])
    emu.restore(kept)  # a new store: the whole document is written
    journal.sync()
    assert saved(tmp_path) == emu.to_document()
    emu.clock.advance(3600)
    journal.sync()
    assert saved(tmp_path)["clock"] == emu.to_document()["clock"]
    checkpoint = emu.checkpoint()
    emu.create_wallet(wallet_name="undone", accounts=[])
    emu.rollback(checkpoint)
    emu.create_wallet(wallet_name="after", accounts=[])  # the commit sees the rollback
    assert saved(tmp_path) == emu.to_document()
    emu.reset()
    journal.sync()
    assert saved(tmp_path) == emu.to_document()


def test_a_failed_write_rolls_the_change_back(tmp_path):
    emu, journal = journaled(tmp_path)
    emu.create_organization("Acme")
    before = state_digest(emu)
    journal.state.close()  # every write now fails
    with pytest.raises(sqlite3.ProgrammingError):
        emu.create_wallet(wallet_name="unwritten", accounts=[])
    assert state_digest(emu) == before
    assert emu.list_wallets()["wallets"] == []


def test_a_commit_after_close_fails_and_changes_nothing(tmp_path):
    emu, journal = journaled(tmp_path)
    emu.create_organization("Acme")
    journal.close()
    with pytest.raises(StateFileClosed):
        emu.create_wallet(wallet_name="late", accounts=[])
    assert emu.list_wallets()["wallets"] == []
    assert saved(tmp_path)["organizations"] == emu.to_document()["organizations"]


def test_threads_committing_at_once_replay_to_the_live_state(tmp_path):
    """Commit order is write order: eight threads creating and renaming wallets and users
    at once leave a file that replays to exactly the live document."""
    import threading

    from emulator.engine_state.world import Settings

    emu = Emulator(seed=9, settings=Settings(max_wallets_per_organization=1000))
    emu.create_organization("Acme")
    emu, journal = journaled(tmp_path, emu, compact_every=25)

    def work(n: int) -> None:
        for i in range(12):
            made = emu.create_wallet(wallet_name=f"t{n}-{i}", accounts=[])
            emu.update_wallet(wallet_id=made["walletId"], wallet_name=f"t{n}-{i}-renamed")
            if i % 4 == 0:
                emu.create_users(users=[user_params(f"u{n}-{i}")])

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert journal.compactions >= 3
    assert len(emu.list_wallets()["wallets"]) == 96
    assert saved(tmp_path) == emu.to_document()


def test_the_newer_operations_replay_to_the_live_document(tmp_path):
    """IP allowlists, API-only users, one-field user updates, legacy policy and
    sub-organization versions: each write reaches the journal as it reaches the state."""
    from emulator.crypto.authenticator import VirtualAuthenticator

    emu, journal = journaled(tmp_path, compact_every=10**9)
    emu.create_organization("Acme")
    emu.backdoor.set_client_ip("10.0.0.1")
    (bot,) = emu.create_api_only_users(api_only_users=[{"userName": "bot"}])["userIds"]
    emu.update_user_name(user_id=bot, user_name="robot")
    emu.update_user_email(user_id=bot, user_email="bot@acme.test")
    root_key = emu.organization().api_public_key
    emu.set_ip_allowlist(enabled=True, rules=[{"cidr": "10.0.0.0/20", "label": "office"}])
    emu.set_ip_allowlist(public_key=root_key, rules=[{"cidr": "10.0.0.0/24"}])
    emu.call(
        "create_policy",
        {"policyName": "legacy", "effect": "EFFECT_ALLOW", "selectors": []},
        activity_type="ACTIVITY_TYPE_CREATE_POLICY",
    )
    emu.call(
        "create_sub_organization",
        {"name": "end user", "rootAuthenticator": VirtualAuthenticator().authenticator_params("k")},
        activity_type="ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION",
    )
    emu.remove_ip_allowlist(public_key=root_key)
    emu.create_smart_contract_interface(
        smart_contract_address="0x" + "ab" * 20,
        smart_contract_interface="[]",
        type="SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
        label="abi",
    )
    from emulator.testing import client_crypto

    suite = "TRANSPORT_ENCRYPTION_SUITE_ENCLAVE_ENCRYPT_V1"
    kept, _spare, dropped = emu.init_import_secrets(encryption_suite=suite, num_secrets=3)[
        "enclaveTargetMessages"
    ]
    for message in (kept, dropped):
        target = client_crypto.verify_signed_bundle(message, emu.enclave.signer_public_key)
        emu.import_secrets(
            secrets=[
                {
                    "secretPayload": client_crypto.encrypt_to_bundle(target["targetPublic"], b"s"),
                    "targetPublicKey": target["targetPublic"],
                    "encryptionSuite": suite,
                }
            ]
        )
    emu.delete_secrets(secret_ids=[emu.list_secrets()["secrets"][0]["secretId"]])
    app = emu.oauth2.register_client("OAUTH2_PROVIDER_X")
    sealed = client_crypto.encrypt_oauth2_client_secret(
        app.client_secret, emu.enclave.tls_fetcher_encrypt_public_key
    )
    kept_id, dropped_id = (
        emu.create_oauth2_credential(
            provider="OAUTH2_PROVIDER_X", client_id=app.client_id, encrypted_client_secret=sealed
        )["oauth2CredentialId"]
        for _ in range(2)
    )
    emu.update_oauth2_credential(
        oauth2_credential_id=kept_id,
        provider="OAUTH2_PROVIDER_DISCORD",
        client_id="discord-app",
        encrypted_client_secret=sealed,
    )
    emu.delete_oauth2_credential(oauth2_credential_id=dropped_id)
    verifier, challenge = emu.oauth2.pkce()
    code = emu.oauth2.authorize(
        app, user_id="1", redirect_uri="https://a/cb", code_challenge=challenge
    )
    x_id = emu.create_oauth2_credential(
        provider="OAUTH2_PROVIDER_X", client_id=app.client_id, encrypted_client_secret=sealed
    )["oauth2CredentialId"]
    emu.oauth2_authenticate(
        oauth2_credential_id=x_id,
        auth_code=code,
        redirect_uri="https://a/cb",
        code_verifier=verifier,
        nonce="n",
    )
    made = emu.create_session_profile(session_profile_name="signer", scope="true")
    from emulator.testing.client_crypto import TargetKey

    emu.stamp_login(
        public_key=TargetKey.generate().compressed_public_key,
        session_profile_id=made["sessionProfileId"],
    )
    assert journal.compactions == 0
    document = saved(tmp_path)
    assert document == emu.to_document()
    again = Emulator.from_document(document, exact_order=False)
    assert state_digest(again) == state_digest(emu)
    org = again.world.store.organizations[emu.organization().organization_id]
    assert list(org.ip_allowlists) == [""]
    assert again.world.store.vault.secrets == emu.world.store.vault.secrets
    assert len(again.world.store.vault.secrets) == 1
    pending = [k for k in again.world.store.vault.import_targets if k[2].startswith("secret:")]
    assert len(pending) == 1  # the spare target, still usable after a restart
    credentials = again.world.store.organizations[org.organization_id].oauth2_credentials
    assert [(c.provider, c.client_id) for c in credentials.values()] == [
        ("OAUTH2_PROVIDER_DISCORD", "discord-app"),
        ("OAUTH2_PROVIDER_X", app.client_id),
    ]


def test_webhook_endpoints_and_app_proofs_replay_to_the_live_document(tmp_path):
    emu, journal = journaled(tmp_path, compact_every=10**9)
    emu.create_organization("Acme")
    made = emu.create_webhook_endpoint(
        url="https://hooks.example.com/x",
        name="hooks",
        subscriptions=[{"eventType": "ACTIVITY_UPDATES", "filtersJson": "{}"}],
    )
    emu.update_webhook_endpoint(endpoint_id=made["endpointId"], is_active=False)
    spare = emu.create_webhook_endpoint(
        url="https://hooks.example.com/y", name="spare", subscriptions=[{"eventType": "X_UPDATES"}]
    )
    emu.delete_webhook_endpoint(endpoint_id=spare["endpointId"])
    emu.create_wallet(wallet_name="w", accounts=[], generate_app_proofs=True)
    assert journal.compactions == 0
    document = saved(tmp_path)
    assert document == emu.to_document()
    again = Emulator.from_document(document, exact_order=False)
    (endpoint,) = again.list_webhook_endpoints()["webhookEndpoints"]
    assert (endpoint["endpointId"], endpoint["isActive"]) == (made["endpointId"], False)
    emu.close()
