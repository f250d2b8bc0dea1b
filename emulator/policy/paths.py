"""Reading a keyword (or a bound item) and the fields and keys under it.

``activity.params.hash_function`` and ``eth.tx.contract_call_args['wad']`` are
the commonest things a policy does, so a whole run of reads is one closure:
one call, ``Lazy`` values resolved on the way, and the error for a missing
key naming the source text up to that key (``MissingField: activity.params``).
A read from something that is not a mapping (a list, a string, an int) is a
``TypeError``; the language has no fields on those.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emulator.policy.runtime import Fn, field_error, missing_root
from emulator.policy.values import Lazy

Steps = tuple[tuple[Any, str], ...]  # (key, source text up to and including it)
_READ_ERRORS = (KeyError, TypeError, IndexError)


def path_reader(root: str, slot: int | None, steps: Steps) -> Fn:
    """``root`` then ``steps``; ``slot`` is the frame depth of a bound item, or
    None to read ``root`` from the environment."""
    if slot is not None:

        def read_item(env: Mapping[str, Any], frame: Any) -> Any:
            return frame[slot]

        return walk(read_item, steps) if steps else read_item
    if len(steps) == 1:
        return _keyword_and_key(root, *steps[0])
    if len(steps) == 2:
        return _keyword_and_two_keys(root, steps[0], steps[1])

    def read_keyword(env: Mapping[str, Any], frame: Any) -> Any:
        try:
            value = env[root]
        except KeyError:
            raise missing_root(root) from None
        if type(value) is Lazy:
            return value.get()
        return value

    return walk(read_keyword, steps) if steps else read_keyword


def walk(target: Fn, steps: Steps) -> Fn:
    """Follow map keys (field names or string indices) from what ``target`` returns."""

    def read_keys(env: Mapping[str, Any], frame: Any) -> Any:
        value = target(env, frame)
        for key, label in steps:
            try:
                value = value[key]
            except _READ_ERRORS:
                raise field_error(value, key, label) from None
            if type(value) is Lazy:
                value = value.get()
        return value

    return read_keys


# The two shapes below are the same as `walk` over a keyword, unrolled: they
# are what nearly every condition reads (`activity.type`, `eth.tx.to`).


def _keyword_and_key(root: str, key: Any, label: str) -> Fn:
    def read(env: Mapping[str, Any], frame: Any) -> Any:
        try:
            value = env[root]
        except KeyError:
            raise missing_root(root) from None
        if type(value) is Lazy:
            value = value.get()
        try:
            value = value[key]
        except _READ_ERRORS:
            raise field_error(value, key, label) from None
        if type(value) is Lazy:
            return value.get()
        return value

    return read


def _keyword_and_two_keys(root: str, first: tuple[Any, str], second: tuple[Any, str]) -> Fn:
    (key1, label1), (key2, label2) = first, second

    def read(env: Mapping[str, Any], frame: Any) -> Any:
        try:
            value = env[root]
        except KeyError:
            raise missing_root(root) from None
        if type(value) is Lazy:
            value = value.get()
        try:
            value = value[key1]
        except _READ_ERRORS:
            raise field_error(value, key1, label1) from None
        if type(value) is Lazy:
            value = value.get()
        try:
            value = value[key2]
        except _READ_ERRORS:
            raise field_error(value, key2, label2) from None
        if type(value) is Lazy:
            return value.get()
        return value

    return read


def keyword_key_equals(
    root: str, key: Any, key_label: str, constant: Any, equal: bool, slow: Fn
) -> Fn:
    """``root.key == constant`` (``!=`` when not ``equal``) as one closure: the read of
    ``_keyword_and_key`` and the compare of ``compare_constant`` fused, for the clause
    nearly every condition has (``activity.action == 'SIGN'``, ``wallet.label == 'hot'``).
    ``slow(value)`` answers for a value of another type than the constant's."""
    constant_type = type(constant)

    def compare(env: Mapping[str, Any], frame: Any) -> bool:
        try:
            value = env[root]
        except KeyError:
            raise missing_root(root) from None
        if type(value) is Lazy:
            value = value.get()
        try:
            value = value[key]
        except _READ_ERRORS:
            raise field_error(value, key, key_label) from None
        if type(value) is Lazy:
            value = value.get()
        if type(value) is constant_type:
            return (value == constant) is equal
        return slow(value)

    return compare
