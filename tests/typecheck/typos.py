"""Mistakes the type checkers must flag (tests/test_typecheck.py counts them by line)."""

from __future__ import annotations

from emulator import Emulator

emu = Emulator()
emu.create_organization()
emu.create_wallet(wallet_name="w", acounts=[])  # error: misspelt keyword
emu.create_wallet(walet_name="w", accounts=[])  # error: misspelt keyword
emu.create_wallet("w", [])  # error: positional arguments
emu.sign_raw_payload(
    sign_with="0x0",
    payload="00",
    encoding="PAYLOAD_ENCODING_HEX",  # error: not one of the enum's values
    hash_function="HASH_FUNCTION_NO_OP",
)
emu.create_users(users=[{"userNam": "alice"}])  # error: misspelt key of a nested shape
emu.get_whoami()["user_id"]  # error: no such key in the result
emu.get_whoami(caller="root")  # error: not a caller
