"""The fuzz's world, its broken values and its wire (``tests/test_fuzz.py`` drives them).

A request is drawn from the registry's schemas (``emulator.testing.strategies``), made
plausible (its ids and addresses are ones the world holds, of this organization or of
another), then broken: a field replaced by a value of the wrong type, an odd number, a
number in Unicode digits or with whitespace, a huge or deep value, an id of the wrong kind,
an address of another chain family, a bad timestamp or enum; a field dropped; a field
added. It goes through the WSGI app (routing, body limits, JSON, the stamp, dispatch) with
a valid stamp. ``docs/fuzzing.md`` says what it breaks and how to run it long.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from emulator import Emulator, OrganizationHandle
from emulator.crypto.api_keys import CURVES as API_KEY_CURVES
from emulator.crypto.api_keys import generate_key_pair
from emulator.crypto.stamps import sign_stamp
from emulator.ground.errors import HTTP_STATUS
from emulator.ground.ids import is_uuid
from emulator.ground.schema import Array, Enum, Integer, Object, String
from emulator.ops import ACTIVITY, REGISTRY, Operation
from emulator.testing import strategies
from emulator.testing.digest import state_digest

Json = dict[str, Any]
ERROR_KEYS = {"code", "message", "details", "turnkeyErrorCode"}
ETHEREUM = "ADDRESS_FORMAT_ETHEREUM"
SOLANA = "ADDRESS_FORMAT_SOLANA"

# --- the world ------------------------------------------------------------------------


@dataclass
class FuzzWorld:
    """An emulator with two organizations (and a sub-organization) holding one of each
    kind of thing, the ids and addresses it holds, and a checkpoint to return to."""

    emu: Emulator
    org: OrganizationHandle
    organization_ids: list[str]
    ids: list[str] = field(default_factory=list)
    addresses: list[str] = field(default_factory=list)
    public_keys: list[str] = field(default_factory=list)
    ids_by_kind: dict[str, list[str]] = field(default_factory=dict)
    checkpoint: Any = None
    digest: str = ""

    def reset(self) -> None:
        """Back to the state the fuzz started from (a no-op when nothing changed)."""
        self.emu.rollback(self.checkpoint)
        world = self.emu.world
        for name in ("calls", "outbox"):
            part = getattr(world, name, None)
            if part is not None and hasattr(part, "clear"):
                part.clear()


def _accounts() -> list[Json]:
    return [
        {
            "curve": "CURVE_SECP256K1",
            "pathFormat": "PATH_FORMAT_BIP32",
            "path": "m/44'/60'/0'/0/0",
            "addressFormat": ETHEREUM,
        },
        {
            "curve": "CURVE_ED25519",
            "pathFormat": "PATH_FORMAT_BIP32",
            "path": "m/44'/501'/0'/0'",
            "addressFormat": SOLANA,
        },
    ]


def _populate(emu: Emulator, handle: OrganizationHandle, name: str) -> None:
    org_id = handle.organization_id
    call = {"organization_id": org_id, "caller": handle}
    emu.create_wallet(wallet_name=f"{name} wallet", accounts=_accounts(), **call)
    (pk_eth, _pk_sol) = emu.create_private_keys(
        private_keys=[
            {
                "privateKeyName": f"{name} evm key",
                "curve": "CURVE_SECP256K1",
                "privateKeyTags": [],
                "addressFormats": [ETHEREUM],
            },
            {
                "privateKeyName": f"{name} solana key",
                "curve": "CURVE_ED25519",
                "privateKeyTags": [],
                "addressFormats": [SOLANA],
            },
        ],
        **call,
    )["privateKeys"][:2]
    emu.create_private_key_tag(
        private_key_tag_name=f"{name} keys", private_key_ids=[pk_eth["privateKeyId"]], **call
    )
    emu.create_user_tag(user_tag_name=f"{name} users", user_ids=[handle.user_id], **call)
    emu.create_policy(
        policy_name=f"{name} policy",
        effect="EFFECT_ALLOW",
        condition="activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'",
        consensus="approvers.any(user, user.id == '" + handle.user_id + "')",
        notes="fuzz",
        **call,
    )


def id_kind(key: str) -> str:
    """The kind of id a field holds, by its name: ``userIds``, ``addUserIds`` and ``userId``
    hold user ids; ``userTags`` holds user tag ids."""
    for prefix in ("add", "remove"):
        if key.startswith(prefix) and key[len(prefix) : len(prefix) + 1].isupper():
            key = key[len(prefix)].lower() + key[len(prefix) + 1 :]
    key = key.removesuffix("s")
    return key if key.endswith("Id") else key + "Id"


def _harvest(value: Any, ids: dict[str, set[str]], addresses: set[str], key: str = "") -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _harvest(v, ids, addresses, k)
    elif isinstance(value, list):
        for v in value:
            _harvest(v, ids, addresses, key)
    elif isinstance(value, str):
        if is_uuid(value):
            ids.setdefault(id_kind(key), set()).add(value)
        elif key == "address" and value:
            addresses.add(value)


def _public_keys() -> list[str]:
    """Public keys of every kind a request carries: API keys of the three curves
    (compressed), and an uncompressed P-256 key (the target of export and import bundles)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    keys = [generate_key_pair(curve).public_key for curve in API_KEY_CURVES]
    point = ec.generate_private_key(ec.SECP256R1()).public_key()
    raw = point.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return [*keys, raw.hex()]


def build_world() -> FuzzWorld:
    emu = Emulator(seed=23)
    org = emu.create_organization("Fuzz Organization")
    other = emu.create_organization("Other Organization")
    sub = emu.create_organization("Fuzz Sub", parent_organization_id=org.organization_id)
    for handle, name in ((org, "fuzz"), (other, "other"), (sub, "sub")):
        _populate(emu, handle, name)
    ids: dict[str, set[str]] = {}
    addresses: set[str] = set()
    for handle in (org, other, sub):
        call = {"organization_id": handle.organization_id, "caller": handle}
        for query in ("list_wallets", "list_private_keys", "list_users", "list_policies"):
            _harvest(emu.call(query, {}, **call), ids, addresses)
        for wallet in emu.list_wallets(**call)["wallets"]:
            _harvest(emu.list_wallet_accounts(wallet_id=wallet["walletId"], **call), ids, addresses)
    world = FuzzWorld(
        emu,
        org,
        [org.organization_id, other.organization_id, sub.organization_id],
        sorted(set().union(*ids.values())),
        sorted(addresses),
    )
    world.ids_by_kind = {kind: sorted(found) for kind, found in ids.items()}
    world.public_keys = _public_keys()
    world.checkpoint = emu.checkpoint()
    world.digest = state_digest(emu)
    return world


# --- broken values -----------------------------------------------------------------------

# Decimal digits of other scripts (``int()`` reads them, the real service does not), and
# digits that ``str.isdigit`` accepts and ``int()`` refuses.
_DIGIT_SCRIPTS = (
    "٠١٢٣٤٥٦٧٨٩",  # Arabic-Indic
    "０１２３４５６７８９",  # fullwidth
    "०१२३४५६७८९",  # Devanagari
    "⁰¹²³⁴⁵⁶⁷⁸⁹",  # superscripts: isdigit() but not decimal
    "₀₁₂₃₄₅₆₇₈₉",  # subscripts
    "⓪①②③④⑤⑥⑦⑧⑨",  # circled
)
_SPACES = (" ", "\t", "\n", "\u00a0", "\u2003", "\u200b", "\u3000", "\x00")


def _in_script(text: str, script: str) -> str:
    return "".join(script[int(c)] if c in "0123456789" else c for c in text)


def numeric_strings(around: SearchStrategy[int]) -> SearchStrategy[str]:
    """Numbers the way a careless client writes them: Unicode digits, spaces, signs, floats,
    exponents, hex, separators, leading zeros, thousands of digits."""
    text = around.map(str)
    return st.one_of(
        st.builds(_in_script, text, st.sampled_from(_DIGIT_SCRIPTS)),
        st.builds(
            lambda t, s, end: t + s if end else s + t, text, st.sampled_from(_SPACES), st.booleans()
        ),
        text.map(lambda t: "+" + t),
        text.map(lambda t: "-" + t),
        text.map(lambda t: "00" + t),
        text.map(lambda t: t + ".5"),
        text.map(lambda t: t + "e3"),
        text.map(lambda t: t[:1] + "_" + t[1:]),
        around.map(hex),
        st.sampled_from(
            (
                "1e309",
                "-1e309",
                "NaN",
                "Infinity",
                "-0",
                "0.0",
                "",
                " ",
                "-",
                "+",
                "0x",
                "1/2",
                "9" * 5000,
                "9" * 25,
                "18446744073709551616",
                "9223372036854775808",
                "½",
                "Ⅻ",
            )
        ),
    )


_INTS = st.one_of(
    st.integers(-5, 5),
    st.sampled_from((2**31, 2**32, 2**53 + 1, 2**63, 2**64, 2**256, 10**30)),
    st.integers(1_600_000_000_000, 1_900_000_000_000),  # timestamps in milliseconds
    st.integers(),
)
_NUMBERS = st.one_of(
    _INTS,
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from((1.5, -0.0, 1e308, 1e-300, 10**4000)),
)
_TEXT = st.one_of(
    st.text(max_size=12),
    st.sampled_from(("\ud800", "\udfff", "a\x00b", "\u202e", "é" * 3, "𝟘")),
    st.integers(1, 200_000).map(lambda n: "a" * n),
)


def _deep(depth: int, as_list: bool) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value] if as_list else {"a": value}
    return value


_HUGE = st.one_of(
    st.integers(0, 600).flatmap(lambda d: st.booleans().map(lambda b: _deep(d, b))),
    st.integers(0, 5000).map(lambda n: [1] * n),
    st.integers(0, 500).map(lambda n: {f"k{i}": i for i in range(n)}),
)
_CHAIN_IDS = st.sampled_from(
    (
        "eip155:1",
        "eip155:8453",
        "eip155:11155111",
        "eip155:",
        "eip155:01",
        "eip155:-1",
        "eip155:١",
        "eip155:99999999999999999999999",
        "eip155:0x1",
        "eip155: 1",
        "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
        "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
        "solana:",
        "bip122:000000000019d6689c085ae165831e93",
        ":",
        "eip155",
        "EIP155:1",
    )
)
_ADDRESS_NOISE = st.sampled_from(
    (
        "0x" + "0" * 40,
        "0x" + "g" * 40,
        "0x" + "A" * 41,
        "0X" + "a" * 40,
        "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh",
        "11111111111111111111111111111111",
        "0" * 44,
        "O0Il" * 11,
        "0x",
        "",
    )
)


def enum_values() -> tuple[str, ...]:
    """Every enum value some field of the registry takes (the wrong enum for the others)."""
    found: set[str] = set()

    def walk(spec: Any) -> None:
        if isinstance(spec, Enum):
            found.update(spec.values)
        elif isinstance(spec, Array):
            walk(spec.items)
        elif isinstance(spec, Object):
            for fld in spec.fields.values():
                walk(fld.spec)

    for op in REGISTRY.values():
        for version in op.versions:
            walk(version.params)
        if op.body is not None:
            walk(op.body)
    return tuple(sorted(found))


_ENUMS = st.sampled_from(enum_values())


def odd_strings(world: FuzzWorld) -> SearchStrategy[str]:
    """Strings a string field's schema lets through and its reader must still refuse (or
    take): numbers written oddly, ids and addresses of any kind, chain ids, enums, text."""
    return st.one_of(
        numeric_strings(_INTS),
        st.sampled_from(world.ids + world.organization_ids),
        st.sampled_from(world.addresses),
        _ADDRESS_NOISE,
        _CHAIN_IDS,
        _ENUMS,
        _TEXT,
    )


def bad_values(world: FuzzWorld) -> SearchStrategy[Any]:
    """Anything a field may be given that it should refuse (or, by chance, accept)."""
    known = st.sampled_from(world.ids + world.organization_ids)
    scalars = st.one_of(
        st.none(), st.booleans(), st.just([]), st.just({}), st.just([None]), st.just({"": None})
    )
    return st.one_of(
        scalars,
        _NUMBERS,
        numeric_strings(_INTS),
        _TEXT,
        _HUGE,
        known,
        known.map(str.upper),
        known.map(lambda i: f" {i}"),
        st.uuids().map(str),
        st.sampled_from(world.addresses),
        st.sampled_from(world.addresses).map(str.upper),
        _ADDRESS_NOISE,
        _CHAIN_IDS,
        _ENUMS,
        _ENUMS.map(str.lower),
    )


# --- plausible requests ----------------------------------------------------------------

_ADDRESS_KEYS = {"signWith", "address", "from", "to", "smartContractAddress", "signWiths"}
_KEY_KEYS = {"publicKey", "targetPublicKey", "bearerTokenTargetPublicKey", "ephemeralKey"}
# Text fields that carry a number (seconds, counts, wei, nonces): drawn as one, to be broken.
_NUMBER_KEYS = {
    "expirationSeconds",
    "limit",
    "value",
    "nonce",
    "gasLimit",
    "maxFeePerGas",
    "maxPriorityFeePerGas",
    "threshold",
    "deadline",
    "decimals",
    "duration",
    "otpLength",
}


def plausible(data: st.DataObject, value: Any, world: FuzzWorld, key: str = "") -> Any:
    """``value`` with some of its ids and addresses replaced by ones the world holds."""
    if isinstance(value, dict):
        return {k: plausible(data, v, world, k) for k, v in value.items()}
    if isinstance(value, list):
        return [plausible(data, v, world, key) for v in value]
    if isinstance(value, str) and key in _ADDRESS_KEYS and world.addresses:
        pool = world.addresses + world.ids
        return data.draw(st.one_of(st.sampled_from(pool), st.just(value)), label=key)
    if isinstance(value, str) and key in _KEY_KEYS:
        return data.draw(st.one_of(st.sampled_from(world.public_keys), st.just(value)), label=key)
    if isinstance(value, str) and key in _NUMBER_KEYS:
        numbers = st.integers(0, 10**6).map(str)
        return data.draw(st.one_of(numbers, st.just(value)), label=key)
    if isinstance(value, str) and (is_uuid(value) or key.endswith(("Id", "Ids"))):
        # Mostly an id of the field's kind (of this organization or another), else any.
        same_kind = world.ids_by_kind.get(id_kind(key)) or world.ids
        ids = st.one_of(st.sampled_from(same_kind), st.sampled_from(world.ids), st.just(value))
        return data.draw(ids, label=key)
    return value


def request_body(data: st.DataObject, op: Operation, world: FuzzWorld) -> Json:
    """A schema-valid body for ``op`` on the fuzz organization, made plausible."""
    if op.kind == ACTIVITY:
        version = data.draw(st.sampled_from(op.versions), label="version")
        params = data.draw(strategies.parameters(op.name, version.activity_type), label="params")
        return {
            "type": version.activity_type,
            "timestampMs": str(world.emu.world.clock.now_ms()),
            "organizationId": world.org.organization_id,
            "parameters": plausible(data, params, world),
        }
    params = data.draw(strategies.parameters(op.name), label="params")
    return {"organizationId": world.org.organization_id, **plausible(data, params, world)}


# --- breaking ---------------------------------------------------------------------------


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside ``value`` (dict keys and list indexes), itself excluded."""
    out: list[tuple[Any, ...]] = []
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for k, v in items:
        out.append((*path, k))
        out.extend(_paths(v, (*path, k)))
    return out


def _container(body: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        body = body[step]
    return body


ENVELOPE = ("organizationId", "type", "timestampMs")


def break_body(data: st.DataObject, body: Json, world: FuzzWorld) -> Json:
    """``body`` with one to three fields replaced, dropped or added (the envelope's
    ``organizationId``, ``type`` and ``timestampMs`` one time in five: broken, they stop
    a request before its parameters are read)."""
    body = json.loads(json.dumps(body))  # a copy to break
    for _ in range(data.draw(st.integers(1, 3), label="breaks")):
        paths = _paths(body)
        if data.draw(st.integers(0, 4), label="envelope") > 0:
            paths = [p for p in paths if p[0] not in ENVELOPE]  # none: a field is added
        path = data.draw(st.sampled_from(paths), label="at") if paths else ()
        action = data.draw(st.sampled_from(("odd", "odd", "replace", "drop", "add")), label="how")
        if action == "odd":  # a text field given odd text: what its schema lets through
            texts = [p for p in paths if isinstance(_container(body, p), str)]
            path = data.draw(st.sampled_from(texts), label="at") if texts else path
            action = "replace"
        if not path:
            action = "add"
        parent = _container(body, path[:-1]) if path else body
        if action == "replace":
            was = parent[path[-1]]
            odd = odd_strings(world) if isinstance(was, str) else bad_values(world)
            values = st.one_of(odd, bad_values(world)) if isinstance(was, str) else odd
            parent[path[-1]] = data.draw(values, label="value")
        elif action == "drop":
            if isinstance(parent, dict):
                del parent[path[-1]]
            else:
                parent.pop(path[-1])
        else:
            target = _container(body, path) if path else body
            if not isinstance(target, dict):
                target = parent if isinstance(parent, dict) else body
            name = data.draw(st.one_of(st.text(max_size=8), st.sampled_from(sorted(_ADDRESS_KEYS))))
            target[name] = data.draw(bad_values(world), label="extra")
    return body


def number_fields() -> frozenset[str]:
    """The names of the fields that carry a number: the schema's integers and ``uint``
    strings, and the text fields read as numbers (``expirationSeconds``, fees, ...)."""
    found: set[str] = set(_NUMBER_KEYS)

    def walk(spec: Any, name: str) -> None:
        if isinstance(spec, Integer) or (isinstance(spec, String) and spec.fmt == "uint"):
            found.add(name)
        elif isinstance(spec, Array):
            walk(spec.items, name)
        elif isinstance(spec, Object):
            for key, fld in spec.fields.items():
                walk(fld.spec, key)

    for op in REGISTRY.values():
        for spec in [v.params for v in op.versions] + ([op.body] if op.body else []):
            walk(spec, "")
    return frozenset(found)


NUMBER_FIELDS = number_fields()


def has_number_fields(op: Operation) -> bool:
    """Whether a request of ``op`` carries a number (an activity's ``timestampMs`` counts)."""
    specs = [v.params for v in op.versions] + ([op.body] if op.body else [])
    return op.kind == ACTIVITY or any(NUMBER_FIELDS & set(_names(s)) for s in specs)


def _names(spec: Any) -> Iterator[str]:
    if isinstance(spec, Array):
        yield from _names(spec.items)
    elif isinstance(spec, Object):
        for key, fld in spec.fields.items():
            yield key
            yield from _names(fld.spec)


def odd_numbers(data: st.DataObject, value: Any, key: str = "") -> Any:
    """``value`` with every number-carrying field (and ``timestampMs``) given a number
    written oddly: the class of the 500s the outside fuzz found, in every reader at once."""
    if isinstance(value, dict):
        return {k: odd_numbers(data, v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [odd_numbers(data, v, key) for v in value]
    if key in NUMBER_FIELDS or key == "timestampMs":
        odd = st.one_of(numeric_strings(_INTS), _NUMBERS)
        return data.draw(st.one_of(odd, st.just(value)), label=key)
    return value


# --- the wire -----------------------------------------------------------------------------


def encode(body: Any) -> bytes:
    """JSON as a careless client writes it: NaN and Infinity as bare words, lone surrogates
    escaped, very long integers allowed."""
    import sys

    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return json.dumps(body).encode()
    finally:
        sys.set_int_max_str_digits(limit)


def post(world: FuzzWorld, path: str, raw: bytes) -> tuple[int, Any]:
    """POST ``raw`` to ``path`` through the WSGI app, stamped with the organization's key."""
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "CONTENT_LENGTH": str(len(raw)),
        "CONTENT_TYPE": "application/json",
        "wsgi.input": io.BytesIO(raw),
        "HTTP_X_STAMP": sign_stamp(raw, world.org.api_key).header_value(),
        "REMOTE_ADDR": "127.0.0.1",
    }
    seen: dict[str, str] = {}

    def start_response(status: str, headers: list[tuple[str, str]]) -> None:
        seen["status"] = status

    payload = b"".join(world.emu.wsgi_app(environ, start_response))
    return int(seen["status"].split()[0]), json.loads(payload)


def check_answer(world: FuzzWorld, status: int, answer: Any) -> None:
    """Never a 5xx; an error has the API's shape and its code's status, and changed nothing."""
    assert status < 500, answer
    if status == 200:
        return
    assert isinstance(answer, dict) and set(answer) == ERROR_KEYS, answer
    assert isinstance(answer["code"], int) and HTTP_STATUS.get(answer["code"]) == status, answer
    assert isinstance(answer["message"], str) and answer["message"], answer
    assert isinstance(answer["details"], list), answer
    assert isinstance(answer["turnkeyErrorCode"], str), answer
    assert "Traceback" not in answer["message"], answer
    assert state_digest(world.emu) == world.digest, f"a refused request changed the world: {answer}"
