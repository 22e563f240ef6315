"""A person who reloads the room page mid-game gets the lobby's seat back (docs/lobby.md,
"Coming back"): in a real Chromium, a person plays a room of Q (played by calls) and of
Eriantys (played by events, the lobby in resilience mode) against a bot, reloads the
page while its decision waits, then loses the page's websocket, and finishes the game
on the rebuilt page. A real lobby subprocess, a real web room subprocess relaying to it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.lobby.rooms import LobbyProcess
from tests.web.conftest import WebServer, sign_up
from tests.web.test_boards import moves_then_a_decision, page_of, play_on_the_board


LOBBY_CONFIG = {"personTimeoutSeconds": 600, "resilience": True, "reconnectGraceSeconds": 600,
                "soloTimeoutSeconds": 600}
"""Held seats and the resilience mode that outlast any reload on a loaded machine."""


@pytest.mark.parametrize(("game", "bot"), [("q", "dag"), ("eriantys", "greedy")])
def test_a_person_reloads_the_room_page_mid_game_and_finishes_it(lobby: LobbyProcess, web: WebServer, browser: Any,
                                                                   game: str, bot: str) -> None:
    context, page, errors = page_of(browser, "laptop")
    # the page's websockets, so that the test can drop one as a network would
    page.add_init_script("""window.sockets = []; const Native = window.WebSocket;
        window.WebSocket = class extends Native { constructor(...a) { super(...a); window.sockets.push(this); } };""")
    try:
        sign_up(page, web.url, f"reload{game}")
        page.goto(f"{web.url}/rooms/new?game={game}&players=2&bots={bot}")
        page.wait_for_selector("#picture svg")
        moves_then_a_decision(page)
        room = page.url.rsplit("/", 1)[1]
        assert room.isdigit(), page.url
        page.reload()
        page.wait_for_selector("body[data-rejoined='1']")
        assert page.url.endswith(f"/rooms/{room}")
        assert "playing" in page.inner_text("#status")
        assert [row.split("\t")[1].split(" ")[0] for row in page.locator("#seats tr").all_inner_texts()] == [
            f"reload{game}", f"{bot}1"]
        page.wait_for_selector("#picture svg")
        page.wait_for_selector("#picture .target, #buttons button", timeout=300_000)   # the decision, asked again
        page.evaluate("() => window.sockets[window.sockets.length - 1].close()")   # the connection drops
        page.wait_for_selector("body[data-rejoined='2']")   # reconnected by itself, the seat given back
        page.wait_for_selector("#picture .target, #buttons button", timeout=300_000)
        play_on_the_board(page, game)
        assert page.inner_text("#winners").startswith("winners:")
        assert "stopped" not in page.inner_text("#winners")
        story = page.locator("#events li").all_inner_texts()
        assert "back in the game" in story
        assert not any("reloadq left" in line or "reloaderiantys left" in line for line in story), story
    finally:
        context.close()
    assert not errors, errors
