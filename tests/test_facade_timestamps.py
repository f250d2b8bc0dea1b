"""Every facade call is its own activity, whatever the clock does and from any thread."""

from __future__ import annotations

import threading

from emulator import Emulator
from emulator.engine_state.world import Settings

USER = {
    "user_name": "same",
    "api_keys": [],
    "authenticators": [],
    "oauth_providers": [],
    "user_tags": [],
}


def _emulator() -> Emulator:
    emu = Emulator(seed=3, settings=Settings(max_users_per_organization=10_000))
    emu.create_organization()
    return emu


def _timestamps(made: list[dict]) -> list[int]:
    return [int(m["activity"]["timestampMs"]) for m in made]


def test_a_storm_on_a_frozen_clock_makes_one_activity_per_call():
    emu = _emulator()
    emu.clock.freeze()
    made = [emu.create_users(users=[USER]) for _ in range(1500)]
    assert len({m["activity"]["id"] for m in made}) == 1500
    assert len(emu.list_users()["users"]) == 1 + 1500
    stamps = _timestamps(made)
    assert stamps == sorted(set(stamps))


def test_timestamps_keep_increasing_when_the_clock_goes_back_within_the_window():
    emu = _emulator()
    emu.clock.freeze()
    before = _timestamps([emu.create_users(users=[USER]) for _ in range(5)])
    emu.clock.advance(-30)
    after = _timestamps([emu.create_users(users=[USER]) for _ in range(5)])
    stamps = before + after
    assert stamps == sorted(set(stamps))


def test_a_clock_set_back_past_the_window_restarts_from_it_and_never_merges():
    emu = _emulator()
    emu.clock.freeze()
    first = [emu.create_users(users=[USER]) for _ in range(3)]
    emu.clock.advance(3600)
    [emu.create_users(users=[USER]) for _ in range(3)]
    emu.clock.advance(-3600)  # back to where the first three were made
    again = [emu.create_users(users=[USER]) for _ in range(3)]
    ids = {m["activity"]["id"] for m in first + again}
    assert len(ids) == 6
    now_ms = emu.clock.now_ms()
    assert all(abs(t - now_ms) < 1000 for t in _timestamps(again))  # live on the clock
    assert len(emu.list_users()["users"]) == 1 + 9


def test_after_a_rollback_calls_are_still_new_activities():
    emu = _emulator()
    emu.clock.freeze()
    mark = emu.checkpoint()
    undone = emu.create_users(users=[USER])
    emu.rollback(mark)
    made = emu.create_users(users=[USER])
    # ids roll back with the state; the timestamp does not, so the body is a new one
    assert made["activity"]["timestampMs"] > undone["activity"]["timestampMs"]
    assert made["activity"]["fingerprint"] != undone["activity"]["fingerprint"]
    assert len(emu.list_users()["users"]) == 2


def test_resubmitting_on_purpose_is_the_same_activity():
    emu = _emulator()
    emu.clock.freeze()
    first = emu.create_users(users=[USER])
    again = emu.create_users(users=[USER], timestamp_ms=first["activity"]["timestampMs"])
    assert again["activity"]["id"] == first["activity"]["id"]
    assert len(emu.list_users()["users"]) == 2


def test_eight_threads_make_one_activity_per_call():
    emu = _emulator()
    emu.clock.freeze()  # the hardest case: every call in the same millisecond
    results: list[list[dict]] = [[] for _ in range(8)]
    start = threading.Barrier(8)

    def work(mine: list[dict]) -> None:
        start.wait()
        for _ in range(250):
            mine.append(emu.create_users(users=[USER]))

    threads = [threading.Thread(target=work, args=(r,)) for r in results]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    made = [m for mine in results for m in mine]
    assert len(made) == 2000
    assert len({m["activity"]["id"] for m in made}) == 2000
    assert len({m["userIds"][0] for m in made}) == 2000
    assert len(emu.list_users()["users"]) == 1 + 2000
    assert len(set(_timestamps(made))) == 2000
    for mine in results:  # each thread saw its own calls in increasing order
        stamps = _timestamps(mine)
        assert stamps == sorted(set(stamps))
