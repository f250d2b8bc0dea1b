"""The client's side of the encrypted bundles, in Python: what ``@turnkey/crypto`` does.

A test that runs an authentication, import or export flow against the emulator
needs to do what the real client does with the answers: open a credential
bundle with its target key, check and open an export bundle, encrypt a
mnemonic or key to an import bundle, check a session JWT. These functions do
that with the emulator's enclave keys (``emu.enclave``) in place of the
production keys the official SDKs pin.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from ..crypto import hpke, jwt
from ..crypto.api_keys import ApiKeyPair, key_pair_from_private
from ..crypto.base58 import base58check_decode
from ..crypto.curves import P256_ORDER
from ..ground import jsontext

Json = dict[str, Any]


class ClientBundleError(ValueError):
    """A bundle the client refuses: bad signature, wrong organization or user, bad shape."""


@dataclass(frozen=True)
class TargetKey:
    """A client's P-256 key pair that bundles are encrypted to (``targetPublicKey``)."""

    private_key: bytes

    @classmethod
    def generate(cls, entropy: bytes | None = None) -> TargetKey:
        raw = entropy if entropy is not None else os.urandom(32)
        return cls((int.from_bytes(raw, "big") % (P256_ORDER - 1) + 1).to_bytes(32, "big"))

    @property
    def public_key(self) -> str:
        """Uncompressed SEC1 hex (130 characters), as the SDKs send ``targetPublicKey``."""
        return hpke.uncompressed(hpke.private_key_from_bytes(self.private_key).public_key()).hex()

    @property
    def compressed_public_key(self) -> str:
        return hpke.compress(bytes.fromhex(self.public_key)).hex()

    @property
    def api_key(self) -> ApiKeyPair:
        """The same key as a P-256 API key pair (a login session key stamps with it)."""
        return key_pair_from_private(self.private_key.hex())

    def __repr__(self) -> str:
        return f"TargetKey(public_key={self.public_key[:18]}…)"


def decrypt_credential_bundle(bundle: str, target: TargetKey) -> ApiKeyPair:
    """The API key a credential bundle carries (``decryptCredentialBundle``)."""
    try:
        raw = base58check_decode(bundle)
        secret = hpke.open_sealed(target.private_key, raw[:33], raw[33:])
    except (ValueError, hpke.HpkeError) as exc:
        raise ClientBundleError(f"credential bundle does not open: {exc}") from exc
    return key_pair_from_private(secret.hex())


def verify_signed_bundle(bundle: str, signer_public_key: str) -> Json:
    """The inner data of an enclave-signed bundle once its signature and signer check out."""
    try:
        outer = jsontext.loads(bundle)
        inner_bytes = bytes.fromhex(outer["data"])
        signature = bytes.fromhex(outer["dataSignature"])
        signer = outer["enclaveQuorumPublic"]
    except (ValueError, TypeError, KeyError) as exc:
        raise ClientBundleError(f"not a signed bundle: {exc}") from exc
    if not isinstance(signer, str):
        raise ClientBundleError("not a signed bundle: enclaveQuorumPublic is not a string")
    if outer.get("version") != "v1.0.0":
        raise ClientBundleError(f"unsupported bundle version {outer.get('version')!r}")
    if signer.lower() != signer_public_key.lower():
        raise ClientBundleError("bundle signed by an unexpected enclave key")
    key = hpke.load_public_key(bytes.fromhex(signer_public_key))
    try:
        key.verify(signature, inner_bytes, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature as exc:
        raise ClientBundleError("bundle signature does not verify") from exc
    return jsontext.loads(inner_bytes)


def decrypt_export_bundle(
    bundle: str, target: TargetKey, *, organization_id: str, signer_public_key: str
) -> bytes:
    """The plaintext of an export bundle (mnemonic text, or raw private key bytes)."""
    inner = verify_signed_bundle(bundle, signer_public_key)
    if inner.get("organizationId") != organization_id:
        raise ClientBundleError("export bundle is for another organization")
    try:
        return hpke.open_sealed(
            target.private_key,
            bytes.fromhex(inner["encappedPublic"]),
            bytes.fromhex(inner["ciphertext"]),
        )
    except (ValueError, KeyError, hpke.HpkeError) as exc:
        raise ClientBundleError(f"export bundle does not open: {exc}") from exc


def encrypt_to_bundle(target_public_key: str, plaintext: bytes) -> str:
    """``{"encappedPublic", "ciphertext"}`` sealed to an enclave target key (hex)."""
    sealed = hpke.seal(bytes.fromhex(target_public_key), plaintext)
    return json.dumps({"encappedPublic": sealed.enc.hex(), "ciphertext": sealed.ciphertext.hex()})


def encrypt_for_import(
    import_bundle: str,
    plaintext: bytes,
    *,
    organization_id: str,
    user_id: str,
    signer_public_key: str,
) -> str:
    """An ``encryptedBundle`` for import_wallet / import_private_key
    (``encryptWalletToBundle`` / ``encryptPrivateKeyToBundle``)."""
    inner = verify_signed_bundle(import_bundle, signer_public_key)
    if inner.get("organizationId") != organization_id or inner.get("userId") != user_id:
        raise ClientBundleError("import bundle is for another organization or user")
    return encrypt_to_bundle(inner["targetPublic"], plaintext)


def verify_session_jwt(session: str, notarizer_public_key: str) -> Json:
    """The claims of a session JWT once the notarizer's signature verifies."""
    key = hpke.load_public_key(bytes.fromhex(notarizer_public_key))
    return jwt.verify_es256(session, key, double_hash=True)


# ----- OTP: the encrypted code, the verification token, the client signature -----------

#: The TLS fetcher key the official clients pin (``@turnkey/crypto`` constants.ts); pass
#: ``emu.enclave.tls_fetcher_public_key`` against the emulator.
PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY = (
    "046b4f88421f76b6ba418afc2ea1d8ced671337d7db6b80478a60d8531bf8f17fa"
    "9a512f0fef96fc0c9b4cd9dff70b34992e520ce04c79d931f6ff6296b547d201"
)
_VERIFICATION_TOKEN_CLAIMS = ("id", "verification_type", "contact", "organization_id", "exp")


def encrypt_otp_code(
    otp_target_bundle: str,
    otp_code: str,
    client_public_key: str,
    *,
    tls_fetcher_public_key: str = PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY,
) -> str:
    """verify_otp's ``encryptedOtpBundle`` (``encryptOtpCodeToBundle``): the target bundle
    of init_otp checked against the TLS fetcher key, then ``{"otp_code", "public_key"}``
    sealed to its ``targetPublic``. ``client_public_key`` is compressed hex."""
    inner = verify_signed_bundle(otp_target_bundle, tls_fetcher_public_key)
    plaintext = json.dumps(
        {"otp_code": otp_code, "public_key": client_public_key}, separators=(",", ":")
    )
    return encrypt_to_bundle(inner["targetPublic"], plaintext.encode())


def verify_verification_token(
    token: str,
    tls_fetcher_public_key: str = PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY,
    *,
    now_ms: int | None = None,
) -> Json:
    """The claims of a verification token (``verifyOtpVerificationToken``): an ES256 JWT
    (SHA-256 once) by the TLS fetcher key, with its claims, not expired at ``now_ms``
    (pass the emulator's ``clock.now_ms()``; ``None`` skips the expiry)."""
    key = hpke.load_public_key(bytes.fromhex(tls_fetcher_public_key))
    header, _, _, _ = jwt.decode(token)
    if header.get("alg") != "ES256" or header.get("typ") != "JWT":
        raise jwt.JwtError(f"unexpected verification token header {header!r}")
    claims = jwt.verify_es256(token, key)
    for name in _VERIFICATION_TOKEN_CLAIMS:
        if not isinstance(claims.get(name), str) or not claims[name]:
            raise jwt.JwtError(f"verification token has no {name!r} claim")
    if now_ms is not None and int(claims["exp"]) < now_ms:
        raise jwt.JwtError("verification token has expired")
    return claims


def _token_claims(verification_token: str) -> Json:
    return jwt.decode(verification_token)[1]


def sign_client_message(key: ApiKeyPair, message: str) -> str:
    """Raw ``r ‖ s`` hex of an ECDSA P-256 / SHA-256 signature of ``message`` (``key``'s
    private half), as the SDKs sign with ``SignatureFormat.Raw``."""
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    private = hpke.private_key_from_bytes(bytes.fromhex(key.private_key))
    r, s = decode_dss_signature(private.sign(message.encode(), ec.ECDSA(hashes.SHA256())))
    return (r.to_bytes(32, "big") + s.to_bytes(32, "big")).hex()


def client_signature_for_login(
    verification_token: str, key: ApiKeyPair, session_public_key: str | None = None
) -> Json:
    """otp_login's ``clientSignature`` (``getClientSignatureMessageForLogin`` and its
    signing): the token's bound ``key`` signs the login of ``session_public_key`` (by
    default the token's own key) with this token."""
    claims = _token_claims(verification_token)
    message = json.dumps(
        {
            "login": {"publicKey": session_public_key or claims["public_key"]},
            "tokenId": claims["id"],
            "type": "USAGE_TYPE_LOGIN",
        },
        separators=(",", ":"),
    )
    return {
        "publicKey": claims["public_key"],
        "scheme": "CLIENT_SIGNATURE_SCHEME_API_P256",
        "message": message,
        "signature": sign_client_message(key, message),
    }


def client_signature_for_signup(
    verification_token: str, key: ApiKeyPair, usage: Json | None = None
) -> Json:
    """create_sub_organization's ``clientSignature`` (``getClientSignatureMessageForSignup``):
    ``usage`` is the ``signupV2`` object (``email``, ``phoneNumber``, ``apiKeys``...)."""
    claims = _token_claims(verification_token)
    message = json.dumps(
        {"signupV2": usage or {}, "tokenId": claims["id"], "type": "USAGE_TYPE_SIGNUP"},
        separators=(",", ":"),
    )
    return {
        "publicKey": claims["public_key"],
        "scheme": "CLIENT_SIGNATURE_SCHEME_API_P256",
        "message": message,
        "signature": sign_client_message(key, message),
    }


# ----- OAuth 2.0: the client secret, the bearer token ---------------------------------------

#: The TLS fetcher's encryption key the official clients pin (``@turnkey/crypto``
#: constants.ts); pass ``emu.enclave.tls_fetcher_encrypt_public_key`` against the emulator.
PRODUCTION_TLS_FETCHER_ENCRYPT_PUBLIC_KEY = (
    "045e899f1fcf7d12b3c8fd997a7a43bb853dd4e8d63419a8f867c70aacc1c4cf9d"
    "04848baca41f0c85ffbbd23cbf78967501cd8eca9e4a6369370a9a38f70d13c0"
)


def encrypt_oauth2_client_secret(
    client_secret: str,
    tls_fetcher_encrypt_public_key: str = PRODUCTION_TLS_FETCHER_ENCRYPT_PUBLIC_KEY,
) -> str:
    """``encryptedClientSecret`` of create_oauth2_credential and update_oauth2_credential
    (``encryptOauth2ClientSecret``): the secret sealed to the TLS fetcher's quorum key, as
    the hex of its envelope (``crypto/quorum.py``)."""
    from ..crypto import quorum

    receiver = bytes.fromhex(tls_fetcher_encrypt_public_key)
    return quorum.encrypt(receiver, client_secret.encode("utf-8")).hex()


def encrypt_on_ramp_secret(secret: str, on_ramp_encrypt_public_key: str) -> str:
    """``encryptedSecretApiKey`` / ``encryptedPrivateApiKey`` of the fiat on-ramp credential
    activities (``encryptOnRampSecret``): the secret sealed with Turnkey's HPKE profile to the
    on-ramp encryption key (compressed hex), the compressed encapsulated key then the
    ciphertext, in base58check."""
    from ..crypto.base58 import base58check_encode

    sealed = hpke.seal(bytes.fromhex(on_ramp_encrypt_public_key), secret.encode("utf-8"))
    return base58check_encode(hpke.compress(sealed.enc) + sealed.ciphertext)


def decrypt_bearer_token(oidc_token: str, target: TargetKey) -> str:
    """The provider's bearer token in an oauth2_authenticate OIDC token's
    ``encrypted_bearer_token`` claim (a credential bundle sealed to ``target``)."""
    bundle = jwt.decode(oidc_token)[1].get("encrypted_bearer_token")
    if not isinstance(bundle, str):
        raise ClientBundleError("the OIDC token has no encrypted_bearer_token claim")
    try:
        raw = base58check_decode(bundle)
        return hpke.open_sealed(target.private_key, raw[:33], raw[33:]).decode()
    except (ValueError, hpke.HpkeError) as exc:
        raise ClientBundleError(f"bearer token does not open: {exc}") from exc
