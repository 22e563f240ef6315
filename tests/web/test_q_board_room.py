"""Q's board never draws over the picture's panels (playwright driving Debian's Chromium):
the board module is given a seat's picture of a map in one row and a check that finds every
placement legal, and a person places tiles in a line to the right, past the drawn map's
edge; the players' panel moves aside (and the picture grows), so no tile placed this turn
overlaps the panel, at a laptop's and a phone's size. Undoing them puts the panel back."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from gameroom.games import registry
from gameroom.games.q.qmap import QMap
from gameroom.games.q.state import new_game
from tests.web.conftest import WebServer, screenshot
from tests.web.test_boards import SIZES, page_of

PAGE = """<div id="board"><div id="picture">%s</div></div>
<div id="controls"><span id="hint"></span><span id="buttons"></span></div>"""

PLAY = """async (view) => {
    const board = await import('/boards/q.js');
    const { boardControls } = await import('/static/picture.js');
    const picture = document.getElementById('picture');
    const one = (r, c, tile) => [{coordinate: {row: r, column: c}, '1tile': tile}];
    const hand = view.players[0]['tile*'];
    window.sent = null;
    board.play({picture, svg: picture.querySelector('svg'), seat: 'P1', view,
                prompt: {method: 'take-turn', choices: hand.map((t) => ({label: 'a tile', action: one(0, 3, t)}))},
                choose() {}, send(action) { window.sent = action; },
                check: async (actions) => actions.map(() => null),   // every placement legal
                ...boardControls()});
}"""

OVERLAPS = """() => {
    const inside = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    const placed = [...document.querySelectorAll('#picture g.map .tentative')].map((n) => n.getBoundingClientRect());
    const panel = [...document.querySelectorAll('#picture g.player, #picture g.pile')].map((n) => n.getBoundingClientRect());
    return {placed: placed.length, overlaps: placed.filter((p) => panel.some((q) => inside(p, q))).length,
            moved: document.querySelector('#picture g.player').getAttribute('transform')};
}"""


@pytest.mark.parametrize("size", list(SIZES))
def test_tiles_placed_beyond_the_map_push_the_players_panel_aside(web_server: WebServer, browser: Any,
                                                                   size: str) -> None:
    game = registry.game("q")
    state = new_game(["P1", "P2"], random.Random(1))
    state.qmap = QMap({(0, c): state.pile[c] for c in range(3)})   # a row of three tiles: the map is small
    svg = game.picture(state, "P1", "")
    view = game.views.seat(state, "P1")
    context, page, errors = page_of(browser, size)
    try:
        page.goto(web_server.url + "/static/style.css")   # the room's origin: the modules load from it
        page.set_content("<!doctype html><html><body>" + PAGE % svg + "</body></html>")
        page.evaluate(PLAY, json.loads(json.dumps(view)))
        for column in range(3, 9):   # six tiles to the right: the drawn map ends at column 3
            page.locator("#picture [data-key^='hand:P1:']:not(.chosen)").first.dispatch_event("click")
            page.locator(f"#picture [data-key='cell:0,{column}']").dispatch_event("click")
            page.wait_for_function(f"() => document.querySelectorAll('#picture g.map g.tentative').length "
                                   f">= {column - 2}")
        seen = page.evaluate(OVERLAPS)
        assert seen["placed"] >= 6 and seen["overlaps"] == 0 and seen["moved"], seen
        screenshot(page, f"q-beyond-the-map-{size}")
        while page.locator("#buttons button[aria-label='undo']").count():
            page.click("#buttons button[aria-label='undo']")
        assert page.evaluate(OVERLAPS) == {"placed": 0, "overlaps": 0, "moved": None}
    finally:
        context.close()
    assert not errors, errors
