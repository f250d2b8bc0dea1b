"""Hypothesis strategies for the emulator's requests (needs ``hypothesis``, an optional extra).

Two layers:

* **Schema-valid parameters** for every registered operation and version:
  ``parameters("create_users")`` draws a dict that passes the schema of that operation's
  default version (``parameters("create_users", "ACTIVITY_TYPE_CREATE_USERS_V2")`` another
  one; a query's body for a query). ``from_spec(spec)`` does the same for any
  ``emulator.ground.schema`` spec. Such values are valid field by field, not necessarily valid for
  the handler's business rules (a random ``walletId`` names no wallet). ``overrides`` puts a
  strategy of yours at a field, by its dotted name (arrays add no segment):

  >>> params = parameters(  # doctest: +SKIP
  ...     "create_wallet", overrides={"accounts": account_spec_lists(max_size=3)}
  ... )

* **Domain strategies**, valid for the business rules too: ``account_specs`` (a curve, a path
  it can derive and an address format made from it), ``account_spec_lists`` (no account twice
  in one wallet), ``wallet_names``, ``user_params`` (the V4 shape, with or without a generated
  API key), ``api_key_pairs``, ``private_key_params``, ``payloads(curve)`` (``(payload,
  encoding, hash_function)`` triples the curve signs) and ``eip712_documents``.

Uniqueness across requests (wallet names, private key names, API public keys) is state, not
shape: a state machine (``emulator.testing.state_machine``) keeps the model that knows it.

>>> from hypothesis import given
>>> @given(account=account_specs("CURVE_ED25519"))  # doctest: +SKIP
... def test_solana_accounts(turnkey_emulator, account): ...
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from ..crypto.addresses import ADDRESS_FORMATS as _ENCODABLE_FORMATS
from ..crypto.addresses import curves_for
from ..crypto.api_keys import CURVES as API_KEY_CURVES
from ..crypto.api_keys import ApiKeyPair, key_pair_from_entropy
from ..crypto.default_paths import DEFAULT_PATHS
from ..ground import schema
from ..ground.enums import ADDRESS_FORMATS, CURVES
from ..ops import ACTIVITY, REGISTRY
from .payload_strategies import (
    ED25519,
    EIP712,
    HEXADECIMAL,
    KECCAK256,
    NO_OP,
    NOT_APPLICABLE,
    P256,
    SECP256K1,
    SHA256,
    TEXT_UTF8,
    eip712_documents,
    payloads,
)

__all__ = [
    "ED25519",
    "EIP712",
    "HEXADECIMAL",
    "KECCAK256",
    "NOT_APPLICABLE",
    "NO_OP",
    "P256",
    "SECP256K1",
    "SHA256",
    "TEXT_UTF8",
    "account_key",
    "account_spec_lists",
    "account_specs",
    "address_formats_for",
    "api_key_pairs",
    "api_key_params",
    "derivation_paths",
    "eip712_documents",
    "from_spec",
    "labels",
    "parameters",
    "payloads",
    "private_key_names",
    "private_key_params",
    "tag_names",
    "user_params",
    "wallet_names",
]

Json = dict[str, Any]
Overrides = Mapping[str, SearchStrategy[Any]]


HARDENED = 2**31
_PLAIN_TEXT_MAX = 32  # how long an unbounded string grows (the schema sets no bound)

# ---------------------------------------------------------------------------------------
# Schema-valid values
# ---------------------------------------------------------------------------------------


def labels(max_size: int = schema.LABEL_MAX_LENGTH) -> SearchStrategy[str]:
    """A name the schema's ``label()`` accepts: non-empty, at most 256 characters."""
    return st.text(min_size=1, max_size=min(max_size, schema.LABEL_MAX_LENGTH))


def _emails() -> SearchStrategy[str]:
    local = st.text("abcdefghijklmnopqrstuvwxyz0123456789._+-", min_size=1, max_size=16)
    domain = st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=12)
    tld = st.text("abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=6)
    return st.builds(lambda a, b, c: f"{a}@{b}.{c}", local, domain, tld)


def _phone_numbers() -> SearchStrategy[str]:
    return st.builds(
        lambda first, rest: f"+{first}{rest}",
        st.sampled_from("123456789"),
        st.text("0123456789", min_size=1, max_size=14),
    )


def _hex_strings(non_empty: bool) -> SearchStrategy[str]:
    raw = st.binary(min_size=1 if non_empty else 0, max_size=40).map(bytes.hex)
    return st.one_of(raw, raw.map(str.upper))


def _formatted(fmt: str, non_empty: bool) -> SearchStrategy[str]:
    if fmt == "uuid":
        return st.uuids().map(str)
    if fmt == "hex":
        return _hex_strings(non_empty)
    if fmt == "email":
        return _emails()
    if fmt == "e164":
        return _phone_numbers()
    if fmt == "uint":
        return st.integers(min_value=0, max_value=10**12).map(str)
    raise TypeError(f"no strategy for the string format {fmt!r}")


def _string(spec: schema.String, required: bool) -> SearchStrategy[str]:
    # A required text field may not be empty (the gateway reads "" as missing); a bounded
    # one is a label, which is never empty either.
    non_empty = required or spec.max_length is not None
    if spec.fmt is not None:
        values = _formatted(spec.fmt, non_empty)
        if spec.max_length is not None:
            values = values.filter(lambda v: len(v) <= spec.max_length)
        return values
    max_size = spec.max_length if spec.max_length is not None else _PLAIN_TEXT_MAX
    return st.text(min_size=1 if non_empty else 0, max_size=max_size)


def _integer(spec: schema.Integer) -> SearchStrategy[int | str]:
    low = -(2**63) if spec.minimum is None else spec.minimum  # proto integers: 64 bits
    high = 2**63 - 1 if spec.maximum is None else spec.maximum
    numbers = st.integers(min_value=low, max_value=high)
    # Proto JSON takes a 64-bit integer as a number or as a decimal string.
    return st.one_of(numbers, numbers.map(str))


def from_spec(
    spec: schema.Spec,
    overrides: Overrides | None = None,
    *,
    _path: str = "",
    _required: bool = True,
) -> SearchStrategy[Any]:
    """Values that ``spec`` accepts with no violation (``emulator.ground.schema.check``).

    ``overrides`` maps a dotted field path (``"accounts"``, ``"users.apiKeys"``; an array
    adds no segment) to the strategy to use there instead.
    """
    overrides = overrides or {}
    if _path and _path in overrides:
        return overrides[_path]
    if isinstance(spec, schema.Object):
        required: dict[str, SearchStrategy[Any]] = {}
        optional: dict[str, SearchStrategy[Any]] = {}
        for name, fld in spec.fields.items():
            path = f"{_path}.{name}" if _path else name
            values = from_spec(fld.spec, overrides, _path=path, _required=fld.required)
            (required if fld.required else optional)[name] = values
        return st.fixed_dictionaries(required, optional=optional)
    if isinstance(spec, schema.Array):
        # The items share the array's path: an override there replaces the whole array.
        items = from_spec(spec.items, overrides, _path=_path, _required=True)
        return st.lists(items, min_size=spec.min_items, max_size=max(spec.min_items, 3))
    if isinstance(spec, schema.String):
        return _string(spec, _required)
    if isinstance(spec, schema.Enum):
        return st.sampled_from(spec.values)
    if isinstance(spec, schema.Boolean):
        return st.booleans()
    if isinstance(spec, schema.Integer):
        return _integer(spec)
    raise TypeError(f"no strategy for the spec {spec!r}")


def parameters(
    operation_name: str,
    activity_type: str | None = None,
    *,
    overrides: Overrides | None = None,
) -> SearchStrategy[Json]:
    """Parameters of ``operation_name`` that pass the schema of its version.

    For an activity, the ``parameters`` of ``activity_type`` (by default the operation's
    default version); for a query, its body without ``organizationId``. Pass the result to
    ``emu.call(operation_name, params, activity_type=...)``.
    """
    try:
        op = REGISTRY[operation_name]
    except KeyError:
        raise ValueError(f"no operation named {operation_name!r}") from None
    if op.kind == ACTIVITY:
        version = op.default_version if activity_type is None else op.version(activity_type)
        if version is None:
            raise ValueError(f"{operation_name} has no version {activity_type!r}")
        spec = version.params
    else:
        if activity_type is not None:
            raise ValueError(f"{operation_name} is a query: it has no activity types")
        assert op.body is not None
        spec = op.body
    unknown = set(overrides or ()) - set(_field_paths(spec))
    if unknown:
        raise ValueError(f"{operation_name} has no field {sorted(unknown)[0]!r} to override")
    return from_spec(spec, overrides)


def _field_paths(spec: schema.Spec, path: str = ""):
    """Every dotted field path of ``spec`` (arrays add no segment)."""
    if isinstance(spec, schema.Array):
        yield from _field_paths(spec.items, path)
    elif isinstance(spec, schema.Object):
        for name, fld in spec.fields.items():
            sub = f"{path}.{name}" if path else name
            yield sub
            yield from _field_paths(fld.spec, sub)


# ---------------------------------------------------------------------------------------
# Domain strategies: valid for the business rules too
# ---------------------------------------------------------------------------------------


def wallet_names() -> SearchStrategy[str]:
    return labels()


def private_key_names() -> SearchStrategy[str]:
    return labels()


def tag_names() -> SearchStrategy[str]:
    return labels()


def _formats_of(curve: str) -> tuple[str, ...]:
    return tuple(f for f in ADDRESS_FORMATS if f in _ENCODABLE_FORMATS and curve in curves_for(f))


_FORMATS_BY_CURVE = {curve: _formats_of(curve) for curve in CURVES}


def address_formats_for(curve: str) -> tuple[str, ...]:
    """The address formats made from keys of ``curve`` (wallet accounts and private keys)."""
    return _FORMATS_BY_CURVE[curve]


def _curves(curve: str | None) -> SearchStrategy[str]:
    if curve is None:
        return st.sampled_from(CURVES)
    if curve not in CURVES:
        raise ValueError(f"unknown curve {curve!r}")
    return st.just(curve)


def derivation_paths(curve: str, max_depth: int = 6) -> SearchStrategy[str]:
    """BIP32 paths ``curve`` can derive: hardened steps only for ed25519 (SLIP-10)."""
    index = st.integers(min_value=0, max_value=HARDENED - 1)
    hardened = index.map(lambda i: f"{i}'")
    step = hardened if curve == ED25519 else st.one_of(index.map(str), hardened)
    return st.lists(step, min_size=1, max_size=max_depth).map(lambda s: "/".join(["m", *s]))


def _account_paths(curve: str, address_format: str) -> SearchStrategy[str]:
    default = DEFAULT_PATHS.get(address_format)
    if default is not None and default[0] == curve:
        at_index = st.integers(min_value=0, max_value=HARDENED - 1)
        return st.one_of(at_index.map(lambda i: default[1].format(i=i)), derivation_paths(curve))
    return derivation_paths(curve)


def account_specs(curve: str | None = None) -> SearchStrategy[Json]:
    """One ``v1WalletAccountParams``: a curve, a path it derives, an address format it makes.

    Paths are the SDKs' defaults at a random account index, or random BIP32 paths (hardened
    only for ed25519).
    """

    def for_curve(c: str) -> SearchStrategy[Json]:
        return st.sampled_from(_FORMATS_BY_CURVE[c]).flatmap(
            lambda f: st.fixed_dictionaries(
                {
                    "curve": st.just(c),
                    "pathFormat": st.just("PATH_FORMAT_BIP32"),
                    "path": _account_paths(c, f),
                    "addressFormat": st.just(f),
                },
                optional={"name": labels(max_size=32)},
            )
        )

    return _curves(curve).flatmap(for_curve)


def account_key(spec: Mapping[str, Any]) -> tuple[str, str, str]:
    """What may appear once per wallet: ``(curve, path, addressFormat)`` (paths as drawn)."""
    return (spec["curve"], spec["path"], spec["addressFormat"])


def account_spec_lists(
    curve: str | None = None, *, min_size: int = 0, max_size: int = 3
) -> SearchStrategy[list[Json]]:
    """Accounts for one request: never the same curve, path and format twice."""
    return st.lists(
        account_specs(curve), min_size=min_size, max_size=max_size, unique_by=account_key
    )


def api_key_pairs(curve: str | None = None) -> SearchStrategy[ApiKeyPair]:
    """API key pairs (``API_KEY_CURVE_*``) made from hypothesis bytes, so they shrink."""
    curves = st.sampled_from(API_KEY_CURVES) if curve is None else st.just(curve)
    entropy = st.binary(min_size=32, max_size=32)
    return st.builds(key_pair_from_entropy, entropy, curves)


def api_key_params(pairs: SearchStrategy[ApiKeyPair] | None = None) -> SearchStrategy[Json]:
    """``v1ApiKeyParamsV2`` for a key pair (long-lived, or expiring after 1 s to ~30 years)."""
    return (pairs or api_key_pairs()).flatmap(
        lambda pair: st.fixed_dictionaries(
            {
                "apiKeyName": labels(max_size=32),
                "publicKey": st.just(pair.public_key),
                "curveType": st.just(pair.curve),
            },
            optional={"expirationSeconds": st.integers(1, 10**9).map(str)},
        )
    )


def user_params(
    *,
    api_keys: SearchStrategy[list[Json]] | None = None,
    user_tags: SearchStrategy[list[str]] | None = None,
) -> SearchStrategy[Json]:
    """``v1UserParamsV4``: a name, maybe an e-mail and a phone number, no API key or one.

    No passkeys or OAuth providers (those need a ceremony or a token). ``user_tags`` must
    draw ids of tags that exist; by default there are none.
    """
    if api_keys is None:
        api_keys = st.one_of(st.just([]), api_key_params().map(lambda k: [k]))
    return st.fixed_dictionaries(
        {
            "userName": labels(max_size=64),
            "apiKeys": api_keys,
            "authenticators": st.just([]),
            "oauthProviders": st.just([]),
            "userTags": user_tags if user_tags is not None else st.just([]),
        },
        optional={"userEmail": _emails(), "userPhoneNumber": _phone_numbers()},
    )


def private_key_params(
    curve: str | None = None, *, tags: SearchStrategy[list[str]] | None = None
) -> SearchStrategy[Json]:
    """``v1PrivateKeyParams``: a curve and up to three address formats made from it.

    ``tags`` must draw ids of private key tags that exist; by default none.
    """

    def for_curve(c: str) -> SearchStrategy[Json]:
        return st.fixed_dictionaries(
            {
                "privateKeyName": labels(max_size=64),
                "curve": st.just(c),
                "privateKeyTags": tags if tags is not None else st.just([]),
                "addressFormats": st.lists(
                    st.sampled_from(_FORMATS_BY_CURVE[c]), max_size=3, unique=True
                ),
            }
        )

    return _curves(curve).flatmap(for_curve)
