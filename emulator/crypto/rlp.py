"""Recursive Length Prefix (RLP) encoding, Ethereum Yellow Paper appendix B; strict decoding."""

from __future__ import annotations

from collections.abc import Sequence


class RlpError(ValueError):
    """Input that is not valid, canonical RLP (or a value RLP cannot encode)."""


def _length_prefix(length: int, short_base: int) -> bytes:
    if length < 56:
        return bytes([short_base + length])
    size = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes([short_base + 55 + len(size)]) + size


def encode(item: object) -> bytes:
    """Encode bytes, a non-negative int (canonical big-endian) or a (nested) list of those."""
    if isinstance(item, (bytes, bytearray, memoryview)):
        data = bytes(item)
        if len(data) == 1 and data[0] < 0x80:
            return data
        return _length_prefix(len(data), 0x80) + data
    if isinstance(item, bool):
        raise RlpError("cannot RLP-encode a bool")
    if isinstance(item, int):
        if item < 0:
            raise RlpError("cannot RLP-encode a negative integer")
        return encode(item.to_bytes((item.bit_length() + 7) // 8, "big"))
    if isinstance(item, Sequence) and not isinstance(item, str):
        body = b"".join(encode(element) for element in item)
        return _length_prefix(len(body), 0xC0) + body
    raise RlpError(f"cannot RLP-encode {type(item).__name__}")


def _read_length(data: bytes, pos: int, size: int) -> int:
    """Read a long-form length of ``size`` bytes; it must be canonical (>= 56, no leading zero)."""
    raw = data[pos : pos + size]
    if len(raw) < size:
        raise RlpError("input too short for length prefix")
    if raw[0] == 0:
        raise RlpError("non-canonical length (leading zero)")
    length = int.from_bytes(raw, "big")
    if length < 56:
        raise RlpError("non-canonical length (long form for a short item)")
    return length


def _decode_at(data: bytes, pos: int) -> tuple[object, int]:
    """Decode one item starting at ``pos``; return it and the position just after it."""
    if pos >= len(data):
        raise RlpError("input too short")
    prefix = data[pos]
    if prefix < 0x80:
        return data[pos : pos + 1], pos + 1
    if prefix < 0xC0:
        if prefix <= 0xB7:
            start, length = pos + 1, prefix - 0x80
        else:
            size = prefix - 0xB7
            start, length = pos + 1 + size, _read_length(data, pos + 1, size)
        end = start + length
        if end > len(data):
            raise RlpError("input too short for string")
        if length == 1 and data[start] < 0x80:
            raise RlpError("non-canonical single byte")
        return data[start:end], end
    if prefix <= 0xF7:
        start, length = pos + 1, prefix - 0xC0
    else:
        size = prefix - 0xF7
        start, length = pos + 1 + size, _read_length(data, pos + 1, size)
    end = start + length
    if end > len(data):
        raise RlpError("input too short for list")
    items: list[object] = []
    cursor = start
    while cursor < end:
        item, cursor = _decode_at(data, cursor)
        if cursor > end:
            raise RlpError("list item overruns its list")
        items.append(item)
    return items, end


def decode(data: bytes) -> object:
    """Decode one RLP item that spans all of ``data``: bytes, or nested lists of bytes."""
    data = bytes(data)
    try:
        item, end = _decode_at(data, 0)
    except RecursionError:
        raise RlpError("lists nested too deeply") from None
    if end != len(data):
        raise RlpError(f"trailing bytes after RLP item ({len(data) - end})")
    return item


def decode_uint(b: bytes) -> int:
    """Decode a canonical big-endian unsigned integer (empty is 0; no leading zero byte)."""
    if not isinstance(b, (bytes, bytearray)):
        raise RlpError("expected an integer, got a list")
    if b[:1] == b"\x00":
        raise RlpError("non-canonical integer (leading zero)")
    return int.from_bytes(b, "big")
