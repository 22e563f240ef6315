"""Legality of placement requests (3.4) and exchanges (3.3)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gameroom.games.q.actions import Placement
from gameroom.games.q.qmap import QMap
from gameroom.games.q.rules import (apply_placements, can_exchange, check_placements, in_one_line,
                                    is_legal, owns, remove_placed)
from tests.games.q.helpers import (T, bookkeeping, coords_st, few_tiles_st, grown_maps, naive_fits,
                                   qmap_of)


def P(r: int, c: int, t: str) -> Placement:
    return Placement((r, c), T(t))


def base() -> QMap:
    return qmap_of({(0, 0): "red star"})


def test_a_single_fitting_adjacent_owned_tile_is_legal() -> None:
    assert check_placements(base(), [T("red circle")], [P(0, 1, "red circle")]) is None


def test_ownership_counts_copies() -> None:
    hand = [T("red circle"), T("blue star")]
    reason = check_placements(base(), hand, [P(0, 1, "red circle"), P(0, 2, "red circle")])
    assert reason is not None and "not in the hand" in reason
    hand2 = [T("red circle"), T("red circle")]
    assert check_placements(base(), hand2, [P(0, 1, "red circle"), P(0, 2, "red circle")]) is None
    assert owns(hand2, [T("red circle")] * 2) and not owns(hand2, [T("red circle")] * 3)


def test_line_rule_allows_gaps_but_not_bends() -> None:
    m = qmap_of({(0, 0): "red star", (0, 1): "red circle", (0, 2): "red square"})
    hand = [T("red clover"), T("red diamond")]
    # same row, not contiguous with each other, each adjacent to the map (11 #2)
    assert check_placements(m, hand, [P(0, -1, "red clover"), P(0, 3, "red diamond")]) is None
    bend = [P(0, -1, "red clover"), P(1, 0, "red diamond")]
    assert "row nor in one column" in (check_placements(m, hand, bend) or "")
    assert in_one_line([(0, 0), (5, 0)]) and not in_one_line([(0, 0), (1, 1)])


def test_sequential_adjacency_uses_the_extended_map() -> None:
    hand = [T("red circle"), T("red square")]
    # (0,2) only becomes adjacent after (0,1) was placed
    assert check_placements(base(), hand, [P(0, 1, "red circle"), P(0, 2, "red square")]) is None
    reason = check_placements(base(), hand, [P(0, 2, "red square"), P(0, 1, "red circle")])
    assert reason is not None and "not adjacent" in reason


def test_sequential_fit_uses_the_extended_map() -> None:
    hand = [T("red circle"), T("blue circle")]
    # blue circle at (0,2) fits next to the red circle placed first
    assert check_placements(base(), hand, [P(0, 1, "red circle"), P(0, 2, "blue circle")]) is None
    hand = [T("red circle"), T("blue square")]
    reason = check_placements(base(), hand, [P(0, 1, "red circle"), P(0, 2, "blue square")])
    assert reason is not None and "does not fit" in reason


def test_occupied_and_empty_requests_are_illegal() -> None:
    assert "occupied" in (check_placements(base(), [T("red star")], [P(0, 0, "red star")]) or "")
    hand = [T("red circle")] * 2
    assert "occupied" in (check_placements(base(), hand, [P(0, 1, "red circle"),
                                                          P(0, 1, "red circle")]) or "")
    assert check_placements(base(), [T("red star")], []) is not None
    assert not is_legal(base(), [], [P(0, 1, "red circle")])


def test_apply_and_remove_placed() -> None:
    m = base()
    action = [P(0, 1, "red circle"), P(0, 2, "red square")]
    apply_placements(m, action)
    assert m.get((0, 2)) == T("red square") and len(m) == 3
    hand = [T("red square"), T("blue star"), T("red circle"), T("red square")]
    remove_placed(hand, action)
    assert hand == [T("blue star"), T("red square")]


def test_exchange_needs_a_pile_at_least_as_large_as_the_hand() -> None:
    assert can_exchange(6, 6) and can_exchange(7, 6) and not can_exchange(5, 6)
    assert can_exchange(0, 0)


@settings(max_examples=150)
@given(grown_maps(palette=few_tiles_st),
       st.lists(few_tiles_st, min_size=1, max_size=6),
       st.lists(st.tuples(coords_st, few_tiles_st), min_size=1, max_size=4))
def test_check_leaves_the_map_unchanged_and_agrees_with_a_naive_check(cells, hand, raw) -> None:
    m = QMap(cells)
    before = m.copy()
    placements = [Placement(c, t) for c, t in raw]
    reason = check_placements(m, hand, placements)
    assert m == before and bookkeeping(m) == bookkeeping(before)
    # the naive check, straight from 3.4
    legal = owns(hand, [p.tile for p in placements]) and in_one_line([p.coord for p in placements])
    work = dict(cells)
    for coord, t in placements:
        if not legal:
            break
        r, c = coord
        adjacent = any(n in work for n in ((r, c - 1), (r, c + 1), (r - 1, c), (r + 1, c)))
        legal = coord not in work and adjacent and naive_fits(work, coord, t)
        work[coord] = t
    assert (reason is None) == legal
