"""What a policy sees: the keywords of ``condition``, ``consensus`` and ``time``.

``condition`` reads the activity (``activity.type/kind/resource/action/params``),
its targets (``wallet``, ``wallets``, ``private_key``, ``wallet_account``, found
from ``signWith``, ``walletId`` and the like), the transaction or typed data
being signed (``eth.tx``, ``eth.eip_712``, ``eth.eip_7702_authorization``,
``solana.tx``) and ``time.now``. ``consensus`` reads ``approvers`` and
``credentials``. A keyword that does not apply to the activity is absent, so
reading it is the real ``MissingField`` evaluation error. Anything costly
(parsing a transaction, the params view) is ``Lazy``: computed only when a
policy reads it, at most once per evaluation.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..crypto import eip712
from ..crypto.signing import EIP712, EIP7702_AUTHORIZATION
from ..crypto.transactions import TransactionError
from ..ground import jsontext
from ..ground.models import Organization, PrivateKey, SignerRef, User, Wallet
from ..policy import Lazy, PolicyEvaluationError, Timestamp, abi, idl
from ..policy.catalog import activity_kind, exposed_params, resource_action
from ..policy.chains import eip712_view, eip7702_view, ethereum_view
from ..policy.solana_view import solana_view
from . import earn_intents, velocity
from .send_intents import send_intent_transaction, unsigned_of_signed_send

ETHEREUM_INTERFACE = "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM"
SOLANA_INTERFACE = "SMART_CONTRACT_INTERFACE_TYPE_SOLANA"


Json = dict[str, Any]

SIGN_TRANSACTION_ETHEREUM = "TRANSACTION_TYPE_ETHEREUM"
SIGN_TRANSACTION_SOLANA = "TRANSACTION_TYPE_SOLANA"
CREDENTIAL_TYPE_WEBAUTHN = "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR"


@dataclass(frozen=True, slots=True)
class Approval:
    """One approving vote: who, and the key and scheme they stamped it with (the
    ``credentials`` keyword is built from these only when a consensus reads it)."""

    user: User
    public_key: str
    scheme: str


def _swap_send(org: Organization, params: Mapping[str, Any]) -> Json | None:
    """The send an ``execute_swap`` makes (its module loads the swap provider: only then)."""
    from . import swap_intents

    return swap_intents.as_send(org, params)


def condition_environment(
    org: Organization,
    activity_type: str,
    params: Mapping[str, Any],
    now_ns: int,
    proposer_id: str | None = None,
) -> Json:
    """The keywords of ``condition`` and ``time`` for one activity in ``org`` (and, given
    its proposer, ``controls``: the organization's velocity controls)."""
    resource_and_action = resource_action(activity_type)
    activity: Json = {
        "type": activity_type,
        "params": Lazy(lambda: exposed_params(activity_type, params)),
    }
    kind = activity_kind(activity_type)
    if kind is not None:
        activity["kind"] = kind
    if resource_and_action is not None:
        activity["resource"], activity["action"] = resource_and_action
    env: Json = {"activity": activity, "time": {"now": Timestamp.from_ns(now_ns)}}
    sent = _swap_send(org, params) if "quoteId" in params else None
    _add_targets(env, org, sent or params)  # a swap reads as the send it makes
    earn = earn_intents.transaction(org, activity_type, params)
    if earn is not None:  # an Earn activity: the call it will sign (services/earn_intents.py)
        unsigned, sender = earn
        calls = contract_calls(org)
        env["eth"] = {"tx": Lazy(lambda: _parsed(ethereum_view, unsigned, sender, calls))}
    else:
        _add_payloads(env, org, sent or params)
    if proposer_id is not None and org.velocity_controls:
        env["controls"] = Lazy(
            lambda: velocity.controls_keyword(org, activity_type, params, proposer_id, now_ns)
        )
    return env


def consensus_environment(approvals: Sequence[Approval]) -> Json:
    """``approvers`` (users) and ``credentials`` (what each approval was stamped with)."""
    approvers, seen = [], set()
    for approval in approvals:
        if approval.user.user_id not in seen:
            seen.add(approval.user.user_id)
            approvers.append(_user(approval.user))
    credentials = Lazy(lambda: [credential_view(a.user, a.public_key, a.scheme) for a in approvals])
    return {"approvers": approvers, "credentials": credentials}


def credential_view(user: User, public_key: str, scheme: str) -> Json:
    """The ``Credential`` struct of an approval stamped with ``public_key`` (an API key's,
    or a passkey's COSE key; only a passkey has a ``credential_id``)."""
    passkey = next((a for a in user.authenticators.values() if a.public_key == public_key), None)
    if passkey is not None:
        return {
            "id": passkey.authenticator_id,
            "user_id": user.user_id,
            "type": CREDENTIAL_TYPE_WEBAUTHN,
            "credential_id": passkey.credential_id,
            "public_key": passkey.public_key,
        }
    key = next((k for k in user.api_keys.values() if k.public_key == public_key.lower()), None)
    if key is not None:
        return {
            "id": key.api_key_id,
            "user_id": user.user_id,
            "type": key.credential_type,
            "public_key": key.public_key,
        }
    return {"user_id": user.user_id, "public_key": public_key, "type": scheme}


def _user(user: User) -> Json:
    view: Json = {"id": user.user_id, "tags": list(user.tag_ids), "alias": user.name}
    if user.email is not None:
        view["email"] = user.email
    return view


# ----- targets ------------------------------------------------------------------------


def _add_targets(env: Json, org: Organization, params: Mapping[str, Any]) -> None:
    sign_with = params.get("signWith")
    if sign_with is None:  # a send names its signer ``from`` (EVM) or ``signWiths`` (Solana)
        sign_withs = params.get("signWiths")
        if isinstance(sign_withs, list):
            sign_with = sign_withs[0] if sign_withs else None
        else:
            sign_with = params.get("from")
    if isinstance(sign_with, str):
        holders = org.signers.get(sign_with)
        if holders:
            _add_signer(env, org, holders[0], sign_with)
    wallet_id = params.get("walletId")
    if isinstance(wallet_id, str) and wallet_id in org.wallets:
        env.setdefault("wallet", _wallet(org.wallets[wallet_id]))
    wallet_ids = params.get("walletIds")
    if isinstance(wallet_ids, list):
        env["wallets"] = [_wallet(org.wallets[w]) for w in wallet_ids if w in org.wallets]
    address = params.get("address")
    if isinstance(address, str) and "wallet_account" not in env:
        holders = org.signers.get(address)
        if holders:
            _add_signer(env, org, holders[0], address)
    key_id = params.get("privateKeyId")
    if isinstance(key_id, str) and key_id in org.private_keys:
        env.setdefault("private_key", _private_key(org.private_keys[key_id]))


def _add_signer(env: Json, org: Organization, ref: SignerRef, named_by: str) -> None:
    if ref.private_key_id is not None:
        env["private_key"] = _private_key(org.private_keys[ref.private_key_id])
        return
    wallet = org.wallets[ref.wallet_id]  # type: ignore[index]
    account = wallet.accounts[ref.wallet_account_id]  # type: ignore[index]
    env["wallet"] = _wallet(wallet)
    env["wallet_account"] = {"address": account.address}


def _wallet(wallet: Wallet) -> Json:
    return {
        "id": wallet.wallet_id,
        "imported": wallet.imported,
        "exported": wallet.exported,
        "label": wallet.name,
    }


def _private_key(key: PrivateKey) -> Json:
    return {
        "id": key.private_key_id,
        "tags": list(key.tag_ids),
        "imported": key.imported,
        "exported": key.exported,
        "label": key.name,
    }


# ----- what is being signed -----------------------------------------------------------


def _add_payloads(env: Json, org: Organization, params: Mapping[str, Any]) -> None:
    if _add_sent_transaction(env, org, params):
        return
    unsigned = params.get("unsignedTransaction")
    if isinstance(unsigned, str):
        sender = params.get("signWith") if isinstance(params.get("signWith"), str) else None
        if params.get("type") == SIGN_TRANSACTION_ETHEREUM:
            calls = contract_calls(org)
            env["eth"] = {"tx": Lazy(lambda: _parsed(ethereum_view, unsigned, sender, calls))}
        elif params.get("type") == SIGN_TRANSACTION_SOLANA:
            programs = program_calls(org)
            env["solana"] = {"tx": Lazy(lambda: _parsed(solana_view, unsigned, programs))}
        return
    payload, encoding = params.get("payload"), params.get("encoding")
    if isinstance(payload, str) and encoding == EIP712:
        env["eth"] = {"eip_712": Lazy(lambda: _viewed(eip712_view, _typed_data(payload)))}
    elif isinstance(payload, str) and encoding == EIP7702_AUTHORIZATION:
        env["eth"] = {"eip_7702_authorization": Lazy(lambda: _viewed(eip7702_view, _json(payload)))}


def _add_sent_transaction(env: Json, org: Organization, params: Mapping[str, Any]) -> bool:
    """``eth.tx`` / ``solana.tx`` of a send (``eth_send_transaction``, ``eth_send_raw_transaction``,
    ``sol_send_transaction``): the transaction as it will be signed. A V2 EVM send's view is
    the EIP-1559 transaction of its one call, with the intent's nonce and fees (0 where the
    intent leaves them to Turnkey); a batch of several calls has no ``eth.tx`` (a policy that
    reads it cannot allow the batch)."""
    caip2 = params.get("caip2")
    if not isinstance(caip2, str):
        return False
    if isinstance(params.get("signWiths"), list) and isinstance(
        params.get("unsignedTransaction"), str
    ):
        unsigned = params["unsignedTransaction"].removeprefix("0x")
        env["solana"] = {"tx": Lazy(lambda: _parsed(solana_view, unsigned))}
        return True
    signed = params.get("signedTransaction")
    if isinstance(signed, str):
        calls = contract_calls(org)
        env["eth"] = {
            "tx": Lazy(lambda: _parsed(ethereum_view, unsigned_of_signed_send(signed), None, calls))
        }
        return True
    sender, calls_list = params.get("from"), params.get("calls")
    if not isinstance(sender, str) or not isinstance(calls_list, list):
        return False
    if len(calls_list) == 1 and isinstance(calls_list[0], Mapping):
        unsigned = send_intent_transaction(caip2, params, calls_list[0])
        if unsigned is not None:
            calls = contract_calls(org)
            env["eth"] = {"tx": Lazy(lambda: _parsed(ethereum_view, unsigned, sender, calls))}
    return True


def contract_calls(org: Organization) -> Callable[[str, bytes], Json] | None:
    """What ``eth.tx`` reads of a call through the organization's uploaded Ethereum ABIs
    (``policy/abi.py``); ``None`` when it has none."""
    by_address = {
        i.address.lower(): i.interface
        for i in org.smart_contract_interfaces.values()
        if i.interface_type == ETHEREUM_INTERFACE
    }
    if not by_address:
        return None

    def read(to: str, data: bytes) -> Json:
        text = by_address.get(to.lower())
        return abi.call_view(_abi_of(text), data) if text is not None else {}

    return read


def program_calls(org: Organization) -> Callable[[str, bytes, list[str]], Json | None] | None:
    """What an instruction of ``solana.tx`` reads through the organization's uploaded Solana
    IDLs (``policy/idl.py``): its ``parsed_instruction_data``; ``None`` when it has none.
    Program ids are compared exactly (base58 is case-sensitive, as the docs warn)."""
    by_program = {
        i.address: i.interface
        for i in org.smart_contract_interfaces.values()
        if i.interface_type == SOLANA_INTERFACE
    }
    if not by_program:
        return None

    def read(program: str, data: bytes, account_keys: list[str]) -> Json | None:
        text = by_program.get(program)
        found = idl.program_of(text) if text is not None else None
        return None if found is None else idl.parsed_instruction(found, data, account_keys)

    return read


@functools.lru_cache(maxsize=64)
def _abi_of(text: str) -> list[Any]:
    value = jsontext.loads(text)
    return value if isinstance(value, list) else []


def _parsed(view, *args: Any) -> Json:
    try:
        return view(*args)
    except TransactionError as error:
        raise PolicyEvaluationError(f"InvalidTransaction: {error}") from None


def _viewed(view, document: Json) -> Json:
    """A view of signed JSON; a document that is not what it claims makes the policy that
    reads it an evaluation error (OUTCOME_ERROR), and the signer answers the request."""
    try:
        return view(document)
    except ValueError as error:
        raise PolicyEvaluationError(f"InvalidPayload: {error}") from None


def _typed_data(payload: str) -> Json:
    try:
        return eip712.parse_typed_data(payload)
    except ValueError as error:
        raise PolicyEvaluationError(f"InvalidTypedData: {error}") from None


def _json(payload: str) -> Json:
    try:
        value = jsontext.loads(payload)
    except ValueError as error:
        raise PolicyEvaluationError(f"InvalidPayload: {error}") from None
    if not isinstance(value, dict):
        raise PolicyEvaluationError("InvalidPayload: expected a JSON object")
    return value
