"""The web room's API of rooms (docs/lobby.md, "The web room's API") on a real ``gameroom
lobby`` and a real ``gameroom web --lobby``: ``GET /api/lobby`` lists the games and the
rooms of every game; ``WS /api/lobby/ws`` is a browser's own lobby connection — a logged-in
person, a person at a terminal (TCP) and a house bot share a room of Q and play it to the
end; a guest only watches; a browser cannot log in under another name and its bad frames
are answered in order; a browser that leaves logs its seat out; no lobby, or one that
cannot be reached, is a fatal frame and a close."""

from __future__ import annotations

import json
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from driver import free_port
from gameroom.games import registry
from tests.lobby.rooms import Conversation, LobbyProcess, Recording, play_person
from tests.web.conftest import WebServer, cookie_header, running_web, signed_up

sync_client = pytest.importorskip("websockets.sync.client")
exceptions = pytest.importorskip("websockets.exceptions")


class Browser(Conversation):
    """A browser's lobby websocket, read as the scripted person of ``tests.lobby.rooms``
    reads a TCP connection (``send``, ``recv``, ``until``, ``request``)."""

    def __init__(self, web: WebServer, session: Any = None) -> None:
        headers = cookie_header(session) if session is not None else None
        self.connection = sync_client.connect(f"ws://127.0.0.1:{web.port}/api/lobby/ws", additional_headers=headers,
                                              open_timeout=60)
        self.socket = self.connection.__enter__()
        self.relay = self.recv()
        self.name = self.relay.get("username", "")

    def send(self, message: Any) -> None:
        self.socket.send(message if isinstance(message, (str, bytes)) else json.dumps(message))

    def recv(self) -> Any:
        try:
            return json.loads(self.socket.recv(timeout=300))
        except exceptions.ConnectionClosed:
            return None

    def close(self) -> None:
        self.connection.__exit__(None, None, None)


def test_the_listing_names_every_game_and_its_rooms(lobby: LobbyProcess, web: WebServer) -> None:
    host = lobby.connect("lister")
    fish = host.request({"type": "CREATE_ROOM", "game": "fish", "numberOfPlayers": 3, "rows": 4, "columns": 3},
                        "ROOM_ID")["id"]
    answer = web.get("/api/lobby")
    assert answer["server"] == f"127.0.0.1:{lobby.port}" and "error" not in answer, answer
    games = {g["name"]: g for g in answer["games"]}
    assert {"eriantys", "q", "fish", "bazaar", "evolution"} <= set(games) and games["fish"]["plays"] == "calls"
    [room] = [r for r in answer["rooms"] if r["id"] == fish]
    assert room == {"id": fish, "game": "fish", "numberOfPlayers": 3, "currentPlayers": 1,
                    "options": {"rows": 4, "columns": 3, "fish": None},
                    "name": f"room {fish} (fish: rows 4, columns 3, 3 players)", "status": "waiting for players",
                    "players": ["1 of 3 seated"]}
    host.close()


def test_a_browser_person_a_terminal_person_and_a_bot_share_a_room(lobby: LobbyProcess, web: WebServer) -> None:
    browser = Browser(web, signed_up(web.url, "webann"))
    assert browser.relay == {"type": "RELAY", "username": "webann", "guest": False,
                             "server": f"127.0.0.1:{lobby.port}"}
    assert browser.recv() == {"type": "ACK"}   # the lobby's answer to the relay's LOGIN
    games = browser.request({"type": "GET_GAMES"}, "GAMES")["games"]
    assert any(g["name"] == "q" and g["personLimit"] == registry.game("q").person_limit for g in games)
    room = browser.request({"type": "CREATE_ROOM", "game": "q", "numberOfPlayers": 3, "isPrivate": True,
                            "person": True}, "ROOM_ID")["id"]
    terminal = lobby.connect("termbo")
    assert terminal.request({"type": "ACCESS_ROOM", "id": room, "person": True}, "ACK") == {"type": "ACK"}
    assert browser.request({"type": "ADD_BOT", "strategy": "dag"}, "ACK") == {"type": "ACK"}
    with ThreadPoolExecutor(2) as pool:
        played = list(pool.map(lambda person: play_person(person, random.Random(person.name)), (browser, terminal)))
    for person, seen in zip((browser, terminal), played):
        assert seen["refusals"][0]["type"] == "NACK" and seen["decisions"] >= 1, seen["refusals"]
        assert seen["end"]["type"] == "END_GAME" and person.name not in seen["end"]["misbehaved"], seen["end"]
        assert {p["name"] if isinstance(p, dict) else None for p in seen["states"][0]["state"]["players"]} >= {
            person.name}
    assert played[0]["end"] == played[1]["end"]
    assert set(played[0]["end"]["scores"]) == {"webann", "termbo", "dag1"}
    browser.close()
    terminal.close()


def test_a_guest_watches_and_cannot_sit(lobby: LobbyProcess, web: WebServer) -> None:
    guest = Browser(web)
    assert guest.relay["guest"] is True and guest.name.startswith("guest")
    assert guest.recv() == {"type": "ACK"}
    host = lobby.connect("hostess")
    room = host.request({"type": "CREATE_ROOM", "game": "q", "numberOfPlayers": 2}, "ROOM_ID")["id"]
    refused = guest.request({"type": "CREATE_ROOM", "game": "q", "numberOfPlayers": 2}, "ROOM_ID")
    assert refused["errorMessage"] == ("Unable to access room: this connection only watches (it logged in as a "
                                       "spectator)")
    refused = guest.request({"type": "ACCESS_ROOM", "id": room}, "ACK")
    assert refused["errorMessage"].startswith("Unable to access room: this connection only watches")
    watched = guest.request({"type": "WATCH_ROOM", "id": room}, "ACK")
    assert watched == {"type": "ACK"}
    host.request({"type": "ADD_BOT", "strategy": "ldasg"}, "ACK")
    start = guest.until("START_GAME")[-1]
    assert start["players"] == ["hostess", "ldasg1"]
    host.close()   # the host leaves: the spectator watches the house bot play on
    watched = guest.until("END_GAME")
    assert [m for m in watched if m["type"] == "PLAYER_DISCONNECT"][0]["username"] == "hostess"
    assert [m["step"] for m in watched if m["type"] == "GAME_STATE"][:2] == [1, 2]
    assert watched[-1]["winners"] == ["ldasg1"] and watched[-1]["misbehaved"] == ["hostess"]
    guest.close()


def test_a_browser_cannot_log_in_again_and_its_bad_frames_are_answered_in_order(web: WebServer) -> None:
    browser = Browser(web, signed_up(web.url, "webcarl"))
    assert browser.recv() == {"type": "ACK"}
    browser.send({"type": "LOGIN", "username": "someoneelse"})
    browser.send("not json")
    browser.send(b"\x00binary")
    browser.send("[" * 5000 + "]" * 5000)
    browser.send({"type": "GET_PUBLIC_ROOMS", "game": "fish"})
    answers = [browser.recv() for _ in range(5)]
    assert answers[:4] == [{"type": "NACK", "errorMessage": "Already logged in!"}] + [
        {"type": "NACK", "errorMessage": "Not a message"}] * 3
    assert answers[4]["type"] == "PUBLIC_ROOMS"
    browser.close()


def test_a_browser_that_drops_comes_back_to_its_seat_and_one_that_leaves_gives_it_up(
        lobby: LobbyProcess, web: WebServer) -> None:
    session = signed_up(web.url, "webdora")
    browser = Browser(web, session)
    assert browser.recv() == {"type": "ACK"}
    room = browser.request({"type": "CREATE_ROOM", "game": "fish", "numberOfPlayers": 2, "person": True},
                           "ROOM_ID")["id"]
    partner = Recording(lobby.connect("fishfan"))
    partner.request({"type": "ACCESS_ROOM", "id": room, "person": True}, "ACK")
    outcome: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: outcome.update(play_person(partner, random.Random(5))), daemon=True)
    thread.start()
    call = browser.until("CALL")[-1]
    while call.get("oneWay"):
        call = browser.until("CALL")[-1]
    browser.close()   # a lost websocket (a reload): the person's seat is held for the grace
    for _ in range(1200):   # until the lobby has seen the old connection go, the name is taken
        browser = Browser(web, session)
        login = browser.recv()
        if login == {"type": "ACK"}:
            break
        assert login["errorMessage"] == "Username was already taken", login
        browser.close()
        time.sleep(0.05)
    assert browser.recv()["type"] == "GAME_STATE"
    again = browser.recv()
    assert again["type"] == "CALL" and again["call"] == call["call"] and again["moves"] == call["moves"], again
    assert browser.request({"type": "LEAVE_ROOM"}, "ACK") == {"type": "ACK"}
    thread.join(timeout=600)
    assert outcome["end"]["type"] == "END_GAME" and outcome["end"]["misbehaved"] == ["webdora"], outcome
    gone = [m for m in partner.seen if m and m["type"] == "PLAYER_DISCONNECT"]   # told of the seat given up only
    assert gone == [{"type": "PLAYER_DISCONNECT", "username": "webdora", "roomClosed": False, "reason": "LEFT"}]
    browser.close()
    partner.close()


def test_a_web_accounts_name_and_held_seat_are_the_accounts_alone(lobby: LobbyProcess, web: WebServer) -> None:
    """The finding: a raw client that logged in as ``wdave`` first locked the web account
    ``wdave`` out of the lobby, and anyone typing a person's name took its held seat. The
    relay logs in with the account's credential: a raw namesake is let go, the name is the
    account's from then on, and its held seat goes back only to the account."""
    squatter = lobby.connect("wdave")   # a raw client takes the name first (not playing)
    session = signed_up(web.url, "wdave")
    browser = Browser(web, session)
    assert browser.recv() == {"type": "ACK"}   # the account's credential wins the name
    assert squatter.recv() is None   # the namesake without it is let go
    again = lobby.connect()
    assert again.request({"type": "LOGIN", "username": "WDave"}, "ACK") == {
        "type": "NACK", "errorMessage": "Username was already taken"}   # the account's, even once it is gone
    forged = lobby.connect()
    assert forged.request({"type": "LOGIN", "username": "wdave2", "account": "0" * 64}, "ACK") == {
        "type": "NACK", "errorMessage": "Invalid account credential"}
    room = browser.request({"type": "CREATE_ROOM", "game": "q", "numberOfPlayers": 2, "isPrivate": True,
                            "person": True}, "ROOM_ID")["id"]
    assert browser.request({"type": "ADD_BOT", "strategy": "dag"}, "ACK") == {"type": "ACK"}
    call = browser.until("CALL")[-1]
    while call.get("oneWay"):
        call = browser.until("CALL")[-1]
    browser.close()   # the seat is held for the account
    for _ in range(1200):
        thief = lobby.connect()   # the relay's own address, a name alone: never the seat
        answer = thief.request({"type": "LOGIN", "username": "wdave"}, "ACK")
        assert answer == {"type": "NACK", "errorMessage": "Username was already taken"}, answer
        thief.close()
        browser = Browser(web, session)
        if browser.recv() == {"type": "ACK"}:
            break
        browser.close()
        time.sleep(0.05)
    assert browser.recv()["type"] == "GAME_STATE"
    back = browser.recv()
    assert back["type"] == "CALL" and back["call"] == call["call"] and back["asks"], back
    assert browser.request({"type": "LEAVE_ROOM"}, "ACK") == {"type": "ACK"} and room
    for client in (browser, again, forged):
        client.close()


def fatal(url: str) -> tuple[dict[str, Any], Any]:
    with sync_client.connect(url, open_timeout=60) as client:
        frame = json.loads(client.recv(timeout=60))
        with pytest.raises(exceptions.ConnectionClosed):
            client.recv(timeout=60)
        return frame, client.close_code


def test_without_a_lobby_or_with_one_gone_the_socket_says_so_and_closes(tmp_path: Path) -> None:
    with running_web() as alone:
        frame, code = fatal(f"ws://127.0.0.1:{alone.port}/api/lobby/ws")
        assert frame == {"type": "NACK", "errorMessage": "no lobby server: start the web room with gameroom web "
                                                         "--lobby HOST:PORT", "fatal": True} and code == 1000
        assert alone.get("/api/lobby") == {"server": None, "games": [], "rooms": []}
    nowhere = free_port()
    with running_web("--lobby", f"127.0.0.1:{nowhere}") as orphan:
        frame, code = fatal(f"ws://127.0.0.1:{orphan.port}/api/lobby/ws")
        assert frame["fatal"] and frame["errorMessage"].startswith(f"the lobby at 127.0.0.1:{nowhere} cannot be "
                                                                   "reached: ") and code == 1011
        listing = orphan.get("/api/lobby")
        assert listing["rooms"] == [] and listing["error"]
