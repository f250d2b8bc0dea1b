"""The request path's shortcuts answer exactly as the plain code they replace.

Each shortcut (issue: the signing path's cost) is checked against the standard library or
the straightforward computation, for values hypothesis draws and for the edge cases, and
every cache against the change that must invalidate it. Behaviour only: no timings.
"""

from __future__ import annotations

import json
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.ground import jsontext

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(JSON_VALUES)
def test_dumps_is_json_dumps_to_the_byte(value):
    assert jsontext.dumps(value) == json.dumps(value)


def test_dumps_refuses_what_json_dumps_refuses_and_recovers():
    cycle: dict = {}
    cycle["self"] = cycle
    for bad in (cycle, {"a": object()}, {1j: 1}, [float("inf"), {"x": set()}]):
        with pytest.raises((TypeError, ValueError)) as fast:
            jsontext.dumps(bad)
        with pytest.raises((TypeError, ValueError)) as plain:
            json.dumps(bad)
        assert (type(fast.value), str(fast.value)) == (type(plain.value), str(plain.value))
        # The failure leaves nothing behind: the same containers encode again.
        shared = {"k": [1, 2]}
        assert jsontext.dumps({"a": shared, "b": shared}) == json.dumps({"a": shared, "b": shared})


def test_dumps_from_many_threads_at_once():
    shared = {"nested": {"list": [1, {"deep": "é"}] * 50}}
    failures: list[str] = []

    def work() -> None:
        for _ in range(200):
            if jsontext.dumps(shared) != json.dumps(shared):
                failures.append("differs")

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


HEX_TEXT = st.text(alphabet="0123456789abcdefABCDEFxX \t\n\x0b\x0c\r٣g-", max_size=12)


@given(st.one_of(HEX_TEXT, st.text(max_size=8)))
def test_hexadecimal_payloads_decode_as_the_pattern_says(payload):
    """A payload decodes iff its digits (after an optional 0x) are pairs of [0-9a-fA-F]."""
    import re

    from emulator.crypto.signing import HEXADECIMAL, SigningError, payload_bytes

    digits = payload[2:] if payload[:2] in ("0x", "0X") else payload
    if len(digits) % 2 == 0 and re.fullmatch(r"[0-9a-fA-F]*", digits):
        assert payload_bytes(payload, HEXADECIMAL) == bytes.fromhex(digits)
    else:
        with pytest.raises(SigningError) as refused:
            payload_bytes(payload, HEXADECIMAL)
        assert str(refused.value) == "invalid payload encoding: payload is not valid hexadecimal"


@given(st.integers(min_value=0, max_value=2**64) | st.floats(min_value=0, max_value=2e18))
def test_timestamps_render_as_their_number_says_whatever_was_rendered_before(ns):
    from emulator.ground import render
    from emulator.ground.clock import NANOS_PER_SECOND

    for _ in range(2):  # the second time from the cache
        got = render.timestamp(ns)
        assert got == {"seconds": str(ns // NANOS_PER_SECOND), "nanos": str(ns % NANOS_PER_SECOND)}
    got["seconds"] = "changed"  # a caller's dict is its own
    assert render.timestamp(ns)["seconds"] == str(ns // NANOS_PER_SECOND)


def test_the_timestamp_cache_stays_bounded():
    from emulator.ground import render

    for ns in range(3 * render._TIMESTAMP_TEXT_MAX):
        render.timestamp(ns)
    assert len(render._SECONDS_TEXT) <= render._TIMESTAMP_TEXT_MAX
    assert len(render._NANOS_TEXT) <= render._TIMESTAMP_TEXT_MAX
    assert render.timestamp(5) == {"seconds": "0", "nanos": "5"}


@given(st.integers(0, 2**32), st.integers(0, 2**60), st.lists(st.booleans(), max_size=8))
def test_ids_set_the_bits_of_rfc_9562_on_the_stream_draws(seed, unix_ms, kinds):
    """``uuid4`` and ``uuid7`` draw the stream's next 16 or 10 bytes (``_block``, keyed
    BLAKE2b over the counter) and set the version and variant bits on them."""
    import uuid

    from emulator.ground.ids import IdSource, _block, uuid7_from

    source = IdSource(seed=seed)
    for n, is_uuid7 in enumerate(kinds):
        assert source.getstate() == (n, 0)
        if is_uuid7:
            made = source.uuid7(unix_ms)
            assert made == uuid7_from(unix_ms, _block(source._ids_key, n, 10))
            assert uuid.UUID(made).version == 7 and int(made[:13].replace("-", ""), 16) == (
                unix_ms & (2**48 - 1)
            )
        else:
            made = source.uuid4()
            raw = _block(source._ids_key, n, 16)
            value = (int.from_bytes(raw, "big") & ~(0xF << 76) | 0x4 << 76) & ~(0x3 << 62)
            assert made == str(uuid.UUID(int=value | 0x2 << 62))
            assert uuid.UUID(made).version == 4
        assert uuid.UUID(made).variant == uuid.RFC_4122


def test_seeded_ids_are_those_of_before():
    """The same seed gives the same ids as the integer arithmetic did (fixed values)."""
    from emulator.ground.ids import IdSource

    source = IdSource(seed=7)
    assert [source.uuid4() for _ in range(2)] == EXPECTED_SEED_7
    assert source.uuid7(1_790_000_000_000) == EXPECTED_SEED_7_UUID7


# IdSource(seed=7).uuid4() twice, then a uuid7, by the code before the shortcuts.
EXPECTED_SEED_7 = ["9ae800fb-60a6-4fa2-be26-8b1a326cf965", "5b7b425e-0075-4240-9131-f1287e3a7a0a"]
EXPECTED_SEED_7_UUID7 = "01a0c450-6c00-7a5d-a59b-7f29ae38b865"


def test_the_call_log_reads_the_same_calls_whenever_and_however_it_is_read():
    """Calls are kept as rows until read: every way of reading gives the same Call
    objects, the bodies age out as before, and the oldest calls drop off."""
    from emulator import Emulator
    from emulator.recorders.calls import Call, CallLog

    emu = Emulator(seed=3)
    emu.create_organization("Acme")
    emu.world.calls = CallLog(max_entries=6, max_bodies=2)
    for i in range(4):
        emu.create_users(users=[{"userName": f"u{i}", "apiKeys": [], "authenticators": []}])
    middle = emu.calls[1]  # one read in the middle, then more unread rows after it
    emu.get_whoami()
    emu.get_whoami()
    calls = emu.calls.all()
    assert [type(c) for c in calls] == [Call] * 6
    assert calls[1] is middle and emu.calls[1] is middle and list(emu.calls)[1] is middle
    assert [c.seq for c in calls] == [1, 2, 3, 4, 5, 6]
    assert [c.result is not None for c in calls] == [False] * 4 + [True] * 2
    assert [c.request is not None for c in calls] == [False] * 4 + [True] * 2
    assert calls[3].activity_status == "ACTIVITY_STATUS_COMPLETED"
    assert calls[3].activity_type == "ACTIVITY_TYPE_CREATE_USERS_V3"
    emu.get_whoami()  # a read call ages out as a Call, not a row
    assert emu.calls[-3].result is None and emu.calls[-3].request is None
    assert emu.calls[0].seq == 2 and len(emu.calls) == 6 and emu.calls.total == 7
    assert emu.calls.last(operation="whoami") is emu.calls[-1]
    emu.calls.clear()
    assert emu.calls.all() == [] and len(emu.calls) == 0


def test_object_checks_name_the_same_paths_first_time_and_after():
    from emulator.ground.schema import Array, Enum, String, check, obj, opt

    spec = obj(a=String(), b=opt(Enum(("X",))), items=Array(obj(c=String())))
    bad = {"a": 1, "b": "Y", "items": [{"c": "ok"}, {"c": 2}, {}]}
    first = check(spec, bad)
    again = check(spec, bad)
    assert first == again
    assert [v.field for v in first[1]] == ["a", "b", "items.1.c", "items.2.c"]
    assert check(spec, {"a": "x", "items": [{"c": "y"}]}) == ({"a": "x", "items": [{"c": "y"}]}, [])
    assert spec == obj(a=String(), b=opt(Enum(("X",))), items=Array(obj(c=String())))


@pytest.mark.parametrize("kind", [bytes, bytearray])
def test_a_bad_secp256k1_key_is_refused_every_time_and_a_good_one_signs_alike(kind):
    from emulator.crypto.curves import SECP256K1_ORDER
    from emulator.crypto.signing import SigningError, sign_digest_secp256k1

    digest = bytes(range(32))
    for bad in (bytes(32), SECP256K1_ORDER.to_bytes(32, "big"), b"\x01" * 31):
        for _ in range(2):  # refused again: a refusal is never kept
            with pytest.raises(SigningError, match="invalid private key"):
                sign_digest_secp256k1(kind(bad), digest)
    good = kind((12345).to_bytes(32, "big"))
    assert sign_digest_secp256k1(good, digest) == sign_digest_secp256k1(bytes(good), digest)


def test_activity_updates_skip_only_an_organization_no_endpoint_can_hear():
    """``activity_updates.note`` returns early for an organization with no endpoint and no
    parent; otherwise it registers a delivery exactly when ``subscribed`` finds endpoints."""
    import dataclasses

    from emulator import Emulator
    from emulator.events import activity_updates

    emu = Emulator()
    root = emu.create_organization("Root")
    world = emu.world
    bare = world.store.organizations[root.organization_id]
    emu.create_webhook_endpoint(
        url="http://127.0.0.1:9/hooks",
        name="hooks",
        subscriptions=[{"eventType": "ACTIVITY_UPDATES"}],
    )
    heard = world.store.organizations[root.organization_id]
    assert heard.webhook_endpoints
    silent = dataclasses.replace(heard, webhook_endpoints={})
    orphan = dataclasses.replace(silent, organization_id="orphan", parent_id="missing")
    world.store.organizations["silent-parent"] = dataclasses.replace(
        silent, organization_id="silent-parent"
    )
    child = dataclasses.replace(silent, organization_id="child", parent_id=heard.organization_id)
    quiet_child = dataclasses.replace(silent, organization_id="qc", parent_id="silent-parent")
    activity = next(iter(heard.activities.values()))
    cases = [(silent, False), (orphan, False), (child, True), (quiet_child, False), (heard, True)]
    if not bare.webhook_endpoints:
        cases.append((bare, False))
    for org, expected in cases:
        tx = world.transaction()
        before = tx.savepoint()[1]
        activity_updates.note(world, tx, org, activity)
        registered = tx.savepoint()[1] > before
        tx.rollback()
        assert registered is expected is bool(activity_updates.subscribed(world.store, org))
    del world.store.organizations["silent-parent"]


@given(st.binary(min_size=32, max_size=32))
def test_the_low_s_guard_compares_bytes_as_the_numbers_they_spell(s):
    from emulator.crypto import signing

    half = signing.SECP256K1_ORDER // 2
    assert (s > signing._HALF_ORDER) == (int.from_bytes(s, "big") > half)


def test_a_high_s_from_the_library_is_normalised(monkeypatch):
    """libsecp256k1 gives low S; were it not to, the signature is flipped as before."""
    from emulator.crypto import signing

    n = signing.SECP256K1_ORDER
    r, high = 0x1234, n - 5

    class HighS:
        def sign_recoverable(self, digest, hasher):
            return r.to_bytes(32, "big") + high.to_bytes(32, "big") + b"\x01"

    monkeypatch.setattr(signing, "_checked_secp256k1_key", lambda key: HighS())
    made = signing.sign_digest_secp256k1(b"\x01" * 32, b"\x02" * 32)
    assert (made.r, made.s, made.v) == (f"{r:064x}", f"{5:064x}", "00")
