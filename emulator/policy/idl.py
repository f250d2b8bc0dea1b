"""Solana instructions read through an uploaded Anchor IDL (concepts/policies/smart-contract-interfaces).

With an IDL uploaded for an instruction's program, the instruction in ``solana.tx.instructions``
gains ``parsed_instruction_data``:

* ``instruction_name``: the IDL instruction whose discriminator starts the instruction data;
* ``discriminator``: those bytes, as lowercase hex (no ``0x``, as ``instruction_data_hex``);
* ``named_accounts``: the IDL's account names (nested groups flattened) -> the keys the
  instruction passes at those positions (the docs' field table spells it ``named_account``:
  both keys are there, the same map);
* ``program_call_args``: argument name -> value, borsh-decoded by ``policy/borsh.py``.

The discriminator is the IDL's own (``"discriminator": [..]``, Anchor 0.30) or, where it has
none, Anchor's default ``sha256("global:<snake_case name>")[:8]``. Names are read in
snake_case, as Anchor's conversion of a legacy IDL (camelCase ``inAmount``) spells them, so
the docs' ``program_call_args['in_amount']`` reads the legacy Jupiter IDL's ``inAmount``;
names already in snake_case are unchanged. Data that matches no instruction, or does not
decode, leaves the field out (a policy reading it then fails to evaluate), as an instruction of
a program with no IDL does.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..ground import jsontext
from .borsh import BorshError, Reader, check_type, fields_of

Json = dict[str, Any]

_WORD_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


class IdlError(ValueError):
    """An IDL that cannot be read (the text says where)."""


def snake_case(name: str) -> str:
    """``inAmount`` -> ``in_amount``, ``aToB`` -> ``a_to_b``; snake_case names unchanged."""
    return _WORD_BREAK.sub("_", name).lower()


@dataclass(frozen=True)
class Instruction:
    name: str
    discriminator: bytes
    accounts: tuple[str, ...]  # flattened, in order
    args: tuple[Any, ...]  # the IDL's {name, type} entries


@dataclass(frozen=True)
class Program:
    instructions: tuple[Instruction, ...]
    types: Mapping[str, Mapping[str, Any]]

    def resolve(self, name: str) -> Mapping[str, Any]:
        found = self.types.get(name)
        if found is None:
            raise BorshError(f"type {name!r} is not defined in the IDL")
        return found


def program(document: Any) -> Program:
    """The instructions (and the types they use) of an IDL; ``IdlError`` if it does not
    read: an instruction without a name, accounts or args that are not lists, an argument
    of a type the docs do not list, a type it does not define."""
    if not isinstance(document, Mapping) or not isinstance(document.get("instructions"), list):
        raise IdlError("an IDL is a JSON object with 'instructions'")
    types = {}
    for entry in document.get("types") or []:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            raise IdlError("every entry of 'types' needs a name")
        types[entry["name"]] = entry
    found = Program((), types)
    made = []
    for index, entry in enumerate(document["instructions"]):
        made.append(_instruction(entry, index, found))
    return Program(tuple(made), types)


def _instruction(entry: Any, index: int, found: Program) -> Instruction:
    if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
        raise IdlError(f"instruction {index} needs a name")
    name = entry["name"]
    accounts, args = entry.get("accounts", []), entry.get("args", [])
    if not isinstance(accounts, list) or not isinstance(args, list):
        raise IdlError(f"instruction {name}: accounts and args must be lists")
    for arg in args:
        if not isinstance(arg, Mapping) or "name" not in arg or "type" not in arg:
            raise IdlError(f"instruction {name}: every argument needs a name and a type")
        try:
            check_type(arg["type"], found.resolve)
        except (BorshError, KeyError, TypeError) as error:
            raise IdlError(f"instruction {name}, argument {arg['name']}: {error}") from None
    return Instruction(
        name=snake_case(name),
        discriminator=_discriminator(entry, name),
        accounts=tuple(_flattened(accounts, name)),
        args=tuple(args),
    )


def _discriminator(entry: Mapping[str, Any], name: str) -> bytes:
    given = entry.get("discriminator")
    if given is None:
        return hashlib.sha256(f"global:{snake_case(name)}".encode()).digest()[:8]
    if (
        not isinstance(given, list)
        or not given
        or not all(type(b) is int and 0 <= b <= 255 for b in given)
    ):
        raise IdlError(f"instruction {name}: a discriminator is a list of bytes")
    return bytes(given)


def _flattened(accounts: list[Any], instruction: str) -> list[str]:
    names = []
    for account in accounts:
        if not isinstance(account, Mapping) or not isinstance(account.get("name"), str):
            raise IdlError(f"instruction {instruction}: every account needs a name")
        nested = account.get("accounts")
        if isinstance(nested, list):  # a composite group: its accounts in its place
            names += _flattened(nested, instruction)
        else:
            names.append(snake_case(account["name"]))
    return names


def parsed_instruction(found: Program, data: bytes, account_keys: Sequence[str]) -> Json | None:
    """``parsed_instruction_data`` of one instruction, or ``None`` when none of the IDL's
    instructions matches ``data`` or its arguments do not decode."""
    for instruction in found.instructions:
        if not data.startswith(instruction.discriminator):
            continue
        reader = Reader(data)
        reader.at = len(instruction.discriminator)
        try:
            args = fields_of(list(instruction.args), reader, found.resolve, snake_case)
        except (BorshError, KeyError, TypeError):
            return None
        named = dict(zip(instruction.accounts, account_keys, strict=False))
        return {
            "instruction_name": instruction.name,
            "discriminator": instruction.discriminator.hex(),
            "named_accounts": named,
            "named_account": named,
            "program_call_args": args,
        }
    return None


@lru_cache(maxsize=64)
def program_of(text: str) -> Program | None:
    """The IDL of an uploaded interface's text (checked at upload), read once."""
    try:
        return program(jsontext.loads(text))
    except (IdlError, ValueError):
        return None
