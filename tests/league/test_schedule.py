"""The league schedule: seeds, round robin, rating-aware pairing, determinism."""

from __future__ import annotations

import itertools
from collections import Counter

from gameroom.league.schedule import ROUND_ROBIN_MAX, Schedule, game_seed


def test_game_seeds_depend_on_league_seed_and_index_only() -> None:
    assert game_seed(7, 3) == game_seed(7, 3)
    assert len({game_seed(7, i) for i in range(1000)}) == 1000
    assert game_seed(7, 3) != game_seed(8, 3)
    assert all(0 <= game_seed(s, i) < 2 ** 31 for s in range(5) for i in range(50))


def test_small_fields_play_every_table_in_turn_with_rotating_seats() -> None:
    schedule = Schedule(["a", "b", "c", "d"], 3, seed=1)
    assert schedule.round_robin
    tables = [schedule.table(i) for i in range(12)]
    assert {frozenset(t) for t in tables[:4]} == {frozenset(c) for c in itertools.combinations("abcd", 3)}
    assert tables[4] == tables[0][1:] + tables[0][:1]          # next time round, the next bot starts
    assert Counter(t[0] for t in tables) == Counter({"a": 3, "b": 3, "c": 3, "d": 3})


def test_large_fields_pair_by_rating_after_the_warm_up() -> None:
    bots = [f"bot{i}" for i in range(20)]
    schedule = Schedule(bots, 4, seed=5, warmup=10)
    assert not schedule.round_robin and len(schedule.combinations) > ROUND_ROBIN_MAX
    rating = {name: float(i) for i, name in enumerate(bots)}.__getitem__
    for index in range(10, 200):
        table = schedule.table(index, rating)
        assert len(set(table)) == 4
        spread = max(rating(b) for b in table) - min(rating(b) for b in table)
        assert spread <= 12        # the anchor and opponents among its 6 nearest
    warm = [schedule.table(i, rating) for i in range(10)]
    assert warm == [Schedule(bots, 4, seed=5, warmup=10).table(i, rating) for i in range(10)]
    assert [schedule.table(i, rating) for i in range(50)] != [Schedule(bots, 4, seed=6, warmup=10).table(i, rating)
                                                              for i in range(50)]
