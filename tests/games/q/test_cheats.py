"""The five cheats (9.3): what each returns, and when it is impossible (None)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gameroom.games.q.actions import REPLACE, Placement
from gameroom.games.q.cheats import (CHEATS, bad_ask_for_tiles, no_fit, non_adjacent_coordinate,
                                     not_a_line, tile_not_owned)
from gameroom.games.q.qmap import QMap
from gameroom.games.q.rules import check_placements, in_one_line
from gameroom.games.q.state import PublicState
from gameroom.games.q.pieces import ALL_KINDS
from tests.games.q.helpers import T, bookkeeping, few_tiles_st, grown_maps, qmap_of


def pub_of(qmap: QMap, hand: list, pile: int = 3, others: tuple = (5,)) -> PublicState:
    return PublicState(qmap, "A", 0, tuple(hand), others, pile)


def test_cheat_names() -> None:
    assert set(CHEATS) == {"non-adjacent-coordinate", "tile-not-owned", "not-a-line",
                           "bad-ask-for-tiles", "no-fit"}


def test_non_adjacent_coordinate_uses_the_number_of_players() -> None:
    pub = pub_of(qmap_of({(0, 0): "red star"}), [T("red circle")], others=(1, 2))
    assert non_adjacent_coordinate(pub) == (Placement((4, 0), T("orange circle")),)
    # it can happen to be legal: an orange circle owned and fitting at (3, 0)
    m = qmap_of({(r, 0): "orange star" for r in range(3)})
    pub = pub_of(m, [T("orange circle")], others=(1,))
    action = non_adjacent_coordinate(pub)
    assert action == (Placement((3, 0), T("orange circle")),)
    assert check_placements(m, pub.hand, action) is None


def test_tile_not_owned_takes_the_first_missing_kind() -> None:
    m = qmap_of({(0, 0): "red star"})
    action = tile_not_owned(pub_of(m, [T("red star"), T("blue circle")]))
    assert action == (Placement((-1, 0), T("green star")),)
    assert check_placements(m, [T("red star"), T("blue circle")], action) is not None
    assert tile_not_owned(pub_of(m, list(ALL_KINDS))) is None
    # no candidate for the missing kind: still an unowned (so illegal) placement
    m2 = qmap_of({(0, 0): "blue circle"})
    action = tile_not_owned(pub_of(m2, [T("blue circle")]))
    assert action is not None and action[0].tile == T("red star")
    assert check_placements(m2, [T("blue circle")], action) is not None


def test_not_a_line_finds_a_bend_when_one_exists() -> None:
    m = qmap_of({(0, 0): "red star"})
    hand = [T("red circle"), T("red square")]
    action = not_a_line(pub_of(m, hand))
    assert action is not None and len(action) >= 2
    assert not in_one_line([p.coord for p in action])
    assert "row nor in one column" in (check_placements(m, hand, action) or "")
    before = m.copy()
    assert m == before and bookkeeping(m) == bookkeeping(before)


def test_not_a_line_is_impossible_with_one_tile_or_no_bend() -> None:
    m = qmap_of({(0, 0): "red star"})
    assert not_a_line(pub_of(m, [T("red circle")])) is None
    # a blue circle fits nowhere near a red star: no sequence at all
    assert not_a_line(pub_of(m, [T("blue circle"), T("green square")])) is None


def test_not_a_line_needs_a_longer_witness_sometimes() -> None:
    # only (0,1) takes the first tile; the second then fits only at (0,2) (in line) and
    # the third only below (0,2) -- a witness of length 3
    m = qmap_of({(0, 0): "red star", (-1, 0): "blue diamond", (1, 0): "green diamond",
                 (0, -1): "yellow diamond"})
    hand = [T("red circle"), T("purple circle"), T("purple clover")]
    action = not_a_line(pub_of(m, hand))
    assert action is not None and not in_one_line([p.coord for p in action])


def test_bad_ask_for_tiles() -> None:
    m = qmap_of({(0, 0): "red star"})
    assert bad_ask_for_tiles(pub_of(m, [T("red circle")] * 3, pile=2)) is REPLACE
    assert bad_ask_for_tiles(pub_of(m, [T("red circle")] * 3, pile=3)) is None


def test_no_fit() -> None:
    m = qmap_of({(0, 0): "red star"})
    action = no_fit(pub_of(m, [T("red circle"), T("blue square")]))
    assert action == (Placement((-1, 0), T("blue square")),)
    assert no_fit(pub_of(m, [T("red circle"), T("green star")])) is None


@settings(max_examples=60)
@given(grown_maps(max_tiles=10, palette=few_tiles_st), st.lists(few_tiles_st, max_size=4))
def test_cheats_are_illegal_or_none_and_leave_the_map_alone(cells, hand) -> None:
    m = QMap(cells)
    pub = pub_of(m, hand, pile=len(hand) - 1)
    for name, cheat in CHEATS.items():
        action = cheat(pub)
        assert m == QMap(cells)
        if action is None or name == "non-adjacent-coordinate":
            continue
        if action is REPLACE:
            assert len(hand) > pub.pile_size
        else:
            assert check_placements(m, hand, action) is not None, name
