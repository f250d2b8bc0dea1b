"""Smart contract interfaces: create_smart_contract_interface, delete_smart_contract_interface,
get_smart_contract_interface, list_smart_contract_interfaces (Ethereum ABIs, Solana IDLs).

An uploaded ABI unlocks ``eth.tx.function_name``, ``function_signature`` and
``contract_call_args`` for calls to its address (``policy/abi.py``); an uploaded Anchor IDL
unlocks ``parsed_instruction_data`` in ``solana.tx.instructions`` for instructions of its
program (``policy/idl.py``). Both are checked when uploaded and answered as uploaded.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..crypto.base58 import base58_decode
from ..ground import jsontext, messages, render
from ..ground.errors import InvalidArgument, NotFound
from ..ground.external_records import SmartContractInterface
from ..ground.models import Organization
from ..ground.schema import Enum, String, label, obj, opt, uuid
from ..policy import abi, idl
from ..services.context import Context
from .registry import Version, activity, query

Params = dict[str, Any]

ETHEREUM = "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM"
SOLANA = "SMART_CONTRACT_INTERFACE_TYPE_SOLANA"
MAX_INTERFACE_BYTES = 400 * 1024  # "ABI/IDL as a JSON string. Limited to 400kb"


def find_interface(org: Organization, interface_id: str) -> SmartContractInterface:
    found = org.smart_contract_interfaces.get(interface_id)
    if found is None:
        raise NotFound(messages.contract_interface_not_found(interface_id, org.organization_id))
    return found


def render_interface(org: Organization, i: SmartContractInterface) -> Params:
    """``externaldatav1SmartContractInterface``."""
    return {
        "organizationId": org.organization_id,
        "smartContractInterfaceId": i.smart_contract_interface_id,
        "smartContractAddress": i.address,
        "smartContractInterface": i.interface,
        "type": i.interface_type,
        "label": i.label,
        "notes": i.notes,
        "createdAt": render.timestamp(i.created_at),
        "updatedAt": render.timestamp(i.created_at),
    }


def reference(i: SmartContractInterface) -> Params:
    """``v1SmartContractInterfaceReference`` (``get_organization``): the digest is the hex
    SHA-256 of the interface's JSON text as uploaded."""
    return {
        "smartContractInterfaceId": i.smart_contract_interface_id,
        "smartContractAddress": i.address,
        "digest": hashlib.sha256(i.interface.encode()).hexdigest(),
    }


def _checked(params: Params) -> tuple[str, str]:
    """The address (an EVM address, or a Solana program id) and the interface JSON, checked
    for its type: an ABI is a JSON list whose functions read, an IDL a JSON object with a
    list of ``instructions``."""
    kind, address, text = (
        params["type"],
        params["smartContractAddress"],
        params["smartContractInterface"],
    )
    if len(text.encode()) > MAX_INTERFACE_BYTES:
        raise InvalidArgument(messages.CONTRACT_INTERFACE_TOO_LARGE)
    try:
        document = jsontext.loads(text)
    except ValueError as error:
        raise InvalidArgument(messages.invalid_contract_interface(f"not JSON ({error})")) from None
    if kind == ETHEREUM:
        if not (len(address) == 42 and address[:2] in ("0x", "0X") and _is_hex(address[2:])):
            raise InvalidArgument(messages.invalid_contract_address(address, "an EVM address"))
        if not isinstance(document, list):
            raise InvalidArgument(messages.invalid_contract_interface("an ABI is a JSON list"))
        try:
            abi.functions(document)
        except abi.AbiError as error:
            raise InvalidArgument(messages.invalid_contract_interface(str(error))) from None
        return address, text
    try:
        program = base58_decode(address)
    except ValueError:
        program = b""
    if len(program) != 32:
        raise InvalidArgument(messages.invalid_contract_address(address, "a Solana program id"))
    try:
        idl.program(document)
    except idl.IdlError as error:
        raise InvalidArgument(messages.invalid_contract_interface(str(error))) from None
    return address, text


def _is_hex(text: str) -> bool:
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return True


@activity(
    "create_smart_contract_interface",
    summary="Create smart contract interface",
    default="ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE",
    versions=[
        Version(
            "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE",
            "createSmartContractInterfaceIntent",
            "createSmartContractInterfaceResult",
            obj(
                smartContractAddress=String(),
                smartContractInterface=String(),
                type=Enum((ETHEREUM, SOLANA)),
                label=label(),
                notes=opt(String(allow_empty=True)),
            ),
        )
    ],
)
def create_smart_contract_interface(ctx: Context, params: Params) -> Params:
    address, text = _checked(params)
    made = SmartContractInterface(
        smart_contract_interface_id=ctx.new_id(),
        address=address,
        interface=text,
        interface_type=params["type"],
        label=params["label"],
        notes=params.get("notes", ""),
        created_at=ctx.now_ns,
    )
    ctx.tx.put(ctx.org.smart_contract_interfaces, made.smart_contract_interface_id, made)
    return {"smartContractInterfaceId": made.smart_contract_interface_id}


@activity(
    "delete_smart_contract_interface",
    summary="Delete smart contract interface",
    default="ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE",
    versions=[
        Version(
            "ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE",
            "deleteSmartContractInterfaceIntent",
            "deleteSmartContractInterfaceResult",
            obj(smartContractInterfaceId=uuid()),
        )
    ],
)
def delete_smart_contract_interface(ctx: Context, params: Params) -> Params:
    found = find_interface(ctx.org, params["smartContractInterfaceId"])
    ctx.tx.pop(ctx.org.smart_contract_interfaces, found.smart_contract_interface_id)
    return {"smartContractInterfaceId": found.smart_contract_interface_id}


@query(
    "get_smart_contract_interface",
    summary="Get smart contract interface",
    body=obj(smartContractInterfaceId=uuid()),
    result_keys=("smartContractInterface",),
)
def get_smart_contract_interface(ctx: Context, body: Params) -> Params:
    found = find_interface(ctx.org, body["smartContractInterfaceId"])
    return {"smartContractInterface": render_interface(ctx.org, found)}


@query(
    "list_smart_contract_interfaces",
    sdk_method="get_smart_contract_interfaces",
    summary="List smart contract interfaces",
    body=obj(),
    result_keys=("smartContractInterfaces",),
)
def list_smart_contract_interfaces(ctx: Context, body: Params) -> Params:
    return {
        "smartContractInterfaces": [
            render_interface(ctx.org, i) for i in ctx.org.smart_contract_interfaces.values()
        ]
    }
