"""No secret in any repr, str, log line or error (issue 23, item 3).

One world holds one of each kind of secret, every one made through the API as a client
makes it: an imported wallet (a known mnemonic), an imported private key, an OTP in
flight and one used, an e-mail auth credential bundle, a read-write session, an OAuth 2.0
credential (with its provider's client secret, a code and its PKCE verifier), a secret of
the ``secrets`` family, a webhook endpoint (the signing key), the root API key, and a
journal writing it all to a state file. Then every object reachable from the emulator is
walked (its attributes, slots, containers and closures, each object once) and the
``repr`` and ``str`` of each is searched for every secret in every encoding it could take
(hex either case, base64 either alphabet with or without padding, base58, the mnemonic's
words, the OTP code where it stands alone), as are every log line emitted on the way
(all loggers at DEBUG) and the message of every error the API answered.
"""

from __future__ import annotations

import base64
import contextlib
import gc
import io
import itertools
import logging
import re
import secrets as random
import types
from collections import deque
from collections.abc import Iterator
from typing import Any

import bip_utils
import pytest

from emulator import Emulator, Settings, TurnkeyApiError
from emulator.crypto.base58 import base58_encode
from emulator.ground.models import Otp
from emulator.state.journal import Journal
from emulator.state.persistence import StateFile
from emulator.testing import client_crypto
from emulator.testing.client_crypto import (
    TargetKey,
    decrypt_credential_bundle,
    encrypt_oauth2_client_secret,
)
from emulator.webhooks.signing import webhook_signer

from .helpers import api_key_params, new_key
from .test_export_import import sealed_for_import

EMAIL = "root@acme.test"
SUITE = "TRANSPORT_ENCRYPTION_SUITE_ENCLAVE_ENCRYPT_V1"
REDIRECT = "https://app.example/auth/x/redirect"
HOOK = "https://hooks.acme.test/turnkey"
# Values a client itself sent in a request, which the API keeps and answers by design (an
# activity's intent holds the used OTP code; the call log holds each request as sent): the
# plain data (dicts, lists) of requests and answers hold them, no object of the engine
# shows them. Every other secret is in no repr at all, plain containers included.
ECHOED = {"OTP code used", "OAuth authorization code", "PKCE verifier"}
_DATA = (dict, list, tuple, set, frozenset, deque)
_LEAVES = (str, bytes, bytearray, int, float, complex, bool, type(None), range)
_OPAQUE = (
    type,
    types.ModuleType,
    types.BuiltinFunctionType,
    types.CodeType,
    types.FrameType,
    types.GetSetDescriptorType,
    types.MemberDescriptorType,
    types.MethodDescriptorType,
    types.WrapperDescriptorType,
)


# ----- the world -------------------------------------------------------------------------


def _hex(secret: str | bytes) -> bytes:
    return bytes.fromhex(secret) if isinstance(secret, str) else secret


def build(tmp_path) -> tuple[Emulator, dict[str, Any], list[str]]:
    """The world, its secrets by name, and the messages of the errors the API answered."""
    emu = Emulator(seed=23, settings=Settings(webhook_synchronous=True))
    org = emu.create_organization("Acme", user_email=EMAIL)
    # a webhook endpoint (every activity below is delivered to it, signed)
    delivered: list = []
    emu.webhooks.route(HOOK, delivered.append)
    emu.create_webhook_endpoint(
        url=HOOK, name="hooks", subscriptions=[{"eventType": "ACTIVITY_UPDATES"}]
    )
    state = StateFile.create(tmp_path / "state.sqlite", emu.to_document())
    Journal(emu, state, compact_every=10**9).attach()  # the server's journal, as --state
    emu.checkpoint()  # as the pytest plugin does: every commit keeps its undo steps
    found: dict[str, Any] = {
        "root API private key": _hex(org.api_private_key),
        **{f"enclave {r}": s for r, s in emu.enclave.secrets().items()},
        "id stream keys": [emu.world.ids._ids_key, emu.world.ids._secrets_key],
    }
    errors: list[str] = []

    def refused(call, **params) -> None:
        with pytest.raises(TurnkeyApiError) as caught:
            call(**params)
        errors.append(str(caught.value))
        errors.append(repr(caught.value))

    # an imported wallet of a known mnemonic, and the key of its first account
    mnemonic = str(bip_utils.Bip39MnemonicGenerator().FromWordsNumber(24))
    init = emu.init_import_wallet(user_id=org.user_id)["importBundle"]
    emu.import_wallet(
        user_id=org.user_id,
        wallet_name="imported",
        encrypted_bundle=sealed_for_import(emu, org, init, mnemonic.encode()),
        accounts=[
            {
                "curve": "CURVE_SECP256K1",
                "pathFormat": "PATH_FORMAT_BIP32",
                "path": "m/44'/60'/0'/0/0",
                "addressFormat": "ADDRESS_FORMAT_ETHEREUM",
            }
        ],
    )
    found["mnemonic"] = mnemonic
    seed = bip_utils.Bip39SeedGenerator(mnemonic).Generate()
    node = bip_utils.Bip32Secp256k1.FromSeed(seed).DerivePath("m/44'/60'/0'/0/0")
    found["wallet account private key"] = node.PrivateKey().Raw().ToBytes()
    found["wallet seed"] = bytes(seed)

    # an imported private key
    key = random.token_bytes(32)
    init = emu.init_import_private_key(user_id=org.user_id)["importBundle"]
    emu.import_private_key(
        user_id=org.user_id,
        private_key_name="imported key",
        encrypted_bundle=sealed_for_import(emu, org, init, key),
        curve="CURVE_SECP256K1",
        address_formats=["ADDRESS_FORMAT_ETHEREUM"],
    )
    found["imported private key"] = key
    # imports of near-secrets refused: the answer must not echo what the bundle held
    words = mnemonic.split()
    near = " ".join([*words[:-1], "zoo" if words[-1] != "zoo" else "abandon"])  # bad checksum
    init = emu.init_import_wallet(user_id=org.user_id)["importBundle"]
    refused(
        emu.import_wallet,
        user_id=org.user_id,
        wallet_name="near",
        encrypted_bundle=sealed_for_import(emu, org, init, near.encode()),
        accounts=[],
    )
    init = emu.init_import_private_key(user_id=org.user_id)["importBundle"]
    refused(
        emu.import_private_key,
        user_id=org.user_id,
        private_key_name="near key",
        encrypted_bundle=sealed_for_import(emu, org, init, key + b"\x00"),
        curve="CURVE_SECP256K1",
        address_formats=["ADDRESS_FORMAT_ETHEREUM"],
    )
    emu.init_import_private_key(user_id=org.user_id)  # a pending import target, too

    # OTPs: one used (otp_auth), one in flight; a wrong code refused
    used = emu.init_otp_auth(otp_type="OTP_TYPE_EMAIL", contact=EMAIL, app_name="Acme")
    used_code = emu.outbox.last().fields["otpCode"]
    login = TargetKey.generate()
    done = emu.otp_auth(
        otp_id=used["otpId"], otp_code=used_code, target_public_key=login.public_key
    )
    found["OTP session key"] = _private_of(
        decrypt_credential_bundle(done["credentialBundle"], login)
    )
    flight = emu.init_otp_auth(otp_type="OTP_TYPE_EMAIL", contact=EMAIL, app_name="Acme")
    code = emu.outbox.last().fields["otpCode"]
    wrong = "0" * len(code) if code != "0" * len(code) else "1" * len(code)
    refused(
        emu.otp_auth,
        otp_id=flight["otpId"],
        otp_code=wrong,
        target_public_key=TargetKey.generate().public_key,
    )
    found["OTP code in flight"] = code
    found["OTP code used"] = used_code

    # an e-mail auth credential bundle, and a read-write session
    emu.set_organization_feature(name="FEATURE_NAME_EMAIL_AUTH", value="")
    mailed = TargetKey.generate()
    emu.email_auth(
        email=EMAIL, target_public_key=mailed.public_key, email_customization={"appName": "Acme"}
    )
    bundle = emu.outbox.last().fields["credentialBundle"]
    found["e-mail auth key"] = _private_of(decrypt_credential_bundle(bundle, mailed))
    session = TargetKey.generate()
    made = emu.create_read_write_session(target_public_key=session.public_key)
    found["session key"] = _private_of(decrypt_credential_bundle(made["credentialBundle"], session))
    found["client target keys"] = [t.private_key for t in (login, mailed, session)]

    # OAuth 2.0: the provider's client secret, a credential, a code and its verifier
    app = emu.oauth2.register_client("OAUTH2_PROVIDER_X", redirect_uris=[REDIRECT])
    credential = emu.create_oauth2_credential(
        provider=app.provider,
        client_id=app.client_id,
        encrypted_client_secret=encrypt_oauth2_client_secret(
            app.client_secret, emu.enclave.tls_fetcher_encrypt_public_key
        ),
    )["oauth2CredentialId"]
    verifier, challenge = emu.oauth2.pkce()
    auth_code = emu.oauth2.authorize(
        app, user_id="123456789", code_challenge=challenge, redirect_uri=REDIRECT
    )
    refused(
        emu.oauth2_authenticate,
        oauth2_credential_id=credential,
        auth_code=auth_code,
        redirect_uri=REDIRECT,
        code_verifier="x" * 43,
        nonce=emu.oidc.nonce_for(TargetKey.generate().compressed_public_key),
    )
    found["OAuth client secret"] = app.client_secret
    found["PKCE verifier"] = verifier
    found["OAuth authorization code"] = auth_code

    # a secret of the secrets family
    plaintext = b"family-secret-" + random.token_bytes(16)
    target_message = emu.init_import_secrets(encryption_suite=SUITE, num_secrets=1)[
        "enclaveTargetMessages"
    ][0]
    inner = client_crypto.verify_signed_bundle(target_message, emu.enclave.signer_public_key)
    emu.import_secrets(
        secrets=[
            {
                "secretPayload": client_crypto.encrypt_to_bundle(inner["targetPublic"], plaintext),
                "targetPublicKey": inner["targetPublic"],
                "encryptionSuite": SUITE,
                "name": "exchange key",
            }
        ]
    )
    found["secret"] = plaintext
    found["webhook signing key"] = _signing_key_of(webhook_signer(emu.enclave))
    assert delivered

    # a user's API key made by the client (its private half never reaches the emulator)
    pair = new_key()
    emu.create_api_keys(user_id=org.user_id, api_keys=[api_key_params(pair, "ci")])
    found["client API private key"] = _hex(pair.private_key)
    refused(emu.get_wallet, wallet_id="no-such-wallet")
    return emu, found, errors


def _private_of(key: Any) -> bytes:
    value = getattr(key, "private_key", key)
    return _hex(value) if isinstance(value, str) else bytes(value)


def _signing_key_of(signer: Any) -> bytes:
    for value in _slots_and_vars(signer):
        if isinstance(value, bytes | bytearray) and len(value) == 32:
            return bytes(value)
        raw = getattr(value, "private_bytes_raw", None)
        if raw is not None:
            return raw()
    raise AssertionError("the webhook signer's key was not found")


def _slots_and_vars(obj: Any) -> list[Any]:
    values = list(getattr(obj, "__dict__", {}).values())
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if hasattr(obj, name):
                values.append(getattr(obj, name))
    return values


# ----- the search --------------------------------------------------------------------------


def patterns(name: str, secret: Any) -> list[re.Pattern[str]]:
    """Every form ``secret`` could take in a text."""
    if isinstance(secret, list):
        return [p for item in secret for p in patterns(name, item)]
    if name.startswith("OTP code"):
        return [re.compile(rf"(?<![0-9A-Za-z]){re.escape(secret)}(?![0-9A-Za-z])")]
    forms: set[str] = set()
    if isinstance(secret, str):
        if " " in secret:  # a mnemonic: any two of its words in a row
            words = secret.split()
            forms |= {f"{a} {b}" for a, b in itertools.pairwise(words)}
            forms |= {f"{a}', '{b}" for a, b in itertools.pairwise(words)}
        forms.add(secret)
        secret = secret.encode()
    forms |= {secret.hex(), secret.hex().upper(), base58_encode(secret)}
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        text = encode(secret).decode()
        forms |= {text, text.rstrip("=")}
    forms.add(repr(secret)[2:-1])
    return [
        re.compile(re.escape(f), re.IGNORECASE if f.isalnum() else 0) for f in forms if len(f) >= 8
    ]


def reachable(*roots: Any) -> Iterator[Any]:
    """Every object reachable from ``roots`` (not the classes, modules or functions'
    globals), each once."""
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, _LEAVES + _OPAQUE):
            continue
        if isinstance(obj, types.FunctionType):  # its closure and defaults, not its globals
            stack.extend(c.cell_contents for c in obj.__closure__ or () if _filled(c))
            stack.extend(obj.__defaults__ or ())
            continue
        yield obj
        stack.extend(gc.get_referents(obj))


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


def _texts(obj: Any) -> Iterator[str]:
    for render in (repr, str):
        try:
            yield render(obj)
        except Exception as exc:  # a repr that fails is not a leak; its message may be
            yield f"{type(exc).__name__}: {exc}"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = logging.getLogger()
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep(level=logging.DEBUG)
    levels = {name: logging.getLogger(name).level for name in logging.root.manager.loggerDict}
    root.addHandler(handler)
    old = root.level
    root.setLevel(logging.DEBUG)
    for name in levels:
        logging.getLogger(name).setLevel(logging.DEBUG)
    printed = io.StringIO()
    try:
        with contextlib.redirect_stderr(printed), contextlib.redirect_stdout(printed):
            logging.getLogger("emulator.secrets-test").debug("capture works")
            emu, found, errors = build(tmp_path_factory.mktemp("world"))
            emu.close()  # the webhook sender, if one started
    finally:
        root.removeHandler(handler)
        root.setLevel(old)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
    lines = printed.getvalue().splitlines()
    assert [r.getMessage() for r in records[:1]] == ["capture works"]
    for record in records:
        lines.append(record.getMessage())
        if record.exc_info:
            lines.append(logging.Formatter().formatException(record.exc_info))
    return emu, found, errors, lines


def _leaks(texts: list[tuple[str, str]], found: dict[str, Any]) -> list[str]:
    out = []
    for name, secret in found.items():
        for pattern in patterns(name, secret):
            for where, text in texts:
                if pattern.search(text):
                    out.append(f"{name} in {where}: ...{_around(text, pattern)}...")
                    break
    return out


def _around(text: str, pattern: re.Pattern[str]) -> str:
    match = pattern.search(text)
    assert match is not None
    return text[max(0, match.start() - 60) : match.end() + 20]


def test_the_world_holds_one_of_each_secret(world):
    emu, found, errors, _ = world
    assert len(found) >= 17
    org = emu.organization()
    otps = emu.world.store.organizations[org.organization_id].otps
    assert found["OTP code in flight"] in {o.code for o in otps.values() if not o.used}
    assert emu.backdoor.mnemonic(next(iter(emu.world.store.vault.wallets))) == found["mnemonic"]
    assert len(errors) == 10


def test_no_reachable_object_shows_a_secret_in_its_repr_or_str(world):
    emu, found, _, _ = world
    texts, records = [], []
    for obj in reachable(emu, emu.world, emu.settings):
        where = type(obj).__module__ + "." + type(obj).__qualname__
        rendered = [(where, text) for text in _texts(obj)]
        texts.extend(rendered)
        if type(obj) not in _DATA:
            records.extend(rendered)
    kinds = {type(obj).__qualname__ for obj in reachable(emu, emu.world, emu.settings)}
    assert kinds >= {  # the walk reaches every holder of a secret (a check of the walk)
        "Otp",
        "Message",
        "Activity",
        "Vote",
        "AuthorizationCode",
        "ProviderClient",
        "Oauth2Credential",
        "WalletSecret",
        "Keychain",
        "Node",
        "Vault",
        "EnclaveKeys",
        "WebhookSigner",
        "Delivery",
        "CallLog",
        "Journal",
        "StateFile",
        "ApiKeyPair",
    }
    kept = {name: secret for name, secret in found.items() if name not in ECHOED}
    assert _leaks(texts, kept) == []
    echoed = {name: secret for name, secret in found.items() if name in ECHOED}
    assert _leaks(records, echoed) == []


def test_no_log_line_and_no_error_shows_a_secret(world):
    _, found, errors, lines = world
    assert _leaks([("error", e) for e in errors] + [("log", line) for line in lines], found) == []


def test_an_otp_record_hides_its_code():
    """The regression of issue 23: an OTP's code was in the repr of its organization."""
    otp = Otp(
        otp_id="o",
        flow="otp_auth",
        otp_type="OTP_TYPE_EMAIL",
        contact=EMAIL,
        code="7Q2X9KD4M",
        created_at=0,
        expires_at=1,
    )
    assert "7Q2X9KD4M" not in repr(otp) and "7Q2X9KD4M" not in str(otp)


def test_an_organization_store_and_world_with_an_otp_in_flight_hide_its_code(world):
    emu, found, _, _ = world
    code = found["OTP code in flight"]
    org = emu.world.store.organizations[emu.organization().organization_id]
    for obj in (org, emu.world.store, emu.world, emu):
        assert code not in repr(obj) and code not in str(obj)


def test_configuration_reprs_hide_its_credentials():
    """The control token (a bearer credential) and node URLs (a provider's often carries its
    API key) are in no repr of the settings or the wire options."""
    from emulator.http.options import WireOptions

    token, url = "control-" + random.token_hex(16), "https://eth.example/v2/" + random.token_hex(16)
    settings = Settings(chain_rpc_urls={"eip155:1": url})
    options = WireOptions(control_token=token, bound_host="0.0.0.0")
    for obj in (settings, options):
        assert token not in repr(obj) + str(obj) and url not in repr(obj) + str(obj)
