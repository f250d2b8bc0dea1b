"""A world with something of everything the dashboard shows, for its tests and benchmark."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

from bip_utils import Base58Encoder

from emulator import Emulator, OrganizationHandle
from emulator.accounts import account_spec
from emulator.crypto.api_keys import ApiKeyPair, generate_key_pair
from emulator.crypto.authenticator import VirtualAuthenticator
from emulator.testing.client_crypto import TargetKey

KNOWN_MNEMONIC = "abandon " * 11 + "about"
AUDIENCE = "dashboard-app"
TWO_FOR_WALLETS = "approvers.count() >= 2"


@dataclass
class DashboardWorld:
    emu: Emulator
    org: OrganizationHandle
    keys: dict[str, ApiKeyPair]
    user_ids: dict[str, str]
    sub_org_id: str
    pending: dict = field(default_factory=dict)  # the activity awaiting a second approval
    wallet_address: str = ""


def build(seed: int = 5) -> DashboardWorld:
    emu = Emulator(seed=seed)
    org = emu.create_organization("Acme")
    keys = {name: generate_key_pair("API_KEY_CURVE_P256") for name in ("ann", "bob", "cy")}
    made = emu.create_users(
        users=[
            {
                "userName": name,
                "userEmail": f"{name}@acme.test",
                "apiKeys": [
                    {
                        "apiKeyName": f"{name}'s key",
                        "publicKey": key.public_key,
                        "curveType": "API_KEY_CURVE_P256",
                    }
                ],
            }
            for name, key in keys.items()
        ]
    )
    user_ids = dict(zip(keys, made["userIds"], strict=True))
    device = VirtualAuthenticator()
    emu.create_authenticators(
        user_id=user_ids["cy"], authenticators=[device.authenticator_params("cy's laptop")]
    )
    emu.create_oauth_providers(
        user_id=user_ids["cy"],
        oauth_providers=[
            {"providerName": "test idp", "oidcToken": emu.oidc.token(sub="cy-1", aud=AUDIENCE)}
        ],
    )
    wallet = emu.create_wallet(
        wallet_name="treasury",
        accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM"), account_spec("ADDRESS_FORMAT_SOLANA")],
    )
    emu.backdoor.import_wallet(KNOWN_MNEMONIC, accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")])
    emu.create_private_keys(
        private_keys=[
            {
                "privateKeyName": "cold",
                "curve": "CURVE_SECP256K1",
                "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"],
                "privateKeyTags": [],
            }
        ]
    )
    emu.create_policy(
        policy_name="two for wallets",
        effect="EFFECT_ALLOW",
        notes="",
        condition="activity.resource == 'WALLET' && activity.action == 'CREATE'",
        consensus=TWO_FOR_WALLETS,
    )
    pending = emu.create_wallet(wallet_name="shared", accounts=[], caller=keys["ann"])["activity"]
    emu.backdoor.hold_key(keys["bob"])
    sub = emu.create_sub_organization(
        sub_organization_name="Bea's wallet",
        root_quorum_threshold=1,
        root_users=[{"userName": "bea", "userEmail": "bea@example.test"}],
    )["subOrganizationId"]
    target = TargetKey.generate()
    emu.email_auth(
        organization_id=sub,
        email="bea@example.test",
        target_public_key=target.public_key,
        email_customization={
            "appName": "Acme",
            "magicLinkTemplate": "https://app.example/login?bundle=%s",
        },
    )
    emu.email_auth(
        organization_id=sub,
        email="bea@example.test",
        target_public_key=target.public_key,
        email_customization={"appName": "Evil", "magicLinkTemplate": "javascript:alert(1)//%s"},
    )
    emu.init_otp(otp_type="OTP_TYPE_EMAIL", contact="bea@example.test", app_name="Acme")
    return DashboardWorld(
        emu, org, keys, user_ids, sub, pending, wallet_address=wallet["addresses"][0]
    )


def secret_strings(emu: Emulator, *extra: str) -> dict[str, str]:
    """Every secret the emulator holds, by a name for the message, in the encodings a leak
    would likely take (hex both cases, base64, base64url, base58): mnemonics, wallet
    account and private keys, imported secrets, the enclave's keys, held API private keys."""
    world = emu.world
    vault = world.store.vault
    raw: dict[str, bytes | str] = {}
    for wallet_id, secret in vault.wallets.items():
        raw[f"mnemonic of {wallet_id}"] = secret.mnemonic
    for org in world.store.organizations.values():
        for wallet in org.wallets.values():
            for account in wallet.accounts.values():
                key = emu.backdoor.private_key(account.address, organization_id=org.organization_id)
                raw[f"key of {account.address}"] = bytes.fromhex(key.removeprefix("0x")[:64])
    for key_id, secret in vault.private_keys.items():
        raw[f"private key {key_id}"] = secret
    for secret_id, secret in vault.secrets.items():
        raw[f"secret {secret_id}"] = secret
    for target, secret in vault.import_targets.items():
        raw[f"import target {target}"] = secret
    for role, secret in world.enclave.secrets().items():
        raw[f"enclave {role} key"] = secret
    for pair in emu.held_keys():
        raw[f"API private key of {pair.public_key}"] = bytes.fromhex(pair.private_key)
    for i, text in enumerate(extra):
        raw[f"extra {i}"] = text
    forms: dict[str, str] = {}
    for name, value in raw.items():
        if isinstance(value, str):
            forms[name] = value
            continue
        forms[f"{name} (hex)"] = value.hex()
        forms[f"{name} (HEX)"] = value.hex().upper()
        forms[f"{name} (base64)"] = base64.b64encode(value).decode().rstrip("=")
        forms[f"{name} (base64url)"] = base64.urlsafe_b64encode(value).decode().rstrip("=")
        forms[f"{name} (base58)"] = Base58Encoder.Encode(value)
    return forms
