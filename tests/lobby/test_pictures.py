"""What the lobby tells a client that keeps no model of the game (the web room's board
page; docs/lobby.md "Views and pictures"): a person's seat of a room played by events
(Eriantys) that asked for ``views`` gets the game after every change, told by the game's
narrator, drawn when it asked for ``pictures``, with the legal events when it is its move,
and plays the whole game from them; a spectator of a room played by calls gets the
pictures it asked for and a seat only its own; a bad setting is refused."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.lobby.rooms import LobbyProcess


@pytest.fixture(scope="module")
def lobby(tmp_path_factory: pytest.TempPathFactory) -> Any:
    server = LobbyProcess(tmp_path_factory.mktemp("pictures"), {"callTimeoutSeconds": 60, "turnTimeoutSeconds": 600})
    yield server
    server.stop()


def test_a_person_plays_eriantys_from_the_views_the_lobby_sends(lobby: LobbyProcess) -> None:
    ann = lobby.connect("annp")
    watcher = lobby.connect("wally")
    assert ann.request({"type": "CREATE_ROOM", "numberOfPlayers": 2, "person": True, "views": True,
                        "pictures": True}, "ROOM_ID")["type"] == "ROOM_ID"
    listing = watcher.request({"type": "GET_PUBLIC_ROOMS"}, "PUBLIC_ROOMS")["rooms"]
    room = max(r["id"] for r in listing)
    assert watcher.request({"type": "WATCH_ROOM", "id": room, "views": True}, "ACK")["type"] == "ACK"
    ann.send({"type": "ADD_BOT", "strategy": "greedy"})   # the game starts before its ACK
    rng = random.Random(3)
    states: list[dict[str, Any]] = []
    moves = 0
    while True:
        m = ann.recv()
        assert m is not None, "the lobby hung up"
        assert m["type"] != "NACK", m
        if m["type"] == "END_GAME":
            break
        if m["type"] != "GAME_STATE":
            continue
        states.append(m)
        assert m["svg"].startswith("<svg") and m["state"]["islands"], m.keys()
        if m.get("moves"):
            assert m["state"]["currentPlayer"] == 0 and m["limit"] == 600
            move = rng.choice(m["moves"])
            assert move["label"] and move["action"]["eventType"]
            ann.send({"type": "GAME_EVENT", **move["action"]})
            moves += 1
    assert moves >= 5 and [s["step"] for s in states] == list(range(1, len(states) + 1))
    told = [line for s in states for line in s["narration"]]
    assert any("greedy1" in line for line in told) and any("annp" in line for line in told), told[:20]
    assert all(s["caption"] == (s["narration"][-1].strip() if s["narration"] else None) for s in states)
    seen = watcher.until("END_GAME")
    views = [m for m in seen if m["type"] == "GAME_STATE" and "step" in m]
    assert views and all("svg" not in m and "moves" not in m for m in views)   # no pictures asked, no moves
    for client in (ann, watcher):
        client.close()


def test_a_bad_pictures_or_views_setting_is_refused(lobby: LobbyProcess) -> None:
    bo = lobby.connect("bop")
    bad = bo.request({"type": "CREATE_ROOM", "game": "q", "numberOfPlayers": 2, "pictures": "yes"}, "ROOM_ID")
    assert bad == {"type": "NACK", "errorMessage": "Invalid room settings: person, views and pictures are true "
                                                   "or false"}
    room = bo.request({"type": "CREATE_ROOM", "game": "q", "numberOfPlayers": 2, "isPrivate": True}, "ROOM_ID")
    watcher = lobby.connect("bow")
    assert watcher.request({"type": "WATCH_ROOM", "id": room["id"], "views": 1}, "ACK") == {
        "type": "NACK", "errorMessage": "Invalid room settings: views and pictures are true or false"}
    for client in (bo, watcher):
        client.close()


def test_a_spectator_of_q_sees_pictures_and_a_seat_its_own(lobby: LobbyProcess) -> None:
    cy = lobby.connect("cyp")
    created = cy.request({"type": "CREATE_ROOM", "game": "q", "numberOfPlayers": 2, "isPrivate": True,
                          "person": True, "pictures": True}, "ROOM_ID")
    room = created["id"]
    spectator, plain = lobby.connect("specq"), lobby.connect("plainq")
    assert spectator.request({"type": "WATCH_ROOM", "id": room, "pictures": True}, "ACK")["type"] == "ACK"
    assert plain.request({"type": "WATCH_ROOM", "id": room}, "ACK")["type"] == "ACK"
    assert spectator.request({"type": "WATCH_ROOM", "id": room, "pictures": 1}, "ACK") == {
        "type": "NACK", "errorMessage": "Already in a room!"}
    cy.send({"type": "ADD_BOT", "strategy": "dag"})
    rng = random.Random(5)
    mine: list[dict[str, Any]] = []
    while True:
        m = cy.recv()
        assert m is not None
        if m["type"] == "END_GAME":
            break
        if m["type"] == "GAME_STATE":
            mine.append(m)
        elif m["type"] == "CALL" and not m.get("oneWay"):
            cy.send({"type": "REPLY", "call": m["call"], "result": rng.choice(m["moves"])["action"]})
        assert m["type"] != "NACK", m
    assert mine and all(m["svg"].startswith("<svg") for m in mine)
    hand = mine[-1]["state"]["players"][0]["tile*"]
    watched = [m for m in spectator.until("END_GAME") if m["type"] == "GAME_STATE"]
    assert watched and all(m["svg"].startswith("<svg") for m in watched)
    assert all("svg" not in m for m in plain.until("END_GAME") if m["type"] == "GAME_STATE")
    assert hand is not None
    for client in (cy, spectator, plain):
        client.close()


def test_evolution_views_name_the_players(lobby: LobbyProcess) -> None:
    """Seats are identity: the views of Evolution (a seat's and a spectator's) name each
    player by its name, not by the spec's ``name#seat`` id, and so do its pictures' labels
    (the narrator's lines keep the spec's ids, as ``gameroom play`` prints them)."""
    eve = lobby.connect("evename")
    room = eve.request({"type": "CREATE_ROOM", "game": "evolution", "numberOfPlayers": 3, "isPrivate": True,
                        "person": True, "pictures": True}, "ROOM_ID")["id"]
    watcher = lobby.connect("evewatch")
    assert watcher.request({"type": "WATCH_ROOM", "id": room}, "ACK")["type"] == "ACK"
    for _ in range(2):
        eve.send({"type": "ADD_BOT", "strategy": "silly"})
    state = next(m for m in iter(eve.recv, None) if m["type"] == "GAME_STATE")
    assert dict(state["state"]["me"])["id"] == "evename"
    assert sorted(dict(p)["id"] for p in state["state"]["others"]) == ["silly1", "silly2"]
    assert ">evename</text>" in state["svg"] and ">evename#1</text>" not in state["svg"]   # the player's label
    watched = next(m for m in iter(watcher.recv, None) if m["type"] == "GAME_STATE")
    assert [dict(p)["id"] for p in watched["state"]["players"]] == ["evename", "silly1", "silly2"]
    for client in (eve, watcher):
        client.close()
