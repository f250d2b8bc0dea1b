"""A seed file's key material read and checked (``seedplan.py`` reads the rest): its wallets,
each with a mnemonic given or generated and its accounts (an address format on the SDKs'
default path, ``{format, index}``, or a full ``v1WalletAccountParams``), and its private keys,
each of a value given or generated. Plans keep mnemonics and private keys out of their reprs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..crypto import hd
from ..crypto.curves import CURVES
from ..crypto.default_paths import default_account
from .seedchecks import SeedError, as_list, fields, labelled, optional_text, references, text

Json = dict[str, Any]


@dataclass
class WalletPlan:
    where: str
    name: str
    mnemonic: str | None = field(repr=False)
    mnemonic_length: int | None
    accounts: list[Json]
    imported: bool


@dataclass
class PrivateKeyPlan:
    where: str
    name: str
    curve: str
    private_key: str | None = field(repr=False)
    address_formats: list[str]
    tags: list[str]
    imported: bool


def wallet_plan(data: Any, where: str) -> WalletPlan:
    where = labelled(data, where)
    spec = fields(
        data, where, {"name", "mnemonic", "mnemonicLength", "accounts", "imported"}, ("name",)
    )
    name = text(spec["name"], f"{where}.name")
    mnemonic = optional_text(spec.get("mnemonic"), f"{where}.mnemonic")
    length = spec.get("mnemonicLength")
    imported = spec.get("imported", mnemonic is not None)
    if not isinstance(imported, bool):
        raise SeedError(f"{where}.imported", "must be true or false")
    if mnemonic is not None:
        mnemonic = " ".join(mnemonic.split())
        if not hd.is_valid_mnemonic(mnemonic):
            raise SeedError(f"{where}.mnemonic", "not a valid BIP39 English mnemonic")
        if length is not None:
            raise SeedError(f"{where}.mnemonicLength", "only for a generated mnemonic")
    elif "imported" in spec:
        raise SeedError(f"{where}.imported", "only for a wallet of a given mnemonic")
    if length is not None and (isinstance(length, bool) or not isinstance(length, int)):
        raise SeedError(f"{where}.mnemonicLength", "must be a number of words")
    accounts = [
        _account(entry, f"{where}.accounts[{i}]")
        for i, entry in enumerate(as_list(spec.get("accounts", []), f"{where}.accounts"))
    ]
    return WalletPlan(where, name, mnemonic, length, accounts, imported)


def _account(data: Any, where: str) -> Json:
    if isinstance(data, str):
        return _default_account(data, 0, where)
    spec = fields(
        data, where, {"format", "index", "name", "curve", "pathFormat", "path", "addressFormat"}
    )
    if "format" in spec:
        extra = sorted(set(spec) - {"format", "index", "name"})
        if extra:
            raise SeedError(where, f"{extra[0]!r} does not go with format (use addressFormat)")
        index = spec.get("index", 0)
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise SeedError(f"{where}.index", "must be a whole number from 0")
        account = _default_account(text(spec["format"], f"{where}.format"), index, where)
    else:
        if "index" in spec:
            raise SeedError(f"{where}.index", "goes with format, not with a full account spec")
        missing = [k for k in ("curve", "pathFormat", "path", "addressFormat") if k not in spec]
        if missing:
            raise SeedError(
                where,
                f"missing {missing[0]!r}: give an address format, {{format, index}}, or curve,"
                " pathFormat, path and addressFormat",
            )
        account = {k: spec[k] for k in ("curve", "pathFormat", "path", "addressFormat")}
    if "name" in spec:
        account["name"] = text(spec["name"], f"{where}.name")
    return account


def _default_account(address_format: str, index: int, where: str) -> Json:
    try:
        return default_account(address_format, index)
    except ValueError:
        raise SeedError(
            where,
            f"no default path for {address_format!r}: give curve, pathFormat, path and"
            " addressFormat",
        ) from None


def private_key_plan(data: Any, where: str, tags: list[str]) -> PrivateKeyPlan:
    where = labelled(data, where)
    spec = fields(
        data,
        where,
        {"name", "curve", "privateKey", "addressFormats", "tags", "imported"},
        ("name",),
    )
    name = text(spec["name"], f"{where}.name")
    curve = spec.get("curve", hd.SECP256K1)
    if curve not in CURVES:
        raise SeedError(f"{where}.curve", f"must be one of {', '.join(CURVES)}")
    secret = optional_text(spec.get("privateKey"), f"{where}.privateKey")
    if secret is not None:
        try:
            value = bytes.fromhex(secret.removeprefix("0x"))
            if len(value) != 32:
                raise ValueError
            hd.public_key(curve, value)
        except Exception:
            raise SeedError(
                f"{where}.privateKey", f"not a 32-byte hex {curve} private key"
            ) from None
        secret = value.hex()
    imported = spec.get("imported", secret is not None)
    if not isinstance(imported, bool):
        raise SeedError(f"{where}.imported", "must be true or false")
    if secret is None and "imported" in spec:
        raise SeedError(f"{where}.imported", "only for a private key of a given value")
    formats = [
        text(f, f"{where}.addressFormats[{i}]")
        for i, f in enumerate(as_list(spec.get("addressFormats", []), f"{where}.addressFormats"))
    ]
    key_tags = references(spec.get("tags", []), f"{where}.tags", tags, "privateKeyTags")
    return PrivateKeyPlan(where, name, curve, secret, formats, key_tags, imported)
