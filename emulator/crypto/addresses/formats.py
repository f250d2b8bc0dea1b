"""The table of address formats: which curves each accepts and how each encodes a key."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..curves import ED25519, P256, SECP256K1
from . import bitcoin, chains, keys, spark, ton
from .options import (
    DEFAULT_OPTIONS,
    AddressOptions,
    UnsupportedAddressFormat,
)

Encoder = Callable[[bytes, AddressOptions], str]


@dataclass(frozen=True)
class AddressFormatSpec:
    """One ``ADDRESS_FORMAT_*``: an encoder per accepted curve."""

    name: str
    encoders: Mapping[str, Encoder]
    curves: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "curves", frozenset(self.encoders))

    def encode(
        self,
        public_key: bytes,
        options: AddressOptions = DEFAULT_OPTIONS,
        *,
        curve: str | None = None,
    ) -> str:
        """The address of ``public_key``; ``curve`` may be left out when only one fits."""
        if curve is None:
            if len(self.encoders) != 1:
                raise UnsupportedAddressFormat(f"{self.name} needs the key's curve")
            (encoder,) = self.encoders.values()
        else:
            encoder = self.encoders.get(curve)
            if encoder is None:
                raise UnsupportedAddressFormat(f"{self.name} does not support {curve}")
        return encoder(public_key, options)


def _spec(name: str, **encoders: Encoder) -> AddressFormatSpec:
    curves = {"secp256k1": SECP256K1, "ed25519": ED25519, "p256": P256}
    return AddressFormatSpec("ADDRESS_FORMAT_" + name, {curves[c]: e for c, e in encoders.items()})


def _bitcoin_specs(network: bitcoin.Network) -> list[AddressFormatSpec]:
    prefix = f"BITCOIN_{network.name}_"
    secp = keys.secp256k1_compressed
    return [
        _spec(
            prefix + "P2PKH", secp256k1=lambda k, o: bitcoin.p2pkh(secp(k), network.p2pkh_version)
        ),
        _spec(
            prefix + "P2SH",
            secp256k1=lambda k, o: bitcoin.p2sh(secp(k), network.p2sh_version, o.p2sh_script),
        ),
        _spec(prefix + "P2WPKH", secp256k1=lambda k, o: bitcoin.p2wpkh(secp(k), network.hrp)),
        _spec(
            prefix + "P2WSH",
            secp256k1=lambda k, o: bitcoin.p2wsh(secp(k), network.hrp, o.p2wsh_script),
        ),
        _spec(prefix + "P2TR", secp256k1=lambda k, o: bitcoin.p2tr(secp(k), network.hrp)),
    ]


def _ton_spec(name: str, contract: ton.WalletContract) -> AddressFormatSpec:
    def encode(key: bytes, options: AddressOptions) -> str:
        return ton.wallet_address(
            contract,
            keys.ed25519_raw(key),
            bounceable=options.ton_bounceable,
            test_only=options.ton_test_only,
        )

    return _spec(name, ed25519=encode)


def _build() -> dict[str, AddressFormatSpec]:
    secp, secp_full = keys.secp256k1_compressed, keys.secp256k1_uncompressed
    ed = keys.ed25519_raw
    specs = [
        _spec(
            "UNCOMPRESSED",
            secp256k1=lambda k, o: secp_full(k).hex(),
            p256=lambda k, o: keys.p256_uncompressed(k).hex(),
        ),
        _spec(
            "COMPRESSED",
            secp256k1=lambda k, o: secp(k).hex(),
            p256=lambda k, o: keys.p256_compressed(k).hex(),
            ed25519=lambda k, o: ed(k).hex(),
        ),
        _spec("ETHEREUM", secp256k1=lambda k, o: chains.ethereum(secp_full(k))),
        _spec("SOLANA", ed25519=lambda k, o: chains.solana(ed(k))),
        _spec("COSMOS", secp256k1=lambda k, o: chains.cosmos(secp(k), "cosmos")),
        _spec("TRON", secp256k1=lambda k, o: chains.tron(secp_full(k))),
        _spec("SUI", ed25519=lambda k, o: chains.sui(ed(k))),
        _spec("APTOS", ed25519=lambda k, o: chains.aptos(ed(k))),
        *(spec for network in bitcoin.NETWORKS for spec in _bitcoin_specs(network)),
        _spec("SEI", secp256k1=lambda k, o: chains.cosmos(secp(k), "sei")),
        _spec("XLM", ed25519=lambda k, o: chains.stellar(ed(k))),
        _spec(
            "DOGE_MAINNET",
            secp256k1=lambda k, o: bitcoin.p2pkh(secp(k), bitcoin.DOGE_MAINNET_P2PKH),
        ),
        _spec(
            "DOGE_TESTNET",
            secp256k1=lambda k, o: bitcoin.p2pkh(secp(k), bitcoin.DOGE_TESTNET_P2PKH),
        ),
        _ton_spec("TON_V3R2", ton.V3R2),
        _ton_spec("TON_V4R2", ton.V4R2),
        _spec("XRP", secp256k1=lambda k, o: chains.xrp(secp(k))),
        _ton_spec("TON_V5R1", ton.V5R1),
        _spec("SPARK_MAINNET", secp256k1=lambda k, o: spark.encode(secp(k), spark.MAINNET_HRP)),
        _spec("SPARK_REGTEST", secp256k1=lambda k, o: spark.encode(secp(k), spark.REGTEST_HRP)),
    ]
    return {spec.name: spec for spec in specs}


ADDRESS_FORMATS: dict[str, AddressFormatSpec] = _build()


def curves_for(address_format: str) -> frozenset[str]:
    """The curves ``address_format`` accepts; UnsupportedAddressFormat if it is unknown."""
    spec = ADDRESS_FORMATS.get(address_format)
    if spec is None:
        raise UnsupportedAddressFormat(f"unknown address format {address_format!r}")
    return spec.curves


def encode_address(
    address_format: str,
    curve: str,
    public_key: bytes,
    options: AddressOptions = DEFAULT_OPTIONS,
) -> str:
    """The address of ``public_key`` (33-byte compressed SEC1, or raw 32-byte ed25519)."""
    spec = ADDRESS_FORMATS.get(address_format)
    if spec is None:
        raise UnsupportedAddressFormat(f"unknown address format {address_format!r}")
    return spec.encode(public_key, options, curve=curve)
