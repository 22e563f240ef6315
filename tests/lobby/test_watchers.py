"""Spectators of a game under way (docs/lobby.md, "Spectators"; issue findings 4 and 7): one
who joins mid-game is told the game started (``START_GAME`` before its state; the room
page said "waiting for players"); and a state's picture is drawn once for every spectator
and seat that asks for it, however often they ask (it was drawn for every request before
the cache was looked at: 779 states a second to 64 watchers). The lobby runs on a thread
of this process, so its drawings can be counted; real sockets."""

from __future__ import annotations

import socket
from typing import Any, Iterator

import pytest

from gameroom.games import registry
from gameroom.server.lobby_config import LobbyConfig
from gameroom.server.xscenario import LobbyThread
from tests.lobby.rooms import RoomClient


@pytest.fixture(scope="module")
def lobby() -> Iterator[LobbyThread]:
    server = LobbyThread(list(registry.games().values()),
                         LobbyConfig(host="127.0.0.1", port=0, seed=5, person_timeout=600.0, turn_timeout=600.0,
                                     max_connections_per_address=0))
    yield server
    server.stop()


def connect(lobby: LobbyThread, name: str) -> RoomClient:
    client = RoomClient(socket.create_connection(("127.0.0.1", lobby.port), timeout=120))
    client.login(name)
    return client


def test_a_spectator_who_comes_mid_game_is_told_it_started_and_pictures_are_drawn_once_a_step(
        lobby: LobbyThread) -> None:
    person = connect(lobby, "thinker")
    room = person.request({"type": "CREATE_ROOM", "game": "q", "numberOfPlayers": 2, "isPrivate": True,
                           "person": True}, "ROOM_ID")["id"]
    assert person.request({"type": "ADD_BOT", "strategy": "dag"}, "ACK") == {"type": "ACK"}
    call = person.until("CALL")[-1]
    while call.get("oneWay"):
        call = person.until("CALL")[-1]   # the person thinks: the state stays
    before = lobby.call(lambda: lobby.lobby.drawings)
    watchers = [connect(lobby, f"late{k}") for k in range(16)]
    for watcher in watchers:
        told = watcher.request({"type": "WATCH_ROOM", "id": room, "pictures": True}, "ACK")
        assert told == {"type": "ACK"}
    first = watchers[0]
    first.send({"type": "GET_GAME_STATE"})
    state = first.until("GAME_STATE")[-1]
    assert state["svg"].startswith("<svg") and state["step"] >= 1
    for watcher in watchers:
        for _ in range(5):
            watcher.send({"type": "GET_GAME_STATE"})
        answers = [watcher.until("GAME_STATE")[-1] for _ in range(5)]
        assert all(a == state for a in answers)
    assert lobby.call(lambda: lobby.lobby.drawings) - before == 1   # one picture for 16 x 6 asks
    # the person moves: the next state is drawn once for all the spectators it is sent to
    person.request({"type": "REPLY", "call": call["call"], "result": call["moves"][0]["action"]}, "ACK")
    pushed = [watcher.until("GAME_STATE")[-1] for watcher in watchers]
    assert all(p["step"] > state["step"] and p["svg"] == pushed[0]["svg"] for p in pushed)
    referee = lobby.call(lambda: lobby.lobby.rooms[room].referee)
    drawn, step = lobby.call(lambda: (lobby.lobby.drawings, referee.step))
    assert drawn - before <= 1 + step - state["step"]   # once a step, for every spectator
    for client in [person, *watchers]:
        client.close()


@pytest.mark.parametrize("game", ["q", "eriantys"])
def test_a_late_spectator_is_told_the_game_started(lobby: LobbyThread, game: str) -> None:
    person = connect(lobby, f"host{game}")
    entry = {g["name"]: g for g in person.request({"type": "GET_GAMES"}, "GAMES")["games"]}[game]
    room = person.request({"type": "CREATE_ROOM", "game": game, "numberOfPlayers": 2, "isPrivate": True,
                           "person": True, "views": True}, "ROOM_ID")["id"]
    person.send({"type": "ADD_BOT", "strategy": entry["bots"][0]})
    start = person.until("START_GAME")[-1]
    person.until("ACK")
    late = connect(lobby, f"late{game}")
    late.send({"type": "WATCH_ROOM", "id": room, "views": True})
    told: list[Any] = late.until("ACK")
    kinds = [m["type"] for m in told]
    assert kinds[:2] == ["ADD_PLAYER", "ADD_PLAYER"] and kinds[2] == "START_GAME", kinds
    if "GAME_STATE" not in kinds:   # it came before the referee's first state: that state is pushed to it
        assert late.until("GAME_STATE")[-1]["state"] is not None
    assert told[2] == start   # the room's own START_GAME: the page shows the game, not "waiting for players"
    for client in (person, late):
        client.close()
