"""The fiat on-ramp's cost: init_fiat_on_ramp against get_whoami, in one run.

The floor is ``get_whoami`` through the facade (a stamped query: the stamp made and checked,
the organization found, the answer rendered), the least any request costs. The rows:

* ``init_fiat_on_ramp`` (MoonPay, no credential): an activity that validates the intent,
  stores the transaction and renders the provider's URL;
* ``init_fiat_on_ramp`` with a MoonPay credential and ``urlForSignature``: the credential's
  secret opened by the enclave (HPKE) twice, the URL signed and the signature asked for made;
* ``get_onramp_transaction_status`` with ``refresh``: the query that SDKs poll with;
* the whole purchase: init, the provider's settlement (delivery on the embedded chain) and
  the refreshed status.

All rows and the floor are called in turn, one call each, so the machine's load weighs on
all alike. ``--quick`` runs a few calls of each; ``--json`` prints the rows as JSON.
"""

from __future__ import annotations

from dataclasses import dataclass

from measuring import Result, in_turn, median, script_main

from emulator import Emulator
from emulator.accounts import account_spec
from emulator.testing.client_crypto import encrypt_on_ramp_secret

FLOOR = "get_whoami"
MOONPAY = "FIAT_ON_RAMP_PROVIDER_MOONPAY"


@dataclass(frozen=True)
class Reps:
    calls: int
    warmup: int


FULL = Reps(calls=500, warmup=50)
QUICK = Reps(calls=20, warmup=3)


class Setting:
    def __init__(self, with_credential: bool) -> None:
        self.emu = emu = Emulator(timestamp_window_s=None)
        emu.create_organization("Shop")
        self.address = emu.create_wallet(
            wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
        )["addresses"][0]
        if with_credential:
            emu.create_fiat_on_ramp_credential(
                onramp_provider=MOONPAY,
                publishable_api_key="pk_test_bench",
                encrypted_secret_api_key=encrypt_on_ramp_secret(
                    "sk_test_bench", emu.onramp.encryption_public_key
                ),
                sandbox_mode=True,
            )
        self.tx_id = self.init()

    def whoami(self) -> None:
        self.emu.get_whoami()

    def init(self, **extra: str) -> str:
        return self.emu.init_fiat_on_ramp(
            onramp_provider=MOONPAY,
            wallet_address=self.address,
            network="FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BASE",
            crypto_currency_code="FIAT_ON_RAMP_CRYPTO_CURRENCY_ETH",
            fiat_currency_amount="100",
            sandbox_mode=True,
            **extra,
        )["onRampTransactionId"]

    def init_signed(self) -> None:
        self.init(url_for_signature="https://buy-sandbox.moonpay.com?apiKey=pk_test_bench")

    def status(self) -> None:
        self.emu.get_onramp_transaction_status(transaction_id=self.tx_id, refresh=True)

    def purchase(self) -> None:
        tx_id = self.init()
        self.emu.onramp.settle(tx_id, "COMPLETED")
        got = self.emu.get_onramp_transaction_status(transaction_id=tx_id, refresh=True)
        if got["transactionStatus"] != "COMPLETED":
            raise SystemExit("a purchase did not complete")


def run(quick: bool) -> list[Result]:
    reps = QUICK if quick else FULL
    plain, signed = Setting(False), Setting(True)
    rows = [
        ("init_fiat_on_ramp (MoonPay, no credential)", plain.init),
        ("init_fiat_on_ramp (credential, urlForSignature)", signed.init_signed),
        ("get_onramp_transaction_status (refresh)", plain.status),
        ("whole purchase (init, settle + delivery, refreshed status)", plain.purchase),
    ]
    samples = in_turn([plain.whoami] + [call for _, call in rows], reps.calls, reps.warmup)
    floor = median(samples[0])
    results = [Result("get_whoami (floor)", samples[0], floor=floor, floor_name=FLOOR)]
    for (label, _), timed in zip(rows, samples[1:], strict=True):
        results.append(Result(label, timed, floor=floor, floor_name=FLOOR))
    return results


if __name__ == "__main__":
    script_main("onramp", __doc__, run)
