"""SVG pictures of states: well-formed, one hexagon per tile, one disc per penguin, scores."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from hypothesis import given, settings

from gameroom.games.fish.render import TILE, render_svg
from gameroom.games.fish.state import GameState
from tests.games.fish.helpers import example_state, states

NS = "{http://www.w3.org/2000/svg}"


def test_example_picture() -> None:
    svg = render_svg(example_state(), caption="turn 3 <white> & co")
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    tiles = root.findall(f".//{NS}polygon[@class='tile']")
    assert len(tiles) == 14  # 16 spots, 2 holes
    keys = [g.get("data-key") for g in root.findall(f"{NS}g[@data-key]")]
    assert len(keys) == 14 and all(k.startswith("tile:") for k in keys)   # the web board's targets
    penguins = root.findall(f".//{NS}g[@class='penguin']/{NS}circle")
    assert sorted(p.get("fill") for p in penguins) == sorted(["#ffffff"] * 2 + ["#d62828"] * 2)
    texts = ["".join(t.itertext()) for t in root.iter(f"{NS}text")]
    assert "turn 3 <white> & co" in texts
    assert "white: 3" in texts and "red: 5" in texts
    assert "http" not in svg.replace("http://www.w3.org/2000/svg", "")  # self-contained


def test_tiles_are_laid_out_as_the_spec_says() -> None:
    root = ET.fromstring(render_svg(example_state()))
    first = root.findall(f".//{NS}polygon[@class='tile']")[0]
    points = [tuple(map(float, p.split(","))) for p in first.get("points", "").split()]
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    assert max(xs) - min(xs) == 3 * TILE and max(ys) - min(ys) == 2 * TILE  # 3s wide, 2s high


@settings(max_examples=50)
@given(states())
def test_every_state_renders(state: GameState) -> None:
    root = ET.fromstring(render_svg(state))
    tiles = root.findall(f".//{NS}polygon[@class='tile']")
    assert len(tiles) == len(state.board.tiles())
    penguins = root.findall(f".//{NS}g[@class='penguin']")
    assert len(penguins) == len(state.penguins())
    # the board's shapes say where they are, for a page that makes them clickable
    assert {p.get("data-penguin") for p in penguins} == {f"{r},{c}" for r, c in state.penguins()}
    assert {t.get("data-cell") for t in tiles} == {f"{r},{c}" for r, c in state.board.tiles()}
    # the web room's board clicks on each tile's group, keyed by the same position
    assert {g.get("data-key") for g in root.findall(f"{NS}g[@data-key]")} == {
        f"tile:{r},{c}" for r, c in state.board.tiles()}
    assert len(root.findall(f"{NS}text[@class='score']")) == len(state.players)
