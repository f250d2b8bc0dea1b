"""The policy views of an Ethereum signing: ``eth.tx``, ``eth.eip_712``
and ``eth.eip_7702_authorization`` (``solana.tx`` is ``solana_view.py``).

Each view is a plain ``dict`` of ``int`` / ``str`` / ``bool`` / ``list`` / ``dict`` with the
field names of the structs on Turnkey's policy-language page
(https://docs.turnkey.com/features/policies/language, "Struct" and "Nested structs"). A field
the transaction does not have is left out, so reading it is the engine's ``MissingField``.

``eth.tx.function_name``, ``eth.tx.function_signature`` and ``eth.tx.contract_call_args`` are
there only when an Ethereum ABI has been uploaded for the transaction's ``to``
(``create_smart_contract_interface``; ``ethereum_view``'s ``contract_call`` reads it, see
``policy/abi.py``).

Case. Ethereum hex values are lowercase: addresses (``to``, ``from``, EIP-712
``verifying_contract`` and ``address`` / ``bytes`` message values, the EIP-7702 ``address``)
and ``data`` (``0x``-prefixed, ``'0x'`` when empty). The docs ask policy authors to write these
in lowercase ("The policy engine expects lowercase hex strings"). A pending docs change
(tkhq/docs pull request 756, "Case sensitivity") adds that Turnkey's engine matches ``eth.tx.to``
/ ``eth.tx.from`` and those EIP-712 values case-insensitively, which is how the docs' checksummed
``eth.tx.to == '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'`` matches. That comparison belongs
to the engine; these views only fix the stored form.

Unparsable transactions raise the parsers' ``TransactionError`` unchanged. Malformed typed data or
authorizations raise ``SigningError`` with the message the signer itself would give.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ..crypto.eip712 import TypedDataError, parse_typed_data
from ..crypto.signing import INVALID_ENCODING, SigningError
from ..crypto.transactions.ethereum import parse_ethereum_transaction
from ..ground import jsontext
from ..ground.numbers import quantity

# ------------------------------------------------------------------------------------ Ethereum

_ADDRESS = re.compile(r"0[xX][0-9a-fA-F]{40}")


class EvmHex(str):
    """Lowercase EVM hex that equals the same hex in any case, as Turnkey's engine matches
    ``eth.tx.to == '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'`` (a checksummed literal).

    Python lets a ``str`` subclass's ``__eq__`` answer first whichever side it is on, so the
    evaluator's ``==``, ``!=``, ``in`` and ``contains`` all see it. Hashing stays ``str``'s:
    only equality is widened."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and str.lower(self) == other.lower()

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = str.__hash__


def _hex_address(address: str) -> str:
    """An EVM address in its lowercase form; anything else as given."""
    if isinstance(address, str) and _ADDRESS.fullmatch(address):
        return EvmHex("0x" + address[2:].lower())
    return address


def ethereum_view(
    unsigned_transaction_hex: str,
    sender: str | None,
    contract_call: Callable[[str, bytes], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """``eth.tx`` for a ``TRANSACTION_TYPE_ETHEREUM`` sign_transaction.

    ``contract_call(to, data)``, where given, adds what an uploaded ABI makes of the call
    (``function_name``, ``function_signature``, ``contract_call_args``; ``{}`` for none).

    ``sender`` is the signing address (``from``; left out when None). ``to`` is ``''`` for a
    contract creation, as the docs' deployment policy (``eth.tx.to == ''``) expects. ``gas_price``
    of an EIP-1559-style transaction (types 2, 3 and 4) is its ``max_fee_per_gas``, as the docs
    say; ``chain_id`` is absent from a pre-EIP-155 legacy transaction, the fee-market fields from
    types that have none, and ``max_fee_per_blob_gas`` from all but type 3.
    """
    tx = parse_ethereum_transaction(unsigned_transaction_hex)
    view: dict[str, Any] = {}
    if sender is not None:
        view["from"] = _hex_address(sender)
    view["to"] = "" if tx.to is None else _hex_address(tx.to)
    view["data"] = "0x" + tx.data.hex()
    view["value"] = tx.value
    view["gas"] = tx.gas
    view["gas_price"] = tx.max_fee_per_gas if tx.gas_price is None else tx.gas_price
    if tx.chain_id is not None:
        view["chain_id"] = tx.chain_id
    view["nonce"] = tx.nonce
    if tx.max_fee_per_gas is not None:
        view["max_fee_per_gas"] = tx.max_fee_per_gas
    if tx.max_priority_fee_per_gas is not None:
        view["max_priority_fee_per_gas"] = tx.max_priority_fee_per_gas
    if tx.max_fee_per_blob_gas is not None:
        view["max_fee_per_blob_gas"] = tx.max_fee_per_blob_gas
    view["type"] = tx.type_name
    if contract_call is not None and tx.to is not None:
        view.update(contract_call(tx.to, tx.data))
    return view


# ------------------------------------------------------------------------------------- EIP-712

_ARRAY_TYPE = re.compile(r"(.+)\[([0-9]*)\]")
_INTEGER_TYPE = re.compile(r"u?int[0-9]*")
_HEX_TYPE = re.compile(r"address|bytes[0-9]*")

# Eip712Domain: (policy name, typed-data name, kind).
_DOMAIN_FIELDS = (
    ("name", "name", "string"),
    ("version", "version", "string"),
    ("chain_id", "chainId", "uint256"),
    ("verifying_contract", "verifyingContract", "address"),
)


def _invalid(reason: str) -> SigningError:
    return SigningError(f"{INVALID_ENCODING}: {reason}")


def _typed_data(typed_data: Mapping[str, Any] | str) -> Mapping[str, Any]:
    if isinstance(typed_data, str):
        try:
            return parse_typed_data(typed_data)
        except TypedDataError as exc:
            raise _invalid(str(exc)) from None
    if not isinstance(typed_data, Mapping):
        raise _invalid("typed data must be a JSON object")
    if not isinstance(typed_data.get("primaryType"), str):
        raise _invalid("typed data needs a 'primaryType' string")
    for key in ("types", "domain", "message"):
        value = typed_data.get(key)
        if value is not None and not isinstance(value, Mapping):
            raise _invalid(f"typed data '{key}' must be an object")
    return typed_data


def eip712_view(typed_data: Mapping[str, Any] | str) -> dict[str, Any]:
    """``eth.eip_712``: ``primary_type``, ``domain`` (the four documented keys that are
    present) and ``message``; ``typed_data`` is the EIP-712 document (or its JSON text).

    Message values are read by their declared Solidity type, which is what makes the docs'
    examples work: integers become ``int`` (the docs compare ``p['amount'] < 100000000`` for a
    Permit2 amount sent as the string ``"1000000000"``), and ``address`` / ``bytes`` /
    ``bytesN`` values become lowercase (the docs: "EIP-712 messages … will be normalized to
    lowercase"). ``string`` values, and anything the types do not describe, stay as given.
    """
    document = _typed_data(typed_data)
    types = document.get("types")
    types = types if isinstance(types, Mapping) else {}
    view: dict[str, Any] = {"primary_type": document["primaryType"]}
    domain = document.get("domain")
    if domain is not None:
        view["domain"] = {
            name: _typed_value(kind, domain[wire], {})
            for name, wire, kind in _DOMAIN_FIELDS
            if domain.get(wire) is not None
        }
    message = document.get("message")
    if message is not None:
        view["message"] = _typed_value(document["primaryType"], message, types)
    return view


def _typed_value(kind: Any, value: Any, types: Mapping[str, Any], depth: int = 0) -> Any:
    """``value`` as the policy engine reads a value of EIP-712 type ``kind``."""
    if depth > jsontext.MAX_DEPTH or not isinstance(kind, str):
        return _plain(value)
    if match := _ARRAY_TYPE.fullmatch(kind):
        if not isinstance(value, list):
            return _plain(value)
        return [_typed_value(match.group(1), item, types, depth + 1) for item in value]
    fields = types.get(kind)
    if isinstance(fields, list):
        if not isinstance(value, Mapping):
            return _plain(value)
        declared = {
            field.get("name"): field.get("type") for field in fields if isinstance(field, Mapping)
        }
        return {
            key: _typed_value(declared.get(key), item, types, depth + 1)
            for key, item in value.items()
        }
    if _HEX_TYPE.fullmatch(kind) and isinstance(value, str):
        return EvmHex(value.lower())
    if _INTEGER_TYPE.fullmatch(kind):
        return _integer(value)
    return _plain(value)


def _integer(value: Any) -> Any:
    """A JSON number or decimal / ``0x`` string as ``int``; anything else as given."""
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        number = quantity(value, signed=True)
        return value if number is None else number
    return value


def _plain(value: Any) -> Any:
    """A copy of a JSON value, so a view never aliases the request's lists and objects."""
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    return value


# ------------------------------------------------------------------------------------ EIP-7702


def eip7702_view(authorization: Mapping[str, Any] | str) -> dict[str, Any]:
    """``eth.eip_7702_authorization``: ``address`` (lowercase), ``chain_id`` and ``nonce`` (int).

    ``authorization`` is the ``PAYLOAD_ENCODING_EIP7702_AUTHORIZATION`` payload (or its JSON
    text), read as the signer reads it: ``address`` or ``contractAddress``; ``chainId`` and
    ``nonce`` as JSON integers or decimal / ``0x`` strings.
    """
    if isinstance(authorization, str):
        try:
            authorization = jsontext.loads(authorization)
        except ValueError:
            raise _invalid("authorization is not valid JSON") from None
    if not isinstance(authorization, Mapping):
        raise _invalid("authorization must be a JSON object")
    addresses = {authorization[k] for k in ("address", "contractAddress") if k in authorization}
    if len(addresses) != 1:
        raise _invalid("authorization needs one address")
    address = addresses.pop()
    if not isinstance(address, str) or not _ADDRESS.fullmatch(address):
        raise _invalid("authorization address must be 20 bytes of hex")
    return {
        "address": _hex_address(address),
        "chain_id": _authorization_uint(authorization, "chainId", 256),
        "nonce": _authorization_uint(authorization, "nonce", 64),
    }


def _authorization_uint(authorization: Mapping[str, Any], key: str, bits: int) -> int:
    value = authorization.get(key)
    number = quantity(value)
    if number is None or not 0 <= number < 1 << bits:
        raise _invalid(f"authorization {key} must be a uint{bits}")
    return number
