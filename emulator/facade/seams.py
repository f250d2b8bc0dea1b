"""The facade's observations and test seams: what a test reads or steers beside the API.

``Emulator`` inherits them (``api.py``): the call log, faults, the outbox, webhook
deliveries, the Auth Proxy's configurations, the chains, the enclave's public keys, the
built-in identity providers and the backdoor. None is part of Turnkey's API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..authproxy.service import AuthProxy
    from ..chains.earn.seam import EarnSeam
    from ..chains.network import Chains
    from ..crypto.enclave import EnclaveKeys
    from ..engine_state.world import World
    from ..recorders.calls import CallLog
    from ..recorders.faults import Faults
    from ..recorders.outbox import Outbox
    from ..recorders.tvc_runtime import TvcRuntime
    from ..webhooks.deliveries import Webhooks
    from .backdoor import Backdoor
    from .oauth2 import EmulatorOAuth2
    from .oidc import EmulatorOidc
    from .onramp import EmulatorOnRamp
    from .swap_seam import SwapSeam


class Seams:
    """Observations and test seams of one emulated world (mixed into ``Emulator``)."""

    _world: World
    _oidc: EmulatorOidc
    _auth_proxy: AuthProxy | None
    _first_org_id: str | None

    @property
    def calls(self) -> CallLog:
        """Every request this emulator answered (an observation, not state: checkpoints,
        snapshots and saved documents leave it alone)."""
        return self._world.calls

    @property
    def faults(self) -> Faults:
        """Make coming requests fail, or leave activities FAILED, PENDING or CONSENSUS_NEEDED."""
        return self._world.faults

    @property
    def outbox(self) -> Outbox:
        """Every e-mail and SMS the service would have sent (an observation like ``calls``:
        checkpoints, snapshots and saved documents leave it alone; ``reset`` empties it)."""
        return self._world.outbox

    @property
    def tvc(self) -> TvcRuntime:
        """What Verifiable Cloud runs that the emulator cannot (``recorders/tvc_runtime.py``):
        image resolution, QOS releases, boot and readiness times, replicas and debug logs,
        scriptable (a test control like ``faults``; ``reset`` puts its defaults back)."""
        return self._world.tvc

    @property
    def auth_proxy(self) -> AuthProxy:
        """The Auth Proxy (``emulator/authproxy/``): its configurations, made with
        ``auth_proxy.configure(...)``, are served under ``/authproxy/`` by ``serve``. They
        are the server's configuration: ``reset`` and snapshots leave them alone."""
        if self._auth_proxy is None:
            from ..authproxy.service import AuthProxy

            self._auth_proxy = AuthProxy(self)
        return self._auth_proxy

    @property
    def webhooks(self) -> Webhooks:
        """Webhook deliveries (``webhooks/deliveries.py``): every one with its attempts
        (``deliveries``, ``find``, ``last``), receivers for endpoint URLs (``route``), the
        synchronous switch, ``wait``, ``run_due`` and the signing key (``jwks``)."""
        return self._world.webhooks

    @property
    def swap(self) -> SwapSeam:
        """The simulated swap provider's seams (``facade/swap_seam.py``): ``set_price``,
        ``fail_next_fill``, ``provider``. NOT part of Turnkey's API."""
        from .swap_seam import SwapSeam

        return SwapSeam(self._world)

    @property
    def backdoor(self) -> Backdoor:
        """Test-only seams (known keys in, secrets out); NOT part of Turnkey's API."""
        from .backdoor import Backdoor

        return Backdoor(self)

    @property
    def chains(self) -> Chains:
        """The chains the broadcasting operations send to (``chains/network.py``): embedded
        unless ``Settings.chain_rpc_urls`` names a node, each started on first use. Its
        ``fund(caip2_or_caip19, address, amount)`` is the funding seam (base units; native
        assets like Anvil's ``setBalance``, the tokens of ``chains/tokens.py`` written onto
        their chain on first use), ``asset_balance(caip19, address)`` reads one back,
        ``evm(caip2)`` / ``solana(caip2)`` the chains themselves (an embedded EVM's ``tester``
        is eth-tester's API on it). Test seams, NOT part of Turnkey's API."""
        from ..chains.network import chains_of

        return chains_of(self._world)

    @property
    def earn(self) -> EarnSeam:
        """Earn's seams (``chains/earn/seam.py``): ``mint`` a catalog token, ``balance``,
        ``set_apy``, ``add_rewards`` (the seeded Merkl table), ``chain(caip2)`` (the Earn
        contracts). Test seams, NOT part of Turnkey's API."""
        from ..chains.earn.seam import EarnSeam
        from ..chains.network import chains_of

        world = self._world
        return EarnSeam(chains_of(world), lambda: world.clock.now_ns() // 1_000_000)

    @property
    def enclave(self) -> EnclaveKeys:
        """The emulator's enclave public keys: ``signer_public_key`` (import and export
        bundles), ``notarizer_public_key`` (session JWTs), ``tls_fetcher_public_key``
        (OTP verification tokens, the OIDC tokens of ``oauth2_authenticate``) and
        ``tls_fetcher_encrypt_public_key`` (OAuth 2.0 client secrets), for the official SDKs'
        test overrides."""
        return self._world.enclave

    @property
    def oidc(self) -> EmulatorOidc:
        """The built-in OIDC identity provider (``token``, ``jwks``, ``nonce_for``) and the
        issuers this emulator trusts (``trust``, ``distrust``); see ``facade/oidc.py``."""
        return self._oidc

    @property
    def oauth2(self) -> EmulatorOAuth2:
        """The built-in OAuth 2.0 provider (X, Discord) that ``oauth2_authenticate`` exchanges
        codes with: ``register_client``, ``authorize``, ``pkce``; see ``facade/oauth2.py``.
        Test-only, like ``backdoor``."""
        from .oauth2 import EmulatorOAuth2

        return EmulatorOAuth2(self._world)

    @property
    def onramp(self) -> EmulatorOnRamp:
        """The sandbox fiat on-ramp provider (``settle``, ``quote``, ``transaction``,
        ``encryption_public_key``); see ``facade/onramp.py``. Test-only, like ``backdoor``."""
        from .onramp import EmulatorOnRamp

        return EmulatorOnRamp(self._world, self._first_org_id)
