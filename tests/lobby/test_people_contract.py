"""The contract every game keeps with a person in the lobby, run for every registered
game (plug-ins included: the helpers take any lobby and game, ``tests.games.
test_plugin_game`` runs them for its Nim): a person who times out, leaves, or loses the
connection and comes back never breaks the game. The others and the spectators are told
once (one ``PLAYER_DISCONNECT`` for the person), the person is told why and stays in the
lobby, the game goes on (or its room closes, as eriantys.md 7.5 says of a room played by
events), and a person who comes back with its reconnect secret gets its seat and its
decision again. Short limits are injected for the person's seat (``personTimeoutSeconds``).
Real ``gameroom lobby`` processes and real sockets."""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest

from gameroom.games import registry
from tests.lobby.rooms import LobbyProcess, RoomClient

GAMES = registry.names()


@pytest.fixture(scope="module")
def hasty(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A person has 1 s for a decision; programs as long as a loaded machine needs."""
    server = LobbyProcess(tmp_path_factory.mktemp("hasty"), {"personTimeoutSeconds": 1, "callTimeoutSeconds": 60})
    server.connect().close()   # listening
    yield server
    nothing_failed(server.stop())


@pytest.fixture(scope="module")
def patient(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A person has all the time it needs, and a lost connection is held (resilience, for
    the rooms played by events)."""
    server = LobbyProcess(tmp_path_factory.mktemp("patient"), {
        "personTimeoutSeconds": 600, "callTimeoutSeconds": 60, "turnTimeoutSeconds": 600, "resilience": True,
        "reconnectGraceSeconds": 600, "soloTimeoutSeconds": 600})
    server.connect().close()   # listening
    yield server
    nothing_failed(server.stop())


class Person(RoomClient):
    """A connection that reads first what an earlier request read past (the setup of a
    room played by events comes before the ACK of the seat that filled it)."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__(sock)
        self.kept: list[Any] = []

    def recv(self) -> Any:
        return self.kept.pop(0) if self.kept else super().recv()


def nothing_failed(log: str) -> None:
    """A lobby's log holds no failure of its own (an internal error, a game that failed)."""
    assert "internal error" not in log and "the game failed" not in log and "Traceback" not in log, log


def log_in(lobby: LobbyProcess, name: str, address: str = "127.0.0.1", **fields: Any) -> tuple[Person, Any]:
    """A connection from ``address`` logged in as ``name`` (with LOGIN's ``fields``): the
    client and the lobby's answer."""
    client = Person(socket.create_connection(("127.0.0.1", lobby.port), timeout=120, source_address=(address, 0)))
    client.name = name
    client.send({"type": "LOGIN", "username": name, **fields})
    return client, client.recv()


def game_entry(client: RoomClient, game: str) -> dict[str, Any]:
    games = {g["name"]: g for g in client.request({"type": "GET_GAMES"}, "GAMES")["games"]}
    return games[game]


def seated(lobby: LobbyProcess, game: str, tag: str) -> tuple[Person, Person, str, dict[str, Any]]:
    """A person (with a reconnect secret) in a room of ``game`` against house bots, a
    spectator watching it: the person, the spectator, the person's secret and the game
    (``GET_GAMES``' entry)."""
    person, given = log_in(lobby, f"p{tag}", secret=True)
    assert given["type"] == "ACK" and isinstance(given.get("secret"), str), given
    watcher, ack = log_in(lobby, f"w{tag}")
    assert ack == {"type": "ACK"}, ack
    entry = game_entry(person, game)
    players = min(entry["numberOfPlayers"])
    room = person.request({"type": "CREATE_ROOM", "game": game, "numberOfPlayers": players, "isPrivate": True,
                           "person": True, "views": True}, "ROOM_ID")["id"]
    assert watcher.request({"type": "WATCH_ROOM", "id": room}, "ACK")["type"] == "ACK"
    for _ in range(players - 1):
        person.send({"type": "ADD_BOT", "strategy": entry["bots"][0]})
        *before, ack = person.until("ACK", "NACK")
        assert ack == {"type": "ACK"}, ack
        person.kept += before
    return person, watcher, given["secret"], entry


def decision(client: RoomClient) -> list[dict[str, Any]]:
    """The messages up to the first that asks this person a decision (a CALL with moves,
    or a state offering moves), that one last."""
    seen = []
    while True:
        m = client.recv()
        assert m is not None, f"closed before a decision: {[s.get('type') for s in seen[-10:]]}"
        seen.append(m)
        if m["type"] == "CALL" and not m.get("oneWay") or m["type"] == "GAME_STATE" and m.get("moves"):
            return seen


def answer(client: RoomClient, asked: dict[str, Any]) -> dict[str, Any]:
    """The first move offered, sent as the game is played (a REPLY or a GAME_EVENT): the answer."""
    move = asked["moves"][0]["action"]
    if asked["type"] == "CALL":
        return client.request({"type": "REPLY", "call": asked["call"], "result": move}, "ACK")
    return client.request({"type": "GAME_EVENT", **move}, "ACK")


def until_over(watcher: RoomClient) -> list[dict[str, Any]]:
    """What the spectator sees until the game ends (END_GAME) or the room closes."""
    seen = []
    while True:
        m = watcher.recv()
        assert m is not None, f"the spectator's connection closed: {[s.get('type') for s in seen[-10:]]}"
        seen.append(m)
        if m["type"] == "END_GAME" or m["type"] == "PLAYER_DISCONNECT" and m.get("roomClosed"):
            return seen


def about(messages: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [m for m in messages if m["type"] == "PLAYER_DISCONNECT" and m["username"] == name]


def person_times_out(lobby: LobbyProcess, game: str, tag: str) -> None:
    """The person lets its limit run out: told why, once; still in the lobby; the game ends
    as the game's rules say, never with an error."""
    person, watcher, _secret, _entry = seated(lobby, game, tag)
    told = decision(person)
    while not about(told, person.name):
        m = person.recv()
        assert m is not None, "the person was cut off instead of being told"
        told.append(m)
    [out] = about(told, person.name)
    assert out["reason"] == "TIMEOUT" and "within" in out["message"] and " 1 s" in out["message"], out
    assert person.request({"type": "GET_GAMES"}, "GAMES")["type"] == "GAMES"   # still logged in, in the lobby
    watched = until_over(watcher)
    assert len(about(watched, person.name)) == 1, about(watched, person.name)   # one line for everybody
    end = watched[-1]
    assert "error" not in end, end
    if end["type"] == "END_GAME":
        assert person.name in end["misbehaved"], end
    for client in (person, watcher):
        client.close()


def person_leaves(lobby: LobbyProcess, game: str, tag: str) -> None:
    """The person leaves at its decision: everybody is told once, the game goes on without
    it (or its room closes, for a game played by events)."""
    person, watcher, _secret, _entry = seated(lobby, game, tag)
    decision(person)
    assert person.request({"type": "LEAVE_ROOM"}, "ACK") == {"type": "ACK"}
    watched = until_over(watcher)
    [gone] = about(watched, person.name)
    assert gone["reason"] == "LEFT", gone
    assert "error" not in watched[-1], watched[-1]
    for client in (person, watcher):
        client.close()


def person_comes_back(lobby: LobbyProcess, game: str, tag: str) -> None:
    """The person's connection is lost at its decision; a stranger from another address
    typing its name gets nothing; the person, back with its secret, gets its seat, its view
    and a decision, and its answer is taken."""
    person, watcher, secret, entry = seated(lobby, game, tag)
    decision(person)
    person.close()
    taken = {"type": "NACK", "errorMessage": "Username was already taken"}
    for _ in range(600):   # until the lobby has seen the connection go, the name is taken anyway
        for address in ("127.0.0.2", "127.0.0.1"):   # a name alone, from elsewhere or from the same host
            stranger, refused = log_in(lobby, person.name, address)
            assert refused == taken, refused
            stranger.close()
        back, ack = log_in(lobby, person.name, secret=secret)
        if ack.get("type") == "ACK":
            break
        assert ack == taken, ack
        back.close()
        time.sleep(0.05)
    assert ack == {"type": "ACK", "secret": secret}, ack
    state = back.recv()
    assert state["type"] == "GAME_STATE" and state.get("state") is not None, state
    asked = decision(back)[-1]
    assert answer(back, asked) == {"type": "ACK"}
    told = about(watcher_seen(watcher), person.name)
    if entry["plays"] == "calls":
        assert not told, told   # nobody is told of a held seat
    else:   # eriantys.md 7.6: the others are told of the lost connection, once
        assert [m["reason"] for m in told] == ["CONNECTION_LOST"], told
    for client in (back, watcher):
        client.close()


def watcher_seen(watcher: RoomClient) -> list[dict[str, Any]]:
    """What the spectator has been sent so far (it reads with a short wait)."""
    seen = []
    watcher.sock.settimeout(0.5)
    try:
        while (m := watcher.recv()) is not None:
            seen.append(m)
    finally:
        watcher.sock.settimeout(120)
    return seen


@pytest.mark.parametrize("game", GAMES)
def test_a_persons_time_out_never_breaks_a_game(hasty: LobbyProcess, game: str) -> None:
    person_times_out(hasty, game, f"t{game}"[:12])


@pytest.mark.parametrize("game", GAMES)
def test_a_person_who_leaves_never_breaks_a_game(patient: LobbyProcess, game: str) -> None:
    person_leaves(patient, game, f"l{game}"[:12])


@pytest.mark.parametrize("game", GAMES)
def test_a_person_who_comes_back_gets_the_seat_and_the_decision(patient: LobbyProcess, game: str) -> None:
    person_comes_back(patient, game, f"b{game}"[:12])

