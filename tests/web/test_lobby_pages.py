"""Rooms of the lobby server in the browser (``gameroom web --lobby``, docs/lobby.md): a
person in a real Chromium creates a room of Q or Eriantys on the lobby page's form with a
bot in one seat; a person at a terminal (a lobby client on a real TCP socket, playing the
moves the lobby offers) sees the room listed and takes the last seat; the browser's person
plays the whole game by clicking on the board, the story told line by line in the page as
it happens; a room a terminal client created is listed on the lobby page, and a browser
watches it through its link."""

from __future__ import annotations

import json
import random
import threading
import time
from typing import Any

import pytest

from tests.lobby.rooms import LobbyProcess, RoomClient, play_person
from tests.web.conftest import WebServer, screenshot, sign_up
from tests.web.test_boards import fits, page_of, play_on_the_board


def play_events(client: RoomClient, rng: random.Random) -> dict[str, Any]:
    """A person at a terminal in a room played by events: the offered events at random
    (the lobby's views), until the end."""
    seen: dict[str, Any] = {"decisions": 0, "end": None}
    while True:
        m = client.recv()
        assert m is not None, f"the lobby hung up: {seen}"
        if m["type"] == "GAME_STATE" and m.get("moves"):
            client.send({"type": "GAME_EVENT", **rng.choice(m["moves"])["action"]})
            seen["decisions"] += 1
        elif m["type"] == "END_GAME":
            seen["end"] = m
            return seen


@pytest.mark.parametrize(("game", "bot", "size"), [("q", "dag", "laptop"), ("eriantys", "greedy", "phone")])
def test_a_browser_person_a_terminal_person_and_a_bot_play_a_room_made_in_the_browser(
        lobby: LobbyProcess, web: WebServer, browser: Any, game: str, bot: str, size: str) -> None:
    context, page, errors = page_of(browser, size)
    terminal = lobby.connect(f"term{game}")
    try:
        frames: list[tuple[str, Any]] = []   # what the page and the lobby say to each other
        page.on("websocket", lambda ws: (ws.on("framesent", lambda f: frames.append(("out", json.loads(f)))),
                                         ws.on("framereceived", lambda f: frames.append(("in", json.loads(f))))))
        sign_up(page, web.url, f"web{game}")
        page.wait_for_selector("#newroom:not(.hidden)")
        page.select_option("#roomgame", game)
        page.select_option("#roomplayers", "3")
        page.select_option("#roombots select[data-bot='1']", bot)
        page.click("#create")
        page.wait_for_selector("#sharelink:has-text('/rooms/')", timeout=20_000)
        room = int(page.url.rsplit("/", 1)[1])
        # the terminal's person sees the room the browser made, and takes its last seat; the
        # page asks for the bot after the link shows (ROOM_ID first): on a loaded machine the
        # lobby may list the room before the bot sits
        deadline = time.monotonic() + 120
        while True:
            listed = terminal.request({"type": "GET_PUBLIC_ROOMS", "game": "*"}, "PUBLIC_ROOMS")["rooms"]
            if any(r["id"] == room and r["game"] == game and r["currentPlayers"] == 2 for r in listed):
                break
            assert time.monotonic() < deadline, listed
            time.sleep(0.05)
        answer = terminal.request({"type": "ACCESS_ROOM", "id": room, "person": True}, "ACK")
        assert answer == {"type": "ACK"}, answer
        outcome: dict[str, Any] = {}
        player = (lambda: outcome.update(play_events(terminal, random.Random(2)))) if game == "eriantys" else (
            lambda: outcome.update(play_person(terminal, random.Random(2), refuse_first={"not": "a move"})))
        thread = threading.Thread(target=player, daemon=True)
        thread.start()
        page.wait_for_selector("#picture svg")
        page.wait_for_selector("#events li:has-text('the game starts')")
        if game == "eriantys":   # a phone: the picture's own narrow layout, drawn at 0.6 of its size
            shown = page.evaluate("""() => { const svg = document.querySelector('#picture svg');
                return {layout: svg.dataset.layout, width: svg.viewBox.baseVal.width,
                        scale: svg.getBoundingClientRect().width / svg.viewBox.baseVal.width}; }""")
            assert shown["layout"] == "narrow" and shown["width"] == 600 and shown["scale"] > 0.55, shown
            page.wait_for_selector("#picture .target")
            screenshot(page, f"lobby-room-{game}-{size}-playing")
        lines_before = page.locator("#events li").count()
        play_on_the_board(page, game)
        thread.join(timeout=300)
        assert outcome.get("end") and outcome["end"]["type"] == "END_GAME", outcome
        assert outcome["decisions"] > 0
        winners = outcome["end"]["winners"]
        assert page.inner_text("#winners") == f"winners: {', '.join(winners) or 'none'}"
        story = page.locator("#events li").all_inner_texts()
        assert len(story) > lines_before + 5   # told as it went
        assert any(f"web{game}" in line for line in story) and any(f"term{game}" in line for line in story)
        seats = page.locator("#seats tr").all_inner_texts()
        assert [s.split("\t")[1].split(" ")[0] for s in seats] == [f"web{game}", f"{bot}1", f"term{game}"], seats
        fits(page)
        screenshot(page, f"lobby-room-{game}-{size}-end")
        if game == "q":   # turns of several tiles, composed on the board, judged by the game's rules
            checked = [m for way, m in frames if way == "in" and m.get("type") == "CHECKED"]
            assert any(p is None for m in checked for p in m["problems"]), checked[:3]
            replies = [m for way, m in frames if way == "out" and m.get("type") == "REPLY"]
            assert any(isinstance(m["result"], list) and len(m["result"]) >= 2 for m in replies), replies
    finally:
        terminal.close()
        context.close()
    assert not errors, errors


def test_a_room_made_at_a_terminal_is_listed_in_the_browser_and_watched_by_its_link(
        lobby: LobbyProcess, web: WebServer, browser: Any) -> None:
    context, page, errors = page_of(browser, "laptop")
    maker = lobby.connect("termmaker")
    try:
        room = maker.request({"type": "CREATE_ROOM", "game": "fish", "numberOfPlayers": 2, "rows": 3,
                              "columns": 4, "person": True}, "ROOM_ID")["id"]
        page.goto(web.url + "/")
        row = page.wait_for_selector(f"#roomlist tr[data-room='{room}']", timeout=120_000)
        assert "fish: rows 3, columns 4, 2 players" in row.inner_text() and "1 of 2 seated" in row.inner_text()
        page.click(f"#roomlist tr[data-room='{room}'] a:has-text('watch')")
        page.wait_for_selector("#seats tr:has-text('termmaker')")
        assert "watching" in page.inner_text("#you")
        assert maker.request({"type": "ADD_BOT", "strategy": "greedy"}, "ACK") == {"type": "ACK"}
        page.wait_for_selector("#picture svg")   # the spectator's pictures come as the game goes
        outcome = play_person(maker, random.Random(4))
        assert outcome["end"]["type"] == "END_GAME"
        page.wait_for_selector("#winners:has-text('winners:')")
        assert page.locator("#events li").count() > 3
    finally:
        maker.close()
        context.close()
    assert not errors, errors


def test_a_guest_cannot_take_a_seat_and_is_offered_a_log_in(lobby: LobbyProcess, web: WebServer,
                                                            browser: Any) -> None:
    context, page, errors = page_of(browser, "phone")
    try:
        page.goto(web.url + "/rooms/new?game=q&players=2")
        page.wait_for_selector("#refused:has-text('only watches')")
        assert page.is_visible("#loginlink")
        page.goto(web.url + "/rooms/new?game=nogame&players=2")
        page.wait_for_selector("#turn:has-text('no game nogame')")
    finally:
        context.close()
    assert not errors, errors
