"""The map: the fit rule (3.4), free neighbours, candidates and constraint counts (9.1),
the incremental index staying equal to a from-scratch computation, and the strategies'
overlay (Extension) answering like the map with its tiles placed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameroom.games.q import qmap as qmap_module
from gameroom.games.q.qmap import Extension, QMap
from gameroom.games.q.pieces import ALL_KINDS, KIND_INDEX, NKINDS
from tests.games.q.helpers import (T, bookkeeping, coords_st, grown_maps, naive_candidates, naive_count,
                                   naive_fits, naive_free, naive_line_ok, qmap_of,
                                   scattered_maps, tiles_st)


def test_spec_example_of_xmap() -> None:
    m = qmap_of({(0, 0): "red star"})
    assert m.candidates(T("red circle")) == [(-1, 0), (0, -1), (0, 1), (1, 0)]
    assert m.candidates(T("blue circle")) == []


@pytest.mark.parametrize("neighbour, tile, ok", [
    ("red star", "red circle", True),      # same colour
    ("red star", "blue star", True),       # same shape
    ("red star", "red star", True),        # duplicates are fine
    ("red star", "blue circle", False),
])
def test_one_neighbour_needs_shape_or_colour(neighbour: str, tile: str, ok: bool) -> None:
    for coord in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        assert qmap_of({(0, 0): neighbour}).fits(coord, T(tile)) is ok


def test_two_neighbours_in_a_line_must_both_share_the_same_attribute() -> None:
    m = qmap_of({(0, 0): "red star", (0, 2): "blue star"})
    assert m.fits((0, 1), T("green star"))          # both share the shape
    assert not m.fits((0, 1), T("red circle"))      # only one shares the colour
    m = qmap_of({(0, 0): "red star", (0, 2): "red circle"})
    assert m.fits((0, 1), T("red clover"))          # both share the colour
    assert m.fits((0, 1), T("red star"))
    m = qmap_of({(0, 0): "red star", (0, 2): "blue circle"})
    # one shares the shape, the other the colour: does NOT fit
    assert not m.fits((0, 1), T("red circle"))
    assert not m.fits((0, 1), T("blue star"))


def test_both_axes_are_judged_and_only_immediate_neighbours_count() -> None:
    m = qmap_of({(0, -1): "red star", (-1, 0): "blue circle"})
    assert m.fits((0, 0), T("red circle"))  # red like the star, a circle like the circle
    assert not m.fits((0, 0), T("red square"))  # fits the row, not the column
    assert not m.fits((0, 0), T("blue square"))  # fits the column, not the row
    m = qmap_of({(0, -1): "red star", (-1, 0): "red circle"})
    assert m.fits((0, 0), T("red square"))
    # a long row with duplicates: only the neighbour counts (spec 11 #1)
    m = qmap_of({(0, c): "red star" for c in range(-8, 0)})
    assert m.fits((0, 0), T("red star")) and m.can_place((0, 0), T("red star"))


def test_free_neighbours_and_constraint_counts() -> None:
    m = qmap_of({(0, 0): "red star", (1, 1): "red star"})
    assert m.free_neighbours() == {(-1, 0), (0, -1), (0, 1), (1, 0), (1, 2), (2, 1)}
    assert m.constraint_count((0, 1)) == 2 and m.constraint_count((1, 0)) == 2
    assert m.constraint_count((-1, 0)) == 1
    assert m.constraint_count((5, 5)) == 0 and not m.adjacent((5, 5))
    assert m.adjacent((0, 0)) is False and m.adjacent((0, 1))


def test_ldasg_and_dag_choices_from_the_index() -> None:
    m = qmap_of({(0, 0): "red star", (1, -1): "blue star", (1, 0): "red circle"})
    green_star = T("green star")
    assert m.candidates(green_star) == [(-1, 0), (0, -1), (0, 1), (1, -2), (2, -1)]
    assert m.first_candidate(green_star) == (-1, 0)
    assert m.best_candidate(green_star) == (0, -1)
    assert m.first_candidate(T("purple diamond")) is None
    assert m.best_candidate(T("purple diamond")) is None
    assert not m.has_candidate(T("purple diamond")) and m.has_candidate(green_star)


def test_place_and_remove() -> None:
    m = qmap_of({(0, 0): "red star"})
    before = m.copy()
    m.place((0, 1), T("red circle"))
    assert m.get((0, 1)) == T("red circle") and (0, 1) in m and len(m) == 2
    with pytest.raises(ValueError):
        m.place((0, 1), T("red circle"))
    assert m.remove((0, 1)) == T("red circle")
    with pytest.raises(ValueError):
        m.remove((0, 1))
    assert m == before and m.free_neighbours() == before.free_neighbours()


def test_copy_is_independent() -> None:
    m = qmap_of({(0, 0): "red star"})
    c = m.copy()
    c.place((0, 1), T("red circle"))
    assert (0, 1) not in m and m.candidates(T("red square")) == [(-1, 0), (0, -1), (0, 1), (1, 0)]
    assert c.candidates(T("red square"))[-1] == (1, 1)


def test_a_copy_is_copied_on_write_either_way() -> None:
    """The copy shares the tables until one side writes; the side that writes first
    leaves the other as it was (the copy writing, or the original moving on)."""
    m = qmap_of({(0, 0): "red star"})
    c = m.copy()
    assert c._kinds is m._kinds   # shared: no copy made yet
    m.place((0, 1), T("red circle"))   # the referee moves on while the seat holds its copy
    assert (0, 1) in m and (0, 1) not in c
    assert c.candidates(T("red square")) == [(-1, 0), (0, -1), (0, 1), (1, 0)]
    assert bookkeeping(c) == bookkeeping(qmap_of({(0, 0): "red star"}))
    c2 = m.copy()
    c2.place((1, 0), T("red square"))   # the seat edits its copy: the original is untouched
    assert (1, 0) not in m and bookkeeping(m) == bookkeeping(qmap_of({(0, 0): "red star", (0, 1): "red circle"}))
    c2.remove((1, 0))
    assert c2 == m


def test_a_dropped_copy_costs_no_copy() -> None:
    m = qmap_of({(0, 0): "red star"})
    tables = m._kinds
    m.copy()   # dropped at once (as a remote proxy drops what it encoded)
    m.place((0, 1), T("red circle"))
    assert m._kinds is tables


def test_a_copy_of_a_shared_copy_is_independent() -> None:
    m = qmap_of({(0, 0): "red star"})
    c = m.copy()
    cc = c.copy()
    m.place((0, 1), T("red circle"))
    assert (0, 1) not in c and (0, 1) not in cc
    cc.place((1, 0), T("red square"))
    assert (1, 0) not in c and (1, 0) not in m


def test_a_shared_copy_pickles_as_an_independent_map() -> None:
    import pickle

    m = qmap_of({(0, 0): "red star"})
    c = pickle.loads(pickle.dumps(m.copy()))
    c.place((0, 1), T("red circle"))
    assert c != m and (0, 1) not in m


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(coords_st, tiles_st, st.booleans()), max_size=25))
def test_copies_never_see_each_others_writes(moves: list) -> None:
    """Whichever side writes, each map ends as if it alone had made its moves."""
    m = qmap_of({(0, 0): "red star"})
    plain = {(0, 0): T("red star")}
    copies: list[tuple[QMap, dict]] = []
    for coord, tile, on_copy in moves:
        if on_copy and copies:
            target, cells = copies[-1]
        else:
            target, cells = m, plain
        if coord not in cells:
            target.place(coord, tile)
            cells[coord] = tile
        copies.append((m.copy(), dict(plain)))
    assert m.to_dict() == plain
    for copy, cells in copies:
        assert copy.to_dict() == cells


def test_reading_helpers() -> None:
    m = qmap_of({(2, 1): "red star", (0, 5): "blue circle"})
    assert m.sorted_items() == [((0, 5), T("blue circle")), ((2, 1), T("red star"))]
    assert sorted(m.items()) == sorted(m.sorted_items())
    assert m.bounds() == (0, 2, 1, 5) and QMap().bounds() is None
    assert m.to_dict() == dict(m.items()) and sorted(m) == [(0, 5), (2, 1)]
    assert m[(2, 1)] == T("red star") and m.get((9, 9)) is None
    assert "red star" in repr(m) or "Tile" in repr(m)


def test_combo_tables_agree_with_the_fit_rule() -> None:
    """Every pair of axis codes: the combined mask is the intersection of the axis masks,
    and every axis mask is line-ok on both neighbour tiles."""
    axis, combo_mask, naxis = qmap_module._AXIS, qmap_module._COMBO_MASK, qmap_module._NAXIS
    w = NKINDS + 1
    absent = qmap_module._AXIS_ALL
    tiles = [*ALL_KINDS, None]
    for a in range(w):
        for b in range(w):
            want = sum(1 << k for k, t in enumerate(ALL_KINDS)
                       if naive_line_ok(tiles[a], t, tiles[b]))
            assert combo_mask[axis[a * w + b] * naxis + absent] == want
            assert combo_mask[absent * naxis + axis[a * w + b]] == want
    for h in range(naxis):
        for v in range(naxis):
            assert combo_mask[h * naxis + v] == (combo_mask[h * naxis + absent]
                                                 & combo_mask[absent * naxis + v])


def _assert_index_matches(m: QMap) -> None:
    cells = m.to_dict()
    free = naive_free(cells)
    assert m.free_neighbours() == free
    for coord in free:
        assert m.constraint_count(coord) == naive_count(cells, coord)
    for t in ALL_KINDS:
        expected = naive_candidates(cells, t)
        assert m.candidates(t) == expected
        assert m.first_candidate(t) == (expected[0] if expected else None)
        if expected:
            top = max(naive_count(cells, c) for c in expected)
            assert m.best_candidate(t) == min(c for c in expected if naive_count(cells, c) == top)
        else:
            assert m.best_candidate(t) is None


@settings(max_examples=60)
@given(scattered_maps())
def test_bulk_built_index_matches_a_naive_computation(cells: dict) -> None:
    _assert_index_matches(QMap(cells))


@settings(max_examples=60)
@given(grown_maps(), st.lists(st.tuples(coords_st, tiles_st), max_size=12), st.data())
def test_incremental_index_matches_after_places_and_removes(cells: dict, moves: list,
                                                            data: st.DataObject) -> None:
    m = QMap(cells)
    if data.draw(st.booleans()):   # the ldasg layers exist before the moves: kept up to date
        m.best_candidate(ALL_KINDS[0])
    for coord, t in moves:
        if coord in m and data.draw(st.booleans()):
            m.remove(coord)
        elif coord not in m:
            m.place(coord, t)
    fresh = QMap(m.to_dict())
    assert bookkeeping(m) == bookkeeping(fresh)   # (fresh builds its layers from scratch)
    _assert_index_matches(m)
    assert fresh == m and fresh.free_neighbours() == m.free_neighbours()


@settings(max_examples=80)
@given(grown_maps(), tiles_st)
def test_every_candidate_fits_and_every_fitting_free_neighbour_is_a_candidate(cells: dict,
                                                                             t) -> None:
    m = QMap(cells)
    cands = m.candidates(t)
    assert cands == sorted(cands)
    for coord in cands:
        assert coord not in m and m.adjacent(coord) and m.fits(coord, t)
        assert naive_fits(cells, coord, t)
    for coord in m.free_neighbours() - set(cands):
        assert not m.fits(coord, t)


@settings(max_examples=60)
@given(grown_maps(), st.lists(st.tuples(coords_st, tiles_st), max_size=8))
def test_place_then_remove_in_reverse_restores_the_map(cells: dict, moves: list) -> None:
    m = QMap(cells)
    reference = m.copy()
    placed = []
    for coord, t in moves:
        if coord not in m:
            m.place(coord, t)
            placed.append(coord)
    for coord in reversed(placed):
        m.remove(coord)
    assert m == reference
    assert bookkeeping(m) == bookkeeping(reference)


@settings(max_examples=80)
@given(grown_maps(), st.lists(st.tuples(coords_st, tiles_st), max_size=6))
def test_an_extension_answers_like_the_map_with_the_tiles_placed(cells: dict, moves: list) -> None:
    """The strategies' overlay (Extension) agrees with placing the tiles for real, for every
    kind, dag and ldasg alike, after every added tile (adjacent or not)."""
    m = QMap(cells)
    before = m.copy()
    extended = Extension(m, len(moves))
    placed = QMap(cells)
    for coord, t in moves:
        if coord in placed:
            with pytest.raises(ValueError):
                extended.add(m.key_of(coord), KIND_INDEX[t])
            continue
        extended.add(m.key_of(coord), KIND_INDEX[t])
        placed.place(coord, t)
        for k in range(NKINDS):
            assert extended.first_candidate_of(k) == placed.first_candidate_of(k)
            assert extended.best_candidate_of(k) == placed.best_candidate_of(k)
    assert m == before and bookkeeping(m) == bookkeeping(before)


# Columns far from 0 (beyond the default key range, up to sizes no game reaches) re-key
# the map; it must keep answering like the naive model.
far_columns_st = st.sampled_from([0, 12_000, -12_300, 16_383, -16_384, 40_000, -(10 ** 9), 10 ** 12])


@settings(max_examples=60)
@given(grown_maps(max_tiles=12), far_columns_st, st.integers(-5, 5),
       st.lists(st.tuples(coords_st, tiles_st), max_size=10), st.data())
def test_maps_far_from_the_origin_match_a_naive_computation(cells: dict, shift: int, row: int,
                                                           moves: list, data: st.DataObject) -> None:
    """Integer keys: a map shifted to any column (and so re-keyed, at construction or when
    a placement leaves the key range) answers like the naive model, including for
    coordinates far outside it."""
    shifted = {(r + row, c + shift): t for (r, c), t in cells.items()}
    start = data.draw(st.sampled_from(["bulk", "placed"]))
    if start == "bulk":
        m = QMap(shifted)
    else:   # grow a map at the origin, then place the shifted tiles one by one
        m = QMap({(0, 0): ALL_KINDS[0]})
        for coord, t in shifted.items():
            if coord not in m:
                m.place(coord, t)
        if (0, 0) not in shifted:
            m.remove((0, 0))
        shifted = m.to_dict()
    for (r, c), t in moves:
        coord = (r + row, c + shift)
        if coord in m and data.draw(st.booleans()):
            m.remove(coord)
        elif coord not in m:
            m.place(coord, t)
    _assert_index_matches(m)
    assert QMap(m.to_dict()) == m
    cells_now = m.to_dict()
    for probe in [(0, 10 ** 15), (0, -(10 ** 15)), (row, shift + 20_000), (row, shift - 20_000)]:
        assert (probe in m) is (probe in cells_now)
        assert m.get(probe) == cells_now.get(probe)
        assert m.constraint_count(probe) == naive_count(cells_now, probe)
        assert m.adjacent(probe) is (naive_count(cells_now, probe) > 0)
        for t in ALL_KINDS[:3]:
            assert m.fits(probe, t) is naive_fits(cells_now, probe, t)


@settings(max_examples=40)
@given(st.integers(-3, 3), st.sampled_from([0, 9_000, -9_000, 10 ** 6]), st.integers(1, 9000))
def test_a_long_extension_re_keys_the_map_first(row: int, column: int, reach: int) -> None:
    """An extension by more tiles than the key range's margin: the map is re-keyed before
    the extension starts, so a long row of added tiles never wraps onto another row."""
    m = QMap({(row, column): ALL_KINDS[0]})
    extended = Extension(m, reach)
    assert m.width >> 3 >= reach + 2 and m.to_dict() == {(row, column): ALL_KINDS[0]}
    key = m.key_of((row, column))
    for i in range(1, min(reach, 50) + 1):
        extended.add(key + i, 0)
    right = m.key_of((row, column + min(reach, 50) + 1))
    assert extended.first_key_of(0) == m.key_of((row - 1, column))
    assert m.coord_of(right) == (row, column + min(reach, 50) + 1)
