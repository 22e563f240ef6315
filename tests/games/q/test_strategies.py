"""The atomic strategies dag and ldasg (9.1) and their iteration (9.2)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gameroom.games.q.actions import PASS, REPLACE, Placement
from gameroom.games.q.qmap import QMap
from gameroom.games.q.rules import check_placements
from gameroom.games.q.state import PublicState
from gameroom.games.q.strategies import STRATEGIES, dag, iterate, ldasg, take_turn
from tests.games.q.helpers import (T, bookkeeping, few_tiles_st, grown_maps, naive_candidates, naive_count,
                                   qmap_of)


def pub_of(qmap: QMap, hand: list, pile: int = 3, others: tuple = (5,)) -> PublicState:
    return PublicState(qmap, "A", 3, tuple(hand), others, pile)


def spec_pub() -> PublicState:
    """The JPub example of 6.3 used by 9.2."""
    m = qmap_of({(0, 0): "red star", (1, -1): "blue star", (1, 0): "red circle"})
    return pub_of(m, [T("green star"), T("red square")])


def test_the_example_of_9_2() -> None:
    pub = spec_pub()
    assert dag(pub) == Placement((-1, 0), T("green star"))
    assert ldasg(pub) == Placement((0, -1), T("green star"))
    # dag: the red square's smallest candidate (0,1) is not in line with (-1,0)
    assert iterate(dag, pub) == (Placement((-1, 0), T("green star")),)
    assert take_turn("dag", pub) == iterate(dag, pub)
    assert set(STRATEGIES) == {"dag", "ldasg"}


def test_iterate_leaves_the_public_map_as_it_was() -> None:
    pub = spec_pub()
    before = pub.qmap.copy()
    for step in (dag, ldasg):
        iterate(step, pub)
        assert pub.qmap == before and bookkeeping(pub.qmap) == bookkeeping(before)


def test_no_placeable_tile_passes_or_replaces_by_pile_size() -> None:
    m = qmap_of({(0, 0): "red star"})
    hand = [T("blue circle"), T("green square")]
    assert dag(pub_of(m, hand, pile=1)) is PASS
    assert dag(pub_of(m, hand, pile=2)) is REPLACE
    assert ldasg(pub_of(m, [], pile=0)) is REPLACE  # an empty hand yields REPLACE
    assert iterate(dag, pub_of(m, hand, pile=1)) is PASS
    assert iterate(ldasg, pub_of(m, hand, pile=5)) is REPLACE


def test_iterate_extends_along_the_line() -> None:
    m = qmap_of({(0, 0): "red star"})
    hand = [T("red circle"), T("red square"), T("red clover")]
    action = iterate(dag, pub_of(m, hand))
    # sorted hand: red square < red circle < red clover; dag starts at (-1,0), then the
    # next smallest candidates go up the column
    assert action == (Placement((-1, 0), T("red square")), Placement((-2, 0), T("red circle")),
                      Placement((-3, 0), T("red clover")))
    assert check_placements(m, hand, action) is None


def test_iterate_stops_at_an_illegal_extension_of_a_custom_step() -> None:
    m = qmap_of({(0, 0): "red star"})
    hand = (T("red circle"), T("red square"))
    proposals = iter([Placement((0, 1), T("red circle")), Placement((5, 5), T("red square"))])
    assert iterate(lambda pub: next(proposals), pub_of(m, list(hand))) == (
        Placement((0, 1), T("red circle")),)
    proposals = iter([Placement((0, 1), T("red circle")), Placement((0, 2), T("red circle"))])
    assert iterate(lambda pub: next(proposals), pub_of(m, list(hand))) == (
        Placement((0, 1), T("red circle")),)  # the second red circle is not owned
    seen = []

    def step(pub: PublicState):
        seen.append(pub.hand)
        return Placement((0, 1), T("red circle")) if len(seen) == 1 else PASS

    assert iterate(step, pub_of(m, list(hand))) == (Placement((0, 1), T("red circle")),)
    assert seen == [hand, (T("red square"),)]


# -- against a naive implementation --------------------------------------------------------

def naive_step(cells: dict, hand: list, pile: int, strategy: str):
    for t in sorted(hand):
        cands = naive_candidates(cells, t)
        if cands:
            if strategy == "dag":
                return Placement(cands[0], t)
            top = max(naive_count(cells, c) for c in cands)
            return Placement(min(c for c in cands if naive_count(cells, c) == top), t)
    return PASS if len(hand) > pile else REPLACE


def naive_iterate(cells: dict, hand: list, pile: int, strategy: str):
    placements: list = []
    work, rest = dict(cells), list(hand)
    while True:
        a = naive_step(work, rest, pile, strategy)
        if a is PASS or a is REPLACE:
            return a if not placements else tuple(placements)
        if check_placements(QMap(cells), hand, placements + [a]) is not None:
            return tuple(placements)
        placements.append(a)
        work[a.coord] = a.tile
        rest.remove(a.tile)


@settings(max_examples=200)
@given(grown_maps(palette=few_tiles_st), st.lists(few_tiles_st, max_size=6),
       st.integers(0, 8), st.sampled_from(["dag", "ldasg"]))
def test_iterate_agrees_with_a_naive_implementation(cells, hand, pile, strategy) -> None:
    pub = pub_of(QMap(cells), hand, pile)
    assert STRATEGIES[strategy](pub) == naive_step(cells, hand, pile, strategy)
    got = iterate(STRATEGIES[strategy], pub)
    assert got == naive_iterate(cells, hand, pile, strategy)
    assert pub.qmap == QMap(cells)
    if isinstance(got, tuple):
        assert got and check_placements(pub.qmap, hand, got) is None
