"""Tokens of the policy language.

Modelled on the tokenizer LALRPOP generates for the real service: whitespace
between tokens is skipped, each token is the longest match at its position
(keywords win over identifiers of the same length), and a position where no
token starts is an ``Invalid token`` error.  Only single-quoted strings exist,
without escapes, so a double quote or an unterminated string is such a
position.

The parser pulls tokens one at a time, exactly like LALRPOP's parser pulls
from its lexer, so an invalid character after a syntax error is never reached
and the error reported is the first one in the text.
"""

from __future__ import annotations

import re
from typing import NamedTuple

KEYWORDS = frozenset({"true", "false", "in"})

_WHITESPACE = re.compile(r"\s*")
_TOKEN = re.compile(
    r"(?P<ident>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<int>[0-9]+)"
    r"|(?P<str>'[^']*')"
    r"|(?P<punct>&&|\|\||==|!=|<=|>=|\.\.|[<>!()\[\],.])"
)


class Token(NamedTuple):
    """One token: ``kind`` is ``ident``, ``int``, ``str``, ``eof``, ``invalid``,
    a keyword, or the punctuation text itself; offsets are character indices."""

    kind: str
    text: str
    start: int
    end: int


class Lexer:
    """Hands out tokens one at a time; the last one is ``eof`` or ``invalid``.

    The ``eof`` token sits where LALRPOP reports ``Unrecognized EOF``: at the
    end of the last real token, or 0 when there was none (so whitespace-only
    text reports 0, as an empty text does).
    """

    __slots__ = ("_last_end", "_position", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._position = 0
        self._last_end = 0

    def next(self) -> Token:
        text = self._text
        position = _WHITESPACE.match(text, self._position).end()
        if position == len(text):
            self._position = position
            return Token("eof", "", self._last_end, self._last_end)
        match = _TOKEN.match(text, position)
        if match is None:
            self._position = position
            return Token("invalid", text[position], position, position)
        kind = match.lastgroup
        value = match.group()
        if kind == "punct" or (kind == "ident" and value in KEYWORDS):
            kind = value
        end = match.end()
        self._position = self._last_end = end
        return Token(kind, value, position, end)  # type: ignore[arg-type]
