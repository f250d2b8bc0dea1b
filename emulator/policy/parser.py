"""Policy text to syntax tree, with the real service's error messages.

The grammar, loosest binding first (all binary operators left-associative):

    expr     := expr '||' and | and
    and      := and '&&' compare | compare
    compare  := compare ('=='|'!='|'<'|'>'|'<='|'>='|'in') unary | unary
    unary    := '!' unary | postfix
    postfix  := postfix '.' IDENT
              | postfix '.' ('any'|'all'|'filter') '(' IDENT ',' expr ')'
              | postfix '.' 'contains' '(' expr ')' | postfix '.' 'count' '(' ')'
              | postfix '[' expr ']' | postfix '[' expr '..' expr ']' | primary
    primary  := INT | STRING | 'true' | 'false' | IDENT | '[' list? ']' | '(' expr ')'
              | 'Timestamp' '(' expr ')' | 'CronSpan' '(' expr ',' expr ',' expr ')'

The service parses with a LALRPOP-generated LR parser.  An LR parser stops at
the first token that cannot continue any valid expression; this predictive
parser has the same property for this grammar, so it reports the same token,
in the same words (LALRPOP's ``ParseError`` Display without the "Expected one
of" list) and at the same UTF-8 byte offsets.  An LR parser never reports
``Extra token`` for a grammar whose start rule ends at end-of-input, so a
stray token after a whole expression is an ``Unrecognized token`` too.
"""

from __future__ import annotations

from emulator.ground.numbers import integer
from emulator.policy.errors import PolicySyntaxError
from emulator.policy.lexer import Lexer, Token
from emulator.policy.nodes import (
    Binary,
    Call,
    Contains,
    Count,
    Field,
    Index,
    ListLiteral,
    Literal,
    Name,
    Node,
    Not,
    Quantifier,
    Slice,
)

COMPARISONS = frozenset({"==", "!=", "<", ">", "<=", ">=", "in"})
QUANTIFIERS = frozenset({"any", "all", "filter"})
FUNCTION_ARITY = {"Timestamp": 1, "CronSpan": 3}
MAX_UINT256 = (1 << 256) - 1
# Nesting deeper than this (parentheses, ``!``, arguments) is refused up front, whatever
# the interpreter's recursion limit: no real policy comes near it.
MAX_NESTING = 200


def parse_tree(text: str) -> Node:
    """The syntax tree of ``text``; raises ``PolicySyntaxError``."""
    try:
        return _Parser(text).parse()
    except RecursionError:
        raise PolicySyntaxError("expression is nested too deeply", 0) from None


def _byte_offset(text: str, index: int) -> int:
    """LALRPOP locations count UTF-8 bytes, not characters."""
    return index if text.isascii() else len(text[:index].encode("utf-8"))


class _Parser:
    __slots__ = ("_depth", "_lexer", "_text", "_token")

    def __init__(self, text: str) -> None:
        self._text = text
        self._lexer = Lexer(text)
        self._token = self._lexer.next()
        self._depth = 0

    # --- token plumbing ---------------------------------------------------

    def _advance(self) -> Token:
        token = self._token
        self._token = self._lexer.next()
        return token

    def _fail(self) -> PolicySyntaxError:
        """The error for the current lookahead, worded like LALRPOP's Display."""
        token, text = self._token, self._text
        start = _byte_offset(text, token.start)
        if token.kind == "invalid":
            return PolicySyntaxError(f"Invalid token at {start}", start)
        if token.kind == "eof":
            return PolicySyntaxError(f"Unrecognized EOF found at {start}", start)
        end = _byte_offset(text, token.end)
        return PolicySyntaxError(f"Unrecognized token `{token.text}` found at {start}:{end}", start)

    def _expect(self, kind: str) -> Token:
        if self._token.kind != kind:
            raise self._fail()
        return self._advance()

    # --- grammar ----------------------------------------------------------

    def parse(self) -> Node:
        node = self._or()
        if self._token.kind != "eof":
            raise self._fail()
        return node

    def _or(self) -> Node:
        node = self._and()
        while self._token.kind == "||":
            self._advance()
            right = self._and()
            node = Binary(node.start, right.end, "||", node, right)
        return node

    def _and(self) -> Node:
        node = self._compare()
        while self._token.kind == "&&":
            self._advance()
            right = self._compare()
            node = Binary(node.start, right.end, "&&", node, right)
        return node

    def _compare(self) -> Node:
        node = self._unary()
        while self._token.kind in COMPARISONS:
            op = self._advance().kind
            right = self._unary()
            node = Binary(node.start, right.end, op, node, right)
        return node

    def _unary(self) -> Node:
        self._depth += 1
        if self._depth > MAX_NESTING:
            raise PolicySyntaxError("expression is nested too deeply", 0)
        try:
            if self._token.kind == "!":
                start = self._advance().start
                operand = self._unary()
                return Not(start, operand.end, operand)
            return self._postfix()
        finally:
            self._depth -= 1

    def _postfix(self) -> Node:
        node = self._primary()
        while True:
            kind = self._token.kind
            if kind == ".":
                self._advance()
                name = self._expect("ident")
                if self._token.kind == "(":
                    node = self._method(node, name)
                else:
                    node = Field(node.start, name.end, node, name.text)
            elif kind == "[":
                self._advance()
                index = self._or()
                if self._token.kind == "..":
                    self._advance()
                    upper = self._or()
                    end = self._expect("]").end
                    node = Slice(node.start, end, node, index, upper)
                else:
                    end = self._expect("]").end
                    node = Index(node.start, end, node, index)
            else:
                return node

    def _method(self, target: Node, name: Token) -> Node:
        """After ``target.name`` with ``(`` ahead: one of the five list methods."""
        method = name.text
        if method in QUANTIFIERS:
            self._advance()
            item = self._expect("ident").text
            self._expect(",")
            predicate = self._or()
            end = self._expect(")").end
            return Quantifier(target.start, end, target, method, item, predicate)
        if method == "contains":
            self._advance()
            value = self._or()
            end = self._expect(")").end
            return Contains(target.start, end, target, value)
        if method == "count":
            self._advance()
            end = self._expect(")").end
            return Count(target.start, end, target)
        raise self._fail()  # no such method: the `(` is what cannot follow

    def _primary(self) -> Node:
        token = self._token
        kind = token.kind
        if kind == "int":
            value = integer(token.text)  # None past 100 digits: too large as well
            if value is None or value > MAX_UINT256:
                start = _byte_offset(self._text, token.start)
                raise PolicySyntaxError("number too large to fit in target type", start)
            self._advance()
            return Literal(token.start, token.end, value)
        if kind == "str":
            self._advance()
            return Literal(token.start, token.end, token.text[1:-1])
        if kind == "true" or kind == "false":
            self._advance()
            return Literal(token.start, token.end, kind == "true")
        if kind == "ident":
            self._advance()
            if self._token.kind == "(":
                return self._call(token)
            return Name(token.start, token.end, token.text)
        if kind == "[":
            self._advance()
            items: list[Node] = []
            while self._token.kind != "]":
                items.append(self._or())
                if self._token.kind != ",":
                    break
                self._advance()
            end = self._expect("]").end
            return ListLiteral(token.start, end, tuple(items))
        if kind == "(":
            self._advance()
            node = self._or()
            self._expect(")")
            return node
        raise self._fail()

    def _call(self, name: Token) -> Node:
        """After a function name with ``(`` ahead."""
        arity = FUNCTION_ARITY.get(name.text)
        if arity is None:
            raise self._fail()
        self._advance()
        args = [self._or()]
        for _ in range(arity - 1):
            self._expect(",")
            args.append(self._or())
        end = self._expect(")").end
        return Call(name.start, end, name.text, tuple(args))
