"""The packed vote's dictionaries (``ground/packed.py``): a raw-content one for a type's
first strings, then one trained on them; every frame reads back whichever made it."""

from __future__ import annotations

import hashlib

import zstandard

from emulator.ground import packed


def _strings(kind: str, n: int) -> list[tuple[str, bytes, str, str]]:
    out = []
    for i in range(n):
        digest = hashlib.sha256(f"{kind} {i}".encode()).hexdigest()
        message = (
            '{"parameters":{"signWith":"0x35cd7c09a9d86c2c0e50c06b5dc3f1a6c5d8e6f1","payload":"'
            + digest
            + '","encoding":"PAYLOAD_ENCODING_HEXADECIMAL","hashFunction":"HASH_FUNCTION_NO_OP"},'
            f'"organizationId":"0190a0f0-0000-7000-8000-00000000000{i % 10}",'
            f'"timestampMs":"{1_790_000_000_000 + i}","type":"{kind}"}}'
        )
        result = bytes.fromhex(digest) * 2
        out.append((message, result, digest[: i % 3 * 20], f"vote-{i:08d}-{digest[:8]}"))
    return out


def test_a_type_gets_a_trained_dictionary_after_its_first_strings():
    kind = "ACTIVITY_TYPE_TEST_TRAINED"
    parts = _strings(kind, packed.TRAIN_AFTER + 40)
    frames = [packed.pack(kind, *p) for p in parts]
    first, later = frames[0][0], frames[-1][0]
    assert first != later  # the frames after the training name the trained dictionary
    assert packed._by_kind[kind] == later and kind not in packed._samples
    assert all(f[0] == first for f in frames[: packed.TRAIN_AFTER - 1])  # the last trains
    for frame, p in zip(frames, parts, strict=True):
        assert packed.unpack(frame) == p  # each frame reads back with its own dictionary
    # smaller than with the first dictionary alone, for the same kind of string
    trained = sum(map(len, frames[-20:])) / 20
    assert trained < sum(map(len, frames[: packed.TRAIN_AFTER - 1])) / (packed.TRAIN_AFTER - 1) + 8


def test_where_training_fails_the_first_dictionary_stays(monkeypatch):
    def refuse(*args, **kwargs):
        raise zstandard.ZstdError("cannot train dict")

    monkeypatch.setattr(zstandard, "train_dictionary", refuse)
    kind = "ACTIVITY_TYPE_TEST_UNTRAINABLE"
    parts = _strings(kind, packed.TRAIN_AFTER + 3)
    frames = [packed.pack(kind, *p) for p in parts]
    assert {f[0] for f in frames} == {frames[0][0]}
    assert kind not in packed._samples  # tried once, not on every string after
    for frame, p in zip(frames, parts, strict=True):
        assert packed.unpack(frame) == p
