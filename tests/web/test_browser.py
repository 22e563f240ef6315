"""The web room in a real browser (playwright driving Debian's Chromium), one server and
one browser for the module, tests in order: the lobby lists every game; a bot match of
every game is started from the lobby's form and watched to its end with the winners
shown; a person signs up on the sign-up page, then plays a whole game of Q, Eriantys,
Bazaar and Evolution from the list of legal actions, the keyboard's fallback under the board
(one illegal action refused with a message on the way; moves on the board itself are
``test_boards.py``'s);
a finished match's replay is scrubbed to its first and last step. Screenshots of each
game's page go to ``artifacts/screenshots``."""

from __future__ import annotations

import re
from typing import Any

import pytest

from gameroom.games import registry
from tests.web.conftest import WebServer, screenshot, sign_up


def test_the_lobby_lists_every_game(web_server: WebServer, page: Any) -> None:
    page.goto(web_server.url + "/")
    for name in registry.names():
        page.wait_for_selector(f"#games tr[data-game='{name}']")
    assert page.locator("#game option").all_inner_texts() == registry.names()
    screenshot(page, "lobby")


def start_from_lobby(page: Any, url: str, game: str, seats: list[str], person_limit: float | None = None,
                     pace: float = 0.05) -> None:
    page.goto(url + "/")
    page.wait_for_selector(f"#games tr[data-game='{game}']")
    page.select_option("#game", game)
    page.fill("#count", str(len(seats)))
    page.dispatch_event("#count", "change")
    for i, kind in enumerate(seats):
        page.select_option(f"#seats select[data-seat='{i}']", kind)
    page.fill("#seed", "4")
    page.fill("#pace", str(pace))
    if person_limit is not None:   # a person's time for one decision (the bots keep the game's limit)
        page.fill("#person-limit", str(person_limit))
    page.click("#go")
    page.wait_for_url(re.compile(r"/matches/"))


@pytest.mark.parametrize("name", registry.names())
def test_a_bot_match_of_every_game_is_watched_to_its_end(web_server: WebServer, page: Any, name: str) -> None:
    game = registry.game(name)
    seats = [list(game.strategies)[i % len(game.strategies)] for i in range(game.min_players)]
    start_from_lobby(page, web_server.url, name, seats)
    page.wait_for_selector("#picture svg")
    page.wait_for_selector("#winners:has-text('winners:')", timeout=300_000)
    match_id = page.url.rstrip("/").split("/")[-1]
    result = web_server.get(f"/api/matches/{match_id}")["result"]
    assert page.inner_text("#winners") == f"winners: {', '.join(result['winners'])}"
    assert result["winners"] and page.inner_text("#status") == "over"
    page.wait_for_selector("#replay:not(.hidden)")
    screenshot(page, f"{name}-bots")


def play_by_clicking(page: Any, name: str, illegal: str | None) -> None:
    """Click the first legal action of the keyboard's fallback list (under the board) at
    every prompt until the game is over; once, type an ``illegal`` action (when given) and
    see it refused."""
    refused = illegal is None
    shot = False
    while True:
        page.wait_for_selector("#play:not(.hidden), #winners:has-text('winners:')", timeout=300_000)
        if page.inner_text("#winners"):
            break
        if page.get_attribute("#fallback", "open") is None:   # the list is folded under the board
            page.click("#fallback summary")
        if not refused:
            assert illegal is not None
            page.click("#expert summary")
            page.fill("#raw", illegal)
            page.click("#send")
            page.wait_for_selector("#refused:has-text('illegal action')")
            refused = True
        if not shot:
            page.wait_for_selector("#picture svg")
            assert "s left of" in page.inner_text("#clock")   # the time limit is shown
            screenshot(page, f"{name}-person")
            shot = True
        seen = page.get_attribute("body", "data-prompts")
        try:
            page.locator("#choices button").first.click(timeout=30_000)
        except Exception:   # the prompt was answered or replaced meanwhile: look again
            continue
        # wait for the next prompt or the end (both come over the socket)
        page.wait_for_function(f"() => document.body.dataset.prompts !== '{seen}' || "
                               "document.querySelector('#winners').textContent !== ''", timeout=300_000)
    assert refused


@pytest.mark.parametrize("name, bot, illegal", [
    ("q", "dag", '[{"coordinate": {"row": 50, "column": 50}, "1tile": {"color": "red", "shape": "star"}}]'),
    ("eriantys", "greedy", '{"eventType": "MOVE_MOTHER_NATURE", "amount": 9}'),
    ("bazaar", "purchase-points", '[[["red"], ["blue"]]]'),
    ("evolution", "silly", '[99, [], [], [], []]'),
])
def test_a_person_plays_a_whole_game_by_clicking(web_server: WebServer, page: Any, name: str, bot: str,
                                                 illegal: str) -> None:
    game = registry.game(name)
    sign_up(page, web_server.url, f"player-{name}")
    start_from_lobby(page, web_server.url, name, ["human", *[bot] * (game.min_players - 1)], person_limit=300, pace=0)
    assert "seat=P1" in page.url
    play_by_clicking(page, name, illegal)
    match_id = page.url.split("?")[0].rstrip("/").split("/")[-1]
    summary = web_server.get(f"/api/matches/{match_id}")
    assert summary["status"] == "over" and summary["result"]["winners"]
    assert not summary["result"]["ejected"], summary["result"]   # the person played every turn in time
    screenshot(page, f"{name}-person-end")


def test_a_replay_is_scrubbed_to_its_first_and_last_step(web_server: WebServer, page: Any) -> None:
    status, answer = web_server.request("POST", "/api/matches", {"game": "q", "seats": ["dag", "ldasg"], "seed": 2})
    summary = web_server.wait_over(answer["id"])
    steps = summary["steps"]
    page.goto(f"{web_server.url}/matches/{answer['id']}")
    page.wait_for_selector("#replay:not(.hidden)")
    assert page.inner_text("#stepinfo") == f"step {steps} of {steps}"
    drawn = "s => s.innerHTML"   # the picture's content (its size follows the window)
    last = page.eval_on_selector("#picture svg", drawn)
    page.click("#first")
    assert page.inner_text("#stepinfo") == f"step 1 of {steps}"
    assert page.inner_text("#caption").startswith("step 1")
    first = page.eval_on_selector("#picture svg", drawn)
    screenshot(page, "replay-first")
    page.click("#forward")
    assert page.inner_text("#stepinfo") == f"step 2 of {steps}"
    page.click("#last")
    assert page.inner_text("#stepinfo") == f"step {steps} of {steps}"
    assert page.eval_on_selector("#picture svg", drawn) == last != first
    # the scrubber itself: dragged to either end
    page.fill("#scrub", "0")
    assert page.inner_text("#stepinfo") == f"step 1 of {steps}"
    page.fill("#scrub", str(steps - 1))
    assert page.inner_text("#stepinfo") == f"step {steps} of {steps}"
