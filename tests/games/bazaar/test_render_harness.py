"""The SVG picture and the harness entry points' input handling."""

from __future__ import annotations

import random
import xml.dom.minidom

import pytest

from gameroom.core.wire import WireError
from gameroom.games.bazaar.harness import HARNESSES
from gameroom.games.bazaar.render import render_svg
from gameroom.games.bazaar.rules import kick
from gameroom.games.bazaar.state import scratch_state


def test_render_svg_is_a_well_formed_picture_of_the_state() -> None:
    state = scratch_state(random.Random(7), ["Ann", "B<o>b"])
    svg = render_svg(state, caption="turn 1 & more")
    doc = xml.dom.minidom.parseString(svg)
    assert doc.documentElement.tagName == "svg"
    assert "turn 1 &amp; more" in svg and "B&lt;o&gt;b" in svg
    titles = [t.firstChild.data for t in doc.getElementsByTagName("title")]
    eq_pebbles = sum(len(e.left) + len(e.right) for e in state.equations)
    # the picture's own title, then each equation, pebble, bank colour and card with its pebbles
    assert titles[0] == "turn 1 & more"
    assert len(titles) == 1 + len(state.equations) + eq_pebbles + 5 + len(state.visibles) * 6
    assert "× 20" in svg and "hidden 16" in svg
    groups = doc.getElementsByTagName("g")
    assert [g.getAttribute("data-equation") for g in groups if g.getAttribute("class") == "equation"] == [
        str(i) for i in range(len(state.equations))]
    assert [g.getAttribute("data-card") for g in groups if g.getAttribute("class") == "card"] == [
        str(i) for i in range(len(state.visibles))]
    assert [g.getAttribute("data-player") for g in groups if g.getAttribute("class") == "player"] == ["Ann", "B<o>b"]


def test_render_svg_without_players_or_cards() -> None:
    state = kick(kick(scratch_state(random.Random(1), ["a", "b"])))
    svg = render_svg(state, equations=())
    xml.dom.minidom.parseString(svg)
    assert "no players remain" in svg and "(none)" in svg


def test_harness_table() -> None:
    assert set(HARNESSES) == {"xeq", "xturn", "xstrategy", "xrules", "xgames", "xgames-blogic", "xgames-resources"}


@pytest.mark.parametrize("name, inputs, where", [
    ("xeq", [[], []], "$"),
    ("xeq", [[], ["red"], ["pink"]], "$[2][0]"),
    ("xturn", [{"bank": [], "visibles": [], "cards": [], "players": []}], "$[0].players"),
    ("xstrategy", [[], {"bank": [], "cards": [], "active": {"score": 0, "wallet": []}, "scores": []},
                   "purchase-everything"], "$[2]"),
    ("xrules", [[], [[["red"]]], {}], "$[1][0]"),
])
def test_bad_harness_input_raises_wire_errors(name: str, inputs: list, where: str) -> None:
    with pytest.raises(WireError) as info:
        HARNESSES[name](inputs)
    assert info.value.where == where


def test_xrules_empty_exchanges_return_the_unchanged_wallet_and_bank() -> None:
    turn = {"bank": ["red", "blue"], "cards": [], "active": {"score": 0, "wallet": ["white"]}, "scores": []}
    assert HARNESSES["xrules"]([[], [], turn]) == [["white"], ["red", "blue"]]
