"""The pages around the boards: every page has a viewport for phones and the room serves
its icon; a bot match of Evolution watched to its end on a phone (playwright driving
Debian's Chromium, no console error all along) shows the winners alone highlighted, the
results table readable line by line, the events numbered by nobody but the narrator, and
the replay's controls on one line; a spectator who opens a lobby room's link mid-game is
shown the game under way, not "waiting for players"."""

from __future__ import annotations

import random
import re
import urllib.request
from typing import Any

import pytest

from tests.lobby.rooms import LobbyProcess, play_person
from tests.web.conftest import WebServer, screenshot
from tests.web.test_boards import page_of

PAGES = ["/", "/signup", "/login", "/results", "/results/ratings/q", "/rooms/new?game=q&players=2"]


def raw(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as reply:
            return reply.status, reply.headers.get("content-type", ""), reply.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("content-type", ""), exc.read().decode("utf-8", "replace")


def test_every_page_has_a_viewport_and_the_room_its_icon(web_server: WebServer) -> None:
    status, match = web_server.request("POST", "/api/matches", {"game": "fish", "seats": ["greedy", "greedy"]})
    assert status == 201, match
    for path in [*PAGES, f"/matches/{match['id']}"]:
        status, kind, text = raw(web_server.url + path)
        assert status == 200 and kind.startswith("text/html"), (path, status, text[:200])
        assert re.search(r'<meta name="viewport" content="width=device-width, initial-scale=1">', text), path
        assert '<link rel="icon" href="/favicon.ico"' in text, path
    status, kind, text = raw(web_server.url + "/favicon.ico")
    assert status == 200 and kind.startswith("image/svg+xml") and text.startswith("<svg"), (status, kind)


def console_errors(page: Any) -> list[str]:
    """Every error the page's console reports from now on (a resource that failed to load
    — the icon's 404 was one — and the scripts' own)."""
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    return errors


def test_an_evolution_match_watched_to_its_end_on_a_phone(web_server: WebServer, browser: Any) -> None:
    context, page, errors = page_of(browser, "phone")
    console = console_errors(page)
    try:
        status, answer = web_server.request("POST", "/api/matches", {"game": "evolution",
                                                                     "seats": ["silly", "silly", "silly"], "seed": 3,
                                                                     "pace": 0.05})
        assert status == 201, answer
        page.goto(f"{web_server.url}/matches/{answer['id']}")
        page.wait_for_selector("#winners:has-text('winners:')", timeout=300_000)
        result = web_server.wait_over(answer["id"])["result"]
        # the winners alone are highlighted; nobody is left "to play"
        assert page.locator("#seats tr.to-play").count() == 0
        highlighted = sorted(page.eval_on_selector_all("#seats tr.winner", "rows => rows.map(r => r.dataset.seat)"))
        assert highlighted == sorted(result["winners"]) and page.inner_text("#turn") == "game over"
        # the results: a row per seat with its score, and the narrator's table line by line
        scores = page.locator("#scores tr").all_inner_texts()
        assert len(scores) == 3 and all(re.fullmatch(r"\S+.*\t\d+", row) for row in scores), scores
        table = page.locator("#events li.block").last
        assert table.inner_text().splitlines()[0] == "results"
        assert len(table.inner_text().splitlines()) == 5 and table.bounding_box()["height"] > 4 * 12
        # the story is numbered by its narrator only: the list draws no numbers
        assert page.eval_on_selector("#events", "e => getComputedStyle(e).listStyleType") == "none"
        # the replay's controls in one line inside a phone's width (its step above them)
        page.wait_for_selector("#replay:not(.hidden)")
        tops = page.eval_on_selector_all("#replay button, #replay input", """ns => ns.map(n => {
            const r = n.getBoundingClientRect(); return Math.round(r.top + r.height / 2); })""")
        rights = page.eval_on_selector_all("#replay button, #replay input, #stepinfo",
                                           "ns => ns.map(n => n.getBoundingClientRect().right)")
        assert max(tops) - min(tops) <= 12 and max(rights) <= 390, (tops, rights)
        assert page.eval_on_selector("#scrub", "n => n.getBoundingClientRect().width") >= 44
        screenshot(page, "evolution-over-phone")
        page.click("#first")
        assert page.inner_text("#stepinfo").startswith("step 1 of")
        # the page's own text is 12 px at least (the picture's is its render code's)
        small = page.evaluate("""() => [...document.querySelectorAll('body *:not(svg):not(svg *)')]
            .filter((e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()) && e.getClientRects().length)
            .map((e) => [e.tagName + '#' + e.id, parseFloat(getComputedStyle(e).fontSize)])
            .filter(([, size]) => size < 12)""")
        assert not small, small
    finally:
        context.close()
    assert not errors and not console, (errors, console)


@pytest.mark.parametrize("size", ["phone"])
def test_a_spectator_joining_a_lobby_room_mid_game_sees_it_under_way(lobby: LobbyProcess, web: WebServer,
                                                                     browser: Any, size: str) -> None:
    maker = lobby.connect("midmaker")
    context, page, errors = page_of(browser, size)
    console = console_errors(page)
    try:
        room = maker.request({"type": "CREATE_ROOM", "game": "fish", "numberOfPlayers": 2, "rows": 3,
                              "columns": 4, "person": True}, "ROOM_ID")["id"]
        assert maker.request({"type": "ADD_BOT", "strategy": "greedy"}, "ACK") == {"type": "ACK"}
        decided = 0
        while decided < 2:   # two placements, then the spectator comes
            m = maker.recv()
            if m["type"] == "CALL" and not m.get("oneWay"):
                maker.send({"type": "REPLY", "call": m["call"], "result": m["moves"][0]["action"]})
                decided += 1
        page.goto(f"{web.url}/rooms/{room}?watch=1")
        page.wait_for_selector("#picture svg")
        page.wait_for_function("() => document.querySelector('#status').dataset.status === 'playing'")
        assert "waiting" not in page.inner_text("#status") and "watching" in page.inner_text("#turn")
        assert page.locator("#seats tr").all_inner_texts()[0].startswith("P1\tmidmaker")
        outcome = play_person(maker, random.Random(4))
        assert outcome["end"]["type"] == "END_GAME"
        page.wait_for_selector("#winners:has-text('winners:')")
        assert page.locator("#seats tr.to-play").count() == 0
        winners = outcome["end"]["winners"]
        assert sorted(page.eval_on_selector_all("#seats tr.winner", "rows => rows.map(r => r.dataset.seat)")) == \
            sorted(winners)
    finally:
        maker.close()
        context.close()
    assert not errors and not console, (errors, console)
