"""Referee states and public states (3.1), and the dealing of a fresh game."""

from __future__ import annotations

import random
from collections import Counter, deque

from hypothesis import given, settings
from hypothesis import strategies as st

from gameroom.games.q.qmap import QMap
from gameroom.games.q.state import PlayerRecord, RefereeState, new_game, shuffle
from gameroom.games.q.pieces import full_set
from tests.games.q.helpers import T, qmap_of


def three() -> RefereeState:
    return RefereeState(qmap_of({(0, 0): "red star"}),
                        [PlayerRecord("A", 3, [T("green star"), T("red square")]),
                         PlayerRecord("B", 5, [T("blue star")]),
                         PlayerRecord("C", 7, [])],
                        deque([T("red circle"), T("blue circle"), T("red clover")]))


def test_public_state_of_the_active_player() -> None:
    s = three()
    pub = s.public_for_active()
    assert (pub.name, pub.score, pub.hand, pub.other_scores, pub.pile_size) == (
        "A", 3, (T("green star"), T("red square")), (5, 7), 3)
    assert pub.qmap is s.qmap
    copied = s.public_for_active(copy_map=True)
    assert copied.qmap == s.qmap and copied.qmap is not s.qmap


def test_rotate_and_eliminate() -> None:
    s = three()
    s.rotate()
    assert [p.name for p in s.players] == ["B", "C", "A"]
    gone = s.eliminate_active()
    assert gone.name == "B" and [p.name for p in s.players] == ["C", "A"]
    assert list(s.pile)[-1] == T("blue star") and len(s.pile) == 4
    assert s.active.name == "C"


def test_draw_takes_from_the_front_and_stops_at_the_end() -> None:
    s = three()
    assert s.draw(2) == [T("red circle"), T("blue circle")]
    assert s.draw(5) == [T("red clover")] and s.draw(1) == []


def test_copy_is_deep() -> None:
    s = three()
    c = s.copy()
    c.players[0].hand.pop()
    c.players[0].score = 99
    c.pile.clear()
    c.qmap.place((0, 1), T("red circle"))
    assert s.players[0].hand == [T("green star"), T("red square")] and s.players[0].score == 3
    assert len(s.pile) == 3 and (0, 1) not in s.qmap


def test_new_game_deals_as_the_rules_prose_says() -> None:
    s = new_game(["A", "B", "C"], random.Random(5))
    assert len(s.qmap) == 1 and (0, 0) in s.qmap
    assert [len(p.hand) for p in s.players] == [6, 6, 6] and [p.score for p in s.players] == [0] * 3
    assert len(s.pile) == 1080 - 1 - 18
    every = [s.qmap[(0, 0)], *(t for p in s.players for t in p.hand), *s.pile]
    assert Counter(every) == Counter(full_set())
    again = new_game(["A", "B", "C"], random.Random(5))
    assert again.qmap == s.qmap and list(again.pile) == list(s.pile)
    assert [p.hand for p in again.players] == [p.hand for p in s.players]


def test_empty_map_state() -> None:
    s = RefereeState(QMap(), [PlayerRecord(None, 0, [])])
    pub = s.public_for_active()
    assert pub.name is None and pub.pile_size == 0 and pub.other_scores == ()


@settings(max_examples=100)
@given(st.integers(min_value=0, max_value=2**64), st.integers(min_value=0, max_value=1200))
def test_the_fast_shuffle_is_random_shuffle(seed: int, size: int) -> None:
    """A seed deals the same game as ``random.Random(seed).shuffle`` would."""
    ours, theirs = list(range(size)), list(range(size))
    rng = random.Random(seed)
    shuffle(ours, rng)
    random.Random(seed).shuffle(theirs)
    assert ours == theirs
    # the generator is left where ``shuffle`` leaves it: later draws agree too
    check = random.Random(seed)
    check.shuffle(list(range(size)))
    assert rng.random() == check.random()


def test_the_fast_shuffle_leaves_a_subclass_to_its_own_shuffle() -> None:
    class Reversing(random.Random):
        def shuffle(self, x: list) -> None:  # type: ignore[override]
            x.reverse()

    tiles = list(range(5))
    shuffle(tiles, Reversing(1))
    assert tiles == [4, 3, 2, 1, 0]
