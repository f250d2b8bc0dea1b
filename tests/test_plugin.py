"""The pytest plugin, exercised in a separate pytest run with pytester."""

from __future__ import annotations

import pytest


def test_each_test_starts_from_the_same_baseline(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        import pytest
        from emulator import Emulator, OrganizationHandle

        SEEN = {}

        def test_first(turnkey_emulator, turnkey_org):
            assert isinstance(turnkey_emulator, Emulator)
            assert isinstance(turnkey_org, OrganizationHandle)
            made = turnkey_emulator.create_user_tag(user_tag_name="x", user_ids=[])
            SEEN["org"], SEEN["tag"] = turnkey_org.organization_id, made["userTagId"]
            SEEN["emulator"] = turnkey_emulator
            turnkey_emulator.settings.max_wallets_per_organization = 1
            turnkey_emulator.clock.freeze(1_000)

        def test_second(turnkey_emulator, turnkey_org):
            # the same shared emulator and organization, with nothing of test_first left
            assert turnkey_emulator is SEEN["emulator"]
            assert turnkey_org.organization_id == SEEN["org"]
            assert turnkey_emulator.list_user_tags()["userTags"] == []
            assert turnkey_emulator.settings.max_wallets_per_organization == 100
            assert not turnkey_emulator.clock.frozen
            # ids start where test_first's started: each test is reproducible alone
            made = turnkey_emulator.create_user_tag(user_tag_name="y", user_ids=[])
            assert made["userTagId"] == SEEN["tag"]

        def test_reset_inside_a_test(turnkey_emulator):
            turnkey_emulator.reset()
            assert turnkey_emulator.world.store.organizations == {}

        def test_after_the_reset(turnkey_emulator, turnkey_org):
            assert turnkey_emulator.get_whoami()["organizationId"] == turnkey_org.organization_id

        @pytest.mark.turnkey(seed=5)
        def test_seeded(turnkey_emulator, turnkey_org):
            from emulator import Emulator
            assert turnkey_emulator is not SEEN["emulator"]
            assert turnkey_org.organization_id == Emulator(seed=5).create_organization().organization_id

        def test_client(turnkey_client, turnkey_org):
            from turnkey_sdk_types import GetWhoamiBody
            assert turnkey_client.get_whoami(GetWhoamiBody()).userId == turnkey_org.user_id
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=6)


def test_server_wallet_and_command_line_options(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        import json
        import requests
        from emulator import ApiKeyPair, Emulator
        from emulator.crypto.stamps import sign_stamp

        def test_server(turnkey_server, turnkey_org):
            raw = json.dumps({"organizationId": turnkey_server.organization_id}).encode()
            key = ApiKeyPair(turnkey_server.api_public_key, turnkey_server.api_private_key)
            headers = {"X-Stamp": sign_stamp(raw, key).header_value()}
            answer = requests.post(
                turnkey_server.base_url + "/public/v1/query/whoami", data=raw, headers=headers
            )
            assert answer.json()["userId"] == turnkey_org.user_id
            assert turnkey_server.api_private_key not in repr(turnkey_server)

        def test_wallet(turnkey_emulator, turnkey_wallet):
            assert turnkey_wallet.ethereum_address == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
            assert turnkey_wallet.solana_address == "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk"
            signed = turnkey_emulator.sign_raw_payload(
                sign_with=turnkey_wallet.ethereum_address, payload="00" * 32,
                encoding="PAYLOAD_ENCODING_HEXADECIMAL", hash_function="HASH_FUNCTION_NO_OP",
            )
            assert signed["v"] in ("00", "01")

        def test_seed_option(turnkey_org):
            expected = Emulator(seed=42).create_organization("Test Organization")
            assert turnkey_org.organization_id == expected.organization_id
        """
    )
    # in a subprocess: requests' cookie jar class does not survive pytester's in-process reruns
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--turnkey-seed", "42")
    result.assert_outcomes(passed=3)


def test_fresh_option_gives_every_test_its_own_emulator(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        SEEN = []

        def test_one(turnkey_emulator):
            SEEN.append(turnkey_emulator)

        def test_two(turnkey_emulator):
            assert turnkey_emulator is not SEEN[0]
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--turnkey-fresh")
    result.assert_outcomes(passed=2)


def test_the_journal_does_not_grow_from_test_to_test(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        import pytest

        LENGTHS = []

        @pytest.mark.parametrize("index", range(30))
        def test_some_change(turnkey_emulator, turnkey_org, index):
            turnkey_emulator.create_user_tag(user_tag_name="t", user_ids=[])
            LENGTHS.append(len(turnkey_emulator.world.journal))

        def test_zz_bounded():
            assert len(set(LENGTHS)) == 1
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=31)


def test_isolation_holds_under_xdist(pytester: pytest.Pytester):
    pytest.importorskip("xdist")
    tests = "\n".join(
        f"""
def test_{index}(turnkey_emulator, turnkey_org):
    assert turnkey_emulator.list_user_tags()["userTags"] == []
    turnkey_emulator.create_user_tag(user_tag_name="t{index}", user_ids=[])
    assert len(turnkey_emulator.list_user_tags()["userTags"]) == 1
"""
        for index in range(20)
    )
    pytester.makepyfile(tests)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2")
    result.assert_outcomes(passed=20)


def test_marker_is_registered(pytester: pytest.Pytester):
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["*turnkey(seed=None*"])


def test_client_skips_without_the_sdk(pytester: pytest.Pytester):
    pytester.makeconftest(
        """
        import sys
        sys.modules["turnkey_http"] = None
        """
    )
    pytester.makepyfile(
        """
        def test_needs_sdk(turnkey_client):
            pass
        """
    )
    result = pytester.runpytest("-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*turnkey_client needs the official SDK*"])


def test_each_test_that_broadcasts_gets_fresh_chains(pytester: pytest.Pytester):
    pytest.importorskip("eth_tester")
    pytester.makepyfile(
        """
        from emulator.accounts import account_spec

        SEEN = {}

        def _address(emu):
            made = emu.create_wallet(
                wallet_name="w", accounts=[account_spec("ADDRESS_FORMAT_ETHEREUM")]
            )
            return made["addresses"][0]

        def test_first(turnkey_emulator, turnkey_org):
            address = _address(turnkey_emulator)
            turnkey_emulator.chains.fund("eip155:1", address, 10**18)
            turnkey_emulator.eth_send_transaction(
                from_=address, caip2="eip155:1", calls=[{"to": "0x" + "11" * 20, "value": "1"}]
            )
            SEEN["address"] = address

        def test_second(turnkey_emulator, turnkey_org):
            assert turnkey_emulator.chains.started() == []
            address = SEEN["address"]  # test_first's account: nothing of it on the new chain
            assert turnkey_emulator.chains.balance("eip155:1", address) == 0
            assert turnkey_emulator.chains.evm("eip155:1").nonce(address) == 0
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
