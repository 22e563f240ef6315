"""Bad websocket clients on a real ``gameroom web``: the finding — a websocket naming a
missing seat, a bot's seat without a token, or a binary frame dropped the connection with
a ``KeyError`` and no error frame. Now every such connection gets an ``error`` frame
saying what was wrong: fatal ones (no match, a missing seat, a bot's seat, no token, a
wrong token, no log-in, another account's seat, too many sockets) and then a clean close;
bad messages (binary, not JSON, too deep, an unknown kind, a spectator's move) and the
connection stays, so the next, good, message is played. A message beyond the size limit
closes with 1009; a client that stops reading is closed rather than buffered for ever."""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any, Iterator

import httpx
import pytest

from driver import free_port
from tests.web.conftest import WebServer, cookie_header, running_web, signed_up

sync_client = pytest.importorskip("websockets.sync.client")
exceptions = pytest.importorskip("websockets.exceptions")
uvicorn = pytest.importorskip("uvicorn")

PERSON = {"game": "q", "seats": ["human", "dag"], "seed": 3, "person_limit": 300}


@pytest.fixture(scope="module")
def web_server() -> Iterator[WebServer]:
    """This module's room: many matches wait for people here, more than the quotas' defaults."""
    with running_web("--max-live", "64", "--matches-per-user", "64", "--matches-per-address", "64") as server:
        yield server


@pytest.fixture(scope="module")
def accounts(web_server: WebServer) -> dict[str, Any]:
    return {name: signed_up(web_server.url, f"sock-{name}") for name in ("alice", "bob")}


def ws(server: WebServer, match_id: str, query: str = "", session: Any = None) -> Any:
    headers = cookie_header(session) if session is not None else None
    return sync_client.connect(f"ws://127.0.0.1:{server.port}/api/matches/{match_id}/ws{query}",
                               additional_headers=headers, open_timeout=60)


def fatal(server: WebServer, match_id: str, query: str = "", session: Any = None) -> tuple[dict[str, Any], int]:
    """The one frame of a connection the room refuses, and the close code."""
    with ws(server, match_id, query, session) as client:
        frame = json.loads(client.recv(timeout=60))
        with pytest.raises(exceptions.ConnectionClosed):
            client.recv(timeout=60)
        return frame, client.close_code


def until(client: Any, kind: str) -> dict[str, Any]:
    while True:
        frame = json.loads(client.recv(timeout=300))
        if frame["type"] == kind:
            return frame


def test_no_such_match_and_an_evicted_one_say_so(web_server: WebServer) -> None:
    frame, code = fatal(web_server, "999999-q")
    assert frame == {"type": "error", "message": "no match '999999-q'", "fatal": True} and code == 1000


@pytest.mark.parametrize("query, who, message", [
    ("?seat=P9&token=x", "alice", "no seat 'P9' in match"),
    ("?seat=P2", "alice", "seat P2 is played by the built-in player 'dag'"),
    ("?seat=P2&token=x", None, "seat P2 is played by the built-in player 'dag'"),
    ("?seat=P1", "alice", "seat P1: the seat's token is missing"),
    ("?seat=P1&token=guess", "alice", "seat P1: wrong token"),
    ("?seat=P1&token={token}", None, "seat P1: log in to take a person's seat"),
    ("?seat=P1&token={token}", "bob", "seat P1 belongs to another account"),
])
def test_a_seat_that_cannot_be_taken_is_an_error_frame_and_a_clean_close(
        web_server: WebServer, accounts: dict[str, Any], query: str, who: str | None, message: str) -> None:
    reply = accounts["alice"].post("/api/matches", json=PERSON)   # alice's own seat P1
    match_id, token = reply.json()["id"], reply.json()["tokens"]["P1"]
    frame, code = fatal(web_server, match_id, query.format(token=token), accounts.get(who or ""))
    assert frame["type"] == "error" and frame["fatal"] and message in frame["message"], frame
    assert code == 1008 and frame["login"] == (who is None)
    # the leaked link gave nothing: the seat is still free for alice, the match still waits
    assert web_server.get(f"/api/matches/{match_id}")["status"] == "waiting"


def test_a_seat_of_a_match_for_several_people_belongs_to_who_opened_it_first(
        web_server: WebServer, accounts: dict[str, Any]) -> None:
    reply = accounts["alice"].post("/api/matches", json={**PERSON, "seats": ["human", "human"]})
    match_id, tokens = reply.json()["id"], reply.json()["tokens"]
    with ws(web_server, match_id, f"?seat=P2&token={tokens['P2']}", accounts["bob"]) as bob:
        assert until(bob, "hello")["seat"] == "P2"
        carol = signed_up(web_server.url, "sock-carol")
        frame, _ = fatal(web_server, match_id, f"?seat=P2&token={tokens['P2']}", carol)
        assert "belongs to another account" in frame["message"]
    # bob may come back to his seat
    with ws(web_server, match_id, f"?seat=P2&token={tokens['P2']}", accounts["bob"]) as bob:
        assert until(bob, "hello")["seat"] == "P2"


@pytest.mark.parametrize("bad, message", [
    (b"\x00\x01binary", "binary frames are not read here"),
    ("{not json", "the message is not JSON"),
    ("[" * 5000 + "]" * 5000, "nests deeper than 64 levels"),
    ('{"type": "chat", "text": "hi"}', "unknown message (an object with 'type', 'text')"),
    ('[1, 2]', "unknown message (list)"),
    ('{"choice": 0, "action": 1}', "unknown message"),
])
def test_a_bad_message_is_an_error_frame_and_the_next_good_one_is_played(
        web_server: WebServer, accounts: dict[str, Any], bad: Any, message: str) -> None:
    reply = accounts["alice"].post("/api/matches", json=PERSON)
    match_id, token = reply.json()["id"], reply.json()["tokens"]["P1"]
    with ws(web_server, match_id, f"?seat=P1&token={token}", accounts["alice"]) as person:
        prompt = until(person, "prompt")
        assert prompt["choices"]
        person.send(bad)
        frame = until(person, "error")
        assert not frame["fatal"] and message in frame["message"], frame
        person.send(json.dumps({"choice": 0}))   # the connection stayed: the move is played
        assert until(person, "state")["step"] >= 1
        summary = web_server.get(f"/api/matches/{match_id}")
        assert summary["status"] == "running" and not summary["result"]


def test_a_spectator_that_moves_is_told_and_keeps_watching(web_server: WebServer) -> None:
    match_id = httpx.post(web_server.url + "/api/matches", json={"game": "q", "seats": ["dag", "dag"],
                                                                 "pace": 0.2}).json()["id"]
    with ws(web_server, match_id) as spectator:
        until(spectator, "hello")
        spectator.send(json.dumps({"choice": 0}))
        assert "spectators cannot move" in until(spectator, "error")["message"]
        assert until(spectator, "state")


def test_a_message_beyond_the_limit_closes_with_1009(web_server: WebServer) -> None:
    match_id = httpx.post(web_server.url + "/api/matches", json={"game": "q", "seats": ["dag", "dag"],
                                                                 "pace": 0.2}).json()["id"]
    with ws(web_server, match_id) as spectator:
        until(spectator, "hello")
        spectator.send(json.dumps({"action": "x" * 100_000}))
        with pytest.raises(exceptions.ConnectionClosed):
            while True:
                spectator.recv(timeout=60)
        assert spectator.close_code == 1009


def test_sockets_beyond_the_quota_are_refused_with_the_option_named() -> None:
    with running_web("--sockets-per-address", "2") as server:
        match_id = httpx.post(server.url + "/api/matches", json={"game": "q", "seats": ["dag", "dag"],
                                                                 "pace": 1}).json()["id"]
        with ws(server, match_id) as first, ws(server, match_id) as second:
            until(first, "hello")
            until(second, "hello")
            frame, code = fatal(server, match_id)
            assert frame["fatal"] and "--sockets-per-address" in frame["message"] and code == 1013
        with ws(server, match_id) as again:   # closed ones count no more
            assert until(again, "hello")


# -- a client that does not read, on a room in this process (its socket count is visible) --

@pytest.fixture
def small_room(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from gameroom.web import sockets
    from gameroom.web.app import create_app

    monkeypatch.setattr(sockets, "MAX_UNSENT", 8)
    monkeypatch.setattr(sockets, "END_DRAIN", 3600.0)   # only the unread frames can close it
    app = create_app()
    port = free_port()
    listening = socket.socket()
    # small kernel buffers on the room's side too (accepted sockets inherit them): a whole
    # match's frames no longer fit in them, so the room's writes back up as they would
    # for any client that stops reading
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    listening.bind(("127.0.0.1", port))
    listening.listen()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws_ping_interval=None))   # no ping closes it
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield app.state.room, port
    server.should_exit = True
    thread.join(timeout=60)


def test_a_client_that_stops_reading_is_closed_not_buffered(small_room: Any) -> None:
    room, port = small_room
    reply = httpx.post(f"http://127.0.0.1:{port}/api/matches", json={"game": "eriantys",
                                                                     "seats": ["greedy", "greedy"], "pace": 0.01})
    match = room.book.get(reply.json()["id"])
    deaf = socket.socket()
    deaf.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)   # a small window: the server's writes back up
    deaf.connect(("127.0.0.1", port))
    deaf.sendall(f"GET /api/matches/{match.id}/ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                 "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                 "Sec-WebSocket-Version: 13\r\n\r\n".encode())
    with deaf:
        deadline = time.monotonic() + 300
        while room.sockets.total == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert room.sockets.total == 1
        # it never reads; the room lets it go long before the match ends would (END_DRAIN: an hour)
        while room.sockets.total and time.monotonic() < deadline:
            time.sleep(0.1)
        assert room.sockets.total == 0, "the room still holds the client that does not read"
