"""A person whose connection is lost in a room played by calls (docs/lobby.md, "Coming
back"): the seat is held for the reconnect grace, the call waiting for it goes on
waiting within its own limit, and a LOGIN under the same name gets the seat back with
its view and the waiting call sent again; a person who does not come back within the
grace, or whose call's limit runs out meanwhile, is ejected with its reason and the game
goes on. A real lobby subprocess, real TCP clients."""

from __future__ import annotations

import random
import socket
import threading
import time
from pathlib import Path
from typing import Any

from tests.lobby.rooms import LobbyProcess, Recording, RoomClient, play_person


def _room(creator: RoomClient, players: int, bots: int) -> int:
    room = creator.request({"type": "CREATE_ROOM", "game": "q", "numberOfPlayers": players, "isPrivate": True,
                            "person": True}, "ROOM_ID")["id"]
    for _ in range(bots):
        assert creator.request({"type": "ADD_BOT", "strategy": "dag"}, "ACK") == {"type": "ACK"}
    return room


def _ann_and_bob(lobby: LobbyProcess, bob_keeps_all: bool = False, **settings: Any) -> tuple[RoomClient, Any]:
    """ann creates a room of three seats with a bot in one; bob (a :class:`Recording` when
    ``bob_keeps_all``) takes the last seat with these ACCESS_ROOM settings."""
    ann, bob = lobby.connect("ann"), lobby.connect("bob")
    if bob_keeps_all:
        bob = Recording(bob)
    room = _room(ann, 3, 1)
    assert bob.request({"type": "ACCESS_ROOM", "id": room, "person": True, **settings}, "ACK") == {"type": "ACK"}
    return ann, bob


def _log_in_again(lobby: LobbyProcess, name: str) -> RoomClient:
    """A new connection logged in as ``name``, once the lobby has seen the old one go
    (until then the name is still taken)."""
    for _ in range(1200):
        client = lobby.connect()
        client.name = name
        client.send({"type": "LOGIN", "username": name})
        answer = client.recv()
        if answer == {"type": "ACK"}:
            return client
        assert answer["errorMessage"] == "Username was already taken", answer
        client.close()
        time.sleep(0.05)
    raise AssertionError(f"{name} could not log in again")


def _first_call(client: RoomClient) -> dict[str, Any]:
    """The messages up to the first call that asks this seat a decision; that call."""
    while True:
        m = client.until("CALL")[-1]
        if not m.get("oneWay"):
            return m


def test_a_person_who_comes_back_within_the_grace_answers_the_same_call_and_finishes(tmp_path: Path) -> None:
    lobby = LobbyProcess(tmp_path, {"personTimeoutSeconds": 600, "reconnectGraceSeconds": 600})
    try:
        ann = lobby.connect("ann")
        _room(ann, 2, 1)
        call = _first_call(ann)
        ann.close()   # the connection is lost while the referee waits for ann
        back = _log_in_again(lobby, "ann")
        state = back.recv()
        assert state["type"] == "GAME_STATE" and state["step"] >= 1 and state["state"] is not None, state
        again = back.recv()
        assert again["type"] == "CALL" and again["call"] == call["call"], again
        assert again["method"] == call["method"] and again["moves"] == call["moves"]
        assert 0 < again["limit"] <= call["limit"]   # what is left of the call's limit, never more
        answer = back.request({"type": "REPLY", "call": again["call"], "result": again["moves"][0]["action"]}, "ACK")
        assert answer == {"type": "ACK"}, answer
        seen = play_person(back, random.Random(3))
        assert seen["end"]["type"] == "END_GAME", seen["end"]
        assert "ann" not in seen["end"]["misbehaved"], seen["end"]
    finally:
        log = lobby.stop()
    assert "ann's seat is held for 600 s" in log


def test_a_person_who_does_not_come_back_is_ejected_and_the_game_goes_on(tmp_path: Path) -> None:
    lobby = LobbyProcess(tmp_path, {"personTimeoutSeconds": 600, "reconnectGraceSeconds": 0.5})
    try:
        ann, bob = _ann_and_bob(lobby, bob_keeps_all=True)
        outcome: dict[str, Any] = {}
        thread = threading.Thread(target=lambda: outcome.update(play_person(bob, random.Random(4))), daemon=True)
        thread.start()
        _first_call(ann)
        ann.close()
        thread.join(timeout=600)
        assert outcome["end"]["type"] == "END_GAME", outcome   # the game went on to its end
        assert "ann" in outcome["end"]["misbehaved"], outcome["end"]
        # bob was told ann is out, and why: her connection, lost and not restored
        gone = [m for m in bob.seen if m and m["type"] == "PLAYER_DISCONNECT"]
        assert [(m["username"], m["reason"]) for m in gone] == [("ann", "CONNECTION_LOST")], gone
        late = lobby.connect("ann")   # the name is free again: a plain login, no seat
        assert late.request({"type": "GET_GAME_STATE"}, "GAME_STATE")["errorMessage"] == "Not yet in a room!"
    finally:
        log = lobby.stop()
    assert "ann did not come back within 0.5 s" in log


def test_a_held_seat_whose_call_runs_out_is_ejected_for_its_time(tmp_path: Path) -> None:
    lobby = LobbyProcess(tmp_path, {"personTimeoutSeconds": 1, "reconnectGraceSeconds": 600})
    try:
        ann, bob = _ann_and_bob(lobby, views=False)
        _first_call(ann)
        ann.close()
        gone = [m for m in bob.until("PLAYER_DISCONNECT") if m["type"] == "PLAYER_DISCONNECT"][-1]
        assert gone["username"] == "ann" and gone["reason"] == "TIMEOUT", gone
        assert "time limit of 1 s" in gone["message"], gone
    finally:
        lobby.stop()


def _log_in_from(lobby: LobbyProcess, name: str, address: str, **fields: Any) -> tuple[RoomClient, Any]:
    client = RoomClient(socket.create_connection(("127.0.0.1", lobby.port), timeout=120, source_address=(address, 0)))
    client.name = name
    client.send({"type": "LOGIN", "username": name, **fields})
    return client, client.recv()


def test_a_held_seat_goes_back_to_its_own_address_or_secret_never_to_a_name_alone(tmp_path: Path) -> None:
    """The finding: another client, from another address, logged in under a person's name
    within the grace and got its hand and its call. A client of the specs (it presents
    nothing) gets its seat back from its own address only; one that asked for a secret,
    with the secret only, from anywhere."""
    lobby = LobbyProcess(tmp_path, {"personTimeoutSeconds": 600, "reconnectGraceSeconds": 600})
    taken = {"type": "NACK", "errorMessage": "Username was already taken"}
    try:
        plain = lobby.connect("plain")   # the specs' log-in
        _room(plain, 2, 1)
        call = _first_call(plain)
        plain.close()
        for _ in range(1200):
            stranger, refused = _log_in_from(lobby, "plain", "127.0.0.2")
            assert refused == taken, refused
            stranger.close()
            back, answer = _log_in_from(lobby, "plain", "127.0.0.1")
            if answer == {"type": "ACK"}:
                break
            assert answer == taken, answer
            back.close()
            time.sleep(0.05)
        assert back.recv()["type"] == "GAME_STATE" and back.recv()["call"] == call["call"]

        keen, given = _log_in_from(lobby, "keen", "127.0.0.1", secret=True)
        assert given["type"] == "ACK" and len(given["secret"]) >= 32, given
        _room(keen, 2, 1)
        call = _first_call(keen)
        keen.close()
        for _ in range(1200):
            for address in ("127.0.0.1", "127.0.0.2"):   # its own host, a name alone or a wrong secret: no
                for fields in ({}, {"secret": "x" * 32}):
                    stranger, refused = _log_in_from(lobby, "keen", address, **fields)
                    assert refused == taken, (address, fields, refused)
                    stranger.close()
            back, answer = _log_in_from(lobby, "keen", "127.0.0.3", secret=given["secret"])
            if answer["type"] == "ACK":
                break
            assert answer == taken, answer
            back.close()
            time.sleep(0.05)
        assert answer == given   # the same secret, for the next time
        assert back.recv()["type"] == "GAME_STATE" and back.recv()["call"] == call["call"]
    finally:
        lobby.stop()
