"""What every generated facade method shares: strict keyword arguments.

``facade/generated.py`` declares one real method per operation, with its
parameters as keyword-only snake_case arguments. ``operation`` wraps each so
that, at run time as for a type checker:

- positional arguments are refused (the parameters are keywords);
- camelCase is accepted beside snake_case (``walletName=`` for ``wallet_name=``),
  but both spellings of one parameter at once is an error;
- an unknown keyword is a ``TypeError`` naming the operation and the closest
  valid parameter (``did you mean `accounts`?``), never silently dropped.

Only light modules are imported here: ``import emulator`` stays cheap.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..ground.codec import camel

if TYPE_CHECKING:  # the schema module loads with the registry, on the first call
    from ..ground.schema import Object

F = TypeVar("F", bound=Callable[..., Any])


def operation(name: str) -> Callable[[F], F]:
    """Make the generated method for operation ``name`` strict about its keywords."""

    def decorate(method: F) -> F:
        code = method.__code__
        first = code.co_argcount
        ordered = code.co_varnames[first : first + code.co_kwonlyargcount]
        names = frozenset(ordered)
        spellings = {camel(n): n for n in names if camel(n) != n}

        @functools.wraps(method)
        def strict(self: Any, *args: Any, **kwargs: Any) -> Any:
            if args or not kwargs.keys() <= names:
                kwargs = _keywords(name, method.__name__, ordered, spellings, args, kwargs)
            return method(self, **kwargs)

        return strict  # type: ignore[return-value]

    return decorate


def _keywords(
    operation_name: str,
    method_name: str,
    ordered: tuple[str, ...],
    spellings: dict[str, str],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> dict[str, Any]:
    """``kwargs`` in snake_case, or the ``TypeError`` that says what is wrong with them."""
    where = f"{method_name}() (operation {operation_name})"
    names = frozenset(ordered)
    if args:
        raise TypeError(
            f"{where} takes no positional arguments: its parameters are keywords, "
            f"for example {method_name}({ordered[0]}=...); got {len(args)} positional"
        )
    out: dict[str, Any] = {}
    for key, value in kwargs.items():
        snake = key if key in names else spellings.get(key)
        if snake is None:
            raise TypeError(
                f"{where} got an unexpected keyword argument {key!r}{_hint(key, names)}"
            )
        if snake in out or (snake != key and snake in kwargs):
            raise TypeError(f"{where} got {snake!r} twice (as {snake!r} and {camel(snake)!r})")
        out[snake] = value
    return out


def _hint(key: str, names: frozenset[str]) -> str:
    """``; did you mean `accounts`?`` for the valid name closest to ``key``, if any."""
    import difflib

    by_spelling = {n: n for n in names} | {camel(n).lower(): n for n in names}
    lowered = key.lower()
    close = difflib.get_close_matches(lowered, list(by_spelling), n=1, cutoff=0.6)
    if not close:
        return f"; its parameters are {', '.join(sorted(names))}"
    return f"; did you mean `{by_spelling[close[0]]}`?"


#: Lists the API requires but callers usually leave empty: when a facade call leaves one
#: out, the facade sends ``[]`` (the wire keeps requiring them, as the real API does).
EMPTY_BY_DEFAULT = frozenset(
    {
        "apiKeys",
        "authenticators",
        "oauthProviders",
        "userTags",
        "receiverUserTags",
        "privateKeyTags",
    }
)


def fill_empty_lists(spec: Object, params: dict[str, Any]) -> None:
    """Put ``[]`` in ``params`` (wire names, changed in place) for each list of
    ``EMPTY_BY_DEFAULT`` that ``spec`` requires and the caller left out, at any depth."""
    if not _has_defaults(spec):
        return
    from ..ground.schema import Array, Object

    for name, fld in spec.fields.items():
        value = params.get(name)
        if value is None:
            if fld.required and name in EMPTY_BY_DEFAULT and isinstance(fld.spec, Array):
                params[name] = []
            continue
        inner = fld.spec.items if isinstance(fld.spec, Array) else fld.spec
        if not isinstance(inner, Object):
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict):
                fill_empty_lists(inner, item)


def _defaults_in(spec: Object) -> bool:
    from ..ground.schema import Array, Object

    for name, fld in spec.fields.items():
        inner = fld.spec.items if isinstance(fld.spec, Array) else fld.spec
        if name in EMPTY_BY_DEFAULT and isinstance(fld.spec, Array):
            return True
        if isinstance(inner, Object) and _has_defaults(inner):
            return True
    return False


# Specs are module constants of the registry: their ids stay theirs.
_HAS_DEFAULTS: dict[int, bool] = {}


def _has_defaults(spec: Object) -> bool:
    known = _HAS_DEFAULTS.get(id(spec))
    if known is None:
        known = _HAS_DEFAULTS[id(spec)] = _defaults_in(spec)
    return known


def facade_method_names(op: Any) -> tuple[str, ...]:
    """The facade methods of an operation: its path name, and its SDK name if different."""
    return tuple(dict.fromkeys((op.name, op.sdk_method)))
