"""The pictures a person looks at (``--observe``, the web room, stored games): parsed as SVG,
they keep their captions inside the picture (wrapped, never cut at the right edge), fit the
board in a sensible box (Q's map no strip hundreds of pixels tall), keep Eriantys's text
above a grown island, show Evolution's bags and scores to spectators once the game is over
(and only then), and mark the shapes a web board makes clickable with the data attributes
each ``render.py`` documents."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import deque
from typing import Any

import pytest

from gameroom.core.pictures import CHAR_EM
from gameroom.core.record import STATE
from gameroom.core.context import MatchContext
from gameroom.games import registry
from gameroom.games.eriantys.render import render_svg as eriantys_svg
from gameroom.games.q.render import CELL, MIN_CELL, render_svg as q_svg
from gameroom.games.q.state import PlayerRecord, RefereeState
from tests.games.eriantys.helpers import in_action
from tests.games.q.helpers import T, qmap_of

SVG = "{http://www.w3.org/2000/svg}"


def view_box(root: ET.Element) -> tuple[float, float]:
    _x, _y, width, height = map(float, root.get("viewBox").split())
    return width, height


def caption_lines(root: ET.Element) -> list[tuple[float, float, str]]:
    """The caption's lines: (x, font size, text) of each ``tspan`` of ``text.caption``."""
    (caption,) = [t for t in root.iter(f"{SVG}text") if t.get("class") == "caption"]
    size = float(caption.get("font-size"))
    return [(float(span.get("x")), size, span.text or "") for span in caption.iter(f"{SVG}tspan")]


def assert_caption_inside(svg: str, caption: str) -> None:
    """The caption is drawn whole, each of its lines within the picture's width (the
    estimate the wrapping uses: a character at most ``CHAR_EM`` em on average)."""
    root = ET.fromstring(svg)
    width, _height = view_box(root)
    lines = caption_lines(root)
    assert " ".join(text for _x, _size, text in lines) == " ".join(caption.split())
    for x, size, text in lines:
        assert x + len(text) * size * CHAR_EM <= width, (text, width)
    assert root.find(f"{SVG}title").text == caption


# -- every game: a long caption wraps -------------------------------------------------------


def pictures_of(name: str, seed: int) -> list[tuple[Any, str]]:
    """The states of a seeded game of built-in players, with their captions."""
    game = registry.game(name)
    names = [f"P{i + 1}" for i in range(game.min_players)]
    states: list[tuple[Any, str]] = []

    def observe(event: Any) -> None:
        if event.kind == STATE and event.subject is not None:
            states.append((event.subject, str(event.get("caption") or "")))

    strategies = list(game.strategies)
    game.play(seed, game.seats([strategies[i % len(strategies)] for i in range(len(names))], seed, names),
              MatchContext(observers=[observe]))
    return states


@pytest.mark.parametrize("name", registry.names())
def test_a_long_caption_wraps_inside_every_games_picture(name: str) -> None:
    game = registry.game(name)
    states = pictures_of(name, 5)
    long = "Ada places 6 tiles: " + ", ".join(f"purple eight-star at (-{i},{i * 3})" for i in range(6))
    for state, _caption in (states[0], states[len(states) // 2], states[-1]):
        shown = game.views.picture_state(state, None)
        if shown is None:
            continue
        svg = game.render(shown, long)
        assert_caption_inside(svg, long)
        assert len(caption_lines(ET.fromstring(svg))) > 1   # wrapped, not one long line


# -- Q: the map fits its bounding box ---------------------------------------------------------


def q_state(cells: dict[tuple[int, int], str]) -> RefereeState:
    hand = [T("red star"), T("blue circle"), T("green square")]
    return RefereeState(qmap_of(cells), [PlayerRecord("Ada", 3, list(hand)), PlayerRecord("Bo", 0, list(hand))],
                        deque([T("yellow clover")] * 20))


def q_grid(root: ET.Element) -> tuple[float, float]:
    (grid,) = [g for g in root.iter(f"{SVG}g") if g.get("class") == "grid"]
    rect = grid.find(f"{SVG}rect")
    return float(rect.get("width")), float(rect.get("height"))


@pytest.mark.parametrize("rows, cols", [(60, 1), (1, 60), (3, 3), (25, 25)])
def test_q_fits_its_map_in_a_sensible_box(rows: int, cols: int) -> None:
    colors = ["red", "blue", "green", "yellow", "orange", "purple"]
    cells = {(r, c): f"{colors[(r + c) % 6]} star" for r in range(rows) for c in range(cols)}
    root = ET.fromstring(q_svg(q_state(cells), "Ada places 2 tiles"))
    width, height = view_box(root)
    grid_w, grid_h = q_grid(root)
    cell = grid_w / (cols + 2)
    assert grid_h / (rows + 2) == cell   # square cells over the bounding box and its free ring
    if max(rows, cols) <= 10:
        assert cell == CELL   # a small map keeps its full-size tiles
    else:
        assert MIN_CELL <= cell < CELL   # a long one shrinks instead of stretching the picture
    assert grid_h <= 62 * MIN_CELL and grid_w <= 62 * MIN_CELL
    # a tall line no longer makes a strip: the picture stays about a laptop screen high
    assert height <= 1000 and width <= 1400, (width, height)
    # every tile of the map is there, at its cell
    tiles = {g.get("data-cell") for g in root.iter(f"{SVG}g") if g.get("class") == "tile" and g.get("data-cell")}
    assert tiles == {f"{r},{c}" for r, c in cells}


def test_q_marks_its_cells_hands_and_last_placements() -> None:
    state = q_state({(0, 0): "red star", (0, 1): "red circle"})
    root = ET.fromstring(q_svg(state, "Ada places 1 tile: red circle at (0,1)", placed=[(0, 1)]))
    free = {r.get("data-cell") for r in root.iter(f"{SVG}rect") if r.get("class") == "free-cell"}
    assert free == {"-1,0", "-1,1", "1,0", "1,1", "0,-1", "0,2"}
    players = [g for g in root.iter(f"{SVG}g") if g.get("class") == "player"]
    assert [p.get("data-player") for p in players] == ["Ada", "Bo"]
    assert [g.get("data-hand") for g in players[0].iter(f"{SVG}g") if g.get("class") == "tile"] == ["0", "1", "2"]
    (placed,) = [g for g in root.iter(f"{SVG}g") if g.get("class") == "placed"]
    assert [r.get("data-cell") for r in placed.iter(f"{SVG}rect")] == ["0,1"]
    (pile,) = [g for g in root.iter(f"{SVG}g") if g.get("class") == "pile"]
    assert pile.get("data-count") == "20"


def test_qs_spectator_sees_hands_as_backs() -> None:
    game = registry.game("q")
    state = q_state({(0, 0): "red star"})
    root = ET.fromstring(game.render(game.views.picture_state(state, None), "Bo's turn"))
    assert not [g for g in root.iter(f"{SVG}g") if g.get("data-hand") is not None]
    assert len([r for r in root.iter(f"{SVG}rect") if r.get("class") == "tile-back"]) == 6


# -- Eriantys: the text stays above the ring ------------------------------------------------------


def _circle_top(island: ET.Element) -> float:
    circle = island.find(f"{SVG}circle")
    return float(circle.get("cy")) - float(circle.get("r"))


@pytest.mark.parametrize("towers", [1, 4, 6])
def test_eriantys_planning_order_is_never_under_a_grown_island(towers: int) -> None:
    table = in_action(3, True, cards=[5, 0, 8])

    def grow(s: Any) -> None:   # island 0, at the top of the ring, holds a team's towers
        s.islands[0].towers, s.islands[0].team = towers, 0
        s.supply[0] -= towers
    table.arrange(grow)
    caption = "ann plays assistant 7; " + "; ".join(f"ben takes the red professor {i}" for i in range(8))
    svg = eriantys_svg(table.snap, caption)
    assert_caption_inside(svg, caption)
    root = ET.fromstring(svg)
    texts = [t for t in root.iter(f"{SVG}text") if "".join(t.itertext()).startswith("planning order:")]
    (order,) = texts
    baseline = float(order.get("y"))
    islands = [g for g in root.iter(f"{SVG}g") if g.get("class") == "island"]
    assert [g.get("data-island") for g in islands] == [str(i) for i in range(len(islands))]
    assert min(_circle_top(g) for g in islands) > baseline   # every island, the grown one first, below the text
    captions = [t for t in root.iter(f"{SVG}text") if t.get("class") == "caption"]
    assert captions and all(float(t.get("y")) < baseline for t in captions)


def test_eriantys_marks_islands_clouds_schools_students_and_cards() -> None:
    table = in_action(3, True, cards=[5, 0, 8])
    snap = table.snap
    root = ET.fromstring(eriantys_svg(snap, "cyd's turn"))
    groups = list(root.iter(f"{SVG}g"))
    assert [g.get("data-cloud") for g in groups if g.get("class") == "cloud"] == ["0", "1", "2"]
    assert [g.get("data-seat") for g in groups if g.get("class") == "school"] == ["0", "1", "2"]
    assert sorted(g.get("data-card") for g in groups if g.get("class") == "character") == ["0", "5", "8"]
    (mother,) = [p for p in root.iter(f"{SVG}polygon") if p.get("class") == "mother-nature"]
    assert mother.get("data-island") == str(snap["motherNature"])
    for seat, player in enumerate(snap["players"]):
        (entrance,) = [g for g in groups if g.get("class") == "entrance" and g.get("data-seat") == str(seat)]
        shown = [c.get("data-student") for c in entrance.iter(f"{SVG}circle")]
        assert sorted(shown) == sorted(c for c, k in player["entrance"].items() for _ in range(k))
        dining = [g.get("data-color") for g in groups if g.get("class") == "dining" and g.get("data-seat") == str(seat)]
        assert dining == ["GREEN", "RED", "YELLOW", "PINK", "BLUE"]


# -- Evolution: the bags are public at the end, and its shapes marked ------------------------------


def test_evolution_spectators_see_bags_and_scores_once_the_game_is_over() -> None:
    game = registry.game("evolution")
    states = pictures_of("evolution", 3)
    mid, (last, caption) = states[len(states) // 2][0], states[-1]
    assert caption.startswith("game over")
    during = " ".join("".join(t.itertext()) for t in ET.fromstring(
        game.render(game.views.picture_state(mid, None), "1#2 feeds species 0")).iter(f"{SVG}text"))
    assert "bag ?" in during and "score ?" in during   # secret while the game goes on
    root = ET.fromstring(game.render(game.views.picture_state(last, None), caption))
    texts = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    assert "?" not in texts
    spectator = game.views.spectator(last)
    for player in last.players:
        assert f"bag {player.bag}" in texts
        assert spectator["scores"][str(player.id).rsplit("#", 1)[0]]["bag"] == player.bag   # by name
    assert "scores" not in game.views.spectator(mid)


def test_evolution_marks_players_species_cards_and_the_watering_hole() -> None:
    game = registry.game("evolution")
    state = next(s for s, caption in pictures_of("evolution", 3) if " feeds species " in caption)
    me = state.players[0]
    root = ET.fromstring(game.render(game.views.picture_state(state, str(me.id)), "a person's own view"))
    players = [g for g in root.iter(f"{SVG}g") if g.get("class") == "player"]
    assert [g.get("data-player") for g in players] == [str(p.id) for p in state.players]
    for row, player in zip(players, state.players):
        species = [g.get("data-species") for g in row.iter(f"{SVG}g") if g.get("class") == "species"]
        assert species == [str(i) for i in range(len(player.boards))]
    cards = [g for g in players[0].iter(f"{SVG}g") if g.get("class") == "card"]
    assert [g.get("data-card") for g in cards] == [str(i) for i in range(len(me.cards))]
    assert all(g.get("data-trait") and re.fullmatch(r"-?\d+", g.get("data-food")) for g in cards)
    (hole,) = [g for g in root.iter(f"{SVG}g") if g.get("class") == "watering-hole"]
    assert hole.get("data-food") == str(state.hole)

