"""The wire format (6.1-6.5): exact key sets, errors with paths, canonical maps,
round trips."""

from __future__ import annotations

import json
from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameroom.core.wire import WireError
from gameroom.games.q import codec
from gameroom.games.q.actions import PASS, REPLACE, Placement
from gameroom.games.q.qmap import QMap
from gameroom.games.q.state import PlayerRecord, PublicState, RefereeState
from tests.games.q.helpers import T, bookkeeping, qmap_of, scattered_maps, tiles_st

RED_STAR = {"color": "red", "shape": "star"}


def error(fn, *args, **kwargs) -> WireError:
    with pytest.raises(WireError) as info:
        fn(*args, **kwargs)
    return info.value


def test_tiles_and_coordinates() -> None:
    assert codec.encode_tile(T("blue 8star")) == {"color": "blue", "shape": "8star"}
    assert codec.decode_tile({"shape": "8star", "color": "blue"}) == T("blue 8star")
    assert codec.decode_coord({"row": -1, "column": 2.0}) == (-1, 2)
    assert codec.encode_coord((-1, 2)) == {"row": -1, "column": 2}
    e = error(codec.decode_tile, {"color": "pink", "shape": "star"}, "$.x")
    assert e.where == "$.x.color" and "pink" in str(e)
    e = error(codec.decode_tile, {"color": "red", "shape": "star", "size": 1})
    assert "unexpected key(s) size" in str(e)
    assert "missing key(s) shape" in str(error(codec.decode_tile, {"color": "red"}))
    assert error(codec.decode_tile, {"color": ["red"], "shape": "star"}).where == "$.color"
    assert error(codec.decode_coord, {"row": 1.5, "column": 0}).where == "$.row"
    assert error(codec.decode_coord, {"row": True, "column": 0}).where == "$.row"


def test_placements_and_choices() -> None:
    one = {"coordinate": {"row": 0, "column": 1}, "1tile": {"color": "red", "shape": "square"}}
    p = Placement((0, 1), T("red square"))
    assert codec.decode_placement(one) == p and codec.encode_placement(p) == one
    assert codec.decode_placements([one, one]) == (p, p)
    assert "non-empty" in str(error(codec.decode_placements, []))  # spec 11 #3
    bad = dict(one)
    bad["oord"] = bad.pop("coordinate")
    assert error(codec.decode_placements, [one, bad]).where == "$[1]"
    assert codec.decode_choice("pass") is PASS
    assert codec.decode_choice("replace") is REPLACE
    assert codec.decode_choice([one]) == (p,)
    assert codec.encode_choice(PASS) == "pass" and codec.encode_choice(REPLACE) == "replace"
    assert codec.encode_choice((p,)) == [one] and codec.encode_choice(p) == one
    for junk in ("Pass", 3, None, {}, []):
        with pytest.raises(WireError):
            codec.decode_choice(junk)


def test_maps_are_produced_in_canonical_order() -> None:
    m = qmap_of({(1, 0): "red circle", (0, 0): "red star", (1, -1): "blue star"})
    assert codec.encode_map(m) == [
        [0, [0, RED_STAR]],
        [1, [-1, {"color": "blue", "shape": "star"}], [0, {"color": "red", "shape": "circle"}]]]
    assert codec.encode_map(QMap()) == []


def test_map_acceptance_rules() -> None:
    star = RED_STAR
    # rows in any order, repeated rows merge (the later cell wins)
    m = codec.decode_map([[1, [0, star]], [0, [0, star]], [1, [1, star], [0, {
        "color": "blue", "shape": "star"}]]])
    assert m.to_dict() == {(0, 0): T("red star"), (1, 0): T("blue star"), (1, 1): T("red star")}
    assert len(codec.decode_map([])) == 0
    assert len(codec.decode_map([[0, [0, star]], [2, [0, star]]])) == 2  # no odd row check
    assert "at least one cell" in str(error(codec.decode_map, [[0]]))
    e = error(codec.decode_map, [[0, [1, star], [1, star]]])
    assert e.where == "$[0][2]" and "twice" in str(e)
    assert error(codec.decode_map, [[0, [1, star, 3]]]).where == "$[0][1]"
    assert error(codec.decode_map, [[0, [1, {"color": "red"}]]]).where == "$[0][1][1]"
    assert error(codec.decode_map, [["0", [1, star]]]).where == "$[0][0]"
    assert error(codec.decode_map, {"0": []}).where == "$"


@settings(max_examples=100)
@given(scattered_maps())
def test_plain_maps_and_checked_maps_decode_alike(cells) -> None:
    """A map in its plain form takes decode_map's quick path; written with integral floats
    (1.0, accepted by 11 #19) it takes the checking path. Both give the same map with the
    same bookkeeping as building it from its cells."""
    j = codec.encode_map(QMap(cells))
    floated = [[float(row[0]), *[[float(c), t] for c, t in row[1:]]] for row in j]
    plain, checked, built = codec.decode_map(j), codec.decode_map(floated), QMap(cells)
    assert plain == checked == built
    assert bookkeeping(plain) == bookkeeping(checked) == bookkeeping(built)


@settings(max_examples=100)
@given(scattered_maps())
def test_map_json_round_trip(cells) -> None:
    m = QMap(cells)
    j = codec.encode_map(m)
    assert codec.decode_map(json.loads(json.dumps(j))) == m
    assert codec.encode_map(codec.decode_map(j)) == j
    rows = [row[0] for row in j]
    assert rows == sorted(set(rows))
    for row in j:
        cols = [cell[0] for cell in row[1:]]
        assert cols == sorted(set(cols))


def test_player_records() -> None:
    rec = PlayerRecord("A", 3, [T("green star")])
    j = {"name": "A", "score": 3, "tile*": [{"color": "green", "shape": "star"}]}
    assert codec.encode_player(rec) == j and codec.decode_player(j) == rec
    nameless = {"score": 3, "tile*": []}
    assert codec.decode_player(nameless, require_name=False) == PlayerRecord(None, 3, [])
    assert "missing key(s) name" in str(error(codec.decode_player, nameless))
    assert codec.encode_player(PlayerRecord(None, 3, [])) == nameless
    assert error(codec.decode_player, {**j, "name": "a b"}).where == "$.name"
    assert error(codec.decode_player, {**j, "score": -1}).where == "$.score"
    assert error(codec.decode_player, {**j, "score": 1_000_001}).where == "$.score"
    assert codec.decode_player({**j, "score": 9999999}, max_natural=None).score == 9999999
    e = error(codec.decode_player, {**j, "tile*": [RED_STAR, {"color": "red", "shape": 1}]})
    assert e.where == "$.tile*[1].shape"


SPEC_PUB = {"map": [[0, [0, {"color": "red", "shape": "star"}]],
                    [1, [-1, {"color": "blue", "shape": "star"}],
                     [0, {"color": "red", "shape": "circle"}]]],
            "players": [{"name": "A", "score": 3,
                         "tile*": [{"color": "green", "shape": "star"},
                                   {"color": "red", "shape": "square"}]}, 5],
            "tile*": 3}


def test_public_states() -> None:
    pub = codec.decode_pub(SPEC_PUB)
    assert (pub.name, pub.score, pub.hand, pub.other_scores, pub.pile_size) == (
        "A", 3, (T("green star"), T("red square")), (5,), 3)
    assert pub.qmap.get((1, -1)) == T("blue star")
    assert codec.encode_pub(pub) == SPEC_PUB
    nameless = json.loads(json.dumps(SPEC_PUB))
    del nameless["players"][0]["name"]
    assert codec.decode_pub(nameless, require_name=False).name is None
    assert codec.encode_pub(codec.decode_pub(nameless, require_name=False)) == nameless
    assert error(codec.decode_pub, nameless).where == "$.players[0]"
    assert error(codec.decode_pub, {**SPEC_PUB, "players": []}).where == "$.players"
    bad = {**SPEC_PUB, "players": [SPEC_PUB["players"][0], 5, "x"]}
    assert error(codec.decode_pub, bad).where == "$.players[2]"
    assert error(codec.decode_pub, {**SPEC_PUB, "tile*": 10**7}).where == "$.tile*"
    assert codec.decode_pub({**SPEC_PUB, "tile*": 10**7}, max_natural=None).pile_size == 10**7
    assert "unexpected key(s) extra" in str(error(codec.decode_pub, {**SPEC_PUB, "extra": 1}))


SPEC_STATE = {"map": [[0, [0, {"color": "yellow", "shape": "clover"}]]],
              "players": [{"name": "A", "score": 0,
                           "tile*": [{"color": "green", "shape": "clover"},
                                     {"color": "blue", "shape": "square"}]},
                          {"name": "B", "score": 0, "tile*": [{"color": "red", "shape": "star"}]}],
              "tile*": [{"color": "green", "shape": "circle"},
                        {"color": "purple", "shape": "diamond"}]}


def test_referee_states() -> None:
    s = codec.decode_state(SPEC_STATE)
    assert [p.name for p in s.players] == ["A", "B"]
    assert list(s.pile) == [T("green circle"), T("purple diamond")]
    assert codec.encode_state(s) == SPEC_STATE
    assert error(codec.decode_state, {**SPEC_STATE, "players": []}).where == "$.players"
    big = json.loads(json.dumps(SPEC_STATE))
    big["players"][0]["score"] = 9999999  # harness fixtures hold such scores
    assert codec.decode_state(big).players[0].score == 9999999
    assert error(codec.decode_state, big, max_natural=10).where == "$.players[0].score"
    e = error(codec.decode_state, {**SPEC_STATE, "tile*": [RED_STAR, "x"]}, "$.state0")
    assert e.where == "$.state0.tile*[1]"


@settings(max_examples=50)
@given(scattered_maps(), st.lists(st.tuples(st.integers(0, 50), st.lists(tiles_st, max_size=6)),
                                  min_size=1, max_size=4),
       st.lists(tiles_st, max_size=10))
def test_state_and_pub_round_trips(cells, records, pile) -> None:
    s = RefereeState(QMap(cells), [PlayerRecord(f"P{i}", sc, hand)
                                   for i, (sc, hand) in enumerate(records)], deque(pile))
    j = json.loads(json.dumps(codec.encode_state(s)))
    assert codec.decode_state(j) == s
    pub = s.public_for_active()
    assert codec.decode_pub(json.loads(json.dumps(codec.encode_pub(pub)))) == PublicState(
        pub.qmap, pub.name, pub.score, pub.hand, pub.other_scores, pub.pile_size)


def test_names_and_results() -> None:
    assert codec.valid_name("Alice7") and codec.valid_name("x" * 20)
    for bad in ("", "x" * 21, "ouch ouch", "λ", "a-b", 7, None):
        assert not codec.valid_name(bad)
    assert codec.decode_name("ouch ouch", lax=True) == "ouch ouch"
    assert codec.encode_result(["b", "B", "A", "a"], ["x", "c"]) == [["A", "B", "a", "b"],
                                                                     ["x", "c"]]
    assert codec.decode_result([["A"], ["infL2", "xnW"]]) == (["A"], ["infL2", "xnW"])
    assert error(codec.decode_result, [["A"], [1]]).where == "$[1][0]"
