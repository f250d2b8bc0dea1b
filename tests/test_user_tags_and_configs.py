"""User tags (create, update atomically, delete, list) and organization configs."""

from __future__ import annotations

import pytest

from emulator import TurnkeyApiError

from .helpers import NIL_UUID, state_digest, user_params


@pytest.fixture
def two_users(turnkey_emulator, turnkey_org):
    return turnkey_emulator.create_users(users=[user_params("a"), user_params("b")])["userIds"]


def tags_of(emu, user_id):
    return emu.get_user(user_id=user_id)["user"]["userTags"]


def test_create_user_tag_tags_the_users(turnkey_emulator, two_users):
    made = turnkey_emulator.create_user_tag(user_tag_name="admins", user_ids=two_users)
    assert made["userIds"] == two_users
    assert [tags_of(turnkey_emulator, u) for u in two_users] == [[made["userTagId"]]] * 2
    (tag,) = turnkey_emulator.list_user_tags()["userTags"]
    assert (tag["tagId"], tag["tagName"], tag["tagType"]) == (
        made["userTagId"],
        "admins",
        "TAG_TYPE_USER",
    )


def test_tag_names_are_unique(turnkey_emulator, two_users):
    turnkey_emulator.create_user_tag(user_tag_name="admins", user_ids=[])
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.create_user_tag(user_tag_name="admins", user_ids=[])
    assert caught.value.status == 400


def test_update_user_tag_renames_and_moves_users(turnkey_emulator, two_users):
    a, b = two_users
    tag_id = turnkey_emulator.create_user_tag(user_tag_name="t", user_ids=[a])["userTagId"]
    result = turnkey_emulator.update_user_tag(
        user_tag_id=tag_id, new_user_tag_name="renamed", add_user_ids=[b], remove_user_ids=[a]
    )
    assert result["userTagId"] == tag_id
    assert (tags_of(turnkey_emulator, a), tags_of(turnkey_emulator, b)) == ([], [tag_id])
    assert turnkey_emulator.list_user_tags()["userTags"][0]["tagName"] == "renamed"


def test_update_user_tag_is_atomic(turnkey_emulator, two_users):
    a, _ = two_users
    tag_id = turnkey_emulator.create_user_tag(user_tag_name="t", user_ids=[])["userTagId"]
    before = state_digest(turnkey_emulator)
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.update_user_tag(
            user_tag_id=tag_id,
            new_user_tag_name="new",
            add_user_ids=[a, NIL_UUID],
            remove_user_ids=[],
        )
    assert caught.value.status == 404
    assert state_digest(turnkey_emulator) == before


def test_delete_user_tags_untags_users(turnkey_emulator, two_users):
    a, b = two_users
    keep = turnkey_emulator.create_user_tag(user_tag_name="keep", user_ids=[a])["userTagId"]
    drop = turnkey_emulator.create_user_tag(user_tag_name="drop", user_ids=[a, b])["userTagId"]
    result = turnkey_emulator.delete_user_tags(user_tag_ids=[drop])
    assert (result["userTagIds"], result["userIds"]) == ([drop], [a, b])
    assert (tags_of(turnkey_emulator, a), tags_of(turnkey_emulator, b)) == ([keep], [])
    assert [t["tagId"] for t in turnkey_emulator.list_user_tags()["userTags"]] == [keep]


def test_delete_unknown_tag(turnkey_emulator, two_users):
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.delete_user_tags(user_tag_ids=[NIL_UUID])
    assert caught.value.status == 404


def test_tag_limit(turnkey_emulator, two_users):
    turnkey_emulator.settings.max_tags_per_organization = 1
    turnkey_emulator.create_user_tag(user_tag_name="one", user_ids=[])
    with pytest.raises(TurnkeyApiError) as caught:
        turnkey_emulator.create_user_tag(user_tag_name="two", user_ids=[])
    assert caught.value.status == 429


def test_organization_configs(turnkey_emulator, turnkey_org):
    configs = turnkey_emulator.get_organization_configs()["configs"]
    assert configs == {"features": [], "quorum": {"threshold": 1, "userIds": [turnkey_org.user_id]}}


def test_whoami(turnkey_emulator, turnkey_org):
    answer = turnkey_emulator.get_whoami()
    assert {k: answer[k] for k in ("organizationId", "organizationName", "userId", "username")} == {
        "organizationId": turnkey_org.organization_id,
        "organizationName": "Test Organization",
        "userId": turnkey_org.user_id,
        "username": "Root User",
    }
