"""The cost of encrypted bundles and of a whole e-mail authentication.

The floor is one raw HPKE seal of 32 bytes to a P-256 key with Turnkey's
profile (``emulator.crypto.hpke.seal``: one ephemeral key, one ECDH, the key
schedule, AES-256-GCM), the least any credential bundle costs. The rows:

* ``credential bundle``: ``services.bundles.credential_bundle`` (a fresh seeded
  secret, the seal, Base58Check);
* ``create_read_write_session``: the facade activity that issues a credential
  bundle (a key pair, its registration, the bundle, the activity record);
* ``email auth round trip``: a parent organization's ``email_auth`` for a
  sub-organization user, the e-mail read from the outbox, and the client
  opening the bundle (one HPKE open) into the API key it will stamp with;
* ``export_wallet round trip``: the export bundle (seal and enclave signature)
  and the client checking the signature and opening it;
* ``create_oauth2_credential``: the client encrypting its secret to the TLS fetcher
  (``encrypt_oauth2_client_secret``) and the facade activity opening it;
* ``oauth2_authenticate round trip``: the built-in provider's code (``emu.oauth2``),
  the exchange (the secret opened again, PKCE) and the OIDC token the TLS fetcher signs.

All rows and the floor are called in turn, one call each, so the machine's load
weighs on all alike.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from measuring import Result, in_turn, median

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.crypto import hpke
from emulator.services import bundles
from emulator.testing.client_crypto import (
    TargetKey,
    decrypt_credential_bundle,
    decrypt_export_bundle,
    encrypt_oauth2_client_secret,
)

FLOOR = "HPKE seal"


@dataclass(frozen=True)
class Reps:
    calls: int
    warmup: int


FULL = Reps(calls=1000, warmup=100)
QUICK = Reps(calls=20, warmup=3)


class Setting:
    """A parent organization, a sub-organization with a user who has an e-mail, a wallet."""

    def __init__(self) -> None:
        self.emu = emu = Emulator(timestamp_window_s=None)
        self.parent = emu.create_organization("Parent")
        self.sub_id = emu.create_sub_organization(
            sub_organization_name="Sub",
            root_users=[
                {
                    "userName": "alice",
                    "userEmail": "alice@example.com",
                    "apiKeys": [],
                    "authenticators": [],
                    "oauthProviders": [],
                }
            ],
            root_quorum_threshold=1,
        )["subOrganizationId"]
        self.wallet_id = emu.create_wallet(
            wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
        )["walletId"]
        self.target = TargetKey.generate()
        self.target_raw = bytes.fromhex(self.target.public_key)
        self.secret = os.urandom(32)
        self.app = emu.oauth2.register_client("OAUTH2_PROVIDER_X")
        self.credential_id = self.create_oauth2_credential()
        self.verifier, self.challenge = emu.oauth2.pkce()

    def seal(self) -> None:
        hpke.seal(self.target_raw, self.secret)

    def credential_bundle(self) -> None:
        bundles.credential_bundle(
            self.emu.world, self.target.public_key, bundles.new_p256_secret(self.emu.world)
        )

    def read_write_session(self) -> None:
        self.emu.create_read_write_session(target_public_key=self.target.public_key)

    def email_auth(self) -> None:
        self.emu.email_auth(
            organization_id=self.sub_id,
            caller=self.parent,
            email="alice@example.com",
            target_public_key=self.target.public_key,
            email_customization={"appName": "bench"},
            invalidate_existing=True,
        )
        bundle = self.emu.outbox.last().fields["credentialBundle"]
        decrypt_credential_bundle(bundle, self.target)

    def export_wallet(self) -> None:
        exported = self.emu.export_wallet(
            wallet_id=self.wallet_id, target_public_key=self.target.public_key
        )
        decrypt_export_bundle(
            exported["exportBundle"],
            self.target,
            organization_id=self.parent.organization_id,
            signer_public_key=self.emu.enclave.signer_public_key,
        )

    def create_oauth2_credential(self) -> str:
        sealed = encrypt_oauth2_client_secret(
            self.app.client_secret, self.emu.enclave.tls_fetcher_encrypt_public_key
        )
        return self.emu.create_oauth2_credential(
            provider="OAUTH2_PROVIDER_X",
            client_id=self.app.client_id,
            encrypted_client_secret=sealed,
        )["oauth2CredentialId"]

    def oauth2_authenticate(self) -> None:
        code = self.emu.oauth2.authorize(
            self.app, user_id="1", redirect_uri="https://a/cb", code_challenge=self.challenge
        )
        self.emu.oauth2_authenticate(
            oauth2_credential_id=self.credential_id,
            auth_code=code,
            redirect_uri="https://a/cb",
            code_verifier=self.verifier,
            nonce="n",
        )


def run(quick: bool, progress: Callable[[str], None]) -> list[Result]:
    reps = QUICK if quick else FULL
    progress("bundles: HPKE seal (floor), credential bundles, e-mail auth, export")
    setting = Setting()
    rows = [
        ("credential bundle (service)", setting.credential_bundle),
        ("facade create_read_write_session", setting.read_write_session),
        ("email auth round trip (parent → sub-org, outbox, client open)", setting.email_auth),
        ("export_wallet round trip (facade, client verify + open)", setting.export_wallet),
        (
            "create_oauth2_credential (client encrypts, facade opens)",
            setting.create_oauth2_credential,
        ),
        (
            "oauth2_authenticate round trip (provider code, exchange, token)",
            setting.oauth2_authenticate,
        ),
    ]
    samples = in_turn([setting.seal] + [call for _, call in rows], reps.calls, reps.warmup)
    floor = median(samples[0])
    results = [Result("raw HPKE seal, 32 bytes (floor)", samples[0], floor=floor, floor_name=FLOOR)]
    for (label, _), timed in zip(rows, samples[1:], strict=True):
        results.append(Result(label, timed, floor=floor, floor_name=FLOOR))
    return results
