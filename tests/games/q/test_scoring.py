"""Scoring (3.5): every worked example of the spec's table, Q bonuses, the finish bonus, and
agreement with a literal reading of the rule on random maps."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameroom.games.q.actions import Placement
from gameroom.games.q.qmap import QMap
from gameroom.games.q.rules import apply_placements, check_placements
from gameroom.games.q.scoring import is_q, run_through, score_placements
from tests.games.q.helpers import T, few_tiles_st, grown_maps, qmap_of


def P(r: int, c: int, t: str) -> Placement:
    return Placement((r, c), T(t))


STARS = ["red star", "green star", "blue star", "yellow star", "orange star"]

WORKED_EXAMPLES = [
    ({(0, 0): "red circle"}, [P(0, 1, "red square")], 3),
    ({(0, 0): "red circle"}, [P(0, 1, "red square"), P(0, 2, "red star")], 5),
    ({(0, 0): "red star"}, [P(1, 0, "red circle"), P(2, 0, "red square")], 5),
    ({(0, c): s for c, s in enumerate(STARS)}, [P(0, 5, "purple star")], 13),
    ({(0, 0): "red star", (1, 0): "red circle", (1, 1): "red square", (1, 2): "red clover"},
     [P(0, 2, "red clover"), P(0, -1, "red 8star")], 6),
    ({(r, 0): s for r, s in enumerate(["red star", "blue star", "green star", "yellow star",
                                       "purple star", "orange star"])},
     [P(6, 0, "orange square")], 8),
]


@pytest.mark.parametrize("before, placements, points", WORKED_EXAMPLES)
def test_worked_examples_of_the_spec(before, placements, points) -> None:
    m = qmap_of(before)
    hand = [p.tile for p in placements]
    assert check_placements(m, hand, placements) is None  # the examples are legal
    apply_placements(m, placements)
    assert score_placements(m, placements, q_bonus=6) == points


def test_q_bonus_is_configurable_and_counts_in_the_perpendicular_direction_too() -> None:
    m = qmap_of({(0, c): s for c, s in enumerate(STARS)})
    apply_placements(m, [P(0, 5, "purple star")])
    assert score_placements(m, [P(0, 5, "purple star")], q_bonus=8) == 15
    # the same Q completed by a vertical placement line: the Q is the perpendicular run
    m = qmap_of({(0, c): s for c, s in enumerate(STARS)} | {(1, 6): "purple circle"})
    placements = [P(0, 5, "purple star")]
    apply_placements(m, placements)
    assert score_placements(m, placements, q_bonus=6) == 13


def test_finish_bonus_only_when_finished() -> None:
    m = qmap_of({(0, 0): "red circle"})
    placements = [P(0, 1, "red square")]
    apply_placements(m, placements)
    assert score_placements(m, placements, 6, finish_bonus=4, finished=True) == 7
    assert score_placements(m, placements, 6, finish_bonus=4, finished=False) == 3


def test_a_segment_with_several_placed_tiles_counts_once() -> None:
    m = qmap_of({(0, 0): "red circle"})
    placements = [P(0, 1, "red square"), P(0, -1, "red star"), P(0, 2, "red clover")]
    apply_placements(m, placements)
    assert score_placements(m, placements, 6) == 3 + 4


def test_q_needs_six_distinct_colours_or_shapes() -> None:
    assert is_q([T(f"{c} star") for c in ["red", "green", "blue", "yellow", "orange", "purple"]])
    assert is_q([T(f"red {s}") for s in ["star", "8star", "square", "circle", "clover",
                                          "diamond"]])
    assert not is_q([T("red star")] * 6)
    assert not is_q([T(f"{c} star") for c in ["red", "green", "blue", "yellow", "orange"]])
    m = qmap_of({(0, 0): "red star", (0, 1): "red star", (1, 1): "red star"})
    assert run_through(m, (0, 1), True) == [(0, 0), (0, 1)]
    assert run_through(m, (0, 1), False) == [(0, 1), (1, 1)]


def test_nothing_placed_scores_nothing() -> None:
    assert score_placements(qmap_of({(0, 0): "red star"}), [], 6) == 0


def naive_score(cells: dict, placements: list, q_bonus: int) -> int:
    """3.5 read literally: walk the runs tile by tile on a plain dict."""
    def run(coord, dr, dc):
        r, c = coord
        while (r - dr, c - dc) in cells:
            r, c = r - dr, c - dc
        out = []
        while (r, c) in cells:
            out.append((r, c))
            r, c = r + dr, c + dc
        return out

    def worth(coords):
        if len(coords) < 2:
            return 0
        return len(coords) + (q_bonus if is_q([cells[c] for c in coords]) else 0)

    coords = [p.coord for p in placements]
    along_row = all(r == coords[0][0] for r, _ in coords)
    line, cross = ((0, 1), (1, 0)) if along_row else ((1, 0), (0, 1))
    segments = {tuple(run(c, *line)) for c in coords}
    return (len(coords) + sum(worth(s) for s in segments)
            + sum(worth(run(c, *cross)) for c in coords))


@settings(max_examples=150)
@given(grown_maps(palette=few_tiles_st), st.lists(few_tiles_st, min_size=1, max_size=6),
       st.integers(0, 8), st.data())
def test_scoring_agrees_with_a_naive_walk_over_the_runs(cells, hand, q_bonus, data) -> None:
    """Any legal request the strategies or a random line of placements make: the run-based
    scoring equals a literal reading of 3.5."""
    m = QMap(cells)
    placements: list[Placement] = []
    vertical = data.draw(st.booleans())
    for t in hand:
        free = [c for c in m.candidates(t)
                if not placements or (c[1] == placements[0].coord[1] if vertical
                                      else c[0] == placements[0].coord[0])]
        if not free:
            break
        p = Placement(data.draw(st.sampled_from(free)), t)
        m.place(*p)
        placements.append(p)
    if not placements:
        return
    after = m.to_dict()
    assert score_placements(m, placements, q_bonus) == naive_score(after, placements, q_bonus)
    # long runs (Qs, lines longer than six) come up with a six-tile palette in a row
    row = {(0, c): T(f"{col} star") for c, col in enumerate(
        ["red", "green", "blue", "yellow", "orange", "purple", "red"][: data.draw(st.integers(2, 7))])}
    last = max(row)
    placed = [Placement(last, row[last])]
    assert score_placements(QMap(row), placed, q_bonus) == naive_score(row, placed, q_bonus)
