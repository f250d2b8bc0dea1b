"""What the policy engine knows about an activity: its kind, resource, action and exposed params.

Everything here is transcribed from Turnkey's policy-language page
(https://docs.turnkey.com/features/policies/language, "Activity breakdown" and "Appendix"):

* ``RESOURCE_ACTION_TABLE`` is the "Activity types by resource and action" table, row for row.
  The table names one version of each activity (usually the newest); the resource and action
  belong to the activity, not the version, so every other version of the same kind gets them too
  (``ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7`` is ``ORGANIZATION`` / ``CREATE`` like ``_V8``).
* ``EXTRA_RESOURCE_ACTIONS`` holds the few (resource, action) pairs other docs pages state for
  activities that table leaves out (the MFA pages' ``MFA_POLICY`` conditions).
* ``KIND_TABLE`` is the "Activity kinds" table. Every documented kind is the type without
  ``ACTIVITY_TYPE_`` and without a trailing ``_V<n>``; types the table has not caught up with
  (``ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2``) get a kind by that same rule, except the
  root-quorum activities, which the docs say have no kind at all.
* ``PARAMS_TABLE`` is the "Activity parameters" table: the only request fields a policy may read
  as ``activity.params`` (``params_view.py``, named here too).

The tables are data; the lookups are dictionaries built once at import, because the engine asks
for every activity it evaluates.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# activity.params: params_view.py (named here too, for the engine and the tests)
from .params_view import _PARAMS_BY_TYPE as _PARAMS_BY_TYPE
from .params_view import PARAMS_TABLE as PARAMS_TABLE
from .params_view import Param as Param
from .params_view import exposed_params as exposed_params

PREFIX = "ACTIVITY_TYPE_"

# "Root quorum activities": governed by the root quorum, never by policies; no activity.kind.
ROOT_QUORUM_ACTIVITY_TYPES: frozenset[str] = frozenset(
    {
        "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM",
        "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
        "ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE",
        "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME",
    }
)

# "Activity types by resource and action": (activity type, resource, action), in the docs' order.
RESOURCE_ACTION_TABLE: tuple[tuple[str, str, str], ...] = (
    ("ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8", "ORGANIZATION", "CREATE"),
    ("ACTIVITY_TYPE_DELETE_ORGANIZATION", "ORGANIZATION", "DELETE"),
    ("ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION", "ORGANIZATION", "DELETE"),
    ("ACTIVITY_TYPE_CREATE_INVITATIONS", "INVITATION", "CREATE"),
    ("ACTIVITY_TYPE_DELETE_INVITATION", "INVITATION", "DELETE"),
    ("ACTIVITY_TYPE_CREATE_POLICY_V3", "POLICY", "CREATE"),
    ("ACTIVITY_TYPE_CREATE_POLICIES", "POLICY", "CREATE"),
    ("ACTIVITY_TYPE_UPDATE_POLICY_V2", "POLICY", "UPDATE"),
    ("ACTIVITY_TYPE_DELETE_POLICY", "POLICY", "DELETE"),
    ("ACTIVITY_TYPE_DELETE_POLICIES", "POLICY", "DELETE"),
    ("ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE", "SMART_CONTRACT_INTERFACE", "CREATE"),
    ("ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE", "SMART_CONTRACT_INTERFACE", "DELETE"),
    ("ACTIVITY_TYPE_CREATE_WALLET", "WALLET", "CREATE"),
    ("ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS", "WALLET", "CREATE"),
    ("ACTIVITY_TYPE_EXPORT_WALLET", "WALLET", "EXPORT"),
    ("ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT", "WALLET", "EXPORT"),
    ("ACTIVITY_TYPE_INIT_IMPORT_WALLET", "WALLET", "IMPORT"),
    ("ACTIVITY_TYPE_IMPORT_WALLET", "WALLET", "IMPORT"),
    ("ACTIVITY_TYPE_DELETE_WALLETS", "WALLET", "DELETE"),
    ("ACTIVITY_TYPE_UPDATE_WALLET", "WALLET", "UPDATE"),
    ("ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS", "WALLET", "DELETE"),
    ("ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", "PRIVATE_KEY", "CREATE"),
    ("ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG", "PRIVATE_KEY", "CREATE"),
    ("ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG", "PRIVATE_KEY", "UPDATE"),
    ("ACTIVITY_TYPE_DISABLE_PRIVATE_KEY", "PRIVATE_KEY", "DELETE"),
    ("ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS", "PRIVATE_KEY", "DELETE"),
    ("ACTIVITY_TYPE_DELETE_PRIVATE_KEYS", "PRIVATE_KEY", "DELETE"),
    ("ACTIVITY_TYPE_EXPORT_PRIVATE_KEY", "PRIVATE_KEY", "EXPORT"),
    ("ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY", "PRIVATE_KEY", "IMPORT"),
    ("ACTIVITY_TYPE_IMPORT_PRIVATE_KEY", "PRIVATE_KEY", "IMPORT"),
    ("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", "PRIVATE_KEY", "SIGN"),
    ("ACTIVITY_TYPE_SIGN_RAW_PAYLOADS", "PRIVATE_KEY", "SIGN"),
    ("ACTIVITY_TYPE_SIGN_TRANSACTION_V2", "PRIVATE_KEY", "SIGN"),
    ("ACTIVITY_TYPE_ETH_SEND_TRANSACTION", "PRIVATE_KEY", "SIGN"),
    ("ACTIVITY_TYPE_SOL_SEND_TRANSACTION", "PRIVATE_KEY", "SIGN"),
    ("ACTIVITY_TYPE_CREATE_USERS_V4", "USER", "CREATE"),
    ("ACTIVITY_TYPE_CREATE_USER_TAG", "USER", "CREATE"),
    ("ACTIVITY_TYPE_CREATE_API_ONLY_USERS", "USER", "CREATE"),
    ("ACTIVITY_TYPE_UPDATE_USER", "USER", "UPDATE"),
    ("ACTIVITY_TYPE_UPDATE_USER_NAME", "USER", "UPDATE"),
    ("ACTIVITY_TYPE_UPDATE_USER_EMAIL", "USER", "UPDATE"),
    ("ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER", "USER", "UPDATE"),
    ("ACTIVITY_TYPE_UPDATE_USER_TAG", "USER", "UPDATE"),
    ("ACTIVITY_TYPE_DELETE_USERS", "USER", "DELETE"),
    ("ACTIVITY_TYPE_DELETE_USER_TAGS", "USER", "DELETE"),
    ("ACTIVITY_TYPE_CREATE_API_KEYS_V2", "CREDENTIAL", "CREATE"),
    ("ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2", "CREDENTIAL", "CREATE"),
    ("ACTIVITY_TYPE_DELETE_API_KEYS", "CREDENTIAL", "DELETE"),
    ("ACTIVITY_TYPE_DELETE_AUTHENTICATORS", "CREDENTIAL", "DELETE"),
    ("ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2", "CREDENTIAL", "CREATE"),
    ("ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS", "CREDENTIAL", "DELETE"),
    ("ACTIVITY_TYPE_SET_PAYMENT_METHOD_V2", "PAYMENT_METHOD", "UPDATE"),
    ("ACTIVITY_TYPE_DELETE_PAYMENT_METHOD", "PAYMENT_METHOD", "DELETE"),
    ("ACTIVITY_TYPE_ACTIVATE_BILLING_TIER", "SUBSCRIPTION", "CREATE"),
    ("ACTIVITY_TYPE_UPDATE_ALLOWED_ORIGINS", "CONFIG", "UPDATE"),
    ("ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2", "RECOVERY", "CREATE"),
    ("ACTIVITY_TYPE_EMAIL_AUTH_V3", "AUTH", "CREATE"),
    ("ACTIVITY_TYPE_INIT_OTP_AUTH_V3", "AUTH", "CREATE"),
    ("ACTIVITY_TYPE_OTP_AUTH", "AUTH", "CREATE"),
    ("ACTIVITY_TYPE_OAUTH", "AUTH", "CREATE"),
    ("ACTIVITY_TYPE_OAUTH_LOGIN", "AUTH", "CREATE"),
    ("ACTIVITY_TYPE_OTP_LOGIN_V2", "AUTH", "CREATE"),
    ("ACTIVITY_TYPE_STAMP_LOGIN", "AUTH", "CREATE"),
    ("ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2", "AUTH", "CREATE"),
    ("ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL", "AUTH", "CREATE"),
    ("ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL", "AUTH", "DELETE"),
    ("ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL", "AUTH", "UPDATE"),
    ("ACTIVITY_TYPE_OAUTH2_AUTHENTICATE", "AUTH", "CREATE"),
    ("ACTIVITY_TYPE_INIT_OTP_V3", "OTP", "CREATE"),
    ("ACTIVITY_TYPE_VERIFY_OTP_V2", "OTP", "VERIFY"),
    ("ACTIVITY_TYPE_ENABLE_AUTH_PROXY", "AUTH_PROXY", "CREATE"),
    ("ACTIVITY_TYPE_DISABLE_AUTH_PROXY", "AUTH_PROXY", "DELETE"),
    ("ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", "AUTH_PROXY", "UPDATE"),
    ("ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", "WEBHOOK_ENDPOINT", "CREATE"),
    ("ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT", "WEBHOOK_ENDPOINT", "UPDATE"),
    ("ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT", "WEBHOOK_ENDPOINT", "DELETE"),
    ("ACTIVITY_TYPE_CREATE_TVC_APP", "TVC_APP", "CREATE"),
    ("ACTIVITY_TYPE_UPDATE_TVC_APP_LIVE_DEPLOYMENT", "TVC_APP", "UPDATE"),
    ("ACTIVITY_TYPE_DELETE_TVC_APP_AND_DEPLOYMENTS", "TVC_APP", "DELETE"),
    ("ACTIVITY_TYPE_CREATE_TVC_DEPLOYMENT", "TVC_DEPLOYMENT", "CREATE"),
    ("ACTIVITY_TYPE_CREATE_TVC_MANIFEST_APPROVALS", "TVC_DEPLOYMENT", "UPDATE"),
    ("ACTIVITY_TYPE_RESTORE_TVC_DEPLOYMENT", "TVC_DEPLOYMENT", "UPDATE"),
    ("ACTIVITY_TYPE_POST_TVC_QUORUM_KEY_SHARE", "TVC_DEPLOYMENT", "UPDATE"),
    ("ACTIVITY_TYPE_DELETE_TVC_DEPLOYMENT", "TVC_DEPLOYMENT", "DELETE"),
    ("ACTIVITY_TYPE_CREATE_TVC_OPERATOR", "TVC_OPERATOR", "CREATE"),
    ("ACTIVITY_TYPE_CREATE_TVC_QUORUM_KEY", "TVC_QUORUM_KEY", "CREATE"),
    ("ACTIVITY_TYPE_RE_ENCRYPT_TVC_QUORUM_KEY_SHARE", "TVC_QUORUM_KEY", "ENCRYPT"),
)

# Resource/action pairs stated outside that table, with where: features/authentication/mfa/
# examples.mdx and enforcement-and-recovery.mdx write "activity.resource == 'MFA_POLICY' &&
# activity.action == 'CREATE'" for creating MFA policies and "... 'DELETE'" for deleting them.
# (ACTIVITY_TYPE_UPDATE_MFA_POLICY is stated nowhere, so it is not guessed.)
EXTRA_RESOURCE_ACTIONS: tuple[tuple[str, str, str], ...] = (
    ("ACTIVITY_TYPE_CREATE_MFA_POLICY", "MFA_POLICY", "CREATE"),
    ("ACTIVITY_TYPE_DELETE_MFA_POLICY", "MFA_POLICY", "DELETE"),
)

# "Activity kinds": (kind, the activity types it matches).
KIND_TABLE: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("DELETE_ORGANIZATION", ("ACTIVITY_TYPE_DELETE_ORGANIZATION",)),
    (
        "CREATE_SUB_ORGANIZATION",
        (
            "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION",
            "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V2",
            "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V3",
            "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V4",
            "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V5",
            "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V6",
            "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
            "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8",
        ),
    ),
    ("DELETE_SUB_ORGANIZATION", ("ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION",)),
    ("CREATE_INVITATIONS", ("ACTIVITY_TYPE_CREATE_INVITATIONS",)),
    ("DELETE_INVITATION", ("ACTIVITY_TYPE_DELETE_INVITATION",)),
    (
        "CREATE_USERS",
        (
            "ACTIVITY_TYPE_CREATE_USERS",
            "ACTIVITY_TYPE_CREATE_USERS_V2",
            "ACTIVITY_TYPE_CREATE_USERS_V3",
            "ACTIVITY_TYPE_CREATE_USERS_V4",
        ),
    ),
    ("CREATE_API_ONLY_USERS", ("ACTIVITY_TYPE_CREATE_API_ONLY_USERS",)),
    ("CREATE_USER_TAG", ("ACTIVITY_TYPE_CREATE_USER_TAG",)),
    ("UPDATE_USER", ("ACTIVITY_TYPE_UPDATE_USER",)),
    ("UPDATE_USER_NAME", ("ACTIVITY_TYPE_UPDATE_USER_NAME",)),
    ("UPDATE_USER_EMAIL", ("ACTIVITY_TYPE_UPDATE_USER_EMAIL",)),
    ("UPDATE_USER_PHONE_NUMBER", ("ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER",)),
    ("UPDATE_USER_TAG", ("ACTIVITY_TYPE_UPDATE_USER_TAG",)),
    ("DELETE_USERS", ("ACTIVITY_TYPE_DELETE_USERS",)),
    ("DELETE_USER_TAGS", ("ACTIVITY_TYPE_DELETE_USER_TAGS",)),
    ("ENABLE_AUTH_PROXY", ("ACTIVITY_TYPE_ENABLE_AUTH_PROXY",)),
    ("DISABLE_AUTH_PROXY", ("ACTIVITY_TYPE_DISABLE_AUTH_PROXY",)),
    ("UPSERT_SWAP_CONFIG", ("ACTIVITY_TYPE_UPSERT_SWAP_CONFIG",)),
    (
        "CREATE_AUTHENTICATORS",
        (
            "ACTIVITY_TYPE_CREATE_AUTHENTICATORS",
            "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
        ),
    ),
    (
        "CREATE_API_KEYS",
        (
            "ACTIVITY_TYPE_CREATE_API_KEYS",
            "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
        ),
    ),
    ("DELETE_AUTHENTICATORS", ("ACTIVITY_TYPE_DELETE_AUTHENTICATORS",)),
    ("DELETE_API_KEYS", ("ACTIVITY_TYPE_DELETE_API_KEYS",)),
    (
        "CREATE_OAUTH_PROVIDERS",
        (
            "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
            "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2",
        ),
    ),
    ("DELETE_OAUTH_PROVIDERS", ("ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS",)),
    (
        "CREATE_PRIVATE_KEYS",
        (
            "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS",
            "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
        ),
    ),
    ("CREATE_PRIVATE_KEY_TAG", ("ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",)),
    ("UPDATE_PRIVATE_KEY_TAG", ("ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG",)),
    ("DISABLE_PRIVATE_KEY", ("ACTIVITY_TYPE_DISABLE_PRIVATE_KEY",)),
    ("DELETE_PRIVATE_KEY_TAGS", ("ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS",)),
    ("INIT_IMPORT_PRIVATE_KEY", ("ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY",)),
    ("IMPORT_PRIVATE_KEY", ("ACTIVITY_TYPE_IMPORT_PRIVATE_KEY",)),
    ("DELETE_PRIVATE_KEYS", ("ACTIVITY_TYPE_DELETE_PRIVATE_KEYS",)),
    (
        "SIGN_TRANSACTION",
        (
            "ACTIVITY_TYPE_SIGN_TRANSACTION",
            "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
        ),
    ),
    (
        "SIGN_RAW_PAYLOAD",
        (
            "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD",
            "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        ),
    ),
    ("SIGN_RAW_PAYLOADS", ("ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",)),
    ("SPARK_SIGN_FROST", ("ACTIVITY_TYPE_SPARK_SIGN_FROST",)),
    ("SPARK_PREPARE_TRANSFER", ("ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER",)),
    ("SPARK_CLAIM_TRANSFER", ("ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER",)),
    ("SPARK_PREPARE_LIGHTNING_RECEIVE", ("ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE",)),
    (
        "ETH_SEND_TRANSACTION",
        (
            "ACTIVITY_TYPE_ETH_SEND_TRANSACTION",
            "ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2",
        ),
    ),
    ("SOL_SEND_TRANSACTION", ("ACTIVITY_TYPE_SOL_SEND_TRANSACTION",)),
    ("EXECUTE_SWAP", ("ACTIVITY_TYPE_EXECUTE_SWAP",)),
    ("EXPORT_PRIVATE_KEY", ("ACTIVITY_TYPE_EXPORT_PRIVATE_KEY",)),
    ("CREATE_WALLET", ("ACTIVITY_TYPE_CREATE_WALLET",)),
    ("CREATE_WALLET_ACCOUNTS", ("ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",)),
    ("EXPORT_WALLET", ("ACTIVITY_TYPE_EXPORT_WALLET",)),
    ("EXPORT_WALLET_ACCOUNT", ("ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",)),
    ("INIT_IMPORT_WALLET", ("ACTIVITY_TYPE_INIT_IMPORT_WALLET",)),
    ("IMPORT_WALLET", ("ACTIVITY_TYPE_IMPORT_WALLET",)),
    ("DELETE_WALLETS", ("ACTIVITY_TYPE_DELETE_WALLETS",)),
    ("UPDATE_WALLET", ("ACTIVITY_TYPE_UPDATE_WALLET",)),
    ("DELETE_WALLET_ACCOUNTS", ("ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS",)),
    ("INIT_FIAT_ON_RAMP", ("ACTIVITY_TYPE_INIT_FIAT_ON_RAMP",)),
    ("CREATE_FIAT_ON_RAMP_CREDENTIAL", ("ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_CREDENTIAL",)),
    ("DELETE_FIAT_ON_RAMP_CREDENTIAL", ("ACTIVITY_TYPE_DELETE_FIAT_ON_RAMP_CREDENTIAL",)),
    ("UPDATE_FIAT_ON_RAMP_CREDENTIAL", ("ACTIVITY_TYPE_UPDATE_FIAT_ON_RAMP_CREDENTIAL",)),
    (
        "CREATE_POLICY",
        (
            "ACTIVITY_TYPE_CREATE_POLICY",
            "ACTIVITY_TYPE_CREATE_POLICY_V2",
            "ACTIVITY_TYPE_CREATE_POLICY_V3",
        ),
    ),
    ("CREATE_POLICIES", ("ACTIVITY_TYPE_CREATE_POLICIES",)),
    (
        "UPDATE_POLICY",
        (
            "ACTIVITY_TYPE_UPDATE_POLICY",
            "ACTIVITY_TYPE_UPDATE_POLICY_V2",
        ),
    ),
    ("DELETE_POLICY", ("ACTIVITY_TYPE_DELETE_POLICY",)),
    ("DELETE_POLICIES", ("ACTIVITY_TYPE_DELETE_POLICIES",)),
    ("ACTIVATE_BILLING_TIER", ("ACTIVITY_TYPE_ACTIVATE_BILLING_TIER",)),
    (
        "SET_PAYMENT_METHOD",
        (
            "ACTIVITY_TYPE_SET_PAYMENT_METHOD",
            "ACTIVITY_TYPE_SET_PAYMENT_METHOD_V2",
        ),
    ),
    ("DELETE_PAYMENT_METHOD", ("ACTIVITY_TYPE_DELETE_PAYMENT_METHOD",)),
    ("UPDATE_ALLOWED_ORIGINS", ("ACTIVITY_TYPE_UPDATE_ALLOWED_ORIGINS",)),
    ("CREATE_WEBHOOK_ENDPOINT", ("ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT",)),
    ("UPDATE_WEBHOOK_ENDPOINT", ("ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT",)),
    ("DELETE_WEBHOOK_ENDPOINT", ("ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT",)),
    (
        "INIT_USER_EMAIL_RECOVERY",
        (
            "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY",
            "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2",
        ),
    ),
    (
        "EMAIL_AUTH",
        (
            "ACTIVITY_TYPE_EMAIL_AUTH",
            "ACTIVITY_TYPE_EMAIL_AUTH_V2",
            "ACTIVITY_TYPE_EMAIL_AUTH_V3",
        ),
    ),
    (
        "INIT_OTP_AUTH",
        (
            "ACTIVITY_TYPE_INIT_OTP_AUTH",
            "ACTIVITY_TYPE_INIT_OTP_AUTH_V2",
            "ACTIVITY_TYPE_INIT_OTP_AUTH_V3",
        ),
    ),
    ("OTP_AUTH", ("ACTIVITY_TYPE_OTP_AUTH",)),
    ("OAUTH", ("ACTIVITY_TYPE_OAUTH",)),
    (
        "CREATE_READ_WRITE_SESSION",
        (
            "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION",
            "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
        ),
    ),
    ("OAUTH_LOGIN", ("ACTIVITY_TYPE_OAUTH_LOGIN",)),
    (
        "OTP_LOGIN",
        (
            "ACTIVITY_TYPE_OTP_LOGIN",
            "ACTIVITY_TYPE_OTP_LOGIN_V2",
        ),
    ),
    ("STAMP_LOGIN", ("ACTIVITY_TYPE_STAMP_LOGIN",)),
    ("UPDATE_AUTH_PROXY_CONFIG", ("ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG",)),
    ("CREATE_OAUTH2_CREDENTIAL", ("ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL",)),
    ("UPDATE_OAUTH2_CREDENTIAL", ("ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL",)),
    ("DELETE_OAUTH2_CREDENTIAL", ("ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL",)),
    ("OAUTH2_AUTHENTICATE", ("ACTIVITY_TYPE_OAUTH2_AUTHENTICATE",)),
    (
        "INIT_OTP",
        (
            "ACTIVITY_TYPE_INIT_OTP",
            "ACTIVITY_TYPE_INIT_OTP_V2",
            "ACTIVITY_TYPE_INIT_OTP_V3",
        ),
    ),
    (
        "VERIFY_OTP",
        (
            "ACTIVITY_TYPE_VERIFY_OTP",
            "ACTIVITY_TYPE_VERIFY_OTP_V2",
        ),
    ),
    ("CREATE_SMART_CONTRACT_INTERFACE", ("ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE",)),
    ("DELETE_SMART_CONTRACT_INTERFACE", ("ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE",)),
    ("UPSERT_GAS_USAGE_CONFIG", ("ACTIVITY_TYPE_UPSERT_GAS_USAGE_CONFIG",)),
    ("CREATE_TVC_APP", ("ACTIVITY_TYPE_CREATE_TVC_APP",)),
    ("CREATE_TVC_DEPLOYMENT", ("ACTIVITY_TYPE_CREATE_TVC_DEPLOYMENT",)),
    ("CREATE_TVC_MANIFEST_APPROVALS", ("ACTIVITY_TYPE_CREATE_TVC_MANIFEST_APPROVALS",)),
    ("CREATE_TVC_OPERATOR", ("ACTIVITY_TYPE_CREATE_TVC_OPERATOR",)),
    ("UPDATE_TVC_APP_LIVE_DEPLOYMENT", ("ACTIVITY_TYPE_UPDATE_TVC_APP_LIVE_DEPLOYMENT",)),
    ("DELETE_TVC_DEPLOYMENT", ("ACTIVITY_TYPE_DELETE_TVC_DEPLOYMENT",)),
    ("DELETE_TVC_APP_AND_DEPLOYMENTS", ("ACTIVITY_TYPE_DELETE_TVC_APP_AND_DEPLOYMENTS",)),
    ("RESTORE_TVC_DEPLOYMENT", ("ACTIVITY_TYPE_RESTORE_TVC_DEPLOYMENT",)),
    ("POST_TVC_QUORUM_KEY_SHARE", ("ACTIVITY_TYPE_POST_TVC_QUORUM_KEY_SHARE",)),
    ("CREATE_TVC_QUORUM_KEY", ("ACTIVITY_TYPE_CREATE_TVC_QUORUM_KEY",)),
    ("RE_ENCRYPT_TVC_QUORUM_KEY_SHARE", ("ACTIVITY_TYPE_RE_ENCRYPT_TVC_QUORUM_KEY_SHARE",)),
    ("CREATE_MFA_POLICY", ("ACTIVITY_TYPE_CREATE_MFA_POLICY",)),
    ("UPDATE_MFA_POLICY", ("ACTIVITY_TYPE_UPDATE_MFA_POLICY",)),
    ("DELETE_MFA_POLICY", ("ACTIVITY_TYPE_DELETE_MFA_POLICY",)),
    ("CREATE_SESSION_PROFILE", ("ACTIVITY_TYPE_CREATE_SESSION_PROFILE",)),
)


# ------------------------------------------------------------------------------------ lookups

_VERSION_SUFFIX = re.compile(r"_V[0-9]+\Z")
_TYPE_NAME = re.compile(r"[A-Z0-9]+(?:_[A-Z0-9]+)*")


def _derived_kind(activity_type: str) -> str:
    """The docs' rule behind every kind: no ``ACTIVITY_TYPE_`` prefix, no ``_V<n>`` suffix."""
    return _VERSION_SUFFIX.sub("", activity_type[len(PREFIX) :])


def _build_kinds() -> dict[str, str]:
    kinds: dict[str, str] = {}
    for kind, types in KIND_TABLE:
        for activity_type in types:
            if activity_type in kinds or activity_type in ROOT_QUORUM_ACTIVITY_TYPES:
                raise ValueError(f"KIND_TABLE lists {activity_type} twice or for the root quorum")
            kinds[activity_type] = kind
    return kinds


def _build_resource_actions(
    kinds: Mapping[str, str],
) -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, str]]]:
    """Per type (explicit rows and every version of their kinds) and per kind."""
    by_type: dict[str, tuple[str, str]] = {}
    by_kind: dict[str, tuple[str, str]] = {}
    for activity_type, resource, action in RESOURCE_ACTION_TABLE + EXTRA_RESOURCE_ACTIONS:
        pair = (resource, action)
        if by_type.setdefault(activity_type, pair) != pair:
            raise ValueError(f"{activity_type} has two resource/action pairs")
        kind = kinds.get(activity_type, _derived_kind(activity_type))
        if by_kind.setdefault(kind, pair) != pair:
            raise ValueError(f"kind {kind} has two resource/action pairs")
    for activity_type, kind in kinds.items():
        if kind in by_kind:
            by_type.setdefault(activity_type, by_kind[kind])
    return by_type, by_kind


_KIND_BY_TYPE = _build_kinds()
_RESOURCE_ACTION_BY_TYPE, _RESOURCE_ACTION_BY_KIND = _build_resource_actions(_KIND_BY_TYPE)


def activity_kind(activity_type: str) -> str | None:
    """``activity.kind``: the version-agnostic name, or None (root-quorum and non-types).

    A type the kinds table lists gets its row; any other well-formed ``ACTIVITY_TYPE_*`` gets the
    rule the whole table follows, so a version newer than the table still matches its kind.
    """
    if not isinstance(activity_type, str):
        return None
    kind = _KIND_BY_TYPE.get(activity_type)
    if kind is not None:
        return kind
    if activity_type in ROOT_QUORUM_ACTIVITY_TYPES or not activity_type.startswith(PREFIX):
        return None
    if _TYPE_NAME.fullmatch(activity_type, len(PREFIX)) is None:
        return None
    return _derived_kind(activity_type) or None


def resource_action(activity_type: str) -> tuple[str, str] | None:
    """``(activity.resource, activity.action)``, or None for a type the docs give none."""
    if not isinstance(activity_type, str):
        return None
    pair = _RESOURCE_ACTION_BY_TYPE.get(activity_type)
    if pair is not None:
        return pair
    kind = activity_kind(activity_type)
    return None if kind is None else _RESOURCE_ACTION_BY_KIND.get(kind)
