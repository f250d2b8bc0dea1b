"""A settled activity's proposer vote packed into one compressed string (``compact.py``).

What a long run keeps per signature activity is mostly text only an old activity's reader
needs: the body its client sent (the vote's ``message``, 350-450 bytes of JSON), the
stamp's signature (about 140 hex digits over the wire), the vote's id and the activity's
result (``r``, ``s``, ``v``). ``compact`` hands them here once the activity is settled and
older; ``PackedVote`` keeps them as one Zstandard frame and gives them back, to every
reader, through the same attributes (``message``, ``signature``, ``vote_id``) as ``Vote``.

**Why Zstandard, with a dictionary.** Most of such a string is the same from one activity
of a type to the next (the JSON keys, the enum values, the organization id, the signing
address); what differs is hex digits. A dictionary (the first packed string of the same
activity type, taken as raw content) lets each frame refer to the repeated text, and
Zstandard's entropy coding stores the hex digits in about 4 bits each. Measured on a
``sign_raw_payload`` over the wire: 670 bytes become about 220 in 4-5 µs (level 1);
``zlib`` with the same dictionary needs about 9 µs for about 240 bytes (its per-stream set-up
with a dictionary is the cost), and without one it keeps about 500.

**A trained dictionary after the first strings.** A raw-content dictionary carries no
entropy tables, so each frame builds its own (Huffman for the literals, FSE for the
sequences): most of a 600-byte frame's cost. Once ``TRAIN_AFTER`` strings of a type were
packed, a dictionary is trained on them (``zstandard.train_dictionary``, about 10 ms once
a type and process) and packs the type's later strings: it carries tables the frames
reuse. Measured on a facade ``sign_raw_payload`` (level 1): 4.7 µs and 163 bytes a frame
with the raw-content dictionary, 1.8 µs and 153 bytes with a trained one (2 kB, trained
on 16 to 200 samples alike). Where training fails (samples too alike or too few bytes),
the first dictionary stays.

The frames and dictionaries are this process's own (like the snapshots' pickles, never
written anywhere): a dictionary, once made, is never dropped (a frame names its own by its
first byte), so any frame of any emulator in the process reads back. At most
``MAX_DICTIONARIES`` are made (two per activity type; there are fewer than 128), past that
frames are made without one.
"""

from __future__ import annotations

import struct
import threading
from typing import Any

import zstandard

from .models import Vote

LEVEL = 1  # Zstandard's fastest level with entropy coding (negative levels store hex as is)
MAX_DICTIONARIES = 255
TRAIN_AFTER = 16  # strings of a type packed with its first dictionary before one is trained
TRAINED_SIZE = 2048  # bytes of a trained dictionary
_NO_DICTIONARY = 255
_HEADER = struct.Struct("<IIII")  # lengths of message, result, signature, vote id

_lock = threading.Lock()  # compressor objects are not safe to share between threads
# A type's first strings (``TRAIN_AFTER`` of them), kept until its dictionary is trained.
_samples: dict[str, list[bytes]] = {}
_by_kind: dict[str, int] = {}
_compressors: list[Any] = []
_decompressors: list[Any] = []
_plain_compressor = zstandard.ZstdCompressor(level=LEVEL, write_checksum=False)
_plain_decompressor = zstandard.ZstdDecompressor()


def _index_for(kind: str, sample: bytes) -> int:
    index = _by_kind.get(kind)
    if index is not None:
        samples = _samples.get(kind)
        if samples is not None:  # its first strings: the trained dictionary's samples
            samples.append(sample)
            if len(samples) >= TRAIN_AFTER:
                del _samples[kind]
                index = _trained(kind, samples, index)
        return index
    if len(_compressors) >= MAX_DICTIONARIES:
        return _NO_DICTIONARY
    _samples[kind] = [sample]
    dictionary = zstandard.ZstdCompressionDict(sample, dict_type=zstandard.DICT_TYPE_RAWCONTENT)
    index = _by_kind[kind] = _add(dictionary)
    return index


def _trained(kind: str, samples: list[bytes], index: int) -> int:
    """The index of a dictionary trained on ``samples`` for ``kind`` (now its dictionary),
    or ``index`` where none can be made (too few distinct samples, no room left)."""
    if len(_compressors) >= MAX_DICTIONARIES:
        return index
    try:
        dictionary = zstandard.train_dictionary(TRAINED_SIZE, samples, level=LEVEL)
    except zstandard.ZstdError:
        return index
    index = _by_kind[kind] = _add(dictionary)
    return index


def _add(dictionary: Any) -> int:
    dictionary.precompute_compress(level=LEVEL)
    _compressors.append(
        zstandard.ZstdCompressor(
            dict_data=dictionary, level=LEVEL, write_checksum=False, write_dict_id=False
        )
    )
    _decompressors.append(zstandard.ZstdDecompressor(dict_data=dictionary))
    return len(_compressors) - 1


def pack(kind: str, message: str, result: bytes, signature: str, vote_id: str) -> bytes:
    """One compressed string of the four parts, for an activity of type ``kind``."""
    return pack_message(kind, message.encode(), result, signature, vote_id)


def pack_message(kind: str, m: bytes, result: bytes, signature: str, vote_id: str) -> bytes:
    """``pack`` of a message already encoded (``m``: the body as its client sent it)."""
    s, v = signature.encode(), vote_id.encode()
    raw = b"".join((_HEADER.pack(len(m), len(result), len(s), len(v)), m, result, s, v))
    with _lock:
        index = _index_for(kind, raw)
        compressor = _compressors[index] if index != _NO_DICTIONARY else _plain_compressor
        return bytes((index,)) + compressor.compress(raw)


def unpack(packed: bytes) -> tuple[str, bytes, str, str]:
    """``(message, result, signature, vote_id)`` of a string ``pack`` made."""
    index = packed[0]
    with _lock:
        decompressor = _decompressors[index] if index != _NO_DICTIONARY else _plain_decompressor
        raw = decompressor.decompress(packed[1:])
    m, r, s, v = _HEADER.unpack_from(raw)
    at = _HEADER.size
    message = raw[at : at + m].decode()
    at += m
    result = raw[at : at + r]
    at += r
    signature = raw[at : at + s].decode()
    at += s
    return message, result, signature, raw[at : at + v].decode()


_FIELDS = (
    "vote_id", "user_id", "activity_id", "selection", "message", "public_key", "signature",
    "scheme", "created_at", "voter", "policy_outcomes",
)  # fmt: skip
if tuple(Vote.__dataclass_fields__) != _FIELDS:  # type: ignore[attr-defined]
    raise ImportError("Vote's fields changed: PackedVote.made passes them by position")

# The slots of ``Vote`` a packed vote keeps as they are (the others are in the frame).
_KEPT = tuple(
    name
    for name in Vote.__dataclass_fields__  # type: ignore[attr-defined]
    if name not in ("message", "signature", "vote_id")
)
_SLOTS = tuple(Vote.__dict__[name] for name in _KEPT)  # the member descriptors
_MESSAGE = Vote.__dict__["message"]  # holds the frame in a packed vote
_SIGNATURE = Vote.__dict__["signature"]
_VOTE_ID = Vote.__dict__["vote_id"]


class PackedVote(Vote):
    """A ``Vote`` whose message, signature and id (and its activity's result, when
    ``compact`` put it here) are one compressed string, kept in the ``message`` slot. Reads
    the same; never written to except ``voter`` (as a vote in memory) and
    ``policy_outcomes``. No slot of its own: a vote becomes one in place (``of``)."""

    __slots__ = ()

    @classmethod
    def made(
        cls,
        frame: bytes,
        user_id: str,
        activity_id: str,
        selection: str,
        public_key: str,
        scheme: str,
        created_at: int,
        voter: Any,
    ) -> PackedVote:
        """A packed vote made at once from its ``frame`` (``pack``'s) and the parts kept as
        they are, with no policy outcome: what ``of`` makes of such a vote."""
        # Positional (a third of the keywords' cost): the order ``_FIELDS`` checks.
        vote = Vote("", user_id, activity_id, selection, frame, public_key, "", scheme, created_at, voter, ())  # type: ignore[arg-type]  # fmt: skip
        vote.__class__ = cls
        return vote  # type: ignore[return-value]

    @classmethod
    def of(cls, vote: Vote, kind: str, result: bytes) -> PackedVote:
        """``vote`` itself, packed in place (its class changed: the same layout)."""
        packed = pack(kind, vote.message, result, vote.signature, vote.vote_id)
        _MESSAGE.__set__(vote, packed)
        _SIGNATURE.__set__(vote, "")
        _VOTE_ID.__set__(vote, "")
        vote.__class__ = cls
        return vote  # type: ignore[return-value]

    @property
    def packed(self) -> bytes:
        return _MESSAGE.__get__(self, Vote)  # type: ignore[no-any-return]

    @property  # type: ignore[override]
    def message(self) -> str:  # type: ignore[override]
        return unpack(self.packed)[0]

    @property  # type: ignore[override]
    def signature(self) -> str:  # type: ignore[override]
        return unpack(self.packed)[2]

    @property  # type: ignore[override]
    def vote_id(self) -> str:  # type: ignore[override]
        return unpack(self.packed)[3]

    def result(self) -> bytes:
        """The activity's result as ``compact`` packed it (marshalled; ``b""`` if none)."""
        return unpack(self.packed)[1]

    def __reduce__(self) -> tuple[Any, ...]:  # pickle, copy: the parts as they are
        return (_restored, (self.packed, tuple(getattr(self, name) for name in _KEPT)))


def _restored(packed: bytes, kept: tuple[Any, ...]) -> PackedVote:
    made = object.__new__(PackedVote)
    for slot, value in zip(_SLOTS, kept, strict=True):
        slot.__set__(made, value)
    _MESSAGE.__set__(made, packed)
    _SIGNATURE.__set__(made, "")
    _VOTE_ID.__set__(made, "")
    return made
