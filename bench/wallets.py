"""create_wallet with N Ethereum accounts against a raw derivation of the same N accounts.

The floor is what any implementation must do for a new wallet of N accounts at
``m/44'/60'/i'/0/0``: BIP39 mnemonic to seed (``hashlib.pbkdf2_hmac``, SHA-512,
2048 rounds), the BIP32 master and ``m/44'/60'`` once, then per account its
three steps (``hmac.digest`` SHA-512, integer math, ``coincurve`` public key)
and the EIP-55 address (Keccak-256 of the public key, and again of the hex for
the checksum). It is written out below and checked, once per size, to give the
addresses the emulator gave for the same mnemonic. The floor and the facade
are called in turn (one each, repeatedly), so that the machine's load weighs
on both alike.

Each facade call makes a new wallet in one organization of a fresh emulator
whose ``max_wallets_per_organization`` is raised (100 by default).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from dataclasses import dataclass

import coincurve
from Crypto.Hash import keccak
from measuring import Goal, Result, alternate, median

from emulator import Emulator
from emulator.accounts import account_spec

HARDENED = 0x80000000
SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
MNEMONIC = (
    "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
)
GOAL = Goal(1.5, "x", inclusive=True, against="derive")


@dataclass(frozen=True)
class Size:
    accounts: int
    reps: int  # each of the floor and the facade, taken in turn
    warmup: int


FULL = (Size(1, 200, 10), Size(100, 30, 2), Size(1000, 8, 1))
QUICK = (Size(1, 4, 1), Size(100, 2, 1), Size(1000, 1, 1))


# ----- the raw floor --------------------------------------------------------------


def _child(key: int, chain: bytes, data: bytes) -> tuple[int, bytes]:
    digest = hmac.digest(chain, data, "sha512")
    tweak = int.from_bytes(digest[:32], "big")
    child = (tweak + key) % SECP256K1_N
    if tweak >= SECP256K1_N or child == 0:  # probability below 2**-127
        raise ValueError("invalid child key; the floor does not implement the retry")
    return child, digest[32:]


def _hardened(key: int, chain: bytes, index: int) -> tuple[int, bytes]:
    return _child(
        key, chain, b"\x00" + key.to_bytes(32, "big") + (index | HARDENED).to_bytes(4, "big")
    )


def _normal(key: int, chain: bytes, public: bytes, index: int) -> tuple[int, bytes]:
    return _child(key, chain, public + index.to_bytes(4, "big"))


def _eip55(account: bytes) -> str:
    lower = account.hex()
    digest = keccak.new(digest_bits=256, data=lower.encode()).hexdigest()
    return "0x" + "".join(
        c.upper() if c > "9" and digest[i] > "7" else c for i, c in enumerate(lower)
    )


def raw_ethereum_addresses(mnemonic: str, count: int) -> list[str]:
    """The EIP-55 addresses at m/44'/60'/i'/0/0 for i < count, derived from scratch."""
    seed = hashlib.pbkdf2_hmac("sha512", mnemonic.encode(), b"mnemonic", 2048)
    master = hmac.digest(b"Bitcoin seed", seed, "sha512")
    key, chain = int.from_bytes(master[:32], "big"), master[32:]
    key, chain = _hardened(key, chain, 44)
    key, chain = _hardened(key, chain, 60)  # the cached parent of every account
    from_secret = coincurve.PublicKey.from_secret
    addresses = []
    for i in range(count):
        k1, c1 = _hardened(key, chain, i)
        k2, c2 = _normal(k1, c1, from_secret(k1.to_bytes(32, "big")).format(), 0)
        k3, _ = _normal(k2, c2, from_secret(k2.to_bytes(32, "big")).format(), 0)
        public = from_secret(k3.to_bytes(32, "big")).format(compressed=False)
        account = keccak.new(digest_bits=256, data=public[1:]).digest()[12:]
        addresses.append(_eip55(account))
    return addresses


# ----- the facade -----------------------------------------------------------------


def run_size(size: Size) -> tuple[list[float], list[float]]:
    """Timings of the raw floor and of the facade's create_wallet, taken in turn."""
    n, tag = size.accounts, f"wallet{size.accounts}"
    emu = Emulator()
    emu.settings.max_wallets_per_organization = 10**9
    org = emu.create_organization("Acme")
    specs = [account_spec("ADDRESS_FORMAT_ETHEREUM", i) for i in range(n)]

    first = emu.create_wallet(wallet_name=f"{tag}-check", accounts=specs)
    mnemonic = emu.backdoor.mnemonic(first["walletId"])
    if raw_ethereum_addresses(mnemonic, n) != first["addresses"]:
        raise SystemExit(f"{tag}: the raw floor does not derive the emulator's addresses")

    def derive() -> None:
        raw_ethereum_addresses(MNEMONIC, n)

    def create(name: str) -> None:
        emu.create_wallet(wallet_name=name, accounts=specs)

    floor, facade = alternate(
        derive, create, size.reps, prepare=lambda i: (f"{tag}-{i}",), warmup=size.warmup
    )
    wallets = emu.world.store.organizations[org.organization_id].wallets
    made = len(wallets) - 1
    if made != size.reps + size.warmup:
        raise SystemExit(f"{tag}: {size.reps + size.warmup} create_wallet calls made {made}")
    if any(len(w.accounts) != n for w in wallets.values()):
        raise SystemExit(f"{tag}: a wallet without its {n} accounts")
    return floor, facade


def run(quick: bool, progress: Callable[[str], None]) -> list[Result]:
    results = []
    for size in QUICK if quick else FULL:
        n = size.accounts
        progress(f"create_wallet with {n} Ethereum account(s), and its raw floor, in turn")
        raw, facade = run_size(size)
        short = f"derive {n}"
        floor = Result(
            f"raw derive {n} ETH account(s) (floor)", raw, floor=median(raw), floor_name=short
        )
        label = f"facade create_wallet, {n} ETH account{'s' if n > 1 else ''}"
        results += [floor, Result(label, facade, GOAL, floor=floor.floor, floor_name=short)]
    return results
