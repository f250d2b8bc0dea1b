"""Placeholders in a seed file's policy expressions: ``{{kind:name}}`` for an id.

A policy's ``condition``, ``consensus`` and ``time`` may name what the same
organization's entry creates (``'{{wallet:hot}}'``); ``checked_expression``
checks each kind and name while the file is read, and ``fill`` puts the
created ids in their place before the policy is created.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..ground.codec import camel
from .seedchecks import SeedError, optional_text, words

# ``{{kind:name}}`` in a policy's expressions: kind -> the organization's section naming it
PLACEHOLDER_KINDS = {
    "user": "users",
    "userTag": "userTags",
    "wallet": "wallets",
    "privateKey": "privateKeys",
    "privateKeyTag": "privateKeyTags",
}
PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_PLACEHOLDER_PARTS = re.compile(r"\s*([A-Za-z_]+)\s*:(.*)", re.DOTALL)


def checked_expression(data: Any, where: str, declared: Mapping[str, list[str]]) -> str | None:
    """A policy expression whose placeholders each name something ``declared``."""
    text = optional_text(data, where)
    if text is None:
        return None
    for match in PLACEHOLDER.finditer(text):
        kind, name = _kind_and_name(match, where)
        if name not in declared[kind]:
            raise SeedError(
                where,
                f"{match.group(0)}: no {words(kind)} {name!r} in the organization's"
                f" {PLACEHOLDER_KINDS[kind]}",
            )
    if "{{" in PLACEHOLDER.sub("", text):
        raise SeedError(where, "a '{{' without its '}}': placeholders are {{kind:name}}")
    return text


def _kind_and_name(match: re.Match[str], where: str) -> tuple[str, str]:
    """``(kind, name)`` of a ``{{kind:name}}``; the kind in camelCase, or snake_case."""
    parts = _PLACEHOLDER_PARTS.fullmatch(match.group(1))
    kinds = ", ".join(sorted(PLACEHOLDER_KINDS))
    if parts is None or not parts.group(2).strip():
        raise SeedError(where, f"{match.group(0)} is not a {{{{kind:name}}}} (kinds: {kinds})")
    kind = camel(parts.group(1))
    if kind not in PLACEHOLDER_KINDS:
        raise SeedError(
            where, f"{match.group(0)}: unknown placeholder kind {parts.group(1)!r} (known: {kinds})"
        )
    return kind, parts.group(2).strip()


def fill(text: str | None, ids: Mapping[str, Mapping[str, str]]) -> str | None:
    """``text`` with each ``{{kind:name}}`` replaced by ``ids[kind][name]`` (checked by parse)."""
    if text is None:
        return None

    def one(match: re.Match[str]) -> str:
        parts = _PLACEHOLDER_PARTS.fullmatch(match.group(1))
        assert parts is not None, match.group(0)
        return ids[camel(parts.group(1))][parts.group(2).strip()]

    return PLACEHOLDER.sub(one, text)
