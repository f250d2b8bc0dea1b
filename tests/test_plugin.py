"""The pytest plugin, exercised in a separate pytest run with pytester."""

from __future__ import annotations

import pytest


def test_fixtures_give_each_test_its_own_world(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        import pytest
        from emulator import Emulator, OrganizationHandle

        SEEN = []

        def test_first(turnkey_emulator, turnkey_org):
            assert isinstance(turnkey_emulator, Emulator)
            assert isinstance(turnkey_org, OrganizationHandle)
            SEEN.append(turnkey_org.organization_id)
            turnkey_emulator.create_user_tag(user_tag_name="x", user_ids=[])

        def test_second(turnkey_emulator, turnkey_org):
            assert turnkey_org.organization_id not in SEEN
            assert turnkey_emulator.list_user_tags()["userTags"] == []

        @pytest.mark.turnkey(seed=5)
        def test_seeded(turnkey_org):
            from emulator import Emulator
            assert turnkey_org.organization_id == Emulator(seed=5).create_organization().organization_id

        def test_client(turnkey_client, turnkey_org):
            from turnkey_sdk_types import GetWhoamiBody
            assert turnkey_client.get_whoami(GetWhoamiBody()).userId == turnkey_org.user_id
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)


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
