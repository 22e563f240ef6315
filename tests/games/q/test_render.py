"""SVG pictures of states: well-formed, self-contained, showing what a viewer needs."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from collections import deque

from gameroom.games.q.qmap import QMap
from gameroom.games.q.render import render_svg, render_tile_svg, tile_svg
from gameroom.games.q.state import PlayerRecord, RefereeState, new_game
from gameroom.games.q.strategies import dag, iterate
from gameroom.games.q.pieces import ALL_KINDS
from tests.games.q.helpers import T, qmap_of

SVG = "{http://www.w3.org/2000/svg}"


def played(turns: int = 12) -> RefereeState:
    s = new_game(["Alice", "Bob", "C"], random.Random(3))
    for _ in range(turns):
        action = iterate(dag, s.public_for_active())
        if isinstance(action, tuple):
            for coord, t in action:
                s.qmap.place(coord, t)
                s.active.hand.remove(t)
        s.rotate()
    return s


def test_render_is_well_formed_and_shows_players_pile_and_caption() -> None:
    s = played()
    svg = render_svg(s, caption="turn 12 <A & B>")
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    texts = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    assert "turn 12 <A & B>" in texts
    for p in s.players:
        assert f"{p.name}: {p.score}" in texts
    assert f"Pile: {len(s.pile)} tile(s)" in texts
    tiles = [g for g in root.iter(f"{SVG}g") if g.get("class") == "tile"]
    shown_pile = min(len(s.pile), 12)
    assert len(tiles) == len(s.qmap) + sum(len(p.hand) for p in s.players) + shown_pile
    titles = {t.text for t in root.iter(f"{SVG}title")}
    assert {str(t) for _, t in s.qmap.items()} <= titles


def test_every_kind_draws_distinctly() -> None:
    drawings = set()
    for t in ALL_KINDS:
        svg = render_tile_svg(t)
        ET.fromstring(svg)
        drawings.add(svg)
    assert len(drawings) == 36
    shapes = [tile_svg(T(f"red {s}"), 0, 0) for s in
              ("star", "8star", "square", "circle", "clover", "diamond")]
    assert shapes[2].count("<rect") == 2  # the tile's background and the square
    assert "<circle" in shapes[3] and shapes[4].count("<circle") == 5
    assert len({s.replace("red", "") for s in shapes}) == 6


def test_empty_and_nameless_states_render() -> None:
    for s in (RefereeState(QMap(), []),
              RefereeState(qmap_of({(0, 0): "red star"}), [PlayerRecord(None, 0, [])],
                           deque([T("blue circle")] * 30))):
        ET.fromstring(render_svg(s))
